"""One test per diagnostic code: the exact message, severity, location and hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.compiler import ast as A
from fdc.compiler.check import check_paths, check_sources
from fdc.core.problems import Diagnostic, Severity, SourceFile, render_text
from fdc.domain import builtin_domain_files

DOMAIN = """(define (domain d)
  (:requirements :strips :typing)
  (:types block table - thing thing)
  (:constants t1 - table)
  (:predicates (on ?x - block ?y - thing) (clear ?x - thing) (holding ?b - block))
  (:functions (weight ?b - block))
  (:action pick :parameters (?b - block)
    :precondition (clear ?b) :effect (holding ?b)))
"""

LIBRARY = [SourceFile.read(str(p)) for p in builtin_domain_files()]


def run(text: str, *extra: str, path: str = "x.pddl") -> list[Diagnostic]:
    sources = [
        SourceFile(path, text),
        *(SourceFile(f"extra{i}.pddl", t) for i, t in enumerate(extra)),
    ]
    return check_sources(sources, LIBRARY).diagnostics


def only(text: str, code: str, *extra: str) -> Diagnostic:
    found = [d for d in run(text, *extra) if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in run(text, *extra)]
    return found[0]


def located(text: str, d: Diagnostic) -> str:
    """The source text under the diagnostic's span."""
    return text[d.span.start : d.span.end]


def template(goal: str, params: str = "?o - movable", extra: str = "") -> str:
    return f"""(define (template t)
  (:domain fdc-home)
  (:parameters {params})
  {extra}
  (:goal {goal})
  (:instruction "Go to {{{{ o | ref }}}}."))
"""


# ---------------------------------------------------------------------------- parse


def test_p001_missing_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.pddl")
    result = check_paths([missing], builtin=False)
    assert result.usage_error
    [d] = result.diagnostics
    assert (d.code, d.message, d.file) == ("P001", "no such file or folder", missing)


def test_p002_bad_token() -> None:
    text = "(define (domain d) (:predicates (p ?x -t)))"
    d = only(text, "P002")
    assert d.message == "`-t` is neither a number nor a name"
    assert located(text, d) == "-"


def test_p002_unterminated_string() -> None:
    text = '(define (template t) (:domain fdc-home) (:instruction "go)'
    d = only(text, "P002")
    assert d.message == "unterminated string"
    assert d.hint.startswith("close the string")


def test_p002_lone_question_mark() -> None:
    d = only("(define (domain d) (:predicates (p ? x)))", "P002")
    assert d.message == "a variable needs a name after `?`"


def test_p002_unexpected_character() -> None:
    d = only("(define (domain d) {)", "P002")
    assert d.message == "unexpected character `{`"


def test_p003_unexpected_token() -> None:
    text = "(define (domain d) (:predicates (p ?x)) foo)"
    d = only(text, "P003")
    assert d.message == "unexpected `foo`; expected `(`, `)`"
    assert located(text, d) == "foo"


def test_p004_end_of_file() -> None:
    d = only("(define (domain d) (:predicates (p ?x))", "P004")
    assert d.message == "the file ends too early; expected `(`, `)`"
    assert d.hint == "check that every `(` has its `)`"


def test_p005_too_deep() -> None:
    depth = 3000
    body = "(not " * depth + "(p)" + ")" * depth
    text = f"(define (domain d) (:predicates (p)) (:action a :precondition {body}))"
    d = only(text, "P005")
    assert d.message == "parentheses nest more than 200 deep here, the limit `paren_depth`"
    assert "fdc --limit paren_depth=N" in d.hint


def test_p101_duplicate_section() -> None:
    text = "(define (domain d) (:predicates (p)) (:action a :effect (p) :effect (p)))"
    d = only(text, "P101")
    assert d.message == "`:effect` is given twice in action `a`"


def test_p101_duplicate_template_section() -> None:
    d = only(template("(holding ?o)", extra="(:category a) (:category b)"), "P101")
    assert d.message == "`:category` is given twice in template `t`"


def test_p102_misplaced_part() -> None:
    text = "(define (domain d) (:predicates (p)) (:action a :duration (= ?duration 1)))"
    d = only(text, "P102")
    assert d.message == "`:duration` does not belong in action `a`"
    assert d.hint == "allowed here: :parameters, :precondition, :effect"


