"""Spatial checkers on the hand-made home: each threshold from both sides."""

from __future__ import annotations

import functools

import pytest

from fdc.predicates.builtin import default_registry, evaluate
from fdc.predicates.registry import Context, EvaluationError
from fdc.sim_bridge.graph.regions import Side
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from tests.predicates.scenes import TOP, ctx, state
from tests.predicates.stand_in import StandInState
from tests.sim_bridge.helpers import obj, on_top, scene

REG = default_registry()


def on(st, o: str, s: str, **kw) -> bool:
    return evaluate("on", [o, s], ctx(st, **kw))


def test_on_holds_for_the_scene_as_built() -> None:
    st = state()
    assert on(st, "mug", "table|top")
    assert on(st, "cup", "tray|top")
    assert not on(st, "mug", "cabinet|top")


@pytest.mark.parametrize(
    ("gap", "expected"), [(0.14, True), (0.16, False), (-0.01, True), (-0.03, False)]
)
def test_on_height_thresholds(gap: float, expected: bool) -> None:
    st = state().moved("mug", (2.0, 2.0, TOP + gap + 0.05), "table|top")
    assert on(st, "mug", "table|top") is expected


@pytest.mark.parametrize(("x", "expected"), [(2.55, True), (2.65, False)])
def test_on_judges_the_centre_over_the_outline(x: float, expected: bool) -> None:
    st = state().moved("mug", (x, 2.0, TOP + 0.05), "table|top")
    assert on(st, "mug", "table|top") is expected


def test_a_thin_item_is_not_on_its_own_top() -> None:
    # the tray (2 cm) lies within a lax `on_below_m` of its own top
    c = ctx(state()).with_thresholds({"on_below_m": 0.05}, REG)
    assert not evaluate("on", ["tray", "tray|top"], c)
    assert not evaluate("in-cell", ["tray", "tray|top", "center"], c)
    assert evaluate("on", ["tray", "table|top"], c)
    assert evaluate("on", ["cup", "tray|top"], c)


def test_a_held_item_is_on_nothing() -> None:
    assert not on(state().holding("mug"), "mug", "table|top")


def test_surfaces_of_a_moved_carrier_move_with_it() -> None:
    st = state().moved("tray", (2.3, 1.7, TOP + 0.01), "table|top")
    assert not on(st, "cup", "tray|top")  # the cup stayed behind
    st = st.moved("cup", (2.3, 1.7, TOP + 0.06), "tray|top")
    assert on(st, "cup", "tray|top")


def test_thresholds_override_on() -> None:
    st = state().moved("mug", (2.0, 2.0, TOP + 0.10 + 0.05), "table|top")
    assert on(st, "mug", "table|top")
    c = ctx(st).with_thresholds({"on_top_m": 0.05}, REG)
    assert not evaluate("on", ["mug", "table|top"], c)


@pytest.mark.parametrize(("z", "expected"), [
    (0.10, True),
    (0.25, True),  # its bottom exactly `on_top_m` above the floor (0.15000000000000002)
    (0.2501, False),
])
def test_inside_a_receptacle(z: float, expected: bool) -> None:
    st = state().moved("mug", (5.5, 1.0, z), "cabinet|inside")
    assert evaluate("inside", ["mug", "cabinet|inside"], ctx(st)) is expected


@pytest.mark.parametrize(("y", "expected"), [(1.0, True), (1.165, True), (1.18, False)])
def test_inside_a_container_item(y: float, expected: bool) -> None:
    st = state().moved("apple", (8.0, y, 0.1), None)
    assert evaluate("inside", ["apple", "basket"], ctx(st)) is expected
    assert not evaluate("inside", ["apple", "basket"], ctx(st.holding("apple")))


def test_in_room_by_centre_and_for_held_items() -> None:
    st = state()
    assert evaluate("in-room", ["mug", "kitchen"], ctx(st))
    assert not evaluate("in-room", ["mug", "living"], ctx(st))
    moved = st.moved("mug", (7.0, 1.0, 0.5), None)
    assert evaluate("in-room", ["mug", "living"], ctx(moved))
    carried = st.holding("mug").at(7.0, 2.0)
    assert evaluate("in-room", ["mug", "living"], ctx(carried))
    with pytest.raises(EvaluationError, match="unknown room"):
        evaluate("in-room", ["mug", "attic"], ctx(st))


