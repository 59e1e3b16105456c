"""Column arrays for batched checkers: current object poses from the `WorldState`, and
the static geometry of surfaces and rooms from the `SceneGraph` (built once per graph).

A surface carried by a movable item (a tray's top) moves with it: points are mapped back
through the carrier's motion (current pose -> its pose in the scene graph) before being
tested against the graph's polygon, so the graph is never rebuilt.
See docs/predicates.md.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.predicates.registry import Context, EvaluationError
from fdc.sim_bridge.geometry import Array, box_corners, quaternions_to_matrices, rotation
from fdc.sim_bridge.graph.feasible import SLACK_M

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


@dataclass(frozen=True, eq=False)
class Items:
    """Current poses of a column of object ids (repeats allowed)."""

    ids: Sequence[str]
    centre: Array  # (n, 3)
    matrix: Array  # (n, 3, 3)
    size: Array  # (n, 3)
    bottom: Array  # (n,)
    held: np.ndarray  # (n,) bool

    def corners_xy(self) -> Array:
        """(n, 8, 2) the box corners projected on the floor."""
        return box_corners(self.centre, self.matrix, self.size)[:, :, :2]


def items(ctx: Context, ids: Sequence[str]) -> Items:
    state = ctx.require_state()
    uniq = list(dict.fromkeys(ids))
    poses = [state.object_pose(ident) for ident in uniq]
    pos = np.array([p.position for p in poses], dtype=np.float64).reshape(-1, 3)
    size = np.array([p.size for p in poses], dtype=np.float64).reshape(-1, 3)
    index = {ident: k for k, ident in enumerate(uniq)}
    take = np.fromiter((index[i] for i in ids), dtype=np.int64, count=len(ids))
    mats = np.stack([rotation(p.orientation) for p in poses]) if poses else np.zeros((0, 3, 3))
    half_z = (np.abs(mats[:, 2, :]) * size).sum(axis=1) / 2 if len(uniq) else np.zeros(0)
    held_id = state.held_object()
    return Items(
        ids=ids, centre=pos[take], matrix=mats[take], size=size[take],
        bottom=(pos[:, 2] - half_z)[take],
        held=np.fromiter((i == held_id for i in ids), dtype=bool, count=len(ids)),
    )


def centres(ctx: Context, ids: Sequence[str]) -> Array:
    """(n, 3) the current centres of a column of object ids: `items(ctx, ids).centre`
    without the rest of the poses (a checker asked at every frame of a log needs no more)."""
    state = ctx.require_state()
    found: Array = np.array([state.object_pose(i).position for i in ids],
                            dtype=np.float64).reshape(-1, 3)
    return found


@dataclass(frozen=True, eq=False)
class SurfaceTable:
    """Every surface of a graph as arrays (row = index[surface id])."""

    index: dict[str, int]
    ids: list[str]
    carrier: list[str]
    carrier_movable: np.ndarray  # (m,) bool
    carrier_xy: Array  # (m, 2) carrier position in the graph
    carrier_z: Array  # (m,)
    carrier_yaw: Array  # (m,)
    polygon: Any  # (m,) shapely
    z: Array
    origin: Array  # (m, 2)
    yaw: Array
    half: Array  # (m, 2)
    clearance: Array

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        try:
            return np.fromiter((self.index[s] for s in ids), dtype=np.int64, count=len(ids))
        except KeyError as e:
            raise EvaluationError(f"unknown surface {e}") from None


_TABLES: weakref.WeakKeyDictionary[Any, SurfaceTable] = weakref.WeakKeyDictionary()


def surface_table(g: SceneGraph) -> SurfaceTable:
    t = _TABLES.get(g)
    if t is not None:
        return t
    import shapely

    surfaces = g.surfaces()
    objs = [g.object(s.object_id) for s in surfaces]
    polys = np.array([s.polygon for s in surfaces], dtype=object)
    for p in polys:
        shapely.prepare(p)
    t = SurfaceTable(
        index={s.id: k for k, s in enumerate(surfaces)},
        ids=[s.id for s in surfaces],
        carrier=[s.object_id for s in surfaces],
        carrier_movable=np.array([o.is_movable for o in objs], dtype=bool),
        carrier_xy=np.array([o.position[:2] for o in objs], dtype=np.float64).reshape(-1, 2),
        carrier_z=np.array([o.position[2] for o in objs], dtype=np.float64),
        carrier_yaw=np.array([o.yaw_rad for o in objs], dtype=np.float64),
        polygon=polys,
        z=np.array([s.z for s in surfaces], dtype=np.float64),
        origin=np.array([s.origin for s in surfaces], dtype=np.float64).reshape(-1, 2),
        yaw=np.array([s.yaw_rad for s in surfaces], dtype=np.float64),
        half=np.array([s.half_extents for s in surfaces], dtype=np.float64).reshape(-1, 2),
        clearance=np.array([s.clearance_m for s in surfaces], dtype=np.float64),
    )
    _TABLES[g] = t
    return t


def to_graph_frame(ctx: Context, table: SurfaceTable, rows: np.ndarray, xy: Array,
                   z: Array | None = None) -> tuple[Array, Array | None]:
    """Map current-world points (one per row) into the scene graph's world, undoing the
    motion of movable carriers (identity for furniture)."""
    moving = table.carrier_movable[rows]
    if not moving.any():
        return xy, z
    state = ctx.require_state()
    tracked = set(state.object_ids())
    uniq = [int(r) for r in np.unique(rows[moving]) if table.carrier[r] in tracked]
    if not uniq:
        return xy, z
    pos = np.empty((len(uniq), 3))
    quat = np.empty((len(uniq), 4))
    for k, r in enumerate(uniq):
        p = state.object_pose(table.carrier[r])
        pos[k], quat[k] = p.position, p.orientation
    m = quaternions_to_matrices(quat)
    turn = np.arctan2(m[:, 1, 0], m[:, 0, 0]) - table.carrier_yaw[uniq]
    slot = np.full(len(table.ids), -1, dtype=np.int64)
    slot[uniq] = np.arange(len(uniq))
    k = slot[rows]
    sel = np.nonzero(k >= 0)[0]
    k = k[sel]
    xy = xy.copy()
    rel = xy[sel] - pos[k, :2]
    c, s = np.cos(-turn[k]), np.sin(-turn[k])
    back = table.carrier_xy[np.asarray(uniq)[k]]
    xy[sel] = np.stack([c * rel[:, 0] - s * rel[:, 1], s * rel[:, 0] + c * rel[:, 1]],
                       axis=1) + back
    if z is not None:
        z = z.copy()
        z[sel] = z[sel] - (pos[k, 2] - table.carrier_z[np.asarray(uniq)[k]])
    return xy, z


def surface_uv(table: SurfaceTable, rows: np.ndarray, xy: Array) -> Array:
    """Graph-world points (one per row) in their surface's frame (u front, v left)."""
    rel = xy - table.origin[rows]
    c, s = np.cos(table.yaw[rows]), np.sin(table.yaw[rows])
    return np.stack([c * rel[:, 0] + s * rel[:, 1], -s * rel[:, 0] + c * rel[:, 1]], axis=1)