def test_p103_type_without_names() -> None:
    text = "(define (domain d) (:types - thing))"
    d = only(text, "P103")
    assert d.message == "`- thing` follows no name"
    assert located(text, d) == "- thing"


def test_p104_arithmetic_operands() -> None:
    text = "(define (domain d) (:functions (f)) (:action a :effect (increase (f) (+ 1))))"
    d = only(text, "P104")
    assert d.message == "`+` takes two operands, not 1"


def test_p105_time_specifier() -> None:
    text = """(define (domain d) (:predicates (p))
      (:durative-action a :parameters () :duration (= ?duration 1)
        :condition (at noon (p)) :effect (at end (p))))"""
    d = only(text, "P105")
    assert d.message == "`(at noon ...)` is no time specifier"


def test_p106_unknown_operator() -> None:
    d = only(template("(eventually (holding ?o))"), "P106")
    assert d.message == "`eventually` is no formula operator"


def test_p106_modal_shape() -> None:
    text = "(define (domain d) (:predicates (p)) (:constraints (within (p))))"
    d = only(text, "P106")
    assert d.message == "`within` takes 1 number(s) and 1 formula(s), not 0 and 1"


def test_p107_count() -> None:
    d = only(template("(at-least 1.5 (?x - movable) (holding ?x))"), "P107")
    assert d.message == "a count must be a whole number of at least 0, not `1.5`"


def test_p108_metric_direction() -> None:
    problem = "(define (problem p) (:domain d) (:init) (:goal (and)) (:metric reduce (total-time)))"
    d = only(problem, "P108", DOMAIN)
    assert d.message == "a metric is `minimize` or `maximize`, not `reduce`"


def test_p109_ambiguity_policy() -> None:
    d = only(template("(holding ?o)", extra="(:ambiguity maybe)"), "P109")
    assert d.message == "the ambiguity policy is `reject` or `widen`, not `maybe`"


def test_p110_missing_domain() -> None:
    d = only("(define (problem p) (:init) (:goal (and)))", "P110")
    assert d.message == "problem `p` names no domain"


# ---------------------------------------------------------------------------- names


def test_n201_unknown_domain() -> None:
    text = "(define (problem p) (:domain blockz) (:init) (:goal (and)))"
    d = only(text, "N201")
    assert d.message == "unknown domain `blockz`"
    assert located(text, d) == "blockz"


def test_n201_did_you_mean() -> None:
    d = only("(define (problem p) (:domain dd) (:init) (:goal (and)))", "N201", DOMAIN)
    assert d.hint == "did you mean `d`?"


def test_n202_unknown_type() -> None:
    text = DOMAIN.replace("(holding ?b - block)", "(holding ?b - blok)")
    d = only(text, "N202")
    assert d.message == "unknown type `blok`"
    assert located(text, d) == "blok"
    assert d.hint == "did you mean `block`?"


def test_n203_unknown_predicate() -> None:
    text = template("(holdin ?o)")
    d = only(text, "N203")
    assert d.message == "unknown predicate `holdin`"
    assert located(text, d) == "holdin"
    assert d.hint == "did you mean `holding`?"


def test_n204_unknown_function() -> None:
    d = only(template("(< (interaction-ordr ?o) 3)"), "N204")
    assert d.message == "unknown function `interaction-ordr`"
    assert d.hint == "did you mean `interaction-order`?"


def test_n205_unknown_constant() -> None:
    text = template("(has-color ?o redd)")
    d = only(text, "N205")
    assert d.message == "unknown constant or object `redd`"
    assert located(text, d) == "redd"
    assert d.hint == "did you mean `red`?"


def test_n205_a_type_in_an_entity_place_is_hinted_as_a_parameter() -> None:
    # `counter` is a furniture type: the hint was "did you mean `center`?" (a cell)
    for goal in ("(is-category ?o counter)", "(exists (?s - surface) (surface-of ?s counter))"):
        d = only(template(goal), "N205")
        assert d.message == "unknown constant or object `counter`"
        assert d.hint == ("`counter` is a type, not an entity: bind a parameter of it, "
                          "`?c - counter` (every counter)")
    d = only(template("(robot-in-room kitchen)"), "N205")
    assert d.hint is not None and "`?k - kitchen`" in d.hint


