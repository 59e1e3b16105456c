"""Placement queries, one per relation, with positions computed by hand."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.sim_bridge.graph.placement import Placement, place
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from tests.sim_bridge.helpers import graph, obj, on_top

TABLE = obj("table", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75))  # top z 0.75
CUBE = (0.1, 0.1, 0.1)
STEP = 0.013  # the candidate grid is finer than this on a table this size


def spare(xy: tuple[float, float] = (-5.0, -5.0)) -> dict:
    """The item to place, waiting off the table."""
    return obj("cube", "box", (xy[0], xy[1], 0.05), CUBE, kind="movable")


def xy(p) -> tuple[float, float]:
    assert p.ok, p.reason
    return (p.pose.position[0], p.pose.position[1])


def test_on_an_empty_surface_goes_to_a_corner() -> None:
    # Packed: the four corners are equally near the middle; the smallest u, then v wins.
    g = graph([TABLE, spare()])
    p = g.place_on("cube", "table|top")
    assert xy(p) == pytest.approx((1.45, 1.65), abs=1e-3)
    assert p.pose.position[2] == pytest.approx(0.75 + 0.05)
    assert p.surface_id == "table|top"


def test_in_a_cell_goes_to_a_corner_of_the_cell() -> None:
    g = graph([TABLE, spare()])
    # front-left as seen facing the front (+x): x 2.2-2.6, y 1.6-1.867; packed into the
    # table's corner (the corner of the cell nearest its centre that the cube reaches)
    p = g.place_in_cell("cube", "table|top", "front-left")
    assert xy(p) == pytest.approx((2.55, 1.65), abs=1e-3)
    assert p.region_ids == ("table|top#cell:front-left",)


def test_beside_an_anchor_in_surface_and_viewer_words() -> None:
    g = graph([TABLE, spare(), on_top("mug", "mug", (2.0, 2.0), 0.75, CUBE)])
    # Left of the mug, as seen facing the table's front (+x): -y. The strip x 1.95-2.05
    # is exactly one cube wide; 1 cm gap.
    assert xy(g.place_beside("cube", "mug", "left")) == pytest.approx((2.0, 1.89), abs=STEP)
    p = g.place_beside("cube", "mug", "left", viewer_side="front")  # the same words
    assert xy(p) == pytest.approx((2.0, 1.89), abs=STEP)
    assert p.region_ids[0] == "table|top#mug:left"
    # A viewer at the table's rear (-x) facing it: their left is +y.
    p = g.place_beside("cube", "mug", "left", viewer_side="rear")
    assert xy(p) == pytest.approx((2.0, 2.11), abs=STEP)
    assert p.region_ids[0] == "table|top#mug:right"


def test_items_wider_than_a_strip_merge_adjacent_regions() -> None:
    g = graph(
        [
            TABLE,
            obj("plate", "plate", (-5, -5, 0.01), (0.2, 0.2, 0.02), kind="movable"),
            on_top("mug", "mug", (2.0, 2.0), 0.75, CUBE),
        ]
    )
    p = g.place_beside("plate", "mug", "front")
    assert p.ok and len(p.region_ids) > 1
    # the smallest group that holds it: the front strip (as wide as the mug, 0.1 m) and
    # the one beside it, the plate's centre at the strip's edge
    assert p.region_ids == ("table|top#mug:front", "table|top#mug:front-right")
    x, y = xy(p)
    assert x == pytest.approx(2.0 + 0.05 + 0.01 + 0.1, abs=STEP) and 1.95 <= y <= 2.05


def test_an_item_as_large_as_its_target_fits() -> None:
    """A tray on a tray of the same size: the footprint equals the target, and rounding
    in the surface's frame must not refuse it."""
    tray = (0.45, 0.32, 0.03)
    g = graph([TABLE, on_top("tray_a", "tray", (2.0, 2.0), 0.75, tray, yaw_deg=37.0),
               obj("tray_b", "tray", (-5, -5, 0.015), tray, kind="movable")])
    p = g.place_on("tray_b", "tray_a|top")
    assert p.ok, p.reason
    assert p.pose.position[2] == pytest.approx(0.75 + 0.03 + 0.015)


