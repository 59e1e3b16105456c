"""Native counting: `at-least`/`at-most`/`exactly` over one fluent atom per candidate
ground to a count node, linear in the candidates, judged as the subset expansion was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.compiler import ast as A
from fdc.compiler.facts import TableFacts
from fdc.compiler.ground import ground
from fdc.compiler.parse import parse_text
from fdc.predicates import verify
from fdc.predicates.algebra import CountTooLarge, expand_count, expand_counts
from fdc.predicates.goal import FALSE, TRUE, GChecklist, GCount, Goal, GOr, atoms

REPO = Path(__file__).resolve().parents[2]
ITEMS = [f"x{i}" for i in range(6)]


def goal_of(text: str) -> A.Node:
    src = (f"(define (template t) (:domain d) (:parameters ?s - surface) (:goal {text}) "
           '(:instruction "x"))')
    unit = parse_text(src).unit
    assert unit is not None
    node = unit.definitions[0]
    assert isinstance(node, A.Template) and node.goal is not None
    return node.goal


def facts_with(red: frozenset[str], n: int = len(ITEMS)) -> TableFacts:
    return TableFacts(types={**{x: ("thing",) for x in ITEMS[:n]}, "s1": ("surface",)},
                      kinds={"is-red": "static"}, atoms={"is-red": [(x,) for x in red]})


def judge(goal: Goal | None, state: frozenset[str]) -> bool:
    if goal is None:
        return False
    return verify.evaluate(goal, 0, lambda a, _: a.args[0] in state and a.predicate == "on")


BODIES = ["(on ?x ?s)", "(and (is-red ?x) (on ?x ?s))", "(or (is-red ?x) (on ?x ?s))",
          "(and (not (is-red ?x)) (on ?x ?s))"]


@settings(max_examples=200, deadline=None)
@given(op=st.sampled_from(["at-least", "at-most", "exactly"]), n=st.integers(0, 7),
       body=st.sampled_from(BODIES), size=st.integers(0, len(ITEMS)),
       red=st.frozensets(st.sampled_from(ITEMS)),
       states=st.lists(st.frozensets(st.sampled_from(ITEMS)), min_size=1, max_size=8),
       negated=st.booleans())
def test_native_count_is_judged_as_the_expansion(
    op: str, n: int, body: str, size: int, red: frozenset[str],
    states: list[frozenset[str]], negated: bool,
) -> None:
    text = f"({op} {n} (?x - thing) {body})"
    text = f"(not {text})" if negated else text
    facts = facts_with(red, size)
    native = ground(goal_of(text), {"s": "s1"}, facts).goal
    old = ground(goal_of(text), {"s": "s1"}, facts, expand_counts=True).goal
    assert (native is None) == (old is None)
    if native is not None:  # linear: each candidate's atom at most once per count node
        assert sum(1 for _ in atoms(native)) <= 2 * size
    for state in [*states, frozenset(), frozenset(ITEMS)]:
        assert judge(native, state) == judge(old, state), (text, state)
        if native is not None:  # and its own expansion agrees too
            assert judge(expand_counts(native, 10_000), state) == judge(native, state)


def test_at_least_three_over_many_candidates_is_one_count_node() -> None:
    many = [f"x{i}" for i in range(300)]
    facts = TableFacts(types={**{x: ("thing",) for x in many}, "s1": ("surface",)})
    goal = ground(goal_of("(at-least 3 (?x - thing) (on ?x ?s))"), {"s": "s1"}, facts).goal
    assert isinstance(goal, GCount) and sorted(goal.items) == sorted(many)
    assert (goal.relation, goal.others, goal.op, goal.number) == ("on", ("s1",), "at-least", 3)
    with pytest.raises(CountTooLarge):  # what the expansion would need: C(300, 3) * 3
        expand_count(goal, 100_000)


def test_linear_counts_stay_junctions_and_exactly_one_is_a_node() -> None:
    facts = facts_with(frozenset(), 5)
    def grounded(text: str) -> Goal | None:
        return ground(goal_of(text), {"s": "s1"}, facts).goal
    assert isinstance(grounded("(at-least 1 (?x - thing) (on ?x ?s))"), GOr)
    assert grounded("(at-most 5 (?x - thing) (on ?x ?s))") == TRUE
    exactly = grounded("(exactly 2 (?x - thing) (on ?x ?s))")
    assert isinstance(exactly, GCount) and (exactly.op, exactly.number) == ("exactly", 2)
    # 20 clauses before: C(5, 2)*2 + C(5, 3)*3 = 50 atom occurrences, now 5
    assert sum(1 for _ in atoms(exactly)) == 5
    negated = grounded("(not (exactly 2 (?x - thing) (on ?x ?s)))")
    assert isinstance(negated, GOr) and {(p.op, p.number) for p in negated.parts
                                         if isinstance(p, GCount)} == {("at-most", 1),
                                                                       ("at-least", 3)}
    assert grounded("(exactly 6 (?x - thing) (on ?x ?s))") is None  # folds to false
    assert FALSE not in (exactly, negated)


def test_counts_of_other_ops_are_not_checklist_units() -> None:
    with pytest.raises(ValueError, match="checklist counts `at-least`"):
        GChecklist(propositions=(GCount(relation="on", items=("a", "b"), others=("s",),
                                        op="at-most", number=1),))
    with pytest.raises(ValueError, match="at least 1"):
        GCount(relation="on", items=("a",), number=0)


@pytest.mark.slow
def test_a_grounding_limit_is_located_by_line_and_column(tmp_path: Path) -> None:
    template = tmp_path / "big.pddl"
    template.write_text(
        "; a counting form that still expands (a disjunction per candidate)\n"
        "(define (template big-count)\n  (:domain fdc-home)\n  (:parameters ?s - surface)\n"
        "  (:goal\n    (at-least 3 (?x - movable) (or (on ?x ?s) (holding ?x))))\n"
        '  (:instruction "Put three things on {{ s | ref }}."))\n')
    out = subprocess.run(
        [sys.executable, "-m", "fdc", "compile", "--max-atoms", "5",
         "tests/golden/scenes/kitchen.json", "--templates", str(template),
         "-o", str(tmp_path / "suite.jsonl"), "--max-per-template", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    text = out.stdout + out.stderr
    assert "Traceback" not in text
    assert f"{template}:6:5: template `big-count`: grounding `at-least` needs" in \
        " ".join(text.split()), text
    assert " at 1" not in text  # no character offsets
