"""BEHAVIOR's object states: read from the scene's `state` attribute, or from a world
that tracks them (a recorded snapshot's `states`), with and without a substance."""

from __future__ import annotations

import dataclasses

import pytest

from fdc.predicates.builtin import default_registry, evaluate
from fdc.predicates.checkers.object_states import UNARY, WITH_SUBSTANCE, state_name
from fdc.predicates.checkers.states import ObjectStates
from fdc.predicates.registry import Context, EvaluationError
from tests.predicates.stand_in import StandInState
from tests.sim_bridge.helpers import graph, obj, on_top, room


@dataclasses.dataclass(frozen=True)
class Tracking(StandInState):
    states: dict[tuple[str, str], bool] = dataclasses.field(default_factory=dict)

    def object_state(self, object_id: str, name: str) -> bool | None:
        return self.states.get((object_id, name))


def _graph():  # type: ignore[no-untyped-def]
    return graph(
        [
            obj("stove_:0000", "stove", (1.0, 1.0, 0.45), (0.6, 0.6, 0.9), kind="furniture",
                attributes={"state": "hot, covered:stain"}),
            on_top("steak_:0000", "steak", (1.0, 1.0), 0.9, (0.2, 0.15, 0.03),
                   attributes={"state": "Cooked, hot"}),
            on_top("bucket_:0000", "bucket", (2.5, 2.0), 0.0, (0.3, 0.3, 0.3),
                   attributes={"state": "filled:water"}),
            on_top("rag_:0000", "rag", (3.0, 2.0), 0.0, (0.2, 0.2, 0.01)),
        ],
        rooms=[room("kitchen", "kitchen", 0, 0, 4, 4)],
    )


def test_states_from_the_scene() -> None:
    g = _graph()
    c = Context(graph=g, state=StandInState.of(g, 0.5, 0.5))
    assert evaluate("cooked", ["steak_:0000"], c)
    assert evaluate("hot", ["steak_:0000"], c)
    assert evaluate("hot", ["stove_:0000"], c)  # furniture has states too
    assert not evaluate("frozen", ["steak_:0000"], c)
    assert not evaluate("cooked", ["rag_:0000"], c)
    assert evaluate("unfolded", ["rag_:0000"], c) and not evaluate("folded", ["rag_:0000"], c)
    assert evaluate("covered", ["stove_:0000", "stain"], c)
    assert not evaluate("covered", ["stove_:0000", "dust"], c)
    assert evaluate("filled", ["bucket_:0000", "water"], c)
    assert not evaluate("contains", ["bucket_:0000", "water"], c)
    assert not evaluate("saturated", ["rag_:0000", "water"], c)
    with pytest.raises(EvaluationError, match="unknown object"):
        evaluate("cooked", ["nothing_:0000"], c)


def test_a_tracking_world_overrides_the_scene() -> None:
    g = _graph()
    base = StandInState.of(g, 0.5, 0.5)
    live = Tracking(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)},
                    states={("rag_:0000", "saturated:water"): True,
                            ("rag_:0000", "folded"): True,
                            ("steak_:0000", "cooked"): False,
                            ("stove_:0000", state_name("covered", "Stain")): False})
    assert isinstance(live, ObjectStates)
    c = Context(graph=g, state=live)
    assert evaluate("saturated", ["rag_:0000", "water"], c)
    assert evaluate("folded", ["rag_:0000"], c) and not evaluate("unfolded", ["rag_:0000"], c)
    assert not evaluate("cooked", ["steak_:0000"], c)
    assert not evaluate("covered", ["stove_:0000", "stain"], c)
    assert evaluate("hot", ["steak_:0000"], c)  # not tracked: the scene's word


def test_every_state_is_a_registered_fluent_of_either_thing() -> None:
    reg = {c.name: c for c in default_registry().checkers()}
    for name in (*UNARY, "unfolded"):
        assert reg[name].arity == 1 and reg[name].kind.value == "fluent"
    for name in WITH_SUBSTANCE:
        assert reg[name].arity == 2
        assert reg[name].params[1].types == ("value",)


def test_attached_is_a_relation_tracked_on_the_first_object() -> None:
    g = _graph()
    base = StandInState.of(g, 0.5, 0.5)
    live = Tracking(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)},
                    states={("rag_:0000", state_name("attached", "bucket_:0000")): True})
    c = Context(graph=g, state=live)
    assert evaluate("attached", ["rag_:0000", "bucket_:0000"], c)
    assert not evaluate("attached", ["bucket_:0000", "rag_:0000"], c)
    assert not evaluate("attached", ["rag_:0000", "steak_:0000"], c)
