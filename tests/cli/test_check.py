"""`fdc check` as a user runs it: output, JSON, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

from fdc.cli import app
from fdc.compiler.diagnostics import CheckReport
from tests.cli.helpers import REPO, runner, write

GOOD = """(define (template t)
  (:domain fdc-home)
  (:parameters ?o - movable)
  (:goal (holding ?o))
  (:instruction "Pick up {{ o | ref }}."))
"""


def test_check_clean_library_exits_0() -> None:
    result = runner.invoke(app, ["check", str(REPO / "domain"), str(REPO / "examples/templates")])
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output


def test_check_errors_exit_1_with_location(tmp_path: Path) -> None:
    path = write(tmp_path, "t.pddl", GOOD.replace("(holding ?o)", "(holdin ?o)"))
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 1
    assert f"{path}:4:11: error[N203]: unknown predicate `holdin`" in result.output
    assert "= hint: did you mean `holding`?" in result.output


def test_warnings_exit_0_unless_strict(tmp_path: Path) -> None:
    path = write(tmp_path, "t.pddl", GOOD.replace("?o - movable", "?o ?unused - movable"))
    assert runner.invoke(app, ["check", str(path)]).exit_code == 0
    assert runner.invoke(app, ["check", "--strict", str(path)]).exit_code == 1


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(tmp_path / "absent.pddl")])
    assert result.exit_code == 2
    assert "no such file or folder" in result.output


def test_no_arguments_is_a_usage_error() -> None:
    assert runner.invoke(app, ["check"]).exit_code == 2


def test_json_format(tmp_path: Path) -> None:
    path = write(tmp_path, "t.pddl", GOOD.replace("(holding ?o)", "(holding ?x)"))
    result = runner.invoke(app, ["check", "--format", "json", str(path)])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    CheckReport.model_validate(report)
    assert report["format_version"] == 1
    assert (report["errors"], report["warnings"], report["files"]) == (1, 0, 1)
    unbound = next(d for d in report["diagnostics"] if d["code"] == "V401")
    assert unbound == {
        "path": str(path),
        "severity": "error",
        "code": "V401",
        "message": "variable `?x` is not bound here",
        "hint": "bind it in `:parameters` or with a quantifier",
        "line": 4,
        "column": 19,
        "end_line": 4,
        "end_column": 21,
    }


def test_problems_find_their_domain_among_the_paths(tmp_path: Path) -> None:
    write(tmp_path, "domain.pddl", "(define (domain d) (:predicates (p ?x)))")
    write(
        tmp_path, "p1.pddl", "(define (problem p1) (:domain d) (:objects a) (:init) (:goal (p a)))"
    )
    assert runner.invoke(app, ["check", str(tmp_path)]).exit_code == 0
    alone = runner.invoke(app, ["check", str(tmp_path / "p1.pddl")])
    assert alone.exit_code == 1
    assert "unknown domain `d`" in alone.output
