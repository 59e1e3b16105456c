"""Baseline agents: `random` and `oracle`, on memory and manipulation tasks alike, and
the runner that predicts a suite's tasks with either (`run_baseline`).

- `random`: a memory task gets uniformly random history frames (as many as the task has
  targets, each drawn independently; `random_frames_chance` is its exact chance of
  success); a manipulation task gets random valid actions in the agent environment
  (an action name drawn uniformly among those that apply, then its argument) until
  the agent draws `call_end` or the step budget is spent. Seeded per task
  (`random.Random` of the seed and the task id): the same predictions for a seed.
- `oracle`: `fdc.agents.oracle` (a memory task's frames and low-level run, a
  manipulation task's action trace).

A memory-manipulation task (`fdc.compiler.suite.is_memory_manipulation`) is a manipulation
task for both agents: they act from the world its experience left behind
(`SceneContext.after`).
See docs/agents.md.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from fdc.agents.actions import AgentAction
from fdc.agents.env import ManipulationEnv, is_manipulation
from fdc.agents.oracle import Unsolvable, oracle_actions, oracle_frames, oracle_run
from fdc.agents.predictions import Prediction
from fdc.core.files import FileNames, Outputs
from fdc.core.hashing import scene_sha256
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.world.embedded import LONG_DAY
from fdc.sim_bridge.world.state import TrajectoryHeader
from fdc.sim_bridge.world.trajectory import scene_reference, trajectory_text

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot

BASELINES = ("random", "oracle")


@dataclass(frozen=True)
class BaselineResult:
    """One task's prediction, and why the oracle failed, if it did."""

    prediction: Prediction
    failure: str = ""


# --------------------------------------------------------------------------- random


def random_actions(task: TaskRecord, graph: SceneGraph, seed: int,
                   after: Snapshot | None = None) -> list[AgentAction]:
    """Random valid actions until `call_end` or the budget (deterministic per seed), from
    where the task starts (`after`: as `oracle_actions`)."""
    rng = random.Random(f"{seed}:{task.id}")
    env = ManipulationEnv(graph, after=after)
    env.reset(seed=seed, options={"task": task})
    while not env.done:
        valid = env.valid_actions()
        names = sorted({a.action.value for a in valid})
        name = rng.choice(names)
        env.step(rng.choice([a for a in valid if a.action.value == name]))
    return [r.action for r in env.records if r.action is not None]


def random_frames(task: TaskRecord, experience: Experience, seed: int) -> list[int]:
    """The random agent's answer: as many frames as the task has targets, each drawn
    uniformly from the history, independently (`random_frames_chance` is the chance it
    succeeds)."""
    rng = random.Random(f"{seed}:{task.id}")
    n = len(experience.frames)
    k = len(task.valid_frames) if task.valid_frames else 1
    return [rng.randrange(n) for _ in range(k)]


def random_frames_chance(task: TaskRecord, frame_count: int) -> Fraction | None:
    """The exact chance that `random_frames` succeeds on a memory task whose valid frames
    are `task.valid_frames`, over a history of `frame_count` frames; None for a task
    without frame lists (a sequence) or history.

    A single goal: the share of valid frames. A multi-goal: the k draws are independent,
    and `fdc.predicates.verify` credits them by its rule: ordered, each frame must hold
    the next target; unordered, the frames so far must each have a target of their own
    (a matching). So the chance is a sum over states of the share of frames that keep
    the run alive at each stop: ordered, the state is the targets credited (a prefix);
    unordered, the set of target sets the frames so far can be matched to."""
    lists = task.valid_frames
    if not lists or frame_count <= 0:
        return None
    if task.goal.kind != "targets":
        return Fraction(len(set(lists[0]) & set(range(frame_count))), frame_count)
    masks: dict[int, int] = {}  # frame -> the targets valid there (bits)
    for k, frames in enumerate(lists):
        for f in set(frames) & set(range(frame_count)):
            masks[f] = masks.get(f, 0) | 1 << k
    shares: dict[int, int] = {}  # a set of targets -> how many frames have exactly it
    for m in masks.values():
        shares[m] = shares.get(m, 0) + 1
    ordered = task.goal.ordered
    # A state: the target sets (bits) the frames drawn so far can be matched to, one
    # target a frame (ordered: only the prefix credited so far).
    states: dict[frozenset[int], Fraction] = {frozenset({0}): Fraction(1)}
    for _ in lists:
        after: dict[frozenset[int], Fraction] = {}
        for matched, p in states.items():
            for m, count in shares.items():
                grown = frozenset(
                    done | bit for done in matched
                    for bit in ([~done & (done + 1)] if ordered else _bits(m & ~done))
                    if m & bit)
                if grown:
                    after[grown] = after.get(grown, Fraction(0)) + p * Fraction(count,
                                                                                frame_count)
        states = after
    return sum(states.values(), Fraction(0))