@pytest.mark.parametrize(
    ("xy", "cell", "expected"),
    [
        ((2.0, 2.0), "center", True),
        ((2.4, 2.25), "front-right", True),  # +y is the right of a viewer facing the front
        ((2.4, 2.25), "front", False),
        ((2.21, 2.0), "front", True),  # just past the third: front, not centre
        ((2.21, 2.0), "center", False),
        ((2.19, 2.0), "center", True),
        ((2.19, 2.0), "front", False),
        ((1.6, 1.7), "rear-left", True),
    ],
)
def test_in_cell_by_the_centre(xy: tuple[float, float], cell: str, expected: bool) -> None:
    st = state().moved("apple", (xy[0], xy[1], TOP + 0.04), "table|top")
    assert evaluate("in-cell", ["apple", "table|top", cell], ctx(st)) is expected


def test_in_cell_needs_the_item_on_the_surface_and_a_known_cell() -> None:
    st = state().moved("apple", (2.0, 2.0, TOP + 0.5), None)
    assert not evaluate("in-cell", ["apple", "table|top", "center"], ctx(st))
    with pytest.raises(EvaluationError, match="not a cell"):
        evaluate("in-cell", ["mug", "table|top", "middle"], ctx())


def test_at_side_is_relative_to_the_viewer() -> None:
    # The agent stands at the table's rear, facing +x: the book (further along +x than
    # the mug) is behind the mug for it.
    st = state()
    assert evaluate("at-side", ["book", "mug", "rear"], ctx(st))
    assert not evaluate("at-side", ["book", "mug", "front"], ctx(st))
    # From the table's front the same book is in front of the mug.
    front = st.at(2.95, 2.0, 180.0)
    assert evaluate("at-side", ["book", "mug", "front"], ctx(front))
    # A viewer side given in the context wins over the agent's position.
    assert evaluate("at-side", ["book", "mug", "front"], ctx(st, viewer_side=Side.FRONT))
    # The apple is at the mug's rear-left in the table's terms: front-left for the agent.
    assert evaluate("at-side", ["apple", "mug", "front-left"], ctx(st))
    assert evaluate("at-side", ["apple", "mug", "rear-right"], ctx(front))
    assert not evaluate("at-side", ["apple", "mug", "center"], ctx(st))


def test_at_side_is_cut_back_at_the_first_neighbour() -> None:
    st = state().moved("apple", (2.5, 2.0, TOP + 0.04), "table|top")
    assert not evaluate("at-side", ["apple", "mug", "rear"], ctx(st))  # the book is between
    clear = st.moved("book", (5.5, 1.0, 0.915), "cabinet|top")
    assert evaluate("at-side", ["apple", "mug", "rear"], ctx(clear))


@pytest.mark.parametrize(("reach_m", "expected"), [(2e-6, True), (1e-3, False)])
def test_a_neighbour_touching_the_strip_is_not_between(reach_m: float, expected: bool) -> None:
    # l3-then-side-side-0af84516f4a4: the mug packed at the banana's front-right reached
    # a micrometre (the placement's slack) into the strip between the banana and the
    # apple at its right, and the checker called it between them.
    st = state().moved("apple", (2.0, 2.3, TOP + 0.04), "table|top")
    st = st.moved("book", (2.1 - reach_m, 2.2, TOP + 0.015), "table|top")
    assert evaluate("at-side", ["apple", "mug", "left"], ctx(st)) is expected


def test_at_side_needs_the_same_surface() -> None:
    st = state().moved("apple", (5.4, 1.0, 0.94), "cabinet|top")
    assert not evaluate("at-side", ["apple", "mug", "front-left"], ctx(st))


def test_around_is_not_vacuous() -> None:
    st = state()
    assert evaluate("around", ["apple", "mug"], ctx(st))
    behind_book = st.moved("apple", (2.5, 2.0, TOP + 0.04), "table|top")
    assert not evaluate("around", ["apple", "mug"], ctx(behind_book))
    elsewhere = st.moved("apple", (5.4, 1.0, 0.94), "cabinet|top")
    assert not evaluate("around", ["apple", "mug"], ctx(elsewhere))
    on_the_mug = st.moved("apple", (2.0, 2.0, TOP + 0.14), "table|top")
    assert not evaluate("around", ["apple", "mug"], ctx(on_the_mug))
    assert not evaluate("around", ["mug", "mug"], ctx(st))


