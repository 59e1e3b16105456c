"""What every `fdc` command shares: exit codes, the error console, the output formats,
the checks of output options, and reading a suite or a scene the way a command reports a
bad one (exit 2, each problem located). See docs/cli.md."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.core.problems import Diagnostic
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


def console(*, stderr: bool = False, soft_wrap: bool = False, **options: Any) -> Console:
    """A console that prints text as it is: file content and locations are never read as
    rich markup (`[red]`), emoji codes (`suite.jsonl:100:`) or highlights; styles are
    given as `rich.text.Text`."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                   soft_wrap=soft_wrap, **options)


def stderr() -> Console:
    """The console for messages: standard error, text as it is, lines kept."""
    return console(stderr=True, soft_wrap=True)


def table(title: str, **options: Any) -> Table:
    """A table whose columns wrap (a long word is folded) instead of cutting a value
    short with `…`; add columns with `add_column` as usual, print it with
    `print_table`."""
    return _FoldingTable(title=title, title_justify="left", **options)


class _FoldingTable(Table):
    def add_column(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("overflow", "fold")
        super().add_column(*args, **kwargs)


#: Between two columns of a plain table.
_GAP = "  "


def print_table(out: Console, shown: Table) -> None:
    """Print a table the way every command prints one. On a terminal: a rich table whose
    cells fold onto more lines, never cut short with `…`. Elsewhere (a pipe, a file, a
    test's runner): plain text, one line a row, columns aligned with spaces and every
    cell whole however wide (`plain_table`), then a blank line, so rows stay distinct
    and `grep`, `cut` or a diff read them."""
    if out.is_terminal:
        for column in shown.columns:
            column.overflow = "fold"
            column.no_wrap = False
        out.print(shown)
        return
    out.print(plain_table(shown) + "\n", markup=False, emoji=False, highlight=False,
              soft_wrap=True)  # a blank line ends it: the next table's title stands apart


def plain_table(shown: Table) -> str:
    """The table as plain text: its title, a header line, a rule, the rows (a rule
    between sections), columns two spaces apart, right-justified where the column is;
    no cell is cut and a cell's line breaks become spaces."""

    def text(cell: object) -> str:
        raw = cell.plain if isinstance(cell, Text) else str(cell)
        return " ".join(raw.split("\n"))

    header = [text(c.header) for c in shown.columns]
    cells = [[text(x) for x in c.cells] for c in shown.columns]
    rows = [[cells[j][i] for j in range(len(cells))] for i in range(shown.row_count)]
    widths = [max([len(header[j]), *(len(r[j]) for r in rows)]) for j in range(len(header))]
    right = [c.justify == "right" for c in shown.columns]

    def line(values: Sequence[str]) -> str:
        return _GAP.join(v.rjust(w) if r else v.ljust(w)
                         for v, w, r in zip(values, widths, right, strict=True)).rstrip()

    rule = _GAP.join("-" * w for w in widths)
    out = [text(shown.title)] if shown.title else []
    if shown.show_header:
        out += [line(header), rule]
    for i, row in enumerate(rows):
        out.append(line(row))
        if shown.rows[i].end_section and i < len(rows) - 1:
            out.append(rule)
    return "\n".join(out)


class SpooledTable:
    """A table of any number of rows, printed as `print_table` prints one (columns
    left-justified) while memory holds only its column widths: each row waits in a
    temporary file until `print`. On a terminal the rows are shown as rich tables of at
    most `block` rows each; elsewhere the text is `plain_table`'s, byte for byte."""

    def __init__(self, title: str, columns: Sequence[str], block: int = 1000) -> None:
        import tempfile

        self.title = title
        self.columns = list(columns)
        self.widths = [len(c) for c in self.columns]
        self.block = block
        self.rows = 0
        # closed by `print`; an unnamed file, gone with the process after an error
        self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115

    def add_row(self, *cells: str | Text) -> None:
        """A row: plain strings, or `rich.text.Text` for styled cells."""
        import json

        plain = [" ".join((c.plain if isinstance(c, Text) else c).split("\n")) for c in cells]
        self.widths = [max(w, len(p)) for w, p in zip(self.widths, plain, strict=True)]
        marked = [c.markup if isinstance(c, Text) else None for c in cells]
        self._spool.write(json.dumps([plain, marked]) + "\n")
        self.rows += 1

    def _block(self) -> Table:
        shown = table(self.title)
        for column in self.columns:
            shown.add_column(column)
        return shown

    def print(self, out: Console) -> None:
        """Print the rows (then the spool is gone)."""
        import json

        with self._spool as spool:
            spool.seek(0)
            rows = (json.loads(line) for line in spool)
            if out.is_terminal:
                shown = self._block()
                for n, (plain, marked) in enumerate(rows):
                    if n and n % self.block == 0:
                        print_table(out, shown)
                        shown = self._block()
                    shown.add_row(*(Text.from_markup(m) if m is not None else p
                                    for p, m in zip(plain, marked, strict=True)))
                print_table(out, shown)
                return

            def line(values: Sequence[str]) -> str:
                return _GAP.join(v.ljust(w) for v, w in zip(values, self.widths,
                                                            strict=True)).rstrip() + "\n"

            write = out.file.write
            write((self.title + "\n" if self.title else "") + line(self.columns)
                  + _GAP.join("-" * w for w in self.widths) + "\n")
            for plain, _ in rows:
                write(line(plain))
            write("\n")
            out.file.flush()


def progress_bar(err: Console, *, transient: bool = True) -> Progress:
    """A progress bar on `err`: what it does, the bar, done of total, the time elapsed
    and the time left; shown only on a terminal."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    console=err, transient=transient, disable=not err.is_terminal)


def output_file(value: Path | None) -> Path | None:
    """The callback of an option naming a file to write: a path that exists and is not
    a regular file (a folder, a device, a fifo, a symlink to one) is a usage error (exit
    2, naming the option and the path) before any work is done."""
    from fdc.core.files import not_writable

    if value is not None and (why := not_writable(value)):
        raise typer.BadParameter(f"{value} {why}")
    return value


def output_folder(value: Path | None) -> Path | None:
    """The callback of an option naming a folder to write into: one that exists and is
    not a folder is a usage error (exit 2, naming the option and the path)."""
    from fdc.core.files import not_writable

    if value is not None and (why := not_writable(value, folder=True)):
        raise typer.BadParameter(f"{value} {why}")
    return value


def file_option(*names: str, help: str) -> Any:
    """A `typer.Option` naming a file to write, checked by `output_file`."""
    return typer.Option(*names, help=help, callback=output_file)


def folder_option(*names: str, help: str) -> Any:
    """A `typer.Option` naming a folder to write into, checked by `output_folder`."""
    return typer.Option(*names, help=help, callback=output_folder)


def input_or_exit(path: Path, what: str, err: Console) -> None:
    """Exit 2 unless `path` can be read as an input file, in the words of the one reader
    (`fdc.core.inputs`: missing, not a regular file), before a command starts work;
    `what` names the input ("the suite", "the scene file")."""
    from fdc.core.inputs import InputFileError, check_input_file

    try:
        check_input_file(path)
    except InputFileError as e:
        err.print(f"{path}: error: cannot read {what}: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None


def report_suite(suite: Path, err: Console, *, scenes: Sequence[Path] = (),
                 experiences: Sequence[Path] = (), keep_text: bool = False
                 ) -> tuple[ReopenedSuite, bool]:
    """The suite reopened (`scenes`, `experiences`: files given for its own; `keep_text`:
    its lines kept), and whether it had bad lines (each printed, located). A file that
    cannot be read, or is not UTF-8 text, exits 2 here."""
    from fdc.compiler.reopen import ReopenError, reopen_suite

    try:
        opened = reopen_suite(suite, scenes=scenes, experiences=experiences,
                              keep_text=keep_text)
    except ReopenError as e:
        err.print(f"{e.file}: error: {e.message}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    from fdc.core.problems import render_line

    for p in opened.problems:
        err.print(f"{suite}: error: {render_line(p)}", markup=False)
    return opened, bool(opened.problems)


def open_suite_or_exit(suite: Path, err: Console, *, scenes: Sequence[Path] = (),
                       experiences: Sequence[Path] = (), keep_text: bool = False
                       ) -> ReopenedSuite:
    """`report_suite`, exiting 2 when the suite has bad lines."""
    opened, bad = report_suite(suite, err, scenes=scenes, experiences=experiences,
                               keep_text=keep_text)
    if bad:
        raise typer.Exit(EXIT_USAGE)
    return opened


def report_findings(findings: Sequence[Diagnostic], file: str = "") -> None:
    """Each finding on its own line, located in `file` when it names no file itself."""
    from fdc.core.problems import render_text

    err = stderr()
    for f in findings:
        err.print(render_text(f.in_file(file)), markup=False)


def graph_or_exit(path: Path, mesh_roots: Sequence[Path] = ()) -> SceneGraph:
    """Load and build a scene (meshes may also lie in `mesh_roots`), or exit 2 with every
    finding of the file reported."""
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError, load_scene_graph

    try:
        return load_scene_graph(path, mesh_roots)
    except SceneLoadError as e:
        report_findings(e.findings, str(path))
        raise typer.Exit(EXIT_USAGE) from None


#: The options `fdc export vlm` and `fdc run-agent vlm` share: the frames directories and
#: how many frames a memory task shows.
FramesDirs = Annotated[list[Path] | None, typer.Option(
    "--frames", help="A frames directory (fdc-frames 1.0, `fdc render experience`); "
    "repeatable, matched to tasks by their experience's sha256.")]
MaxFrames = Annotated[int, typer.Option(
    min=1, help="Frames shown per memory task (sub-sampled evenly).")]
