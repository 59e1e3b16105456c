"""Regions of a surface: the 3x3 grid of thirds, and the 8 regions around each anchor.

All in the surface's own frame (u to the front of the object carrying it, v to its own
left), named as a viewer facing the front sees them: "left" is that viewer's left.
Around an anchor, the 4 edge strips run from the anchor's sides to the surface edge and
the 4 corner quadrants fill the diagonals; each is cut back at the first neighbour (an
item on the surface, a fixed obstacle, a wall) and clipped to the surface outline.
`relative_direction` turns these words into those of a viewer standing at another side
of the surface (at the front they are unchanged).
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from fdc.sim_bridge.geometry import Array, frame_bounds, from_frame, rects
from fdc.sim_bridge.graph.surfaces import Surface


class Direction(StrEnum):
    REAR = "rear"
    REAR_LEFT = "rear-left"
    LEFT = "left"
    FRONT_LEFT = "front-left"
    FRONT = "front"
    FRONT_RIGHT = "front-right"
    RIGHT = "right"
    REAR_RIGHT = "rear-right"
    CENTER = "center"


#: The 8 directions around an anchor, in ring order (adjacent entries touch).
RING: tuple[Direction, ...] = (
    Direction.REAR,
    Direction.REAR_LEFT,
    Direction.LEFT,
    Direction.FRONT_LEFT,
    Direction.FRONT,
    Direction.FRONT_RIGHT,
    Direction.RIGHT,
    Direction.REAR_RIGHT,
)

#: Unit steps (u, v) of each direction: u to the front, v to the object's own left. The
#: words are those of a viewer facing the front (ManiTaskGen's: counter-clockwise from
#: the rear, seen from above), so "left" is the viewer's left: the object's own right, -v.
STEP: dict[Direction, tuple[int, int]] = {
    Direction.REAR: (-1, 0),
    Direction.REAR_LEFT: (-1, -1),
    Direction.LEFT: (0, -1),
    Direction.FRONT_LEFT: (1, -1),
    Direction.FRONT: (1, 0),
    Direction.FRONT_RIGHT: (1, 1),
    Direction.RIGHT: (0, 1),
    Direction.REAR_RIGHT: (-1, 1),
    Direction.CENTER: (0, 0),
}
_FROM_STEP = {v: k for k, v in STEP.items()}


class Side(StrEnum):
    """The side of a surface an agent stands at (the outward normal, in surface terms)."""

    FRONT = "front"
    REAR = "rear"
    LEFT = "left"
    RIGHT = "right"


_SIDE_NORMAL = {Side.FRONT: (1, 0), Side.REAR: (-1, 0), Side.LEFT: (0, -1), Side.RIGHT: (0, 1)}


def relative_direction(direction: Direction, side: Side) -> Direction:
    """The surface-frame `direction` in the words of a viewer at `side` facing the
    surface: "front" is towards the viewer, "left" is the viewer's left."""
    du, dv = STEP[direction]
    nu, nv = _SIDE_NORMAL[side]
    lu, lv = nv, -nu  # the viewer faces -n; their left is -n turned 90 deg anticlockwise
    f = du * nu + dv * nv
    left = du * lu + dv * lv
    return _FROM_STEP[(int(np.sign(f)), -int(np.sign(left)))]  # the words' v is -left


def surface_direction(viewer_direction: Direction, side: Side) -> Direction:
    """Inverse of `relative_direction`."""
    for d in STEP:
        if relative_direction(d, side) is viewer_direction:
            return d
    raise ValueError(viewer_direction)  # pragma: no cover - every direction maps


@dataclass(frozen=True, eq=False)
class Region:
    id: str
    surface_id: str
    anchor_id: str | None  # None for a 3x3 cell
    direction: Direction
    polygon: Any  # shapely, world (x, y), clipped to the surface
    box: tuple[float, float, float, float]  # (u0, v0, u1, v1) in the surface frame

    @property
    def area_m2(self) -> float:
        return float(self.polygon.area)


@dataclass(frozen=True)
class RegionConfig:
    min_area_m2: float = 0.0025
    min_depth_m: float = 0.02  # thinner strips are dropped
    eps_m: float = 1e-6


def grid_cells(surface: Surface, config: RegionConfig) -> list[Region]:
    """The 3x3 grid of thirds of the surface's box, clipped to its outline."""
    import shapely

    hu, hv = surface.half_extents
    edges_u = np.array([-hu, -hu / 3, hu / 3, hu])
    edges_v = np.array([-hv, -hv / 3, hv / 3, hv])
    boxes, dirs = [], []
    for iu, su in ((2, 1), (1, 0), (0, -1)):
        for iv, sv in ((2, 1), (1, 0), (0, -1)):
            boxes.append((edges_u[iu], edges_v[iv], edges_u[iu + 1], edges_v[iv + 1]))
            dirs.append(_FROM_STEP[(su, sv)])
    polys = _frame_boxes_to_world(np.array(boxes), surface)
    clipped = shapely.intersection(polys, surface.polygon)
    return [
        Region(f"{surface.id}#cell:{d.value}", surface.id, None, d, shapely.normalize(p),
               tuple(float(x) for x in b))  # type: ignore[arg-type]
        for d, p, b in zip(dirs, clipped, boxes, strict=True)
        if p.area >= config.min_area_m2 * 0.999
    ]


