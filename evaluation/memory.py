"""FindingDory's memory metrics on compiled tasks: HL-SR, HL-SPL, DTG-SR and SC-SR from
the history frames an agent chose, LL-SR and LL-SPL from the low-level run that followed.

High level (`score_frames`): the agent names one history frame per target (one for a
single goal), in the order it would visit them. The robot is teleported to each frame's
pose in the world the experience left behind (the objects where the robot put them),
and the task's goal is judged there by the registered checkers with the multi-goal rules
of `fdc.predicates.verify` (each frame is a stop: it credits at most one new target,
unordered targets by a maximum matching, so the relaxed rates are never below HL-SR; a
frame that credits none fails the task; ordered targets in order). As for the suite's
`valid_frames`, an atom about an object the robot moved holds only at frames from the
one where that object reached its final place: a frame taken before it got there is no
memory of it. HL-SR judges strictly; DTG-SR drops the visibility check, SC-SR the
distance check (`Mode`), the facing-angle check stays in both.

HL-SPL = success * L* / max(L*, L), where L* is the task's `optimal_path_m` (the
shortest walk from the start to the closest valid frame; through every target's valid
frames in order; the shortest open tour for unordered targets) and L the walk from the
start through the chosen frames in the order given, both on the navigation grid
(`fdc.sim_bridge.graph.routes.Walker`), so the two are measured alike. For one goal this is
FindingDory's d(start, closest valid) / max(that, d(start, chosen)); for multi-goal
tasks, which the original leaves undefined, the same ratio of walks.

Low level (`score_run`): the goal is verified on the recorded snapshots
(`verify_snapshots`); LL-SPL = success * L* / max(L*, L) with L the length walked up to
the stop that ended the task.

SPL conventions: L* = L = 0 gives 1 (the agent stood at the goal and did not move);
L* = 0 < L gives 0; an undefined L* (a target without valid frames, or unreachable)
gives 0 - success is then impossible through frames anyway.
See docs/evaluation.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from fdc.compiler.suite import TaskRecord
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import GAtom, GTargets, GThen
from fdc.predicates.registry import Context, Mode
from fdc.predicates.verify import STOP, verify, verify_snapshots
from fdc.sim_bridge.graph.routes import Walker

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import Snapshot

#: The relaxation each high-level success rate judges with.
MODES: dict[str, Mode] = {"hl_sr": Mode.STRICT, "dtg_sr": Mode.DTG_SR, "sc_sr": Mode.SC_SR}

#: A low-level run starting farther than this from the task's start pose (one forward
#: step) is not a run of the task: its LL-SPL would compare walks from two places.
START_TOLERANCE_M = 0.25

_ZERO_M = 1e-9


class _Score(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HighLevelScore(_Score):
    """A task judged at the history frames the agent chose."""

    frames: list[int] = Field(description="The frames chosen, as predicted.")
    hl_sr: bool = Field(description="The goal holds at the frames (strict checks).")
    dtg_sr: bool = Field(description="... without the visibility check.")
    sc_sr: bool = Field(description="... without the distance check.")
    hl_spl: float = Field(ge=0, le=1, description="hl_sr * L* / max(L*, chosen_path_m).")
    chosen_path_m: float | None = Field(
        default=None, description="The walk from the start through the chosen frames, in "
        "order (None: not walkable, or the frames were not scored).")
    reason: str = Field(description="Why the strict judgement came out as it did.")


class LowLevelScore(_Score):
    """A task judged on the recorded low-level run."""

    trajectory: str = Field(description="The trajectory file, as the prediction names it.")
    ll_sr: bool = Field(description="The goal holds at the run's stop(s).")
    ll_spl: float = Field(ge=0, le=1, description="ll_sr * L* / max(L*, walked_m).")
    walked_m: float | None = Field(
        default=None, description="Metres walked up to the step that ended the task.")
    end_step: int | None = Field(default=None, description="That step (snapshot index).")
    reason: str


# ----------------------------------------------------------------------------- the task


def frames_expected(task: TaskRecord) -> int:
    """How many frames a prediction names: one per target of a multi-goal task, else one.
    A sequence (`then`) has no goal frames: 0."""
    match task.goal:
        case GTargets():
            return len(task.goal.targets)
        case GThen():
            return 0
        case _:
            return 1


def valid_frame_lists(task: TaskRecord) -> list[list[int]]:
    """The task's valid frames, one list per target; FindingDory's `[-1]` (no valid
    frame) reads as an empty list."""
    return [[f for f in frames if f >= 0] for frames in task.valid_frames or []]


def solvable(task: TaskRecord) -> bool:
    """Every target has a valid frame (the task can be solved through frames)."""
    lists = valid_frame_lists(task)
    return bool(lists) and all(lists)


def frame_problem(task: TaskRecord, frames: Sequence[int], n_frames: int
                  ) -> tuple[str, str] | None:
    """What is wrong with a prediction's frames for this task, if anything: a code
    (`no-goal-frames`, `wrong-frame-count`, `frame-out-of-range`) and a message."""
    want = frames_expected(task)
    if want == 0:
        return "no-goal-frames", "the task's goal is a sequence: it has no goal frames"
    if len(frames) != want:
        what = f"{want} targets" if want > 1 else "a single goal"
        return "wrong-frame-count", f"{len(frames)} frame(s) for {what}: name exactly {want}"
    bad = [f for f in frames if not 0 <= f < n_frames]
    if bad:
        return "frame-out-of-range", (f"frame(s) {', '.join(map(str, bad))} outside the "
                                      f"history (frames 0 to {n_frames - 1})")
    return None


def spl(success: bool, optimal_m: float | None, taken_m: float | None) -> float:
    """Success weighted by path length: success * L* / max(L*, L) (see the module)."""
    if not success or optimal_m is None or taken_m is None:
        return 0.0
    if optimal_m <= _ZERO_M:
        return 1.0 if taken_m <= _ZERO_M else 0.0
    return round(optimal_m / max(optimal_m, taken_m), 6)


# ----------------------------------------------------------------------------- the world


class MemoryWorld:
    """The world the memory tasks of one scene and one experience are judged in: the
    objects where the experience left them, the robot teleported to history frames.
    Judgements are cached per atom, frame, relaxation and thresholds."""

    def __init__(self, graph: SceneGraph, log: Experience) -> None:
        from fdc.compiler.start import start_snapshots
        from fdc.sim_bridge.world.snapshot import SnapshotState

        self.graph = graph
        self.log = log
        _, after = start_snapshots(graph, log)
        if after is None:
            raise ValueError("the experience log has no frames")
        self.after = SnapshotState(graph, after)
        self.walker: Walker = Walker(graph.nav)
        self.registry = default_registry()
        n = len(log.frames)
        # As the compiler's goal frames: the frame each moved object reached its final
        # place (interactions are sorted by pick frame, so the last one is final).
        self.final_frame: dict[str, int] = {}
        for it in log.interactions:
            self.final_frame[it.object] = it.place_frame if it.place_frame is not None else n
        self._states: dict[int, SnapshotState] = {}
        self._contexts: dict[tuple[tuple[tuple[str, float], ...], Mode, int], Context] = {}
        self._holds: dict[tuple[GAtom, int, Mode, tuple[tuple[str, float], ...]], bool] = {}

    @property
    def frame_count(self) -> int:
        return len(self.log.frames)

    def xy(self, frame: int) -> tuple[float, float]:
        a = self.log.frames[frame].agent
        return (a.x, a.y)

    def _context(self, thresholds: tuple[tuple[str, float], ...], mode: Mode, frame: int
                 ) -> Context:
        key = (thresholds, mode, frame)
        ctx = self._contexts.get(key)
        if ctx is None:
            state = self._states.get(frame)
            if state is None:
                state = self._states[frame] = self.after.at_pose(
                    self.log.frames[frame].agent, step=frame)
            base = Context(graph=self.graph, experience=self.log, mode=mode)
            if thresholds:
                base = base.with_thresholds(dict(thresholds), self.registry)
            ctx = self._contexts[key] = base.with_state(state)
        return ctx

    def holds(self, a: GAtom, frame: int, mode: Mode = Mode.STRICT,
              thresholds: Mapping[str, float] | None = None) -> bool:
        """Whether the fluent atom holds with the robot at `frame`'s pose."""
        tkey = tuple(sorted((thresholds or {}).items()))
        key = (a, frame, mode, tkey)
        found = self._holds.get(key)
        if found is None:
            first = max((self.final_frame.get(x, 0) for x in a.args), default=0)
            found = frame >= first and self.registry.evaluate(
                a.predicate, a.args, self._context(tkey, mode, frame))
            self._holds[key] = found
        return found

    def route_m(self, start: tuple[float, float], frames: Sequence[int]) -> float | None:
        """The walk on the navigation grid from `start` through the frames' poses, in
        order (None when a leg is not walkable)."""
        walker = self.walker
        at = walker.node(start)
        total = 0.0
        for f in frames:
            nxt = walker.node(self.xy(f))
            if at < 0 or nxt < 0:
                return None
            leg = float(walker.search({at: 0.0})[nxt])
            if not math.isfinite(leg):
                return None
            total += leg
            at = nxt
        return round(total, 4)


