"""The registry: names derived from functions, no duplicates, immutable thresholds,
overrides and relaxed modes per call, signature problems, fdc-home fully bound, and the
batched path agreeing with atom-by-atom evaluation."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Annotated

import numpy as np
import numpy.typing as npt
import pytest

from fdc.compiler import ast as A
from fdc.compiler.parse import parse_text
from fdc.domain import builtin_domain_files
from fdc.predicates.builtin import default_registry, evaluate, evaluate_many, signature_problems
from fdc.predicates.registry import (
    Context,
    EvaluationError,
    Kind,
    Mode,
    Movable,
    Movables,
    PddlType,
    Registry,
    pddl_name,
)
from tests.predicates.scenes import ctx, state

REG = default_registry()


def domain(text: str) -> A.Domain:
    unit = parse_text(text).unit
    assert unit is not None
    return next(d for d in unit.definitions if isinstance(d, A.Domain))


def test_names_kinds_and_parameters_come_from_the_functions() -> None:
    reg = default_registry()
    for c in reg.checkers():
        assert c.name == pddl_name(c.fn.__name__)
        assert c.kind.value in c.module.split(".")[-1] or c.kind in Kind
    c = reg.checker("robot-at-object")
    assert c.kind is Kind.FLUENT and c.batched and not c.is_function
    assert [p.types for p in c.params] == [("movable",)]
    assert dict(c.thresholds) == {
        "object_distance_m": 2.0,
        "object_angle_rad": math.pi / 4,
        "view_fov_rad": math.radians(43.0),
        "view_range_m": 5.0,
    }
    assert reg.checker("inside").params[1].types == ("container", "receptacle")
    assert reg.checker("interaction-order").is_function
    assert reg.checker("is-category").kind is Kind.STATIC
    assert reg.checker("visited").kind is Kind.HISTORY


def test_no_name_is_registered_twice() -> None:
    reg = Registry()

    def held(ctx: Context, o: Movable) -> bool:
        return True

    reg.fluent(held)
    with pytest.raises(ValueError, match="registered twice"):
        reg.static(held)
    names = [c.name for c in default_registry().checkers()]
    assert len(names) == len(set(names))


def test_a_threshold_has_one_default() -> None:
    reg = Registry()

    def near(ctx: Context, o: Movable, *, reach_m: float = 1.0) -> bool:
        return True

    def far(ctx: Context, o: Movable, *, reach_m: float = 2.0) -> bool:
        return True

    reg.fluent(near)
    with pytest.raises(ValueError, match="one default"):
        reg.fluent(far)


def test_malformed_checkers_are_refused() -> None:
    reg = Registry()

    def untyped(ctx: Context, o: str) -> bool:
        return True

    def no_default(ctx: Context, o: Movable, *, reach_m: float) -> bool:
        return True

    def mixed(ctx: Context, o: Movable, p: Movables) -> npt.NDArray[np.bool_]:
        return np.zeros(1, dtype=bool)

    def wrong_return(ctx: Context, o: Movable) -> str:
        return ""

    for fn, msg in (
        (untyped, "PDDL type"),
        (no_default, "numeric default"),
        (mixed, "all single ids"),
        (wrong_return, "return"),
    ):
        with pytest.raises(TypeError, match=msg):
            reg.fluent(fn)


def test_context_and_thresholds_are_immutable() -> None:
    c = ctx().with_thresholds({"on_top_m": 0.2}, REG)
    with pytest.raises(TypeError):
        c.thresholds["on_top_m"] = 1.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.mode = Mode.NO_DISTANCE  # type: ignore[misc]
    raw = {"on_top_m": 0.3}
    c2 = ctx(thresholds=raw)
    raw["on_top_m"] = 9.0  # the context copied it
    assert c2.threshold("on_top_m", REG) == 0.3


def test_overrides_build_a_new_context() -> None:
    base = ctx()
    strict = base.with_thresholds({"object_distance_m": 0.1}, REG)
    assert base.threshold("object_distance_m", REG) == 2.0
    assert strict.threshold("object_distance_m", REG) == 0.1
    assert evaluate("robot-at-object", ["mug"], base)
    assert not evaluate("robot-at-object", ["mug"], strict)
    assert evaluate("robot-at-object", ["mug"], base)  # nothing leaked
    with pytest.raises(KeyError, match="object_distance_m"):
        base.with_thresholds({"object_distanse_m": 1.0}, REG)
    with pytest.raises(ValueError, match="finite"):
        base.with_thresholds({"on_top_m": math.inf}, REG)


def test_relaxed_modes_are_per_call() -> None:
    blind = ctx(state().seeing([]))
    assert evaluate("robot-at-object", ["mug"], blind, mode=Mode.DTG_SR)
    assert not evaluate("robot-at-object", ["mug"], blind)  # the call's mode did not stick
    assert blind.mode is Mode.STRICT


def test_evaluation_errors() -> None:
    with pytest.raises(EvaluationError, match="did you mean `robot-at-object`"):
        evaluate("robot-at-objet", ["mug"], ctx())
    with pytest.raises(EvaluationError, match="takes 2 argument"):
        evaluate("on", ["mug"], ctx())
    with pytest.raises(EvaluationError, match="world state"):
        evaluate("on", ["mug", "table|top"], Context(graph=ctx().graph))
    with pytest.raises(EvaluationError, match="numeric function"):
        evaluate("interaction-order", ["mug"], ctx())
    with pytest.raises(EvaluationError, match="unknown"):
        evaluate("on", ["ghost", "table|top"], ctx())
    with pytest.raises(EvaluationError, match="unknown surface"):
        evaluate("on", ["mug", "table|bottom"], ctx())


WRONG = """
(define (domain wrong)
  (:types room surface movable - object)
  (:predicates
    (on ?o - movable)
    (holding ?s - surface)
    (flying ?o - movable)
    (interaction-order ?o - movable))
  (:functions (visit-order ?r - room) (hand-empty) (altitude ?o - movable)))
