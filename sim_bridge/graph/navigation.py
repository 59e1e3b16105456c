"""Where the robot can go: the occupancy grid of the floor, the navigation graph
(networkx), geodesic distances and shortest paths, and standing points at furniture.

The robot is a disc of `agent.radius_m`. Its centre may be anywhere in `free`: the floor
minus walls and obstacles, shrunk by the radius. The grid marks the cells whose centres
lie in `free`; neighbouring free cells (8-connected, no corner cutting) are joined by
edges weighted by their distance. Paths found on the grid are pulled taut against `free`
so distances are not inflated by the grid's 45-degree steps.
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from heapq import heappop, heappush
from itertools import count
from typing import Any

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.geometry import Array, frame_bounds, from_frame
from fdc.sim_bridge.graph.regions import Side
from fdc.sim_bridge.graph.surfaces import Surface, component_labels


def grid_shape(bounds: tuple[float, float, float, float], resolution_m: float
               ) -> tuple[int, int]:
    """(columns, rows) of the navigation grid over `bounds` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = bounds
    return (max(1, math.ceil((x1 - x0) / resolution_m)),
            max(1, math.ceil((y1 - y0) / resolution_m)))


@dataclass(frozen=True)
class NavConfig:
    resolution_m: float = 0.1
    standing_clearance_m: float = 0.35  # free radius around a standing point
    standing_band_m: float = 0.5  # standing points lie this close to the furniture
    standing_step_m: float = 0.05  # sampling along each side
    standing_depth_step_m: float = 0.05  # sampling across the band


@dataclass(frozen=True, eq=False)
class StandingPoint:
    id: str
    surface_id: str
    object_id: str
    side: Side
    position: tuple[float, float]
    yaw_rad: float  # facing the furniture
    depth_m: float  # distance from the furniture's side
    node: int  # nearest navigation node, -1: none
    reachable: bool  # connected to the agent's start


