"""Occupancy, standing points, geodesic distances and paths, computed by hand."""

from __future__ import annotations

import functools
import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.sim_bridge.graph.scene_graph import SceneGraph
from tests.sim_bridge.helpers import graph, obj, on_top, room

TWO_ROOMS = [room("a", "kitchen", 0, 0, 4, 4), room("b", "living_room", 4, 0, 8, 4)]


def test_standing_points_along_the_free_sides_of_a_table() -> None:
    # A table against the south wall, turned so its front faces +y: footprint x 1.5-2.5,
    # y 0.25-0.85. The wall's inner face is y = 0.05; the robot needs 0.35 m clearance.
    g = graph([obj("table", "table", (2.0, 0.55, 0.375), (0.6, 1.0, 0.75), 90.0)], agent=(2.0, 2.0))
    pts = {p.side.value: p for p in g.standing_points("table")}
    assert set(pts) == {"front", "left", "right"}  # the rear is in the wall
    front, left, right = pts["front"], pts["left"], pts["right"]
    assert front.position == pytest.approx((2.0, 0.85 + 0.35))
    # Sides: 0.35 m out; along y only where the wall is 0.35 m away: y in [0.40, 0.85].
    assert left.position == pytest.approx((1.5 - 0.35, (0.40 + 0.85) / 2))
    assert right.position == pytest.approx((2.5 + 0.35, (0.40 + 0.85) / 2))
    assert front.yaw_rad == pytest.approx(-math.pi / 2)  # facing the table
    assert left.yaw_rad == pytest.approx(0.0)
    assert all(p.reachable for p in pts.values())
    assert g.standing_points("table|top") == g.standing_points("table")


def test_geodesic_distance_through_a_door_in_line() -> None:
    g = graph(
        [],
        rooms=TWO_ROOMS,
        doors=[{"id": "d", "rooms": ["a", "b"], "position": [4, 2], "width_m": 1.0}],
        agent=(2.0, 2.0),
    )
    assert g.geodesic_distance((2.0, 2.0), (6.0, 2.0)) == pytest.approx(4.0, abs=1e-6)
    assert g.shortest_path((2.0, 2.0), (6.0, 2.0)) == [(2.0, 2.0), (6.0, 2.0)]


def test_geodesic_distance_around_the_door_jambs() -> None:
    # The door spans y 3.0-4.0 at x = 4; the wall (0.1 m thick) ends at y = 3.0, so the
    # robot (radius 0.25) wraps two circles of radius 0.25 centred on the jamb corners
    # (3.95, 3.0) and (4.05, 3.0). By hand: 2 x (tangent 2.17715 + arc 0.14705) + 0.1.
    g = graph(
        [],
        rooms=TWO_ROOMS,
        doors=[{"id": "d", "rooms": ["a", "b"], "position": [4, 3.5], "width_m": 1.0}],
        agent=(2.0, 2.0),
    )
    d = math.hypot(1.95, 1.0)
    tangent = math.sqrt(d * d - 0.25**2)
    arc = 0.25 * (math.atan2(-1.0, -1.95) % (2 * math.pi) - math.acos(0.25 / d) - math.pi / 2)
    expected = 2 * (tangent + arc) + 0.1
    assert expected == pytest.approx(4.7484, abs=1e-3)
    assert g.geodesic_distance((2.0, 2.0), (6.0, 2.0)) == pytest.approx(expected, abs=0.03)
    path = g.shortest_path((2.0, 2.0), (6.0, 2.0))
    assert path is not None and all(3.2 <= y <= 3.75 for x, y in path if 3.9 <= x <= 4.1)


def test_no_door_no_path() -> None:
    g = graph([], rooms=TWO_ROOMS, agent=(2.0, 2.0))
    assert g.shortest_path((2.0, 2.0), (6.0, 2.0)) is None
    assert g.geodesic_distance((2.0, 2.0), (6.0, 2.0)) == math.inf
    assert not g.reachable("b")


def test_distance_to_entities_ends_at_their_standing_points() -> None:
    g = graph([obj("table", "table", (2.0, 0.55, 0.375), (0.6, 1.0, 0.75), 90.0)], agent=(2.0, 2.0))
    # The front standing point (2.0, 1.2) is the nearest: 0.8 m straight ahead.
    assert g.geodesic_distance((2.0, 2.0), "table") == pytest.approx(0.8, abs=1e-6)
    assert g.geodesic_distance((2.0, 2.0), "room") == pytest.approx(0.0, abs=0.08)


def test_obstacles_block_the_grid_and_visibility() -> None:
    g = graph(
        [
            obj("wardrobe", "wardrobe", (2.0, 2.0, 1.0), (0.6, 3.0, 2.0)),
            obj("lamp", "lamp", (3.0, 2.0, 0.2), (0.2, 0.2, 0.4), kind="movable"),
        ],
        agent=(0.5, 2.0),
    )
    # The wardrobe (x 1.7-2.3, y 0.5-3.5) stands between: go round it.
    d = g.geodesic_distance((1.0, 2.0), (3.0, 2.0))
    assert d > 3.0
    assert not g.line_of_sight((1.0, 2.0, 0.0), "lamp")
    assert g.line_of_sight((2.8, 1.0, 0.0), "lamp")
    assert g.visible_objects((1.0, 2.0, 0.0), 0.0) == ["wardrobe"]


