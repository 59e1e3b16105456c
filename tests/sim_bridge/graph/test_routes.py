"""The route search: L* (`Walker.walk`), the stops on that walk (`Walker.route`), each
option (one goal, ordered, unordered exactly or greedily), and the simulated robot's
walks (`GridRouter`). A 10 m x 1 m hall, walked along its middle row (y 0.55); the
compiled searches against networkx's Dijkstra on random small graphs."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.sim_bridge.graph.routes import EXACT_TOUR_MAX, GridRouter, Walker
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from tests.sim_bridge.helpers import graph, room

ROW_Y = 0.55
START = (5.05, ROW_Y)
#: One target 0.7 m to the left, eight to the right: the nearest (0.6 m) first, then on
#: to 8.45. The greedy walk takes them all on the right before the left one.
LEFT = 4.35
RIGHT = (5.65, 6.05, 6.45, 6.85, 7.25, 7.65, 8.05, 8.45)


@pytest.fixture(scope="module")
def hall() -> SceneGraph:
    return graph([], rooms=[room("hall", "hallway", 0, 0, 10, 1)], agent=START, walls="none")


@pytest.fixture(scope="module")
def walker(hall: SceneGraph) -> Walker:
    return Walker(hall.nav)


def nodes(w: Walker, *xs: float) -> list[int]:
    return [w.node((x, ROW_Y)) for x in xs]


def test_one_goal_is_its_closest_node_of_any_target(walker: Walker) -> None:
    assert walker.walk(START, [nodes(walker, 3.05, 8.05)], "single") == (2.0, True)
    assert walker.walk(START, [nodes(walker, 3.05), nodes(walker, 8.05)], "single") == \
        (2.0, True)
    assert walker.walk(START, [nodes(walker, 3.05), []], "single") == (None, True)


def test_ordered_targets_keep_their_order_unordered_ones_the_best(walker: Walker) -> None:
    far, near = nodes(walker, 8.05), nodes(walker, 3.05)
    assert walker.walk(START, [far, near], "ordered") == (8.0, True)
    assert walker.walk(START, [far, near], "unordered") == (7.0, True)
    s = walker.node(START)
    assert walker.route(s, [far, near], ordered=True) == [(0, far[0]), (1, near[0])]
    assert walker.route(s, [far, near], ordered=False) == [(1, near[0]), (0, far[0])]


def test_a_route_stops_at_the_node_of_each_target_on_the_shortest_walk(walker: Walker
                                                                         ) -> None:
    # Either end of the first target; the second at 6.55: through 4.05 is 1 + 2.5 m,
    # through 0.55 is 4.5 + 6 m (and the second first, 1.5 + 2.5 m).
    first, second = nodes(walker, 0.55, 4.05), nodes(walker, 6.55)
    s = walker.node(START)
    for ordered in (True, False):
        assert walker.route(s, [first, second], ordered) == [(0, first[1]), (1, second[0])]
    assert walker.walk(START, [first, second], "ordered") == (3.5, True)


def test_past_the_exact_limit_the_tour_is_greedy_and_not_exact(walker: Walker) -> None:
    targets = [nodes(walker, LEFT)] + [nodes(walker, x) for x in RIGHT]
    assert len(targets) == EXACT_TOUR_MAX + 1
    length, exact = walker.walk(START, targets, "unordered")
    assert not exact and length == pytest.approx(3.4 + 4.1)
    route = walker.route(walker.node(START), targets, ordered=False)
    assert route is not None and [j for j, _ in route] == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    # One target fewer: exact, the left one first.
    exact_route = walker.route(walker.node(START), targets[:-1], ordered=False)
    assert exact_route is not None and exact_route[0][0] == 0
    assert walker.walk(START, targets[:-1], "unordered") == (0.7 + 3.7, True)


def test_no_route_to_a_target_without_nodes(walker: Walker) -> None:
    s = walker.node(START)
    assert walker.walk(START, [nodes(walker, 3.05), []], "ordered") == (None, True)
    assert walker.walk(START, [], "unordered") == (None, True)
    assert walker.route(s, [nodes(walker, 3.05), []], ordered=True) is None
    assert walker.route(s, [nodes(walker, 3.05), []], ordered=False) is None


def test_the_grid_router_walks_to_the_nearest_goal(hall: SceneGraph) -> None:
    router = GridRouter(hall.nav)
    goals = [(1.05, ROW_Y), (7.05, ROW_Y)]
    route = router.route(START, goals)
    assert route is not None and route[-1] == goals[1]  # 2 m, not 4 m
    assert router.waypoints(START, route) == [goals[1]]  # a straight walk, pulled taut
    assert router.route(goals[0], goals) == []  # standing on a goal


# ----- the compiled searches against networkx's Dijkstra --------------------------------
#: Grid steps (orthogonal, diagonal) and arbitrary lengths: sums of the first two tie in
#: metres but not always in floating point, which the searches must not change.
WEIGHTS = st.one_of(st.sampled_from([0.1, 0.1 * math.sqrt(2)]),
                    st.floats(0.01, 3.0, allow_nan=False, allow_infinity=False))


@st.composite
def graphs(draw: Any) -> nx.Graph:
    n = draw(st.integers(2, 12))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    for a, b in draw(st.lists(st.sampled_from(pairs), max_size=30)):
        g.add_edge(a, b, weight=draw(WEIGHTS))
    return g


def walker_of(g: nx.Graph) -> Walker:
    """A walker over `g` (all `Walker` reads of its navigation is the CSR matrix)."""
    edges = [(a, b, w) for a, b, w in g.edges(data="weight")]
    rows = [a for a, b, _ in edges] + [b for a, b, _ in edges]
    cols = [b for a, b, _ in edges] + [a for a, b, _ in edges]
    data = [w for *_, w in edges] * 2
    n = g.number_of_nodes()
    adjacency = scipy.sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    nav: Any = SimpleNamespace(adjacency=adjacency)
    return Walker(nav)


def expected(g: nx.Graph, sources: dict[int, float]) -> np.ndarray:
    """networkx's Dijkstra from a node joined to each source by its starting cost."""
    d = nx.DiGraph(g)
    for m, c in sources.items():
        d.add_edge("start", m, weight=c)
    out = np.full(g.number_of_nodes(), np.inf)
    for k, v in nx.single_source_dijkstra_path_length(d, "start").items():
        if k != "start":
            out[k] = v
    return out


@given(graphs(), st.data())
@settings(max_examples=150, deadline=None)
def test_compiled_searches_equal_networkx_dijkstra(g: nx.Graph, data: Any) -> None:
    w = walker_of(g)
    n = g.number_of_nodes()
    source = data.draw(st.integers(0, n - 1))
    lengths = nx.single_source_dijkstra_path_length(g, source)
    single = np.array([lengths.get(k, np.inf) for k in range(n)])
    assert np.array_equal(w.search({source: 0.0}), single)  # bit for bit
    costs = st.floats(0.0, 5.0, allow_nan=False, allow_infinity=False)
    batch = data.draw(st.lists(st.dictionaries(st.integers(0, n - 1), costs, min_size=2),
                               max_size=4))
    for sources, found in zip(batch, w.searches(batch), strict=True):
        assert np.array_equal(found, expected(g, sources))
    # One source with a starting cost: its memoised search from 0, plus the cost.
    c = data.draw(costs)
    assert np.array_equal(w.search({source: c}), single + c)
