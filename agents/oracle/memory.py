"""The memory oracle: the valid frames on the shortest walk L* measures
(`oracle_frames`), and its low-level run, the embedded world's walk to each chosen
frame's pose (`oracle_run`). See docs/agents.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fdc.agents.oracle.errors import Unsolvable
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.world.embedded import LONG_DAY, EmbeddedWorld

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot


def _frame_nodes(walker: Walker, experience: Experience, frames: Sequence[int]
                 ) -> dict[int, int]:
    """Each grid node some of `frames` stand at -> the earliest of those frames."""
    out: dict[int, int] = {}
    for f in sorted(frames):
        a = experience.frames[f].agent
        n = walker.node((a.x, a.y))
        if n >= 0:
            out.setdefault(n, f)
    return out


def oracle_frames(task: TaskRecord, graph: SceneGraph, experience: Experience,
                  walker: Walker | None = None) -> list[int]:
    """Valid frames on the shortest walk L* measures (`Walker.route`): the closest to the
    start for a single goal; for ordered targets, one per target on the shortest
    walk through them in order; for unordered targets, in visiting order, one per target
    on the shortest open tour (exact up to `EXACT_TOUR_MAX` targets, the nearest next
    target beyond). Of the frames at the chosen grid node, the earliest. A target
    without a valid frame (or unreachable) gets the history's last frame, where the task
    starts: the task cannot be solved through frames; unordered targets then keep the
    order given."""
    walker = walker or Walker(graph.nav)
    lists = task.valid_frames or [[-1]]
    last = len(experience.frames) - 1
    here = (task.start.x, task.start.y) if task.start is not None else \
        (graph.scene.agent.position[0], graph.scene.agent.position[1])
    start = walker.node(here)
    targets = [_frame_nodes(walker, experience,
                            [f for f in fs if 0 <= f < len(experience.frames)]) for fs in lists]
    if start < 0 or not all(targets):
        return [min(t.values()) if t else last for t in targets]
    stops = walker.route(start, targets, task.goal.kind == "targets" and task.goal.ordered)
    if stops is None:
        return [last] * len(targets)
    return [targets[j][n] for j, n in stops]


def oracle_run(task: TaskRecord, graph: SceneGraph, experience: Experience,
               frames: Sequence[int]) -> list[Snapshot]:
    """The embedded world's walk from the task's start to each frame's pose, with a stop
    at each, in the world the experience left behind (objects where the robot put them).

    The embedded world starts in the scene's initial state, so the walk to the task's
    start is made first and cut off: the snapshots kept begin at the start, their
    objects are those after the experience, and steps, clock and path length count
    from there."""
    from fdc.compiler.start import start_snapshots

    _, after = start_snapshots(graph, experience)
    world = EmbeddedWorld(graph, clock=LONG_DAY)
    start = task.start or (after.agent if after is not None else None)
    if start is not None:
        res = world.navigate(start)
        if not res.ok:
            raise Unsolvable(f"the task's start cannot be reached: {res.reason}")
    base = world.snapshot()
    first = len(world.snapshots) - 1
    for f in frames:
        res = world.navigate(experience.frames[f].agent)
        if not res.ok:
            raise Unsolvable(f"frame {f}'s pose cannot be reached: {res.reason}")
        world.stop()
    snaps = list(world.snapshots[first:])
    objects = after.objects if after is not None else base.objects
    opened = after.open if after is not None else base.open
    t0 = after.time_min if after is not None else base.time_min
    minutes = world.clock.minutes_per_step
    out = []
    for k, s in enumerate(snaps):
        step = s.step - base.step
        out.append(s.model_copy(update={
            "step": step, "time_min": t0 + step * minutes, "objects": objects,
            "open": opened, "held": None, "path_length_m": s.path_length_m - base.path_length_m,
            "action": None if k == 0 else s.action}))
    return out
