"""Suites a vision-language model can take: the questions, as chat messages with images,
and the strict reader of their answers.

A memory task becomes one question: the robot's egocentric frames of its day (read from
an fdc-frames 1.0 directory, `fdc render experience`, matched to the task by the
experience's sha256), sub-sampled to a budget (`select_frames`), each image preceded by
its frame index and time of day, then the instruction and the answer rule. The answer
is JSON naming frame indices, one per target (`parse_answer`); anything else is a
malformed reply, never guessed at. `fdc export vlm` writes the questions as JSONL in
the common chat format (`export_vlm`, docs/formats/vlm.md); `fdc run-agent vlm` asks a
server the same questions (`fdc.agents.vlm` is the client) and reads its replies here.

A manipulation task's question is its instruction with its first view: the view where
the robot starts, drawn by fdc's renderer (`fdc.sim_bridge.render`), the image
`ManipulationEnv(observation="image")` starts with; on a machine that cannot render (no
EGL) such tasks are skipped, counted.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fdc.core.errors import InputError
from fdc.core.inputs import InputFileError, InputKind, read_input_bytes
from fdc.core.jsonl import loads
from fdc.predicates.goal import GTargets, GThen

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.core.files import Outputs
    from fdc.sim_bridge.render import Renderer
    from fdc.sim_bridge.render.index import FramesIndex

VLM_FORMAT_VERSION = "1.0"
FRAMES_KIND = "fdc-frames"
#: The renderer's module and the command that writes a frames directory.
RENDER_MODULE = "fdc.sim_bridge.render"
RENDER_COMMAND = "fdc render experience LOG --scene SCENE -o DIR"
#: Frames shown per memory question unless `--max-frames` says otherwise.
DEFAULT_MAX_FRAMES = 32
#: The file of questions in an export folder, and the folder of its images.
QUESTIONS_FILE = "vlm.jsonl"
IMAGES_FOLDER = "frames"

SYSTEM_PROMPT = (
    "You are the memory of a home robot. Yesterday the robot did chores in a house; the "
    "images are frames of the video from its head camera, in the order they were taken, "
    "each preceded by its frame index and the time of day. Answer the task by naming "
    "frames: the frame whose view shows where the robot should go.")


class FramesError(InputError):
    """A frames directory that cannot be read, or a task with no frames to show (the CLI
    exits 2)."""


# ----------------------------------------------------------------------------- frames


@dataclass(frozen=True)
class FrameImage:
    """One rendered frame of an experience: its index in the log, its time, its PNG."""

    frame: int
    clock_min: float
    time: str
    path: Path


@dataclass(frozen=True)
class FramesDir:
    """An fdc-frames directory as read: the experience it shows and its RGB frames,
    by frame index."""

    root: Path
    experience_sha256: str
    frames: tuple[FrameImage, ...]
    index: FramesIndex

    @classmethod
    def read(cls, root: Path) -> FramesDir:
        """Read and check `root/index.json` (`FramesError` saying what is wrong, and
        where)."""
        from fdc.sim_bridge.render.index import FRAMES_FORMAT_VERSION, FramesIndex

        index = root / "index.json"
        try:
            raw = loads(read_input_bytes(index, InputKind.MANIFEST))
        except InputFileError as e:
            raise FramesError(f"{index}: cannot read the frames index: {e}; hint: a frames "
                              f"directory is written by `{RENDER_COMMAND}`") from None
        except (InputError, ValueError) as e:
            raise FramesError(f"{index}: not JSON: {e}") from None
        if isinstance(raw, dict) and raw.get("kind") != FRAMES_KIND:
            raise FramesError(f"{index}: not an fdc-frames index (its `kind` is "
                              f"{json.dumps(raw.get('kind'))}, not \"{FRAMES_KIND}\")")
        if isinstance(raw, dict) and str(raw.get("format_version", "")).split(".")[0] != \
                FRAMES_FORMAT_VERSION.split(".")[0]:
            raise FramesError(f"{index}: fdc-frames format {raw.get('format_version')}; "
                              f"this fdc reads {FRAMES_FORMAT_VERSION}")
        try:
            parsed = FramesIndex.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                                  for p in first["loc"])
            more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
            raise FramesError(f"{index}: {where}: {first['msg']}{more}; hint: a frames "
                              f"directory is written by `{RENDER_COMMAND}`") from None
        frames: list[FrameImage] = []
        for k, f in enumerate(parsed.frames):  # FramesIndex: frame indices increasing
            rel = PurePosixPath(f.rgb)
            if rel.is_absolute() or ".." in rel.parts or not rel.parts:
                raise FramesError(f"{index}: $.frames[{k}].rgb: `{f.rgb}` is not a path "
                                  "inside the frames directory")
            frames.append(FrameImage(f.frame, f.clock_min, f.time, root.joinpath(*rel.parts)))
        return cls(root, parsed.experience_sha256, tuple(frames), parsed)


def select_frames(frames: Sequence[FrameImage], budget: int) -> list[FrameImage]:
    """At most `budget` frames spread evenly over `frames` (sorted by index), the first
    and the last always among them; all of them when they fit."""
    n = len(frames)
    if n <= budget:
        return list(frames)
    if budget == 1:
        return [frames[-1]]
    step = budget - 1
    return [frames[(i * (n - 1) + step // 2) // step] for i in range(budget)]


def renderer_unavailable() -> str | None:
    """Why fdc's renderer cannot draw here (no EGL, no Mesa: the message names what to
    install), or None when it can."""
    from fdc.sim_bridge.render import RenderUnavailable
    from fdc.sim_bridge.render.context import gl_context

    try:
        gl_context()
    except RenderUnavailable as e:
        return str(e)
    return None


def renderer_available() -> bool:
    """Whether fdc's renderer can draw on this machine (headless EGL on Mesa)."""
    return renderer_unavailable() is None


