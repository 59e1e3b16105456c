"""The parse pass, construct by construct: what PDDL people write, and fdc templates."""

from __future__ import annotations

import pytest

from fdc.compiler import ast as A
from fdc.compiler.check import check_sources
from fdc.compiler.parse import parse_text
from fdc.compiler.printer import print_unit
from fdc.core.problems import SourceFile


def parse_one(text: str) -> A.Definition:
    result = parse_text(text)
    assert result.diagnostics == [], result.diagnostics
    assert result.unit is not None
    [definition] = result.unit.definitions
    return definition


def round_trips(text: str) -> None:
    unit = parse_text(text).unit
    assert unit is not None
    again = parse_text(print_unit(unit)).unit
    assert again is not None and again.definitions == unit.definitions


def test_keywords_and_names_are_case_insensitive() -> None:
    d = parse_one(
        "(DEFINE (DOMAIN Blocks) (:Predicates (On ?X ?Y)) (:ACTION Go :EFFECT (ON ?x ?y)))"
    )
    assert isinstance(d, A.Domain)
    assert d.name == "blocks"
    assert d.predicates[0].name == "on"
    assert d.actions[0].effect == A.Atom(
        predicate="on", args=(A.Variable(name="?x"), A.Variable(name="?y"))
    )


def test_comments_may_hold_any_bytes() -> None:
    raw = b"; caf\xe9 \xff\xfe \xe2\x82\xac\n(define (domain d)) ; trailing \x00\n"
    src = SourceFile("x.pddl", raw.decode("utf-8", errors="replace"))
    assert check_sources([src]).diagnostics == []


def test_requirements_are_advisory_and_unknown_flags_accepted() -> None:
    d = parse_one("(define (domain d) (:requirements :strips :made-up-flag :constraints))")
    assert isinstance(d, A.Domain)
    assert d.requirements == (":strips", ":made-up-flag", ":constraints")


def test_types_hierarchy_either_object_and_duplicates() -> None:
    text = """(define (domain d)
      (:types object truck car - vehicle vehicle - object truck - vehicle)
      (:predicates (drives ?v - (either truck car)))
      (:action a :parameters (?t - truck) :precondition (drives ?t)))"""
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    assert d.types[1] == A.TypedName(name="truck", types=("vehicle",))
    assert d.predicates[0].parameters[0].types == ("truck", "car")
    assert check_sources([SourceFile("x", text)]).diagnostics == []


def test_untyped_objects_constants_and_shared_names() -> None:
    # `at` is a type, a predicate, an object and an action at once: separate namespaces.
    text = """(define (domain d) (:types at)
      (:constants home)
      (:predicates (at ?x ?y))
      (:action at :parameters (?x ?y) :precondition (at ?x home) :effect (at ?x ?y)))
    (define (problem p) (:domain d) (:objects a b at)
      (:init (at a home)) (:goal (at b at)))"""
    result = check_sources([SourceFile("x", text)])
    assert result.diagnostics == []


def test_adl_conditions_and_effects() -> None:
    text = """(define (domain d) (:predicates (p ?x) (q ?x))
      (:action a :parameters (?x)
        :precondition (and (or (p ?x) (not (q ?x))) (imply (p ?x) (q ?x))
                           (exists (?y) (p ?y)) (forall (?y) (q ?y)) (= ?x ?x))
        :effect (and (forall (?y) (when (p ?y) (not (q ?y)))) (p ?x))))"""
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    pre = d.actions[0].precondition
    assert isinstance(pre, A.And)
    assert [type(p).__name__ for p in pre.parts] == ["Or", "Imply", "Exists", "Forall", "Atom"]
    assert check_sources([SourceFile("x", text)]).diagnostics == []
    round_trips(text)


def test_numeric_fluents_costs_and_metric() -> None:
    text = """(define (domain d) (:predicates (p)) (:functions (fuel ?x) (total-cost) - number)
      (:action a :parameters (?x) :precondition (>= (fuel ?x) (* 2 (- 3 1)))
        :effect (and (decrease (fuel ?x) 1) (increase (total-cost) (fuel ?x)))))
    (define (problem q) (:domain d) (:objects o) (:init (= (fuel o) 10) (= (total-cost) 0))
      (:goal (p)) (:metric minimize (total-cost)))"""
    result = check_sources([SourceFile("x", text)])
    assert result.diagnostics == []
    problem = result.units[0].definitions[1]
    assert isinstance(problem, A.Problem)
    assert problem.metric == A.Metric(direction="minimize", expr=A.FunctionTerm(name="total-cost"))
    round_trips(text)


def test_derived_predicates() -> None:
    text = """(define (domain d) (:predicates (p ?x) (q ?x))
      (:derived (q ?x) (not (p ?x))))"""
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    assert d.derived[0].predicate.name == "q"
    round_trips(text)


