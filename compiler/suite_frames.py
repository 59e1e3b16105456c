"""What a suite needs rendered (`fdc render suite`): the frames of each distinct (scene,
experience) its memory tasks are about, once, and the start view of each manipulation
task, through the executors (`executors.LocalExecutor`, `executors.DaskExecutor`), cached.

The output folder holds:

- `<key>/`: an fdc-frames directory (`fdc.sim_bridge.render.render_experience`), where
  `key` hashes the scene's bytes, the experience's bytes, the camera, `every` and the
  version of fdc's render code (`render_version`). A directory is written whole or not
  at all, so a key whose `index.json` is there is done and a rerun skips it.
- `views/<key>.png`: a manipulation task's first view (the robot at the task's start, in
  the world it starts in), `key` hashing the scene, the experience (memory-manipulation
  tasks), the pose, the camera and the render version; written atomically.
- `logs/<sha256>.json`: each experience's bytes, so a simulated experience has a file
  and every frames directory names its log inside the folder.
- `suite-frames.json`: task id -> its frames directory and view (docs/formats/frames.md).

The same inputs give the same bytes for any executor and number of workers: each key's
output is a function of its inputs alone. Dask workers write into the folder, so it must
be on a file system they share, at the same path.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from fdc.core.errors import InputError
from fdc.core.files import write_atomic
from fdc.core.hashing import sha256_text
from fdc.core.inputs import InputFileError, InputKind, read_input_bytes
from fdc.core.version import __version__
from fdc.sim_bridge.world.state import AgentPose

from .suite import TaskRecord, is_memory_manipulation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fdc.sim_bridge.render.camera import Camera

    from .reopen import ReopenedSuite

R = TypeVar("R")

#: The index of a rendered suite, in its folder.
INDEX_NAME = "suite-frames.json"
SUITE_FRAMES_FORMAT_VERSION = "1.0"
#: Frames a piece of an experience holds: the pieces of one day render side by side.
PIECE_FRAMES = 200
#: The folder of pieces not yet joined, in the output folder.
PIECES = ".pieces"
#: The modules whose code decides a frame's pixels (hashed into every key).
RENDER_MODULES = ("build", "camera", "context", "frames", "index", "renderer", "views")


class Mapper(Protocol):
    """`executors.LocalExecutor` or `executors.DaskExecutor`."""

    def map(self, fn: Callable[..., R], calls: Sequence[tuple[Any, ...]],
            names: Sequence[str] | None = None, what: str = "task"
            ) -> Iterator[tuple[int, R]]: ...


def render_version() -> str:
    """A digest of fdc's version and the source of the code that draws frames (the
    renderer and `snapshot_at`): a change to either renders everything again."""
    parts = [__version__]
    for name in [*(f"fdc.sim_bridge.render.{m}" for m in RENDER_MODULES),
                 "fdc.sim_bridge.world.experience"]:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        parts.append(sha256_text(Path(origin).read_bytes()) if origin else name)
    return str(sha256_text("\n".join(parts)))


def _digest(parts: object) -> str:
    return str(sha256_text(json.dumps(parts, sort_keys=True)))


# ----------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class FramesJob:
    """One piece of an experience to render (`part`: the slice of the frames `every`
    picks): its key, scene, log and where the piece's frames go."""

    key: str
    scene: str
    log: str
    out: str
    every: int
    camera: dict[str, Any]
    part: tuple[int, int]

    @property
    def frames(self) -> int:
        """How many frames it renders (for progress)."""
        return self.part[1] - self.part[0]


@dataclass(frozen=True)
class Joined:
    """An experience rendered in pieces, to be joined into its frames directory."""

    key: str
    scene: str
    log: str
    out: str
    pieces: tuple[str, ...]  # the pieces' directories, in frame order
    video: bool


@dataclass(frozen=True)
class ViewJob:
    """One manipulation task's first view."""

    key: str
    scene: str
    log: str | None
    pose: tuple[float, float, float, float]  # x, y, z, yaw
    camera: dict[str, Any]
    out: str