def _frame_boxes_to_world(boxes: Array, surface: Surface) -> Any:
    cu = (boxes[:, 0] + boxes[:, 2]) / 2
    cv = (boxes[:, 1] + boxes[:, 3]) / 2
    c = from_frame(np.stack([cu, cv], axis=1), surface.origin, surface.yaw_rad)
    return rects(c[:, 0], c[:, 1], (boxes[:, 2] - boxes[:, 0]) / 2,
                 (boxes[:, 3] - boxes[:, 1]) / 2, surface.yaw_rad)


# Signed permutations taking each direction to the canonical +u (strips) or +u+v (corners).
_CANON: dict[Direction, Array] = {
    Direction.FRONT: np.array([[1, 0], [0, 1]]),
    Direction.REAR: np.array([[-1, 0], [0, 1]]),
    Direction.LEFT: np.array([[0, -1], [1, 0]]),  # left is -v (see STEP)
    Direction.RIGHT: np.array([[0, 1], [1, 0]]),
    Direction.FRONT_LEFT: np.array([[1, 0], [0, -1]]),
    Direction.REAR_LEFT: np.array([[-1, 0], [0, -1]]),
    Direction.FRONT_RIGHT: np.array([[1, 0], [0, 1]]),
    Direction.REAR_RIGHT: np.array([[-1, 0], [0, 1]]),
}


def _map_boxes(boxes: Array, m: Array) -> Array:
    """Boxes (..., 4) through the linear map m (a signed permutation): their new bounds."""
    lo = boxes[..., :2] @ m.T
    hi = boxes[..., 2:] @ m.T
    return np.concatenate([np.minimum(lo, hi), np.maximum(lo, hi)], axis=-1)


_INDEX_FROM = 64  # more obstacles than this on a surface: corners cut through an STRtree
_RING_M = 0.25  # the first ring's radius around a corner (doubling after) ...
_RING_ABOVE = 256  # ... while the region holds more boxes than this


def anchor_regions(
    surface: Surface,
    anchor_ids: list[str],
    anchor_footprints: Any,
    obstacles: Any,
    config: RegionConfig,
) -> list[Region]:
    """The 8 regions around each anchor on `surface`. `obstacles` are extra shapes
    (walls, fixed objects) that cut regions besides the other anchors."""
    import shapely

    k = len(anchor_ids)
    if k == 0:
        return []
    origin, yaw = surface.origin, surface.yaw_rad
    a_box = frame_bounds(anchor_footprints, origin, yaw)
    obs = np.asarray(obstacles, dtype=object).reshape(-1)
    if len(obs):
        rect = _frame_boxes_to_world(
            np.array([[-surface.half_extents[0], -surface.half_extents[1],
                       surface.half_extents[0], surface.half_extents[1]]]), surface)[0]
        pieces = [p for p in shapely.get_parts(shapely.intersection(obs, rect)) if not p.is_empty]
        o_box = frame_bounds(pieces, origin, yaw) if pieces else np.zeros((0, 4))
    else:
        o_box = np.zeros((0, 4))
    hu, hv = surface.half_extents
    s_box = np.array([-hu, -hv, hu, hv])
    all_obs = np.concatenate([a_box, o_box], axis=0)
    others = np.ones(len(all_obs), dtype=bool)  # the obstacles besides anchor i (reused)
    boxes: list[Array] = []
    meta: list[tuple[int, Direction]] = []
    eps = config.eps_m
    for d in RING:
        m = _CANON[d]
        a = _map_boxes(a_box, m)
        o = _map_boxes(all_obs, m)
        s = _map_boxes(s_box, m)
        tree = shapely.STRtree(shapely.box(o[:, 0], o[:, 1], o[:, 2], o[:, 3]))
        if d in (Direction.FRONT, Direction.REAR, Direction.LEFT, Direction.RIGHT):
            region = np.stack([a[:, 2], a[:, 1], np.full(k, s[2]), a[:, 3]], axis=1)
            # Only a box meeting the side region can shorten it: the tree finds those
            # pairs (not an anchor x obstacle matrix on a surface crowded with items).
            ai, oi = tree.query(shapely.box(region[:, 0] - eps, region[:, 1] - eps,
                                            region[:, 2] + eps, region[:, 3] + eps))
            over = ((o[oi, 1] < a[ai, 3] - eps) & (o[oi, 3] > a[ai, 1] + eps)
                    & (o[oi, 2] > a[ai, 2] + eps) & (ai != oi))
            ai, oi = ai[over], oi[over]
            np.minimum.at(region[:, 2], ai, np.maximum(o[oi, 0], a[ai, 2]))
        else:
            region = np.stack([a[:, 2], a[:, 3], np.full(k, s[2]), np.full(k, s[3])], axis=1)
            if len(o) > _INDEX_FROM:
                for i in range(k):
                    region[i] = _cut_corner_indexed(region[i], o, tree, i, eps)
            else:
                for i in range(k):
                    others[i] = False
                    region[i] = _cut_corner(region[i], o[others], eps)
                    others[i] = True
        back = _map_boxes(region, m.T)
        for i in range(k):
            boxes.append(back[i])
            meta.append((i, d))
    box_arr = np.array(boxes)
    deep = np.minimum(box_arr[:, 2] - box_arr[:, 0], box_arr[:, 3] - box_arr[:, 1])
    ok = deep >= config.min_depth_m
    out: list[Region] = []
    if not ok.any():
        return out
    polys = shapely.intersection(_frame_boxes_to_world(box_arr[ok], surface), surface.polygon)
    for (i, d), b, p in zip(
        [mm for mm, good in zip(meta, ok, strict=True) if good], box_arr[ok], polys, strict=True
    ):
        if p.area < config.min_area_m2 * 0.999:
            continue
        out.append(
            Region(
                f"{surface.id}#{anchor_ids[i]}:{d.value}",
                surface.id,
                anchor_ids[i],
                d,
                shapely.normalize(p),
                (float(b[0]), float(b[1]), float(b[2]), float(b[3])),
            )
        )
    return out