# ----------------------------------------------------------------------------- scoring


def score_frames(task: TaskRecord, frames: Sequence[int], world: MemoryWorld) -> HighLevelScore:
    """Judge the chosen frames (checked first with `frame_problem`; a wrong count or a
    frame outside the history is a `ValueError`, never silently scored)."""
    problem = frame_problem(task, frames, world.frame_count)
    if problem is not None:
        raise ValueError(f"task `{task.id}`: {problem[1]}")
    chosen = list(frames)
    stops = [STOP] * len(chosen)
    outcome: dict[str, bool] = {}
    reason = ""
    for name, mode in MODES.items():
        verdict = verify(task.goal, stops, lambda a, i, m=mode: world.holds(
            a, chosen[i], m, task.thresholds))
        outcome[name] = verdict.success
        if mode is Mode.STRICT:
            reason = _frames_reason(verdict.reason, chosen)
    start = (task.start.x, task.start.y) if task.start is not None else None
    route = world.route_m(start, chosen) if start is not None else None
    return HighLevelScore(
        frames=chosen, hl_sr=outcome["hl_sr"], dtg_sr=outcome["dtg_sr"],
        sc_sr=outcome["sc_sr"], hl_spl=spl(outcome["hl_sr"], task.optimal_path_m, route),
        chosen_path_m=route, reason=reason)