def on_mask(ctx: Context, it: Items, table: SurfaceTable, rows: np.ndarray,
            on_top_m: float, on_below_m: float) -> np.ndarray:
    """Each item rests on its surface: not held, its centre over the surface's outline,
    its bottom from `on_below_m` under to `on_top_m` above the surface (give or take
    `SLACK_M`: a 15 cm box put on another under the 15 cm band is on what that one stands
    on whatever the float noise of the pose it was put down at, as `low-top` and the
    feasibility rules judge it)."""
    import shapely

    xy, bottom = to_graph_frame(ctx, table, rows, it.centre[:, :2], it.bottom)
    assert bottom is not None
    gap = bottom - table.z[rows]
    ok = ~it.held & (gap >= -on_below_m - SLACK_M) & (gap <= on_top_m + SLACK_M)
    if ok.any():
        k = np.nonzero(ok)[0]
        ok[k] = shapely.contains_xy(table.polygon[rows[k]], xy[k, 0], xy[k, 1])
    above = ok & (gap > SLACK_M)
    if above.any():
        k = np.nonzero(above)[0]
        ok[k] = ~_board_between(table, it.centre[k, :2], it.bottom[k] - gap[k], it.bottom[k])
    return ok


def _board_between(table: SurfaceTable, xy: Array, low: Array, high: Array) -> np.ndarray:
    """Each point (current world) has a furniture surface over it higher than `low` and
    at most `high` (give or take `SLACK_M`): an item standing on that board is not on the
    surface `low` under it, however close (a clock on a shelf unit's top board is not on
    the top of a plant on the shelf under it, 5 cm lower). Item tops never count: a cup on
    a tray is on the table under the tray too (`low-top`)."""
    import shapely

    fixed = np.nonzero(~table.carrier_movable)[0]
    fz = table.z[fixed]
    i, j = np.nonzero((fz[None, :] > low[:, None] + SLACK_M)
                      & (fz[None, :] <= high[:, None] + SLACK_M))
    out = np.zeros(len(xy), dtype=bool)
    if len(i):
        out[i[shapely.contains_xy(table.polygon[fixed[j]], xy[i, 0], xy[i, 1])]] = True
    return out


