"""History facts: what the robot did in its experience log, and arg-extreme helpers.

History predicates are folded at compile time from `ctx.experience`
(`fdc.sim_bridge.world.experience`). Numeric functions return None when undefined (an object
never interacted with has no interaction order). The arg-extreme helpers (farthest,
closest, longest, shortest) report every candidate tied with the best (within a
tolerance) instead of picking one: an instruction naming "the farthest" object is only
unambiguous when `Extreme.unique` is set.

Two value types take their entities from the log, not the scene: `clock-time`
(`clock_time_values`) and `minutes` (`minutes_values`); their checkers read the same
decimal text, rounded as the instruction filters (`clock`, `duration`) write it.
See docs/predicates.md.
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fdc.predicates.registry import (
    Context,
    EvaluationError,
    Movable,
    PddlType,
    Room,
    Surface,
    declare_thresholds,
    history,
)
from fdc.sim_bridge.world import experience as xp
from fdc.sim_bridge.world.state import AgentPose

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import Point

ClockTime = Annotated[str, PddlType("clock-time")]
Minutes = Annotated[str, PddlType("minutes")]
MovableOrSurface = Annotated[str, PddlType("movable", "surface")]


@history
def interacted(ctx: Context, o: Movable) -> bool:
    """The robot picked the item up at least once."""
    return bool(xp.interactions_of(ctx.require_experience(), o))


@history
def picked_from(ctx: Context, o: Movable, s: Surface) -> bool:
    """The robot picked the item from this surface (any of its interactions)."""
    return any(i.picked_from == s for i in xp.interactions_of(ctx.require_experience(), o))


@history
def placed_on(ctx: Context, o: Movable, s: Surface) -> bool:
    """The robot put the item down on this surface (any of its interactions)."""
    return any(i.placed_on == s for i in xp.interactions_of(ctx.require_experience(), o))


@history
def next_interaction(ctx: Context, a: Movable, b: Movable) -> bool:
    """Right after an interaction with `a`, the robot's next interaction was with `b`."""
    seq = xp.interaction_sequence(ctx.require_experience())
    return any(x == a and y == b for x, y in itertools.pairwise(seq))


@history
def visited(ctx: Context, r: Room) -> bool:
    """The robot was in the room in some frame."""
    return r in xp.visited_rooms(ctx.require_experience())


@history
def initial_room(ctx: Context, r: Room) -> bool:
    """The room of the log's first frame (the first frame with a room)."""
    return xp.initial_room(ctx.require_experience()) == r


@history
def final_room(ctx: Context, r: Room) -> bool:
    """The room of the log's last frame (the last frame with a room)."""
    return xp.final_room(ctx.require_experience()) == r


@history
def seen(ctx: Context, o: Movable) -> bool:
    """The item was in view in some frame of the log."""
    return any(o in f.visible_objects for f in ctx.require_experience().frames)


@history
def interacting_at(ctx: Context, o: Movable, t: ClockTime) -> bool:
    """The robot was interacting with the item (between a pick and its place) during
    clock minute `t`: at some moment that a clock rounding to the minute shows as `t`."""
    m = clock_minutes(t)
    return any(i.start_min < m + 0.5 and (i.end_min is None or i.end_min >= m - 0.5)
               for i in xp.interactions_of(ctx.require_experience(), o))


@history
def started_in_room(ctx: Context, o: Movable, r: Room) -> bool:
    """The item was in the room before the log (where the scene puts it)."""
    return _room_id(ctx, o) == r


@history
def ended_in_room(ctx: Context, o: Movable, r: Room) -> bool:
    """The item is in the room at the end of the log: where it was last put down (or
    with the robot, when still held); an item never moved, where the scene puts it."""
    return final_room_of(ctx, o) == r


