"""Placement queries: where can an item go so that a relation holds?

`place(view, relation, args)` is the one dispatch from a relation to its query. One
function per relation, all built on `find_spot`: candidate centres on a grid over the
target region (in the surface frame) and on the lines where the item touches something,
the item's box tested against the region and the obstacles in one vectorised pass, the
best candidate chosen by a fixed score (for the relations that fill a region, packed:
pressed against something along the most axes first; then nearest to the relation's
preferred point, then smallest u, then smallest v; and, of the corners of either
orientation, the one after which the most copies of the item still fit, `_roomiest`,
when the packed spot leaves room for fewer than `lookahead`). Deterministic; the
same answers serve the compiler (is this task feasible?) and the embedded world (where
does the item go?).
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.sim_bridge.geometry import (
    frame_bounds,
    from_frame,
    rect_coords,
    rects,
    to_frame,
    yaw_quaternion,
)
from fdc.sim_bridge.graph.regions import (
    RING,
    Direction,
    Side,
    grid_cells,
    surface_direction,
)
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind, Pose

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.view import SceneView


class Relation(StrEnum):
    ON = "on"
    IN_CELL = "in_cell"
    AROUND = "around"
    DIRECTION = "direction"
    BETWEEN = "between"
    INSIDE = "inside"


#: An item fits above a surface when it is at least this much lower than the room there.
HEADROOM_MARGIN_M = 0.005
#: An item's footprint may pass its target region by this much (rounding).
FIT_SLACK_M = 1e-6
#: An item pressed against something stands this much further off than the least gap,
#: so rounding never makes the contact a collision.
CONTACT_MARGIN_M = 1e-4
#: What the cheap tests of `find_spot` add to their bounds, so that coordinates rounded
#: differently in the surface frame and in the world never decide a spot.
BOUNDS_HAIR_M = 1e-9
#: Candidate-obstacle pairs compared at once by `find_spot`'s cheap test (memory bound).
NEAR_CELLS = 1 << 20


#: The relations that fill a region (a surface, a cell, a container) rather than put the
#: item next to an anchor: their spots are packed (see `find_spot`).
FILLING = frozenset({Relation.ON, Relation.IN_CELL, Relation.INSIDE})


@dataclass(frozen=True)
class PlacementConfig:
    gap_m: float = 0.01  # free space kept between the item and anything else
    # Pack the relations that fill a region (bottom-left fill, see `find_spot`); False:
    # the free grid spot nearest the preferred point (the middle of the cell or surface).
    pack: bool = True
    max_candidates: int = 4000  # grid size per region
    min_step_m: float = 0.005
    max_step_m: float = 0.05
    # Packing: of the corners of either orientation, take the one after which the most
    # copies of the item still fit, up to this many (0: the packed spot, unturned first).
    lookahead: int = 2


@dataclass(frozen=True)
class Placement:
    """The answer to a placement query: a pose, or the reason there is none."""

    item: str
    relation: Relation
    pose: Pose | None
    surface_id: str | None
    region_ids: tuple[str, ...] = ()
    reason: str = ""
    yaw_rad: float = 0.0
    footprint: Any = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.pose is not None


def _fail(item: str, relation: Relation, reason: str, surface: str | None = None) -> Placement:
    return Placement(item, relation, None, surface, (), reason)


def headroom_m(g: SceneView, surface: Surface) -> float:
    """The room above `surface` now: its clearance, and, for the top of an item (a tray,
    a book), no more than the room left above the surface under that item (its
    clearance was measured where the item first stood; moved under a shelf, the item
    brings no room of its own)."""
    room = surface.clearance_m
    z = surface.z
    owner = surface.object_id
    seen = {owner}
    while g.object(owner).kind is Kind.MOVABLE:
        below = g.parent_surface(owner)
        if below is None:
            break
        room = min(room, below.clearance_m - (z - below.z))
        owner = below.object_id
        if owner in seen:  # pragma: no cover - support is a tree
            break
        seen.add(owner)
    return room


def find_spot(
    g: SceneView,
    item: str,
    surface: Surface,
    target: Any,
    preferred_xy: tuple[float, float],
    relation: Relation,
    config: PlacementConfig,
    region_ids: tuple[str, ...] = (),
    centre_in: Any = None,
    extra_obstacles: Any = None,
) -> Placement:
    """A collision-free pose for `item` on `surface` with its footprint inside `target`
    (and its centre inside `centre_in`, when given)."""
    import shapely

    info = g.object(item)
    height = info.top_z - info.bottom_z
    shut = _shut_out(g, item, surface, relation)
    if shut is not None:
        return shut
    if target is None or target.is_empty or target.area <= 0:
        return _fail(item, relation, "the target region is empty", surface.id)
    obstacles = g.obstacles_on(surface.id, exclude=item, height_m=height)
    if extra_obstacles is not None:
        obstacles = np.concatenate([obstacles, np.asarray(extra_obstacles, dtype=object)])
    tree = shapely.STRtree(obstacles) if len(obstacles) else None
    # A micrometre of slack: an item exactly as large as its target (a tray on a tray)
    # is not refused by rounding.
    within = shapely.buffer(target, FIT_SLACK_M, join_style="mitre")
    shapely.prepare(within)
    if centre_in is not None:
        shapely.prepare(centre_in)
    sx, sy = float(info.size[0]), float(info.size[1])
    t_local = shapely.transform(target, lambda xy: to_frame(xy, surface.origin, surface.yaw_rad))
    u0, v0, u1, v1 = t_local.bounds
    fills = _fills(t_local)
    convex = not fills and bool(shapely.equals(within, shapely.convex_hull(within)))
    near_bounds = (frame_bounds(obstacles, surface.origin, surface.yaw_rad) if len(obstacles)
                   else np.zeros((0, 4)))
    pu, pv = to_frame([preferred_xy], surface.origin, surface.yaw_rad)[0]
    # Packing, where an item would touch something: the sides of the obstacles near the
    # target and of the region its centre must lie in, in the surface frame.
    pack = config.pack and relation in FILLING
    walls = np.zeros((0, 4))
    if pack and len(obstacles):
        walls = near_bounds[shapely.intersects(obstacles, shapely.buffer(
            target, max(sx, sy) + config.gap_m, join_style="mitre"))]
    inner = (frame_bounds([centre_in], surface.origin, surface.yaw_rad)[0]
             if pack and centre_in is not None else None)
    grids: dict[float, _Grid | None] = {}

    def grid(turn: float) -> _Grid | None:
        if turn not in grids:
            grids[turn] = _grid(surface, (sx, sy), turn, (u0, v0, u1, v1), (pu, pv), within,
                                fills, convex, centre_in, tree, near_bounds, walls, inner,
                                pack, config)
        return grids[turn]

    found = next(((t, gr) for t in TURNS if (gr := grid(t)) is not None), None)
    if found is not None:
        turn, gr = found
        k = gr.best
        if pack and config.lookahead > 0:
            turn, k = _roomiest(grid, turn, k, (sx, sy), (u0, v0, u1, v1), walls, inner,
                                config)
            gr = grid(turn)
            assert gr is not None
        yaw = surface.yaw_rad + turn
        z = surface.z + height / 2
        pose = Pose(position=(float(gr.xy[k, 0]), float(gr.xy[k, 1]), float(z)),
                    orientation=yaw_quaternion(yaw))
        return Placement(item, relation, pose, surface.id, region_ids, "", float(yaw),
                         gr.footprint(k))
    return _fail(item, relation, f"no collision-free spot for `{item}` ({sx:.2f} x {sy:.2f} m) "
                 f"in the target region on `{surface.id}`", surface.id)


def _fills(t_local: Any) -> bool:
    """Whether the target (in the surface frame) holds every footprint inside its bounds:
    the bounds, a hair wider, lie inside it with its slack (a rectangle does; merged
    regions, an L, do not). Every candidate of `find_spot` lies in those bounds."""
    import shapely

    u0, v0, u1, v1 = t_local.bounds
    h = BOUNDS_HAIR_M
    return bool(shapely.contains(shapely.buffer(t_local, FIT_SLACK_M, join_style="mitre"),
                                 shapely.box(u0 - h, v0 - h, u1 + h, v1 + h)))


def _free(xy: Any, cu: Any, cv: Any, hx: float, hy: float, surface: Surface, within: Any,
          fills: bool, convex: bool, centre_in: Any, tree: Any, bounds: Any, gap_m: float
          ) -> Any:
    """Which candidate spots (centres `xy`, (`cu`, `cv`) in the surface frame) hold the
    item's footprint inside `within`, its centre inside `centre_in`, and nothing within
    `gap_m`. Footprints are built only for the candidates a cheap test cannot decide:
    none for the target when `fills` says every candidate fits it, nor when `within` is
    `convex` (a footprint lies in a convex region when its four corners do, on its
    boundary or inside), nor for a spot with a corner outside `within` (a footprint
    in it has its corners in it, whatever its shape); for the obstacles, those whose box,
    grown by the gap, meets an obstacle's bounds in the surface frame (a footprint clear
    of those is clear of the obstacle itself)."""
    import shapely

    n = len(cu)
    if fills:
        ok = np.ones(n, dtype=bool)
    else:
        corners = rect_coords(xy[:, 0], xy[:, 1], *(np.full(n, x, dtype=np.float64)
                                                    for x in (hx, hy, surface.yaw_rad)))
        ok = shapely.intersects_xy(within, corners[..., 0].ravel(),
                                   corners[..., 1].ravel()).reshape(n, 4).all(axis=1)
        if not convex and ok.any():  # corners in are needed, and enough when convex
            k = np.nonzero(ok)[0]
            ok[k] = shapely.contains(within, rects(xy[k, 0], xy[k, 1], hx, hy,
                                                   surface.yaw_rad))
    if centre_in is not None:
        ok &= shapely.contains_xy(centre_in, xy[:, 0], xy[:, 1])
    if tree is None or not ok.any():
        return ok
    cand = np.nonzero(ok)[0]
    reach = gap_m + BOUNDS_HAIR_M
    near = np.zeros(len(cand), dtype=bool)
    rows = max(1, NEAR_CELLS // max(len(bounds), 1))
    for lo in range(0, len(cand), rows):
        c = cand[lo:lo + rows]
        u, v = cu[c, None], cv[c, None]
        near[lo:lo + rows] = np.any(
            (u - hx - reach <= bounds[None, :, 2]) & (u + hx + reach >= bounds[None, :, 0])
            & (v - hy - reach <= bounds[None, :, 3]) & (v + hy + reach >= bounds[None, :, 1]),
            axis=1)
    check = cand[near]
    if len(check):
        boxes = rects(xy[check, 0], xy[check, 1], hx, hy, surface.yaw_rad)
        hit, _ = tree.query(boxes, predicate="dwithin", distance=gap_m)
        ok[check[np.unique(hit)]] = False
    return ok


#: The orientations an item is put down in, relative to the surface (unturned first).
TURNS = (0.0, math.pi / 2)
#: Spots of each orientation (corners, the best first) the room test weighs (`_roomiest`).
LOOKAHEAD_SPOTS = 12
#: Spots a room test may try in all, over every candidate (a bound on its cost).
LOOKAHEAD_NODES = 400


@dataclass(frozen=True)
class _Grid:
    """The candidate spots of one orientation (`find_spot`): centres (frame `cu`, `cv`;
    world `xy`), how pressed each is, and the free ones, the best first (`order`); a
    spot's footprint built when asked (`footprint`)."""

    turn: float
    hx: float
    hy: float
    cu: Any
    cv: Any
    xy: Any
    yaw_rad: float  # the surface's
    pressed: Any
    order: Any

    @property
    def best(self) -> int:
        return int(self.order[0])

    def footprint(self, k: int) -> Any:
        return rects(self.xy[k, 0], self.xy[k, 1], self.hx, self.hy, self.yaw_rad)[0]


