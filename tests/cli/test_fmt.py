"""`fdc fmt` as a user runs it: canonical form printed, checked, written; exit codes."""

from __future__ import annotations

from pathlib import Path

from fdc.cli import app
from tests.cli.helpers import REPO, runner, write


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