def _cut_corner(region: Array, obs: Array, eps: float) -> Array:
    """Shrink a canonical (+u, +v) corner box [u0, u1] x [v0, v1] until no obstacle
    overlaps it, nearest obstacle first, each time keeping the larger of the two cuts."""
    u0, v0, u1, v1 = region
    if u1 - u0 <= eps or v1 - v0 <= eps or len(obs) == 0:
        return region
    obs = obs[(obs[:, 2] > u0 + eps) & (obs[:, 3] > v0 + eps)]
    near = np.hypot(np.maximum(obs[:, 0] - u0, 0), np.maximum(obs[:, 1] - v0, 0))
    u1, v1, _ = _cut(u0, v0, u1, v1, obs[np.argsort(near, kind="stable")], eps)
    return np.array([u0, v0, u1, v1])


def _cut_corner_indexed(region: Array, obs: Array, tree: Any, skip: int, eps: float
                        ) -> Array:
    """`_cut_corner` against every box of `obs` but the `skip`-th, found through `tree`
    (an STRtree of the boxes) in rings of doubling distance from the corner: the same
    boxes in the same order (by distance, then index), without a pass over all of them
    (a surface may carry thousands of items)."""
    import shapely

    u0, v0, u1, v1 = region
    done, r = -1.0, _RING_M
    while u1 - u0 > eps and v1 - v0 > eps:
        # After the first ring (the region cut once, mostly to a strip), the boxes left in
        # it are few more often than not.
        idx = tree.query(shapely.box(u0 - eps, v0 - eps, u1 + eps, v1 + eps)) \
            if done >= 0 else None
        if idx is not None and len(idx) <= _RING_ABOVE:
            r = math.inf  # few boxes left in the region: the last ring holds them all
        else:
            # A box within r of the corner that overlaps the region meets this window.
            idx = tree.query(shapely.box(u0 - eps, v0 - eps, min(u1, u0 + r) + eps,
                                         min(v1, v0 + r) + eps))
        idx = idx[idx != skip]
        c = obs[idx]
        near = np.hypot(np.maximum(c[:, 0] - u0, 0), np.maximum(c[:, 1] - v0, 0))
        ring = (near > done) & (near <= r) & (c[:, 2] > u0 + eps) & (c[:, 3] > v0 + eps)
        idx, c, near = idx[ring], c[ring], near[ring]
        u1, v1, stopped = _cut(u0, v0, u1, v1, c[np.lexsort((idx, near))], eps)
        if stopped or r >= math.hypot(u1 - u0, v1 - v0):
            break  # every box still overlapping the region lies within r
        done, r = r, 2 * r
    return np.array([u0, v0, u1, v1])


def _cut(u0: float, v0: float, u1: float, v1: float, obs: Array, eps: float
         ) -> tuple[float, float, bool]:
    """The corner box cut by `obs` in their order (the box only shrinks, u0 and v0 stay:
    a box that misses it now misses it for good); whether it became degenerate."""
    while len(obs):
        hit = np.nonzero((obs[:, 0] < u1 - eps) & (obs[:, 1] < v1 - eps))[0]
        if not len(hit):
            break
        ou0, ov0 = obs[hit[0], 0], obs[hit[0], 1]
        obs = obs[hit[0] + 1:]
        cut_u = max(ou0, u0)
        cut_v = max(ov0, v0)
        if (cut_u - u0) * (v1 - v0) >= (u1 - u0) * (cut_v - v0):
            u1 = cut_u
        else:
            v1 = cut_v
        if u1 - u0 <= eps or v1 - v0 <= eps:
            return u1, v1, True
    return u1, v1, False