def _grid(surface: Surface, size: tuple[float, float], turn: float,
          bounds: tuple[float, float, float, float], preferred: tuple[float, float],
          within: Any, fills: bool, convex: bool, centre_in: Any, tree: Any,
          obstacle_bounds: Any, walls: Any, inner: Any, pack: bool, config: PlacementConfig
          ) -> _Grid | None:
    """The candidate spots of `find_spot` for the item turned `turn` (None: none free)."""

    sx, sy = size
    u0, v0, u1, v1 = bounds
    pu, pv = preferred
    hx, hy = (sx / 2, sy / 2) if turn == 0.0 else (sy / 2, sx / 2)
    if 2 * hx > (u1 - u0) + 1e-9 or 2 * hy > (v1 - v0) + 1e-9:
        return None
    area = (u1 - u0 - 2 * hx + 1e-9) * (v1 - v0 - 2 * hy + 1e-9)
    step = min(config.max_step_m,
               max(config.min_step_m, math.sqrt(max(area, 1e-12) / config.max_candidates)))
    us = np.arange(u0 + hx, u1 - hx + 1e-9, step)
    vs = np.arange(v0 + hy, v1 - hy + 1e-9, step)
    if pack:  # and where the item touches something
        reach = config.gap_m + CONTACT_MARGIN_M
        us = _with_contacts(us, u1 - hx, walls[:, 0] - hx - reach, walls[:, 2] + hx + reach,
                            None if inner is None else inner[[0, 2]])
        vs = _with_contacts(vs, v1 - hy, walls[:, 1] - hy - reach, walls[:, 3] + hy + reach,
                            None if inner is None else inner[[1, 3]])
    if len(us) == 0 or len(vs) == 0:
        return None
    gu, gv = np.meshgrid(us, vs, indexing="ij")
    cu, cv = gu.ravel(), gv.ravel()
    xy = from_frame(np.stack([cu, cv], axis=1), surface.origin, surface.yaw_rad)
    ok = _free(xy, cu, cv, hx, hy, surface, within, fills, convex, centre_in, tree,
               obstacle_bounds, config.gap_m)
    if not ok.any():
        return None
    # Packing, bottom-left fill: a spot pressed against something along both axes
    # (a corner) beats one pressed along one, which beats a free one. Then the
    # nearest to the preferred point wins, then the smallest u, then v.
    pressed = (_pressed(ok.reshape(len(us), len(vs))).ravel() if pack
               else np.zeros(len(ok), dtype=np.int8))
    d = np.round(np.hypot(cu - pu, cv - pv), 6)
    good = np.nonzero(ok)[0]
    order = good[np.lexsort((cv[good], cu[good], d[good], -pressed[good]))]
    return _Grid(turn, hx, hy, cu, cv, xy, surface.yaw_rad, pressed, order)


