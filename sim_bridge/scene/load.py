"""Read `scene.json`: syntax, schema, then the checks that span the whole file.

Every problem becomes a `Diagnostic` with its JSON path; nothing raises on bad input.
NaN and infinities are rejected (JSON allows neither; Python's parser would accept them).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from fdc.core.inputs import InputFileError, InputKind, read_input_text
from fdc.core.jsonl import loads
from fdc.core.jsonpath import json_path
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


def load_scene(path: str | Path) -> LoadResult:
    """Read and validate a scene file."""
    p = Path(path)
    try:
        text = read_input_text(p, InputKind.SCENE)
    except InputFileError as e:
        unreadable = error("S000", f"cannot read the scene file: {e.reason}", hint=e.hint)
        return LoadResult(None, [unreadable], str(p))
    result = parse_scene(text, base_dir=p.parent)
    return LoadResult(result.scene, result.findings, str(p))


def parse_scene(text: str, base_dir: Path | None = None) -> LoadResult:
    """Validate scene text; `base_dir` (the file's folder) lets mesh paths be checked."""
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
    try:
        scene = Scene.model_validate(data)
    except ValidationError as e:
        return LoadResult(None, [_from_pydantic(err) for err in e.errors()])
    findings = check_references(scene, base_dir)
    return LoadResult(None if has_errors(findings) else scene, findings)


def _from_pydantic(err: object) -> Diagnostic:
    e = dict(err)  # type: ignore[call-overload]
    message = str(e.get("msg", "invalid value")).removeprefix("Value error, ")
    if e.get("type") == "finite_number":
        message = "NaN and infinite numbers are not allowed"
    return error("S010", message, json_path(e.get("loc", ())))


def check_references(scene: Scene, base_dir: Path | None = None) -> list[Diagnostic]:
    """Duplicate ids, unknown references, missing mesh files."""
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
        if o.mesh is not None and base_dir is not None and not (base_dir / o.mesh.path).is_file():
            out.append(
                warning(
                    "S030",
                    f"mesh file `{o.mesh.path}` not found; the box is used instead",
                    f"{base}.mesh.path",
                    [o.id],
                )
            )
    return out
