"""Plans, and a plan acted out in the embedded world: what each of fdc-home's actions does.

A plan is a list of `PlanStep`s (an fdc-home action, its arguments, and the pose a
placement put its item at, if known) everywhere inside fdc; its text, one action a line
(`pick mug_0 kitchen_counter|top`), is only for reports and people: `format_step`,
`format_plan` write it, `parse_step`, `parse_plan` read it, nothing else splits it.
`fdc validate --solve` certifies a task with a plan in the planning abstraction
(`compiler/planning/`: fdc-home's actions). `replay_plan` performs each action in an
`EmbeddedWorld` started in the scene's initial state (or where the plan starts: for a
memory-manipulation task, the world the experience left behind), as its meaning in
fdc-home says:

- `navigate-to-receptacle ?to ?f ?r`, `navigate-to-item ?to ?i ?r`,
  `navigate-to-item-outside ?to ?i` (an item outside every room): walk to the surface
  `?to`; `navigate-to-object ?o ?r`: walk to the item `?o`;
- `pick ?o ?s`: pick `?o`; `pick-from-floor ?o ?r`, `pick-from-floor-outside ?o`: walk
  to `?o` and pick it;
- `place ?o ?s ...`, `place-on-item ?o ?t ?i`: put the held item anywhere on the
  surface `?s` (or the item top `?t`) (`on`); `place-in-cell ?o ?s ?c
  ...`: in cell `?c` of `?s`; `place-around ?o ?a ...`: next to `?a`; `place-at-side ?o ?a
  ?d ?s ...`: on side `?d` of `?a` in the words of the robot where it stands (as the
  `at-side` checker judges it); `place-between ?o ?a ?b ...`: between `?a` and `?b`;
  `place-inside ?o ?c ...`: inside the container `?c`; bddl-home's `place-in-item ?o ?t
  ?i`: inside the item `?i` (on its floor `?t`); bddl-home's `place-next-to ?o ?x ?s ?r`:
  on the surface `?s` of the furniture `?x`, and `place-next-to-item ?o ?a ?s ...`:
  beside `?a` (`around`: the free spot nearest it); bddl-home's `place-on-floor ?o ?r`:
  on the floor of the room `?r` by the robot, and `place-on-floor-next-to ?o ?a ?r`:
  beside the item `?a` on that floor (`EmbeddedWorld.place_on_floor`);
- bddl-home's state changes (`transitions.PLAN_ACTIONS`: `cook`, `fill`, `wipe` ...):
  the world's `change` by the rule each names;
- `open ?f ?s`, `close ?f ?s`: open or close every container of `?f`.

A placement may give the pose where the item went when the plan was found
(`PlanStep.pose`), written as its line's comment: `place-around laptop_2 mug_1
tv_stand_1|top tv_stand_1 living_room ; at tv_stand_1|top 1.2 0.45 1.5707963267948966
from front` (`At`: the surface, the centre x and y in metres, the heading in radians,
every digit, and, optionally, the side of the surface the robot stood at). The
oracle's plans (`fdc.agents.oracle.oracle_plan`) give one for each placement: the
replay walks to that side of the surface first (`at-side` is judged in the words of the
robot where it stands: the same spot is "left" from the front and "right" from the
rear), then puts the item there, when the world has room there
(`EmbeddedWorld.place_at`), else as the action alone says. A planner's plans give none.

An action that puts an item down "anywhere" has many spots in the world (`spots`: a
plain `place` anywhere on the surface or in any of its cells, a `place-around` at any
side of the anchor or in a cell next to it): the replay uses the world's first choice,
and, where the world then refuses a later placement for lack of room, searches the
spots of the placements that filled that surface (`_choose`, at most `replay_spots`
combinations), so that the plan is acted out as its actions allow.

The replay stops at the first action the world refuses (`PlanReplay.refused`, with the
world's reason), then the robot stops (`stop`, where the goal is judged) and the
trajectory is the world's snapshots: the caller judges the goal on them with the
checkers (`fdc.predicates.verify`). Nothing here reads the checkers: the plan, the
world and the judgement are three models, and an audit compares them. The planner's
certificate (`compiler/planning/certify.py`) acts its plans out here too, and `placed_on` tells
it which item and surface a refused placement was about, `lack_of_room` whether the
world refused it for lack of room (else the abstraction allowed what the world does
not), `moved` which item a step moves. A walk goes to the nearest standing point in the
room the line names (`_walk`), where the abstraction puts the robot.
See docs/world.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.core.limits import current
from fdc.sim_bridge.graph.navigation import path_length
from fdc.sim_bridge.graph.placement import Relation, place
from fdc.sim_bridge.graph.regions import RING, STEP, Direction, Side
from fdc.sim_bridge.world.embedded import LONG_DAY, ActionResult, EmbeddedWorld, side_of
from fdc.sim_bridge.world.transitions import PLAN_ACTIONS

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import StandingPoint
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot, TrajectoryHeader

#: fdc-home's actions and their arity (the parameters a plan's line names).
ARITY: dict[str, int] = {
    "navigate-to-receptacle": 3, "navigate-to-item": 3, "navigate-to-item-outside": 2,
    "navigate-to-object": 2, "pick": 2, "pick-from-floor": 2,
    "pick-from-floor-outside": 1, "place": 4, "place-on-item": 3, "place-in-cell": 5,
    "place-around": 5, "place-at-side": 6, "place-between": 6, "place-inside": 5, "open": 2,
    "close": 2,
    "place-in-item": 3, "navigate-to-item-inside": 3,  # bddl-home's: an item's inside
    "place-next-to": 4, "place-next-to-item": 5,  # bddl-home's: `next-to`
    "place-on-floor": 2, "place-on-floor-next-to": 3,  # bddl-home's: `on-floor`
    # bddl-home's state changes (`transitions.PLAN_ACTIONS`)
    **{name: arity for name, (_r, _o, _x, arity) in PLAN_ACTIONS.items()},
}

#: What starts a plan line's comment (PDDL's: a plan file's comment). The oracle's plans
#: give each placement's pose there (`At`).
COMMENT = ";"

#: The placements that put an item on a surface: the parameter (from 0) naming it.
SURFACE_ARG: dict[str, int] = {
    "place": 1, "place-in-cell": 1, "place-around": 2, "place-at-side": 3,
    "place-between": 3, "place-next-to": 2, "place-next-to-item": 2,
}
#: The placements that put an item on another item's top or inside (a plate on a plate,
#: butter in a pan): the parameter naming that item's surface. Like `SURFACE_ARG`'s, the
#: world refuses them for lack of room when what stands there leaves none.
ITEM_SURFACE_ARG: dict[str, int] = {"place-on-item": 1, "place-in-item": 1}

#: A surface's cells but the centre (the plain spot nearest it comes first), the corners
#: first: out of the way of what goes there next.
CELLS: tuple[Direction, ...] = tuple(sorted((d for d in STEP if d is not Direction.CENTER),
                                            key=lambda d: -sum(map(abs, STEP[d]))))


@dataclass(frozen=True)
class PlanReplay:
    """A plan acted out: the world's snapshots (the last one the final `stop`), the header
    of their trajectory file and, when the world refused an action, which one (from 1)
    and why."""

    header: TrajectoryHeader
    snapshots: tuple[Snapshot, ...]
    refused: int | None = None
    reason: str = ""
    step: PlanStep | None = None  # the refused action


@dataclass(frozen=True)
class At:
    """Where a placement of a plan put the item when it was found (the oracle's plans:
    module doc): its surface, its centre and its heading."""

    surface: str
    x: float
    y: float
    yaw_rad: float
    side: Side | None = None  # the side of the surface the robot stood at

    def __str__(self) -> str:
        # every digit: the checkers judge some spots at a region's very edge (a packed
        # placement touches it), and a rounded pose may fall outside
        side = "" if self.side is None else f" from {self.side.value}"
        return f"at {self.surface} {self.x!r} {self.y!r} {self.yaw_rad!r}{side}"


@dataclass(frozen=True)
class PlanStep:
    """One action of a plan: fdc-home's action, its arguments and, for a placement of
    the oracle's plans, where it put the item (`At`). Plans are lists of steps inside
    fdc; their text (`format_step`, `parse_step`) is for reports and people."""

    action: str
    args: tuple[str, ...] = ()
    pose: At | None = None

    def __str__(self) -> str:
        return format_step(self)


def format_step(step: PlanStep) -> str:
    """A step as a plan's line: `action arg ...`, then `; at ...` when it has a pose."""
    words = " ".join((step.action, *step.args))
    return words if step.pose is None else f"{words} {COMMENT} {step.pose}"


