"""The frames pass: a memory task's valid goal frames and the shortest walk through them.

A memory task asks the robot to return somewhere it has been: its goal holds at some
frames of the experience (the robot at that frame's pose, in the world the experience
left behind), FindingDory's valid goal frames. `FrameIndex` judges every fluent atom at
every frame; `goal_frames` gives a binding its frame lists (one per target) and the
length L* of the shortest walk from the task's start through them.

A task is answered by choosing frames, so a binding with a target that holds at no
frame (a room never entered, an item never in view up close), or whose valid frames no
walk from the start reaches, cannot be solved: it drops (`no-valid-frame`,
`no-frame-walk`), where FindingDory keeps it with the frame list `[-1]`. The pass runs
per binding, so `--max-per-template K` draws another binding in its place.
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

import numpy as np

from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    atoms,
)
from fdc.predicates.registry import Context

from .drops import Drop, DropCode
from .ground import GroundError

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import AgentPose


@dataclass(frozen=True)
class GoalFrames:
    """A memory task's valid frames (one list per target, FindingDory's), L* and flags."""

    valid_frames: list[list[int]]
    optimal_path_m: float | None
    flags: list[str]


def goal_frames(goal: Goal, targets: Sequence[str], start: AgentPose, frames: FrameIndex,
                walker: Walker) -> GoalFrames | Drop:
    """The goal's valid frames and the shortest walk through them from `start`, or why
    the binding drops: a target (or the goal) that holds at no frame, or no walk."""
    frames.prepare(atoms(goal))
    lists = frames.valid_frames(goal)
    match goal:
        case GTargets():
            empty = [t.entity for t, f in zip(goal.targets, lists, strict=True) if not f]
            if empty:
                return Drop(DropCode.NO_VALID_FRAME, "a target", tuple(empty))
            mode = "ordered" if goal.ordered else "unordered"
        case _:
            if any(not f for f in lists):
                return Drop(DropCode.NO_VALID_FRAME, "the goal", tuple(targets))
            mode = "single"
    nodes = [frames.nodes(f) for f in lists]
    length, exact = walker.walk((start.x, start.y), nodes, mode)
    if lists and length is None:
        return Drop(DropCode.NO_FRAME_WALK)
    return GoalFrames(lists, length, [] if exact else ["optimal-path-approximate"])


class FrameIndex:
    """Which experience frames satisfy which fluent atoms, in the world the experience
    left behind, with the robot at each frame's pose. An atom about an object the robot
    moved holds only from the frame that object reached its final place."""

    def __init__(self, graph: SceneGraph, after: SnapshotState, log: Experience) -> None:
        self.graph = graph
        self.log = log
        self.registry = default_registry()
        self.base = Context(graph=graph, experience=log)
        self.after = after
        self.masks: dict[GAtom, np.ndarray] = {}
        self._contexts: list[Context] | None = None
        n = len(log.frames)
        self.final_frame: dict[str, int] = {}
        for it in log.interactions:  # sorted by pick frame: the last one is final
            self.final_frame[it.object] = it.place_frame if it.place_frame is not None else n
        self._poses = tuple(f.agent for f in log.frames)  # one tuple: checkers keep its columns
        xy = np.array([(f.agent.x, f.agent.y) for f in log.frames], dtype=np.float64)
        self._nodes = graph.nav.nearest_nodes(xy) if n else np.zeros(0, dtype=np.int64)

    def prepare(self, wanted: Iterable[GAtom]) -> None:
        """Evaluate every new atom at every frame: a predicate that answers over poses
        (the robot's: `Registry.evaluate_at_poses`) in one call for all the frames, any
        other in one batched call per frame; an atom is judged once, whichever binding
        first needs it."""
        new: dict[str, list[GAtom]] = {}
        for a in wanted:
            if a not in self.masks and a not in new.get(a.predicate, ()):
                new.setdefault(a.predicate, []).append(a)
        if not new:
            return
        n = len(self.log.frames)
        results = {p: np.zeros((len(batch), n), dtype=bool) for p, batch in new.items()}
        if self._contexts is None:  # the robot at each frame's pose, made once
            self._contexts = [self.base.with_state(self.after.at_pose(frame.agent, step=i))
                              for i, frame in enumerate(self.log.frames)]
        for p, batch in new.items():
            args = [a.args for a in batch]
            if self.registry.checker(p).over_poses and n:
                results[p][:] = self.registry.evaluate_at_poses(
                    p, args, self._contexts[0], self._poses)
                continue
            for i, ctx in enumerate(self._contexts):
                results[p][:, i] = self.registry.evaluate_many(p, args, ctx)
        for p, batch in new.items():
            for k, a in enumerate(batch):
                mask = results[p][k]
                first = max((self.final_frame.get(x, 0) for x in a.args), default=0)
                if first:
                    mask[:first] = False
                self.masks[a] = mask

    def _mask(self, g: Goal) -> np.ndarray:
        n = len(self.log.frames)
        match g:
            case GAtom():
                return self.masks[g]
            case GNot():
                return ~self._mask(g.body)
            case GAnd():
                out = np.ones(n, dtype=bool)
                for p in g.parts:
                    out &= self._mask(p)
                return out
            case GOr():
                out = np.zeros(n, dtype=bool)
                for p in g.parts:
                    out |= self._mask(p)
                return out
            case GCount() if not g.same_other:
                found = np.zeros(n, dtype=int)
                for x in g.items:
                    hit = np.zeros(n, dtype=bool)
                    for y in g.others or (None,):
                        hit |= self.masks[g.atom_for(x, y)]
                    found += hit
                judged: np.ndarray = (found >= g.number if g.op == "at-least" else
                                      found <= g.number if g.op == "at-most" else
                                      found == g.number)
                return judged
            case GCount() | GCluster() | GTargets() | GThen() | GChecklist():
                raise GroundError(f"a {g.kind} has no goal frames")
            case _:
                assert_never(g)

    def valid_frames(self, goal: Goal) -> list[list[int]]:
        match goal:
            case GTargets():
                return [np.nonzero(self._mask(t.goal))[0].tolist() for t in goal.targets]
            case GThen():
                return []
            case _:
                return [np.nonzero(self._mask(goal))[0].tolist()]

    def nodes(self, frames: Sequence[int]) -> list[int]:
        return sorted({int(self._nodes[i]) for i in frames if self._nodes[i] >= 0})