def test_n206_duplicate_predicate() -> None:
    text = DOMAIN.replace("(holding ?b - block))", "(holding ?b - block) (clear ?y - thing))")
    d = only(text, "N206")
    assert d.message == "predicate `clear` is defined twice"
    assert d.hint == "the first definition is on line 5"


def test_n207_type_redeclared() -> None:
    text = "(define (domain d) (:types a b - object c - a c - b))"
    d = only(text, "N207")
    assert d.severity is Severity.WARNING
    assert d.message == "type `c` is declared again with parent `b` (first: `a`)"


def test_n208_object_repeats_constant() -> None:
    problem = "(define (problem p) (:domain d) (:objects t1 - table) (:init) (:goal (and)))"
    d = only(problem, "N208", DOMAIN)
    assert d.severity is Severity.WARNING
    assert d.message == "object `t1` repeats constant `t1` of domain `d`"


def test_n209_type_cycle() -> None:
    d = only("(define (domain d) (:types a - b b - a))", "N209")
    assert d.message in ("type `a` is its own ancestor", "type `b` is its own ancestor")


def test_n210_domain_twice() -> None:
    d = only("(define (domain d))", "N210", "(define (domain d))")
    assert d.message.startswith("domain `d` is defined again (first in ")


def test_n210_template_twice() -> None:
    text = template("(holding ?o)") + template("(holding ?o)")
    d = only(text, "N210")
    assert d.message == "template `t` is defined again (first in x.pddl)"


def test_n211_implicit_parent_type() -> None:
    d = only("(define (domain d) (:types a - pieces))", "N211")
    assert d.severity is Severity.WARNING
    assert d.message == (
        "type `pieces` is used as the parent of `a` but never declared; "
        "fdc declares it under `object`"
    )


# ---------------------------------------------------------------------------- types


def test_t301_arity() -> None:
    d = only(template("(holding ?o ?o)"), "T301")
    assert d.message == "`holding` takes 1 argument(s), not 2"
    assert d.hint == "declared as `(holding ?o - movable)`"


def test_t302_disjoint_types() -> None:
    d = only(template("(holding ?r)", params="?r - room ?o - movable"), "T302")
    assert d.message == "argument 1 of `holding` must be a `movable`, but `?r` is a `room`"


def test_t302_wider_type_is_fine() -> None:
    # `?x - object` passed where a `movable` is expected is legal PDDL (never true for others).
    assert not [
        d for d in run(template("(holding ?x)", params="?x - object ?o - movable")) if d.is_error
    ]


def test_t303_function_as_predicate() -> None:
    d = only(template("(interaction-order ?o)"), "T303")
    assert d.message == "`interaction-order` is a numeric function, used here as a predicate"


def test_t304_predicate_as_function() -> None:
    d = only(template("(> (holding ?o) 0)"), "T304")
    assert d.message == "`holding` is a predicate, used here as a numeric function"


def test_t305_form_not_allowed() -> None:
    text = DOMAIN.replace(":effect (holding ?b)", ":effect (or (holding ?b) (clear ?b))")
    d = only(text, "T305")
    assert d.message == "`or` is not allowed in the effect of action `pick`"
    assert d.hint.startswith("effects are atoms")


def test_t305_variable_in_init() -> None:
    problem = "(define (problem p) (:domain d) (:init (clear ?x)) (:goal (and)))"
    d = only(problem, "T305", DOMAIN)
    assert d.message == "variable `?x` in the initial state"


# ---------------------------------------------------------------------------- variables


def test_v401_unbound() -> None:
    text = template("(holding ?obj)")
    d = only(text, "V401")
    assert d.message == "variable `?obj` is not bound here"
    assert located(text, d) == "?obj"
    assert d.hint == "did you mean `?o`?"


def test_v402_unused() -> None:
    d = only(template("(exists (?x - movable) (holding ?o))"), "V402")
    assert d.severity is Severity.WARNING
    assert d.message == "variable `?x` is never used"


def test_v402_unused_parameter() -> None:
    text = """(define (template t) (:domain fdc-home) (:parameters ?o ?p - movable)
      (:goal (holding ?o)) (:instruction "Take {{ o | ref }}."))"""
    d = only(text, "V402")
    assert d.message == "variable `?p` is never used"


def test_v403_shadowed() -> None:
    d = only(template("(exists (?o - movable) (holding ?o))"), "V403")
    assert d.severity is Severity.WARNING
    assert d.message == "variable `?o` shadows the `?o` bound outside"


