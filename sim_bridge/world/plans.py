"""A planner's plan acted out in the embedded world: what each of fdc-home's actions does.

`fdc validate --solve` certifies a task with a plan in the planning abstraction
(`compiler/planning.py`: fdc-home's actions, one action a line, `pick mug_0
kitchen_counter|top`). `replay_plan` performs each action in an `EmbeddedWorld` started
in the scene's initial state (or where the plan starts: for a memory-manipulation task,
the world the experience left behind), as its meaning in fdc-home says:

- `navigate-to-receptacle ?to ?f ?r`, `navigate-to-item ?to`: walk to the surface `?to`;
  `navigate-to-object ?o ?r`: walk to the item `?o`;
- `pick ?o ?s`: pick `?o`; `pick-from-floor ?o`: walk to `?o` and pick it;
- `place ?o ?s ...`, `place-on-item ?o ?t ?i`: put the held item anywhere on the
  surface `?s` (or the item top `?t`) (`on`); `place-in-cell ?o ?s ?c
  ...`: in cell `?c` of `?s`; `place-around ?o ?a ...`: next to `?a`; `place-at-side ?o ?a
  ?d ?s ...`: on side `?d` of `?a` in the words of the robot where it stands (as the
  `at-side` checker judges it); `place-between ?o ?a ?b ...`: between `?a` and `?b`;
  `place-inside ?o ?c ...`: inside the container `?c`;
- `open ?f ?s`, `close ?f ?s`: open or close every container of `?f`.

The replay stops at the first action the world refuses (`PlanReplay.refused`, with the
world's reason), then the robot stops (`stop`, where the goal is judged) and the
trajectory is the world's snapshots: the caller judges the goal on them with the
checkers (`fdc.predicates.verify`). Nothing here reads the checkers: the plan, the
world and the judgement are three models, and an audit compares them. The planner's
certificate (`compiler/planning.py`) acts its plans out here too, and `placed_on` tells
it which item and surface a refused placement was about, `moved` which item a line
moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.sim_bridge.graph.placement import Relation
from fdc.sim_bridge.world.embedded import LONG_DAY, ActionResult, EmbeddedWorld, side_of

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot, TrajectoryHeader

#: fdc-home's actions and their arity (the parameters a plan's line names).
ARITY: dict[str, int] = {
    "navigate-to-receptacle": 3, "navigate-to-item": 1, "navigate-to-object": 2,
    "pick": 2, "pick-from-floor": 1, "place": 4, "place-on-item": 3, "place-in-cell": 5,
    "place-around": 5, "place-at-side": 6, "place-between": 6, "place-inside": 5, "open": 2,
    "close": 2,
}

#: The placements that put an item on a surface: the parameter (from 0) naming it.
SURFACE_ARG: dict[str, int] = {
    "place": 1, "place-in-cell": 1, "place-around": 2, "place-at-side": 3,
    "place-between": 3,
}


@dataclass(frozen=True)
class PlanReplay:
    """A plan acted out: the world's snapshots (the last one the final `stop`), the header
    of their trajectory file and, when the world refused an action, which one (from 1)
    and why."""

    header: TrajectoryHeader
    snapshots: tuple[Snapshot, ...]
    refused: int | None = None
    reason: str = ""
    line: str = ""  # the refused action


def placed_on(line: str) -> tuple[str, str] | None:
    """The item and the surface of a plan line that puts an item on a surface."""
    name, *args = line.split()
    k = SURFACE_ARG.get(name)
    if k is None or len(args) != ARITY[name]:
        return None
    return args[0], args[k]


def moved(line: str) -> str | None:
    """The item a plan line picks or puts down (None: it moves no item)."""
    name, *args = line.split()
    if ARITY.get(name) != len(args) or not name.startswith(("pick", "place")):
        return None
    return args[0]


def replay_plan(plan: Sequence[str], graph: SceneGraph, start: Snapshot | None = None
                ) -> PlanReplay:
    """Act out a plan's lines in the embedded world (module doc), from `start` (None: the
    scene's initial state)."""
    world = EmbeddedWorld(graph, clock=LONG_DAY, start=start)
    for k, line in enumerate(plan, 1):
        res = _act(world, line)
        if not res.ok:
            world.stop()
            return PlanReplay(world.header(), tuple(world.snapshots), k,
                              f"`{line}`: {res.reason}", line)
    world.stop()
    return PlanReplay(world.header(), tuple(world.snapshots))


def _act(world: EmbeddedWorld, line: str) -> ActionResult:
    """One plan line as the world's action (a refusal when it is not an fdc-home action)."""
    name, *args = line.split()
    want = ARITY.get(name)
    if want is None or len(args) != want:
        what = "not an fdc-home action" if want is None else f"{name} takes {want} arguments"
        return ActionResult(False, what, line)
    if name.startswith("navigate-to"):
        return world.navigate(args[0])
    if name == "pick":
        return world.pick(args[0])
    if name == "pick-from-floor":
        walked = world.navigate(args[0])
        return world.pick(args[0]) if walked.ok else walked
    if name in ("place", "place-on-item"):
        return world.place(args[1], Relation.ON)
    if name == "place-in-cell":
        return world.place(args[1], Relation.IN_CELL, cell=args[2])
    if name == "place-around":
        return world.place(args[1], Relation.AROUND)
    if name == "place-at-side":
        seen_from = side_of(world.state.posed.surface(args[3]), world.agent_pose())
        return world.place(args[1], Relation.DIRECTION, direction=args[2],
                           viewer_side=seen_from)
    if name == "place-between":
        return world.place(args[1], Relation.BETWEEN, second=args[2])
    if name == "place-inside":
        return world.place(args[1], Relation.INSIDE)
    return world.open(args[0]) if name == "open" else world.close(args[0])