def _roomiest(grid: Any, turn: float, k: int, size: tuple[float, float],
              bounds: tuple[float, float, float, float], walls: Any, inner: Any,
              config: PlacementConfig) -> tuple[float, int]:
    """The spot (orientation, index in its grid) that leaves room for the most copies
    of the item after it (at most `config.lookahead`; `_Room`): the packed spot
    `turn`, `k` unless another corner of either orientation (`LOOKAHEAD_SPOTS` of
    each, the best first) leaves room for more. Items of a packing goal are often
    alike: three donuts in a cell fit only with one turned, and only if the first two
    leave room for it."""
    room = _Room(size, bounds, walls, inner, config)
    cap = config.lookahead
    gr = grid(turn)
    best, choice = room.copies([room.box(float(gr.cu[k]), float(gr.cv[k]), gr.hx, gr.hy)],
                               cap), (turn, k)
    for t in TURNS:
        if best >= cap or room.budget <= 0:
            break
        if t != turn and abs(size[0] - size[1]) < 1e-9:
            continue  # a square item turned is the same
        other = grid(t)
        if other is None:
            continue
        corners = [int(i) for i in other.order if other.pressed[i] == 2][:LOOKAHEAD_SPOTS]
        for i in corners:
            if (t, i) == (turn, k):
                continue
            n = room.copies([room.box(float(other.cu[i]), float(other.cv[i]), other.hx,
                                      other.hy)], cap)
            if n > best:
                best, choice = n, (t, i)
            if best >= cap or room.budget <= 0:
                break
    return choice


