"""The checkers PARTNR's propositions need: on-top-of, inside-of, on-floor, next-to (the
size-regularised distance worked out by hand) and the object states."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from fdc.predicates.builtin import default_registry, evaluate, evaluate_many
from fdc.predicates.checkers.spatial import boxes, regularised_distance
from fdc.predicates.checkers.states import ObjectStates
from fdc.predicates.registry import Context, EvaluationError
from tests.predicates.scenes import TOP, ctx, state
from tests.predicates.stand_in import StandInState
from tests.sim_bridge.helpers import graph, obj, on_top, room

REG = default_registry()


def test_on_top_of_any_top_of_the_object_and_through_a_stack() -> None:
    c = ctx()
    assert evaluate("on-top-of", ["mug", "table"], c)
    assert evaluate("on-top-of", ["cup", "tray"], c)
    # the cup rests on the tray, which rests on the table: on top of the table too
    assert evaluate("on-top-of", ["cup", "table"], c)
    assert not evaluate("on-top-of", ["mug", "cabinet"], c)
    assert not evaluate("on-top-of", ["tray", "tray"], c)
    held = ctx(state().holding("mug"))
    assert not evaluate("on-top-of", ["mug", "table"], held)
    on_cabinet = ctx(state().moved("mug", (5.5, 1.0, 0.95), "cabinet|top"))
    assert evaluate("on-top-of", ["mug", "cabinet"], on_cabinet)
    assert not evaluate("on-top-of", ["mug", "table"], on_cabinet)
    with pytest.raises(EvaluationError, match="unknown object `nowhere`"):
        evaluate("on-top-of", ["mug", "nowhere"], c)


def test_inside_of_a_furniture_container_or_a_container_item() -> None:
    in_cabinet = ctx(state().moved("mug", (5.5, 1.0, 0.1), "cabinet|inside"))
    assert evaluate("inside-of", ["mug", "cabinet"], in_cabinet)
    # a container floor is not a top
    assert not evaluate("on-top-of", ["mug", "cabinet"], in_cabinet)
    assert not evaluate("inside-of", ["mug", "table"], in_cabinet)
    in_basket = ctx(state().moved("apple", (8.0, 1.0, 0.06), None))
    assert evaluate("inside-of", ["apple", "basket"], in_basket)
    assert not evaluate("inside-of", ["mug", "basket"], in_basket)


def test_on_floor_is_the_bottom_at_the_room_floor() -> None:
    c = ctx()
    assert evaluate("on-floor", ["basket"], c)  # 0.2 high, centre at 0.1
    assert not evaluate("on-floor", ["mug"], c)
    dropped = state().moved("mug", (3.0, 3.0, 0.05 + 0.04), None)  # bottom 4 cm up
    assert evaluate("on-floor", ["mug"], ctx(dropped))
    tight = ctx(dropped).with_thresholds({"floor_gap_m": 0.03}, REG)
    assert not evaluate("on-floor", ["mug"], tight)
    assert not evaluate("on-floor", ["mug"], ctx(dropped.holding("mug")))
    outside = state().moved("mug", (20.0, 3.0, 0.05), None)
    assert not evaluate("on-floor", ["mug"], ctx(outside))


def test_regularised_distance_by_hand() -> None:
    c = ctx()
    # mug (2.0, 2.0), 0.1 cube; book (2.3, 2.0), 0.1 x 0.2 x 0.03: along x each reaches
    # half its x extent: 0.3 - 0.05 - 0.05
    a, b = boxes(c, ["mug"]), boxes(c, ["book"])
    assert regularised_distance(a, b)[0] == pytest.approx(0.2)
    # mug to apple (1.7, 2.25, a 0.08 cube): a diagonal; a cube's reach along a unit
    # direction (ux, uy, 0) is h * sqrt(ux^2 + uy^2) = h
    d = math.hypot(0.3, 0.25)
    got = regularised_distance(boxes(c, ["mug"]), boxes(c, ["apple"]))[0]
    assert got == pytest.approx(d - 0.05 - 0.04)
    # the book turned by 90 degrees reaches 0.1 along x
    turned = ctx(state().moved("book", (2.3, 2.0, TOP + 0.015), "table|top", yaw_deg=90.0))
    assert regularised_distance(boxes(turned, ["mug"]), boxes(turned, ["book"]))[0] == \
        pytest.approx(0.3 - 0.05 - 0.1)


def test_next_to_thresholds_and_height() -> None:
    c = ctx()
    gap = math.hypot(0.3, 0.25) - 0.09  # mug - apple, as above: 0.3005
    assert evaluate("next-to", ["mug", "apple"], c)
    closer = c.with_thresholds({"next_to_m": gap - 0.01}, REG)
    assert not evaluate("next-to", ["mug", "apple"], closer)
    assert evaluate("next-to", ["mug", "apple"], c.with_thresholds({"next_to_m": gap + 0.01}, REG))
    assert not evaluate("next-to", ["mug", "mug"], c)
    assert not evaluate("next-to", ["mug", "sofa"], c)  # 6.5 m apart
    # fixed furniture has its scene pose: the mug stands on (so next to) the table
    assert evaluate("next-to", ["mug", "table"], c)
    # lifted 30 cm over the book: the boxes no longer share a height band
    lifted = ctx(state().moved("mug", (2.1, 2.0, TOP + 0.35), None))
    assert not evaluate("next-to", ["mug", "book"], lifted)
    assert evaluate("next-to", ["mug", "book"],
                    lifted.with_thresholds({"next_to_vertical_m": 0.3}, REG))
    pairs = [("mug", "book"), ("mug", "apple"), ("book", "mug"), ("mug", "sofa")]
    batch = evaluate_many("next-to", pairs, c)
    assert batch.tolist() == [evaluate("next-to", list(p), c) for p in pairs]


@dataclasses.dataclass(frozen=True)
class StatefulStandIn(StandInState):
    """The stand-in with object states, as a simulator's object-state machine has them."""

    states: dict[tuple[str, str], bool] = dataclasses.field(default_factory=dict)

    def object_state(self, object_id: str, name: str) -> bool | None:
        return self.states.get((object_id, name))


