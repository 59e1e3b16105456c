"""Problems: what every reader, pass and checker of fdc reports instead of raising.

All of them have one shape, `Diagnostic`: a severity, a stable code, a message, where the
problem is, a hint, and the entities it is about. Where is what the input allows:

- a text source (domains, templates): the `file` and a `span` of character offsets, cheap
  for passes to carry; `SourceFile` turns offsets into line and column, and `render_text`
  shows the line with a caret under the span, as compilers do;
- a line-oriented file (a suite, predictions, a trajectory): the `line`, from 1;
- a JSON document: `where`, the JSON path of the value (`objects[3].pose.position[2]`),
  of the whole document or inside the line.

`entities` are the ids a person looks up: the objects of a scene, the task of a
prediction, the predicate a checker disagrees on.

A `Diagnostic` is not serialised itself. Each public report keeps its record model, whose
JSON Schema belongs to its format (`fdc schema NAME`): `DiagnosticRecord` here for the
check report, `Finding` in `fdc.compiler.validate` (the validation report) and in
`fdc.evaluation.report` (the evaluation report). Each is built from a `Diagnostic` by one
function beside it (`to_record`; `validate.finding`, `report.finding`), and
`to_finding_json` is what `fdc scene inspect --format json` prints. The formats differ
(line and column; a task id; a JSON path alone), so one record per format keeps each as
documented while the problems themselves have one shape.

The text renderings are the ones fdc has always printed: `render_text` (severity, code
and message, located; then the source line and the hint, when there are),
`render_message` (a fault of a file, without severity: `file:LINE: PATH: message`) and
`render_line` (a bad line of a JSONL file the caller names: `line LINE at PATH: message`).
See docs/diagnostics.md.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, replace
from enum import StrEnum
from functools import cached_property
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict


class Span(NamedTuple):
    """Half-open character range `[start, end)` in the source text."""

    start: int
    end: int


NO_SPAN = Span(-1, -1)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem with an input, located as precisely as the input allows."""

    severity: Severity
    code: str
    message: str
    _: KW_ONLY
    #: The file concerned ("" when the caller names it: a reader given text, not a file).
    file: str = ""
    #: Character offsets in the text of `file` (text sources).
    span: Span = NO_SPAN
    #: The line, from 1 (line-oriented files; None: no one line).
    line: int | None = None
    #: The JSON path of the value concerned ("" for the whole document, or line).
    where: str = ""
    hint: str = ""
    #: Ids of the objects, tasks or predicates concerned.
    entities: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def in_file(self, file: str) -> Diagnostic:
        """This diagnostic located in `file`, unless it names its own."""
        return self if self.file or not file else replace(self, file=file)


def error(code: str, message: str, where: str = "", entities: Iterable[str] = (), *,
          file: str = "", line: int | None = None, hint: str = "") -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, file=file, line=line, where=where,
                      hint=hint, entities=tuple(entities))


def warning(code: str, message: str, where: str = "", entities: Iterable[str] = (), *,
            file: str = "", line: int | None = None, hint: str = "") -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, file=file, line=line, where=where,
                      hint=hint, entities=tuple(entities))


