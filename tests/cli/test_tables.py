"""Every table of the CLI through one helper (`print_table`): piped (not a terminal, 80
columns) a plain text table, one line a row, no cell cut (`fdc evaluate` printed
"inter…" twice, `fdc verify` folded a task id over three lines); on a terminal a rich
table that folds its cells and never cuts one short with `…`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.table import Table

from fdc.cli import app
from fdc.cli.common import console, plain_table, print_table, table
from tests.cli.helpers import REPO, runner

MEMORY = REPO / "domain" / "templates" / "memory"
NARROW = {"COLUMNS": "80"}


def run(*args: str | Path) -> str:
    result = runner.invoke(app, [str(a) for a in args], env=NARROW)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The apartment's unordered-revisit tasks (ids of 37 characters, template names of
    17) and the oracle's answers, with its recorded walks."""
    d = tmp_path_factory.mktemp("tables")
    run("compile", REPO / "examples" / "scenes" / "apartment.json",
        "-T", MEMORY / "unordered-revisit.pddl", "-T", MEMORY / "ordered-revisit.pddl",
        "--no-cache", "-o", d / "suite.jsonl")
    run("run-baseline", "oracle", d / "suite.jsonl", "-o", d / "preds.jsonl")
    return d


def _rows(output: str, first: str) -> list[str]:
    """The lines of the table whose first header cell is `first`, rules left out."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [first])
    out = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        if set(line) <= {"-", " "}:
            continue
        out.append(line)
    return out


def test_evaluate_piped_keeps_every_group_whole(answered: Path) -> None:
    out = run("evaluate", answered / "suite.jsonl", "-p", answered / "preds.jsonl")
    assert "…" not in out
    rows = _rows(out, "group")
    groups = [r.split()[0] for r in rows]
    assert {"ordered-revisit", "unordered-revisit", "all"} <= set(groups)
    assert len(groups) == len(set(groups)), rows  # rows told apart
    header = next(line for line in out.splitlines() if line.startswith("group"))
    assert header.split() == ["group", "tasks", "HL-SR", "HL-SPL", "DTG-SR", "SC-SR", "LL-SR",
                              "LL-SPL", "solvable"]


def test_verify_piped_prints_each_task_id_on_one_line(answered: Path) -> None:
    lines = (answered / "preds.jsonl").read_text().splitlines()
    task = re.findall(r'"task_id": "([^"]+)"', lines[0])[0]
    walk = answered / "preds.trajectories" / f"{task}.jsonl"
    out = run("verify", answered / "suite.jsonl", "-t", walk, "--task", task,
              "--scene", REPO / "examples" / "scenes" / "apartment.json")
    assert "…" not in out
    rows = _rows(out, "task")
    assert rows[0].split()[:2] == [task, "success"]  # the whole id, one line
    assert len(rows) == 1


def test_compile_piped_tables_are_plain(answered: Path, tmp_path: Path) -> None:
    out = run("compile", REPO / "examples" / "scenes" / "apartment.json",
              "-T", MEMORY / "unordered-revisit.pddl", "--no-cache", "--timings",
              "-o", tmp_path / "suite.jsonl")
    assert "…" not in out and "┃" not in out
    assert [r.split()[0] for r in _rows(out, "category")] == ["unordered-revisit", "all"]
    assert "pass" in out and "seconds" in out


def _wide() -> Table:
    shown = Table(title="wide")  # a plain rich table: its columns cut with `…` by default
    shown.add_column("task")
    shown.add_column("n", justify="right")
    for k in range(3):
        shown.add_row(f"a-very-long-task-identifier-of-the-suite-{k}" * 2, str(k))
    shown.add_section()
    shown.add_row("all", "3")
    return shown


def test_a_terminal_folds_and_never_cuts() -> None:
    buffer = io.StringIO()
    out = console(file=buffer, force_terminal=True, width=30, color_system=None)
    shown = Table(title="wide")  # a plain rich table: cut with `…` unless folded
    shown.add_column("task")
    long = "a-very-long-task-identifier-of-the-suite"
    shown.add_row(long)
    print_table(out, shown)
    text = buffer.getvalue()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 30
    cells = [line.strip("│ ") for line in text.splitlines() if line.startswith("│")]
    assert "".join(cells) == long  # folded over lines, whole


def test_plain_table_aligns_and_rules_sections() -> None:
    text = plain_table(_wide())
    lines = text.splitlines()
    assert lines[0] == "wide"
    assert lines[1].split() == ["task", "n"]
    assert len({len(line) for line in lines[3:6]}) == 1  # right-justified counts line up
    assert set(lines[6]) == {"-", " "}  # the section's rule
    assert lines[7].split() == ["all", "3"]
    folding = table("t")
    folding.add_column("x")
    folding.add_row("y")
    assert plain_table(folding).splitlines() == ["t", "x", "-", "y"]


def test_a_spooled_table_prints_as_a_held_one() -> None:
    """`SpooledTable` (`fdc verify`'s rows, any number of them, spooled to a file) prints
    the bytes `print_table` prints for the same rows held in a table; on a terminal, in
    rich tables of `block` rows."""
    from rich.text import Text

    from fdc.cli.common import SpooledTable

    rows = [(f"task-{k}" * (k + 1), Text("success", style="green") + " 50.0%", "line\nbreak")
            for k in range(5)]
    spooled, held = SpooledTable("verification", ("task", "result", "why"), block=2), \
        table("verification")
    for column in ("task", "result", "why"):
        held.add_column(column)
    for row in rows:
        spooled.add_row(*row)
        held.add_row(*row)
    piped, expected = io.StringIO(), io.StringIO()
    spooled.print(console(file=piped))
    print_table(console(file=expected), held)
    assert piped.getvalue() == expected.getvalue()
    assert "task-4task-4" in piped.getvalue() and "success 50.0%" in piped.getvalue()

    again = SpooledTable("verification", ("task", "result", "why"), block=2)
    for row in rows:
        again.add_row(*row)
    screen = io.StringIO()
    again.print(console(file=screen, force_terminal=True, width=200, color_system=None))
    text = screen.getvalue()
    assert text.count("verification") == 3  # 5 rows in blocks of 2
    assert all(f"task-{k}" in text for k in range(5)) and "…" not in text