@history
def took_minutes(ctx: Context, o: Movable, d: Minutes) -> bool:
    """The item's interaction time (pick to place, summed), rounded to whole minutes as
    the `duration` filter writes it, is `d` (at least 1)."""
    whole = whole_minutes(xp.interaction_duration(ctx.require_experience(), o))
    return whole is not None and whole >= 1 and whole == _int_value(d, "minutes")


@history
def interaction_order(ctx: Context, o: Movable) -> float | None:
    """1 for the first object picked, 2 for the next new one, ...; None: never picked."""
    v = xp.interaction_order(ctx.require_experience()).get(o)
    return None if v is None else float(v)


@history
def interaction_start(ctx: Context, o: Movable) -> float | None:
    """Clock minutes when the first pick of the item began."""
    return xp.interaction_start(ctx.require_experience(), o)


@history
def interaction_end(ctx: Context, o: Movable) -> float | None:
    """Clock minutes when the last place of the item ended (None: still held)."""
    return xp.interaction_end(ctx.require_experience(), o)


@history
def interaction_duration(ctx: Context, o: Movable) -> float | None:
    """Minutes from pick to place, summed over the item's interactions."""
    return xp.interaction_duration(ctx.require_experience(), o)


def start_pose(ctx: Context) -> AgentPose:
    """Where a memory task starts: the robot's pose at the end of the log (the scene's
    agent when the log has no frame)."""
    pose = xp.final_agent_pose(ctx.require_experience())
    if pose is not None:
        return pose
    a = ctx.graph.scene.agent
    return AgentPose(x=a.position[0], y=a.position[1], z=a.position[2], yaw_rad=a.yaw_rad)


def position_after(ctx: Context, ident: str) -> Point | str:
    """Where an entity is at the end of the log: a moved item where it was put (when the
    log recorded it), else the entity itself (its scene position; surfaces and rooms are
    reached at their nearest standing point or free cell)."""
    log = ctx.require_experience()
    moved = xp.final_positions(log).get(ident)
    if moved is not None:
        return (moved[0], moved[1])
    g = ctx.graph
    if g.has(ident):
        e = g.entity(ident)
        pos = getattr(e, "position", None)
        if getattr(e, "is_movable", False) and pos is not None:
            return (pos[0], pos[1])
        return ident
    raise EvaluationError(f"unknown entity `{ident}`")


@history
def distance_from_start(ctx: Context, e: MovableOrSurface) -> float | None:
    """Walking distance (metres) from the robot's pose at the end of the log to the item
    where it is then, or to the surface's nearest standing point (None: unreachable)."""
    p = start_pose(ctx)
    d = ctx.graph.geodesic_distance((p.x, p.y), position_after(ctx, e))
    return d if math.isfinite(d) else None


@history
def time_in_room(ctx: Context, r: Room) -> float | None:
    """Minutes the robot spent in the room (0 for a room never visited)."""
    if not ctx.graph.has(r):
        raise EvaluationError(f"unknown room `{r}`")
    return xp.time_in_rooms(ctx.require_experience()).get(r, 0.0)


@history
def visit_order(ctx: Context, r: Room) -> float | None:
    """1 for the first room the robot was in, 2 for the next new one, ...; None: never."""
    v = xp.visit_order(ctx.require_experience()).get(r)
    return None if v is None else float(v)


@history
def pick_order(ctx: Context, s: Surface) -> float | None:
    """1 for the first surface the robot picked an item from, 2 for the next new one,
    ...; None: nothing was picked from it."""
    v = surface_order(ctx.require_experience(), "picked_from").get(s)
    return None if v is None else float(v)


@history
def place_order(ctx: Context, s: Surface) -> float | None:
    """1 for the first surface the robot put an item down on, 2 for the next new one,
    ...; None: nothing was placed on it."""
    v = surface_order(ctx.require_experience(), "placed_on").get(s)
    return None if v is None else float(v)


# ----------------------------------------------------------------------- log values

_NUMBER = re.compile(r"\d+(\.\d+)?")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")