class SourceFile:
    """The text of one input file, with offset to line/column conversion."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text

    @classmethod
    def read(cls, path: str) -> SourceFile:
        """Read a template (or instruction) file as UTF-8; bytes that are not UTF-8 (in
        comments) become U+FFFD. A file that cannot be read raises `InputFileError`."""
        from fdc.core.inputs import InputKind, read_input_bytes

        data = read_input_bytes(path, InputKind.TEMPLATE)
        return cls(path, data.decode("utf-8", errors="replace"))

    @cached_property
    def _line_starts(self) -> list[int]:
        starts = [0]
        find = self.text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        return starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        if offset < 0:
            return (1, 1)
        offset = min(offset, len(self.text))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def line_text(self, line: int) -> str:
        starts = self._line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r")


#: Source lines longer than this are shown as a window around the span.
SHOWN_LINE = 100


def render_text(d: Diagnostic, sources: Mapping[str, SourceFile] | None = None) -> str:
    """`file:line:col: severity[CODE]: message` (`file:LINE`, `file: PATH` for problems
    located so), then the source line with a caret under the span when `sources` hold the
    file, then the hint."""
    src = (sources or {}).get(d.file)
    loc = src.position(d.span.start) if src is not None and d.span.start >= 0 else None
    place = f"{d.file}:{loc[0]}:{loc[1]}" if loc is not None else _file_line(d)
    head = ": ".join(x for x in (place, d.where) if x)
    prefix = f"{head}: " if head else ""
    out = [f"{prefix}{d.severity.value}[{d.code}]: {d.message}"]
    if loc is not None and src is not None:
        out += _excerpt(d.span, loc, src)
    if d.hint:
        out.append(f"      = hint: {d.hint}")
    return "\n".join(out)


def _file_line(d: Diagnostic) -> str:
    return ":".join(x for x in (d.file, str(d.line) if d.line else "") if x)


def _excerpt(span: Span, loc: tuple[int, int], src: SourceFile) -> list[str]:
    """The source line of a span, and a caret line under the span."""
    line, col = loc
    text = src.line_text(line).expandtabs(1)
    end_line, end_col = src.position(max(span.end - 1, span.start))
    width = (end_col - col + 1) if end_line == line else max(len(text) - col + 1, 1)
    gutter = f"{line:>5} | "
    caret = col - 1
    if len(text) > SHOWN_LINE:
        # A window of the long line around the span, its cuts marked with `…`.
        start = max(0, min(caret - SHOWN_LINE // 3, len(text) - SHOWN_LINE))
        shown = text[start : start + SHOWN_LINE]
        prefix = "…" if start > 0 else ""
        suffix = "…" if start + SHOWN_LINE < len(text) else ""
        text = prefix + shown + suffix
        caret = caret - start + len(prefix)
        width = min(width, len(prefix) + len(shown) - caret)
    return [f"{gutter}{text}", " " * (len(gutter) + caret) + "^" + "~" * max(width - 1, 0)]


def render_message(d: Diagnostic) -> str:
    """`file:LINE: PATH: message`, each part only when known: a fault of a file whose
    severity goes without saying (a trajectory that cannot be read)."""
    return ": ".join(x for x in (_file_line(d), d.where, d.message) if x)


def render_line(d: Diagnostic) -> str:
    """`line LINE at PATH: message`: a bad line of a JSONL file the caller names."""
    where = f" at {d.where}" if d.where else ""
    return f"line {d.line}{where}: {d.message}"


class DiagnosticRecord(BaseModel):
    """A diagnostic as `fdc check --format json` reports it: 1-based line and column."""

    model_config = ConfigDict(frozen=True)

    path: str
    severity: Severity
    code: str
    message: str
    hint: str = ""
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


def to_record(d: Diagnostic, sources: Mapping[str, SourceFile]) -> DiagnosticRecord:
    """A diagnostic of a text source as the check report records it: 1-based line and
    column of its span's start and end."""
    where: dict[str, int] = {}
    src = sources.get(d.file)
    if src is not None and d.span.start >= 0:
        line, col = src.position(d.span.start)
        end_line, end_col = src.position(d.span.end)
        where = {"line": line, "column": col, "end_line": end_line, "end_column": end_col}
    return DiagnosticRecord(
        path=d.file, severity=d.severity, code=d.code, message=d.message, hint=d.hint, **where
    )


def to_json(d: Diagnostic, sources: Mapping[str, SourceFile]) -> dict[str, Any]:
    """`to_record` as plain JSON data (unlocated fields left out)."""
    return to_record(d, sources).model_dump(mode="json", exclude_none=True)


def to_finding_json(d: Diagnostic) -> dict[str, Any]:
    """A diagnostic of a scene or an import as `fdc scene inspect --format json` prints it:
    `path` is the JSON path, `objects` the entities."""
    return {"severity": d.severity.value, "code": d.code, "message": d.message,
            "path": d.where, "objects": list(d.entities), "file": d.file}


def sort_key(d: Diagnostic) -> tuple[str, int, int, str, str]:
    """Reading order: by file, line, offset, JSON path, then code."""
    return (d.file, d.line or 0, d.span.start, d.where, d.code)


def count(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for d in diagnostics:
        if d.severity is Severity.ERROR:
            errors += 1
        elif d.severity is Severity.WARNING:
            warnings += 1
    return errors, warnings


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def did_you_mean(name: str, candidates: Sequence[str] | Iterable[str]) -> str:
    """A hint naming the closest candidate, or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""
