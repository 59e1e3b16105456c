"""The feasibility rules: each with a case it rules out and a near case it keeps, both
checked against the embedded world's own placement queries (what it rules out the world
never does; what it keeps, the world does)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.sim_bridge.graph.feasible import (
    Infeasible,
    around_room,
    inside_object,
    layers,
    pack,
    rest_on,
    stacking_blocked,
    twins,
)
from fdc.sim_bridge.graph.placement import place_in_cell, place_inside, place_on
from fdc.sim_bridge.graph.regions import Direction
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from tests.sim_bridge.helpers import CHAIR, graph, obj

#: A bookcase 0.35 m deep and 0.9 m wide: shelves at 0.4, 0.8 and 1.2 m (0.4 m of room
#: on the lower two), its top at 1.8 m.
SHELF = obj("shelf", "bookshelf", (1.0, 3.0, 0.9), (0.35, 0.9, 1.8), kind="furniture",
            surfaces=[{"name": "shelf_0", "z": -0.5}, {"name": "shelf_1", "z": -0.1},
                      {"name": "shelf_2", "z": 0.3}, {"name": "top", "z": 0.9}])
TABLE = obj("table", "table", (2.8, 1.5, 0.375), (1.2, 0.8, 0.75), kind="furniture")
BOX = obj("box", "box", (2.5, 1.4, 0.875), (0.4, 0.3, 0.25), kind="movable", surfaces=[],
          containers=[{"name": "inside", "center": [0.0, 0.0, 0.01],
                       "size": [0.38, 0.28, 0.23], "open": True}])


def item(ident: str, size: tuple[float, float, float], k: int) -> dict:
    """A movable item waiting on the floor, out of the way."""
    return obj(ident, "thing", (0.4 + 0.5 * k, 0.4, size[2] / 2), size, kind="movable")


ITEMS = {
    "lamp": (0.2, 0.2, 0.40), "low_lamp": (0.2, 0.2, 0.39), "plate": (0.25, 0.25, 0.02),
    "saucer": (0.1, 0.1, 0.02), "board": (1.3, 0.3, 0.02), "short_board": (1.1, 0.3, 0.02),
    "tray": (0.45, 0.32, 0.03), "tray_b": (0.45, 0.32, 0.03), "tray_c": (0.45, 0.32, 0.03),
    "book": (0.16, 0.24, 0.04), "book_b": (0.16, 0.24, 0.04), "book_c": (0.16, 0.24, 0.04),
}


@pytest.fixture(scope="module")
def g() -> SceneGraph:
    things = [item(i, size, k) for k, (i, size) in enumerate(ITEMS.items())]
    return graph([SHELF, TABLE, BOX, *things], agent=(3.5, 3.5))


def test_the_world_rules_out_what_the_room_rules_out(g: SceneGraph) -> None:
    assert rest_on(g, "lamp", "shelf|shelf_1") is Infeasible.TOO_TALL
    assert not place_on(g, "lamp", "shelf|shelf_1").ok
    assert rest_on(g, "low_lamp", "shelf|shelf_1") is None
    assert place_on(g, "low_lamp", "shelf|shelf_1").ok
    assert rest_on(g, "lamp", "shelf|shelf_2") is None  # 0.6 m of room there


def test_an_item_larger_than_the_surface_either_way_round(g: SceneGraph) -> None:
    assert rest_on(g, "board", "table|top") is Infeasible.TOO_LARGE
    assert not place_on(g, "board", "table|top").ok
    assert rest_on(g, "short_board", "table|top") is None
    assert place_on(g, "short_board", "table|top").ok
    # turned: 1.1 m does not fit across 0.9 m, but 0.3 m along 0.35 m does
    assert rest_on(g, "short_board", "shelf|shelf_2") is Infeasible.TOO_LARGE
    assert rest_on(g, "tray", "shelf|shelf_2") is None


def test_an_item_never_rests_on_its_own_top(g: SceneGraph) -> None:
    # the tray's top is a surface (0.14 m2); the `on` checker never counts an item on
    # itself, so the compile must not bind one there (the Habitat fixture's `export-on`
    # did, and no planner could reach it)
    assert rest_on(g, "tray", "tray|top") is Infeasible.OWN_TOP
    assert rest_on(g, "tray_b", "tray|top") is None
    assert not place_on(g, "tray", "tray|top").ok


@pytest.mark.parametrize(("thing", "cell", "rule"), [
    ("plate", "rear", Infeasible.CELL),  # 0.25 m on a 0.35 m shelf: centre within 5 cm
    ("plate", "front-left", Infeasible.CELL),
    ("plate", "left", None),
    ("plate", "center", None),
    ("saucer", "rear", None),
    ("saucer", "front-right", None),
])
def test_a_cell_too_shallow_for_the_centre(g: SceneGraph, thing: str, cell: str,
                                          rule: Infeasible | None) -> None:
    assert rest_on(g, thing, "shelf|shelf_2", Direction(cell)) is rule
    assert place_in_cell(g, thing, "shelf|shelf_2", Direction(cell)).ok == (rule is None)


def test_side_by_side_where_nothing_stacks(g: SceneGraph) -> None:
    assert stacking_blocked(g, "shelf|shelf_2")
    assert not stacking_blocked(g, "shelf|top")  # open above
    assert not stacking_blocked(g, "table|top")
    # two 0.45 m trays need 0.91 m with the gap, the shelf is 0.9 m wide
    assert pack(g, "shelf|shelf_2", [("tray", None), ("tray_b", None)]) is Infeasible.PACKING
    assert pack(g, "shelf|shelf_2", [("tray", None), ("book", None)]) is None
    # centres in the 0.3 m wide centre cell: two books (0.16 m wide turned) and a
    # saucer between them fit (0.28 m of widths and gaps), three books do not (0.34 m)
    c = Direction.CENTER
    assert pack(g, "shelf|shelf_2", [("book", c), ("book_b", c), ("saucer", c)]) is None
    assert pack(g, "shelf|shelf_2", [("book", c), ("book_b", c), ("book_c", c)]) is \
        Infeasible.PACKING
    # on a table trays can be stacked three deep: nothing is ruled out
    assert pack(g, "table|top", [("tray", None), ("tray_b", None), ("tray_c", None)]) is None
    # one item alone is the single rules' business
    assert pack(g, "shelf|shelf_2", [("tray", None)]) is None


def placed(g: SceneGraph, surface: str, items: list[str]) -> list[str]:
    """The items the embedded world puts down on `surface`, one after another (each
    fetched from the floor), those it refuses put on the table instead."""
    w = EmbeddedWorld(g)
    done = []
    for x in items:
        assert w.navigate(x) and w.pick(x) and w.navigate(surface), x
        if w.place(surface):
            done.append(x)
        else:
            assert w.navigate("table|top") and w.place("table|top"), x
    return done


def test_at_least_some_side_by_side_where_nothing_stacks(g: SceneGraph) -> None:
    trays = [("tray", None), ("tray_b", None), ("tray_c", None)]
    # no two of three trays fit on the 0.9 m shelf; the world puts down one
    assert pack(g, "shelf|shelf_2", trays, at_least=2) is Infeasible.PACKING
    assert placed(g, "shelf|shelf_2", ["tray", "tray_b", "tray_c"]) == ["tray"]
    # a tray and a saucer do: the narrowest pair of the candidates fits
    with_saucer = [("tray", None), ("tray_b", None), ("saucer", None)]
    assert pack(g, "shelf|shelf_2", with_saucer, at_least=2) is None
    assert placed(g, "shelf|shelf_2", ["tray", "saucer"]) == ["tray", "saucer"]
    assert pack(g, "shelf|shelf_2", trays, at_least=1) is None  # one alone fits
    # a count of one where none fits alone (`exactly 1` lamp on the low shelf; passed
    # before, and the apartment's out-exactly-one-on had neither plan nor oracle)
    assert pack(g, "shelf|shelf_1", [("lamp", None)], at_least=1) is Infeasible.TOO_TALL
    assert pack(g, "shelf|shelf_1", [("lamp", None), ("book", None)], at_least=1) is None
    # only the items that can rest there alone are candidates: the lamp is too tall
    # for the 0.4 m of room on shelf_1, so a tray and it are no pair
    assert pack(g, "shelf|shelf_1", [("lamp", None), ("book", None)], at_least=2) is \
        Infeasible.TOO_TALL
    assert pack(g, "shelf|shelf_1", [("lamp", None), ("book", None), ("book_b", None)],
                at_least=2) is None
    # where items can be stacked, nothing is ruled out
    assert pack(g, "table|top", trays * 2, at_least=3) is None


def test_more_items_than_the_room_holds() -> None:
    """0.16 m cubes on the 0.9 x 0.35 m shelf: two rows of five fit, and rows do not
    rule out more (two stand side by side either way); twelve take more room, with the
    gap, than the shelf has."""
    cubes = [item(f"cube_{k}", (0.16, 0.16, 0.1), k) for k in range(12)]
    g = graph([SHELF, TABLE, *cubes], agent=(3.5, 3.5))
    wanted = [(f"cube_{k}", None) for k in range(12)]
    assert pack(g, "shelf|shelf_2", wanted) is Infeasible.CROWDED
    assert pack(g, "shelf|shelf_2", wanted, at_least=12) is Infeasible.CROWDED
    assert pack(g, "shelf|shelf_2", wanted, at_least=10) is None
    assert pack(g, "shelf|shelf_2", wanted[:10]) is None


def test_stacks_only_as_deep_as_the_band() -> None:
    """On the bookcase's open top items may stand on items, but one counts as on the top
    only while its bottom is at most `on_top_m` (0.15 m) up: two 0.45 m trays side by
    side need 0.91 m of the 0.9 m, so a pair of them is one on the other, which counts
    for thin trays and not for 0.2 m crates."""
    assert layers([0.03, 0.03, 0.03], 0.15) == 3
    assert layers([0.08, 0.08, 0.08], 0.15) == 2  # the third would stand 0.16 m up
    assert layers([0.2, 0.03], 0.15) == 2  # the crate on the tray
    assert layers([0.2, 0.2], 0.15) == 1
    flat, tall = (0.45, 0.32, 0.03), (0.45, 0.32, 0.2)
    g = graph([SHELF, TABLE, item("tray", flat, 0), item("tray_b", flat, 1),
               item("crate", tall, 2), item("crate_b", tall, 3)], agent=(3.5, 3.5))
    assert pack(g, "shelf|top", [("tray", None), ("tray_b", None)]) is None
    assert pack(g, "shelf|top", [("crate", None), ("crate_b", None)]) is \
        Infeasible.PACKING
    assert pack(g, "shelf|top", [("crate", None), ("tray", None)]) is None
    # the world does stack the trays, the upper one's bottom 3 cm over the shelf's top
    w = EmbeddedWorld(g)
    for x, where in (("tray", "shelf|top"), ("tray_b", "tray|top")):
        assert w.navigate(x) and w.pick(x) and w.navigate(where) and w.place(where), x
    posed = w.state.posed
    assert posed.support_of("tray_b") == "tray|top"
    assert posed.object("tray_b").bottom_z - g.surface("shelf|top").z == pytest.approx(0.03)


def test_the_world_stacks_on_a_shelf_inside_the_bookcase() -> None:
    """A book on a book on the bookcase's second shelf: the bookcase's body, which
    stands around its shelves, is no obstacle to what goes on an item it carries
    (failed before: "no collision-free spot" on any book's top inside it, so the
    apartment's nine books never gathered on one shelf)."""
    book = (0.16, 0.24, 0.04)
    g = graph([SHELF, TABLE, item("book", book, 0), item("book_b", book, 1),
               item("book_c", book, 2)], agent=(3.5, 3.5))
    w = EmbeddedWorld(g)
    for x, where in (("book", "shelf|shelf_1"), ("book_b", "book|top"),
                     ("book_c", "book_b|top")):
        assert w.navigate(x) and w.pick(x) and w.navigate(where) and w.place(where), x
    posed = w.state.posed
    assert posed.support_of("book_c") == "book_b|top"
    assert posed.object("book_c").bottom_z - g.surface("shelf|shelf_1").z == \
        pytest.approx(0.08)


def test_items_that_fit_in_a_cell_only_stacked() -> None:
    """The 0.9 x 0.35 m open top of the bookcase: the centres of 0.16 m cubes in its
    centre cell (0.3 x 0.12 m) can be 0.17 m apart along it (with the gap), so two stand
    side by side there, not three; 5 cm cubes stack three deep within the band, so three
    fit only with one on another, which no plan certifies in a cell (`STACKED`); 20 cm
    cubes do not stack at all (`PACKING`)."""
    low = [item(f"low_{k}", (0.16, 0.16, 0.05), k) for k in range(3)]
    tall = [item(f"tall_{k}", (0.16, 0.16, 0.2), 3 + k) for k in range(3)]
    g = graph([SHELF, *low, *tall], agent=(3.5, 3.5))
    c = Direction.CENTER
    assert pack(g, "shelf|top", [(f"low_{k}", c) for k in range(2)]) is None
    assert pack(g, "shelf|top", [(f"low_{k}", c) for k in range(3)]) is Infeasible.STACKED
    assert pack(g, "shelf|top", [(f"tall_{k}", c) for k in range(3)]) is Infeasible.PACKING
    assert pack(g, "shelf|top", [(f"low_{k}", None) for k in range(3)]) is None  # anywhere


def test_two_receptacles_of_one_seat_are_judged_together() -> None:
    """A chair whose seat has two receptacles 1 mm apart in height, one a little larger
    (Habitat's aabb and mesh receptacles): an item on either counts as on both, so
    neither alone says what fits, but together they do: two 0.23 m donuts never stand
    side by side on the 0.32 x 0.38 m seat (the world puts down one), and the chair's
    back keeps one from standing on the other."""
    donut = (0.227, 0.218, 0.078)
    g = graph([CHAIR, TABLE, item("donut", donut, 0), item("donut_b", donut, 1)],
              agent=(3.5, 3.5))
    assert [t.id for t in twins(g, g.surface("chair|aabb"), 0.02)] == ["chair|mesh"]
    assert stacking_blocked(g, "chair|aabb")
    both = [("donut", None), ("donut_b", None)]
    for surface in ("chair|aabb", "chair|mesh"):
        assert rest_on(g, "donut", surface) is None  # not judged alone
        assert pack(g, surface, both) is Infeasible.PACKING
        assert placed(g, surface, ["donut", "donut_b"]) == ["donut"]
    # whose centre cannot be in a corner cell of the seat, on either receptacle
    corner = [(x, Direction.FRONT_LEFT) for x, _ in both]
    assert pack(g, "chair|aabb", corner) is Infeasible.CELL
    w = EmbeddedWorld(g)
    assert w.navigate("donut") and w.pick("donut") and w.navigate("chair|aabb")
    assert not w.place("chair|aabb", "in_cell", cell=Direction.FRONT_LEFT)
    assert not w.place("chair|mesh", "in_cell", cell=Direction.FRONT_LEFT)


def test_a_container_item_too_low_inside(g: SceneGraph) -> None:
    assert inside_object(g, "lamp", "box") is Infeasible.TOO_TALL
    assert not place_inside(g, "lamp", "box").ok
    assert inside_object(g, "book", "box") is None
    assert place_inside(g, "book", "box").ok
    assert rest_on(g, "lamp", "box|inside") is Infeasible.TOO_TALL


def test_another_surface_in_the_band_is_not_judged() -> None:
    """A 1.5 m riser standing on the 1.2 m table, its top 10 cm up: a board on the
    riser, its centre over the table, counts as on the table (within `on_top_m`), so
    the table's outline proves nothing."""
    riser = obj("riser", "shelf", (2.8, 1.5, 0.8), (1.5, 0.3, 0.1), kind="furniture")
    g = graph([TABLE, riser, item("board", ITEMS["board"], 0)], agent=(3.8, 3.5))
    assert rest_on(g, "board", "table|top") is None
    assert rest_on(g, "board", "table|top", on_top_m=0.05) is Infeasible.TOO_LARGE


def test_the_apartment(apartment_graph: SceneGraph) -> None:
    g = apartment_graph
    assert inside_object(g, "lamp_2", "box_0") is Infeasible.TOO_TALL
    assert inside_object(g, "plant_1", "box_0") is Infeasible.TOO_TALL
    assert rest_on(g, "lamp_1", "kitchen_shelf|shelf_0") is Infeasible.TOO_TALL
    assert rest_on(g, "plate_2", "office_shelf|shelf_1", Direction.REAR_LEFT) is \
        Infeasible.CELL
    assert rest_on(g, "tray_0", "side_table|top", Direction.FRONT_RIGHT) is Infeasible.CELL
    bowls = [(f"bowl_{k}", Direction.CENTER) for k in range(4)]
    assert pack(g, "office_bookshelf|shelf_1", bowls) is Infeasible.PACKING
    assert pack(g, "office_bookshelf|shelf_1", bowls[:2]) is None
    assert pack(g, "bathroom_cabinet|inside", [(b, None) for b, _ in bowls]) is None


@settings(max_examples=40, deadline=None)
@given(su=st.floats(0.02, 1.0), sv=st.floats(0.02, 1.0), h=st.floats(0.01, 0.6),
       cell=st.sampled_from([*Direction]))
@pytest.mark.slow
def test_never_rules_out_what_the_world_places(su: float, sv: float, h: float,
                                              cell: Direction) -> None:
    g = graph([SHELF, item("x", (su, sv, h), 0)], agent=(3.5, 3.5))
    for surface in ("shelf|shelf_1", "shelf|shelf_2", "shelf|top"):
        judged = rest_on(g, "x", surface, cell)
        placed = place_in_cell(g, "x", surface, cell)
        if judged is not None:
            assert not placed.ok, (surface, judged)
        if rest_on(g, "x", surface) is not None:
            assert not place_on(g, "x", surface).ok


@settings(max_examples=12, deadline=None)
@given(sizes=st.lists(st.tuples(st.floats(0.3, 0.6), st.floats(0.18, 0.34),
                                st.floats(0.02, 0.3)), min_size=3, max_size=3))
@pytest.mark.slow
def test_never_rules_out_a_count_the_world_places(sizes: list[tuple[float, float, float]]
                                                  ) -> None:
    """At least two of three items on the shelf: when `pack` rules it out, no two of
    them, in either order, are put down there by the world."""
    names = ["x", "y", "z"]
    g = graph([SHELF, TABLE, *[item(n, s, k) for k, (n, s) in enumerate(
        zip(names, sizes, strict=True))]], agent=(3.5, 3.5))
    if pack(g, "shelf|shelf_2", [(n, None) for n in names], at_least=2) is None:
        return
    for a, b in itertools.permutations(names, 2):
        assert len(placed(g, "shelf|shelf_2", [a, b])) < 2, (a, b)


#: A 6 cm cube on the bookcase's middle shelf (0.8 m up), at its front edge.
CUBE = obj("cube", "toy", (0.86, 3.0, 0.83), (0.06, 0.06, 0.06), kind="movable")
PLATES = [f"plate_{k}" for k in range(4)]


@pytest.fixture(scope="module")
def narrow() -> SceneGraph:
    """The 0.35 m deep bookcase, the cube and four 0.25 m plates on the floor."""
    plates = [item(p, ITEMS["plate"], k) for k, p in enumerate(PLATES)]
    return graph([SHELF, CUBE, *plates], agent=(3.5, 3.5))


def test_around_an_anchor_on_a_narrow_shelf(narrow: SceneGraph) -> None:
    """Across the 0.35 m shelf two 0.25 m plates' centres lie at most 0.1 m apart, less
    than half a plate: one plate at each end of the cube, one beside it (the cube and a
    plate fit side by side across the shelf), never four."""
    shelf = "shelf|shelf_1"
    assert around_room(narrow, shelf, "cube", PLATES) is Infeasible.AROUND
    assert around_room(narrow, shelf, "cube", PLATES[:3]) is None
    # on the 1.2 x 0.8 m table, or with the anchor turned 45 degrees: nothing judged
    wide = graph([TABLE, obj("cube", "toy", (2.8, 1.5, 0.78), (0.06, 0.06, 0.06),
                             kind="movable"),
                  *(item(p, ITEMS["plate"], k) for k, p in enumerate(PLATES))], agent=(3.8, 3.5))
    assert around_room(wide, "table|top", "cube", PLATES) is None
    turned = graph([SHELF, obj("cube", "toy", (0.9, 3.0, 0.83), (0.06, 0.06, 0.06), 45.0,
                               kind="movable"),
                    *(item(p, ITEMS["plate"], k) for k, p in enumerate(PLATES))],
                   agent=(3.5, 3.5))
    assert around_room(turned, shelf, "cube", PLATES) is None
    # a plate there at the start hanging 5 cm over the shelf's front edge: not judged
    over = obj("plate_0", "thing", (1.1, 2.7, 0.81), ITEMS["plate"], kind="movable")
    hangs = graph([SHELF, CUBE, over, *(item(p, ITEMS["plate"], k)
                                        for k, p in enumerate(PLATES[1:]))], agent=(3.5, 3.5))
    assert around_room(hangs, shelf, "cube", PLATES) is None
    square = obj("plate_0", "thing", (1.0, 2.7, 0.81), ITEMS["plate"], kind="movable")
    inside = graph([SHELF, CUBE, square, *(item(p, ITEMS["plate"], k)
                                           for k, p in enumerate(PLATES[1:]))], agent=(3.5, 3.5))
    assert around_room(inside, shelf, "cube", PLATES) is Infeasible.AROUND


@settings(max_examples=60, deadline=None)
@given(ay=st.floats(2.58, 3.42), ax=st.floats(0.86, 1.14), near=st.floats(0.0, 0.1),
       far=st.floats(0.0, 0.1), dy=st.floats(0.26, 0.6), x0=st.floats(0.95, 1.05),
       x1=st.floats(0.95, 1.05))
def test_the_checker_sees_one_plate_beyond_each_end(
        narrow: SceneGraph, ay: float, ax: float, near: float, far: float, dy: float,
        x0: float, x1: float) -> None:
    """`around_room`'s argument, against the `around` checker: of two plates on the
    narrow shelf beyond the same end of the cube (wherever across the shelf each
    stands), at most one is around it."""
    from fdc.predicates.builtin import evaluate
    from fdc.predicates.registry import Context
    from tests.predicates.stand_in import StandInState

    y0 = ay + 0.03 + 0.125 + near  # the nearer plate, clear of the cube
    y1 = y0 + dy + far  # the farther one, clear of the nearer
    top = 0.8
    st_ = StandInState.of(narrow, 3.5, 3.5).moved("cube", (ax, ay, top + 0.03), "shelf|shelf_1")
    for p, (x, y) in zip(PLATES, ((x0, y0), (x1, y1)), strict=False):
        st_ = st_.moved(p, (x, y, top + 0.01), "shelf|shelf_1")
    ctx = Context(graph=narrow, state=st_)  # type: ignore[arg-type]
    both = [evaluate("around", [p, "cube"], ctx) for p in PLATES[:2]]
    assert both[0] or y0 + 0.125 > 3.45  # the nearer one is, when on the shelf
    assert not all(both)