def test_the_room_on_an_item_is_the_room_where_it_stands() -> None:
    """An item's top keeps the clearance measured where it first stood; in an open box
    0.23 m deep, nothing taller than the room left above a book in it goes on the book
    (the lamp would stand in the box, by the `inside` checker, through a stale ceiling)."""
    from fdc.sim_bridge.graph.placement import headroom_m

    box = on_top("box", "box", (2.0, 2.0), 0.75, (0.4, 0.3, 0.25), surfaces=[],
                 containers=[{"name": "inside", "center": [0.0, 0.0, 0.01],
                              "size": [0.38, 0.28, 0.23], "open": True}])
    g = graph([TABLE, box, on_top("book", "book", (2.0, 2.0), 0.77, (0.16, 0.24, 0.04)),
               obj("lamp", "lamp", (-5, -5, 0.1), (0.1, 0.1, 0.2), kind="movable"),
               obj("cup", "cup", (-4, -5, 0.05), (0.08, 0.08, 0.1), kind="movable")])
    top = g.surface("book|top")
    assert top.clearance_m > 1.0  # measured from the book's own top, to the ceiling
    assert headroom_m(g, top) == pytest.approx(0.23 - 0.04)
    assert place_on_ok(g, "cup", "book|top")
    assert not place_on_ok(g, "lamp", "book|top")  # 0.20 m: under 0.23, not under 0.19
    assert g.place_inside("lamp", "box").ok


def place_on_ok(g, item: str, surface: str) -> bool:
    return bool(g.place_on(item, surface).ok)


def test_around_takes_the_nearest_free_spot() -> None:
    g = graph([TABLE, spare(), on_top("mug", "mug", (2.0, 2.0), 0.75, CUBE)])
    p = g.place_around("cube", "mug")
    # Four sides tie at 0.11 m; the ring starts at the rear (-x).
    assert xy(p) == pytest.approx((1.89, 2.0), abs=STEP)


def test_between_two_anchors_goes_to_the_middle() -> None:
    g = graph(
        [
            TABLE,
            spare(),
            on_top("mug", "mug", (1.7, 2.0), 0.75, CUBE),
            on_top("glass", "glass", (2.3, 2.0), 0.75, CUBE),
        ]
    )
    assert xy(g.place_between("cube", "mug", "glass")) == pytest.approx((2.0, 2.0), abs=STEP)
    tight = graph(
        [
            TABLE,
            spare(),
            on_top("mug", "mug", (1.93, 2.0), 0.75, CUBE),
            on_top("glass", "glass", (2.07, 2.0), 0.75, CUBE),
        ]
    )
    p = tight.place_between("cube", "mug", "glass")
    assert not p.ok and "between `mug` and `glass`" in p.reason


def test_inside_an_open_container_and_not_a_closed_one() -> None:
    def cabinet(open_: bool) -> dict:
        return obj(
            "cabinet",
            "cabinet",
            (3.0, 1.0, 0.45),
            (0.5, 0.8, 0.9),
            containers=[
                {
                    "name": "inside",
                    "center": [0, 0, 0],
                    "size": [0.44, 0.74, 0.8],
                    "open": open_,
                    "part": "door",
                }
            ],
            parts=[{"name": "door", "center": [0.24, 0, 0], "size": [0.02, 0.8, 0.9]}],
        )

    p = graph([cabinet(True), spare()]).place_inside("cube", "cabinet")
    # packed into a corner of the floor (x 2.78-3.22, y 0.63-1.37)
    assert xy(p) == pytest.approx((2.83, 0.68), abs=1e-3) and p.pose.position[2] == pytest.approx(
        0.05 + 0.05
    )
    closed = graph([cabinet(False), spare()]).place_inside("cube", "cabinet|inside")
    assert not closed.ok and "closed" in closed.reason and "door" in closed.reason


def test_reasons_when_nothing_fits() -> None:
    # Shelves at 0.4 m and 1.2 m: 0.8 m between them, 1.4 m under the 2.6 m ceiling.
    shelf = obj(
        "shelf",
        "shelf",
        (0.3, 2.0, 0.6),
        (0.4, 1.0, 1.2),
        surfaces=[{"name": "low", "z": -0.2}, {"name": "top", "z": 0.6}],
    )
    g = graph(
        [
            shelf,
            obj("vase", "vase", (-5, -5, 0.45), (0.1, 0.1, 0.9), kind="movable"),
            obj("rug", "rug", (-5, -5, 0.01), (2.0, 1.5, 0.02), kind="movable"),
        ]
    )
    tall = g.place_on("vase", "shelf|low")
    assert not tall.ok and "does not fit under" in tall.reason
    wide = g.place_on("rug", "shelf|top")
    assert not wide.ok and "no collision-free spot" in wide.reason
    assert g.place_on("vase", "shelf|top").ok


