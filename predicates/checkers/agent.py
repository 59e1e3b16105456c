"""Fluent facts about the robot: what it holds, where it is, what it is at.

`robot-at-object` and `robot-at-receptacle` follow FindingDory's success checks: a
distance, a facing angle and visibility; relaxed modes drop the visibility check
(`Mode.NO_VISIBILITY`, DTG-SR) or the distance check (`Mode.NO_DISTANCE`, SC-SR). Cheap
vectorised checks run first; the walking distance and the line of sight are asked of the
world state only for the atoms that pass them. Both answer over poses too
(`Context.poses`): for every frame of an experience log in one call, the vectorised
checks over all the poses at once.
See docs/predicates.md.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np
import numpy.typing as npt

from fdc.predicates.checkers.poses import centres, occupants, room_mask, surface_table
from fdc.predicates.meaning import Robot, means
from fdc.predicates.registry import (
    Context,
    Mode,
    Movable,
    Movables,
    Rooms,
    Surfaces,
    fluent,
    over_poses,
)
from fdc.sim_bridge.geometry import wrap_angle
from fdc.sim_bridge.graph.frustum import DEFAULT_FRUSTUM
from fdc.sim_bridge.world.state import AgentPose

Bools = npt.NDArray[np.bool_]


@fluent
@means(robot=Robot.HAND)
def holding(ctx: Context, o: Movable) -> bool:
    """The robot holds the item."""
    return ctx.require_state().held_object() == o


@fluent
@means(robot=Robot.HAND)
def hand_empty(ctx: Context) -> bool:
    """The robot holds nothing."""
    return ctx.require_state().held_object() is None


#: The columns of the last tuples of poses asked about (an experience's frames are asked
#: about by every checker over poses, template after template): id -> (poses, columns).
_COLUMNS: dict[int, tuple[tuple[AgentPose, ...], tuple[np.ndarray, ...]]] = {}


def _columns(poses: tuple[AgentPose, ...]) -> tuple[np.ndarray, ...]:
    """x, y and yaw of the poses, each (poses, 1), read-only (kept for the same tuple)."""
    known = _COLUMNS.get(id(poses))
    if known is not None and known[0] is poses:
        return known[1]
    cols = tuple(np.array([getattr(p, k) for p in poses], dtype=np.float64).reshape(-1, 1)
                 for k in ("x", "y", "yaw_rad"))
    for c in cols:
        c.flags.writeable = False
    if len(poses) > 1:
        _COLUMNS[id(poses)] = (poses, cols)
        if len(_COLUMNS) > 8:  # a bounded memo: the oldest goes first
            del _COLUMNS[next(iter(_COLUMNS))]
    return cols


class _Poses:
    """The robot's poses a checker answers for (`Context.poses`, else the state's pose),
    as columns: x, y, yaw (each (poses, 1), against a row of targets)."""

    def __init__(self, ctx: Context) -> None:
        self.many = ctx.poses is not None
        self.poses: tuple[AgentPose, ...] = ctx.poses if ctx.poses is not None else \
            (ctx.require_state().agent_pose(),)
        self.x, self.y, self.yaw = _columns(self.poses)

    def facing(self, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
        """Unsigned angle (rad) between each heading and the direction to each target."""
        return np.abs(np.asarray(wrap_angle(np.arctan2(ty - self.y, tx - self.x) - self.yaw)))

    def answer(self, ok: Bools) -> Bools:
        """A row a pose over poses; the one row otherwise."""
        return ok if self.many else ok[0]


#: The camera's horizontal field of view (`fdc.sim_bridge.graph.frustum`; `visible` also
#: applies its tilt and vertical field of view).
HFOV_RAD = DEFAULT_FRUSTUM.hfov_rad


@fluent
@means(robot=Robot.PLACE)
@over_poses
def robot_at_object(ctx: Context, o: Movables, *, object_distance_m: float = 2.0,
                    object_angle_rad: float = math.pi / 4, view_fov_rad: float = HFOV_RAD,
                    view_range_m: float = 5.0) -> Bools:
    """The robot is at the item: walking distance to the item's position at most
    `object_distance_m`, the item within `object_angle_rad` of its heading, and in view
    (line of sight within `view_fov_rad` and `view_range_m`)."""
    state = ctx.require_state()
    at = _Poses(ctx)
    centre = centres(ctx, o)
    tx, ty = centre[:, 0], centre[:, 1]
    ok = at.facing(tx, ty) <= object_angle_rad + 1e-12
    check_distance = not (ctx.mode & Mode.NO_DISTANCE)
    if check_distance:
        # The walking distance is never shorter than the straight one.
        ok &= np.hypot(tx - at.x, ty - at.y) <= object_distance_m
    pairs = list(zip(*(x.tolist() for x in np.nonzero(ok)), strict=True))
    # The lines of sight first (all at once): they cost less than a walking distance,
    # and an item out of view needs none.
    seen = state.visible_many([o[i] for _, i in pairs], [at.poses[k] for k, _ in pairs],
                              view_fov_rad, view_range_m) \
        if pairs and not (ctx.mode & Mode.NO_VISIBILITY) else [True] * len(pairs)
    for (k, i), visible in zip(pairs, seen, strict=True):
        a = at.poses[k]
        ok[k, i] = visible and not (check_distance and not state.geodesic_within(
            (a.x, a.y), (float(tx[i]), float(ty[i])), object_distance_m))
    return at.answer(ok)


_STANDING: weakref.WeakKeyDictionary[Any, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


def _standing_xy(ctx: Context, surface_id: str) -> np.ndarray:
    cache = _STANDING.setdefault(ctx.graph, {})
    pts = cache.get(surface_id)
    if pts is None:
        sp = ctx.graph.standing_points(surface_id)
        pts = np.array([p.position for p in sp], dtype=np.float64).reshape(-1, 2)
        cache[surface_id] = pts
    return pts


@fluent
@means(robot=Robot.PLACE)
@over_poses
def robot_at_receptacle(ctx: Context, s: Surfaces, *, receptacle_distance_m: float = 0.1,
                        receptacle_angle_rad: float = math.pi / 2,
                        view_fov_rad: float = HFOV_RAD, view_range_m: float = 5.0,
                        on_top_m: float = 0.15, on_below_m: float = 0.02) -> Bools:
    """The robot is at the surface: within `receptacle_distance_m` of the surface's
    nearest standing point, the surface's centre within `receptacle_angle_rad` of its
    heading, and the surface in view (its furniture, or an item resting on it)."""
    state = ctx.require_state()
    at = _Poses(ctx)
    table = surface_table(ctx.graph)
    rows = table.rows(s)
    centre = table.origin[rows]
    ok = at.facing(centre[:, 0], centre[:, 1]) <= receptacle_angle_rad + 1e-12
    if not (ctx.mode & Mode.NO_DISTANCE):
        near = {}
        for sid in dict.fromkeys(s):
            pts = _standing_xy(ctx, sid)
            near[sid] = np.hypot(pts[:, 0] - at.x, pts[:, 1] - at.y).min(axis=1) \
                if len(pts) else np.full(len(at.poses), math.inf)
        gap = np.array([near[x] for x in s], dtype=np.float64).reshape(
            len(s), len(at.poses)).transpose()  # a row a pose
        ok &= gap <= receptacle_distance_m
    if not (ctx.mode & Mode.NO_VISIBILITY):
        live = sorted({s[i] for i in np.nonzero(ok.any(axis=0))[0].tolist()})
        occ = occupants(ctx, live, on_top_m, on_below_m) if live else {}
        pairs = list(zip(*(x.tolist() for x in np.nonzero(ok)), strict=True))
        # A sight line to the furniture's centre passes through what stands on it: the
        # surface is in view when its furniture or an item on it is (all at once).
        asked = {(k, s[i]): [table.carrier[table.index[s[i]]], *occ.get(s[i], [])]
                 for k, i in pairs}
        lines = [(k, x) for (k, _), things in asked.items() for x in things]
        answers = state.visible_many([x for _, x in lines], [at.poses[k] for k, _ in lines],
                                     view_fov_rad, view_range_m) if lines else []
        seen: dict[tuple[int, str], bool] = {}
        it = iter(answers)
        for key, things in asked.items():
            seen[key] = any([next(it) for _ in things])
        for k, i in pairs:
            ok[k, i] = seen[k, s[i]]
    return at.answer(ok)


@fluent
@means(robot=Robot.PLACE)
def robot_in_room(ctx: Context, r: Rooms) -> Bools:
    """The robot's base point is in the room (outline and height band)."""
    a = ctx.require_state().agent_pose()
    n = len(r)
    return room_mask(ctx, np.tile([a.x, a.y], (n, 1)).astype(np.float64), np.full(n, a.z), r)


@fluent
def total_cost(ctx: Context) -> float | None:
    """The planner's action count. A state does not carry it: undefined (None). It is
    declared in the domain for plan metrics only."""
    return None
