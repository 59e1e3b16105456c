"""Every help screen, read as a new user reads it: each command's help shown whole (not
cut, its words not eaten as markup), command descriptions that break only where the
screen is full, values named by what they are (never `<list[Path]>`, `<bool>`), the
commands in the panels of the three jobs; and text printed as it is."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterator

import pytest
import typer.main
from rich.console import Console
from rich.progress import TimeElapsedColumn, TimeRemainingColumn

from fdc.cli import app
from fdc.cli.common import console, progress_bar, stderr, table
from fdc.cli.help import paragraphs
from fdc.core.version import __version__
from tests.cli.helpers import runner

WIDTH = 100
_PYTHON_TYPE = re.compile(r"<(?:list\[|bool>|int>|float>|str>|path>|int range>|float range>)")
_BOX = re.compile(r"[│╭╮╰╯─]")


def _commands() -> Iterator[tuple[list[str], object]]:
    def walk(path: list[str], command: object) -> Iterator[tuple[list[str], object]]:
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk([*path, name], sub)

    yield from walk([], typer.main.get_command(app))


COMMANDS = list(_commands())


def _help(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text: str) -> str:
    return " ".join(_BOX.sub(" ", text).split())


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "fdc")
def test_help_screen(path: list[str]) -> None:
    command = dict((tuple(p), c) for p, c in COMMANDS)[tuple(path)]
    shown = _help(path)
    assert not _PYTHON_TYPE.search(shown), shown
    assert "…" not in shown
    flat = _flat(shown)
    help_text = paragraphs(getattr(command, "help", "") or "")
    first = help_text.split("\n\n")[0]
    assert " ".join(first.split()) in flat  # shown whole: not cut, no markup eaten
    for name, sub in getattr(command, "commands", {}).items():
        short = (sub.short_help or sub.help or "").split("\n\n")[0]
        assert " ".join(short.split()) in flat, name
    _no_early_breaks(shown)


def _no_early_breaks(shown: str) -> None:
    """In a panel of commands, a description goes on to the next line only when its
    next word would not fit on this one."""
    for panel_rows in _panels(shown):
        start = _description_column(panel_rows)
        if start is None:
            continue
        width = len(panel_rows[0])
        for line, following in itertools.pairwise(panel_rows):
            if following[:start].strip():  # the next row is a command of its own
                continue
            words = following[start:].split()
            if words:
                used = len(line.rstrip())
                assert used + 1 + len(words[0]) > width, (
                    f"broken early:\n{line}\n{following}")


def _panels(shown: str) -> Iterator[list[str]]:
    """The rows of each panel that lists commands."""
    rows: list[str] = []
    commands_panel = False
    for line in shown.splitlines():
        if line.startswith("╭"):
            rows, commands_panel = [], not any(
                w in line for w in ("Options", "Arguments"))
        elif line.startswith("╰"):
            if commands_panel and rows:
                yield rows
        elif line.startswith("│"):
            rows.append(line[2:-2].rstrip().ljust(len(line) - 4))


def _description_column(rows: list[str]) -> int | None:
    first = rows[0]
    m = re.match(r"(\S+\s+)", first)
    return m.end() if m else None


def test_commands_grouped_by_the_three_jobs() -> None:
    shown = _help([])
    panels = re.findall(r"╭─ ([^─]+?) ─", shown)
    assert panels == ["Options", "Write templates", "Compile suites", "Validate and evaluate",
                      "Formats and exchange"]
    order = [m for m in re.findall(r"│ (\S+) ", shown) if not m.startswith("-")]
    assert order[:5] == ["check", "fmt", "lsp", "compile", "explain"]


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"fdc {__version__}\n"


def test_text_printed_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    line = "suite.jsonl:100: error: [red]not markup[/red] :smile: [bold]"
    stderr().print(line)
    assert capsys.readouterr().err == line + "\n"


def test_tables_fold_instead_of_cutting() -> None:
    buffer = io.StringIO()
    out = console(file=buffer, width=30)
    shown = table("drops")
    shown.add_column("reason")
    shown.add_column("bindings")
    shown.add_row("interaction-order-is-ambiguous-between-two-objects", "12")
    out.print(shown)
    text = buffer.getvalue()
    assert "…" not in text
    assert "interaction-order-is-ambiguous-between-two-objects" in "".join(
        line.strip("│ ").split("│")[0].strip() for line in text.splitlines())


def test_progress_shows_elapsed_time_and_eta() -> None:
    bar = progress_bar(Console(file=io.StringIO()))
    kinds = {type(c) for c in bar.columns}
    assert {TimeElapsedColumn, TimeRemainingColumn} <= kinds