class _Room:
    """How many copies of an item still fit in a region, on boxes in the surface frame:
    the region (its bounds; the bounds of where the centre must lie), what stands
    there (its bounding boxes) and the copies put down, kept the placement gap apart
    along one axis at least. The spots tried are where a copy touches something or a
    bound (as `find_spot`'s), both orientations; a depth-first search, at most
    `LOOKAHEAD_NODES` spots in all."""

    def __init__(self, size: tuple[float, float], bounds: tuple[float, float, float, float],
                 walls: Any, inner: Any, config: PlacementConfig) -> None:
        sx, sy = size
        self.halves = [(sx / 2, sy / 2)] + ([(sy / 2, sx / 2)] if abs(sx - sy) > 1e-9 else [])
        self.gap = config.gap_m
        self.reach = config.gap_m + CONTACT_MARGIN_M
        self.budget = LOOKAHEAD_NODES
        u0, v0, u1, v1 = bounds
        self.ranges = []
        for hu, hv in self.halves:
            lo_u, hi_u, lo_v, hi_v = u0 + hu, u1 - hu, v0 + hv, v1 - hv
            if inner is not None:
                lo_u, hi_u = max(lo_u, inner[0] + CONTACT_MARGIN_M), min(hi_u, inner[2] -
                                                                         CONTACT_MARGIN_M)
                lo_v, hi_v = max(lo_v, inner[1] + CONTACT_MARGIN_M), min(hi_v, inner[3] -
                                                                         CONTACT_MARGIN_M)
            self.ranges.append((lo_u, hi_u, lo_v, hi_v))
        # what stands where a copy could go
        m = max(sx, sy) + config.gap_m
        lo = min(r[0] for r in self.ranges) - m, min(r[2] for r in self.ranges) - m
        hi = max(r[1] for r in self.ranges) + m, max(r[3] for r in self.ranges) + m
        w = np.asarray(walls, dtype=np.float64).reshape(-1, 4)
        self.walls = w[(w[:, 0] < hi[0]) & (w[:, 2] > lo[0]) & (w[:, 1] < hi[1])
                       & (w[:, 3] > lo[1])]

    @staticmethod
    def box(u: float, v: float, hu: float, hv: float) -> tuple[float, float, float, float]:
        return (u - hu, v - hv, u + hu, v + hv)

    def spots(self, placed: list[tuple[float, float, float, float]]
              ) -> list[tuple[float, float, float, float]]:
        """The free spots for one more copy (boxes), the smallest u first, then v."""
        boxes = np.concatenate([self.walls, np.asarray(placed, dtype=np.float64).reshape(-1, 4)])
        out: list[tuple[float, float, float, float]] = []
        for (hu, hv), (lo_u, hi_u, lo_v, hi_v) in zip(self.halves, self.ranges, strict=True):
            if lo_u > hi_u + 1e-12 or lo_v > hi_v + 1e-12:
                continue
            us = np.concatenate([[lo_u, hi_u], boxes[:, 0] - hu - self.reach,
                                 boxes[:, 2] + hu + self.reach])
            vs = np.concatenate([[lo_v, hi_v], boxes[:, 1] - hv - self.reach,
                                 boxes[:, 3] + hv + self.reach])
            us = np.unique(us[(us >= lo_u - 1e-12) & (us <= hi_u + 1e-12)])
            vs = np.unique(vs[(vs >= lo_v - 1e-12) & (vs <= hi_v + 1e-12)])
            gu, gv = np.meshgrid(us, vs, indexing="ij")
            cu, cv = gu.ravel(), gv.ravel()
            g = self.gap
            clash = ((cu[:, None] + hu > boxes[None, :, 0] - g)
                     & (cu[:, None] - hu < boxes[None, :, 2] + g)
                     & (cv[:, None] + hv > boxes[None, :, 1] - g)
                     & (cv[:, None] - hv < boxes[None, :, 3] + g)).any(axis=1)
            out += [self.box(float(u), float(v), hu, hv)
                    for u, v in zip(cu[~clash], cv[~clash], strict=True)]
        return out

    def copies(self, placed: list[tuple[float, float, float, float]], cap: int) -> int:
        """How many more copies fit beside `placed` (at most `cap`)."""
        if cap <= 0 or self.budget <= 0:
            return 0
        best = 0
        for b in self.spots(placed):
            self.budget -= 1
            best = max(best, 1 + self.copies([*placed, b], cap - 1))
            if best >= cap or self.budget <= 0:
                break
        return best


