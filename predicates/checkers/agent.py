"""Fluent facts about the robot: what it holds, where it is, what it is at.

`robot-at-object` and `robot-at-receptacle` follow FindingDory's success checks: a
distance, a facing angle and visibility; relaxed modes drop the visibility check
(`Mode.NO_VISIBILITY`, DTG-SR) or the distance check (`Mode.NO_DISTANCE`, SC-SR). Cheap
vectorised checks run first; the walking distance and the line of sight are asked of the
world state only for the atoms that pass them. Both answer over poses too
(`Context.poses`): for every frame of an experience log in one call, the vectorised
checks over all the poses at once.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np
import numpy.typing as npt

from fdc.predicates.checkers.poses import centres, occupants, room_mask, surface_table
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
from fdc.sim_bridge.world.state import AgentPose

Bools = npt.NDArray[np.bool_]


@fluent
def holding(ctx: Context, o: Movable) -> bool:
    """The robot holds the item."""
    return ctx.require_state().held_object() == o


@fluent
def hand_empty(ctx: Context) -> bool:
    """The robot holds nothing."""
    return ctx.require_state().held_object() is None


class _Poses:
    """The robot's poses a checker answers for (`Context.poses`, else the state's pose),
    as columns: x, y, yaw (each (poses, 1), against a row of targets)."""

    def __init__(self, ctx: Context) -> None:
        self.many = ctx.poses is not None
        self.poses: tuple[AgentPose, ...] = ctx.poses if ctx.poses is not None else \
            (ctx.require_state().agent_pose(),)
        self.x, self.y, self.yaw = (np.array([[getattr(p, k)] for p in self.poses],
                                             dtype=np.float64).reshape(-1, 1)
                                    for k in ("x", "y", "yaw_rad"))

    def facing(self, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
        """Unsigned angle (rad) between each heading and the direction to each target."""
        return np.abs(np.asarray(wrap_angle(np.arctan2(ty - self.y, tx - self.x) - self.yaw)))

    def answer(self, ok: Bools) -> Bools:
        """A row a pose over poses; the one row otherwise."""
        return ok if self.many else ok[0]


@fluent
@over_poses
def robot_at_object(ctx: Context, o: Movables, *, object_distance_m: float = 2.0,
                    object_angle_rad: float = math.pi / 4, view_fov_rad: float = math.pi / 2,
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
    check_visibility = not (ctx.mode & Mode.NO_VISIBILITY)
    for k, i in zip(*(x.tolist() for x in np.nonzero(ok)), strict=True):
        a = at.poses[k]
        # The line of sight first: it costs less than a walking distance, and an item
        # out of view needs none.
        ok[k, i] = (not check_visibility or state.visible(
            o[i], pose=a, fov_rad=view_fov_rad, max_range_m=view_range_m)) and not (
            check_distance and not state.geodesic_within(
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
@over_poses
def robot_at_receptacle(ctx: Context, s: Surfaces, *, receptacle_distance_m: float = 0.1,
                        receptacle_angle_rad: float = math.pi / 2,
                        view_fov_rad: float = math.pi / 2, view_range_m: float = 5.0,
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
        seen: dict[tuple[int, str], bool] = {}
        for k, i in zip(*(x.tolist() for x in np.nonzero(ok)), strict=True):
            sid = s[i]
            if (k, sid) not in seen:
                # A sight line to the furniture's centre passes through what stands on
                # it: the surface is in view when its furniture or an item on it is.
                carrier = table.carrier[table.index[sid]]
                seen[k, sid] = any(
                    state.visible(x, pose=at.poses[k], fov_rad=view_fov_rad,
                                  max_range_m=view_range_m)
                    for x in [carrier, *occ.get(sid, [])])
            ok[k, i] = seen[k, sid]
    return at.answer(ok)


@fluent
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
