"""The describer's last resort: furniture by its place left to right, seen from the
room's doorway, and surfaces of one piece of furniture by their height; each read back
by the listener to that entity alone."""

from __future__ import annotations

from typing import Any

from fdc.instructions.describe import Describer
from fdc.instructions.listen import listener_for
from fdc.instructions.ordinals import ACROSS, UP, Order, order_words
from tests.sim_bridge.helpers import graph, obj, room


def describer(objects: list[dict[str, Any]]) -> Describer:
    """A hall (the robot's) and a kitchen east of it, through a door at (4, 2): seen
    from there, the kitchen's left is north (+y), its right south."""
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries

    g = graph(objects, rooms=[room("hall", "hallway", 0, 0, 4, 4),
                              room("kitchen", "kitchen", 4, 0, 10, 4)],
              doors=[{"id": "door", "rooms": ["hall", "kitchen"], "position": [4, 2]}])
    compiler = SceneCompiler(g, "test.json", "0" * 64)
    entries, _ = load_entries(None)
    return Describer(compiler.facts(entries[0].domain), compiler.states["initial"])


def along_east_wall(category: str, ys: list[float], width_m: float = 0.6, **extra: Any
                    ) -> list[dict[str, Any]]:
    return [obj(f"{category}_{k}", category, (9.5, y, 0.45), (0.6, width_m, 0.9),
                kind="furniture", **extra) for k, y in enumerate(ys)]


def read_back(d: Describer, entity: str) -> tuple[str, ...]:
    """What the listener takes the entity's description for."""
    [mention] = listener_for(d).mentions(f"Go to {d.describe(entity).definite}.")
    return mention.fits


def test_two_like_pieces_of_furniture_are_the_left_and_the_right_one() -> None:
    d = describer(along_east_wall("counter", [1.0, 3.0]))
    assert d.describe("counter_1").definite == "the left counter"
    assert d.describe("counter_0").definite == "the right counter"
    assert d.describe("counter_0|top").definite == "the right counter"
    for e in ("counter_0", "counter_1"):
        assert d.describe(e).unique and read_back(d, e) == (e,)


def test_the_room_modifies_the_noun_when_another_room_has_one_so_placed() -> None:
    # seen from the door, the hall's left is south (-y)
    hall = [obj(f"hall_counter_{k}", "counter", (0.5, y, 0.45), (0.6, 0.6, 0.9),
                kind="furniture") for k, y in enumerate([1.5, 3.3])]
    d = describer([*along_east_wall("counter", [1.0, 3.0]), *hall])
    assert d.describe("counter_1").definite == "the left kitchen counter"
    assert d.describe("hall_counter_0").definite == "the left hallway counter"
    assert d.describe("counter_1|top").definite == "the left kitchen counter"
    for e in ("counter_0", "counter_1", "hall_counter_0", "hall_counter_1"):
        assert read_back(d, e) == (e,)


def test_three_or_more_are_counted_from_the_nearer_end() -> None:
    d = describer(along_east_wall("cabinet", [0.8, 2.0, 3.2]))
    assert [d.describe(f"cabinet_{k}").definite for k in range(3)] == [
        "the rightmost cabinet", "the second cabinet from the left", "the leftmost cabinet"]
    for k in range(3):
        assert read_back(d, f"cabinet_{k}") == (f"cabinet_{k}",)


def test_no_place_when_neighbours_stand_too_close_together() -> None:
    d = describer(along_east_wall("chair", [1.8, 2.2], width_m=0.3))
    for e in ("chair_0", "chair_1"):
        desc = d.describe(e)
        assert not desc.unique and desc.phrase == "chair" and d.place(e) is None


def test_a_place_is_given_only_as_a_last_resort() -> None:
    cabinet = obj("cabinet", "cabinet", (8.8, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture")
    d = describer([*along_east_wall("counter", [1.0, 3.0]), cabinet])
    # one counter is next to the only cabinet: that, not its place, names it
    assert d.describe("counter_0").definite == "the counter next to the cabinet"
    assert d.describe("counter_1").definite == "the left counter"


def test_order_words_count_from_the_nearer_end_and_need_clear_gaps() -> None:
    four = {"a": 0.0, "b": 1.0, "c": 2.0, "d": 3.0}
    assert order_words(four, ACROSS) == {
        "a": Order("leftmost"), "b": Order("second", "from the left"),
        "c": Order("second", "from the right"), "d": Order("rightmost")}
    # c is 0.2 m from d: neither is clear, nor is any counting across that gap
    assert order_words({**four, "d": 2.2}, ACROSS) == {
        "a": Order("leftmost"), "b": Order("second", "from the left")}
    assert order_words({"a": 0.0}, ACROSS) == {}


def test_surfaces_whose_names_say_the_same_are_named_by_height() -> None:
    shelves = [{"name": f"shelf.{k:04d}", "z": z} for k, z in enumerate([0.1, -0.6, 0.8, -0.2])]
    d = describer([obj("bookshelf", "bookshelf", (9.7, 2, 0.9), (0.4, 1.0, 1.8),
                       kind="furniture", surfaces=shelves)])
    assert [d.describe(f"bookshelf|shelf.{k:04d}").definite for k in range(4)] == [
        "the second shelf from the top of the bookshelf",
        "the bottom shelf of the bookshelf",
        "the top shelf of the bookshelf",
        "the second shelf from the bottom of the bookshelf"]
    for k in range(4):
        e = f"bookshelf|shelf.{k:04d}"
        assert read_back(d, e) == (e,)
    assert order_words({"a": 0.0, "b": 0.4, "c": 0.8}, UP)["b"] == Order("second",
                                                                       "from the top")