def _shut_out(g: SceneView, item: str, surface: Surface, relation: Relation
              ) -> Placement | None:
    """Why `item` goes nowhere on `surface` (its own, a closed container, too little room
    above it), None when it may."""
    if surface.object_id == item:
        return _fail(item, relation, f"`{surface.id}` is `{item}`'s own surface", surface.id)
    info = g.object(item)
    height = info.top_z - info.bottom_z
    if surface.container is not None and not surface.is_open:
        what = f" (open `{surface.part}` first)" if surface.part else ""
        return _fail(item, relation, f"`{surface.id}` is closed{what}", surface.id)
    room = headroom_m(g, surface)
    if height > room - HEADROOM_MARGIN_M:
        return _fail(item, relation, f"`{item}` ({height:.2f} m tall) does not fit under the "
                     f"{room:.2f} m clearance of `{surface.id}`", surface.id)
    return None


def place_at(g: SceneView, item: str, surface_id: str, xy: tuple[float, float],
             yaw_rad: float, config: PlacementConfig | None = None) -> Placement:
    """`item` on `surface_id` at a given pose (its centre at `xy`, turned `yaw_rad`),
    when it is free now as `find_spot` judges a spot: the surface open and high enough,
    the footprint on it, nothing within the gap. A pose found earlier (where the
    oracle put the item) checked again on the current poses."""
    import shapely

    config = config or PlacementConfig()
    s = g.surface(surface_id)
    shut = _shut_out(g, item, s, Relation.ON)
    if shut is not None:
        return shut
    info = g.object(item)
    height = info.top_z - info.bottom_z
    box = rects(xy[0], xy[1], float(info.size[0]) / 2, float(info.size[1]) / 2, yaw_rad)[0]
    where = f"at ({xy[0]:.3f}, {xy[1]:.3f}) on `{s.id}`"
    if not shapely.contains(shapely.buffer(s.polygon, FIT_SLACK_M, join_style="mitre"), box):
        return _fail(item, Relation.ON, f"`{item}` {where} would pass the surface's edge", s.id)
    obstacles = g.obstacles_on(s.id, exclude=item, height_m=height)
    if len(obstacles) and shapely.dwithin(obstacles, box, config.gap_m).any():
        return _fail(item, Relation.ON, f"`{item}` {where} would touch what stands there",
                     s.id)
    pose = Pose(position=(float(xy[0]), float(xy[1]), s.z + height / 2),
                orientation=yaw_quaternion(yaw_rad))
    return Placement(item, Relation.ON, pose, s.id, (s.id,), "", yaw_rad, box)


