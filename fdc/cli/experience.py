"""`fdc experience ...`: simulate an oracle robot's experience log, and draw one.

Exit codes: 0 ok, 2 usage or input error (a scene or log that cannot be read or does not
validate, a scene too poor for the interactions asked for).
See docs/cli.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import EXIT_OK, EXIT_USAGE, file_option, graph_or_exit, report_findings, stderr

if TYPE_CHECKING:
    from fdc.sim_bridge.world.experience import Experience

experience_app = typer.Typer(help="Simulate and draw robot experience logs.",
                             no_args_is_help=True)

_MAX_PROBLEMS = 20


@experience_app.command()
def generate(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output: Annotated[Path, file_option("-o", "--output", help="Where to write the log.")],
    interactions: Annotated[
        int, typer.Option("--interactions", "-n", min=0, max=1000,
                          help="Pick-and-place interactions to perform.")
    ] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Which interactions, and in what order.")
                    ] = 0,
) -> None:
    """Simulate an oracle robot's day: N pick-and-place interactions, one frame per step
    (deterministic for a seed)."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.world.simulate import SimulationError, simulate_experience

    g = graph_or_exit(scene)
    try:
        log = simulate_experience(g, interactions=interactions, seed=seed,
                                  scene=_relative(scene, output))
    except SimulationError as e:
        report_findings(g.findings, str(scene))
        stderr().print(f"{scene}: error: {e}")
        raise typer.Exit(EXIT_USAGE) from None
    write_atomic(output, log.to_json())
    report_findings(g.findings, str(scene))
    stderr().print(f"wrote {output}: {len(log.interactions)} interactions, "
                    f"{len(log.frames)} frames")
    raise typer.Exit(EXIT_OK)


@experience_app.command()
def render(
    log: Annotated[Path, typer.Argument(help="An experience log (JSON).")],
    output: Annotated[Path, file_option("-o", "--output", help="The picture (.png or .svg).")],
    scene: Annotated[
        Path | None, typer.Option("--scene", help="The scene file (default: the one the log "
                                  "names, relative to the log, else to the working folder).")
    ] = None,
    dpi: Annotated[int, typer.Option(min=20, max=600, help="Resolution of a PNG.")] = 120,
) -> None:
    """Draw the robot's walk on the scene map, its picks and places numbered, and the
    timeline of its interactions."""
    from fdc.core.files import write_atomic
    from fdc.core.hashing import scene_sha256
    from fdc.sim_bridge.pictures import render_experience

    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        stderr().print(f"error: the picture must be .png or .svg, not `{output.name}`")
        raise typer.Exit(EXIT_USAGE)
    xp = _read_log(log)
    scene_path = scene or _scene_of(log, xp.scene)
    g = graph_or_exit(scene_path)
    if xp.scene_sha256 is not None and xp.scene_sha256 != scene_sha256(g.scene):
        stderr().print(f"{log}: scene_sha256: error: the log was recorded in another scene "
                        f"than {scene_path}")
        raise typer.Exit(EXIT_USAGE)
    unknown = sorted({i.object for i in xp.interactions if not g.has(i.object)})
    if unknown:
        stderr().print(f"{log}: interactions: error: no object {', '.join(unknown)} in "
                        f"{scene_path}")
        raise typer.Exit(EXIT_USAGE)
    write_atomic(output, render_experience(g, xp, fmt=fmt, dpi=dpi))
    stderr().print(f"wrote {output}")
    raise typer.Exit(EXIT_OK)


def _relative(scene: Path, output: Path) -> str:
    """The scene as the log names it: relative to the log's folder when possible."""
    try:
        return Path(os.path.relpath(scene.resolve(), output.resolve().parent)).as_posix()
    except ValueError:  # another drive
        return str(scene.resolve())


def _scene_of(log: Path, named: str) -> Path:
    beside = log.parent / named
    return beside if beside.exists() else Path(named)


def _read_log(path: Path) -> Experience:
    """Read and validate a log, or exit 2 with every problem located."""
    from pydantic import ValidationError

    from fdc.core.inputs import InputFileError, InputKind, read_input_text
    from fdc.core.jsonl import loads
    from fdc.core.jsonpath import json_path
    from fdc.sim_bridge.world.experience import Experience

    err = stderr()
    try:
        text = read_input_text(path, InputKind.EXPERIENCE)
    except InputFileError as e:
        err.print(f"{path}: error: cannot read the log: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    try:
        raw = loads(text)
    except json.JSONDecodeError as e:
        err.print(f"{path}:{e.lineno}:{e.colno}: error: not valid JSON: {e.msg}")
        raise typer.Exit(EXIT_USAGE) from None
    # A log says its kind; one without a kind is taken for a log only if it has frames.
    is_log = isinstance(raw, dict) and (raw.get("kind") == "fdc-experience" or
                                        ("kind" not in raw and "frames" in raw))
    if not is_log:
        what = (f"kind {raw['kind']!r}" if "kind" in raw else "no kind and no frames") \
            if isinstance(raw, dict) else f"a JSON {type(raw).__name__}"
        err.print(f"{path}: error: not an experience log (kind `fdc-experience`): found "
                  f"{what}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    try:
        return Experience.model_validate(raw)
    except ValidationError as e:
        problems = e.errors()
        for p in problems[:_MAX_PROBLEMS]:
            where = json_path(p["loc"])
            msg = str(p["msg"]).removeprefix("Value error, ")
            err.print(f"{path}: {where + ': ' if where else ''}error: {msg}", markup=False)
        if len(problems) > _MAX_PROBLEMS:
            err.print(f"{path}: ... and {len(problems) - _MAX_PROBLEMS} more problems")
        raise typer.Exit(EXIT_USAGE) from None
