"""The trajectory file format: one `TrajectoryHeader` line followed by one `Snapshot`
line per step (`docs/formats/trajectory.md`).

`read_trajectory` never raises anything but `TrajectoryError`, whose `problems` name the
line and the JSON path of every fault; `write_trajectory` writes atomically;
`scene_problems` checks a valid trajectory against the scene it claims. A header names its
scene relative to the trajectory's own folder (`scene_reference`), so the pair can be
moved together and read from any working folder; `scene_places` lists where a reader
looks for it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from fdc.core.errors import FdcError
from fdc.core.files import write_atomic
from fdc.core.inputs import InputFileError, InputKind, read_input_text
from fdc.core.jsonl import loads
from fdc.core.jsonpath import json_path
from fdc.core.limits import current, hint
from fdc.core.problems import Diagnostic, Severity, error, render_message
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.state import TRAJECTORY_FORMAT_VERSION, Snapshot, TrajectoryHeader
from fdc.sim_bridge.world.statics import scene_statics

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


class TrajectoryError(FdcError, ValueError):
    """A trajectory that cannot be read; `problems` lists every fault found, each with its
    line (None: the file as a whole) and the JSON path of the value within that line."""

    def __init__(self, problems: Iterable[Diagnostic], file: str = "") -> None:
        self.problems = list(problems)
        self.file = file
        super().__init__("\n".join(render_message(p.in_file(file)) for p in self.problems))


def write_trajectory(path: str | Path, header: TrajectoryHeader,
                     snapshots: Iterable[Snapshot]) -> None:
    """Write a trajectory file atomically (`fdc.core.files.write_atomic`)."""
    write_atomic(Path(path), trajectory_text(header, snapshots))


def trajectory_text(header: TrajectoryHeader, snapshots: Iterable[Snapshot]) -> str:
    """A trajectory file's text: the header line, then one line per snapshot."""
    lines = [header.model_dump_json()] + [s.model_dump_json() for s in snapshots]
    return "\n".join(lines) + "\n"


def scene_reference(trajectory: str | Path, scene: str | Path) -> str:
    """How the header of the trajectory at `trajectory` names the scene file `scene`: a
    relative path from the trajectory's folder (`../scene.json`), or the scene's absolute
    path where none leads there (another drive)."""
    here = os.path.dirname(os.path.abspath(trajectory))
    there = os.path.abspath(scene)
    try:
        return Path(os.path.relpath(there, here)).as_posix()
    except ValueError:
        return Path(there).as_posix()


def scene_places(trajectory: str | Path, named: str, folders: Sequence[str | Path] = ()
                 ) -> list[Path]:
    """Where the scene a trajectory's header names (`named`) may be, in the order to look:
    from the trajectory's folder, then from each of `folders` (a suite's), then from the
    working folder; then the file's bare name in those folders (a header written before
    headers named the scene relative to the trajectory). Each place once."""
    bases = [Path(trajectory).parent, *(Path(f) for f in folders), Path()]
    name = Path(named).name
    tries = [b / named for b in bases] + ([b / name for b in bases] if name != named else [])
    out: dict[str, Path] = {}
    for p in tries:
        out.setdefault(os.path.normpath(os.path.abspath(p)), p)
    return list(out.values())


def read_trajectory(path: str | Path) -> tuple[TrajectoryHeader, list[Snapshot]]:
    """Read and validate a trajectory file; raises `TrajectoryError` (only) on faults."""
    p = Path(path)
    try:
        text = read_input_text(p, InputKind.TRAJECTORY)
    except InputFileError as e:
        raise TrajectoryError([error("T000", f"cannot read the file: {e.reason}",
                                     hint=e.hint)], str(p)) from None
    return parse_trajectory(text, str(p))