def test_placements_avoid_items_and_are_deterministic() -> None:
    items = [on_top(f"m{i}", "mug", (1.5 + 0.25 * i, 2.0), 0.75, CUBE) for i in range(5)]
    g = graph([TABLE, spare(), *items])
    first = g.place_on("cube", "table|top")
    again = g.place_on("cube", "table|top")
    assert first.pose == again.pose
    import shapely

    fp = first.footprint
    assert all(shapely.distance(fp, g.object(f"m{i}").footprint) >= 0.0099 for i in range(5))


# ----- place: the one dispatch from a relation to its query ----------------------------------
def _dispatch_scene() -> SceneGraph:
    cabinet = obj("cabinet", "cabinet", (3.5, 1.0, 0.45), (0.5, 0.8, 0.9),
                  containers=[{"name": "inside", "center": [0, 0, 0], "size": [0.44, 0.74, 0.8],
                               "open": True}])
    return graph([TABLE, cabinet, spare(), on_top("mug", "mug", (1.7, 2.0), 0.75, CUBE),
                  on_top("glass", "glass", (2.3, 2.0), 0.75, CUBE)])


@pytest.mark.parametrize(("relation", "args", "query"), [
    ("on", ("cube", "table|top"), lambda g: g.place_on("cube", "table|top")),
    ("in_cell", ("cube", "table|top", "front-left"),
     lambda g: g.place_in_cell("cube", "table|top", "front-left")),
    ("inside", ("cube", "cabinet"), lambda g: g.place_inside("cube", "cabinet")),
    ("direction", ("cube", "mug", "left"), lambda g: g.place_beside("cube", "mug", "left")),
    ("direction", ("cube", "mug", "left", "rear"),
     lambda g: g.place_beside("cube", "mug", "left", viewer_side="rear")),
    ("around", ("cube", "mug"), lambda g: g.place_around("cube", "mug")),
    ("between", ("cube", "mug", "glass"), lambda g: g.place_between("cube", "mug", "glass")),
])
def test_place_dispatches_each_relation_to_its_query(
        relation: str, args: tuple[str, ...], query: Callable[[SceneGraph], Placement]) -> None:
    from fdc.sim_bridge.graph.placement import Relation, place

    g = _dispatch_scene()
    got = place(g, relation, args, g.config.placement)
    want = query(g)
    assert got.ok and got == want
    assert got.relation is (Relation.AROUND if relation == "around" else Relation(relation))
    assert place(g, Relation(relation), args) == want  # the enum, and the default config


@pytest.mark.parametrize(("relation", "args", "message"), [
    ("beside", ("cube", "mug", "left"), "unknown relation `beside`"),
    ("at-side", ("cube", "mug", "left"), "unknown relation `at-side`"),
    ("on", ("cube",), "`on` takes 2 arguments"),
    ("between", ("cube", "mug"), "`between` takes 3 arguments"),
    ("direction", ("cube", "mug", "left", "rear", "x"), "`direction` takes 3 or 4 arguments"),
    ("in_cell", ("cube", "table|top", "upstairs"), "is not a valid Direction"),
    ("direction", ("cube", "mug", "left", "above"), "is not a valid Side"),
])
def test_place_rejects_unknown_relations_and_bad_arguments(relation: str,
                                                          args: tuple[str, ...],
                                                          message: str) -> None:
    from fdc.sim_bridge.graph.placement import place

    with pytest.raises(ValueError, match=message):
        place(_dispatch_scene(), relation, args)


def test_items_put_one_after_another_are_packed() -> None:
    """Four 8 cm cubes fit the front cell of a 35 x 90 cm shelf in one column only when
    the first is pressed against the cell's side (failed before: the first went to the
    cell's middle, the fourth found no room)."""
    shelf = obj("shelf", "shelf", (2.0, 2.0, 0.25), (0.35, 0.9, 0.5))
    size = (0.08, 0.08, 0.2)
    placed: list[dict] = []
    for k in range(4):
        spare_k = obj(f"cube{k}", "box", (-5.0, -5.0, 0.1), size, kind="movable")
        p = graph([shelf, *placed, spare_k]).place_in_cell(f"cube{k}", "shelf|top", "front")
        x, y = xy(p)
        assert 2 + 0.35 / 6 <= x <= 2.175 - 0.04 and 1.85 <= y <= 2.15  # centre in the cell
        assert all(abs(y - o["pose"]["position"][1]) >= 0.08 + 0.01 - 1e-6 for o in placed)
        placed.append(on_top(f"cube{k}", "box", (x, y), 0.5, size))