def _with_contacts(grid: Any, hi: float, before: Any, after: Any, bounds: Any) -> Any:
    """Candidate centre coordinates along one axis of the surface frame: the `grid`
    (from the lowest coordinate up, at most `hi`), plus `hi`, where the item touches an
    obstacle (`before` / `after` it) and a hair inside the range `bounds` its centre
    must lie in; sorted, those a hair apart merged, none outside the grid's range."""
    parts = [grid, np.array([hi]), before, after]
    if bounds is not None:
        parts.append(np.array([bounds[0] + CONTACT_MARGIN_M, bounds[1] - CONTACT_MARGIN_M]))
    c = np.concatenate(parts)
    lo = grid[0] if len(grid) else hi
    c = np.unique(c[(c >= lo - 1e-12) & (c <= hi + 1e-9)])
    if len(c) > 1:  # coordinates a hair apart are one
        c = c[np.concatenate([[True], np.diff(c) > 1e-7])]
    return c


def _pressed(ok: Any) -> Any:
    """For each spot of a grid of free spots (`ok`, axes u and v): along how many axes
    (0-2) it cannot move one grid line further on at least one side."""
    pad = np.pad(ok, 1, constant_values=False)
    free_u = pad[:-2, 1:-1] & pad[2:, 1:-1]
    free_v = pad[1:-1, :-2] & pad[1:-1, 2:]
    return (~free_u).astype(np.int8) + (~free_v).astype(np.int8)


def place_on(g: SceneView, item: str, surface_id: str,
             config: PlacementConfig | None = None) -> Placement:
    config = config or PlacementConfig()
    s = g.surface(surface_id)
    c = s.polygon.centroid
    return find_spot(g, item, s, s.polygon, (c.x, c.y), Relation.ON, config, (s.id,))


def place_in_cell(g: SceneView, item: str, surface_id: str, cell: Direction,
                  config: PlacementConfig | None = None) -> Placement:
    config = config or PlacementConfig()
    s = g.surface(surface_id)
    cells = {r.direction: r for r in grid_cells(s, g.config.regions)}
    r = cells.get(Direction(cell))
    if r is None:
        return _fail(item, Relation.IN_CELL, f"`{surface_id}` has no {cell} cell", surface_id)
    c = r.polygon.centroid
    # ManiTaskGen judges a cell by the item's centre: the footprint need only be on the
    # surface, the centre in the cell.
    return find_spot(g, item, s, s.polygon, (c.x, c.y), Relation.IN_CELL, config, (r.id,),
                     centre_in=r.polygon)