def format_plan(plan: Sequence[PlanStep]) -> list[str]:
    """A plan as its lines, one action a line."""
    return [format_step(s) for s in plan]


def parse_step(line: str) -> PlanStep:
    """A plan's line as a step (the pose from its comment: `; at SURFACE X Y YAW [from
    SIDE]`); ValueError, saying why, when the line names no action or its comment is
    not a pose. The action and its arity are not checked here: the replay refuses an
    action fdc-home lacks."""
    words, mark, comment = line.partition(COMMENT)
    name, *args = words.split() or [""]
    if not name:
        raise ValueError(f"`{line}` names no action")
    return PlanStep(name, tuple(args), _pose(line, comment) if mark else None)


def parse_plan(lines: Sequence[str]) -> list[PlanStep]:
    """A plan's lines as steps (`parse_step`)."""
    return [parse_step(line) for line in lines]


def _pose(line: str, comment: str) -> At:
    """The pose a plan line's comment gives; ValueError when it is not one."""
    words = comment.split()
    try:
        if len(words) not in (5, 7) or words[0] != "at" or \
                (len(words) == 7 and words[5] != "from"):
            raise ValueError
        x, y, yaw = (float(w) for w in words[2:5])
        side = Side(words[6]) if len(words) == 7 else None
    except ValueError:
        raise ValueError(f"the comment of `{line}` is not a pose: `; at SURFACE X Y YAW` "
                         "(metres, radians), then optionally `from SIDE` (front, rear, "
                         "left, right)") from None
    return At(words[1], x, y, yaw, side)