class FrameSources:
    """The frames of each experience: from the frames directories given (by their
    experience's sha256), else rendered with `fdc.sim_bridge.render` into a scratch
    folder (`every`: the stride that gives about `budget` frames), else a `FramesError`
    naming the command that writes them."""

    def __init__(self, opened: ReopenedSuite, dirs: Sequence[Path], budget: int) -> None:
        self.opened = opened
        self.budget = budget
        self._by_sha: dict[str, FramesDir] = {}
        for d in dirs:
            found = FramesDir.read(d)
            self._by_sha.setdefault(found.experience_sha256, found)
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._renderers: dict[Path, Renderer] = {}  # scene file -> its renderer

    def __enter__(self) -> FrameSources:
        return self

    def __exit__(self, *_: object) -> None:
        for r in self._renderers.values():
            r.release()
        self._renderers.clear()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def renderer(self, task: TaskRecord) -> Renderer:
        """The renderer of the task's scene with the default camera (made once per scene,
        its meshes read relative to the scene file)."""
        from fdc.sim_bridge.render import Camera, Renderer

        path = self.opened.scene_path(task)
        found = self._renderers.get(path)
        if found is None:
            found = Renderer(self.opened.graph(task).scene, Camera(), base_dir=path.parent)
            self._renderers[path] = found
        return found

    def missing(self, tasks: Sequence[TaskRecord]) -> list[TaskRecord]:
        """The memory tasks whose frames no directory given holds."""
        return [t for t in tasks if t.experience is not None
                and t.experience not in self._by_sha]

    def frames(self, task: TaskRecord) -> FramesDir:
        sha = task.experience
        if sha is None:
            raise FramesError(f"task `{task.id}` names no experience: it has no frames")
        found = self._by_sha.get(sha)
        if found is None:
            found = self._by_sha[sha] = self._render(task, sha)
        return found

    def _render(self, task: TaskRecord, sha: str) -> FramesDir:
        why = renderer_unavailable()
        if why is not None:
            given = ", ".join(f"{d.root} ({k[:12]}...)" for k, d in sorted(self._by_sha.items()))
            raise FramesError(
                f"no frames of the experience of task `{task.id}` (sha256 {sha[:12]}...)"
                + (f"; the frames directories given show other experiences: {given}"
                   if given else "") +
                f"; give its frames directory with --frames; hint: `{RENDER_COMMAND}` writes "
                f"it (fdc cannot render them itself here: {why})")
        from fdc.sim_bridge.render import render_experience

        log = self.opened.experience(task)
        scene = self.opened.scene_path(task)
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="fdc-vlm-frames-")
        folder = Path(self._scratch.name)
        log_path = folder / f"{sha[:16]}.json"  # its bytes are the ones `sha` is of
        log_path.write_text(log.to_json(), encoding="utf-8")
        every = max(1, -(-len(log.frames) // self.budget))
        index = render_experience(scene, log_path, folder / sha[:16], every=every,
                                  graph=self.opened.graph(task), log=log)
        return FramesDir.read(Path(index).parent)


# ----------------------------------------------------------------------------- questions


def targets_of(task: TaskRecord) -> tuple[int, bool]:
    """How many frames the answer names (one per target of a multi-goal task, else
    one; 0 for a sequence, which has no goal frames) and whether their order counts."""
    goal = task.goal
    match goal:
        case GTargets():
            return len(goal.targets), goal.ordered
        case GThen():
            return 0, False
        case _:
            return 1, False


def answer_rule(count: int, ordered: bool) -> str:
    """The answer format, as the question states it."""
    if count == 1:
        return ('Reply with JSON only, and nothing else: {"frames": [F]}, where F is the '
                "index of one of the frames shown above.")
    order = ("in the order the task gives them" if ordered else
             "in the order you would visit them")
    example = ", ".join(f"F{i}" for i in range(1, count + 1))
    return (f"The task has {count} targets: name one frame for each, {order}. Reply with "
            f'JSON only, and nothing else: {{"frames": [{example}]}}, where each F is the '
            "index of one of the frames shown above.")


def memory_messages(task: TaskRecord, shown: Sequence[FrameImage],
                    image_url: Callable[[FrameImage], str]) -> list[dict[str, Any]]:
    """The chat messages of a memory task's question: the system prompt, then one user
    message of labelled images, the instruction and the answer rule."""
    count, ordered = targets_of(task)
    content: list[dict[str, Any]] = []
    for f in shown:
        content.append({"type": "text", "text": f"Frame {f.frame}, time of day {f.time}"})
        content.append({"type": "image_url", "image_url": {"url": image_url(f)}})
    instruction = task.instructions[0] if task.instructions else ""
    content.append({"type": "text",
                    "text": f"Task: {instruction}\n\n{answer_rule(count, ordered)}"})
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": content}]


def data_url(path: Path) -> str:
    """A PNG file as a `data:image/png;base64,...` URL."""
    data = read_image(path)
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_image(path: Path) -> bytes:
    """A frame's PNG bytes (`FramesError`: missing, or not a PNG)."""
    try:
        data = read_input_bytes(path, InputKind.MESH)
    except InputFileError as e:
        raise FramesError(f"{path}: cannot read the frame: {e}") from None
    if not data.startswith(_PNG_MAGIC):
        raise FramesError(f"{path}: not a PNG image")
    return data


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Answer:
    """A reply read strictly: the frames it names, or why it is malformed."""

    frames: list[int] | None
    problem: str = ""

    @property
    def malformed(self) -> bool:
        return self.frames is None


_THINK = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(.*?)\n?```\Z", re.DOTALL)
_PLAIN = re.compile(r"\A\d+(?:[ \t]*,[ \t]*\d+)*\Z")


def parse_answer(text: str, count: int, shown: Collection[int]) -> Answer:
    """The frames a reply names, read strictly (docs/formats/vlm.md): a JSON object
    `{"frames": [...]}` and nothing else (it may stand in one ```json fence, after one
    leading <think>...</think> block), or the plain form: the indices alone, separated
    by commas. It must name exactly `count` frames, each one of those `shown`.
    Anything else is malformed, with the reason."""
    body = _THINK.sub("", text, count=1).strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if _PLAIN.match(body):
        frames = [int(x) for x in body.split(",")]
    else:
        try:
            value = loads(body)
        except (InputError, ValueError, RecursionError):
            return Answer(None, "not JSON, nor frame indices separated by commas")
        if not isinstance(value, dict) or set(value) != {"frames"}:
            return Answer(None, 'not an object whose one key is "frames"')
        listed = value["frames"]
        if not isinstance(listed, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in listed):
            return Answer(None, '"frames" is not a list of integers')
        frames = list(listed)
    if len(frames) != count:
        return Answer(None, f"names {len(frames)} frame(s); the task takes {count}")
    unseen = [f for f in frames if f not in shown]
    if unseen:
        return Answer(None, f"frame(s) {', '.join(map(str, unseen))} were not shown")
    return Answer(frames)


# ----------------------------------------------------------------------------- the export


class VlmAnswerSet(BaseModel):
    """What a memory question's answer is judged against."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    count: int = Field(description="Frames the answer names: one per target, else one.")
    ordered: bool = Field(description="The targets must be named in the task's order.")
    valid_frames: list[list[int]] = Field(
        description="The task's valid frames, one list per target (all frames of the log).")
    valid_frames_shown: list[list[int]] = Field(
        description="Those among the frames shown.")
    answerable: bool = Field(
        description="Every target has a valid frame among the frames shown.")


class VlmQuestion(BaseModel):
    """One line of `vlm.jsonl`: a task as a chat-completions request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: str = VLM_FORMAT_VERSION
    task_id: str
    kind: Literal["memory", "manipulation"]
    template: str
    category: str | None = None
    instruction: str
    messages: list[dict[str, Any]] = Field(
        description="OpenAI chat messages; images as `image_url` parts whose url is a "
        "path relative to the file, or a data URL (--inline-images).")
    frames: list[int] = Field(default_factory=list,
                              description="Memory: the frame indices shown, in order.")
    answer: VlmAnswerSet | None = Field(default=None, description="Memory: the answer set.")


@dataclass
class VlmExport:
    """What `export_vlm` wrote and left out."""

    memory: int = 0
    manipulation: int = 0
    unanswerable: int = 0
    images: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # why -> tasks


def memory_question(task: TaskRecord, shown: Sequence[FrameImage],
                    image_url: Callable[[FrameImage], str]) -> VlmQuestion:
    """A memory task's line of the export."""
    count, ordered = targets_of(task)
    indices = [f.frame for f in shown]
    seen = set(indices)
    valid = [[f for f in frames if f >= 0] for frames in task.valid_frames or []]
    valid_shown = [[f for f in frames if f in seen] for frames in valid]
    return VlmQuestion(
        task_id=task.id, kind="memory", template=task.template, category=task.category,
        instruction=task.instructions[0] if task.instructions else "",
        messages=memory_messages(task, shown, image_url), frames=indices,
        answer=VlmAnswerSet(count=count, ordered=ordered, valid_frames=valid,
                            valid_frames_shown=valid_shown,
                            answerable=bool(valid_shown) and all(valid_shown)))


def manipulation_question(task: TaskRecord, view_url: str) -> VlmQuestion:
    """A manipulation task's line: the instruction with the first view."""
    instruction = task.instructions[0] if task.instructions else ""
    content = [{"type": "image_url", "image_url": {"url": view_url}},
               {"type": "text", "text": f"Task: {instruction}"}]
    return VlmQuestion(task_id=task.id, kind="manipulation", template=task.template,
                       category=task.category, instruction=instruction,
                       messages=[{"role": "user", "content": content}])


def is_memory_question(task: TaskRecord) -> bool:
    """A task the memory question fits: about an experience, answered with frames."""
    from fdc.compiler.suite import is_memory_manipulation

    return (task.experience is not None and not is_memory_manipulation(task)
            and targets_of(task)[0] > 0)


def content_folder(shown: Sequence[FrameImage]) -> tuple[str, list[bytes]]:
    """The name of the images' folder (the first 16 hex digits of a sha256 over the
    frames' indices and bytes) and the bytes of each frame."""
    digest = hashlib.sha256()
    images: list[bytes] = []
    for f in shown:
        data = read_image(f.path)
        digest.update(f"{f.frame}:{len(data)}:".encode())
        digest.update(data)
        images.append(data)
    return digest.hexdigest()[:16], images


def export_vlm(opened: ReopenedSuite, output: Path, sources: FrameSources, outputs: Outputs,
               *, inline: bool = False, on_task: Callable[[], None] | None = None
               ) -> VlmExport:
    """Stage `output/vlm.jsonl` (and the images under `output/frames/`, once per set of
    frames shown) for every memory task, and a manipulation task's first view where the
    machine can render; count what is left out, by reason."""
    result = VlmExport()
    lines: list[str] = []
    written: dict[str, str] = {}  # experience sha256 -> image folder
    for task in opened.records:
        question = _question(task, opened, output, sources, outputs, inline, written, result)
        if question is not None:
            lines.append(json.dumps(question.model_dump(mode="json", exclude_none=True),
                                    sort_keys=True, ensure_ascii=False) + "\n")
        if on_task is not None:
            on_task()
    outputs.write(output / QUESTIONS_FILE, "".join(lines))
    return result


def _question(task: TaskRecord, opened: ReopenedSuite, output: Path, sources: FrameSources,
              outputs: Outputs, inline: bool, written: dict[str, str], result: VlmExport
              ) -> VlmQuestion | None:
    from fdc.compiler.suite import is_memory_manipulation

    if is_memory_question(task):
        frames = sources.frames(task)
        shown = select_frames(frames.frames, sources.budget)
        if not shown:
            raise FramesError(f"{frames.root}: the frames directory holds no frames")
        if inline:
            question = memory_question(task, shown, lambda f: data_url(f.path))
        else:
            folder = written.get(frames.experience_sha256)
            if folder is None:
                folder, images = content_folder(shown)
                for f, data in zip(shown, images, strict=True):
                    outputs.write(output / IMAGES_FOLDER / folder / f"{f.frame:06d}.png", data)
                result.images += len(images)
                written[frames.experience_sha256] = folder
            question = memory_question(
                task, shown, lambda f: f"{IMAGES_FOLDER}/{folder}/{f.frame:06d}.png")
        result.memory += 1
        assert question.answer is not None
        result.unanswerable += not question.answer.answerable
        return question
    if task.experience is not None and not is_memory_manipulation(task):
        _skip(result, "memory tasks whose goal is a sequence (no goal frames)")
        return None
    if not renderer_available():
        _skip(result, f"manipulation tasks: their first view needs fdc's renderer "
              f"({RENDER_MODULE}), which cannot draw here: {renderer_unavailable()}")
        return None
    data = first_view_png(opened, task, sources.renderer(task))
    name = hashlib.sha256(data).hexdigest()[:16]
    if inline:
        url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    else:
        url = f"{IMAGES_FOLDER}/views/{name}.png"
        if url not in written:
            outputs.write(output / url, data)
            written[url] = url
            result.images += 1
    result.manipulation += 1
    return manipulation_question(task, url)


def _skip(result: VlmExport, why: str) -> None:
    result.skipped[why] = result.skipped.get(why, 0) + 1


def first_view_png(opened: ReopenedSuite, task: TaskRecord,
                   renderer: Renderer | None = None) -> bytes:
    """The view where a manipulation task starts, as a PNG: from the robot's start pose
    (the scene's start; where the experience ends for a memory-manipulation task), with
    the default camera, in the world the task starts in (the scene's initial state;
    after the experience for a memory-manipulation task): the image a
    `ManipulationEnv(observation="image")` returns on reset. `renderer`: one of the
    task's scene to reuse (else one is made and released)."""
    from fdc.compiler.start import start_snapshots
    from fdc.compiler.suite import is_memory_manipulation
    from fdc.sim_bridge.render import Camera, Renderer
    from fdc.sim_bridge.render.frames import encode_png

    graph = opened.graph(task)
    log = opened.experience(task) if is_memory_manipulation(task) else None
    initial, after = start_snapshots(graph, log)
    state = after if after is not None else initial
    if renderer is not None:
        return encode_png(renderer.render(state, state.agent).rgb)
    path = opened.scene_path(task)
    with Renderer(graph.scene, Camera(), base_dir=path.parent) as r:
        return encode_png(r.render(state, state.agent).rgb)
