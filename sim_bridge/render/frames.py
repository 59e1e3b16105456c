"""`render_experience`: every K-th frame of a robot's day, as it was at that time, written
as an `fdc-frames` directory (index.json, rgb/, depth/, ids/, optional video.mp4).

The world at frame k is `snapshot_at(initial, log, k)`: items where the log's places up
to k left them, the held item in the hand, the robot at the frame's pose. The directory
is written in a temporary folder beside the target and renamed into place at the end,
so an interrupted run (Ctrl-C) leaves nothing half-written.
See docs/rendering.md.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.core.errors import OutputError
from fdc.core.hashing import scene_sha256, sha256_text
from fdc.sim_bridge.render.camera import Camera
from fdc.sim_bridge.render.context import renderer_name
from fdc.sim_bridge.render.index import CameraInfo, FrameEntry, FramePose, FramesIndex
from fdc.sim_bridge.render.renderer import RenderedFrame, Renderer
from fdc.sim_bridge.world.experience import Experience, snapshot_at

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: Frames a second of the video (each frame of it is one rendered frame).
VIDEO_FPS = 10
#: The deepest depth a 16-bit millimetre PNG holds (65.535 m).
MAX_DEPTH_MM = 65535


def clock_text(clock_min: float) -> str:
    """Minutes since midnight as HH:MM:SS (seconds rounded)."""
    total = round(clock_min * 60)
    return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def encode_png(pixels: np.ndarray) -> bytes:
    """A PNG of an (H, W, 3) uint8 or (H, W) uint16 array (the same bytes every time)."""
    from PIL import Image

    buf = io.BytesIO()
    img = Image.fromarray(pixels) if pixels.dtype == np.uint8 else \
        Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint16))
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def depth_png(frame: RenderedFrame) -> np.ndarray:
    """Linear depth as uint16 millimetres (0: nothing; farther than 65.535 m: 65535)."""
    mm = np.rint(frame.depth.astype(np.float64) * 1000.0)
    return np.clip(mm, 0, MAX_DEPTH_MM).astype(np.uint16)


def ids_png(frame: RenderedFrame) -> np.ndarray:
    """Ids as uint16: 0 nothing, k + 1 the k-th object."""
    return (frame.ids + 1).astype(np.uint16)


def read_depth_png(path: Path) -> np.ndarray:
    """A depth PNG back as float32 metres (0: nothing)."""
    import imageio.v3 as iio

    return (np.asarray(iio.imread(path)).astype(np.float32) / 1000.0).astype(np.float32)


def read_ids_png(path: Path) -> np.ndarray:
    """An ids PNG back as int32 indexes into the index's `objects` (-1: nothing)."""
    import imageio.v3 as iio

    return np.asarray(iio.imread(path)).astype(np.int32) - 1


