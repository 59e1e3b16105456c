"""The frames pass: a memory task's valid goal frames and the shortest walk through them.

A memory task asks the robot to return somewhere it has been: its goal holds at some
frames of the experience (the robot at that frame's pose, in the world the experience
left behind). `FrameIndex` judges every fluent atom at every frame; `add_frames` gives
each record its frame lists (one per target), a flag when a target has none, and the
length of the shortest walk from the task's start through them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import GAnd, GAtom, GCount, GNot, Goal, GOr, GTargets, GThen, atoms
from fdc.predicates.registry import Context

from .ground import GroundError
from .suite import TaskRecord

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState


def add_frames(records: list[TaskRecord], frames: FrameIndex, walker: Walker
               ) -> list[TaskRecord]:
    """`records` (memory tasks) with their valid frames, flags and shortest walk."""
    frames.prepare(a for r in records for a in atoms(r.goal))
    out = []
    for r in records:
        lists = frames.valid_frames(r.goal)
        flags = ["target-without-valid-frame"] if any(not f for f in lists) else []
        mode = "single" if not isinstance(r.goal, GTargets) else \
            "ordered" if r.goal.ordered else "unordered"
        assert r.start is not None
        nodes = [frames.nodes(f) for f in lists]
        length, exact = walker.walk((r.start.x, r.start.y), nodes, mode)
        if not exact:
            flags.append("optimal-path-approximate")
        out.append(r.model_copy(update={"valid_frames": lists, "optimal_path_m": length,
                                        "flags": flags}))
    return out


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
        n = len(log.frames)
        self.final_frame: dict[str, int] = {}
        for it in log.interactions:  # sorted by pick frame: the last one is final
            self.final_frame[it.object] = it.place_frame if it.place_frame is not None else n
        xy = np.array([(f.agent.x, f.agent.y) for f in log.frames], dtype=np.float64)
        self._nodes = graph.nav.nearest_nodes(xy) if n else np.zeros(0, dtype=np.int64)

    def prepare(self, wanted: Iterable[GAtom]) -> None:
        """Evaluate every new atom at every frame: one batched call per predicate and frame."""
        new: dict[str, list[GAtom]] = {}
        for a in wanted:
            if a not in self.masks and a not in new.get(a.predicate, ()):
                new.setdefault(a.predicate, []).append(a)
        if not new:
            return
        n = len(self.log.frames)
        results = {p: np.zeros((len(batch), n), dtype=bool) for p, batch in new.items()}
        for i, frame in enumerate(self.log.frames):
            ctx = self.base.with_state(self.after.at_pose(frame.agent, step=i))
            for p, batch in new.items():
                results[p][:, i] = self.registry.evaluate_many(p, [a.args for a in batch], ctx)
        for p, batch in new.items():
            for k, a in enumerate(batch):
                mask = results[p][k]
                first = max((self.final_frame.get(x, 0) for x in a.args), default=0)
                if first:
                    mask[:first] = False
                self.masks[a] = mask

    def _mask(self, g: Goal) -> np.ndarray:
        n = len(self.log.frames)
        if isinstance(g, GAtom):
            return self.masks[g]
        if isinstance(g, GNot):
            return ~self._mask(g.body)
        if isinstance(g, GAnd):
            out = np.ones(n, dtype=bool)
            for p in g.parts:
                out &= self._mask(p)
            return out
        if isinstance(g, GOr):
            out = np.zeros(n, dtype=bool)
            for p in g.parts:
                out |= self._mask(p)
            return out
        if isinstance(g, GCount) and not g.same_other:
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
        raise GroundError(f"a {g.kind} has no goal frames")

    def valid_frames(self, goal: Goal) -> list[list[int]]:
        if isinstance(goal, GTargets):
            return [np.nonzero(self._mask(t.goal))[0].tolist() for t in goal.targets]
        if isinstance(goal, GThen):
            return []
        return [np.nonzero(self._mask(goal))[0].tolist()]

    def nodes(self, frames: Sequence[int]) -> list[int]:
        return sorted({int(self._nodes[i]) for i in frames if self._nodes[i] >= 0})
