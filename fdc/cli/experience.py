"""`fdc experience ...`: simulate an oracle robot's experience log, and draw one.

Exit codes: 0 ok, 2 usage or input error (a scene or log that cannot be read or does not
validate, a scene too poor for the interactions asked for).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import EXIT_OK, EXIT_USAGE, graph_or_exit, report_findings, stderr

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience

experience_app = typer.Typer(help="Simulate and draw robot experience logs.",
                             no_args_is_help=True)

_MAX_PROBLEMS = 20


@experience_app.command()
def generate(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the log.")],
    interactions: Annotated[
        int, typer.Option("--interactions", "-n", min=0, max=1000,
                          help="Pick-and-place interactions to perform.")
    ] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Which interactions, and in what order.")
                    ] = 0,
) -> None:
    """Simulate an oracle robot's day: N pick-and-place interactions, one frame per step
    (deterministic for a seed)."""
    from fdc.sim_bridge.world.simulate import SimulationError, simulate_experience

    g = graph_or_exit(scene)
    try:
        log = simulate_experience(g, interactions=interactions, seed=seed,
                                  scene=_relative(scene, output))
    except SimulationError as e:
        report_findings(g.findings, str(scene))
        stderr().print(f"{scene}: error: {e}")
        raise typer.Exit(EXIT_USAGE) from None
    _write(output, log.to_json())
    report_findings(g.findings, str(scene))
    stderr().print(f"wrote {output}: {len(log.interactions)} interactions, "
                    f"{len(log.frames)} frames")
    raise typer.Exit(EXIT_OK)


@experience_app.command()
def render(
    log: Annotated[Path, typer.Argument(help="An experience log (JSON).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The picture (.png or .svg).")],
    scene: Annotated[
        Path | None, typer.Option("--scene", help="The scene file (default: the one the log "
                                  "names, relative to the log, else to the working folder).")
    ] = None,
    dpi: Annotated[int, typer.Option(min=20, max=600, help="Resolution of a PNG.")] = 120,
) -> None:
    """Draw the robot's walk on the scene map, its picks and places numbered, and the
    timeline of its interactions."""
    from fdc.sim_bridge.world.trajectory import scene_sha256

    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        stderr().print(f"error: the picture must be .png or .svg, not `{output.name}`")
        raise typer.Exit(EXIT_USAGE)
    xp = _read_log(log)
    scene_path = scene or _scene_of(log, xp.scene)
    g = graph_or_exit(scene_path)
    if xp.scene_sha256 is not None and xp.scene_sha256 != scene_sha256(g):
        stderr().print(f"{log}: scene_sha256: error: the log was recorded in another scene "
                        f"than {scene_path}")
        raise typer.Exit(EXIT_USAGE)
    unknown = sorted({i.object for i in xp.interactions if not g.has(i.object)})
    if unknown:
        stderr().print(f"{log}: interactions: error: no object {', '.join(unknown)} in "
                        f"{scene_path}")
        raise typer.Exit(EXIT_USAGE)
    _write(output, render_experience(g, xp, fmt=fmt, dpi=dpi))
    stderr().print(f"wrote {output}")
    raise typer.Exit(EXIT_OK)


def _write(path: Path, data: str | bytes) -> None:
    """Write atomically, or exit 2 saying why not."""
    from fdc.core.files import write_atomic

    try:
        write_atomic(path, data)
    except OSError as e:
        stderr().print(f"{path}: error: cannot write the file: {e.strerror or e}",
                        markup=False)
        raise typer.Exit(EXIT_USAGE) from None


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

    from fdc.sim_bridge.findings import json_path
    from fdc.sim_bridge.world.experience import Experience

    err = stderr()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        err.print(f"{path}: error: cannot read the log: {reason}")
        raise typer.Exit(EXIT_USAGE) from None
    try:
        raw = json.loads(text)
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
            where = json_path(x for x in p["loc"] if not str(x).startswith("function-"))
            msg = str(p["msg"]).removeprefix("Value error, ")
            err.print(f"{path}: {where + ': ' if where else ''}error: {msg}", markup=False)
        if len(problems) > _MAX_PROBLEMS:
            err.print(f"{path}: ... and {len(problems) - _MAX_PROBLEMS} more problems")
        raise typer.Exit(EXIT_USAGE) from None


# ----------------------------------------------------------------------- the picture


def _clock(minutes: float) -> str:
    m = round(minutes)
    return f"{m // 60:02d}:{m % 60:02d}"


def render_experience(g: SceneGraph, log: Experience, *, fmt: str = "png", dpi: int = 120
                      ) -> bytes:
    """The walk on the scene map (coloured by the clock), each interaction's pick (circle)
    and place (square) numbered, and below it the interaction timeline. Deterministic:
    no dates in the metadata, a fixed SVG hash salt."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.collections import LineCollection

    from fdc.sim_bridge.pictures import ROOM_COLOURS, _outline, figure_bytes
    from fdc.sim_bridge.scene.schema import Kind

    rooms = g.rooms()
    xs: list[float] = []
    ys: list[float] = []
    for r in rooms:
        b = r.polygon.bounds
        xs += [b[0], b[2]]
        ys += [b[1], b[3]]
    walk = np.array([(f.agent.x, f.agent.y) for f in log.frames]).reshape(-1, 2)
    xs += walk[:, 0].tolist()
    ys += walk[:, 1].tolist()
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x0, x1, y0, y1 = min(xs) - 0.5, max(xs) + 0.5, min(ys) - 0.5, max(ys) + 0.5
    width_in = 10.0
    map_h = max(3.0, min(14.0, width_in * (y1 - y0) / max(x1 - x0, 1e-6)))
    its = log.interactions
    clocks = np.array([f.clock_min for f in log.frames])
    lo = min(360.0, float(clocks.min())) if len(clocks) else 360.0
    hi = max(1320.0, float(clocks.max())) if len(clocks) else 1320.0
    line_h = 1.0 + 0.28 * max(len(its), 1)
    with plt.rc_context({"svg.hashsalt": "fdc-experience", "svg.fonttype": "path"}):
        fig, (ax, tl) = plt.subplots(
            2, 1, figsize=(width_in, map_h + line_h),
            gridspec_kw={"height_ratios": [map_h, line_h]})
        ax.set_aspect("equal")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        cats = sorted({r.category for r in rooms})
        for r in rooms:
            colour = ROOM_COLOURS[cats.index(r.category) % len(ROOM_COLOURS)]
            _outline(ax, r.polygon, facecolor=colour, edgecolor="none", zorder=0)
            c = r.polygon.representative_point()
            ax.text(c.x, c.y, r.name, ha="center", va="center", fontsize=8, color="#4a4a4a",
                    alpha=0.7, zorder=4)
        _outline(ax, g.layout.walls, facecolor="#444444", edgecolor="none", zorder=2)
        for o in g.objects():
            if o.is_movable or (o.kind is Kind.STAGE and o.spec.obstacle is False):
                continue
            _outline(ax, o.footprint, facecolor="#d9c3a0", edgecolor="#8a6d45", linewidth=0.5,
                     zorder=3)
        sx, sy = g.scene.agent.position[0], g.scene.agent.position[1]
        if len(walk) > 1:
            segs = np.stack([walk[:-1], walk[1:]], axis=1)
            lc = LineCollection(list(segs), cmap="viridis", linewidths=1.4, zorder=5)
            lc.set_array((clocks[:-1] + clocks[1:]) / 2)
            lc.set_clim(lo, hi)
            ax.add_collection(lc)
        if len(walk):
            sx, sy = float(walk[0, 0]), float(walk[0, 1])
        ax.plot([sx], [sy], marker="*", ms=13, color="#e53e3e", markeredgecolor="black",
                zorder=8, ls="")
        palette = plt.get_cmap("tab10")
        where: dict[str, tuple[float, float]] = {}
        for k, it in enumerate(its, 1):
            colour = palette((k - 1) % 10)
            if it.object in where:
                p0 = where[it.object]
            else:
                pos = g.object(it.object).position
                p0 = (pos[0], pos[1])
            ax.plot([p0[0]], [p0[1]], marker="o", ms=11, color=colour, markeredgecolor="black",
                    zorder=7, ls="")
            ax.text(p0[0], p0[1], str(k), ha="center", va="center", fontsize=7, color="white",
                    fontweight="bold", zorder=9)
            if it.placed_position is not None:
                p1 = (it.placed_position[0], it.placed_position[1])
                where[it.object] = p1
                ax.annotate("", xy=p1, xytext=p0, zorder=6,
                            arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.0,
                                        "linestyle": "--"})
                ax.plot([p1[0]], [p1[1]], marker="s", ms=11, color=colour,
                        markeredgecolor="black", zorder=7, ls="")
                ax.text(p1[0], p1[1], str(k), ha="center", va="center", fontsize=7,
                        color="white", fontweight="bold", zorder=9)
        ax.set_title(f"{g.scene.name}: {len(its)} interactions, {len(log.frames)} frames "
                     "(walk coloured by the clock; ● pick, ■ place)", fontsize=9)
        ax.set_xlabel("x (m)", fontsize=8)
        ax.set_ylabel("y (m)", fontsize=8)
        ax.tick_params(labelsize=7)
        # The timeline: one bar per interaction, over a strip of the walk's colours.
        strip = np.linspace(lo, hi, 256)[None, :]
        n = max(len(its), 1)
        tl.imshow(strip, extent=(lo, hi, n - 0.35, n + 0.05), aspect="auto",
                  cmap="viridis", vmin=lo, vmax=hi, zorder=0)
        labels = []
        names = [g.object(it.object).name for it in its]
        for k, it in enumerate(its, 1):
            end_min = it.end_min if it.end_min is not None else log.frames[-1].clock_min
            tl.barh(k - 1, max(end_min - it.start_min, 1.0), left=it.start_min, height=0.6,
                    color=palette((k - 1) % 10), edgecolor="black", linewidth=0.5, zorder=2)
            # An item is named by its id where two items moved share a name.
            name = names[k - 1] if names.count(names[k - 1]) == 1 else it.object
            labels.append(f"{k}. {name} ({_clock(it.start_min)}-{_clock(end_min)})")
        tl.set_yticks(range(len(its)), labels, fontsize=7)
        tl.set_ylim(n + 0.05, -0.6)
        tl.set_xlim(lo, hi)
        ticks = list(range(math.ceil(lo / 120) * 120, int(hi) + 1, 120))
        tl.set_xticks(ticks, [_clock(t) for t in ticks], fontsize=7)
        tl.set_xlabel("clock", fontsize=8)
        tl.grid(axis="x", color="#cccccc", linewidth=0.5, zorder=1)
        data = figure_bytes(fig, fmt, dpi)
    return data
