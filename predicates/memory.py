"""History facts: what the robot did in its experience log, and arg-extreme helpers.

History predicates are folded at compile time from `ctx.experience`
(`fdc.sim_bridge.experience`). Numeric functions return None when undefined (an object
never interacted with has no interaction order). The arg-extreme helpers (farthest,
closest, longest, shortest) report every candidate tied with the best (within a
tolerance) instead of picking one: an instruction naming "the farthest" object is only
unambiguous when `Extreme.unique` is set.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.sim_bridge import experience as xp
from fdc.sim_bridge.state import AgentPose

from .registry import (
    REGISTRY,
    Context,
    EvaluationError,
    Movable,
    Room,
    Surface,
    history,
)

if TYPE_CHECKING:
    from fdc.sim_bridge.graph import Point


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
def distance_from_start(ctx: Context, o: Movable) -> float | None:
    """Walking distance (metres; inf: unreachable) from the robot's pose at the end of
    the log to the item's position then."""
    p = start_pose(ctx)
    return ctx.graph.geodesic_distance((p.x, p.y), position_after(ctx, o))


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


def _with_threshold(name: str) -> Callable[[Context, float | None], float]:
    def get(ctx: Context, given: float | None) -> float:
        return given if given is not None else ctx.threshold(name)
    return get


_tie_m = _with_threshold("tie_distance_m")
_tie_min = _with_threshold("tie_duration_min")


@REGISTRY.declare_thresholds
def _tie_thresholds(*, tie_distance_m: float = 0.1, tie_duration_min: float = 0.5) -> None:
    """Declares the tie tolerances of the arg-extreme helpers: distances within 0.1 m,
    durations within half a minute (about two FindingDory steps) are ties."""


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