def test_v404_duplicate_variable() -> None:
    d = only(template("(holding ?o)", params="?o ?o - movable"), "V404")
    assert d.message == "variable `?o` appears twice in the parameters of template `t`"


# ---------------------------------------------------------------------------- goals


def test_g501_multigoal_under_not() -> None:
    text = template("(not (targets (?x - movable) (interacted ?x) (robot-at-object ?x)))")
    d = only(text, "G501")
    assert d.message.startswith(
        "a multi-goal form (`targets`, `ordered-targets`) makes no sense here"
    )


def test_g502_template_form_in_problem() -> None:
    problem = (
        "(define (problem p) (:domain d) (:init) (:goal (at-least 1 (?b - block) (holding ?b))))"
    )
    d = only(problem, "G502", DOMAIN)
    assert d.message == (
        "a counting quantifier is an fdc template form; "
        "it is not allowed in the goal of problem `p`"
    )


def test_g503_no_goal() -> None:
    d = only('(define (template t) (:domain fdc-home) (:instruction "x"))', "G503")
    assert d.message == "template `t` has no goal"


def test_g503_no_instruction() -> None:
    d = only("(define (template t) (:domain fdc-home) (:goal (hand-empty)))", "G503")
    assert d.message == "template `t` has no instruction"


def test_g504_preference_in_template() -> None:
    d = only(template("(preference p (holding ?o))"), "G504")
    assert d.message == "a preference is not supported in the goal of template `t`"


def test_g504_durative_domain_warning() -> None:
    domain = """(define (domain dd) (:predicates (p))
      (:durative-action a :parameters () :duration (= ?duration 1)
        :condition (at start (p)) :effect (at end (p))))"""
    text = """(define (template t) (:domain dd) (:goal (p)) (:instruction "x"))"""
    d = only(text, "G504", domain)
    assert d.severity is Severity.WARNING
    assert d.message == (
        "domain `dd` has durative actions (`a`, ...), which fdc's planner export ignores"
    )


# ---------------------------------------------------------------------------- instructions


def _instruction(text: str) -> str:
    return f"""(define (template t) (:domain fdc-home) (:parameters ?prev-obj - movable)
      (:goal (holding ?prev-obj))
      (:instruction "{text}"))"""


def test_j601_jinja_syntax() -> None:
    d = only(_instruction("Take {{ prev_obj | ref }"), "J601")
    assert d.message.startswith("instruction is not valid Jinja: ")


def test_j602_unknown_placeholder() -> None:
    text = _instruction("Take {{ prev | ref }}.")
    d = only(text, "J602")
    assert d.message == "`prev` in the instruction names no parameter of template `t`"
    assert located(text, d) == "prev"
    assert d.hint == "did you mean `prev_obj`?"


def test_j603_unknown_filter() -> None:
    text = _instruction("Take {{ prev_obj | reff }}.")
    d = only(text, "J603")
    assert d.message == "unknown filter `reff`"
    assert located(text, d) == "reff"
    assert d.hint == "did you mean `ref`?"


def test_j604_missing_instruction_file(tmp_path: Path) -> None:
    t = tmp_path / "t.pddl"
    t.write_text(
        '(define (template t) (:domain fdc-home) (:goal (hand-empty)) (:instruction-file "t.j2"))'
    )
    result = check_paths([str(t)])
    [d] = [d for d in result.diagnostics if d.code == "J604"]
    assert d.message == "cannot read instruction file `t.j2`: No such file or directory"


def test_instruction_file_variants_are_checked(tmp_path: Path) -> None:
    t = tmp_path / "t.pddl"
    t.write_text(
        "(define (template t) (:domain fdc-home) (:parameters ?o - movable)\n"
        '  (:goal (holding ?o)) (:instruction-file "t.j2"))\n'
    )
    (tmp_path / "t.j2").write_text("Take {{ o | ref }}.\n---\nGrab {{ oo | ref }}.\n")
    result = check_paths([str(t)])
    [d] = result.diagnostics
    assert d.code == "J602"
    assert d.file.endswith("t.j2")
    assert "2 | Grab {{ oo | ref }}." not in render_text(d, result.sources)  # line 3 of the file
    assert (
        render_text(d, result.sources)
        .splitlines()[0]
        .endswith(
            "t.j2:3:9: error[J602]: `oo` in the instruction names no parameter of template `t`"
        )
    )


