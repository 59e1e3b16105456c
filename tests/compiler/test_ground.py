"""The ground pass: each form, distinctness, folding, limits, canonical simplification,
and a property test against a brute-force evaluator of the quantified formula."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fdc.compiler import ast as A
from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.facts import TableFacts
from fdc.compiler.ground import GroundError, GroundLimitError, GroundResult, ground
from fdc.compiler.parse import parse_text
from fdc.predicates import verify
from fdc.predicates.goal import (
    FALSE,
    TRUE,
    GAnd,
    GAtom,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    Target,
    atom,
    to_pddl,
)

FACTS = TableFacts(
    types={
        "m1": ("mug",),
        "m2": ("mug",),
        "m3": ("mug",),
        "b1": ("book",),
        "b2": ("book",),
        "s1": ("surface",),
        "s2": ("surface",),
        "f1": ("fruit",),
        "f2": ("fruit",),
        "f3": ("fruit",),
        "p1": ("plate",),
        "p2": ("plate",),
    },
    parents={t: ("movable",) for t in ("mug", "book", "fruit", "plate")},
    kinds={"interacted": "history", "near": "static", "is-red": "static"},
    atoms={
        "interacted": [("m1",), ("m2",), ("b1",)],
        "is-red": [("m1",)],
        # p1 and p2 are both near f1 only: each plate has a fruit, but not one of its own
        "near": [("f1", "p1"), ("f1", "p2"), ("f2", "p1")],
    },
    values={
        "interaction-order": {("m1",): 2, ("m2",): 1, ("b1",): 3},
        "interaction-duration": {("m1",): 5, ("m2",): 5, ("b1",): 9},
        "distance": {("m1",): 1.5, ("m2",): 4.0, ("m3",): 2.0},
    },
)


def goal_of(text: str, params: str = "?o - mug ?s - surface") -> A.Node:
    src = (
        f"(define (template t) (:domain d) (:parameters {params}) (:goal {text}) "
        '(:instruction "x"))'
    )
    result = parse_text(src)
    assert result.diagnostics == [], result.diagnostics
    assert result.unit is not None
    node = result.unit.definitions[0]
    assert isinstance(node, A.Template) and node.goal is not None
    return node.goal


def g(text: str, binding: Mapping[str, str] | None = None, **kw: int) -> GroundResult:
    return ground(
        goal_of(text), binding if binding is not None else {"o": "m1", "s": "s1"}, FACTS, **kw
    )


def pddl(text: str, binding: Mapping[str, str] | None = None, *,
         expand_counts: bool = False) -> str:
    result = ground(goal_of(text), binding if binding is not None else {"o": "m1", "s": "s1"},
                    FACTS, expand_counts=expand_counts)
    assert result.goal is not None, result.reason
    return to_pddl(result.goal)


# ---------------------------------------------------------------- atoms and folding


def test_fluent_atom_is_kept_interned() -> None:
    result = g("(on ?o ?s)")
    assert result.goal is atom("on", "m1", "s1")
    assert not result.dropped and result.reason is None


def test_static_and_history_atoms_fold() -> None:
    assert pddl("(and (interacted ?o) (is-red ?o) (on ?o ?s))") == "(on m1 s1)"
    dropped = g("(and (interacted ?o) (on ?o ?s))", {"o": "m3", "s": "s1"})
    assert dropped.dropped and dropped.reason.message == "goal folds to false"
    assert g("(or (interacted ?o) (on ?o ?s))").goal == TRUE


def test_binding_keys_with_or_without_question_mark() -> None:
    assert g("(on ?o ?s)", {"?o": "m2", "s": "s2"}).goal is atom("on", "m2", "s2")


def test_equality_folds() -> None:
    assert g("(or (= ?o m1) (on ?o ?s))").goal == TRUE
    assert pddl("(or (= ?o m2) (on ?o ?s))") == "(on m1 s1)"


def test_not_imply_and_double_negation() -> None:
    assert pddl("(not (not (on ?o ?s)))") == "(on m1 s1)"
    assert pddl("(imply (interacted ?o) (on ?o ?s))") == "(on m1 s1)"
    assert g("(imply (is-red ?o) (on ?o ?s))", {"o": "m2", "s": "s1"}).goal == TRUE
    assert pddl("(imply (holding ?o) (on ?o ?s))") == "(or (not (holding m1)) (on m1 s1))"
    assert g("(not (interacted ?o))").reason.message == "goal folds to false"


def test_negation_normal_form() -> None:
    assert pddl("(not (and (holding ?o) (or (on ?o ?s) (not (on ?o s2)))))") == (
        "(or (and (not (on m1 s1)) (on m1 s2)) (not (holding m1)))"
    )


def test_complementary_literals_collapse() -> None:
    assert g("(or (on ?o ?s) (not (on ?o ?s)))").goal == TRUE
    assert g("(and (on ?o ?s) (not (on ?o ?s)))").reason.message == "goal folds to false"


def test_empty_goal_is_true() -> None:
    assert g("()").goal == TRUE


@pytest.mark.parametrize(
    ("text", "truth"),
    [
        ("(> (interaction-order ?o) 1)", True),
        ("(= (interaction-order ?o) 2)", True),
        ("(< (distance ?o) 1.5)", False),
        ("(<= (+ (distance ?o) 0.5) 2)", True),
        ("(= (- (interaction-duration ?o) (interaction-order ?o)) 3)", True),
        ("(= (- (interaction-order ?o)) -2)", True),
        ("(= (* 2 (interaction-order ?o)) 4)", True),
        ("(= (/ (interaction-duration ?o) 2) 2.5)", True),
        ("(> (/ 1 (- (interaction-order ?o) 2)) 0)", False),  # division by zero: undefined
        ("(> (undefined-fn ?o) 0)", False),
        ("(< (undefined-fn ?o) 0)", False),
        ("(not (< (undefined-fn ?o) 0))", True),
    ],
)
def test_comparisons_fold_and_undefined_is_false(text: str, truth: bool) -> None:
    result = g(text)
    assert result.goal == (TRUE if truth else None)
    assert truth or result.reason.message == "goal folds to false"


# ---------------------------------------------------------------- quantifiers


def test_exists_ranges_over_distinct_entities() -> None:
    text = "(exists (?a ?b - mug) (and (on ?a ?s) (on ?b ?s)))"
    assert pddl(text) == (
        "(or (and (on m1 s1) (on m2 s1)) (and (on m1 s1) (on m3 s1)) (and (on m2 s1) (on m3 s1)))"
    )
    # three variables over a two-entity type: no binding at all
    assert g("(exists (?a ?b ?c - surface) (on ?o ?a))").reason.message == "goal folds to false"
    assert g("(forall (?a ?b ?c - surface) (= ?a ?b))").goal == TRUE
    assert g("(forall (?a ?b - surface) (not (= ?a ?b)))").goal == TRUE


def test_forall_is_not_distinct_from_parameters() -> None:
    # the book bound to ?o is among "every book"
    text = "(forall (?x - book) (on ?x ?s))"
    assert pddl(text, {"o": "b1", "s": "s1"}) == "(and (on b1 s1) (on b2 s1))"
    assert pddl("(exists (?m - mug) (and (= ?m ?o) (on ?m ?s)))") == "(on m1 s1)"


def test_nested_quantifiers_are_not_distinct_from_outer_variables() -> None:
    text = "(forall (?a - mug) (exists (?b - mug) (and (= ?a ?b) (on ?b ?s))))"
    assert pddl(text) == "(and (on m1 s1) (on m2 s1) (on m3 s1))"


def test_subtypes_are_in_the_domain() -> None:
    assert pddl("(forall (?x - movable) (imply (interacted ?x) (on ?x ?s)))") == (
        "(and (on b1 s1) (on m1 s1) (on m2 s1))"
    )


def test_empty_domain_gives_the_right_constant() -> None:
    assert g("(forall (?x - toy) (on ?x ?s))").goal == TRUE
    assert g("(exists (?x - toy) (on ?x ?s))").reason.message == "goal folds to false"
    assert g("(at-least 0 (?x - toy) (on ?x ?s))").goal == TRUE
    assert g("(at-least 1 (?x - toy) (on ?x ?s))").reason.message == "goal folds to false"
    assert g("(at-most 0 (?x - toy) (on ?x ?s))").goal == TRUE
    assert g("(exactly 0 (?x - toy) (on ?x ?s))").goal == TRUE
    assert g("(forpairs (?x - toy) (?f - fruit) (around ?f ?x))").goal == TRUE
    assert g("(fornpairs 1 (?x - toy) (?f - fruit) (around ?f ?x))").dropped
    assert g("(argmax ?o (?x - toy) (distance ?x))").reason.message == "goal folds to false"
    assert g("(targets (?x - toy) (interacted ?x) (holding ?x))").reason.message.startswith(
        "no target"
    )


# ---------------------------------------------------------------- counting


@pytest.mark.parametrize(
    ("text", "truth"),
    [
        ("(at-least 2 (?m - mug) (interacted ?m))", True),
        ("(at-least 3 (?m - mug) (interacted ?m))", False),
        ("(at-most 2 (?m - mug) (interacted ?m))", True),
        ("(at-most 1 (?m - mug) (interacted ?m))", False),
        ("(exactly 2 (?m - mug) (interacted ?m))", True),
        ("(exactly 1 (?m - mug) (interacted ?m))", False),
        ("(at-least 0 (?m - mug) (interacted ?m))", True),
        # two distinct variables: ordered pairs of distinct interacted mugs: (m1 m2), (m2 m1)
        ("(exactly 2 (?a ?b - mug) (and (interacted ?a) (interacted ?b)))", True),
    ],
)
def test_counting_over_constant_bodies(text: str, truth: bool) -> None:
    assert g(text).goal == (TRUE if truth else None)


def test_at_least_over_fluent_bodies() -> None:
    assert pddl("(at-least 2 (?m - mug) (on ?m ?s))", expand_counts=True) == (
        "(or (and (on m1 s1) (on m2 s1)) (and (on m1 s1) (on m3 s1)) (and (on m2 s1) (on m3 s1)))"
    )
    assert g("(at-least 2 (?m - mug) (on ?m ?s))").goal == GCount(
        relation="on", items=("m1", "m2", "m3"), others=("s1",), op="at-least", number=2)
    assert pddl("(at-least 1 (?m - mug) (on ?m ?s))") == "(or (on m1 s1) (on m2 s1) (on m3 s1))"
    assert pddl("(at-least 3 (?m - mug) (on ?m ?s))") == "(and (on m1 s1) (on m2 s1) (on m3 s1))"
    assert g("(at-least 4 (?m - mug) (on ?m ?s))").reason.message == "goal folds to false"


def test_counting_equal_bodies_counts_each_occurrence() -> None:
    # 12 mug/book/... instances, every body the same atom: hypothesis found this one
    # grounding C(12, 3) subsets into the atom limit. Equal bodies are one body counted
    # as many times as it occurs.
    many = "(?a ?b - movable)"
    assert pddl(f"(at-least 3 {many} (on ?o ?s))") == "(on m1 s1)"
    assert pddl(f"(at-most 3 {many} (on ?o ?s))") == "(not (on m1 s1))"
    assert g(f"(exactly 3 {many} (on ?o ?s))").reason.message == "goal folds to false"
    # m3 counts by itself (true); m1 and m2 both by the same atom
    body = "(or (= ?m m3) (on ?o ?s))"
    assert pddl(f"(at-least 3 (?m - mug) {body})") == "(on m1 s1)"
    assert pddl(f"(at-most 1 (?m - mug) {body})") == "(not (on m1 s1))"


def test_at_most_over_fluent_bodies() -> None:
    assert pddl("(at-most 1 (?m - mug) (on ?m ?s))", expand_counts=True) == (
        "(and (or (not (on m1 s1)) (not (on m2 s1))) (or (not (on m1 s1)) (not (on m3 s1)))"
        " (or (not (on m2 s1)) (not (on m3 s1))))"
    )
    assert pddl("(at-most 0 (?m - mug) (on ?m ?s))") == (
        "(and (not (on m1 s1)) (not (on m2 s1)) (not (on m3 s1)))"
    )
    assert g("(at-most 3 (?m - mug) (on ?m ?s))").goal == TRUE


def test_exactly_over_fluent_bodies() -> None:
    assert pddl("(exactly 0 (?m - mug) (on ?m ?s))") == (
        "(and (not (on m1 s1)) (not (on m2 s1)) (not (on m3 s1)))"
    )
    assert pddl("(exactly 3 (?m - mug) (on ?m ?s))") == "(and (on m1 s1) (on m2 s1) (on m3 s1))"


def test_counting_mixes_constant_and_fluent_bodies() -> None:
    # m1, m2 interacted (true bodies), m3 fluent
    body = "(or (interacted ?m) (on ?m ?s))"
    assert g(f"(at-least 2 (?m - mug) {body})").goal == TRUE
    assert pddl(f"(at-least 3 (?m - mug) {body})") == "(on m3 s1)"
    assert pddl(f"(at-most 2 (?m - mug) {body})") == "(not (on m3 s1))"
    assert g(f"(at-most 1 (?m - mug) {body})").reason.message == "goal folds to false"
    assert pddl(f"(exactly 2 (?m - mug) {body})") == "(not (on m3 s1))"


# ---------------------------------------------------------------- pairs


def test_forpairs_static_needs_a_fruit_of_its_own() -> None:
    # p1 near f1, f2; p2 near f1 only: p2-f1, p1-f2 is a matching
    assert g("(forpairs (?p - plate) (?f - fruit) (near ?f ?p))").goal == TRUE
    # only f1 (near both plates) counts: each plate has a fruit, but not one of its own
    text = "(forpairs (?p - plate) (?f - fruit) (and (near ?f ?p) (near ?f p2)))"
    assert g(text).reason.message == "goal folds to false"
    assert g(f"(fornpairs 1 {text[10:]}").goal == TRUE
    assert g("(fornpairs 3 (?p - plate) (?f - fruit) (near ?f ?p))").dropped


def test_forpairs_fluent_is_a_disjunction_of_matchings() -> None:
    text = pddl("(forpairs (?p - plate) (?f - fruit) (around ?f ?p))")
    assert text.startswith("(or (and (around f1 p1) (around f2 p2))")
    assert text.count("(and ") == 6  # injective maps of 2 plates into 3 fruit
    assert pddl("(fornpairs 1 (?p - plate) (?f - fruit) (around ?f ?p))") == (
        "(or (around f1 p1) (around f1 p2) (around f2 p1) (around f2 p2) (around f3 p1)"
        " (around f3 p2))"
    )


def test_forpairs_mixed_static_guard() -> None:
    text = "(forpairs (?p - plate) (?f - fruit) (and (near ?f ?p) (around ?f ?p)))"
    assert pddl(text) == "(and (around f1 p2) (around f2 p1))"


def test_pairs_never_pair_an_entity_with_itself() -> None:
    text = "(forpairs (?a - mug) (?b - mug) (on ?a ?b))"
    assert "(on m1 m1)" not in pddl(text)


# ---------------------------------------------------------------- arg-extremes


def test_argmax_argmin_unique() -> None:
    assert g("(argmax ?o (?x - mug) (distance ?x))", {"o": "m2"}).goal == TRUE
    assert g("(argmax ?o (?x - mug) (distance ?x))", {"o": "m1"}).dropped
    assert g("(argmin ?o (?x - mug) (distance ?x))", {"o": "m1"}).goal == TRUE
    # the condition narrows the candidates; undefined keys are no candidates
    assert g("(argmax ?o (?x - movable) (interaction-order ?x) (interacted ?x))").dropped
    text = "(and (argmin ?o (?x - movable) (interaction-order ?x)) (holding ?o))"
    assert pddl(text, {"o": "m2"}) == "(holding m2)"


def test_arg_extreme_tie_is_reported() -> None:
    result = g("(argmax ?o (?x - mug) (interaction-duration ?x))", {"o": "m1"})
    assert result.dropped
    assert result.reason is not None and result.reason.message == (
        "tie between `m1` and `m2` for argmax of (interaction-duration ?x) (all 5)"
    )
    assert result.reason == Drop(DropCode.TIE, "argmax of (interaction-duration ?x)",
                                 ("m1", "m2"), "5")
    assert result.reason.key == "tie for argmax of (interaction-duration ?x)"


def test_arg_extreme_with_fluent_condition_is_an_error() -> None:
    with pytest.raises(GroundError, match="depends on the world's state"):
        g("(argmax ?o (?x - mug) (distance ?x) (on ?x ?s))")


# ---------------------------------------------------------------- multi-goal


def test_targets_unordered_sorted_by_entity() -> None:
    result = g("(targets (?x - movable) (interacted ?x) (robot-at-object ?x))")
    assert result.goal == GTargets(
        ordered=False,
        targets=tuple(
            Target(entity=e, goal=atom("robot-at-object", e)) for e in ("b1", "m1", "m2")
        ),
    )


def test_ordered_targets_by_order_key() -> None:
    result = g(
        "(ordered-targets (?x - movable) (interaction-order ?x) (interacted ?x) "
        "(robot-at-object ?x))"
    )
    assert isinstance(result.goal, GTargets) and result.goal.ordered
    assert [t.entity for t in result.goal.targets] == ["m2", "m1", "b1"]
    reverse = g(
        "(ordered-targets (?x - movable) (- (interaction-order ?x)) (interacted ?x) "
        "(robot-at-object ?x))"
    )
    assert isinstance(reverse.goal, GTargets)
    assert [t.entity for t in reverse.goal.targets] == ["b1", "m1", "m2"]


def test_targets_drops() -> None:
    assert g("(targets (?x - mug) (is-red ?x) (holding ?x))").goal is not None
    none = g("(targets (?x - mug) (and (is-red ?x) (not (is-red ?x))) (holding ?x))")
    assert none.reason.message == "no target: no entity satisfies the condition of `targets`"
    tie = g("(ordered-targets (?x - mug) (interaction-duration ?x) (interacted ?x) (holding ?x))")
    assert tie.reason.message == (
        "tie between `m1` and `m2` in the order (interaction-duration ?x) of "
        "`ordered-targets` (both 5)"
    )
    undefined = g("(ordered-targets (?x - mug) (interaction-order ?x) (= ?x ?x) (holding ?x))")
    assert undefined.reason.message == (
        "the order (interaction-order ?x) of target `m3` is undefined"
    )
    false_goal = g("(targets (?x - mug) (= ?x ?x) (and (holding ?x) (is-red ?x)))")
    assert false_goal.reason.message == "the goal of target `m2` folds to false"
    # a drop is data: its code and the entities it names, and the key it counts under
    assert (tie.reason.code, tie.reason.entities) == (DropCode.ORDER_TIE, ("m1", "m2"))
    assert tie.reason.key == "tie in the order (interaction-duration ?x) of `ordered-targets`"
    assert (undefined.reason.code, undefined.reason.entities) == (DropCode.ORDER_UNDEFINED,
                                                                  ("m3",))
    assert undefined.reason.key == "the order (interaction-order ?x) of target … is undefined"
    assert (false_goal.reason.code, false_goal.reason.entities) == (DropCode.TARGET_FALSE,
                                                                    ("m2",))
    assert false_goal.reason.key == "the goal of target … folds to false"
    assert none.reason == Drop(DropCode.NO_TARGETS, "targets")


def test_targets_condition_must_be_compile_time() -> None:
    with pytest.raises(GroundError, match="condition of `targets`"):
        g("(targets (?x - mug) (on ?x ?s) (holding ?x))")


def test_then_keeps_steps_and_flattens() -> None:
    result = g("(then (on ?o ?s) (then (holding ?o) (interacted ?o)) (not (holding ?o)))")
    assert result.goal == GThen(
        steps=(atom("on", "m1", "s1"), atom("holding", "m1"), GNot(body=atom("holding", "m1")))
    )
    assert g("(then (interacted ?o) (on ?o ?s))").goal is atom("on", "m1", "s1")
    assert g("(then (on ?o ?s) (is-red b1))").reason.message == "step 2 of `then` folds to false"
    nested = g("(then (holding ?o) (targets (?x - mug) (is-red ?x) (robot-at-object ?x)))")
    assert isinstance(nested.goal, GThen) and isinstance(nested.goal.steps[1], GTargets)


# ---------------------------------------------------------------- limits


def _span_text(src_goal: str, span: A.Span) -> str:
    src = (
        f"(define (template t) (:domain d) (:parameters ?o - mug ?s - surface) "
        f'(:goal {src_goal}) (:instruction "x"))'
    )
    return src[span.start : span.end]


def test_atom_limit_names_template_and_quantifier() -> None:
    text = "(and (on ?o ?s) (forall (?a - movable) (exists (?b - movable) (on ?a ?b))))"
    with pytest.raises(GroundLimitError) as info:
        ground(goal_of(text), {"o": "m1", "s": "s1"}, FACTS, max_atoms=20, template="stack")
    err = info.value
    assert err.template == "stack" and err.quantifier == "forall" and err.count == 21
    assert _span_text(text, err.quantifier_span).startswith("(forall (?a - movable)")
    assert "template `stack`" in str(err) and "`forall`" in str(err)


def test_counting_subsets_are_counted_before_expanding() -> None:
    facts = TableFacts(types={f"x{i}": ("thing",) for i in range(40)})
    text = "(at-least 20 (?x - thing) (on ?x ?s))"
    with pytest.raises(GroundLimitError) as info:
        ground(goal_of(text), {"s": "s1"}, facts, template="many", expand_counts=True)
    assert info.value.quantifier == "at-least"
    assert info.value.count > 20 * 137_846_528_820  # C(40, 20) * 20: never built
    assert _span_text(text, info.value.quantifier_span) == text


def test_instance_limit_is_counted_before_enumerating() -> None:
    facts = TableFacts(types={f"x{i}": ("thing",) for i in range(200)})
    text = "(forall (?a ?b ?c ?d - thing) (not (= ?a ?b)))"
    with pytest.raises(GroundLimitError) as info:
        ground(goal_of(text), {}, facts, template="huge")
    assert info.value.unit == "bindings" and info.value.count == 200**4


def test_within_limit_passes() -> None:
    text = "(forall (?a - movable) (exists (?b - movable) (on ?a ?b)))"
    result = ground(goal_of(text), {}, FACTS, max_atoms=10 * 10)
    assert isinstance(result.goal, GAnd) and len(result.goal.parts) == 10


# ---------------------------------------------------------------- canonical form


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "(and (on ?o ?s) (or (holding ?o) (on ?o s2)))",
            "(and (or (on ?o s2) (holding ?o)) (and (on ?o ?s) (interacted ?o) (on ?o ?s)))",
        ),
        ("(imply (holding ?o) (on ?o ?s))", "(or (on ?o ?s) (not (holding ?o)))"),
        ("(not (and (holding ?o) (on ?o ?s)))", "(imply (on ?o ?s) (not (holding ?o)))"),
        (
            "(exists (?m - mug) (on ?m ?s))",
            "(or (on m3 ?s) (at-least 1 (?x - mug) (on ?x ?s)) (on m2 ?s))",
        ),
        ("(forall (?m - mug) (on ?m ?s))", "(at-least 3 (?m - mug) (or (on ?m ?s) (on ?m ?s)))"),
        ("(on ?o ?s)", "(then (on ?o ?s) (interacted ?o))"),
    ],
)
def test_equivalent_formulas_ground_to_equal_goals(a: str, b: str) -> None:
    ga, gb = g(a).goal, g(b).goal
    assert ga is not None and gb is not None and ga == gb
    assert to_pddl(ga) == to_pddl(gb)


def test_grounding_is_deterministic() -> None:
    text = "(forpairs (?p - plate) (?f - fruit) (or (around ?f ?p) (on ?f ?p)))"
    assert pddl(text) == pddl(text)
    assert g(text).goal == g(text).goal


def test_unbound_variable_is_an_error() -> None:
    with pytest.raises(GroundError, match="`\\?s` is not bound"):
        ground(goal_of("(on ?o ?s)"), {"o": "m1"}, FACTS)


# ---------------------------------------------------------------- property: brute force

ENTITIES = ("e0", "e1", "e2", "e3")
FLUENT_ATOMS = [("p", (e,)) for e in ENTITIES] + [("q", (a, b)) for a in ENTITIES for b in ENTITIES]


def _facts(s: frozenset[str], r: frozenset[tuple[str, str]], k: dict[str, int]) -> TableFacts:
    return TableFacts(
        types={"e0": ("u",), "e1": ("u",), "e2": ("t",), "e3": ("t",)},
        parents={"u": ("t",)},
        kinds={"s": "static", "r": "history"},
        atoms={"s": [(e,) for e in s], "r": list(r)},
        values={"k": {(e,): float(v) for e, v in k.items()}},
    )


def V(name: str) -> A.Variable:
    return A.Variable(name=name)


@st.composite
def formulas(draw: st.DrawFn, scope: tuple[str, ...] = ("?o",), depth: int = 0) -> A.Node:
    def term() -> A.Variable | A.Constant:
        if draw(st.integers(0, 4)) == 0:
            return A.Constant(name=draw(st.sampled_from(ENTITIES)))
        return V(draw(st.sampled_from(scope)))

    def new_vars(n: int) -> tuple[A.TypedName, ...]:
        return tuple(
            A.TypedName(name=f"?v{depth}{i}", types=(draw(st.sampled_from(["t", "u"])),))
            for i in range(n)
        )

    leaf = depth >= 3 or draw(st.integers(0, 2)) == 0
    if leaf:
        kind = draw(st.sampled_from(["p", "q", "s", "r", "=", "cmp"]))
        if kind == "cmp":
            op = draw(st.sampled_from(["<", "<=", ">", ">=", "="]))
            left: A.NumericExpr = A.FunctionTerm(name="k", args=(term(),))
            if draw(st.booleans()):
                left = A.Arithmetic(op="-", args=(left, A.Number(value=draw(st.integers(0, 2)))))
            return A.Comparison(op=op, left=left, right=A.Number(value=draw(st.integers(0, 2))))
        arity = 1 if kind in ("p", "s") else 2
        return A.Atom(predicate=kind, args=tuple(term() for _ in range(arity)))
    form = draw(
        st.sampled_from(
            ["and", "or", "not", "imply", "exists", "forall", "count", "pairs", "extreme"]
        )
    )

    def sub(sc: tuple[str, ...] = scope) -> A.Node:
        node: A.Node = draw(formulas(sc, depth + 1))
        return node

    if form in ("and", "or"):
        parts = tuple(sub() for _ in range(draw(st.integers(0, 3))))
        return A.And(parts=parts) if form == "and" else A.Or(parts=parts)
    if form == "not":
        return A.Not(body=sub())
    if form == "imply":
        return A.Imply(condition=sub(), consequence=sub())
    if form in ("exists", "forall", "count"):
        vs = new_vars(draw(st.integers(1, 2)))
        body = sub((*scope, *(v.name for v in vs)))
        if form == "exists":
            return A.Exists(variables=vs, body=body)
        if form == "forall":
            return A.Forall(variables=vs, body=body)
        op = draw(st.sampled_from(["at-least", "at-most", "exactly"]))
        return A.Count(op=op, n=draw(st.integers(0, 3)), variables=vs, body=body)
    if form == "pairs":
        a, b = new_vars(2)
        body = sub((*scope, a.name, b.name))
        n = draw(st.none() | st.integers(0, 3))
        return A.Pairs(n=n, first=(a,), second=(b,), body=body)
    [x] = new_vars(1)
    cond = None
    if draw(st.booleans()):
        cond = draw(
            st.sampled_from(
                [
                    A.Atom(predicate="s", args=(V(x.name),)),
                    A.Not(body=A.Atom(predicate="s", args=(V(x.name),))),
                    A.Atom(predicate="r", args=(V(x.name), term())),
                ]
            )
        )
    key = A.FunctionTerm(name="k", args=(V(x.name),))
    return A.Extreme(
        op=draw(st.sampled_from(["argmax", "argmin"])),
        target=term(),
        variables=(x,),
        key=key,
        condition=cond,
    )


class Brute:
    """Evaluates the quantified formula directly, every branch (no short circuit)."""

    def __init__(self, facts: TableFacts, state: set[tuple[str, tuple[str, ...]]]) -> None:
        self.facts, self.state, self.ties = facts, state, 0

    def bindings(
        self, variables: Sequence[A.TypedName], env: dict[str, str]
    ) -> list[dict[str, str]]:
        domains = [self.facts.entities(v.types) for v in variables]
        return [
            {**env, **{v.name: e for v, e in zip(variables, combo, strict=True)}}
            for combo in itertools.product(*domains)
            if len(set(combo)) == len(combo)
        ]

    def num(self, e: A.Node, env: dict[str, str]) -> float | None:
        if isinstance(e, A.Number):
            return float(e.value)
        if isinstance(e, A.FunctionTerm):
            return self.facts.value(e.name, [self.t(a, env) for a in e.args])
        assert isinstance(e, A.Arithmetic)
        lo, hi = (self.num(a, env) for a in e.args)
        return None if lo is None or hi is None else lo - hi

    @staticmethod
    def t(term: A.Node, env: dict[str, str]) -> str:
        assert isinstance(term, A.Variable | A.Constant)
        return env[term.name] if isinstance(term, A.Variable) else term.name

    def __call__(self, f: A.Node, env: dict[str, str]) -> bool:
        ev = self.__call__
        if isinstance(f, A.Atom):
            args = tuple(self.t(a, env) for a in f.args)
            if f.predicate == "=":
                return args[0] == args[1]
            if f.predicate in ("s", "r"):
                return self.facts.holds(f.predicate, args)
            return (f.predicate, args) in self.state
        if isinstance(f, A.Comparison):
            x, y = self.num(f.left, env), self.num(f.right, env)
            if x is None or y is None:
                return False
            return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "=": x == y}[f.op]
        if isinstance(f, A.And):
            return all([ev(p, env) for p in f.parts])
        if isinstance(f, A.Or):
            return any([ev(p, env) for p in f.parts])
        if isinstance(f, A.Not):
            return not ev(f.body, env)
        if isinstance(f, A.Imply):
            c, q = ev(f.condition, env), ev(f.consequence, env)
            return (not c) or q
        if isinstance(f, A.Exists):
            return any([ev(f.body, b) for b in self.bindings(f.variables, env)])
        if isinstance(f, A.Forall):
            return all([ev(f.body, b) for b in self.bindings(f.variables, env)])
        if isinstance(f, A.Count):
            n = sum(ev(f.body, b) for b in self.bindings(f.variables, env))
            return {"at-least": n >= f.n, "at-most": n <= f.n, "exactly": n == f.n}[f.op]
        if isinstance(f, A.Pairs):
            (a,), (b,) = f.first, f.second
            firsts = [x[a.name] for x in self.bindings(f.first, env)]
            seconds = [x[b.name] for x in self.bindings(f.second, env)]
            ok = {
                (x, y): x != y and ev(f.body, {**env, a.name: x, b.name: y})
                for x in firsts
                for y in seconds
            }
            need = len(firsts) if f.n is None else f.n
            return any(
                all(ok[x, y] for x, y in zip(xs, ys, strict=True))
                for xs in itertools.combinations(firsts, need)
                for ys in itertools.permutations(seconds, need)
            )
        assert isinstance(f, A.Extreme)
        [x] = f.variables
        scored = []
        for b in self.bindings(f.variables, env):
            if f.condition is not None and not ev(f.condition, b):
                continue
            k = self.num(f.key, b)
            if k is not None:
                scored.append((k, b[x.name]))
        if not scored:
            return False
        best = (max if f.op == "argmax" else min)(k for k, _ in scored)
        winners = [e for k, e in scored if k == best]
        if len(winners) > 1:
            self.ties += 1
            return False
        return self.t(f.target, env) == winners[0]


def evaluate(goal: Goal, state: set[tuple[str, tuple[str, ...]]]) -> bool:
    if isinstance(goal, GCount):  # as the checkers judge it
        return verify.evaluate(goal, 0, lambda a, _: (a.predicate, a.args) in state)
    if isinstance(goal, GAtom):
        return (goal.predicate, goal.args) in state
    if isinstance(goal, GNot):
        return not evaluate(goal.body, state)
    if isinstance(goal, GAnd):
        return all(evaluate(p, state) for p in goal.parts)
    assert isinstance(goal, GOr), goal
    return any(evaluate(p, state) for p in goal.parts)


def _canonical(goal: Goal) -> None:
    """No nested same-kind junctions, no constants inside, sorted unique parts."""
    if isinstance(goal, GNot):
        assert isinstance(goal.body, GAtom)  # negation normal form
    elif isinstance(goal, GCount):
        assert len(goal.items) == len(set(goal.items)) and len(goal.others) <= 1
    elif isinstance(goal, GAnd | GOr):
        keys = [to_pddl(p) for p in goal.parts]
        assert keys == sorted(set(keys))
        assert len(goal.parts) != 1
        for p in goal.parts:
            assert type(p) is not type(goal) and p not in (TRUE, FALSE)
            _canonical(p)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    formula=formulas(),
    o=st.sampled_from(ENTITIES),
    s=st.frozensets(st.sampled_from(ENTITIES)),
    r=st.frozensets(st.tuples(st.sampled_from(ENTITIES), st.sampled_from(ENTITIES))),
    k=st.dictionaries(st.sampled_from(ENTITIES), st.integers(0, 2)),
    states=st.lists(st.frozensets(st.sampled_from(FLUENT_ATOMS)), min_size=1, max_size=6),
)
@pytest.mark.slow
def test_ground_agrees_with_brute_force(
    formula: A.Node,
    o: str,
    s: frozenset[str],
    r: frozenset[tuple[str, str]],
    k: dict[str, int],
    states: list[frozenset[tuple[str, tuple[str, ...]]]],
) -> None:
    facts = _facts(s, r, k)
    result = ground(formula, {"o": o}, facts)
    brute = Brute(facts, set())
    if result.reason is not None and result.reason.code in (DropCode.TIE, DropCode.ORDER_TIE):
        brute(formula, {"?o": o})
        assert brute.ties > 0, result.reason
        event("tie reported")
        return
    goal = FALSE if result.goal is None else result.goal
    event("constant" if goal in (TRUE, FALSE) else "over fluent atoms")
    _canonical(goal)
    for state in [*states, frozenset(), frozenset(FLUENT_ATOMS)]:
        brute.state = set(state)
        assert evaluate(goal, brute.state) == brute(formula, {"?o": o}), (to_pddl(goal), state)


def test_forpairs_over_many_firsts_does_not_recurse() -> None:
    n = 300  # more firsts than the (lowered) recursion limit allows frames
    facts = TableFacts(
        types={
            **{f"p{i}": ("plate",) for i in range(n)},
            **{f"f{i}": ("fruit",) for i in range(n)},
        },
        kinds={"near": "static"},
        atoms={"near": [(f"f{i}", f"p{i}") for i in range(n)]},
    )
    text = "(forpairs (?p - plate) (?f - fruit) (and (near ?f ?p) (around ?f ?p)))"
    goal = goal_of(text, "")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        result = ground(goal, {}, facts)
    finally:
        sys.setrecursionlimit(limit)
    assert isinstance(result.goal, GAnd) and len(result.goal.parts) == n
    with pytest.raises(GroundLimitError) as info:
        text = "(forpairs (?p - plate) (?f - fruit) (around ?f ?p))"
        ground(goal_of(text, ""), {}, facts, max_atoms=10_000)
    assert info.value.quantifier == "forpairs"


def _guard_forms(x: str) -> list[A.Node]:
    """Guards a quantifier over `x` narrows its domain by: an `exists` over a
    compile-time atom (its table projected), an `or` of compile-time atoms (their union),
    and the two together."""
    y = A.TypedName(name="?gy", types=("u",))
    r_yx = A.Atom(predicate="r", args=(V("?gy"), V(x)))
    r_xy = A.Atom(predicate="r", args=(V(x), V("?gy")))
    return [
        A.Exists(variables=(y,), body=r_yx),
        A.Exists(variables=(y,), body=A.Or(parts=(r_yx, r_xy))),
        A.Or(parts=(A.Atom(predicate="s", args=(V(x),)),
                    A.Atom(predicate="r", args=(V(x), A.Constant(name="e1"))))),
        A.Exists(variables=(y,), body=A.Or(parts=(r_yx, A.Atom(predicate="s", args=(V(x),))))),
    ]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    guard=st.integers(0, 3),
    quantifier=st.sampled_from(["exists", "forall", "count"]),
    body=formulas(("?o", "?x"), depth=2),
    o=st.sampled_from(ENTITIES),
    s=st.frozensets(st.sampled_from(ENTITIES)),
    r=st.frozensets(st.tuples(st.sampled_from(ENTITIES), st.sampled_from(ENTITIES))),
    k=st.dictionaries(st.sampled_from(ENTITIES), st.integers(0, 2)),
    states=st.lists(st.frozensets(st.sampled_from(FLUENT_ATOMS)), min_size=1, max_size=4),
)
@pytest.mark.slow
def test_exists_and_or_guards_agree_with_brute_force(
    guard: int, quantifier: str, body: A.Node, o: str, s: frozenset[str],
    r: frozenset[tuple[str, str]], k: dict[str, int],
    states: list[frozenset[tuple[str, tuple[str, ...]]]],
) -> None:
    x = A.TypedName(name="?x", types=("t",))
    g = _guard_forms("?x")[guard]
    formula: A.Node
    if quantifier == "forall":
        formula = A.Forall(variables=(x,), body=A.Imply(condition=g, consequence=body))
    elif quantifier == "exists":
        formula = A.Exists(variables=(x,), body=A.And(parts=(g, body)))
    else:
        formula = A.Count(op="at-least", n=1, variables=(x,), body=A.And(parts=(g, body)))
    facts = _facts(s, r, k)
    result = ground(formula, {"o": o}, facts)
    brute = Brute(facts, set())
    if result.reason is not None and result.reason.code in (DropCode.TIE, DropCode.ORDER_TIE):
        return
    goal = FALSE if result.goal is None else result.goal
    for state in [*states, frozenset(), frozenset(FLUENT_ATOMS)]:
        brute.state = set(state)
        assert evaluate(goal, brute.state) == brute(formula, {"?o": o}), (to_pddl(goal), state)