def _frames_reason(reason: str, frames: Sequence[int]) -> str:
    """verify's words for stops, said of frames ("the stop at step 1" -> "frame 812")."""
    for i, f in sorted(enumerate(frames), reverse=True):
        reason = reason.replace(f"the stop at step {i}", f"frame {f}")
        reason = reason.replace(f"at step {i}", f"at frame {f}")
    return reason


def failed_frames(frames: Sequence[int] | None, reason: str) -> HighLevelScore:
    """The high-level score of a missing or malformed prediction: a failure."""
    return HighLevelScore(frames=list(frames or []), hl_sr=False, dtg_sr=False, sc_sr=False,
                          hl_spl=0.0, reason=reason)


def walked_m(snapshots: Sequence[Snapshot], end: int) -> float:
    """Metres walked from the first snapshot to snapshot `end`: the distance the run
    recorded (`path_length_m`), or, when larger, the sum of the straight moves between
    snapshots (a recorder that leaves `path_length_m` at 0 still walked)."""
    if not snapshots or end <= 0:
        return 0.0
    last = snapshots[min(end, len(snapshots) - 1)]
    recorded = last.path_length_m - snapshots[0].path_length_m
    moved = math.fsum(math.hypot(b.agent.x - a.agent.x, b.agent.y - a.agent.y)
                      for a, b in itertools.pairwise(snapshots[:end + 1]))
    return round(max(float(recorded), moved), 4)


def start_offset_m(task: TaskRecord, snapshots: Sequence[Snapshot]) -> float:
    """How far the run's first snapshot is from the task's start pose."""
    if task.start is None or not snapshots:
        return 0.0
    a = snapshots[0].agent
    return math.hypot(a.x - task.start.x, a.y - task.start.y)


def score_run(task: TaskRecord, snapshots: Sequence[Snapshot], graph: SceneGraph,
              trajectory: str) -> LowLevelScore:
    """Judge the goal on a recorded low-level run; LL-SPL against the task's L*."""
    verdict = verify_snapshots({task.id: task.goal}, graph, snapshots,
                               thresholds={task.id: task.thresholds})[task.id]
    walked = walked_m(snapshots, verdict.end_step) if verdict.end_step >= 0 else None
    return LowLevelScore(
        trajectory=trajectory, ll_sr=verdict.success,
        ll_spl=spl(verdict.success, task.optimal_path_m, walked), walked_m=walked,
        end_step=verdict.end_step if verdict.end_step >= 0 else None, reason=verdict.reason)


def failed_run(trajectory: str | None, reason: str) -> LowLevelScore:
    """The low-level score of a missing or unreadable run: a failure."""
    return LowLevelScore(trajectory=trajectory or "", ll_sr=False, ll_spl=0.0, reason=reason)
