"""PDDL 2.1's `<f-head>` is `(f t*)` or, for a 0-ary function, the bare symbol: real
domains write `(increase total-fuel-used (* (distance ?c1 ?c2) (slow-burn ?a)))`
(IPC 2002's zenotravel, time and numeric tracks). Bare 0-ary functions are accepted
wherever a function term is, and nowhere a function with parameters is."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.compiler.check import check_sources
from fdc.compiler.parse import parse_text
from fdc.compiler.printer import print_unit
from fdc.core.problems import Diagnostic, SourceFile

# The shape of IPC 2002's zenotravel (time): durative actions whose effects change a
# 0-ary function written bare, next to n-ary ones written with parentheses.
ZENO_TIME = """\
(define (domain zeno-time)
 (:requirements :durative-actions :typing :fluents)
 (:types aircraft person city - object)
 (:predicates (at ?x - (either person aircraft) ?c - city) (in ?p - person ?a - aircraft))
 (:functions (fuel ?a - aircraft) (distance ?c1 - city ?c2 - city)
             (slow-speed ?a - aircraft) (slow-burn ?a - aircraft)
             (capacity ?a - aircraft) (refuel-rate ?a - aircraft)
             (total-fuel-used) (boarding-time))
 (:durative-action board
  :parameters (?p - person ?a - aircraft ?c - city)
  :duration (= ?duration (boarding-time))
  :condition (and (at start (at ?p ?c)) (over all (at ?a ?c)))
  :effect (and (at start (not (at ?p ?c))) (at end (in ?p ?a))))
 (:durative-action fly
  :parameters (?a - aircraft ?c1 ?c2 - city)
  :duration (= ?duration (/ (distance ?c1 ?c2) (slow-speed ?a)))
  :condition (and (at start (at ?a ?c1))
                  (at start (>= (fuel ?a) (* (distance ?c1 ?c2) (slow-burn ?a)))))
  :effect (and (at start (not (at ?a ?c1))) (at end (at ?a ?c2))
               (at end (increase total-fuel-used (* (distance ?c1 ?c2) (slow-burn ?a))))
               (at end (decrease (fuel ?a) (* (distance ?c1 ?c2) (slow-burn ?a))))))
 (:durative-action refuel
  :parameters (?a - aircraft ?c - city)
  :duration (= ?duration (/ (- (capacity ?a) (fuel ?a)) (refuel-rate ?a)))
  :condition (and (at start (> (capacity ?a) (fuel ?a))) (over all (at ?a ?c)))
  :effect (at end (assign (fuel ?a) (capacity ?a)))))
"""

ZENO_PROBLEM = """\
(define (problem zeno-1) (:domain zeno-time)
 (:objects plane1 - aircraft person1 - person city0 city1 - city)
 (:init (at plane1 city0) (at person1 city0)
        (= (fuel plane1) 100) (= (capacity plane1) 200) (= (slow-speed plane1) 2)
        (= (slow-burn plane1) 1) (= (refuel-rate plane1) 5) (= (distance city0 city1) 10)
        (= (distance city1 city0) 10) (= (distance city0 city0) 0)
        (= (distance city1 city1) 0) (= total-fuel-used 0) (= (boarding-time) 1))
 (:goal (at person1 city1))
 (:metric minimize (+ (* 4 (total-time)) (* 5 total-fuel-used))))
"""


def check(*texts: str) -> list[Diagnostic]:
    sources = [SourceFile(f"f{i}.pddl", t) for i, t in enumerate(texts)]
    return check_sources(sources).diagnostics


def test_zenotravel_time_checks_clean() -> None:
    assert [(d.code, d.message) for d in check(ZENO_TIME, ZENO_PROBLEM) if d.is_error] == []


def test_zenotravel_time_round_trips() -> None:
    for text in (ZENO_TIME, ZENO_PROBLEM):
        parsed = parse_text(text, "z.pddl")
        assert parsed.unit is not None, parsed.diagnostics
        printed = print_unit(parsed.unit)
        again = parse_text(printed, "z.pddl")
        assert again.unit is not None and again.unit.definitions == parsed.unit.definitions


def test_a_bare_function_with_parameters_is_an_arity_error() -> None:
    text = ZENO_TIME.replace("(decrease (fuel ?a)", "(decrease fuel")
    found = [d for d in check(text) if d.is_error]
    assert [(d.code, d.message) for d in found] == [("T301", "`fuel` takes 1 argument(s), not 0")]
    assert "only a 0-ary function may be written without parentheses" in found[0].hint


def test_a_bare_name_that_is_no_function_is_still_refused() -> None:
    text = ZENO_TIME.replace("(increase total-fuel-used", "(increase plane")
    codes = {d.code for d in check(text) if d.is_error}
    assert "T305" in codes


_NAMES = st.text(string.ascii_lowercase, min_size=1, max_size=8).map(lambda s: f"f-{s}")


@settings(max_examples=50, deadline=None)
@given(name=_NAMES, op=st.sampled_from(["increase", "decrease", "assign", "scale-up",
                                          "scale-down"]),
       value=st.integers(0, 10**6), timed=st.booleans())
def test_bare_and_parenthesised_0ary_functions_check_alike(name: str, op: str, value: int,
                                                          timed: bool) -> None:
    def domain(head: str) -> str:
        effect = f"({op} {head} {value})"
        if timed:
            action = (f"(:durative-action a :parameters () :duration (= ?duration {head}) "
                      f":condition (at start (> {head} 0)) :effect (at end {effect}))")
        else:
            action = (f"(:action a :parameters () :precondition (>= {head} 0) "
                      f":effect {effect})")
        return (f"(define (domain d) (:requirements :fluents :durative-actions) "
                f"(:functions ({name})) {action})")

    bare = [(d.code, d.message) for d in check(domain(name)) if d.is_error]
    wrapped = [(d.code, d.message) for d in check(domain(f"({name})")) if d.is_error]
    assert bare == wrapped == []