def test_items_on_an_overlapping_surface_are_obstacles() -> None:
    """Two tables whose tops overlap at the same height (as two receptacles of one
    Habitat chair do): the cube on one keeps the other's spot free (failed before)."""
    g = graph([
        obj("a", "table", (2.0, 2.0, 0.375), (0.5, 0.5, 0.75)),
        obj("b", "table", (2.3, 2.0, 0.375), (0.9, 0.5, 0.75)),
        on_top("c1", "box", (1.9, 1.9), 0.75, (0.3, 0.3, 0.1)),
        spare(),
    ])
    assert g.object("c1").parent_surface == "a|top"
    p = g.place_on("cube", "b|top")
    assert p.ok and p.footprint.distance(g.object("c1").footprint) >= 0.01 - 1e-6


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["on", "in_cell"]),
                          st.sampled_from(["front", "rear-left", "center", "right"]),
                          st.floats(0.05, 0.3), st.floats(0.05, 0.3)),
                min_size=2, max_size=6))
def test_items_put_one_after_another_never_overlap(
        moves: list[tuple[str, str, float, float]]) -> None:
    """Whatever goes on the table, in whichever cell, keeps the 1 cm gap to what is there."""
    placed: list[dict] = []
    for k, (rel, cell, sx, sy) in enumerate(moves):
        size = (sx, sy, 0.1)
        g = graph([TABLE, *placed, obj(f"it{k}", "box", (-5.0, -5.0, 0.05), size,
                                       kind="movable")])
        args = ("table|top", cell) if rel == "in_cell" else ("table|top",)
        p = place(g, rel, (f"it{k}", *args))
        if not p.ok:
            continue
        others = [g.object(o["id"]).footprint for o in placed]
        assert all(p.footprint.distance(f) >= 0.01 - 1e-6 for f in others)
        assert g.surface("table|top").polygon.buffer(1e-6).contains(p.footprint)
        turned = abs(p.yaw_rad) > 1e-9
        placed.append(on_top(f"it{k}", "box", xy(p), 0.75, size, yaw_deg=90.0 if turned else 0.0))


def test_at_a_given_pose_when_it_is_free() -> None:
    """`place_at` checks a pose found earlier (the oracle's) as `find_spot` checks its
    spots: on the surface, clear of what stands there by the gap."""
    from fdc.sim_bridge.graph.placement import place_at

    g = graph([TABLE, spare(), on_top("mug", "mug", (2.0, 2.0), 0.75, CUBE)])
    p = place_at(g, "cube", "table|top", (2.3, 1.8), 0.5)
    assert xy(p) == pytest.approx((2.3, 1.8))
    assert p.pose.position[2] == pytest.approx(0.75 + 0.05)
    assert p.yaw_rad == 0.5 and p.surface_id == "table|top"
    assert "edge" in place_at(g, "cube", "table|top", (2.58, 1.8), 0.0).reason
    assert "touch" in place_at(g, "cube", "table|top", (2.105, 2.0), 0.0).reason
    assert place_at(g, "cube", "table|top", (2.115, 2.0), 0.0).ok  # the 1 cm gap


@settings(max_examples=60, deadline=None)
@given(yaw=st.floats(-3.2, 3.2), origin=st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
       size=st.tuples(st.floats(0.02, 0.3), st.floats(0.02, 0.3)),
       shape=st.sampled_from(["box", "notch", "hexagon", "ring"]),
       obstacles=st.lists(st.tuples(st.floats(-0.6, 0.6), st.floats(-0.4, 0.4),
                                    st.floats(0.01, 0.3), st.floats(0.01, 0.3),
                                    st.floats(-3.2, 3.2)), max_size=12))
