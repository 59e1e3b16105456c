"""The one problem shape: its renderings, its order, and the record of each report."""

from __future__ import annotations

import json
import pickle

from fdc.compiler import validate
from fdc.core.problems import (
    Diagnostic,
    DiagnosticRecord,
    Severity,
    SourceFile,
    Span,
    count,
    error,
    has_errors,
    render_line,
    render_message,
    render_text,
    sort_key,
    to_finding_json,
    to_json,
    to_record,
    warning,
)
from fdc.evaluation import report

TEXT = "(define (domain d)\n  (:predicates (holdin ?o)))\n"
SOURCES = {"d.pddl": SourceFile("d.pddl", TEXT)}
START = TEXT.index("holdin")
IN_SOURCE = Diagnostic(Severity.ERROR, "N203", "unknown predicate `holdin`", file="d.pddl",
                       span=Span(START, START + 6), hint="did you mean `holding`?")


# ---------------------------------------------------------------------------- rendering


def test_a_text_source_problem_shows_its_line_and_a_caret() -> None:
    assert render_text(IN_SOURCE, SOURCES).splitlines() == [
        "d.pddl:2:17: error[N203]: unknown predicate `holdin`",
        "    2 |   (:predicates (holdin ?o)))",
        "                        ^~~~~~",
        "      = hint: did you mean `holding`?",
    ]


def test_without_its_source_a_problem_names_the_file_only() -> None:
    assert render_text(IN_SOURCE).splitlines() == [
        "d.pddl: error[N203]: unknown predicate `holdin`",
        "      = hint: did you mean `holding`?",
    ]


def test_a_long_line_is_shown_as_a_window_around_the_span() -> None:
    text = "x" * 150 + " bad " + "y" * 150
    d = Diagnostic(Severity.WARNING, "X1", "m", file="f", span=Span(151, 154))
    lines = render_text(d, {"f": SourceFile("f", text)}).splitlines()
    assert lines[0] == "f:1:152: warning[X1]: m"
    assert lines[1].startswith("    1 | …x") and lines[1].endswith("y…")
    shown = lines[1].removeprefix("    1 | ")
    caret = lines[2].index("^") - len("    1 | ")
    assert shown[caret:caret + 3] == "bad" and lines[2].endswith("^~~")


def test_a_json_problem_names_file_and_path() -> None:
    d = error("S010", "NaN and infinite numbers are not allowed", "objects[3].pose.position[2]",
              ["mug"])
    assert render_text(d) == ("objects[3].pose.position[2]: error[S010]: NaN and infinite "
                              "numbers are not allowed")
    assert render_text(d.in_file("bad.json")) == (
        "bad.json: objects[3].pose.position[2]: error[S010]: NaN and infinite numbers are "
        "not allowed")
    assert render_text(warning("W102", "floats")) == "warning[W102]: floats"


def test_in_file_keeps_a_file_the_problem_names() -> None:
    d = error("PN001", "cannot read the file", file="a.json")
    assert d.in_file("b.json") is d
    assert error("S000", "x").in_file("") == error("S000", "x")
    assert error("S000", "x").in_file("s.json").file == "s.json"


def test_a_fault_of_a_file_is_rendered_without_severity() -> None:
    d = error("T010", "NaN and infinite numbers are not allowed", "objects.mug.position[2]",
              line=4)
    assert render_message(d.in_file("run.jsonl")) == (
        "run.jsonl:4: objects.mug.position[2]: NaN and infinite numbers are not allowed")
    assert render_message(d) == "4: objects.mug.position[2]: NaN and infinite numbers are " \
        "not allowed"
    assert render_message(error("T000", "cannot read the file: gone", file="run.jsonl")) == \
        "run.jsonl: cannot read the file: gone"
    assert render_message(error("T001", "not valid JSON", line=3)) == "3: not valid JSON"


def test_a_bad_line_of_a_jsonl_file() -> None:
    assert render_line(error("schema", "Field required", "goal", line=3)) == \
        "line 3 at goal: Field required"
    assert render_line(error("schema", "not JSON: Expecting value (column 1)", line=7)) == \
        "line 7: not JSON: Expecting value (column 1)"


# ---------------------------------------------------------------------------- order, counts


def test_problems_sort_by_file_line_offset_path_then_code() -> None:
    def at(code: str, file: str = "a", start: int = -1, line: int | None = None,
           where: str = "") -> Diagnostic:
        return Diagnostic(Severity.ERROR, code, "m", file=file, span=Span(start, start),
                          line=line, where=where)

    shuffled = [at("B", file="b"), at("Z", line=2), at("Y", start=5), at("X", start=5),
                at("W", line=1, where="x"), at("V", line=1, where="a"), at("U")]
    assert [d.code for d in sorted(shuffled, key=sort_key)] == \
        ["U", "X", "Y", "V", "W", "Z", "B"]


def test_counts() -> None:
    found = [error("A", "x"), warning("B", "y"), Diagnostic(Severity.NOTE, "C", "z"),
             error("D", "w")]
    assert count(found) == (2, 1)
    assert has_errors(found) and not has_errors(found[1:3])
    assert [d.is_error for d in found] == [True, False, False, True]


def test_a_problem_is_plain_immutable_data() -> None:
    d = error("W", "m", "objects[0]", ["a", "b"], file="f", line=3, hint="h")
    assert d.entities == ("a", "b")  # any iterable of ids, kept as a tuple
    assert pickle.loads(pickle.dumps(d)) == d  # crosses process pools
    assert hash(d) == hash(error("W", "m", "objects[0]", ("a", "b"), file="f", line=3, hint="h"))


# ---------------------------------------------------------------------------- records


def test_the_check_report_record_has_lines_and_columns() -> None:
    record = to_record(IN_SOURCE, SOURCES)
    assert record == DiagnosticRecord(
        path="d.pddl", severity=Severity.ERROR, code="N203",
        message="unknown predicate `holdin`", hint="did you mean `holding`?",
        line=2, column=17, end_line=2, end_column=23)
    unlocated = Diagnostic(Severity.ERROR, "P001", "no such file or folder", file="nope.pddl")
    assert to_json(unlocated, SOURCES) == {
        "path": "nope.pddl", "severity": "error", "code": "P001",
        "message": "no such file or folder", "hint": ""}


def test_the_validation_report_record() -> None:
    d = error("goal-type", "unknown predicate", "goal", ["t1"], line=4, hint="h")
    assert validate.finding(d) == validate.Finding(
        code="goal-type", severity="error", message="unknown predicate", where="goal", hint="h")
    assert validate.finding(warning("unchecked-start", "m")).severity == "warning"


def test_the_evaluation_report_record_names_the_task() -> None:
    d = error("bad-line", "Field required", "frames", ["task-1"], line=3)
    assert report.finding(d) == report.Finding(
        severity="error", code="bad-line", message="Field required", task_id="task-1",
        line=3, where="frames")
    assert report.finding(warning("missing-prediction", "m")).task_id is None


def test_a_scene_finding_as_scene_inspect_prints_it() -> None:
    d = warning("W101", "furniture `a` and `b` interpenetrate", "objects[2]", ["a", "b"])
    assert json.dumps(to_finding_json(d)) == json.dumps({
        "severity": "warning", "code": "W101",
        "message": "furniture `a` and `b` interpenetrate", "path": "objects[2]",
        "objects": ["a", "b"], "file": ""})