def render_frames_job(job: FramesJob) -> str:
    """Render one experience into its frames directory (run in a worker); its key."""
    from fdc.sim_bridge.render.camera import Camera
    from fdc.sim_bridge.render.frames import render_experience

    render_experience(Path(job.scene), Path(job.log), Path(job.out), every=job.every,
                      camera=Camera.model_validate(job.camera), part=job.part)
    return job.key


def join_pieces(j: Joined) -> None:
    """Join an experience's rendered pieces into its frames directory, written whole or
    not at all (the video, when asked, encoded here from the frames in order), and remove
    the pieces: the bytes of `render_experience` on the whole day."""
    from fdc.sim_bridge.render.camera import Camera
    from fdc.sim_bridge.render.frames import _put_in_place, _relative, _video_writer, stamp
    from fdc.sim_bridge.render.index import FramesIndex

    out = Path(j.out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        indexes = [FramesIndex.model_validate_json((Path(d) / "index.json").read_bytes())
                   for d in j.pieces]
        for sub in ("rgb", "depth", "ids"):
            (tmp / sub).mkdir()
        for d, index in zip(j.pieces, indexes, strict=True):
            for f in index.frames:
                for rel in (f.rgb, f.depth, f.ids):
                    os.replace(Path(d) / rel, tmp / rel)
        frames = [f for index in indexes for f in index.frames]
        first = indexes[0]
        if j.video:
            import imageio.v3 as iio

            cam = first.camera
            writer = _video_writer(tmp / "video.mp4", Camera(
                width=cam.width, height=cam.height, hfov_deg=cam.hfov_deg,
                height_m=cam.height_m, tilt_deg=cam.tilt_deg))
            try:
                for f in frames:
                    writer.send(stamp(iio.imread(tmp / f.rgb), f.frame, f.clock_min))
            finally:
                writer.close()
        joined = first.model_copy(update={
            "frames": frames, "scene": _relative(Path(j.scene), out),
            "experience": _relative(Path(j.log), out),
            "video": "video.mp4" if j.video else None})
        (tmp / "index.json").write_text(joined.to_json(), encoding="utf-8")
        _put_in_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(Path(j.pieces[0]).parent, ignore_errors=True)


def render_view_job(job: ViewJob) -> str:
    """Render one first view as a PNG (run in a worker); its key."""
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph
    from fdc.sim_bridge.render.camera import Camera
    from fdc.sim_bridge.render.frames import encode_png
    from fdc.sim_bridge.render.renderer import Renderer
    from fdc.sim_bridge.world.experience import Experience

    from .start import start_snapshots

    graph = load_scene_graph(Path(job.scene))
    log = Experience.model_validate_json(read_input_bytes(job.log, InputKind.EXPERIENCE)) \
        if job.log is not None else None
    initial, after = start_snapshots(graph, log)
    state = after if after is not None else initial
    x, y, z, yaw = job.pose
    with Renderer(graph.scene, Camera.model_validate(job.camera),
                  base_dir=Path(job.scene).parent) as r:
        frame = r.render(state, AgentPose(x=x, y=y, z=z, yaw_rad=yaw))
    write_atomic(Path(job.out), encode_png(frame.rgb))
    return job.key


def frame_count(frames: int, every: int) -> int:
    """How many frames `render_experience` renders of a log of `frames` frames."""
    if frames == 0:
        return 0
    return len(range(0, frames, every)) + (1 if (frames - 1) % every else 0)


# ----------------------------------------------------------------------------- the index


class TaskFrames(BaseModel):
    """What was rendered for one task (paths relative to the folder)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    frames: str | None = Field(default=None, description="Its experience's frames "
                               "directory (memory tasks).")
    view: str | None = Field(default=None, description="Its first view, a PNG "
                             "(manipulation tasks).")


class SuiteFrames(BaseModel):
    """`suite-frames.json`: what `fdc render suite` rendered for each task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["fdc-suite-frames"] = "fdc-suite-frames"
    format_version: Literal["1.0"] = "1.0"
    suite: str = Field(description="The suite file's name.")
    suite_sha256: str = Field(description="sha256 of the suite file's bytes.")
    every: int = Field(ge=1)
    camera: dict[str, Any]
    video: bool = Field(default=False, description="Each frames directory has its "
                        "video.mp4.")
    render_version: str = Field(description="Digest of fdc's version and render code.")
    tasks: dict[str, TaskFrames] = Field(default_factory=dict,
                                         description="Task id -> its frames and view, "
                                         "in suite order.")

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"


def read_suite_frames(folder: Path) -> SuiteFrames:
    """The index of a folder `fdc render suite` wrote (`InputError` saying what is
    wrong)."""
    path = folder / INDEX_NAME
    try:
        return SuiteFrames.model_validate_json(read_input_bytes(path, InputKind.MANIFEST))
    except InputFileError as e:
        raise InputError(f"{path}: cannot read the suite frames index: {e}; hint: "
                         "`fdc render suite SUITE -o DIR` writes it") from None
    except ValueError as e:
        raise InputError(f"{path}: not an fdc-suite-frames index: {e}") from None


# ----------------------------------------------------------------------------- planning


@dataclass
class Plan:
    """What a suite needs, what is done already, and the index to write."""

    frames: list[FramesJob] = field(default_factory=list)  # pieces to render
    joins: list[Joined] = field(default_factory=list)  # experiences to join
    views: list[ViewJob] = field(default_factory=list)  # to render
    cached_frames: int = 0
    cached_views: int = 0
    index: SuiteFrames | None = None

    @property
    def total(self) -> int:
        """Units of progress: a frame each, a view each."""
        return sum(j.frames for j in self.frames) + len(self.views)


def _log_bytes(opened: ReopenedSuite, task: TaskRecord) -> bytes:
    """The bytes of the experience log whose sha256 the task names (a given log, the
    manifest's, or the simulated one as `Experience.to_json` writes it)."""
    sha = task.experience
    assert sha is not None
    candidates = list(opened.experiences)
    manifest = opened.read_manifest()
    if manifest is not None:
        from .reopen import _locate

        for s in manifest.scenes:
            if s.experience is not None and s.experience.path is not None \
                    and s.experience.sha256 == sha:
                candidates.append(_locate(opened.path, s.experience.path))
    for path in candidates:
        try:
            data = read_input_bytes(path, InputKind.EXPERIENCE)
        except InputFileError:
            continue
        if sha256_text(data) == sha:
            return bytes(data)
    text = str(opened.experience(task).to_json()).encode("utf-8")
    if sha256_text(text) != sha:
        raise InputError(f"cannot find the bytes of the experience log of task `{task.id}` "
                         f"(sha256 {sha[:12]}...); hint: give it with --history")
    return text


def plan(opened: ReopenedSuite, folder: Path, every: int, camera: Camera,
         suite_bytes: bytes, video: bool = False) -> Plan:
    """The jobs a suite needs in `folder` (those already done left out) and its index
    (`video`: each frames directory with its video.mp4). Experience logs are copied into
    `folder/logs/` here."""
    folder = folder.absolute()
    version = render_version()
    cam = camera.model_dump(mode="json")
    out = Plan()
    scene_shas: dict[Path, str] = {}
    logs: dict[str, tuple[Path, int]] = {}  # experience sha -> its copy, its frames
    planned: set[str] = set()
    tasks: dict[str, TaskFrames] = {}
    for task in opened.records:
        scene = opened.scene_file(task).absolute()
        if scene not in scene_shas:
            scene_shas[scene] = sha256_text(read_input_bytes(scene, InputKind.SCENE))
        scene_sha = scene_shas[scene]
        log_path: Path | None = None
        if task.experience is not None:
            found = logs.get(task.experience)
            if found is None:
                opened.check_scene(task)
                log = opened.experience(task)
                data = _log_bytes(opened, task)
                path = folder / "logs" / f"{task.experience}.json"
                if not path.is_file() or read_input_bytes(path, InputKind.EXPERIENCE) != data:
                    write_atomic(path, data)
                found = logs[task.experience] = (path, len(log.frames))
            log_path = found[0]
        frames_rel: str | None = None
        view_rel: str | None = None
        if task.experience is not None and log_path is not None:
            key = _digest({"scene_sha256": scene_sha, "experience_sha256": task.experience,
                           "camera": cam, "every": every, "render": version,
                           **({"video": True} if video else {})})[:32]
            frames_rel = key
            if key not in planned:
                planned.add(key)
                if (folder / key / "index.json").is_file():
                    out.cached_frames += 1
                else:
                    n = frame_count(logs[task.experience][1], every)
                    pieces = []
                    for lo in range(0, n, PIECE_FRAMES):
                        hi = min(n, lo + PIECE_FRAMES)
                        piece = folder / PIECES / key / f"{lo:06d}-{hi:06d}"
                        pieces.append(str(piece))
                        if not (piece / "index.json").is_file():
                            out.frames.append(FramesJob(
                                key, str(scene), str(log_path), str(piece), every, cam,
                                (lo, hi)))
                    out.joins.append(Joined(key, str(scene), str(log_path),
                                            str(folder / key), tuple(pieces), video))
        if task.experience is None or is_memory_manipulation(task):
            pose = task.start
            if pose is None:
                a = opened.graph(task).scene.agent
                pose_t = (float(a.position[0]), float(a.position[1]), float(a.position[2]),
                          float(a.yaw_rad))
            else:
                pose_t = (pose.x, pose.y, pose.z, pose.yaw_rad)
            xp = task.experience if is_memory_manipulation(task) else None
            key = _digest({"scene_sha256": scene_sha, "experience_sha256": xp,
                           "pose": list(pose_t), "camera": cam, "render": version})[:32]
            view_rel = f"views/{key}.png"
            if view_rel not in planned:
                planned.add(view_rel)
                if (folder / view_rel).is_file():
                    out.cached_views += 1
                else:
                    out.views.append(ViewJob(key, str(scene),
                                             str(log_path) if xp is not None else None,
                                             pose_t, cam, str(folder / view_rel)))
        tasks[task.id] = TaskFrames(frames=frames_rel, view=view_rel)
    out.index = SuiteFrames(suite=opened.path.name, suite_sha256=sha256_text(suite_bytes),
                            every=every, camera=cam, video=video, render_version=version,
                            tasks=tasks)
    return out


def render_plan(p: Plan, folder: Path, executor: Mapper,
                progress: Callable[[int], None] | None = None) -> None:
    """Run the plan's jobs on `executor` (`progress(units)` as each finishes), join each
    experience's pieces as soon as the last is in, then write the index. Views are
    rendered first (they are quick), then the pieces, longest first so that the workers
    end together."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in p.frames:
        Path(f.out).parent.mkdir(parents=True, exist_ok=True)
    waiting = {j.key: sum(1 for f in p.frames if f.key == j.key) for j in p.joins}
    joins = {j.key: j for j in p.joins}
    for key in sorted(k for k, n in waiting.items() if n == 0):  # pieces all there
        join_pieces(joins[key])
    calls: list[tuple[Any, ...]] = []
    fns: list[tuple[Callable[..., str], int, str]] = []
    for v in p.views:
        calls.append((render_view_job, v))
        fns.append((render_view_job, 1, f"the view {v.out}"))
    for f in sorted(p.frames, key=lambda j: (-j.frames, j.key, j.part)):
        calls.append((render_frames_job, f))
        fns.append((render_frames_job, f.frames,
                    f"frames {f.part[0]}-{f.part[1] - 1} (of those rendered) of {f.log}"))
    for k, key in executor.map(run_job, calls, names=[n for _, _, n in fns], what="render"):
        if fns[k][0] is render_frames_job:
            waiting[key] -= 1
            if waiting[key] == 0:
                join_pieces(joins[key])
        if progress is not None:
            progress(fns[k][1])
    assert p.index is not None
    write_atomic(folder / INDEX_NAME, p.index.to_json())
    with contextlib.suppress(OSError):  # when no piece is left
        (folder / PIECES).rmdir()


def run_job(fn: Callable[[Any], str], job: Any) -> str:
    """`fn(job)`: one function for the executors to map over views and experiences."""
    return fn(job)
