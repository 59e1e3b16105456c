"""Where tasks start, and what the passes read there.

A process task starts in the scene's initial state; a memory task in the world the
experience left behind (`start_snapshots`: the objects where the robot put them, the
robot where the log ends). `Judge` decides goals in one such state as `verify` would on
a one-snapshot trajectory, each atom once. `TemplateStart` is what one template's
passes are handed (`SceneCompiler.start`): a small frozen view of where its tasks start
on the prepared scene, its caches the scene's
([architecture.md](../docs/architecture.md), "The compile pipeline").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.instructions.describe import Describer
from fdc.predicates.goal import GAtom, Goal, GTargets, GThen, atoms
from fdc.predicates.registry import Context, Registry
from fdc.predicates.verify import evaluate
from fdc.sim_bridge.world.experience import snapshot_at
from fdc.sim_bridge.world.state import AgentPose, Snapshot

from .scene_facts import SceneFacts, StateFacts
from .suite import TaskRecord

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState

    from .check import DomainInfo
    from .frames import FrameIndex


def start_snapshots(graph: SceneGraph, log: Experience | None) -> tuple[Snapshot, Snapshot | None]:
    """The scene's initial state, and the world the experience left behind (objects at
    their final places, the robot where the log ends)."""
    from fdc.sim_bridge.world.embedded import EmbeddedWorld

    initial = EmbeddedWorld(graph).snapshot()
    if log is None or not log.frames:
        return initial, None
    last = snapshot_at(initial, log, len(log.frames) - 1)
    after = last.model_copy(update={"held": None, "step": 0, "action": None})
    return initial, after


def task_start_state(graph: SceneGraph, record: TaskRecord, log: Experience | None
                     ) -> Snapshot:
    """The state the record's task starts in, as the compile chose it
    (`SceneCompiler.start`): for a task about an experience (its record names one), the
    world `log` left behind (`start_snapshots`); for any other, the scene's initial state.
    What every picture of a task draws: items where the task finds them, the robot where
    it starts."""
    initial, after = start_snapshots(graph, log if record.experience is not None else None)
    return initial if after is None else after


def start_pose(state: SnapshotState) -> AgentPose:
    """Where a task starting in `state` starts: the robot's pose, rounded as the record
    keeps it."""
    pose = state.agent_pose()
    return AgentPose(x=round(pose.x, 4), y=round(pose.y, 4), z=round(pose.z, 4),
                     yaw_rad=round(pose.yaw_rad, 6))


class Judge:
    """Whether atoms and goals hold in one start state of a scene, judged by the
    registered checkers (`facts`: the state's tables, looked up at the default
    thresholds). Each atom is decided once per set of thresholds."""

    def __init__(self, state: SnapshotState, facts: StateFacts, registry: Registry,
                 experience: Experience | None) -> None:
        self.state = state
        self.facts = facts
        self.registry = registry
        self.experience = experience
        # thresholds -> atom -> truth
        self._holds: dict[tuple[tuple[str, float], ...], dict[GAtom, bool]] = {}

    def already_true(self, goal: Goal, thresholds: Mapping[str, float] | None = None) -> bool:
        """Whether the goal holds where a task starts, as `verify` would judge it on a
        one-snapshot trajectory (with the task's `thresholds`, if any; a multi-goal
        needs its stops: never)."""
        match goal:
            case GTargets():
                return False  # each target needs its own stop
            case GThen():
                steps = goal.steps
            case _:
                steps = (goal,)
        if any(s.kind in ("targets", "then") for s in steps):
            return False
        holds = self.holds([a for s in steps for a in atoms(s)], thresholds)
        return all(evaluate(s, 0, lambda a, _i: holds[a]) for s in steps)

    def first_step_true(self, goal: Goal, thresholds: Mapping[str, float] | None = None
                        ) -> bool:
        """Whether the goal is a sequence whose first step holds where a task starts (it
        asks for less than it says: `start_checks`' `step-true`, `fdc validate`)."""
        match goal:
            case GThen():
                return self.already_true(goal.steps[0], thresholds)
            case _:
                return False

    def holds(self, wanted: Iterable[GAtom], thresholds: Mapping[str, float] | None = None
              ) -> dict[GAtom, bool]:
        """Decide every new atom in the start state: a look-up in the state's table where
        the predicate has one (at the default thresholds), else one batched checker call
        each predicate (a goal over every item and surface holds thousands of atoms)."""
        holds = self._holds.setdefault(tuple(sorted((thresholds or {}).items())), {})
        new: dict[str, dict[GAtom, None]] = {}
        for a in wanted:
            if a not in holds:
                new.setdefault(a.predicate, {})[a] = None
        if not new:
            return holds
        facts = None if thresholds else self.facts
        ctx = Context(graph=self.state.graph, state=self.state, experience=self.experience)
        if thresholds:
            ctx = ctx.with_thresholds(thresholds, self.registry)
        for predicate, found in new.items():
            batch = list(found)
            table = facts.direct_set(predicate) if facts is not None else None
            if table is not None:
                for a in batch:
                    holds[a] = a.args in table
                continue
            truth = self.registry.evaluate_many(predicate, [a.args for a in batch], ctx)
            for a, ok in zip(batch, truth.tolist(), strict=True):
                holds[a] = bool(ok)
        return holds


@dataclass(frozen=True)
class TemplateStart:
    """Where one template's tasks start on one prepared scene, and all its passes read
    of the scene (`SceneCompiler.start`): the start state and its name (`initial`, or
    `after` the experience), what kind of template it is, the scene's facts and
    descriptions in that state, the judge of goals there, and what a task id and record
    take of the scene."""

    state: str  # "initial" or "after"
    memory: bool  # a memory template (`templates.is_memory_template`)
    #: A memory template whose tasks are acted out (`is_memory_manipulation_template`).
    manipulation: bool
    domain: DomainInfo
    snapshot: SnapshotState
    facts: SceneFacts  # the scene's, in the template's domain
    state_facts: StateFacts  # in the start state
    describer: Describer
    judge: Judge
    scene: str  # the scene file, as given
    scene_sha256: str
    #: The experience the tasks are about: its sha256 for a memory template, else None.
    experience_sha256: str | None
    id_scope: str | None  # a twin scene file's (`compiler.record.task_id`)
    seed: int
    #: The experience's goal frames and the walker between them, for a memory task
    #: answered by frames (None: its tasks need none).
    frames: Callable[[], tuple[FrameIndex, Walker]] | None

    @property
    def graph(self) -> SceneGraph:
        return self.snapshot.graph

    @property
    def pose(self) -> AgentPose:
        """Where the robot starts, rounded as the record keeps it."""
        return start_pose(self.snapshot)

    @property
    def after(self) -> Snapshot | None:
        """The world the experience left behind when the tasks start there, else None."""
        return self.snapshot.snapshot if self.state == "after" else None

    @property
    def thresholds(self) -> dict[str, float]:
        """The domain's checker thresholds, as a record keeps them."""
        return {th.name: float(th.value) for th in self.domain.domain.thresholds}