def footprint_uv(ctx: Context, it: Items, table: SurfaceTable, rows: np.ndarray) -> Array:
    """(n, 4) bounds (u0, v0, u1, v1) of each item's box in its surface's frame."""
    n = len(rows)
    corners = it.corners_xy().reshape(-1, 2)
    crow = np.repeat(rows, 8)
    xy, _ = to_graph_frame(ctx, table, crow, corners)
    uv = surface_uv(table, crow, xy).reshape(n, 8, 2)
    return np.concatenate([uv.min(axis=1), uv.max(axis=1)], axis=1)


def occupants(ctx: Context, surface_ids: Sequence[str], on_top_m: float, on_below_m: float
              ) -> dict[str, list[str]]:
    """The objects resting on each surface now (reported by the state, confirmed by the
    geometry), sorted by id."""
    state = ctx.require_state()
    wanted = set(surface_ids)
    pairs = [(o, s) for o in sorted(state.object_ids())
             if (s := state.support_of(o)) is not None and s in wanted]
    out: dict[str, list[str]] = {s: [] for s in surface_ids}
    if not pairs:
        return out
    table = surface_table(ctx.graph)
    it = items(ctx, [p[0] for p in pairs])
    ok = on_mask(ctx, it, table, table.rows([p[1] for p in pairs]), on_top_m, on_below_m)
    for (o, s), good in zip(pairs, ok.tolist(), strict=True):
        if good:
            out[s].append(o)
    return out


def room_mask(ctx: Context, xy: Array, z: Array, room_ids: Sequence[str]) -> np.ndarray:
    """Each point lies in its room's outline and height band (5 cm under the floor
    allowed, as the scene graph's `rooms_at`)."""
    import shapely

    g = ctx.graph
    uniq = list(dict.fromkeys(room_ids))
    try:
        rooms = [g.room(r) for r in uniq]
    except KeyError as e:
        raise EvaluationError(f"unknown room {e}") from None
    if not room_ids:
        return np.zeros(0, dtype=bool)
    slot = {r: k for k, r in enumerate(uniq)}
    k = np.fromiter((slot[r] for r in room_ids), dtype=np.int64, count=len(room_ids))
    polys = np.array([r.polygon for r in rooms], dtype=object)
    shapely.prepare(polys)
    floor = np.array([r.floor_z for r in rooms], dtype=np.float64)
    top = floor + np.array([r.height_m for r in rooms], dtype=np.float64)
    inside = np.asarray(shapely.contains_xy(polys[k], xy[:, 0], xy[:, 1]), dtype=bool)
    return inside & (z >= floor[k] - 0.05) & (z <= top[k])