def _bits(mask: int) -> list[int]:
    """Each set bit of `mask` on its own."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class SceneContext:
    """What the baselines need of a task's scene: its graph, the experience its memory
    tasks are about, and the scene file for trajectory headers (`scene_file`, named in a
    header relative to the trajectory; without it, `scene_name` as it is)."""

    graph: SceneGraph
    experience: Experience | None
    scene_name: str
    scene_file: Path | None = None

    @cached_property
    def after(self) -> Snapshot | None:
        """The world the experience left behind, where a memory-manipulation task starts
        (None without an experience)."""
        from fdc.compiler.start import start_snapshots

        return start_snapshots(self.graph, self.experience)[1] if self.experience else None

    @classmethod
    def of(cls, suite: ReopenedSuite, task: TaskRecord) -> SceneContext:
        """A task's context as its reopened suite finds it (`ReopenError`, `SceneLoadError`
        when an input is missing or is not the suite's)."""
        path = suite.scene_file(task)
        return cls(graph=suite.graph(task), scene_name=path.name, scene_file=path,
                   experience=suite.experience(task) if task.experience is not None else None)


def run_baseline(name: str, tasks: Sequence[TaskRecord], scenes: Callable[[TaskRecord],
                 SceneContext], *, seed: int = 0, trajectories: Path | None = None,
                 predictions_dir: Path | None = None, outputs: Outputs | None = None
                 ) -> Iterator[BaselineResult]:
    """Each task's prediction by baseline `name` (`random` or `oracle`), in order.
    `trajectories`: the folder the oracle's low-level runs are written to (one JSONL
    per memory task, named by `FileNames`), referenced relative to `predictions_dir`.
    They are staged in `outputs` for the caller to commit with the predictions (without
    one: put in place when the last task is done, removed if the run stops before)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline `{name}`; known: {', '.join(BASELINES)}")
    with contextlib.nullcontext(outputs) if outputs is not None else Outputs() as out:
        yield from _predict(name, tasks, scenes, seed, trajectories, predictions_dir, out)


def _predict(name: str, tasks: Sequence[TaskRecord], scenes: Callable[[TaskRecord],
             SceneContext], seed: int, trajectories: Path | None,
             predictions_dir: Path | None, out: Outputs) -> Iterator[BaselineResult]:
    names = FileNames(trajectories) if trajectories is not None else None
    walkers: dict[int, Walker] = {}  # per scene graph: its searches are memoised
    for task in tasks:
        ctx = scenes(task)
        if is_manipulation(task):
            try:
                actions = oracle_actions(task, ctx.graph, ctx.after) if name == "oracle" \
                    else random_actions(task, ctx.graph, seed, ctx.after)
            except Unsolvable as e:
                yield BaselineResult(Prediction(task_id=task.id, actions=[]), str(e))
                continue
            yield BaselineResult(Prediction(task_id=task.id, actions=actions))
            continue
        if ctx.experience is None:
            yield BaselineResult(Prediction(task_id=task.id, frames=[]),
                                 "no experience log for this memory task")
            continue
        if name == "random":
            frames = random_frames(task, ctx.experience, seed)
            yield BaselineResult(Prediction(task_id=task.id, frames=frames))
            continue
        walker = walkers.get(id(ctx.graph))
        if walker is None:
            walker = walkers[id(ctx.graph)] = Walker(ctx.graph.nav)
        frames = oracle_frames(task, ctx.graph, ctx.experience, walker)
        lists = task.valid_frames or [[]]
        failure = "a target has no valid frame" if not all(lists) else ""
        rel = None
        if names is not None:
            try:
                snaps = oracle_run(task, ctx.graph, ctx.experience, frames)
            except Unsolvable as e:
                failure = failure or str(e)
            else:
                path = names.path(task.id, ".jsonl")
                header = TrajectoryHeader(
                    scene=ctx.scene_name if ctx.scene_file is None else
                    scene_reference(path, ctx.scene_file),
                    scene_sha256=scene_sha256(ctx.graph.scene),
                    source="fdc-embedded", clock=LONG_DAY, seed=seed)
                out.write(path, trajectory_text(header, snaps))
                base = predictions_dir or names.folder.parent
                rel = path.relative_to(base).as_posix() if path.is_relative_to(base) \
                    else str(path)
        yield BaselineResult(Prediction(task_id=task.id, frames=frames, trajectory=rel), failure)
