"""Minimal regression tests for the bugs the property tests (tests/compiler/test_fuzz_*.py)
found, all fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.compiler.check import check_sources
from fdc.compiler.parse import parse_text
from fdc.compiler.printer import print_unit
from fdc.core.limits import Limits
from fdc.core.problems import SourceFile
from tests.compiler.fuzzing import (
    assert_round_trip,
    assert_span_in,
    check_template_text,
    home_source,
)

PAREN_DEPTH = Limits().paren_depth  # the default: the cases below sit on either side of it


# ---------------------------------------------------------------------------- bugs found

# Minimal reproducers of what these tests found, all fixed; each stays as a regression
# test.


def test_overflowing_number_round_trips() -> None:
    """`1e400` is infinity, once printed as `inf` (which re-parses as a constant)."""
    text = "(define (problem p) (:domain d) (:init (= (f) 1e400)))\n"
    parsed = parse_text(text)
    assert parsed.unit is not None
    if not parsed.diagnostics:  # either reject the literal, or round-trip it
        assert_round_trip(parsed.unit, text)


def test_name_spans_survive_characters_that_grow_when_lowered() -> None:
    """`İ` lowers to two characters; spans once came from the lowered text."""
    text = (
        "; İ\n(define (template t) (:domain fdc-home) (:parameters ?o - mug)\n"
        '  (:goal (robot-at-objec ?o)) (:instruction "Go to {{ o | ref }}."))\n'
    )
    result = check_template_text(text)
    (d,) = result.errors
    assert d.code == "N203"
    assert text[d.span.start : d.span.end] == "robot-at-objec"


def test_p004_span_stays_inside_the_file() -> None:
    text = "(define"
    (d,) = parse_text(text).diagnostics
    assert d.code == "P004"
    assert 0 <= d.span.start <= d.span.end <= len(text)


def test_n202_points_at_the_type() -> None:
    text = (
        "(define (template t) (:domain fdc-home) (:parameters ?long-name - zz)\n"
        '  (:goal (holding ?long-name)) (:instruction "Hold {{ long_name }}."))\n'
    )
    found = [d for d in check_template_text(text).errors if d.code == "N202"]
    assert [text[d.span.start : d.span.end] for d in found] == ["zz"]


def test_instruction_file_variants_after_blank_lines_are_located(tmp_path: Path) -> None:
    content = "Go.\n---\n\n{{ zz_nothing }}\n"
    (tmp_path / "w.j2").write_text(content, encoding="utf-8")
    text = (
        "(define (template t) (:domain fdc-home) (:parameters) (:goal (hand-empty))\n"
        '  (:instruction-file "w.j2"))\n'
    )
    result = check_sources([SourceFile(str(tmp_path / "t.pddl"), text)], [home_source()])
    (d,) = result.errors
    assert d.code == "J602"
    assert content[d.span.start : d.span.end] == "zz_nothing"


def test_carriage_returns_in_instructions_keep_spans_in_the_file(tmp_path: Path) -> None:
    content = "\r{{ zz_nothing }}\n"
    (tmp_path / "w.j2").write_bytes(content.encode("utf-8"))
    text = (
        "(define (template t) (:domain fdc-home) (:parameters) (:goal (hand-empty))\n"
        '  (:instruction-file "w.j2"))\n'
    )
    result = check_sources([SourceFile(str(tmp_path / "t.pddl"), text)], [home_source()])
    (d,) = result.errors
    assert d.code == "J602"
    assert content[d.span.start : d.span.end] == "zz_nothing"


def test_instruction_file_name_with_nul_is_diagnosed() -> None:
    text = (
        "(define (template t) (:domain fdc-home) (:parameters) (:goal (hand-empty))\n"
        '  (:instruction-file "a\x00b"))\n'
    )
    result = check_template_text(text)
    assert [d.code for d in result.errors] == ["J604"]


def _nested(depth: int, op: str) -> str:
    goal = f"({op} " * depth + "(holding ?o)" + ")" * depth
    return (
        "(define (template t) (:domain fdc-home) (:parameters ?o - mug)\n"
        f'  (:goal {goal}) (:instruction "Hold {{{{ o | ref }}}}."))\n'
    )


@pytest.mark.parametrize("depth", [10, 100, 195, 197, 2_000, 20_000])
def test_deep_nesting_is_checked_or_diagnosed(depth: int) -> None:
    text = _nested(depth, "not")
    result = check_template_text(text)
    if depth + 3 <= PAREN_DEPTH:  # `(define`, `(:goal` and the atom's own parentheses
        assert result.units and result.errors == []
    else:
        [d] = result.errors
        assert (d.code, d.message) == \
            ("P005", f"parentheses nest more than {PAREN_DEPTH} deep here, the limit `paren_depth`")
        assert_span_in(d.span, text, d)


def test_what_checks_without_errors_prints() -> None:
    text = _nested(PAREN_DEPTH - 3, "not")
    result = check_template_text(text)
    assert result.errors == []
    (unit,) = result.units
    assert print_unit(unit)


def test_deep_asts_compare() -> None:
    text = _nested(PAREN_DEPTH - 3, "and")
    first, second = parse_text(text).unit, parse_text(text).unit
    assert first is not None and second is not None
    assert first.definitions == second.definitions


# Found by deeper random runs (`FDC_FUZZ_SCALE=30 FDC_FUZZ_RANDOM=1`) of the
# mutated-corpus property, which the derandomized default does not reach; fixed.


@pytest.mark.parametrize(
    "text",
    [
        "(define (problem p) (:init (a)))\n",
        '(define (template t) (:goal (a)) (:instruction "x"))\n',
    ],
    ids=["problem", "template"],
)
def test_a_definition_without_its_domain_round_trips(text: str) -> None:
    parsed = parse_text(text)
    assert parsed.unit is not None
    assert [d.code for d in parsed.diagnostics] == ["P110"]
    assert_round_trip(parsed.unit, text, {"P110"})


def test_function_types_round_trip() -> None:
    text = "(define (domain d) (:functions (f) - number (g) - t))\n"
    parsed = parse_text(text)
    assert parsed.unit is not None and parsed.diagnostics == []
    assert_round_trip(parsed.unit, text)
