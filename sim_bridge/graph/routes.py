"""Route searches on the navigation grid.

`Walker`, the route search through goal frames: FindingDory's L* (a memory task's
`optimal_path_m`), the walks LL-SPL and HL-SPL compare with it, and the frames the
memory oracle chooses, all from the same searches. Distances are walked on the scene's
navigation graph (edge weights in metres) by scipy's compiled Dijkstra over its CSR copy
(`Navigation.adjacency`); each walk's cost is summed from its source outward, so the
distances (and their ties) are those of a Dijkstra in Python over `Navigation.graph`.
A target is reached at any of its nodes (the grid nodes its valid frames stand at), so
each target is a set of nodes; the walk starts at one node:

- one goal (`single`): the closest node of any target;
- `ordered` targets: legs in order, each to any node of the next target, minimised over
  the whole sequence (a layered search: one multi-source Dijkstra a target);
- `unordered` targets: the shortest open tour from the start (Held-Karp over targets,
  with node-level costs), exact up to `EXACT_TOUR_MAX` targets; beyond that the greedy
  nearest next target, reported as not exact.

`Walker.walk` measures the walk (L*); `Walker.route` names the node of each target on
that same walk, in visiting order, walked back from its best end (the oracle's frames).
Both give `None` when some target has no node or cannot be reached.

`GridRouter`, the walks of the simulated experience's robot: waypoints from a point to
the nearest of some goal points, fast in scenes of thousands of objects where
`SceneGraph.shortest_path` tests hundreds of sight lines per walk. A* with a bucket
queue over the grid's cells (8-connected, no corner cutting, integer weights: diagonal
steps 1.5), moves of up to `_JUMP` cells a round and a window of `_WINDOW` f values per
round (so a walk may be up to 0.3 m longer than the grid's shortest); the cell path is
pulled taut with a grid line of sight, and every leg checked exactly against the free
floor (a leg that fails is replaced by the grid path under it). It is not `Walker`'s
search: its metric and its window decide the walks, hence every simulated experience.
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import Navigation

EXACT_TOUR_MAX = 8
#: Distances one compiled call may return (rows of a batch times nodes): 32 MB.
_CHUNK_CELLS = 1 << 22
#: Distances the memo of single-source searches keeps (128 MB); past it the oldest go.
_MEMO_CELLS = 1 << 24

Costs = dict[int, float]
#: End node -> (the cost of a walk ending there, the target it reached last).
Ends = dict[int, tuple[float, int]]
#: (target index, node) in visiting order.
Stops = list[tuple[int, int]]


class Walker:
    """Distances on one navigation grid: compiled Dijkstra searches (scipy's csgraph over
    `Navigation.adjacency`), the single-source ones memoised (by source and radius)."""

    def __init__(self, nav: Navigation) -> None:
        self.nav = nav
        self._graph: Any = nav.adjacency
        self._from: dict[tuple[int, float], np.ndarray] = {}

    def node(self, xy: tuple[float, float]) -> int:
        return int(self.nav.nearest_node(xy))

    def search(self, sources: Mapping[int, float]) -> np.ndarray:
        """Dijkstra from several nodes, each with a starting cost: the cost of the
        shortest walk to each node (inf: unreachable). Read-only: it may be memoised."""
        return self.searches([sources])[0]

    def near(self, source: int, radius_m: float) -> np.ndarray:
        """`search({source: 0.0})` up to `radius_m` (inf beyond): the same distances
        there (a node's is the least of its neighbours' plus the edge, however far the
        search goes), from a search that stops at the radius, a fraction of the cost."""
        return self._single(source, radius_m)

    def _single(self, source: int, radius_m: float) -> np.ndarray:
        key = (source, radius_m)
        base = self._from.get(key)
        if base is None:
            base = self._from[key] = self._dijkstra(self._graph, [source], radius_m)[0]
            base.flags.writeable = False
            if len(self._from) * len(base) > _MEMO_CELLS and len(self._from) > 1:
                del self._from[next(iter(self._from))]
        return base

    def searches(self, batch: Sequence[Mapping[int, float]]) -> list[np.ndarray]:
        """`search` for each mapping of sources. A single source is searched from cost 0
        once and its starting cost added; several hang off a node added to the graph by
        edges weighted with their starting costs, so a walk's cost is summed from its
        source outward, as one Dijkstra from all of them sums it. The added nodes of a
        chunk of mappings are searched by one compiled call."""
        out: list[np.ndarray | None] = [None] * len(batch)
        many: list[int] = []
        for i, sources in enumerate(batch):
            if len(sources) != 1:
                many.append(i)
                continue
            (n, c), = sources.items()
            base = self._single(n, math.inf)
            out[i] = base + c if c else base
        n = self._graph.shape[0]
        step = max(1, _CHUNK_CELLS // max(n, 1))
        for lo in range(0, len(many), step):
            part = many[lo: lo + step]
            rows = self._dijkstra(self._with_sources([batch[i] for i in part]),
                                  range(n, n + len(part)))
            for i, row in zip(part, rows, strict=True):
                out[i] = row[:n]
        return [r for r in out if r is not None]

    def _with_sources(self, batch: Sequence[Mapping[int, float]]) -> Any:
        """The graph plus one node a mapping, with an edge to each of its sources."""
        import scipy.sparse

        g = self._graph
        n = g.shape[0]
        sizes = np.fromiter((len(s) for s in batch), dtype=np.int64, count=len(batch))
        indptr = np.concatenate([g.indptr, g.indptr[-1] + np.cumsum(sizes)])
        nodes = np.fromiter((m for s in batch for m in s), dtype=np.int64, count=int(sizes.sum()))
        costs = np.fromiter((c for s in batch for c in s.values()), dtype=np.float64,
                            count=len(nodes))
        size = n + len(batch)
        return scipy.sparse.csr_matrix(
            (np.concatenate([g.data, costs]), np.concatenate([g.indices, nodes]), indptr),
            shape=(size, size))

    @staticmethod
    def _dijkstra(graph: Any, sources: Iterable[int], limit: float = math.inf) -> np.ndarray:
        from scipy.sparse.csgraph import dijkstra

        found: np.ndarray = dijkstra(graph, directed=True, limit=limit,
                                     indices=np.fromiter(sources, dtype=np.int64))
        return found.reshape(-1, graph.shape[0])

    # ----- the walk's length: L* ------------------------------------------------------
    def walk(self, start: tuple[float, float], targets: Sequence[Collection[int]],
             mode: str) -> tuple[float | None, bool]:
        """(length, exact) of the shortest walk from the point `start`; `mode` is
        single, ordered or unordered. An exact length is rounded to 0.1 mm; the greedy
        walk's is not."""
        s = self.node(start)
        if s < 0 or not targets or any(not t for t in targets):
            return None, True
        if mode == "single":  # the closest node of any target: a tour of one target
            targets, mode = [{n for t in targets for n in t}], "unordered"
        if mode == "ordered":
            layers = self._layers(s, targets)
            return (_rounded(_best(layers[-1])[1]) if layers else None), True
        if len(targets) > EXACT_TOUR_MAX:
            greedy = self._greedy(s, targets)
            return (greedy[1] if greedy is not None else None), False
        ends = self._tour(s, targets)[(1 << len(targets)) - 1]
        return (_rounded(_best(ends)[1]) if ends else None), True

    # ----- the walk's stops: the oracle's frames -----------------------------------------
    def route(self, start: int, targets: Sequence[Collection[int]], ordered: bool
              ) -> Stops | None:
        """(target, node) in visiting order on the walk from the node `start` that
        `walk` measures (`ordered`, else `unordered`); of equally short walks, the one
        ending at the smallest node, each earlier stop the smallest node on a shortest
        leg to the next."""
        if ordered:
            layers = self._layers(start, targets)
            if not layers:
                return None
            nodes = [_best(layers[-1])[0]]
            for layer in reversed(layers[:-1]):
                nodes.append(self._leg_from(nodes[-1], layer)[0])
            return list(enumerate(reversed(nodes)))
        if len(targets) > EXACT_TOUR_MAX:
            greedy = self._greedy(start, targets)
            return greedy[0] if greedy is not None else None
        table = self._tour(start, targets)
        full = (1 << len(targets)) - 1
        if not table[full]:
            return None
        node = _best(table[full])[0]
        stops = [(table[full][node][1], node)]
        bits = full & ~(1 << stops[-1][0])
        while bits:
            node, j = self._leg_from(stops[-1][1], table[bits])
            if j < 0:  # pragma: no cover - every entry of the table was reached
                return None
            stops.append((j, node))
            bits &= ~(1 << j)
        return stops[::-1]

    # ----- the searches both read ---------------------------------------------------------
    def _layers(self, s: int, targets: Sequence[Collection[int]]) -> list[Ends]:
        """Ordered targets: for each target in turn, the cost of the shortest walk from
        `s` through the targets so far ending at each of its nodes ([] when one cannot
        be reached)."""
        layers: list[Ends] = []
        costs: Costs = {s: 0.0}
        for k, t in enumerate(targets):
            nodes = list(t)
            reach = self.search(costs)[nodes].tolist()
            layer = {n: (c, k) for n, c in zip(nodes, reach, strict=True) if c < math.inf}
            if not layer:
                return []
            layers.append(layer)
            costs = {n: c for n, (c, _) in layer.items()}
        return layers

    def _tour(self, s: int, targets: Sequence[Collection[int]]) -> dict[int, Ends]:
        """Held-Karp over subsets: for each set of visited targets (a bit set), the cost
        of ending at each node of its targets, merged over which target came last (kept
        with the cost; on a tie the lower target). One search per subset: those costs
        are the sources of every next leg. Subsets no walk reaches map to {}."""
        k = len(targets)
        table: dict[int, Ends] = {0: {s: (0.0, -1)}}
        frontier = [0]
        nodes = [list(t) for t in targets]
        for _ in range(k):
            nxt: dict[int, Ends] = {}
            reaches = self.searches([{n: c for n, (c, _) in table[prev].items()}
                                     for prev in frontier])
            for prev, reach in zip(frontier, reaches, strict=True):
                for j in range(k):
                    if prev & (1 << j):
                        continue
                    merged = nxt.setdefault(prev | (1 << j), {})
                    for n, c in zip(nodes[j], reach[nodes[j]].tolist(), strict=True):
                        if c < merged.get(n, (math.inf, -1))[0]:
                            merged[n] = (c, j)
            table.update(nxt)
            frontier = sorted(b for b, m in nxt.items() if m)
        table.setdefault((1 << k) - 1, {})
        return table

    def _greedy(self, s: int, targets: Sequence[Collection[int]]
                ) -> tuple[Stops, float] | None:
        """The nearest next target each time (past `EXACT_TOUR_MAX` targets): the stops
        and the length walked; ties go to the lower target, then the lower node."""
        left = set(range(len(targets)))
        at, stops, total = s, [], 0.0
        while left:
            reach = self.search({at: 0.0})
            d, j, n = min(((float(reach[n]), j, n) for j in sorted(left)
                           for n in targets[j]), default=(math.inf, -1, -1))
            if not math.isfinite(d):
                return None
            stops.append((j, n))
            total += d
            at = n
            left.discard(j)
        return stops, total

    def _leg_from(self, node: int, sources: Ends) -> tuple[int, int]:
        """The source node (and the target it ended) whose cost plus the walk from it to
        `node` is least: the leg of a shortest walk that arrives at `node` (the grid is
        undirected: one search from `node` measures every leg)."""
        back = self.search({node: 0.0})
        best = min(((c + float(back[m]), m, j) for m, (c, j) in sorted(sources.items())),
                   default=(math.inf, -1, -1))
        return best[1], best[2]