class Navigation:
    """The occupancy grid and navigation graph of a floor."""

    def __init__(self, free: Any, blocked: Any, bounds: tuple[float, float, float, float],
                 resolution_m: float, start_xy: tuple[float, float]) -> None:
        import networkx as nx
        import shapely

        self.free = free  # where the robot's centre may be
        self.blocked = blocked  # walls and obstacle footprints (not grown)
        shapely.prepare(self.free)
        self.resolution_m = resolution_m
        x0, y0 = bounds[0], bounds[1]
        self.origin = (x0, y0)
        nx_, ny_ = grid_shape(bounds, resolution_m)
        xs = x0 + (np.arange(nx_) + 0.5) * resolution_m
        ys = y0 + (np.arange(ny_) + 0.5) * resolution_m
        gx, gy = np.meshgrid(xs, ys, indexing="xy")  # (ny, nx)
        mask = shapely.contains_xy(self.free, gx, gy) if not self.free.is_empty else \
            np.zeros_like(gx, dtype=bool)
        self.occupancy = ~mask  # True: blocked
        index = np.full(mask.shape, -1, dtype=np.int64)
        index[mask] = np.arange(int(mask.sum()))
        self.index = index
        self.nodes_xy = np.stack([gx[mask], gy[mask]], axis=1)
        a_list, b_list, w_list = [], [], []
        for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cs, cd = _cols(dx, nx_)
            src = index[0: ny_ - dy, cs]
            dst = index[dy: ny_, cd]
            ok = (src >= 0) & (dst >= 0)
            if dx and dy:  # no corner cutting: both orthogonal neighbours free
                ok &= (index[0: ny_ - dy, cd] >= 0) & (index[dy: ny_, cs] >= 0)
            a_list.append(src[ok])
            b_list.append(dst[ok])
            w_list.append(np.full(int(ok.sum()), resolution_m * math.hypot(dx, dy)))
        a = np.concatenate(a_list)
        b = np.concatenate(b_list)
        w = np.concatenate(w_list)
        graph = nx.Graph()
        graph.add_nodes_from(range(len(self.nodes_xy)))
        graph.add_weighted_edges_from(zip(a.tolist(), b.tolist(), w.tolist(), strict=True))
        self.graph = graph
        self._edges = (a, b, w)

        self.components = component_labels(len(self.nodes_xy), np.stack([a, b], axis=1))
        self._paths: dict[tuple[float, float, float, float], list[tuple[float, float]]] = {}
        self._nearest: dict[tuple[float, float], int] = {}
        self.start_node = self.nearest_node(start_xy)

    @property
    def node_count(self) -> int:
        return len(self.nodes_xy)

    @cached_property
    def adjacency(self) -> Any:
        """The navigation graph as a scipy CSR matrix (both directions of every edge,
        weights in metres, the same floats as `graph`): what the compiled route searches
        (`routes.Walker`) walk."""
        import scipy.sparse

        a, b, w = self._edges
        n = self.node_count
        return scipy.sparse.csr_matrix(
            (np.concatenate([w, w]), (np.concatenate([a, b]), np.concatenate([b, a]))),
            shape=(n, n))

    def nearest_nodes(self, xy: npt.ArrayLike) -> Array:
        """The nearest free node to each point (-1 when the grid has none)."""
        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        out = np.full(len(pts), -1, dtype=np.int64)
        if self.node_count == 0:
            return out
        ix = np.floor((pts[:, 0] - self.origin[0]) / self.resolution_m).astype(np.int64)
        iy = np.floor((pts[:, 1] - self.origin[1]) / self.resolution_m).astype(np.int64)
        inside = (ix >= 0) & (iy >= 0) & (ix < self.index.shape[1]) & (iy < self.index.shape[0])
        direct = np.full(len(pts), -1, dtype=np.int64)
        direct[inside] = self.index[iy[inside], ix[inside]]
        out[:] = direct
        missing = np.nonzero(direct < 0)[0]
        if len(missing):
            # Look in a window of cells around each point first (no scan of the grid).
            w = 4
            off = np.arange(-w, w + 1)
            oy, ox = np.meshgrid(off, off, indexing="ij")
            cy = iy[missing, None] + oy.ravel()[None, :]
            cx = ix[missing, None] + ox.ravel()[None, :]
            ny, nx_ = self.index.shape
            ok = (cy >= 0) & (cx >= 0) & (cy < ny) & (cx < nx_)
            cand = np.full(cy.shape, -1, dtype=np.int64)
            cand[ok] = self.index[cy[ok], cx[ok]]
            xy = self.nodes_xy[np.maximum(cand, 0)]
            d = np.hypot(xy[..., 0] - pts[missing, 0, None], xy[..., 1] - pts[missing, 1, None])
            d[cand < 0] = np.inf
            best = np.argmin(d, axis=1)
            found = np.isfinite(d[np.arange(len(missing)), best])
            out[missing[found]] = cand[np.arange(len(missing)), best][found]
            for k in missing[~found]:
                dd = np.hypot(*(self.nodes_xy - pts[k]).T)
                out[k] = int(np.argmin(dd))
        return out

    def nearest_node(self, xy: tuple[float, float] | Array) -> int:
        # A point in a free cell is that cell's node: read directly (the same arithmetic
        # as `nearest_nodes`, without its arrays), as most points asked about are. The
        # others (an item's centre, asked at every frame it is near) are memoised.
        x, y = float(xy[0]), float(xy[1])
        if math.isfinite(x) and math.isfinite(y):
            ix = math.floor((x - self.origin[0]) / self.resolution_m)
            iy = math.floor((y - self.origin[1]) / self.resolution_m)
            if 0 <= iy < self.index.shape[0] and 0 <= ix < self.index.shape[1]:
                found = int(self.index[iy, ix])
                if found >= 0:
                    return found
        known = self._nearest.get((x, y))
        if known is None:
            known = self._nearest[x, y] = int(self.nearest_nodes(np.asarray(xy)[:2])[0])
            if len(self._nearest) > 4096:  # a bounded memo: the oldest goes first
                del self._nearest[next(iter(self._nearest))]
        return known

    def connected(self, a: int, b: int) -> bool:
        return a >= 0 and b >= 0 and bool(self.components[a] == self.components[b])

    def path_between(self, a_xy: tuple[float, float], b_xy: tuple[float, float]
                     ) -> list[tuple[float, float]] | None:
        """A taut path of points from a to b, or None when they are not connected
        (memoised: a robot turning in place asks the same question again and again)."""
        na, nb = self.nearest_node(a_xy), self.nearest_node(b_xy)
        if not self.connected(na, nb):
            return None
        key = (float(a_xy[0]), float(a_xy[1]), float(b_xy[0]), float(b_xy[1]))
        found = self._paths.get(key)
        if found is None:
            found = self._paths[key] = self._path_between(a_xy, b_xy, na, nb)
            if len(self._paths) > 4096:  # a bounded memo: the oldest goes first
                del self._paths[next(iter(self._paths))]
        return list(found)

    def _path_between(self, a_xy: tuple[float, float], b_xy: tuple[float, float],
                      na: int, nb: int) -> list[tuple[float, float]]:
        import shapely

        a = (float(a_xy[0]), float(a_xy[1]))
        b = (float(b_xy[0]), float(b_xy[1]))
        # In the open, the straight segment is the shortest path: no search needed.
        if shapely.covers(self._allowed([a, b]), shapely.linestrings([a, b])):
            return [a, b] if a != b else [a]
        xs, ys = self._node_xs
        pts = [a] + [(xs[n], ys[n]) for n in self._astar(na, nb)] + [b]
        return self._pull_taut(pts)

    @cached_property
    def _node_xs(self) -> tuple[list[float], list[float]]:
        """The nodes' x and y as Python floats (what the A* search reads)."""
        return self.nodes_xy[:, 0].tolist(), self.nodes_xy[:, 1].tolist()

    @cached_property
    def _neighbours(self) -> list[list[tuple[int, float]]]:
        """Each node's (neighbour, edge weight) in `graph`'s adjacency order."""
        adj = self.graph._adj
        return [[(m, d["weight"]) for m, d in adj[n].items()] for n in range(self.node_count)]

    def _astar(self, source: int, target: int) -> list[int]:
        """The nodes of a shortest grid path from `source` to `target` (connected), the
        straight distance to the target as the heuristic: networkx's `astar_path` step for
        step (its queue, its counter breaking ties, its skips), over plain lists, so the
        same path among the grid's many equally short ones."""
        xs, ys = self._node_xs
        tx, ty = xs[target], ys[target]
        neighbours = self._neighbours
        c = count()
        queue: list[tuple[float, int, int, float, int | None]] = [(0, next(c), source, 0, None)]
        enqueued: dict[int, tuple[float, float]] = {}
        explored: dict[int, int | None] = {}
        while queue:
            _, __, here, dist, parent = heappop(queue)
            if here == target:
                path = [here]
                while parent is not None:
                    path.append(parent)
                    parent = explored[parent]
                path.reverse()
                return path
            if here in explored and (explored[here] is None or enqueued[here][0] < dist):
                continue
            explored[here] = parent
            for m, w in neighbours[here]:
                cost = dist + w
                seen = enqueued.get(m)
                if seen is not None:
                    if seen[0] <= cost:
                        continue
                    h = seen[1]
                else:
                    h = math.hypot(xs[m] - tx, ys[m] - ty)
                enqueued[m] = cost, h
                heappush(queue, (cost + h, next(c), m, cost, here))
        raise ValueError(f"node {target} is not reachable from node {source}")

    def _allowed(self, pts: list[tuple[float, float]]) -> Any:
        """Where a path through `pts` may run: `free` clipped to the points' box grown by a
        few cells (string pulling keeps to the points' hull and each nudge moves at most
        a cell in all, so the clip answers every containment test as `free` would, at a
        fraction of the cost on a large floor), plus a disc around an end outside `free`
        (an object's centre) reaching it. Prepared."""
        import shapely

        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        m = 4 * self.resolution_m
        allowed = shapely.clip_by_rect(self.free, min(xs) - m, min(ys) - m, max(xs) + m,
                                       max(ys) + m)
        for end in (pts[0], pts[-1]):
            p = shapely.Point(end)
            if not shapely.covers(self.free, p):
                reach = float(shapely.distance(self.free, p)) + self.resolution_m
                allowed = shapely.union(allowed, p.buffer(reach))
        shapely.prepare(allowed)
        return allowed

    def _pull_taut(self, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """Shorten a grid path inside `free`: greedy string pulling, then each corner is
        nudged (on shrinking local grids) to where its two legs are shortest and still
        free, then pulled again. The end points may lie outside `free` (an object's
        centre): the region allowed is `free` plus a disc around each end reaching it."""
        if len(pts) <= 2:
            return pts
        allowed = self._allowed(pts)
        arr = np.asarray(pts, dtype=np.float64)
        arr = _split_corners(self._pull(arr, allowed), 3 * self.resolution_m)
        step = self.resolution_m
        offsets = np.stack(np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5)),
                           axis=-1).reshape(-1, 2)
        stay = len(offsets) // 2  # the offset (0, 0): staying put is always allowed
        for _ in range(6):
            moves = offsets * step
            for i in range(1, len(arr) - 1):
                arr[i] = _nudged(arr[i - 1], arr[i] + moves, arr[i + 1], stay, allowed)
            step /= 2
        arr = self._pull(arr, allowed)
        return [(float(x), float(y)) for x, y in arr]

    @staticmethod
    def _pull(arr: Array, allowed: Any) -> Array:
        """Greedy string pulling: from each kept point jump to the farthest later point
        whose straight segment stays in `allowed`."""
        import shapely

        keep = [0]
        i = 0
        while i < len(arr) - 1:
            later = arr[i + 1:]
            lines = shapely.linestrings(
                np.stack([np.broadcast_to(arr[i], later.shape), later], axis=1))
            ok = shapely.covers(allowed, lines)
            ok[0] = True
            i = i + 1 + int(np.nonzero(ok)[0].max())
            keep.append(i)
        out = arr[keep]
        same = np.r_[False, np.all(np.abs(np.diff(out, axis=0)) < 1e-12, axis=1)]
        return out[~same]

    def distances_from(self, xy: tuple[float, float]) -> Array:
        """Grid geodesic distance (metres) from a point to every node (inf: unreachable)."""
        import networkx as nx

        out = np.full(self.node_count, np.inf)
        n = self.nearest_node(xy)
        if n < 0:
            return out
        lengths = nx.single_source_dijkstra_path_length(self.graph, n, weight="weight")
        keys = np.fromiter(lengths.keys(), dtype=np.int64, count=len(lengths))
        vals = np.fromiter(lengths.values(), dtype=np.float64, count=len(lengths))
        out[keys] = vals + float(math.hypot(*(self.nodes_xy[n] - np.asarray(xy[:2]))))
        return out


