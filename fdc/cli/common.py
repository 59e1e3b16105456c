"""What every `fdc` command shares: the error console, and reading a suite the way a
command reports a bad one (exit 2 on a file it cannot read; each bad line located)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def stderr() -> Console:
    """The console for messages: standard error, no markup highlighting, lines kept."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def report_suite(suite: Path, err: Console) -> tuple[list[TaskRecord], bool]:
    """The suite's good records, and whether it had bad lines (each printed, located).
    A file that cannot be read, or is not UTF-8 text, exits 2 here."""
    from fdc.compiler.suite import read_suite
    from fdc.core.problems import render_line

    try:
        records, problems = read_suite(suite)
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        err.print(f"{suite}: error: cannot read the suite: {why}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    for p in problems:
        err.print(f"{suite}: error: {render_line(p)}", markup=False)
    return records, bool(problems)


def read_suite_or_exit(suite: Path, err: Console) -> list[TaskRecord]:
    """`report_suite`, exiting 2 when the suite has bad lines."""
    records, bad = report_suite(suite, err)
    if bad:
        raise typer.Exit(EXIT_USAGE)
    return records