def test_object_states_from_the_scene_and_from_the_world() -> None:
    g = graph(
        [
            obj("lamp_:0000", "lamp", (1.0, 1.0, 0.3), (0.3, 0.3, 0.6), kind="furniture",
                attributes={"state": "Powered on"}),
            on_top("cup_:0000", "cup", (2.0, 2.0), 0.0, (0.1, 0.1, 0.1),
                   attributes={"state": "clean, filled"}),
            on_top("plate_:0000", "plate", (3.0, 2.0), 0.0, (0.2, 0.2, 0.02)),
        ],
        rooms=[room("kitchen", "kitchen", 0, 0, 4, 4)],
    )
    scene_only = Context(graph=g, state=StandInState.of(g, 0.5, 0.5))
    truth = {n: [evaluate(n, [o], scene_only) for o in ("lamp_:0000", "cup_:0000", "plate_:0000")]
             for n in ("is-clean", "is-dirty", "is-filled", "is-empty", "is-powered-on",
                       "is-powered-off")}
    assert truth == {
        "is-clean": [False, True, False], "is-dirty": [True, False, True],
        "is-filled": [False, True, False], "is-empty": [True, False, True],
        "is-powered-on": [True, False, False], "is-powered-off": [False, True, True],
    }
    base = StandInState.of(g, 0.5, 0.5)
    live = StatefulStandIn(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)},
                           states={("plate_:0000", "is_clean"): True,
                                   ("cup_:0000", "is_filled"): False})
    assert isinstance(live, ObjectStates)
    c = Context(graph=g, state=live)
    assert evaluate("is-clean", ["plate_:0000"], c)
    assert evaluate("is-empty", ["cup_:0000"], c)
    assert evaluate("is-clean", ["cup_:0000"], c)  # not tracked: the scene's word
    with pytest.raises(EvaluationError, match="unknown object"):
        evaluate("is-clean", ["nothing_:0000"], c)


def test_batched_whole_object_relations_agree_with_atoms() -> None:
    st = state().moved("apple", (5.5, 1.0, 0.1), "cabinet|inside")
    c = ctx(st)
    objects = ["mug", "cup", "apple", "tray"]
    holders = ["table", "tray", "cabinet", "basket"]
    for name in ("on-top-of", "inside-of"):
        rows = [(o, h) for o in objects for h in holders]
        batch = evaluate_many(name, rows, c)
        assert batch.tolist() == [evaluate(name, list(r), c) for r in rows]
    floor = evaluate_many("on-floor", [(o,) for o in [*objects, "basket"]], c)
    assert np.asarray(floor).tolist() == [False, False, False, False, True]