# ---------------------------------------------------------------------------- rendering


def test_render_has_location_caret_and_hint() -> None:
    text = template("(holdin ?o)")
    diagnostics = run(text)
    out = render_text(diagnostics[0], {"x.pddl": SourceFile("x.pddl", text)})
    assert out.splitlines() == [
        "x.pddl:5:11: error[N203]: unknown predicate `holdin`",
        "    5 |   (:goal (holdin ?o))",
        "                  ^~~~~~",
        "      = hint: did you mean `holding`?",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "; only a comment",
        "(define (domain d))",
        template("(holding ?o)"),
    ],
)
def test_clean_inputs_have_no_diagnostics(text: str) -> None:
    assert run(text) == []


def test_p003_expected_set_is_exact_and_hints_the_parenthesis() -> None:
    text = '(define (template t) (:domain fdc-home) (:goal (holding ?o) (:instruction "x"))'
    d = only(text, "P003")
    assert d.message == "unexpected `(`; expected `)`"
    assert d.hint == "check that every `(` has its `)`"


def test_p003_misspelt_section_gets_did_you_mean() -> None:
    d = only(
        '(define (template t) (:domain fdc-home) (:gaol (hand-empty)) (:instruction "x"))', "P003"
    )
    assert d.message.startswith("unexpected `:gaol`; expected `:ambiguity`, ")
    assert d.hint == "did you mean `:goal`?"


# ---------------------------------------------------------------------------- regressions


def test_g505_malformed_template_forms() -> None:
    cases = {
        "(forpairs (?a ?b - cup) (?c - plate) (on ?a ?s))": (
            "`forpairs` pairs one variable with one variable; this list has 2"
        ),
        "(targets () (interacted ?o) (robot-at-object ?o))": (
            "`targets` needs at least one variable to range over"
        ),
        "(at-least 1 () (holding ?o))": "`at-least` needs at least one variable to range over",
    }
    for goal, message in cases.items():
        d = only(template(goal, params="?o - movable ?s - surface"), "G505")
        assert d.message == message


def test_g505_constant_order_warns() -> None:
    goal = "(ordered-targets (?x - movable) 3 (interacted ?x) (robot-at-object ?x))"
    d = only(template(goal), "G505")
    assert d.severity is Severity.WARNING
    assert d.message.startswith("the order of `ordered-targets` does not depend on its variables")


def test_g503_empty_goal() -> None:
    d = only(template("()"), "G503")
    assert d.message == "template `t` has an empty goal"


def test_g503_empty_instruction_file(tmp_path: Path) -> None:
    t = tmp_path / "t.pddl"
    t.write_text(
        '(define (template t) (:domain fdc-home) (:goal (hand-empty)) (:instruction-file "t.j2"))'
    )
    (tmp_path / "t.j2").write_text("---\n\n---\n")
    [d] = check_paths([str(t)]).diagnostics
    assert (d.code, d.message) == ("G503", "instruction file `t.j2` holds no instruction")


def test_unknown_type_is_reported_once() -> None:
    codes = [d.code for d in run(template("(holding ?m)", params="?m - mugg ?o - movable"))]
    assert codes == ["N202"]


def test_a_definition_with_a_parse_problem_is_not_checked_further() -> None:
    codes = [d.code for d in run(template("(eventually (holding ?o))"))]
    assert codes == ["P106"]


def test_same_domain_twice_in_one_file() -> None:
    text = "(define (domain k) (:predicates (p)))\n(define (domain k) (:predicates (q)))"
    d = only(text, "N210")
    assert d.message == "domain `k` is defined again (first in x.pddl)"


def test_target_condition_is_named_as_such() -> None:
    goal = "(targets (?x - mug) (then (interacted ?x)) (robot-at-object ?x))"
    d = only(template(goal), "T305")
    assert d.message == "`then` is not allowed in the target condition in the goal of template `t`"


def test_did_you_mean_respects_the_expected_type() -> None:
    d = only(template("(has-color ?o violet)"), "N205")
    assert d.hint != "did you mean `left`?"