def _nudged(prev: Array, cand: Array, nxt: Array, stay: int, allowed: Any) -> Array:
    """The candidate corner whose legs from `prev` and to `nxt` are shortest and lie in
    `allowed`, the first of equals (`cand[stay]`, staying put, is always allowed).
    Only a candidate no longer than staying put can be chosen, so only those are tested,
    the shortest first (alone, as it usually passes), then the others before staying
    put in one call: the same choice as testing them all."""
    d_in, d_out = cand - prev, nxt - cand
    cost = np.hypot(d_in[:, 0], d_in[:, 1]) + np.hypot(d_out[:, 0], d_out[:, 1])
    order = np.flatnonzero(cost <= cost[stay])
    order = order[np.argsort(cost[order], kind="stable")].tolist()
    test = order[: order.index(stay)]
    for part in (test[:1], test[1:]):
        if part:
            inside = _legs_inside(prev, cand[part], nxt, allowed)
            if inside.any():
                return cand[part[int(np.argmax(inside))]]
    return cand[stay]


def _legs_inside(prev: Array, via: Array, nxt: Array, allowed: Any) -> Array:
    """Whether both legs, `prev` to each point of `via` and on to `nxt`, lie in `allowed`."""
    import shapely

    n = len(via)
    legs = np.empty((2 * n, 2, 2))
    legs[:n, 0], legs[:n, 1], legs[n:, 0], legs[n:, 1] = prev, via, via, nxt
    inside = shapely.covers(allowed, shapely.linestrings(legs))
    return inside[:n] & inside[n:]