def test_durative_actions_are_preserved() -> None:
    text = """(define (domain d) (:predicates (p) (q)) (:functions (f))
      (:durative-action a :parameters () :duration (and (>= ?duration 1) (<= ?duration 5))
        :condition (and (at start (p)) (over all (q)))
        :effect (and (at end (not (p))) (increase (f) (* #t 2)))))"""
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    [da] = d.durative_actions
    assert isinstance(da.condition, A.And)
    assert da.condition.parts[1] == A.Timed(time="all", body=A.Atom(predicate="q"))
    assert check_sources([SourceFile("x", text)]).diagnostics == []
    round_trips(text)


def test_pddl3_constraints_preferences_and_timed_literals() -> None:
    text = """(define (domain d) (:predicates (p) (q))
      (:constraints (and (always (p)) (within 5 (q)) (sometime-before (p) (q))
                         (hold-during 2 9 (p)) (at end (q)))))
    (define (problem r) (:domain d) (:init (at 10 (p)) (q))
      (:goal (preference g1 (p))) (:constraints (at-most-once (q))))"""
    result = check_sources([SourceFile("x", text)])
    assert result.diagnostics == []
    domain, problem = result.units[0].definitions
    assert isinstance(domain, A.Domain) and isinstance(domain.constraints, A.And)
    assert domain.constraints.parts[3] == A.Modal(
        op="hold-during", numbers=(2, 9), parts=(A.Atom(predicate="p"),)
    )
    assert isinstance(problem, A.Problem)
    assert problem.init[0] == A.TimedLiteral(time=10, body=A.Atom(predicate="p"))
    assert problem.goal == A.Preference(name="g1", body=A.Atom(predicate="p"))
    round_trips(text)


def test_several_definitions_per_file_and_domain_in_another_file() -> None:
    domain = "(define (domain d) (:predicates (p ?x)))"
    problems = "(define (problem a) (:domain d) (:objects o) (:init) (:goal (p o)))\n" * 1
    problems += "(define (problem b) (:domain d) (:objects o) (:init (p o)) (:goal (not (p o))))"
    result = check_sources([SourceFile("probs.pddl", problems), SourceFile("dom.pddl", domain)])
    assert result.diagnostics == []
    assert result.definition_count == 3


TEMPLATE = """(define (template every-form)
  (:domain fdc-home)
  (:category interaction-order)
  (:level 2)
  (:tags memory multi-goal)
  (:version 3)
  (:description "Every goal form at once.")
  (:parameters ?o ?prev - movable ?s - surface)
  (:constraints (and (interacted ?prev) (next-interaction ?prev ?o)
                     (argmin ?o (?x - movable) (interaction-start ?x) (interacted ?x))
                     (exactly 2 (?x - mug) (on ?x ?s))))
  (:goal (then
           (and (on ?o ?s) (at-most 3 (?m - movable) (on ?m ?s))
                (forpairs (?a - cup) (?b - plate) (on ?a ?s))
                (fornpairs 2 (?a - cup) (?b - plate) (on ?b ?s))
                (forn 1 (?a - cup) (holding ?a)) (> (distance-from-start ?o) 1.5))
           (targets (?x - movable) (interacted ?x) (robot-at-object ?x))
           (ordered-targets (?x - movable) (interaction-order ?x) (interacted ?x)
                            (robot-at-object ?x))))
  (:instruction "Take {{ o | ref }} after {{ prev | ref }}." "Move {{ o | ref }}.")
  (:ambiguity widen))
"""


def test_template_with_every_form() -> None:
    t = parse_one(TEMPLATE)
    assert isinstance(t, A.Template)
    assert (t.category, t.level, t.tags, t.version, t.ambiguity) == (
        "interaction-order",
        2,
        ("memory", "multi-goal"),
        3,
        "widen",
    )
    assert [i.text for i in t.instructions] == [
        "Take {{ o | ref }} after {{ prev | ref }}.",
        "Move {{ o | ref }}.",
    ]
    assert isinstance(t.goal, A.Then)
    first, unordered, ordered = t.goal.steps
    assert isinstance(first, A.And)
    assert isinstance(first.parts[1], A.Count) and first.parts[1].op == "at-most"
    assert first.parts[2] == A.Pairs(
        n=None,
        first=(A.TypedName(name="?a", types=("cup",)),),
        second=(A.TypedName(name="?b", types=("plate",)),),
        body=A.Atom(predicate="on", args=(A.Variable(name="?a"), A.Variable(name="?s"))),
    )
    assert isinstance(first.parts[4], A.Count) and first.parts[4].op == "at-least"  # forn
    assert isinstance(unordered, A.Targets) and unordered.order is None
    assert isinstance(ordered, A.Targets) and ordered.order == A.FunctionTerm(
        name="interaction-order", args=(A.Variable(name="?x"),)
    )
    result = check_sources([SourceFile("t.pddl", TEMPLATE)], _library())
    assert [d for d in result.diagnostics if d.is_error] == []
    round_trips(TEMPLATE)