def clock_minutes(t: str) -> float:
    """A `clock-time` entity as minutes since midnight: `395` (or `395.0`) or `06:35`."""
    text = str(t).strip()
    if _NUMBER.fullmatch(text):
        return float(text)
    m = _CLOCK.fullmatch(text)
    if m:
        return int(m.group(1)) * 60 + int(m.group(2))
    raise EvaluationError(f"`{t}` is no clock time (minutes since midnight, or HH:MM)")


def _int_value(v: str, what: str) -> int:
    text = str(v).strip()
    if not _NUMBER.fullmatch(text) or float(text) != int(float(text)):
        raise EvaluationError(f"`{v}` is no whole number of {what}")
    return int(float(text))


def whole_minutes(minutes: float | None) -> int | None:
    """Minutes rounded as the `duration` filter rounds them (to the second, then half up
    to the minute), so a task says the number its checker tests."""
    if minutes is None or not math.isfinite(minutes):
        return None
    whole_s = math.floor(minutes * 60 + 0.5)
    return math.floor(whole_s / 60 + 0.5)


def clock_time_values(log: xp.Experience) -> tuple[str, ...]:
    """The `clock-time` entities of a log: the midpoint of each complete interaction,
    rounded to the minute, as decimal text ("395" is 06:35), sorted by time."""
    mids = {math.floor((i.start_min + i.end_min) / 2 + 0.5) for i in log.interactions
            if i.end_min is not None}
    return tuple(str(m) for m in sorted(mids))


def minutes_values(log: xp.Experience) -> tuple[str, ...]:
    """The `minutes` entities of a log: each interacted item's interaction time in whole
    minutes (`whole_minutes`, at least 1), as decimal text, ascending."""
    out = {whole_minutes(xp.interaction_duration(log, o)) for o in xp.interacted_objects(log)}
    return tuple(str(m) for m in sorted(m for m in out if m is not None and m >= 1))


def surface_order(log: xp.Experience, role: str) -> Mapping[str, int]:
    """Surface -> ordinal of its first use in `role` (`picked_from`, in pick order, or
    `placed_on`, in place order)."""
    if role == "picked_from":
        seq = [i.picked_from for i in log.interactions]
    elif role == "placed_on":
        placed = [i for i in log.interactions if i.place_frame is not None]
        placed.sort(key=lambda i: (i.place_frame, i.end_min))
        seq = [i.placed_on for i in placed]
    else:
        raise ValueError(f"role is picked_from or placed_on, not {role!r}")
    used = dict.fromkeys(s for s in seq if s is not None)
    return {s: k + 1 for k, s in enumerate(used)}


def _room_id(ctx: Context, what: str | Point) -> str | None:
    try:
        room = ctx.graph.room_of(what)
    except KeyError:
        raise EvaluationError(f"unknown entity `{what}`") from None
    return None if room is None else room.id


def final_room_of(ctx: Context, o: str) -> str | None:
    """The room an item is in at the end of the log: where it was last put (its recorded
    position, else the robot's room when it let go, else its surface's room), the robot's
    last room when still held, the scene's room when never moved."""
    log = ctx.require_experience()
    its = xp.interactions_of(log, o)
    if not its:
        return _room_id(ctx, o)
    last = its[-1]
    if last.place_frame is None:
        return xp.final_room(log)
    if last.placed_position is not None:
        return _room_id(ctx, last.placed_position)
    room = log.frames[last.place_frame].room
    if room is None and last.placed_on is not None:
        room = _room_id(ctx, last.placed_on)
    return room


# ----------------------------------------------------------------------- arg-extremes