def placed_on(step: PlanStep) -> tuple[str, str] | None:
    """The item and the surface of a step that puts an item on a surface."""
    k = SURFACE_ARG.get(step.action, ITEM_SURFACE_ARG.get(step.action))
    if k is None or len(step.args) != ARITY[step.action]:
        return None
    return step.args[0], step.args[k]


#: What the world's placement queries say when there is no room (`sim_bridge/graph/
#: placement.py`): no free spot on the surface, next to or between the anchors, a pose
#: taken. Not a closed container, too little height above the surface, or reach.
NO_ROOM = ("no collision-free spot", "the target region is empty", "no free ", "touch")


def lack_of_room(reason: str) -> bool:
    """Whether the world refused a placement for lack of room (free space, which the
    planning abstraction does not model), by its reason."""
    return any(w in reason for w in NO_ROOM)


def moved(step: PlanStep) -> str | None:
    """The item a step picks or puts down (None: it moves no item)."""
    if ARITY.get(step.action) != len(step.args) or \
            not step.action.startswith(("pick", "place")):
        return None
    return step.args[0]


def replay_plan(plan: Sequence[PlanStep], graph: SceneGraph, start: Snapshot | None = None,
                reached: Callable[[Snapshot], bool] | None = None) -> PlanReplay:
    """Act out a plan's steps in the embedded world (module doc), from `start` (None: the
    scene's initial state), each placement as the world's spot that `_choose` found
    leaves room for the plan's later placements (and, given `reached`, the goal judged
    on the world at the end, makes it hold there)."""
    choices = _choose(plan, graph, start, reached)
    world = EmbeddedWorld(graph, clock=LONG_DAY, start=start)
    for k, step in enumerate(plan, 1):
        res = _act(world, step, choices[k - 1])
        if not res.ok:
            world.stop()
            return PlanReplay(world.header(), tuple(world.snapshots), k,
                              f"`{step}`: {res.reason}", step)
    world.stop()
    return PlanReplay(world.header(), tuple(world.snapshots))


def spots(step: PlanStep) -> int:
    """How many of the world's placements act out a step (1: one way only): `place`
    anywhere on the surface (the free spot nearest its centre), or in each of its cells,
    the corners first; `place-around` next to the anchor (the free spot nearest it), at
    each of its sides, or in each cell of the surface where that is next to it (farther
    out than the world's `around` looks). Every one of them makes true what the line's
    action does."""
    return 1 + {"place": len(CELLS), "place-around": len(RING) + len(CELLS)}.get(step.action, 0)