def parse_trajectory(text: str, file: str = "") -> tuple[TrajectoryHeader, list[Snapshot]]:
    """Validate trajectory text (see `read_trajectory`)."""
    problems: list[Diagnostic] = []
    rows = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if not rows:
        raise TrajectoryError([error("T004", "empty file: expected a header line and one "
                                     "snapshot per line", line=1)], file)
    n0, first = rows[0]
    raw = _json_line(first, n0, problems)
    header: TrajectoryHeader | None = None
    if raw is not None:
        if isinstance(raw, dict) and raw.get("kind", "fdc-trajectory") != "fdc-trajectory":
            problems.append(error("T003", f"not a trajectory header: kind is "
                                  f"{raw.get('kind')!r}, not 'fdc-trajectory'", "kind", line=n0))
        elif isinstance(raw, dict) and "format_version" in raw and \
                raw["format_version"] != TRAJECTORY_FORMAT_VERSION:
            problems.append(error(
                "T003", f"unsupported format_version {raw['format_version']!r}; this fdc "
                f"reads {TRAJECTORY_FORMAT_VERSION!r}", "format_version", line=n0))
            raise TrajectoryError(problems, file)
        else:
            header = _validate(TrajectoryHeader, raw, n0, problems)  # type: ignore[assignment]
    snapshots: list[Snapshot] = []
    prev: tuple[int, Snapshot] | None = None
    for n, line in rows[1:]:
        if len(problems) >= current().trajectory_problems:
            problems.append(Diagnostic(Severity.NOTE, "T099", "too many problems, the limit "
                                       "`trajectory_problems`; stopped reading", line=n,
                                       hint=hint("trajectory_problems")))
            break
        raw = _json_line(line, n, problems)
        if raw is None:
            continue
        snap = _validate(Snapshot, raw, n, problems)
        if snap is None:
            continue
        assert isinstance(snap, Snapshot)
        if prev is not None:
            pn, ps = prev
            if snap.step <= ps.step:
                problems.append(error(
                    "T011", f"step {snap.step} does not follow step {ps.step} (line {pn}): "
                    "steps must increase", "step", line=n))
            if snap.time_min < ps.time_min:
                problems.append(error(
                    "T011", f"the clock goes back from {ps.time_min} (line {pn}) to "
                    f"{snap.time_min}", "time_min", line=n))
            if snap.path_length_m < ps.path_length_m - 1e-9:
                problems.append(error(
                    "T011", f"the distance walked shrinks from {ps.path_length_m} "
                    f"(line {pn}) to {snap.path_length_m}", "path_length_m", line=n))
        prev = (n, snap)
        snapshots.append(snap)
    if not problems and not snapshots:
        problems.append(error("T004", "no snapshot follows the header", line=n0))
    if problems or header is None:
        raise TrajectoryError(problems, file)
    return header, snapshots


def _json_line(line: str, n: int, problems: list[Diagnostic]) -> Any:
    try:
        return loads(line)
    except json.JSONDecodeError as e:
        problems.append(error("T001", f"not valid JSON: {e.msg} (column {e.colno})", line=n))
        return None


def _validate(model: type[BaseModel], raw: Any, n: int, problems: list[Diagnostic]
              ) -> BaseModel | None:
    if not isinstance(raw, dict):
        problems.append(error("T002", f"expected a JSON object, found {type(raw).__name__}",
                              line=n))
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        for err in e.errors():
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            if err.get("type") == "finite_number":
                msg = "NaN and infinite numbers are not allowed"
            problems.append(error("T010", msg, json_path(err.get("loc", ())), line=n))
        return None


def scene_problems(graph: SceneGraph, header: TrajectoryHeader, snapshots: Sequence[Snapshot]
                   ) -> list[Diagnostic]:
    """Faults of a (valid) trajectory against the scene it claims: another scene's hash,
    unknown or fixed objects, a `held` that is no movable object, unknown containers,
    states of objects the scene does not have. Lines count the header as line 1."""
    st = scene_statics(graph)
    out: list[Diagnostic] = []
    if header.scene_sha256 is not None and header.scene_sha256 != st.scene_sha256:
        out.append(error(
            "T020", f"the trajectory was recorded in another scene (its scene_sha256 is "
            f"{header.scene_sha256}, the scene's sha256 is {st.scene_sha256})",
            "scene_sha256", line=1,
            hint="give the scene the trajectory was recorded in (`--scene`)"))
    hint = "is the trajectory's scene the one given?"
    for k, s in enumerate(snapshots):
        line = k + 2
        for ident in s.objects:
            if ident not in st.tracked_index:
                what = "is fixed" if graph.has(ident) else "is not in the scene"
                out.append(error("T020", f"object `{ident}` {what}",
                                 json_path(("objects", ident)), [ident], line=line,
                                 hint=hint if not graph.has(ident) else
                                 "only movable and articulated objects have poses"))
        if s.held is not None and (s.held not in st.tracked_index or
                                   graph.object(s.held).kind is not Kind.MOVABLE):
            out.append(error("T020", f"`{s.held}` is not a movable object of the scene", "held",
                             [s.held], line=line, hint=hint))
        for key in s.open:
            if key not in st.containers:
                out.append(error("T020", f"`{key}` is not a container of the scene",
                                 json_path(("open", key)), [key], line=line, hint=hint))
        for ident in s.states:
            if not graph.has(ident):
                out.append(error("T020", f"object `{ident}` is not in the scene",
                                 json_path(("states", ident)), [ident], line=line, hint=hint))
        if len(out) >= current().trajectory_problems:
            break
    return out