def test_the_cheap_spot_tests_decide_as_the_footprints_do(
        yaw: float, origin: tuple[float, float], size: tuple[float, float], shape: str,
        obstacles: list[tuple[float, float, float, float, float]]) -> None:
    # find_spot builds footprints only where its cheap tests cannot decide: the spots it
    # keeps must be those the footprints themselves keep (a rectangle that fills its
    # bounds, a convex hexagon judged by its corners, an L or a ring by the footprints of
    # the spots whose corners are in it)
    from types import SimpleNamespace

    import numpy as np
    import shapely

    from fdc.sim_bridge.geometry import frame_bounds, from_frame, rects
    from fdc.sim_bridge.graph.placement import FIT_SLACK_M, _fills, _free

    surface = SimpleNamespace(origin=(*origin, 0.0), yaw_rad=yaw)
    local = shapely.box(-0.6, -0.4, 0.6, 0.4)
    if shape == "notch":  # an L-shaped target, as merged regions are
        local = local.difference(shapely.box(0.2, 0.1, 0.7, 0.5))
    elif shape == "ring":  # the room around an anchor: a hole no corner may fall in
        local = local.difference(shapely.box(-0.1, -0.05, 0.15, 0.1))
    elif shape == "hexagon":  # the box with its corners cut
        local = local.intersection(shapely.Polygon(
            [(-0.6, 0), (-0.3, -0.4), (0.3, -0.4), (0.6, 0), (0.3, 0.4), (-0.3, 0.4)]))
    target = shapely.transform(local, lambda uv: from_frame(uv, origin, yaw))
    within = shapely.buffer(target, FIT_SLACK_M, join_style="mitre")
    hx, hy = size[0] / 2, size[1] / 2
    gu, gv = np.meshgrid(np.arange(-0.6 + hx, 0.6 - hx + 1e-9, 0.02),
                         np.arange(-0.4 + hy, 0.4 - hy + 1e-9, 0.02), indexing="ij")
    cu, cv = gu.ravel(), gv.ravel()
    xy = from_frame(np.stack([cu, cv], axis=1), origin, yaw)
    obs = np.array([rects(*from_frame([(u, v)], origin, yaw)[0], w / 2, d / 2, yaw + t)[0]
                    for u, v, w, d, t in obstacles], dtype=object)
    tree = shapely.STRtree(obs) if len(obs) else None
    bounds = frame_bounds(obs, surface.origin, yaw) if len(obs) else np.zeros((0, 4))
    fills = _fills(local)
    convex = not fills and bool(shapely.equals(within, shapely.convex_hull(within)))
    assert (fills, convex) == (shape == "box", shape == "hexagon")
    got = _free(xy, cu, cv, hx, hy, surface, within, fills, convex, None, tree, bounds, 0.01)
    boxes = rects(xy[:, 0], xy[:, 1], hx, hy, yaw)
    want = shapely.contains(within, boxes)
    if len(obs):
        want &= ~np.array([shapely.dwithin(obs, b, 0.01).any() for b in boxes], dtype=bool)
    assert np.array_equal(got, want)


def test_three_items_fill_a_cell_with_one_turned() -> None:
    """Three 22.7 x 21.8 cm donuts fit the front cell of a 103 x 88 cm platform only in
    two columns, one of them turned (a few millimetres to spare; unturned, the two
    columns are 4 mm too wide). Put down unturned at the packed spot nearest the cell's
    middle, the first two left no room for the third (failed before: Habitat's
    `out-all-in-cell` tasks): each goes where the most copies of it still fit."""
    from fdc.sim_bridge.graph.placement import PlacementConfig, place_in_cell

    platform = obj("platform", "table", (2.0, 2.0, 0.3), (1.03, 0.88, 0.6))
    size = (0.227, 0.218, 0.08)

    def fill(config: PlacementConfig | None) -> list[Placement]:
        placed: list[dict] = []
        out = []
        for k in range(3):
            spare_k = obj(f"donut{k}", "toy", (-5.0, -5.0, 0.04), size, kind="movable")
            g = graph([platform, *placed, spare_k])
            p = place_in_cell(g, f"donut{k}", "platform|top", "front", config)
            out.append(p)
            if not p.ok:
                break
            others = [g.object(o["id"]).footprint for o in placed]
            assert all(p.footprint.distance(f) >= 0.01 - 1e-6 for f in others)
            x, y = xy(p)
            assert 2 + 1.03 / 6 <= x <= 2 + 1.03 / 2 and 2 - 0.44 / 3 <= y <= 2 + 0.44 / 3
            turned = abs(p.yaw_rad) > 1e-9
            placed.append(on_top(f"donut{k}", "toy", (x, y), 0.6, size,
                                 yaw_deg=90.0 if turned else 0.0))
        return out

    packed = fill(None)
    assert all(p.ok for p in packed), packed[-1].reason
    assert any(abs(p.yaw_rad - math.pi / 2) < 1e-9 for p in packed)
    assert fill(None) == packed  # deterministic
    unturned_first = fill(PlacementConfig(lookahead=0))  # the packed spot alone
    assert [p.ok for p in unturned_first] == [True, True, False]