def _choose(plan: Sequence[PlanStep], graph: SceneGraph, start: Snapshot | None,
            reached: Callable[[Snapshot], bool] | None = None) -> list[int]:
    """For each line, which of its world placements (`spots`) the replay uses: the first
    each time, until the world refuses a placement (for lack of room); then the next
    combination of the spots of the lines that put the surface's occupants there and of
    the refused line (the last line's first, as an odometer turns), acted out again from
    the first line changed. When every line is acted out but the goal does not hold at
    the end (`reached`: an item put next to an anchor behind another, which the
    abstraction does not see), the next combination of the spots of every line that
    has several. At most `replay_spots` combinations in all; when none is left, the
    first spot of each line (the world's first refusal is reported: what the
    certificate forbids then is what its occupants' first spots left no room for)."""
    choices = [0] * len(plan)
    before: list[Snapshot] = []  # the world before each line acted out
    world, first = EmbeddedWorld(graph, clock=LONG_DAY, start=start), 0
    for _ in range(current().replay_spots + 1):
        refused = None
        for k in range(first, len(plan)):
            before[k:] = [world.snapshot()]
            if not _act(world, plan[k], choices[k]).ok:
                refused = k
                break
        if refused is None:
            if reached is None or reached(world.snapshot()):
                return choices
            lines = [k for k in range(len(plan)) if spots(plan[k]) > 1]
        else:
            spot = placed_on(plan[refused])
            if spot is None:
                break
            # another spot of the refused line, or of those lines, may leave room
            lines = [k for k in [*_occupants(plan[:refused], spot[1]), refused]
                     if spots(plan[k]) > 1]
        for k in reversed(lines):  # the odometer
            choices[k] = (choices[k] + 1) % spots(plan[k])
            if choices[k]:
                break
        else:
            break  # every combination tried
        first = k
        world = EmbeddedWorld(graph, clock=LONG_DAY, start=before[k])
    return [0] * len(plan)


def _occupants(before: Sequence[PlanStep], surface: str) -> list[int]:
    """The steps of `before` that put down what stands on `surface` after them: the last
    step to move each item, when it put the item there."""
    last: dict[str, int] = {}
    for k, step in enumerate(before):
        x = moved(step)
        if x is not None:
            last[x] = k
    return sorted(k for k in last.values() if (placed_on(before[k]) or ("", ""))[1] == surface)


def _act(world: EmbeddedWorld, step: PlanStep, spot: int) -> ActionResult:
    """One step as the world's action, its `spot`-th placement (`spots`), the first at
    the pose the step gives when the world has room there (a refusal when it is not an
    fdc-home action)."""
    name, args, at = step.action, step.args, step.pose
    want = ARITY.get(name)
    if want is None or len(args) != want:
        what = "not an fdc-home action" if want is None else f"{name} takes {want} arguments"
        return ActionResult(False, what, str(step))
    on = placed_on(step)
    if at is not None and on is not None and on[1] != at.surface:
        return ActionResult(False, f"its pose is on `{at.surface}`, not on `{on[1]}`",
                            str(step))
    if at is not None and at.side is not None and name.startswith("place"):
        walked = _stand_at(world, at.surface, at.side)
        if not walked.ok:
            return walked
    if at is not None and spot == 0 and name.startswith("place"):
        res = world.place_at(at.surface, at.x, at.y, at.yaw_rad)
        if res.ok:
            return res
    if name == "navigate-to-item-outside":
        return _walk(world, args[0], None)
    if name.startswith("navigate-to"):
        return _walk(world, args[0], args[-1])
    if name == "pick":
        return world.pick(args[0])
    if name in ("pick-from-floor", "pick-from-floor-outside"):
        walked = _walk(world, args[0], args[1] if len(args) > 1 else None)
        return world.pick(args[0]) if walked.ok else walked
    if name == "place" and spot:
        return world.place(args[1], Relation.IN_CELL, cell=CELLS[spot - 1])
    if name in ("place", "place-on-item"):
        return world.place(args[1], Relation.ON)
    if name == "place-next-to":  # on a surface of the piece of furniture
        return world.place(args[2], Relation.ON)
    if name == "place-next-to-item":  # beside the item: the free spot nearest it
        return world.place(args[1], Relation.AROUND)
    if name == "place-on-floor":  # by the robot, in the room it stands in
        return world.place_on_floor(args[1])
    if name == "place-on-floor-next-to":  # beside the item on the floor
        return world.place_on_floor(args[2], near=args[1])
    if name == "place-in-cell":
        return world.place(args[1], Relation.IN_CELL, cell=args[2])
    if name == "place-around":
        if spot > len(RING):
            return _around_in_cell(world, args[1], args[2], CELLS[spot - len(RING) - 1])
        if spot:
            return world.place(args[1], Relation.DIRECTION, direction=RING[spot - 1])
        return world.place(args[1], Relation.AROUND)
    if name == "place-at-side":
        seen_from = side_of(world.state.posed.surface(args[3]), world.agent_pose())
        return world.place(args[1], Relation.DIRECTION, direction=args[2],
                           viewer_side=seen_from)
    if name == "place-between":
        return world.place(args[1], Relation.BETWEEN, second=args[2])
    if name == "place-inside":
        return world.place(args[1], Relation.INSIDE)
    if name == "place-in-item":
        return world.place(args[2], Relation.INSIDE)
    if name in PLAN_ACTIONS:
        rule, obj, other, _arity = PLAN_ACTIONS[name]
        return world.change(rule, args[obj], None if other is None else args[other])
    return world.open(args[0]) if name == "open" else world.close(args[0])