def _library() -> list[SourceFile]:
    from fdc.domain import builtin_domain_files

    return [SourceFile.read(str(p)) for p in builtin_domain_files()]


def test_spans_point_into_the_source() -> None:
    text = "(define (domain d) (:predicates (p ?x)))"
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    assert text[d.span.start : d.span.end] == text
    pred = d.predicates[0]
    assert text[pred.span.start : pred.span.end] == "(p ?x)"
    assert text[pred.parameters[0].span.start : pred.parameters[0].span.end] == "?x"


def test_equality_ignores_spans_but_not_content() -> None:
    a = parse_one("(define (domain d) (:predicates (p ?x)))")
    b = parse_one("(define (domain d)\n\n   (:predicates   (p ?x)))")
    c = parse_one("(define (domain d) (:predicates (p ?y)))")
    assert a == b and hash(a) == hash(b)
    assert a != c


def test_ast_nodes_are_frozen() -> None:
    atom = A.Atom(predicate="p")
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        atom.predicate = "q"  # type: ignore[misc]


def test_strings_unescape_and_print_back() -> None:
    text = r"""(define (template t) (:domain fdc-home) (:goal (hand-empty))
      (:instruction "Say \"hi\" \\ then go."))"""
    t = parse_one(text)
    assert isinstance(t, A.Template)
    assert t.instructions[0].text == 'Say "hi" \\ then go.'
    round_trips(text)


def test_reserved_words_are_fine_where_no_formula_follows() -> None:
    t = parse_one(
        "(define (template then) (:domain fdc-home) (:category and) (:tags or not)"
        ' (:goal (hand-empty)) (:instruction "x"))'
    )
    assert isinstance(t, A.Template)
    assert (t.name, t.category, t.tags) == ("then", "and", ("or", "not"))


def test_domain_thresholds_parse_and_print() -> None:
    text = (
        "(define (domain d) (:predicates (p)) (:thresholds (object_distance_m 1.5) (on_top_m 1)))"
    )
    d = parse_one(text)
    assert isinstance(d, A.Domain)
    assert d.thresholds == (
        A.Threshold(name="object_distance_m", value=1.5),
        A.Threshold(name="on_top_m", value=1),
    )
    round_trips(text)


def test_function_types_survive_printing() -> None:
    # Found by the fuzz tests: `- drive` after the last function typed every function.
    round_trips("(define (domain d) (:functions (a ?x) (total-cost) - drive (b) (c) - number))")
    round_trips("(define (domain d) (:functions (a ?x) - number (total-cost) - drive))")


_THREE = """(define (template a)
  (:domain fdc-home)
  (:parameters ?x - mug)
  (:goal (robot-at-object ?x)
  (:instruction "Go to {{ x | ref }}."))

(define (template b)
  (:domain fdc-home)
  (:parameters ?x - mug)
  (:goal (robot-at-object ?x ?)))
  (:instruction "Go to {{ x | ref }}."))

(define (template c)
  (:domain fdc-home)
  (:parameters ?x - mug)
  (:goal (robot-at-objct ?x))
  (:instruction "Go to {{ x | ref }}."))
"""


def test_a_parse_error_does_not_hide_the_files_other_errors() -> None:
    # Only the first error was reported: the parser gave up on the whole file.
    result = parse_text(_THREE, "three.pddl")
    source = SourceFile("three.pddl", _THREE)
    found = [(d.code, source.position(d.span.start)[0]) for d in result.diagnostics
             if d.span is not None]
    assert found == [("P003", 5), ("P002", 10)]  # a missing `)`, a bad variable
    assert result.unit is not None
    assert [d.name for d in result.unit.definitions] == ["c"]  # what parsed, kept
    from fdc.domain import builtin_domain_files

    report = check_sources([source], [SourceFile.read(str(p)) for p in builtin_domain_files()])
    codes = [(d.code, source.position(d.span.start)[0]) for d in report.diagnostics
             if d.span is not None]
    assert codes == [("P003", 5), ("P002", 10), ("N203", 16)]  # c's own error too


def test_a_definition_cut_short_by_the_next_one_says_so() -> None:
    text = ("(define (template a)\n  (:domain fdc-home)\n\n"
            "(define (template b) (:domain fdc-home))\n")
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["P004"]
    assert result.diagnostics[0].message.startswith("the definition ends before the next "
                                                   "`(define`")
    assert result.unit is not None and [d.name for d in result.unit.definitions] == ["b"]