def test_only_what_spans_the_sight_line_hides_behind_it() -> None:
    # A lamp on the table, near its far edge: the sight line to the table's centre passes
    # below the lamp (which stands on the table, 0.75-1.15 m) where it crosses it. Only
    # an object whose height spans the line's there hides what lies behind it.
    from fdc.sim_bridge.graph.visibility import SightIndex

    g = graph(
        [
            obj("table", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), kind="furniture"),
            on_top("lamp", "lamp", (2.1, 2.0), 0.75, (0.2, 0.2, 0.4)),
            obj("crate", "crate", (1.2, 3.2, 0.45), (0.3, 0.3, 0.9), kind="furniture"),
            obj("bin", "bin", (2.0, 3.2, 0.2), (0.2, 0.2, 0.4), kind="furniture"),
        ],
        agent=(0.5, 2.0),
    )
    eye = (0.5, 2.0, 0.0)
    assert g.line_of_sight(eye, "table")
    seen = g.visible_objects(eye, 0.0)
    assert "table" in seen and "lamp" in seen
    # The crate (0-0.9 m) spans the lines from (0.5, 3.2) to the bin's centre (0.2 m) and
    # to its top (0.4 m: 0.85 m high over the crate).
    assert not g.line_of_sight((0.5, 3.2, 0.0), "bin")
    index = SightIndex(g)
    assert index.visible_objects([eye], [0.0], None, 5.0) == [seen]
    assert "bin" not in index.visible_objects([(0.5, 3.2, 0.0)], [0.0], None,
                                              5.0)[0]


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_a_path_from_several_ends_starts_where_networkx_starts_it(data: st.DataObject) -> None:
    """Of several sources (an entity's standing points), the one the shortest path to a
    node starts from: the only nearest, or networkx's choice among equally near ones (a
    grid has many)."""
    g = _two_rooms_and_a_door()
    n = g.nav.node_count
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6, unique=True))
    target = data.draw(st.integers(0, n - 1))
    _, nodes = nx.multi_source_dijkstra(g.nav.graph, set(sources), target=target)
    assert g._first_node(sources, target) == nodes[0]


def test_equally_near_sources_are_networkx_s_choice() -> None:
    g = _two_rooms_and_a_door()
    left, target, right = (g.nav.nearest_node((x, 2.05)) for x in (1.55, 2.05, 2.55))
    assert g.walker.search({left: 0.0})[target] == g.walker.search({right: 0.0})[target]
    for sources in ([left, right], [right, left]):
        _, nodes = nx.multi_source_dijkstra(g.nav.graph, set(sources), target=target)
        assert g._first_node(sources, target) == nodes[0]


@functools.cache
def _two_rooms_and_a_door() -> SceneGraph:
    return graph([], rooms=TWO_ROOMS, agent=(2.0, 2.0),
                 doors=[{"id": "d", "rooms": ["a", "b"], "position": [4, 2], "width_m": 1.0}])


@given(st.data())
@settings(max_examples=80, deadline=None)
def test_geodesic_within_is_the_distance_compared(data: st.DataObject) -> None:
    """Bounds decide most pairs without a taut path; the answer is the comparison's, also
    at limits a hair either side of the distance."""
    g = _two_rooms_and_a_door()
    point = st.tuples(st.floats(0.0, 8.0), st.floats(0.0, 4.0))
    a, b = data.draw(point), data.draw(point)
    d = g.geodesic_distance(a, b)
    for limit in (data.draw(st.floats(0.0, 12.0)), d, d - 1e-7, d + 1e-7, 2.0):
        if math.isfinite(limit):
            assert g.geodesic_within(a, b, limit) == (d <= limit), (a, b, limit, d)


@given(st.data())
@settings(max_examples=80, deadline=None)
def test_the_grid_path_is_networkx_s_astar_path(data: st.DataObject) -> None:
    """The A* search of a taut path finds networkx's `astar_path` among the grid's many
    equally short paths: the same nodes in the same order."""
    g = _two_rooms_and_a_door()
    xy = g.nav.nodes_xy

    def h(u: int, v: int) -> float:
        return float(math.hypot(xy[u, 0] - xy[v, 0], xy[u, 1] - xy[v, 1]))

    n = g.nav.node_count
    a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    assert g.nav._astar(a, b) == nx.astar_path(g.nav.graph, a, b, heuristic=h, weight="weight")


@given(st.data())
@settings(max_examples=80, deadline=None)
def test_a_corner_is_nudged_where_testing_every_candidate_puts_it(data: st.DataObject) -> None:
    """Testing the shortest candidates first chooses what the argmin over every candidate
    whose legs lie on the floor chooses, ties to the first."""
    import numpy as np
    import shapely

    from fdc.sim_bridge.graph.navigation import _legs_inside, _nudged

    allowed = shapely.box(0, 0, 4, 4).difference(shapely.box(1.9, 0.5, 2.1, 3.5))
    shapely.prepare(allowed)
    coord = st.floats(0.2, 3.8).map(lambda v: round(v, 1))  # on a grid: ties
    prev, here, nxt = (np.array([data.draw(coord), data.draw(coord)]) for _ in range(3))
    step = data.draw(st.sampled_from([0.1, 0.05, 0.025]))
    offsets = np.stack(np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5)),
                       axis=-1).reshape(-1, 2)
    cand = here + offsets * step
    cost = np.hypot(*(cand - prev).T) + np.hypot(*(nxt - cand).T)
    ok = _legs_inside(prev, cand, nxt, allowed) | (np.arange(len(cand)) == 12)
    cost[~ok] = np.inf
    assert np.array_equal(_nudged(prev, cand, nxt, 12, allowed), cand[int(np.argmin(cost))])