def _merges(direction: Direction) -> list[tuple[Direction, ...]]:
    """Adjacent groups of 1 to 4 ring directions containing `direction`, smallest first."""
    i = RING.index(direction)
    n = len(RING)
    out: list[tuple[Direction, ...]] = [(direction,)]
    for size in (2, 3, 4):
        for start in range(i - size + 1, i + 1):
            group = tuple(RING[(start + k) % n] for k in range(size))
            out.append(group)
    return out


def place_beside(g: SceneView, item: str, anchor: str, direction: Direction,
                 viewer_side: Side | None = None,
                 config: PlacementConfig | None = None) -> Placement:
    """Put `item` at `direction` of `anchor` (in the surface's words, or in the words of a
    viewer at `viewer_side`), merging 2-4 adjacent regions if no single one fits it."""
    import shapely

    config = config or PlacementConfig()
    s = g.parent_surface(anchor)
    if s is None:
        return _fail(item, Relation.DIRECTION, f"`{anchor}` rests on no surface")
    d = Direction(direction)
    if viewer_side is not None:
        d = surface_direction(d, Side(viewer_side))
    if d is Direction.CENTER:
        return _fail(item, Relation.DIRECTION, "`center` is not a side of an anchor", s.id)
    regions = {r.direction: r for r in g.anchor_regions(s.id, anchor, exclude=item)}
    if d not in regions:
        return _fail(item, Relation.DIRECTION,
                     f"there is no free {d.value} side of `{anchor}` on `{s.id}`", s.id)
    a = g.object(anchor).footprint
    ac = a.centroid
    last = None
    for group in _merges(d):
        if any(x not in regions for x in group):
            continue
        # A micrometre of slack so adjacent regions (and an item exactly as wide as a
        # strip) are not split by rounding.
        parts = np.array([regions[x].polygon for x in group], dtype=object)
        target = shapely.union_all(shapely.buffer(parts, 1e-6, join_style="mitre"))
        res = find_spot(g, item, s, target, (ac.x, ac.y), Relation.DIRECTION, config,
                        tuple(regions[x].id for x in group), centre_in=regions[d].polygon)
        if res.ok:
            return res
        last = res
    reason = last.reason if last else "no region"
    return _fail(item, Relation.DIRECTION, f"{reason}, {d.value} of `{anchor}`, even merging "
                 "adjacent regions", s.id)


def place_around(g: SceneView, item: str, anchor: str,
                 config: PlacementConfig | None = None) -> Placement:
    """Put `item` in any region around `anchor`: the spot nearest the anchor wins."""
    config = config or PlacementConfig()
    s = g.parent_surface(anchor)
    if s is None:
        return _fail(item, Relation.AROUND, f"`{anchor}` rests on no surface")
    best: Placement | None = None
    best_d = math.inf
    ac = g.object(anchor).footprint.centroid
    for d in RING:
        res = place_beside(g, item, anchor, d, None, config)
        if res.ok and res.pose is not None:
            dist = math.hypot(res.pose.position[0] - ac.x, res.pose.position[1] - ac.y)
            if dist < best_d - 1e-9:
                best, best_d = res, dist
    if best is None:
        return _fail(item, Relation.AROUND, f"no free spot around `{anchor}` on `{s.id}`", s.id)
    return Placement(item, Relation.AROUND, best.pose, best.surface_id, best.region_ids, "",
                     best.yaw_rad, best.footprint)


def place_between(g: SceneView, item: str, first: str, second: str,
                  config: PlacementConfig | None = None) -> Placement:
    """Put `item` between two anchors on the same surface: inside the hull of both
    footprints, its centre in the band that joins them."""
    import shapely

    config = config or PlacementConfig()
    s1, s2 = g.parent_surface(first), g.parent_surface(second)
    if s1 is None or s2 is None or s1.id != s2.id:
        return _fail(item, Relation.BETWEEN,
                     f"`{first}` and `{second}` are not on the same surface")
    a, b = g.object(first).footprint, g.object(second).footprint
    hull = shapely.intersection(shapely.convex_hull(shapely.union(a, b)), s1.polygon)
    band = shapely.difference(hull, shapely.union(a, b))
    # The centre must lie between the anchors: in the strip joining their centroids,
    # as wide as the smaller anchor.
    ca, cb = a.centroid, b.centroid
    axis = math.atan2(cb.y - ca.y, cb.x - ca.x)
    length = math.hypot(cb.x - ca.x, cb.y - ca.y)
    width = min(_width_across(a, axis), _width_across(b, axis))
    strip = rects([(ca.x + cb.x) / 2], [(ca.y + cb.y) / 2], [length / 2], [width / 2], [axis])[0]
    centre_in = shapely.difference(shapely.intersection(strip, band), shapely.union(a, b))
    if centre_in.is_empty:
        return _fail(item, Relation.BETWEEN, f"`{first}` and `{second}` touch", s1.id)
    mid = ((ca.x + cb.x) / 2, (ca.y + cb.y) / 2)
    res = find_spot(g, item, s1, s1.polygon, mid, Relation.BETWEEN, config, (s1.id,),
                    centre_in=centre_in)
    if not res.ok:
        return _fail(item, Relation.BETWEEN, f"{res.reason}, between `{first}` and `{second}`",
                     s1.id)
    return res


