"""`fdc render ...`: what the robot's head camera sees, rendered on the CPU (Mesa's
llvmpipe over headless EGL): one view at a surface, or every K-th frame of a robot's day
as an `fdc-frames` directory (docs/rendering.md, docs/formats/frames.md).

moderngl is imported inside the commands, so `fdc` starts as fast without it.

Exit codes: 0 ok, 2 usage or input error (a scene or log that cannot be read, an unknown
surface, a machine without EGL: the message names what to install), 130 interrupted
(nothing written).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    file_option,
    folder_option,
    graph_or_exit,
    input_or_exit,
    progress_bar,
    stderr,
)

if TYPE_CHECKING:
    from fdc.sim_bridge.render.camera import Camera

render_app = typer.Typer(help="Render what the robot's camera sees (CPU, no GPU needed).",
                         no_args_is_help=True)

Size = Annotated[str, typer.Option("--size", metavar="WxH",
                                   help="Image size in pixels.")]
Hfov = Annotated[float | None, typer.Option(
    "--hfov", min=1, max=179, help="Horizontal field of view, degrees (default 69: "
    "Stretch's head camera).")]
Height = Annotated[float | None, typer.Option(
    "--camera-height", min=0.05, max=5, help="Camera height above the floor, metres "
    "(default 1.25).")]
Tilt = Annotated[float | None, typer.Option(
    "--tilt", min=-89, max=89, help="Camera pitch, degrees, negative down (default: -20; "
    "`render view` aims at the surface).")]


def _camera(size: str, hfov: float | None, height: float | None, tilt: float | None
            ) -> Camera:
    from fdc.sim_bridge.render.camera import Camera, parse_size

    try:
        w, h = parse_size(size)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--size") from None
    values: dict[str, float | int] = {"width": w, "height": h}
    for key, v in (("hfov_deg", hfov), ("height_m", height), ("tilt_deg", tilt)):
        if v is not None:
            values[key] = v
    return Camera.model_validate(values)


@render_app.command()
def view(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    at: Annotated[str, typer.Option("--at", metavar="SURFACE",
                                    help="The surface (or object) to look at.")],
    side: Annotated[str | None, typer.Option(
        "--side", help="Stand at this side of the surface: front, rear, left or right.")
    ] = None,
    output: Annotated[Path | None, file_option(
        "-o", "--output", help="The PNG to write (default: SURFACE.png).")] = None,
    size: Size = "640x480",
    hfov: Hfov = None,
    height: Height = None,
    tilt: Tilt = None,
) -> None:
    """Render the view from the robot standing at a surface, facing it."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.render.frames import encode_png
    from fdc.sim_bridge.render.renderer import Renderer
    from fdc.sim_bridge.render.views import view_at

    err = stderr()
    if side is not None and side not in ("front", "rear", "left", "right"):
        raise typer.BadParameter(f"`{side}` is not a side: front, rear, left or right",
                                 param_hint="--side")
    cam = _camera(size, hfov, height, tilt)
    input_or_exit(scene, "the scene file", err)
    g = graph_or_exit(scene)
    pose, cam = view_at(g, at, side, cam, tilt=tilt is None)
    out = output or Path(re.sub(r"[^A-Za-z0-9_.-]+", "_", at).lstrip(".") + ".png")
    with Renderer(g.scene, cam, base_dir=scene.parent) as r:
        frame = r.render(None, pose)
    write_atomic(out, encode_png(frame.rgb))
    seen = ", ".join(f"{k} ({v} px)" for k, v in
                     sorted(frame.visible.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
    err.print(f"wrote {out}: at ({pose.x:.2f}, {pose.y:.2f}), facing "
              f"{pose.yaw_rad:.2f} rad, tilt {cam.tilt_deg:.1f} deg; in view: {seen or 'nothing'}",
              markup=False)
    raise typer.Exit(EXIT_OK)


@render_app.command()
def experience(
    log: Annotated[Path, typer.Argument(help="An experience log (JSON).")],
    output: Annotated[Path, folder_option(
        "-o", "--output", help="The frames directory to write (replaced if it holds "
        "frames already).")],
    scene: Annotated[Path | None, typer.Option(
        "--scene", help="The scene file (default: the one the log names, relative to the "
        "log, else to the working folder).")] = None,
    every: Annotated[int, typer.Option("--every", min=1, max=100_000,
                                       help="Render every K-th frame (and the last).")] = 1,
    video: Annotated[bool, typer.Option(
        "--video", help="Also write video.mp4, frame index and clock time drawn on it.")
    ] = False,
    size: Size = "640x480",
    hfov: Hfov = None,
    height: Height = None,
    tilt: Tilt = None,
) -> None:
    """Render a robot's day from its head camera: RGB, depth and object ids of every K-th
    frame, as the world was then, and an index (docs/formats/frames.md)."""
    from fdc.cli.experience import _read_log, _scene_of
    from fdc.core.hashing import scene_sha256
    from fdc.sim_bridge.render.frames import render_experience

    err = stderr()
    cam = _camera(size, hfov, height, tilt)
    xp = _read_log(log)
    scene_path = scene or _scene_of(log, xp.scene)
    input_or_exit(scene_path, "the scene file", err)
    g = graph_or_exit(scene_path)
    if xp.scene_sha256 is not None and xp.scene_sha256 != scene_sha256(g.scene):
        err.print(f"{log}: scene_sha256: error: the log was recorded in another scene than "
                  f"{scene_path}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    unknown = sorted({i.object for i in xp.interactions if not g.has(i.object)})
    if unknown:
        err.print(f"{log}: interactions: error: no object {', '.join(unknown)} in "
                  f"{scene_path}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    with progress_bar(err) as progress:
        bar = progress.add_task("rendering", total=None)

        def done(k: int, total: int) -> None:
            progress.update(bar, completed=k, total=total)

        try:
            index = render_experience(scene_path, log, output, every=every, camera=cam,
                                      video=video, progress=done, graph=g, log=xp)
        except KeyboardInterrupt:
            err.print("fdc: interrupted; nothing was written")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    n = len(range(0, len(xp.frames), every)) + \
        (1 if xp.frames and (len(xp.frames) - 1) % every else 0)
    err.print(f"wrote {output}: {n} frames of {len(xp.frames)}, {index.name}"
              + (", video.mp4" if video else ""), markup=False)
    raise typer.Exit(EXIT_OK)


@render_app.command()
def suite(
    suite_file: Annotated[Path, typer.Argument(metavar="SUITE", help="The task suite "
                                               "(suite.jsonl).")],
    output: Annotated[Path, folder_option(
        "-o", "--output", help="The folder to render into (kept between runs: what is "
        "there already is not rendered again).")],
    every: Annotated[int, typer.Option("--every", min=1, max=100_000,
                                       help="Render every K-th frame (and the last).")] = 1,
    video: Annotated[bool, typer.Option(
        "--video", help="Also write each experience's video.mp4, frame index and clock "
        "time drawn on it.")] = False,
    size: Size = "640x480",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Worker processes of "
                                      "--executor local.")] = 1,
    executor: Annotated[str, typer.Option(
        "--executor", help="Where to render: local (this machine, --jobs processes) or "
        "dask (a dask.distributed cluster, --scheduler).")] = "local",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="The dask scheduler's address (tcp://HOST:PORT).")] = None,
    scene: Annotated[list[Path] | None, typer.Option(
        "--scene", help="A scene file (repeatable; default: the ones the suite names).")] = None,
    history: Annotated[list[Path] | None, typer.Option(
        "--history", help="An experience log memory tasks are about (repeatable; default: "
        "found through the manifest beside the suite).")] = None,
) -> None:
    """Render what a suite needs: the frames of each experience its memory tasks are
    about (once each) and each manipulation task's first view, cached in OUTPUT, with
    OUTPUT/suite-frames.json mapping task ids to them (docs/formats/frames.md)."""
    from fdc.cli.common import open_suite_or_exit
    from fdc.cli.compile import Executor, _executor
    from fdc.compiler.reopen import ReopenError
    from fdc.compiler.suite_frames import plan, render_plan
    from fdc.core.errors import FdcError
    from fdc.core.inputs import InputKind, read_input_bytes

    err = stderr()
    if executor not in ("local", "dask"):
        raise typer.BadParameter(f"`{executor}` is not local or dask",
                                 param_hint="--executor")
    runner = _executor(Executor(executor), scheduler, jobs)
    cam = _camera(size, None, None, None)
    input_or_exit(suite_file, "the suite", err)
    opened = open_suite_or_exit(suite_file, err, scenes=scene or [],
                                experiences=history or [])
    try:
        p = plan(opened, output, every, cam, read_input_bytes(suite_file, InputKind.SUITE),
                 video)
    except ReopenError as e:
        err.print(f"error: {e}; hint: give it with --scene or --history", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except FdcError as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    with progress_bar(err) as progress:
        bar = progress.add_task("rendering", total=p.total)
        try:
            render_plan(p, output, runner,  # type: ignore[arg-type]
                        progress=lambda n: progress.update(bar, advance=n))
        except KeyboardInterrupt:
            err.print("fdc: interrupted; what finished is kept, nothing is half-written")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except FdcError as e:
            err.print(f"error: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    assert p.index is not None
    err.print(f"wrote {output}: {len(p.joins)} experience(s) ({sum(j.frames for j in p.frames)}"
              f" frames) and {len(p.views)} view(s) rendered, {p.cached_frames} experience(s) "
              f"and {p.cached_views} view(s) already there; {len(p.index.tasks)} task(s) in "
              f"{output / 'suite-frames.json'}", markup=False)
    raise typer.Exit(EXIT_OK)