def test_level_and_version_messages() -> None:
    d = only(template("(holding ?o)", extra="(:level 2.0)"), "P107")
    assert d.message == "the level must be a whole number from 1 to 4, not `2.0`"
    d = only(template("(holding ?o)", extra="(:level 0)"), "P107")
    assert d.message == "the level must be a whole number from 1 to 4, not `0`"
    d = only(template("(holding ?o)", extra="(:version 0)"), "P107")
    assert d.message == "the version must be a whole number from 1 or more, not `0`"


def test_reserved_word_as_a_name_is_explained() -> None:
    d = only("(define (domain d) (:types targets))", "P003")
    assert d.hint.startswith("this word is reserved")


def test_jinja_location_case_hint_and_macros() -> None:
    text = _instruction("Take the object near {{ obj }}.")
    d = only(text, "J602")
    assert located(text, d) == "obj"
    d = only(_instruction("Take {{ PREV_OBJ }}."), "J602")
    assert d.hint == "names are lower case in fdc: write `prev_obj`"
    macro = "{% macro m(a) %}the {{ a | ref }}{% endmacro %}Take {{ m(prev_obj) }}."
    assert run(_instruction(macro)) == []


def test_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = check_paths([str(tmp_path)], builtin=False)
    assert result.usage_error
    assert [d.message for d in result.diagnostics] == ["no .pddl file in this folder"]


# ---------------------------------------------------------------------------- registry

MINI = """(define (domain mini)
  (:types movable surface)
  (:predicates (on ?o - movable ?s - surface) (holding ?o - movable ?x - movable)
               (glowing ?o - movable) (hand-empty))
  (:functions (interaction-order ?o - surface) (is-open ?o - movable)))
(define (template t) (:domain mini) (:parameters ?o - movable ?s - surface)
  (:goal (on ?o ?s)) (:instruction "Move {{ o | ref }} to {{ s | ref }}."))
"""


def test_r701_predicate_without_checker() -> None:
    d = only(MINI, "R701")
    assert d.message == "the domain predicate `glowing` has no checker"
    assert located(MINI, d) == "glowing"


def test_r702_function_checked_as_predicate() -> None:
    d = only(MINI, "R702")
    assert d.message.startswith("`is-open` is a function in the domain but its checker")


def test_r703_arity() -> None:
    d = only(MINI, "R703")
    assert d.message.startswith("`holding` takes 2 argument(s) in the domain but 1 in its checker")


def test_r704_parameter_type() -> None:
    d = only(MINI, "R704")
    assert d.message.startswith(
        "parameter 1 of `interaction-order` is `surface` in the domain but `movable`"
    )


def test_domains_without_templates_are_not_held_to_the_registry() -> None:
    assert run(MINI.split("(define (template")[0]) == []


def test_the_builtin_domain_agrees_with_the_registry() -> None:
    from fdc.compiler.check import TypeChecker

    [home] = LIBRARY
    checker = TypeChecker({home.path: home})
    result = check_sources([home])
    [unit] = result.units
    [domain] = unit.definitions
    assert isinstance(domain, A.Domain)
    info = checker.resolve_domain(domain, home.path)
    checker.check_registry(info)
    assert checker.diagnostics == []


def test_r705_domain_thresholds() -> None:
    text = MINI.replace(
        "(:functions", "(:thresholds (object_distance_m 1.5) (on_top_mm 0.1))\n  (:functions"
    )
    d = only(text, "R705")
    assert d.message == "unknown threshold `on_top_mm`"
    assert d.hint == "did you mean `on_top_m`?"


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("/etc/hostname", "it must be inside the template's folder"),
        ("../outside.j2", "it must be inside the template's folder"),
        ("/dev/stdin", "it must be inside the template's folder"),
        ("sub", "not a regular file"),
    ],
)
def test_j604_instruction_files_stay_in_the_templates_folder(
    tmp_path: Path, written: str, why: str
) -> None:
    folder = tmp_path / "templates"
    (folder / "sub").mkdir(parents=True)
    (tmp_path / "outside.j2").write_text("Go.\n")
    t = folder / "t.pddl"
    t.write_text(
        "(define (template t) (:domain fdc-home) (:goal (hand-empty))"
        f' (:instruction-file "{written}"))'
    )
    [d] = check_paths([str(t)]).diagnostics
    assert (d.code, d.message) == ("J604", f"cannot read instruction file `{written}`: {why}")