def _best(ends: Ends) -> tuple[int, float]:
    """The end node of least cost (the smallest on a tie) and that cost."""
    node = min(sorted(ends), key=lambda n: ends[n][0])
    return node, ends[node][0]


def _rounded(x: float) -> float:
    return round(x, 4)


# ----- the simulated robot's walks --------------------------------------------------
#: The 8 grid steps (dy, dx) and their weights (orthogonal 2, diagonal 3: 1.5 per step).
_STEPS = ((0, 1, 2), (0, -1, 2), (1, 0, 2), (-1, 0, 2),
          (1, 1, 3), (1, -1, 3), (-1, 1, 3), (-1, -1, 3))
#: A move is 1 to `_JUMP` steps in one direction (every step a grid edge), so a search
#: round advances the frontier by up to `_JUMP` cells. `_WINDOW`: the f values one round
#: takes (in weight units; 6 is 0.3 m): a walk is at most that much longer than the
#: shortest on the grid.
_JUMP = 3
_WINDOW = 6


class GridRouter:
    """Walks to the nearest of some goal points on the navigation grid, as waypoints,
    vectorised in numpy (see the module docstring)."""

    def __init__(self, nav: Navigation) -> None:
        self.nav = nav
        free = nav.index >= 0
        self.shape = free.shape
        ny, nx = free.shape
        self.nx = nx
        self.free = free.ravel()
        n = ny * nx
        pad = np.pad(free, 1)
        edges, offsets, weights = [], [], []
        for dy, dx, w in _STEPS:
            there = pad[1 + dy: 1 + dy + ny, 1 + dx: 1 + dx + nx]
            step = free & there
            if dx and dy:  # no corner cutting: both orthogonal neighbours free
                step &= pad[1: 1 + ny, 1 + dx: 1 + dx + nx] & pad[1 + dy: 1 + dy + ny, 1: 1 + nx]
            one = step.ravel()
            off = dy * nx + dx
            ok = one
            for length in range(1, _JUMP + 1):
                if length > 1:  # one more step from where the shorter move ends
                    nxt = np.zeros(n, dtype=bool)
                    src = np.flatnonzero(ok)
                    nxt[src] = one[src + (length - 1) * off]
                    ok = nxt
                edges.append(ok)
                offsets.append(length * off)
                weights.append(length * w)
        self.edges = np.stack(edges, axis=1)
        self.offsets = np.array(offsets, dtype=np.int64)
        self.weights = np.array(weights, dtype=np.int64)
        # Cells whose 8 neighbours are free too: a grid line of sight through them keeps
        # clear of the floor's edge by half a cell at least.
        inner = free.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                inner &= pad[1 + dy: 1 + dy + ny, 1 + dx: 1 + dx + nx]
        self.inner = inner.ravel()
        self.node_cell = np.flatnonzero(self.free)  # navigation node -> grid cell

    def _cells(self, xy: Sequence[tuple[float, float]]) -> np.ndarray:
        nodes = self.nav.nearest_nodes(np.asarray(xy, dtype=np.float64).reshape(-1, 2))
        return np.where(nodes >= 0, self.node_cell[np.maximum(nodes, 0)], -1)

    def _centre(self, cell: int) -> tuple[float, float]:
        iy, ix = divmod(cell, self.nx)
        ox, oy = self.nav.origin
        r = self.nav.resolution_m
        return (ox + (ix + 0.5) * r, oy + (iy + 0.5) * r)

    def route(self, start: tuple[float, float], goals: Sequence[tuple[float, float]]
              ) -> list[tuple[float, float]] | None:
        """The grid walk from `start` to the nearest goal: cell centres, ending at the
        goal itself (the start left out); [] when the robot stands on a goal; None when
        no goal is reachable."""
        for g in goals:
            if math.hypot(g[0] - start[0], g[1] - start[1]) < 1e-9:
                return []
        (s,) = self._cells([start])
        ends = self._cells(goals)
        if s < 0 or not (ends >= 0).any():
            return None
        found = self._search(int(s), ends[ends >= 0])
        if found is None:
            return None
        cells, goal_cell = found
        k = min(i for i in range(len(goals)) if ends[i] == goal_cell)
        return [self._centre(c) for c in cells] + [(float(goals[k][0]), float(goals[k][1]))]

    def _search(self, start: int, goals: np.ndarray) -> tuple[list[int], int] | None:
        """A* with a bucket queue (integer weights, the octile heuristic to the nearest
        goal), in vectorised rounds, stopping at the first goal cell reached."""
        n = len(self.free)
        nx = self.nx
        goal_y, goal_x = np.divmod(goals, nx)

        def heuristic(cells: np.ndarray) -> np.ndarray:
            iy, ix = np.divmod(cells, nx)
            dy = np.abs(iy[:, None] - goal_y[None, :])
            dx = np.abs(ix[:, None] - goal_x[None, :])
            out: np.ndarray = (2 * np.maximum(dx, dy) + np.minimum(dx, dy)).min(axis=1)
            return out

        dist = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        parent = np.full(n, -1, dtype=np.int64)
        is_goal = np.zeros(n, dtype=bool)
        is_goal[goals] = True
        first = np.array([start], dtype=np.int64)
        dist[start] = 0
        buckets: dict[int, list[np.ndarray]] = {int(heuristic(first)[0]) // _WINDOW: [first]}
        stamp = np.full(n, -1, dtype=np.int64)

        def distinct(cells: np.ndarray) -> np.ndarray:
            """The cells without repeats (first occurrences, in order), in linear time."""
            at = np.arange(len(cells))
            stamp[cells[::-1]] = at[::-1]
            out: np.ndarray = cells[stamp[cells] == at]
            return out

        goal = -1
        while buckets:
            # One round takes a window of f values: a cell improved after its round is
            # expanded again (label correcting), stale entries are harmless.
            nodes = distinct(np.concatenate(buckets.pop(min(buckets))))
            hit = nodes[is_goal[nodes]]
            if len(hit):
                goal = int(hit[np.lexsort((hit, dist[hit]))[0]])
                break
            rows, cols = np.nonzero(self.edges[nodes])
            par = nodes[rows]
            nb = par + self.offsets[cols]
            nd = dist[par] + self.weights[cols]
            better = nd < dist[nb]
            nb, nd, par = nb[better], nd[better], par[better]
            if not len(nb):
                continue
            np.minimum.at(dist, nb, nd)
            won = nd == dist[nb]
            nb, nd, par = nb[won], nd[won], par[won]
            parent[nb] = par  # among equal offers the last one written wins
            nb = distinct(nb)
            nd = dist[nb]
            key = (nd + heuristic(nb)) // _WINDOW
            for value in range(int(key.min()), int(key.max()) + 1):
                sel = nb[key == value]
                if len(sel):
                    buckets.setdefault(value, []).append(sel)
        if goal < 0:
            return None
        cells = [goal]
        while cells[-1] != start:
            cells.append(int(parent[cells[-1]]))
        cells.reverse()
        return cells, goal

    def waypoints(self, start: tuple[float, float], route: list[tuple[float, float]]
                  ) -> list[tuple[float, float]]:
        """The route pulled taut: line-of-sight smoothing over its corners (a corner is
        kept only when the last kept point cannot see the one after it), then every leg
        checked exactly against the free floor; a leg that fails is replaced by the grid
        route under it."""
        import shapely

        pts = np.asarray([start, *route], dtype=np.float64)
        if len(pts) <= 2:
            return route
        step = np.diff(pts, axis=0)
        step /= np.maximum(np.hypot(step[:, 0], step[:, 1]), 1e-12)[:, None]
        turn = np.any(np.abs(np.diff(step, axis=0)) > 1e-6, axis=1)
        corners = [0, *(np.flatnonzero(turn) + 1).tolist(), len(pts) - 1]
        keep = [0]
        for j in range(1, len(corners) - 1):
            if not self._clear(pts[keep[-1]], pts[corners[j + 1]]):
                keep.append(corners[j])
        keep.append(len(pts) - 1)
        legs = np.stack([pts[keep[:-1]], pts[keep[1:]]], axis=1)
        ok = shapely.covers(self.nav.free, shapely.linestrings(legs))
        out: list[int] = [0]
        for i, good in enumerate(ok.tolist()):
            if not good:
                out += list(range(keep[i] + 1, keep[i + 1]))
            out.append(keep[i + 1])
        return [(float(pts[k, 0]), float(pts[k, 1])) for k in out[1:]]

    def _clear(self, a: np.ndarray, b: np.ndarray) -> bool:
        """A grid line of sight: points every quarter cell along a-b lie in cells whose
        neighbourhood is free (near the ends, in free cells)."""
        r = self.nav.resolution_m
        length = float(math.hypot(b[0] - a[0], b[1] - a[1]))
        t = np.linspace(0.0, 1.0, max(2, math.ceil(length / (r / 4)) + 1))
        x = a[0] + t * (b[0] - a[0])
        y = a[1] + t * (b[1] - a[1])
        ox, oy = self.nav.origin
        ix = np.floor((x - ox) / r).astype(np.int64)
        iy = np.floor((y - oy) / r).astype(np.int64)
        ny, nx = self.shape
        if (ix < 0).any() or (iy < 0).any() or (ix >= nx).any() or (iy >= ny).any():
            return False
        cell = iy * nx + ix
        near_end = (t * length <= r) | ((1 - t) * length <= r)
        return bool(np.where(near_end, self.free[cell], self.inner[cell]).all())