def _walk(world: EmbeddedWorld, target: str, room: str | None) -> ActionResult:
    """Walk to `target` (a surface or an item) as a plan's line says: in `room`. The
    standing point the world would take is the nearest one, which may be across a wall
    in another room (the rear of a shelf against the kitchen wall is in the living
    room), where the robot is not where the abstraction puts it (`robot-in-room`, and
    a held item's `in-room`): the nearest standing point in that room, when the target
    has one there, else (or `room` None: outside every room) the world's own choice."""
    g, posed = world.graph, world.state.posed
    pts, _ = posed.standing_points_for(target)
    there = [p for p in pts if p.reachable and (r := g.room_of(p.position)) is not None
             and r.id == room]
    if not there or len(there) == len(pts):
        return world.navigate(target)
    here = (world.agent_pose().x, world.agent_pose().y)

    def length(p: StandingPoint) -> float:
        path = g.shortest_path(here, p.id)
        return math.inf if path is None else path_length(path)

    return world.navigate(min(there, key=lambda p: (length(p), p.id)).id)


def _stand_at(world: EmbeddedWorld, surface: str, side: Side) -> ActionResult:
    """The robot walked to `side` of `surface` (the standing point of that side nearest
    it), unless it stands at that side already."""
    posed, here = world.state.posed, world.agent_pose()
    if side_of(posed.surface(surface), here) is side:
        return ActionResult(True, "", f"stand at the {side.value} of {surface}")
    pts, _ = posed.standing_points_for(surface)
    there = [p for p in pts if p.reachable and p.side is side]
    if not there:
        return ActionResult(False, f"`{surface}` has no reachable standing point at its "
                            f"{side.value} side", f"stand at the {side.value} of {surface}")
    nearest = min(there, key=lambda p: (math.hypot(p.position[0] - here.x,
                                                   p.position[1] - here.y), p.id))
    return world.navigate(nearest.id)


def _around_in_cell(world: EmbeddedWorld, anchor: str, surface: str, cell: Direction
                    ) -> ActionResult:
    """The held item put down in a cell of the anchor's surface where it is next to the
    anchor: its centre in one of the anchor's regions (cut back at its neighbours),
    what the world's `around` placement looks for nearer the anchor only."""
    import shapely

    posed, item = world.state.posed, world.held_object()
    if item is None:  # the world says why
        return world.place(surface, Relation.IN_CELL, cell=cell)
    found = place(posed, Relation.IN_CELL, (item, surface, cell), world.graph.config.placement)
    if found.ok and found.pose is not None:
        x, y = found.pose.position[:2]
        regions = posed.anchor_regions(surface, anchor, exclude=item)
        if not any(shapely.contains_xy(r.polygon, x, y) for r in regions):
            return ActionResult(False, f"the {cell.value} cell of `{surface}` is not next "
                                f"to `{anchor}`", f"place {item} around {anchor}")
    return world.place(surface, Relation.IN_CELL, cell=cell)
