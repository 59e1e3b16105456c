"""Shortest walks through goal frames, for memory tasks' LL-SPL (FindingDory's L*).

Distances are walked on the scene's navigation grid (`Navigation.graph`, edge weights in
metres). A target is reached at any of its valid frames' poses, so each target is a set
of grid nodes; the walk starts at the robot's start pose:

- one goal: the closest valid frame;
- ordered targets: legs in order, each to any frame of the next target, minimised over
  the whole sequence (a layered search: one multi-source Dijkstra a target);
- unordered targets: the shortest open tour from the start (Held-Karp over targets, with
  node-level costs), exact up to `EXACT_TOUR_MAX` targets; beyond that the greedy nearest
  next target, reported as not exact.

`None` when some target has no frame or cannot be reached.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import Navigation

EXACT_TOUR_MAX = 8

Costs = dict[int, float]


class Walker:
    """Distances on one navigation grid, with the single-source searches memoised."""

    def __init__(self, nav: Navigation) -> None:
        self.nav = nav
        self._adj: Any = nav.graph.adj
        self._from: dict[int, Costs] = {}

    def node(self, xy: tuple[float, float]) -> int:
        return int(self.nav.nearest_node(xy))

    def search(self, sources: Mapping[int, float]) -> Costs:
        """Dijkstra from several nodes, each with a starting cost."""
        if len(sources) == 1:
            (n, c), = sources.items()
            base = self._from.get(n)
            if base is None:
                base = self._from[n] = self._search({n: 0.0})
            return {k: v + c for k, v in base.items()} if c else base
        return self._search(sources)

    def _search(self, sources: Mapping[int, float]) -> Costs:
        dist: Costs = {}
        heap = [(c, n) for n, c in sources.items()]
        heapq.heapify(heap)
        adj = self._adj
        while heap:
            d, u = heapq.heappop(heap)
            if u in dist:
                continue
            dist[u] = d
            for v, attrs in adj[u].items():
                if v not in dist:
                    heapq.heappush(heap, (d + attrs.get("weight", 1.0), v))
        return dist

    def walk(self, start: tuple[float, float], targets: Sequence[Sequence[int]],
             mode: str) -> tuple[float | None, bool]:
        """(length, exact) of the shortest walk; `mode` is single, ordered or unordered."""
        s = self.node(start)
        if s < 0 or not targets or any(not t for t in targets):
            return None, True
        if mode == "single":
            reach = self.search({s: 0.0})
            best = min((reach.get(n, math.inf) for t in targets for n in t), default=math.inf)
            return _finite(best), True
        if mode == "ordered":
            costs: Costs = {s: 0.0}
            for t in targets:
                reach = self.search(costs)
                costs = {n: reach[n] for n in t if n in reach}
                if not costs:
                    return None, True
            return _finite(min(costs.values())), True
        if len(targets) > EXACT_TOUR_MAX:
            return self._greedy(s, targets), False
        return self._tour(s, targets), True

    def _tour(self, s: int, targets: Sequence[Sequence[int]]) -> float | None:
        """Held-Karp over subsets: for each set of visited targets (a bit set), the cost
        of ending at each node of its targets, merged over which target came last. One
        search per subset: those costs are the sources of every next leg."""
        k = len(targets)
        frontier: dict[int, Costs] = {0: {s: 0.0}}  # subset -> its merged end costs
        for _ in range(k):
            nxt: dict[int, Costs] = {}
            for prev in sorted(frontier):
                reach = self.search(frontier[prev])
                for j in range(k):
                    if prev & (1 << j):
                        continue
                    costs = {n: reach[n] for n in targets[j] if n in reach}
                    if not costs:
                        continue
                    bits = prev | (1 << j)
                    merged = nxt.setdefault(bits, {})
                    for n, c in costs.items():
                        if c < merged.get(n, math.inf):
                            merged[n] = c
            frontier = nxt
        full = (1 << k) - 1
        return _finite(min(frontier[full].values())) if full in frontier else None

    def _greedy(self, s: int, targets: Sequence[Sequence[int]]) -> float | None:
        left = set(range(len(targets)))
        at, total = s, 0.0
        while left:
            reach = self.search({at: 0.0})
            choice = min(
                ((reach.get(n, math.inf), j, n) for j in sorted(left) for n in targets[j]),
                default=(math.inf, -1, -1),
            )
            if not math.isfinite(choice[0]):
                return None
            total += choice[0]
            at = choice[2]
            left.discard(choice[1])
        return total


def _finite(x: float) -> float | None:
    return round(x, 4) if math.isfinite(x) else None