def _width_across(poly: Any, axis: float) -> float:
    b = frame_bounds([poly], (0.0, 0.0), axis)[0]
    return float(b[3] - b[1])


def place_inside(g: SceneView, item: str, container: str,
                 config: PlacementConfig | None = None) -> Placement:
    """Put `item` in a container (`object|container` id, or an object with one)."""
    config = config or PlacementConfig()
    floors = g.containers_of(container)
    if not floors:
        return _fail(item, Relation.INSIDE, f"`{container}` is not a container")
    last: Placement | None = None
    for s in floors:
        c = s.polygon.centroid
        res = find_spot(g, item, s, s.polygon, (c.x, c.y), Relation.INSIDE, config, (s.id,))
        if res.ok:
            return res
        last = res
    assert last is not None
    return last


#: How many arguments each relation takes (the item first): least and most.
_ARITY: dict[Relation, tuple[int, int]] = {
    Relation.ON: (2, 2), Relation.IN_CELL: (3, 3), Relation.INSIDE: (2, 2),
    Relation.DIRECTION: (3, 4), Relation.AROUND: (2, 2), Relation.BETWEEN: (3, 3),
}


def place(view: SceneView, relation: Relation | str, args: Sequence[str],
          config: PlacementConfig | None = None) -> Placement:
    """Where the item `args[0]` can go so that `relation` holds with the rest of `args`:
    the one dispatch from a relation to its placement query.

    - `on`: (item, surface);
    - `in_cell`: (item, surface, cell);
    - `inside`: (item, container: `object|container`, or an object with one);
    - `direction`: (item, anchor, direction[, viewer side]): the direction in the
      surface's words, or in those of a viewer at that side;
    - `around`: (item, anchor);
    - `between`: (item, first anchor, second anchor).

    Raises ValueError for an unknown relation, a wrong number of arguments, or a word
    that is not a direction, cell or side."""
    try:
        rel = Relation(relation)
    except ValueError:
        known = ", ".join(r.value for r in Relation)
        raise ValueError(f"unknown relation `{relation}` (known: {known})") from None
    low, high = _ARITY[rel]
    if not low <= len(args) <= high:
        count = str(low) if low == high else f"{low} or {high}"
        raise ValueError(f"`{rel.value}` takes {count} arguments (the item first), "
                         f"not {len(args)}")
    # A view built once per state and read-only keeps its answers (`placement_memo`):
    # the oracle previews a placement and the world then makes it, one query twice.
    memo: dict[Any, Placement] | None = getattr(view, "placement_memo", None)
    if memo is None:
        return _place(view, rel, args, config)
    key = (rel, tuple(args), config)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _place(view, rel, args, config)
    return found


def _place(view: SceneView, rel: Relation, args: Sequence[str],
           config: PlacementConfig | None) -> Placement:
    """`place`'s dispatch, its arguments checked."""
    item, target, *rest = args
    if rel is Relation.ON:
        return place_on(view, item, target, config)
    if rel is Relation.IN_CELL:
        return place_in_cell(view, item, target, Direction(rest[0]), config)
    if rel is Relation.INSIDE:
        return place_inside(view, item, target, config)
    if rel is Relation.DIRECTION:
        side = Side(rest[1]) if len(rest) > 1 else None
        return place_beside(view, item, target, Direction(rest[0]), side, config)
    if rel is Relation.AROUND:
        return place_around(view, item, target, config)
    return place_between(view, item, target, rest[0], config)
