"""The path an agent took on a task, as the map draws it: `{from, points}`, the points a
flat `[x, y, x, y, ...]` list in metres (centimetres), in the order walked.

What a prediction says decides where the points come from (`from`):
- `trajectory`: the run's trajectory file (memory tasks, low level): the robot's base
  at every snapshot, as recorded (a whole walk recorded as one snapshot, `navigate
  <target>`, along the scene's route search between its ends);
- `frames`: the frames chosen (memory tasks, high level): from the task's start to the
  robot's pose at each frame in the order given, along the scene's route search (the
  walk HL-SPL measures);
- `actions`: the action trace (manipulation tasks), which holds no positions: from the
  start to each `go_to` target in turn (a surface or a floor item, reached at its
  nearest standing point, where it stands in the state the task starts in: for a
  memory-manipulation task, where the experience left it), along the scene's route
  search; the embedded world walks these routes too, but a refused action is not told
  apart here.
A path that cannot be drawn (no scene, a trajectory that does not read) is left out.
See docs/browse.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from fdc.core.errors import FdcError

from .scenes import _r

if TYPE_CHECKING:
    from fdc.agents.predictions import Prediction
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

Point = tuple[float, float]


def _flat(points: Sequence[Point]) -> list[float]:
    out: list[float] = []
    for x, y in points:
        xy = [_r(x), _r(y)]
        if out[-2:] != xy:  # a step in place draws nothing
            out += xy
    return out


#: Routes found, by the world searched (the ids of its scene graph and of the state it is
#: in, 0 for the scene's initial state), start point and stop: the agents of a suite
#: start at few places and walk to the same surfaces, and a route search takes 0.1 s.
Routes = dict[tuple[tuple[int, int], Point, Point | str], list[Point] | None]


class _Router(Protocol):
    def shortest_path(self, a: str | Point, b: str | Point) -> list[Point] | None: ...


@dataclass(frozen=True)
class _World:
    """Where routes are searched: the scene graph, or the graph in the state a task starts
    in (entities where they stand then); `key` tells worlds apart in `Routes`."""

    router: _Router
    key: tuple[int, int]


def _world(opened: ReopenedSuite, record: TaskRecord, g: SceneGraph) -> _World:
    """The world the record's task starts in (`ReopenedSuite.start_state`)."""
    if record.experience is None:
        return _World(g, (id(g), 0))
    from fdc.sim_bridge.world.snapshot import SnapshotState

    start = opened.start_state(record)  # kept by `opened`: its id stays its own
    return _World(SnapshotState(g, start), (id(g), id(start)))


def _leg(w: _World, here: Point, stop: Point | str, routes: Routes) -> list[Point] | None:
    key = (w.key, here, stop)
    if key not in routes:
        routes[key] = w.router.shortest_path(here, stop)
    return routes[key]


def _walk(w: _World, stops: Sequence[Point | str], routes: Routes) -> list[Point]:
    """The route through `stops` (points or entity ids) in order; a leg the route
    search cannot find is left out (the next leg starts where the last one ended)."""
    route: list[Point] = []
    here: Point | None = None
    for stop in stops:
        if here is None:
            if isinstance(stop, str):
                continue  # the first stop is the start, a point
            here = stop
            route.append(stop)
            continue
        leg = _leg(w, here, stop, routes)
        if leg:
            route += leg[1:] if route and leg[0] == route[-1] else leg
            here = leg[-1]
    return route


def _start(record: TaskRecord, g: SceneGraph) -> Point:
    if record.start is not None:
        return (record.start.x, record.start.y)
    a = g.scene.agent
    return (float(a.position[0]), float(a.position[1]))


def _from_trajectory(g: SceneGraph, file: Path, routes: Routes) -> list[Point]:
    """The robot's base at every snapshot; a whole walk recorded as one step
    (`navigate <target>`) along the route search between its ends."""
    from fdc.sim_bridge.world.trajectory import TrajectoryError, read_trajectory

    try:
        _, snapshots = read_trajectory(file)
    except TrajectoryError:
        return []
    world = _World(g, (id(g), 0))  # points only: where entities stand does not matter
    route: list[Point] = []
    for s in snapshots:
        here = (s.agent.x, s.agent.y)
        walked = route and (s.action or "").startswith("navigate")
        leg = _leg(world, route[-1], here, routes) if walked else None
        route += leg[1:] if leg else [here]
    return route


def agent_path(opened: ReopenedSuite, record: TaskRecord, prediction: Prediction,
               root: Path, routes: Routes | None = None) -> dict[str, Any] | None:
    """The path of `prediction` on `record` (see the module), or None; `root` is the
    folder trajectory files are named from (the predictions file's), `routes` the
    routes found so far (shared between calls on one suite)."""
    routes = {} if routes is None else routes

    try:
        g = opened.graph(record)
        if prediction.trajectory is not None:
            route = _from_trajectory(g, root / prediction.trajectory, routes)
            kind = "trajectory"
        elif prediction.frames:
            frames = opened.experience(record).frames
            poses: list[Point | str] = [(frames[f].agent.x, frames[f].agent.y)
                                        for f in prediction.frames if 0 <= f < len(frames)]
            route = _walk(_world(opened, record, g), [_start(record, g), *poses], routes)
            kind = "frames"
        elif prediction.actions:
            targets: list[Point | str] = [a.target for a in prediction.actions
                                          if a.action == "go_to" and a.target
                                          and g.has(a.target)]
            route = _walk(_world(opened, record, g), [_start(record, g), *targets], routes)
            kind = "actions"
        else:
            return None
    except FdcError:
        return None
    return {"from": kind, "points": _flat(route)} if len(route) > 1 else None
