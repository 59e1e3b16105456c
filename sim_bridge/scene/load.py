"""Read `scene.json`: syntax, schema, then the checks that span the whole file.

Every problem becomes a `Diagnostic` with its JSON path; nothing raises on bad input.
NaN and infinities are rejected (JSON allows neither; Python's parser would accept them).

Limits (docs/limits.md, "Scenes"), checked before anything is built: at most the limit
`scene_objects` objects (counted before the objects are validated), every coordinate and
size within the limit `coordinate_m` of the origin, and mesh paths inside the scene's
folder, the folder of the Habitat dataset it was imported from (`source.dataset`), or a
folder the caller allows (`mesh_roots`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fdc.core.inputs import InputFileError, InputKind, read_input_text
from fdc.core.jsonl import loads
from fdc.core.jsonpath import json_path
from fdc.core.limits import current, hint
from fdc.core.problems import Diagnostic, error, has_errors, warning
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene


@dataclass(frozen=True)
class LoadResult:
    scene: Scene | None
    findings: list[Diagnostic] = field(default_factory=list)
    path: str = ""

    @property
    def ok(self) -> bool:
        return self.scene is not None and not has_errors(self.findings)


def load_scene(path: str | Path, mesh_roots: Sequence[Path] = ()) -> LoadResult:
    """Read and validate a scene file; meshes may lie in its folder or in `mesh_roots`."""
    p = Path(path)
    try:
        text = read_input_text(p, InputKind.SCENE)
    except InputFileError as e:
        unreadable = error("S000", f"cannot read the scene file: {e.reason}", hint=e.hint)
        return LoadResult(None, [unreadable], str(p))
    result = parse_scene(text, base_dir=p.parent, mesh_roots=mesh_roots)
    return LoadResult(result.scene, result.findings, str(p))


def parse_scene(text: str, base_dir: Path | None = None,
                mesh_roots: Sequence[Path] = ()) -> LoadResult:
    """Validate scene text; `base_dir` (the file's folder) lets mesh paths be checked:
    they must lie inside it or inside one of `mesh_roots`."""
    try:
        data = loads(text)
    except json.JSONDecodeError as e:
        return LoadResult(
            None, [error("S001", f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})")]
        )
    if not isinstance(data, dict):
        return LoadResult(None, [error("S002", "a scene is a JSON object")])
    version = data.get("format_version")
    if version is not None and version != FORMAT_VERSION:
        return LoadResult(
            None,
            [
                error(
                    "S003",
                    f"unsupported format_version {version!r}; this fdc reads {FORMAT_VERSION!r}",
                    "format_version",
                )
            ],
        )
    objects = data.get("objects")
    most = current().scene_objects
    if isinstance(objects, list) and len(objects) > most:
        return LoadResult(None, [error(
            "S040", f"the scene has {len(objects):,} objects, more than {most:,}, the limit "
            "`scene_objects`", "objects",
            hint="real scenes hold a few thousand at most; split the scene, or "
            + hint("scene_objects"))])
    try:
        scene = Scene.model_validate(data)
    except ValidationError as e:
        return LoadResult(None, [_from_pydantic(err) for err in e.errors()])
    findings = check_extent(data)
    if findings:
        return LoadResult(None, findings)
    findings = check_references(scene, base_dir, mesh_roots)
    return LoadResult(None if has_errors(findings) else scene, findings)


DATASET_SUFFIX = ".scene_dataset_config.json"


def _in_dataset(mesh: Path, dataset: str) -> bool:
    """Whether `mesh` lies in the folder of the Habitat dataset an imported scene names
    (`source.dataset`, a `*.scene_dataset_config.json`): some folder above the mesh holds
    that config file."""
    if not dataset.endswith(DATASET_SUFFIX):
        return False
    name = Path(dataset).name
    return any((folder / name).is_file() for folder in mesh.parents)


def check_extent(data: dict[str, Any]) -> list[Diagnostic]:
    """Every number of the (validated) scene within the limit `coordinate_m`: one error
    per value beyond it, located."""
    most = current().coordinate_m
    return [
        error("S041", f"{value:g} is beyond {most:g} m, the limit `coordinate_m` for a "
              "coordinate or size", json_path(loc),
              hint="scene coordinates are metres; a house is tens of metres across; "
              + hint("coordinate_m"))
        for loc, value in _numbers(data, ())
        if abs(value) > most
    ]


def _numbers(value: object, loc: tuple[int | str, ...]
             ) -> Iterator[tuple[tuple[int | str, ...], float]]:
    # The scene validated: its nesting is the schema's, a few levels deep.
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, (*loc, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _numbers(v, (*loc, k))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield loc, float(value)


def _from_pydantic(err: object) -> Diagnostic:
    e = dict(err)  # type: ignore[call-overload]
    message = str(e.get("msg", "invalid value")).removeprefix("Value error, ")
    if e.get("type") == "finite_number":
        message = "NaN and infinite numbers are not allowed"
    return error("S010", message, json_path(e.get("loc", ())))


def check_references(scene: Scene, base_dir: Path | None = None,
                     mesh_roots: Sequence[Path] = ()) -> list[Diagnostic]:
    """Duplicate ids, unknown references, mesh paths outside the allowed folders (the
    scene's, `base_dir`, and `mesh_roots`), missing mesh files."""
    roots = [r.resolve() for r in (base_dir, *mesh_roots) if r is not None]
    dataset = scene.source.get("dataset", "")
    out: list[Diagnostic] = []
    ids: list[tuple[str, str]] = [(r.id, f"rooms[{i}].id") for i, r in enumerate(scene.rooms)]
    ids += [(o.id, f"objects[{i}].id") for i, o in enumerate(scene.objects)]
    ids += [(d.id, f"doors[{i}].id") for i, d in enumerate(scene.doors)]
    counts = Counter(i for i, _ in ids)
    seen: set[str] = set()
    for ident, path in ids:
        if counts[ident] > 1:
            if ident in seen:
                out.append(error("S020", f"duplicate id `{ident}`", path, [ident]))
            seen.add(ident)
    room_ids = {r.id for r in scene.rooms}
    for i, d in enumerate(scene.doors):
        for j, r in enumerate(d.rooms):
            if r not in room_ids:
                out.append(error("S021", f"unknown room `{r}`", f"doors[{i}].rooms[{j}]", [d.id]))
    for i, o in enumerate(scene.objects):
        base = f"objects[{i}]"
        if o.room is not None and o.room not in room_ids:
            out.append(error("S021", f"unknown room `{o.room}`", f"{base}.room", [o.id]))
        part_names = [p.name for p in o.parts]
        for what, names in (
            ("surface", [s.name for s in o.surfaces or []]),
            ("container", [c.name for c in o.containers]),
            ("part", part_names),
        ):
            for name, n in Counter(names).items():
                if n > 1:
                    out.append(
                        error("S020", f"duplicate {what} name `{name}`", f"{base}.{what}s", [o.id])
                    )
        for j, c in enumerate(o.containers):
            if c.part is not None and c.part not in part_names:
                where = f"{base}.containers[{j}].part"
                out.append(error("S021", f"unknown part `{c.part}`", where, [o.id]))
        for j, p in enumerate(o.parts):
            if p.joint is not None and p.joint.parent is not None and \
                    p.joint.parent not in part_names:
                    out.append(
                        error(
                            "S021",
                            f"unknown part `{p.joint.parent}`",
                            f"{base}.parts[{j}].joint.parent",
                            [o.id],
                        )
                    )
        if o.mesh is None or base_dir is None:
            continue
        mesh = (base_dir / o.mesh.path).resolve()
        if not any(mesh.is_relative_to(r) for r in roots) and \
                not _in_dataset(mesh, dataset):
            out.append(error(
                "S031", f"mesh path `{o.mesh.path}` of `{o.id}` leads outside the scene's "
                "folder", f"{base}.mesh.path", [o.id],
                hint="keep meshes beside the scene, or allow their folder with "
                "`--mesh-root DIR`"))
        elif not mesh.exists():  # a special file is read, and refused, as the mesh
            out.append(
                warning(
                    "S030",
                    f"mesh file `{o.mesh.path}` not found; the box is used instead",
                    f"{base}.mesh.path",
                    [o.id],
                )
            )
    return out