def _split_corners(arr: Array, reach: float) -> Array:
    """Add a point on each leg next to every corner, so a corner passing two obstacles
    (a doorway's two jambs) can become two corners."""
    if len(arr) <= 2:
        return arr
    out = [arr[0]]
    for i in range(1, len(arr) - 1):
        prev, here, nxt = arr[i - 1], arr[i], arr[i + 1]
        d_in = float(np.hypot(*(here - prev)))
        d_out = float(np.hypot(*(nxt - here)))
        if d_in > 1e-9:
            out.append(here - (here - prev) * min(reach, d_in / 3) / d_in)
        out.append(here)
        if d_out > 1e-9:
            out.append(here + (nxt - here) * min(reach, d_out / 3) / d_out)
    out.append(arr[-1])
    return np.array(out)


def _cols(dx: int, n: int) -> tuple[slice, slice]:
    """Column slices of the source and destination cells of a shift by dx."""
    if dx > 0:
        return slice(0, n - dx), slice(dx, n)
    if dx < 0:
        return slice(-dx, n), slice(0, n + dx)
    return slice(0, n), slice(0, n)


def path_length(points: list[tuple[float, float]]) -> float:
    p = np.asarray(points, dtype=np.float64)
    if len(p) < 2:
        return 0.0
    return float(np.hypot(*np.diff(p, axis=0).T).sum())


