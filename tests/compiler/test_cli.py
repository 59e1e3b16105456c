"""`fdc check` and `fdc fmt` as a user runs them: output, JSON, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.diagnostics import CheckReport

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]

GOOD = """(define (template t)
  (:domain fdc-home)
  (:parameters ?o - movable)
  (:goal (holding ?o))
  (:instruction "Pick up {{ o | ref }}."))
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


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


def test_fmt_prints_canonical_form(tmp_path: Path) -> None:
    path = write(tmp_path, "d.pddl", "(DEFINE (domain D) ; the domain\n(:PREDICATES (p ?x)   (q)))")
    result = runner.invoke(app, ["fmt", str(path)])
    assert result.exit_code == 0
    assert result.stdout == (
        "(define (domain d) ; the domain\n  (:predicates\n    (p ?x)\n    (q)))\n"
    )


def test_fmt_check_and_write(tmp_path: Path) -> None:
    path = write(tmp_path, "d.pddl", "(define (domain d) (:predicates (p)))")
    assert runner.invoke(app, ["fmt", "--check", str(path)]).exit_code == 1
    assert runner.invoke(app, ["fmt", "--write", str(path)]).exit_code == 0
    assert runner.invoke(app, ["fmt", "--check", str(path)]).exit_code == 0
    assert path.read_text() == "(define (domain d)\n  (:predicates\n    (p)))\n"


def test_fmt_syntax_error_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, "d.pddl", "(define (domain d)")
    result = runner.invoke(app, ["fmt", str(path)])
    assert result.exit_code == 2
    assert "error[P004]" in result.output


def test_fmt_keeps_the_repository_canonical() -> None:
    result = runner.invoke(app, ["fmt", "--check", str(REPO / "domain"), str(REPO / "examples")])
    assert result.exit_code == 0, result.output


def test_schema_command() -> None:
    result = runner.invoke(app, ["schema", "check-report"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "CheckReport"
    assert runner.invoke(app, ["schema", "nope"]).exit_code == 2


def test_fmt_write_keeps_permissions(tmp_path: Path) -> None:
    path = write(tmp_path, "d.pddl", "(define (domain d) (:predicates (p)))")
    path.chmod(0o644)
    assert runner.invoke(app, ["fmt", "--write", str(path)]).exit_code == 0
    assert path.stat().st_mode & 0o777 == 0o644


def test_fmt_keeps_comments_in_place(tmp_path: Path) -> None:
    text = "(define (domain d)\n (:types\n a - object ; the a type\n b - a))\n"
    path = write(tmp_path, "d.pddl", text)
    result = runner.invoke(app, ["fmt", str(path)])
    assert "    a - object ; the a type\n" in result.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "SUITE", "--trajectory", "SUITE"],
        ["run-baseline", "random", "SUITE", "-o", "OUT"],
        ["export", "partnr", "SUITE", "-o", "OUT"],
        ["export", "habitat", "SUITE", "-o", "OUT"],
    ],
)
def test_a_suite_that_is_not_text_is_an_input_error(command: list[str], tmp_path: Path) -> None:
    # every command reads a suite through one reader: bytes that are not UTF-8 used to
    # escape as a UnicodeDecodeError traceback from some of them
    suite = tmp_path / "suite.jsonl"
    suite.write_bytes(b"\xff\xfe\x00not utf-8\n")
    args = [str(suite) if a == "SUITE" else str(tmp_path / "out") if a == "OUT" else a
            for a in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "cannot read the suite: not UTF-8 text" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