"""


def test_signature_problems_on_a_wrong_domain() -> None:
    d = domain(WRONG)
    problems = signature_problems(d.predicates, d.functions)
    by = {(*p.entities, p.code): p for p in problems}
    assert set(by) == {
        ("on", "arity"),
        ("holding", "parameter-type"),
        ("flying", "no-checker"),
        ("interaction-order", "not-a-predicate"),
        ("hand-empty", "not-a-function"),
        ("altitude", "no-checker"),
    }
    assert all(p.is_error for p in problems)
    assert by["on", "arity"].hint == "the domain says 1, the checker 2"
    p = by["holding", "parameter-type"]
    assert p.hint == "the domain says surface, the checker movable"
    assert p.message.startswith("parameter 1 of `holding` is `surface` in the domain")
    assert by["interaction-order", "not-a-predicate"].hint == \
        "the domain says predicate, the checker function"
    # The same as plain data.
    plain = signature_problems({"on": ["movable"], "holding": [("surface",)]}, {})
    assert [(*x.entities, x.code) for x in plain] == [("on", "arity"),
                                                      ("holding", "parameter-type")]


def test_supertypes_are_accepted_with_a_hierarchy() -> None:
    decl = {"holding": ["mug"]}
    assert signature_problems(decl)[0].code == "parameter-type"
    parents = {"mug": ("tableware",), "tableware": ("movable",)}
    assert signature_problems(decl, type_parents=parents) == []


def test_every_fdc_home_predicate_and_function_has_a_checker() -> None:
    path = next(p for p in builtin_domain_files() if p.name == "fdc-home.pddl")
    d = domain(path.read_text())
    assert signature_problems(d.predicates, d.functions) == []
    # the rest are BEHAVIOR's object states, which `fdc import bddl`'s domains declare
    from fdc.predicates.checkers.object_states import RELATIONS, STATICS, UNARY, WITH_SUBSTANCE

    behavior = {*UNARY, "unfolded", *WITH_SUBSTANCE, *RELATIONS, *STATICS}
    declared = {p.name for p in d.predicates} | {f.name for f in d.functions}
    assert not behavior & declared
    assert len(declared) + len(behavior) == len(default_registry())


def test_a_batch_answers_as_atoms_one_by_one() -> None:
    st = state().moved("apple", (2.5, 2.0, 0.79), "table|top")
    c = ctx(st)
    movables = ["mug", "book", "apple", "cup", "tray", "basket"]
    surfaces = ["table|top", "tray|top", "cabinet|top", "cabinet|inside", "basket|top"]
    cases: dict[str, list[Sequence[str]]] = {
        "on": [(o, s) for o in movables for s in surfaces],
        "in-room": [(o, r) for o in movables for r in ("kitchen", "living")],
        "robot-at-object": [(o,) for o in movables],
        "robot-at-receptacle": [(s,) for s in surfaces],
        "around": [(o, a) for o in movables for a in movables],
        "at-side": [
            (o, a, d)
            for o in movables[:3]
            for a in movables[:3]
            for d in ("front", "rear", "left", "front-left")
        ],
        "between": [(o, a, b) for o in movables[:4] for a in movables[:4] for b in movables[:4]],
        "in-cell": [(o, "table|top", cell) for o in movables for cell in ("center", "front")],
    }
    for name, atoms in cases.items():
        batch = evaluate_many(name, atoms, c)
        one = [evaluate(name, a, c) for a in atoms]
        assert batch.tolist() == one, name
        assert any(one), name
    assert evaluate_many("holding", [("mug",)], c).tolist() == [False]
    assert evaluate_many("on", [], c).shape == (0,)


def test_pddl_type_metadata() -> None:
    t = Annotated[str, PddlType("b", "a")]
    assert t.__metadata__[0].names == ("a", "b")
    with pytest.raises(ValueError):
        PddlType()


def test_the_docs_have_a_section_per_checker_and_every_threshold() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "predicates.md").read_text()
    reg = default_registry()
    for c in reg.checkers():
        assert f"### `{c.name}`\n" in text, c.name
    for t in reg.default_thresholds():
        assert f"| `{t}` |" in text, t