def standing_points(
    surfaces: list[Surface],
    carrier_footprints: dict[str, Any],
    obstacles: Any,
    floor: Any,
    nav: Navigation,
    config: NavConfig,
) -> list[StandingPoint]:
    """Standing points along the four sides of each surface, outside its furniture.

    A candidate lies `standing_clearance_m` to `standing_band_m` out from the furniture's
    side, within the surface's extent along that side; it is valid when every obstacle
    (walls included) is at least `standing_clearance_m` away and it is on the floor.
    Each run of valid positions along a side gives one point, at the run's middle, as
    close to the furniture as the clearance allows."""

    if not surfaces:
        return []
    depths = np.arange(config.standing_clearance_m,
                       config.standing_band_m + 1e-9, config.standing_depth_step_m)
    sides = (Side.FRONT, Side.REAR, Side.LEFT, Side.RIGHT)
    cand_xy: list[Array] = []
    groups: list[tuple[int, Side, Array, float]] = []  # surface, side, along, line position
    for si, s in enumerate(surfaces):
        fb = frame_bounds([carrier_footprints[s.object_id], s.polygon], s.origin, s.yaw_rad)
        u0, v0 = fb[:, 0].min(), fb[:, 1].min()
        u1, v1 = fb[:, 2].max(), fb[:, 3].max()
        su0, sv0, su1, sv1 = frame_bounds([s.polygon], s.origin, s.yaw_rad)[0]
        for side in sides:
            if side in (Side.FRONT, Side.REAR):
                lo, hi, line = sv0, sv1, (u1 if side is Side.FRONT else u0)
            else:
                lo, hi, line = su0, su1, (v1 if side is Side.LEFT else v0)
            n = max(1, math.ceil((hi - lo) / config.standing_step_m - 1e-9) + 1)
            along = np.linspace(lo, hi, n) if n > 1 else np.array([(lo + hi) / 2])
            groups.append((si, side, along, float(line)))
            cand_xy.append(_side_points(s, side, along, line, depths))
    pts = np.concatenate(cand_xy, axis=0)
    valid = _valid_standing(pts, obstacles, floor, config.standing_clearance_m)
    out: list[StandingPoint] = []
    offset = 0
    mids: list[tuple[int, Side, float, float, Array]] = []
    for si, side, along, line in groups:
        m = len(along) * len(depths)
        v = valid[offset: offset + m].reshape(len(along), len(depths))
        offset += m
        any_ok = v.any(axis=1)
        if not any_ok.any():
            continue
        edges = np.diff(np.r_[0, any_ok.astype(np.int8), 0])
        starts = np.nonzero(edges == 1)[0]
        ends = np.nonzero(edges == -1)[0] - 1
        for a, b in zip(starts, ends, strict=True):
            mid = float(along[a] + along[b]) / 2
            first_depth = v[(a + b) // 2].argmax()
            mids.append((si, side, mid, line, depths[first_depth:]))
    if not mids:
        return out
    # Check the mid points themselves; fall back to the sample nearest the middle.
    flat = [(_side_points(surfaces[si], side, np.array([mid]), line, ds), ds)
            for si, side, mid, line, ds in mids]
    mid_pts = np.concatenate([f[0] for f in flat], axis=0)
    mid_ok = _valid_standing(mid_pts, obstacles, floor, config.standing_clearance_m)
    chosen_xy: list[Array] = []
    chosen_depth: list[float] = []
    k = 0
    for (_, _, _, _, ds), (p, _) in zip(mids, flat, strict=True):
        ok = mid_ok[k: k + len(ds)]
        k += len(ds)
        j = int(ok.argmax()) if ok.any() else 0
        chosen_xy.append(p[j])
        chosen_depth.append(float(ds[j]))
    chosen = np.array(chosen_xy)
    nodes = nav.nearest_nodes(chosen)
    counter: dict[tuple[str, Side], int] = {}
    for (si, side, _, _, _), p, d, node in zip(mids, chosen, chosen_depth, nodes, strict=True):
        s = surfaces[si]
        key = (s.id, side)
        idx = counter.get(key, 0)
        counter[key] = idx + 1
        normal = _side_normal_world(s, side)
        reachable = nav.connected(int(node), nav.start_node) and bool(
            np.hypot(*(nav.nodes_xy[node] - p)) <= nav.resolution_m * 1.5)
        out.append(
            StandingPoint(
                id=f"{s.id}@{side.value}:{idx}",
                surface_id=s.id,
                object_id=s.object_id,
                side=side,
                position=(float(p[0]), float(p[1])),
                yaw_rad=float(math.atan2(-normal[1], -normal[0])),
                depth_m=d,
                node=int(node),
                reachable=reachable,
            )
        )
    return out


def _side_normal_world(s: Surface, side: Side) -> Array:
    n = {Side.FRONT: (1.0, 0.0), Side.REAR: (-1.0, 0.0), Side.LEFT: (0.0, 1.0),
         Side.RIGHT: (0.0, -1.0)}[side]
    c, sn = math.cos(s.yaw_rad), math.sin(s.yaw_rad)
    return np.array([c * n[0] - sn * n[1], sn * n[0] + c * n[1]])


def _side_points(s: Surface, side: Side, along: Array, line: float, depths: Array) -> Array:
    """World points (len(along) * len(depths), 2), along-major."""
    a = np.repeat(along, len(depths))
    d = np.tile(depths, len(along))
    if side is Side.FRONT:
        uv = np.stack([line + d, a], axis=1)
    elif side is Side.REAR:
        uv = np.stack([line - d, a], axis=1)
    elif side is Side.LEFT:
        uv = np.stack([a, line + d], axis=1)
    else:
        uv = np.stack([a, line - d], axis=1)
    return from_frame(uv, s.origin, s.yaw_rad)


def _valid_standing(pts: Array, obstacles: Any, floor: Any, clearance: float) -> Array:
    import shapely

    ok = np.ones(len(pts), dtype=bool)
    if floor is not None:
        ok &= shapely.contains_xy(floor, pts[:, 0], pts[:, 1])
    obs = np.asarray(obstacles, dtype=object).reshape(-1)
    if len(obs) and len(pts):
        tree = shapely.STRtree(obs)
        # Any obstacle closer than the clearance disqualifies the point.
        hit_pts, _ = tree.query(shapely.points(pts), predicate="dwithin",
                                distance=clearance - 1e-6)
        ok[hit_pts] = False
    return ok