@dataclass(frozen=True)
class Extreme:
    """The candidates at an extreme. `best` holds every candidate within the tolerance of
    the extreme value (sorted by value, then id); a tie is reported, never broken."""

    best: tuple[str, ...]
    value: float | None  # the extreme value (None: no candidate had one)
    values: Mapping[str, float | None]
    tolerance: float

    @property
    def tied(self) -> bool:
        return len(self.best) > 1

    @property
    def unique(self) -> str | None:
        return self.best[0] if len(self.best) == 1 else None

    @property
    def undefined(self) -> tuple[str, ...]:
        """Candidates without a value (never interacted with, unreachable ...)."""
        return tuple(k for k, v in self.values.items() if v is None or math.isinf(v))


def arg_extreme(values: Mapping[str, float | None], largest: bool, tolerance: float
                ) -> Extreme:
    """The candidates whose value is within `tolerance` of the largest (or smallest)
    finite value. Candidates with no value or an infinite one take no part."""
    known = {k: v for k, v in values.items() if v is not None and math.isfinite(v)}
    if not known:
        return Extreme((), None, dict(values), tolerance)
    best = max(known.values()) if largest else min(known.values())
    near = [k for k, v in known.items() if abs(v - best) <= tolerance]
    near.sort(key=lambda k: (-known[k] if largest else known[k], k))
    return Extreme(tuple(near), best, dict(values), tolerance)


def _distances(ctx: Context, candidates: Sequence[str], pose: AgentPose | Point | None
               ) -> dict[str, float | None]:
    if pose is None:
        p = start_pose(ctx)
        origin: Point = (p.x, p.y)
    elif isinstance(pose, AgentPose):
        origin = (pose.x, pose.y)
    else:
        origin = (float(pose[0]), float(pose[1]))
    return {c: ctx.graph.geodesic_distance(origin, position_after(ctx, c))
            for c in dict.fromkeys(candidates)}


@declare_thresholds
def _tie_thresholds(*, tie_distance_m: float = 0.1, tie_duration_min: float = 0.5) -> None:
    """Declares the tie tolerances of the arg-extreme helpers: distances within 0.1 m,
    durations within half a minute (about two FindingDory steps) are ties."""


_TIE_DEFAULTS = {p.name: float(p.default)
                 for p in inspect.signature(_tie_thresholds).parameters.values()}


def _with_threshold(name: str) -> Callable[[Context, float | None], float]:
    def get(ctx: Context, given: float | None) -> float:
        return given if given is not None else ctx.thresholds.get(name, _TIE_DEFAULTS[name])
    return get


_tie_m = _with_threshold("tie_distance_m")
_tie_min = _with_threshold("tie_duration_min")


def farthest(ctx: Context, candidates: Sequence[str], pose: AgentPose | Point | None = None,
             tie_distance_m: float | None = None) -> Extreme:
    """The candidates farthest (walking distance) from `pose` (default: the robot's pose
    at the end of the log), moved items measured where they were put."""
    return arg_extreme(_distances(ctx, candidates, pose), True, _tie_m(ctx, tie_distance_m))


def closest(ctx: Context, candidates: Sequence[str], pose: AgentPose | Point | None = None,
            tie_distance_m: float | None = None) -> Extreme:
    """The candidates closest (walking distance) to `pose`; see `farthest`."""
    return arg_extreme(_distances(ctx, candidates, pose), False, _tie_m(ctx, tie_distance_m))


def _durations(ctx: Context, candidates: Sequence[str]) -> dict[str, float | None]:
    log = ctx.require_experience()
    return {c: xp.interaction_duration(log, c) for c in dict.fromkeys(candidates)}


def longest_duration(ctx: Context, candidates: Sequence[str],
                     tie_duration_min: float | None = None) -> Extreme:
    """The interacted items that took longest to move (pick to place, summed)."""
    return arg_extreme(_durations(ctx, candidates), True, _tie_min(ctx, tie_duration_min))


def shortest_duration(ctx: Context, candidates: Sequence[str],
                      tie_duration_min: float | None = None) -> Extreme:
    """The interacted items that took the shortest time to move."""
    return arg_extreme(_durations(ctx, candidates), False, _tie_min(ctx, tie_duration_min))