def stamp(rgb: np.ndarray, frame: int, clock_min: float) -> np.ndarray:
    """The frame with its index and clock time drawn in its top-left corner."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.fromarray(rgb)
    draw = ImageDraw.Draw(img)
    size = max(10, rgb.shape[0] // 24)
    try:
        font: Any = ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow without FreeType
        font = ImageFont.load_default()
    text = f"frame {frame}  {clock_text(clock_min)}"
    box = draw.textbbox((0, 0), text, font=font)
    pad = size // 3
    draw.rectangle((0, 0, box[2] + 2 * pad, box[3] + 2 * pad), fill=(0, 0, 0))
    draw.text((pad, pad), text, fill=(255, 255, 255), font=font)
    return np.asarray(img)


def render_experience(scene: Path, experience: Path, out_dir: Path, *, every: int = 1,
                      camera: Camera | None = None, video: bool = False,
                      progress: Callable[[int, int], None] | None = None,
                      graph: SceneGraph | None = None, log: Experience | None = None,
                      part: tuple[int, int] | None = None) -> Path:
    """Render every `every`-th frame of the log at `experience` (and its last frame) in
    the scene at `scene` into the directory `out_dir`, replacing an earlier frames
    directory there; the path of its index.json. `progress(done, total)` is called after
    each frame. `graph` and `log`, when given, are the already loaded scene and log.
    `part` = (lo, hi): only the frames `wanted[lo:hi]` of those `every` picks (a piece of
    the day, for `fdc render suite` to render pieces side by side and join them)."""
    from fdc.core.inputs import InputKind, read_input_bytes
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph
    from fdc.sim_bridge.world.embedded import EmbeddedWorld

    if every < 1:
        raise ValueError("every must be at least 1")
    g = graph if graph is not None else load_scene_graph(scene)
    log_bytes = read_input_bytes(experience, InputKind.EXPERIENCE)
    xp = log if log is not None else Experience.model_validate_json(log_bytes)
    cam = camera or Camera()
    wanted = list(range(0, len(xp.frames), every))
    if xp.frames and wanted[-1] != len(xp.frames) - 1:
        wanted.append(len(xp.frames) - 1)
    if part is not None:
        wanted = wanted[part[0]:part[1]]
    _check_target(out_dir)
    out_dir = out_dir.absolute()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name[:60]}.", suffix=".tmp",
                                dir=out_dir.parent))
    try:
        for sub in ("rgb", "depth", "ids"):
            (tmp / sub).mkdir()
        initial = EmbeddedWorld(g).snapshot()
        entries: list[FrameEntry] = []
        writer = _video_writer(tmp / "video.mp4", cam) if video else None
        try:
            with Renderer(g.scene, cam, base_dir=scene.parent) as r:
                for done, k in enumerate(wanted, 1):
                    state = snapshot_at(initial, xp, k)
                    f = r.render(state)
                    name = f"{k:06d}.png"
                    (tmp / "rgb" / name).write_bytes(encode_png(f.rgb))
                    (tmp / "depth" / name).write_bytes(encode_png(depth_png(f)))
                    (tmp / "ids" / name).write_bytes(encode_png(ids_png(f)))
                    fr = xp.frames[k]
                    entries.append(FrameEntry(
                        frame=k, clock_min=fr.clock_min, time=clock_text(fr.clock_min),
                        pose=FramePose(x=fr.agent.x, y=fr.agent.y, yaw=fr.agent.yaw_rad),
                        held=fr.held, rgb=f"rgb/{name}", depth=f"depth/{name}",
                        ids=f"ids/{name}", visible=f.visible))
                    if writer is not None:
                        writer.send(stamp(f.rgb, k, fr.clock_min))
                    if progress is not None:
                        progress(done, len(wanted))
        finally:
            if writer is not None:
                writer.close()
        index = FramesIndex(
            scene=_relative(scene, out_dir), scene_sha256=scene_sha256(g.scene),
            experience=_relative(experience, out_dir), experience_sha256=sha256_text(log_bytes),
            renderer=renderer_name(),
            camera=CameraInfo(width=cam.width, height=cam.height, hfov_deg=cam.hfov_deg,
                              height_m=cam.height_m, tilt_deg=cam.tilt_deg),
            every=every, objects=list(r.object_ids), frames=entries,
            video="video.mp4" if video else None)
        (tmp / "index.json").write_text(index.to_json(), encoding="utf-8")
        _put_in_place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out_dir / "index.json"


def _video_writer(path: Path, cam: Camera) -> Any:
    """A generator that takes RGB frames and writes an H.264 mp4 (one encoder thread,
    so the bytes do not depend on scheduling)."""
    import imageio_ffmpeg

    gen = imageio_ffmpeg.write_frames(
        str(path), (cam.width, cam.height), fps=VIDEO_FPS, codec="libx264", quality=7,
        macro_block_size=1, pix_fmt_out="yuv420p",
        output_params=["-threads", "1", "-fflags", "+bitexact", "-map_metadata", "-1"],
        ffmpeg_log_level="error")
    gen.send(None)
    return gen


def _check_target(out_dir: Path) -> None:
    """The target is new, an empty folder, or an earlier frames directory."""
    if not out_dir.exists() and not out_dir.is_symlink():
        if not out_dir.parent.is_dir():
            raise OutputError(f"{out_dir}: cannot write: the folder {out_dir.parent} does "
                              "not exist")
        return
    if not out_dir.is_dir() or out_dir.is_symlink():
        raise OutputError(f"{out_dir}: cannot write: it exists and is not a folder")
    if any(out_dir.iterdir()) and not _is_frames_dir(out_dir):
        raise OutputError(f"{out_dir}: cannot write: the folder is not empty and holds no "
                          "fdc-frames index.json (choose a new folder)")


def _is_frames_dir(path: Path) -> bool:
    try:
        head = (path / "index.json").read_text(encoding="utf-8")[:400]
    except OSError:
        return False
    return '"kind": "fdc-frames"' in head


def _put_in_place(tmp: Path, out_dir: Path) -> None:
    """Rename the finished directory over the target (an earlier one moved aside first
    and removed after)."""
    old: Path | None = None
    if out_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name[:60]}.", suffix=".old",
                                    dir=out_dir.parent))
        old.rmdir()
        os.replace(out_dir, old)
    try:
        os.replace(tmp, out_dir)
    except OSError as e:
        if old is not None:
            os.replace(old, out_dir)
        raise OutputError(f"{out_dir}: cannot write: {e}") from None
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)


def _relative(path: Path, folder: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()
    except ValueError:  # another drive
        return str(path.resolve())