@pytest.mark.parametrize(
    ("xy", "expected"),
    [
        ((2.15, 2.0), True),
        ((2.15, 2.04), True),
        ((2.15, 2.06), False),  # out of the strip, as wide as the narrower anchor (0.1 m)
        ((2.4, 2.0), False),  # past the book
        ((2.03, 2.0), False),  # inside the mug's box
    ],
)
def test_between_two_anchors(xy: tuple[float, float], expected: bool) -> None:
    st = state().moved("apple", (xy[0], xy[1], TOP + 0.04), "table|top")
    assert evaluate("between", ["apple", "mug", "book"], ctx(st)) is expected


def test_between_needs_one_surface() -> None:
    st = (
        state()
        .moved("book", (5.5, 1.0, 0.915), "cabinet|top")
        .moved("apple", (2.15, 2.0, TOP + 0.04), "table|top")
    )
    assert not evaluate("between", ["apple", "mug", "book"], ctx(st))


def test_open_and_closed() -> None:
    st = state()
    assert not evaluate("is-open", ["cabinet"], ctx(st))
    assert evaluate("is-open", ["cabinet"], ctx(st.with_open("cabinet|inside", True)))


def _one_atom_equals_the_exists(st) -> None:
    """`on-furniture` and `same-surface` say in one atom what an `exists` over every
    surface says with `on`."""
    c = ctx(st)
    g = c.graph
    items = sorted(o.id for o in g.objects() if o.kind.value == "movable")
    surfaces = [s.id for s in g.surfaces()]
    furniture = {s.id for s in g.surfaces() if g.object(s.object_id).kind.value != "movable"}
    under = {x: {s for s in surfaces if evaluate("on", [x, s], c)} for x in items}
    pairs = {x != y and bool(under[x] & under[y]) for x in items for y in items}
    assert pairs == {True, False}  # both answers occur: the comparison means something
    for x in items:
        assert evaluate("on-furniture", [x], c) == bool(under[x] & furniture), x
        for y in items:
            want = x != y and bool(under[x] & under[y])
            assert evaluate("same-surface", [x, y], c) == want, (x, y)


def test_on_furniture_and_same_surface_equal_their_exists_forms() -> None:
    _one_atom_equals_the_exists(state())
    _one_atom_equals_the_exists(state().holding("mug"))
    _one_atom_equals_the_exists(state().moved("mug", (2.3, 1.7, TOP + 0.06), "tray|top"))


@functools.cache
def _shelf() -> SceneGraph:
    """A shelf unit (boards at 0.8 m and its top at 1.2 m), a 35 cm plant on the lower
    board (its top 5 cm under the top board) and a clock on the top board over it: the
    shape of `fdc scene generate --seed 3`'s shelf_04, where the audit found the clock
    judged on the plant too."""
    shelf = obj("shelf", "shelf", (2.0, 2.0, 0.6), (0.35, 1.2, 1.2), kind="furniture",
                surfaces=[{"name": "board", "z": 0.2}, {"name": "top", "z": 0.6}])
    plant = on_top("plant", "plant", (2.0, 2.0), 0.8, (0.2, 0.2, 0.35))
    clock = on_top("clock", "clock", (2.0, 1.95), 1.2, (0.2, 0.07, 0.2))
    return build_scene_graph(scene([shelf, plant, clock]))


def test_an_item_on_a_board_is_not_on_the_item_top_under_it() -> None:
    g = _shelf()
    c = Context(graph=g, state=StandInState.of(g, 1.0, 2.0, 0.0))
    assert evaluate("on", ["plant", "shelf|board"], c)
    assert evaluate("on", ["clock", "shelf|top"], c)
    assert not evaluate("on", ["clock", "plant|top"], c)  # the top board lies between
    # the band still reaches through item tops: a cup on a tray is on the table
    assert on(state(), "cup", "table|top")
