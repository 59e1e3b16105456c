"""Problems: what every reader, pass and checker of fdc reports instead of raising.

A `Diagnostic` names its file, its span (as offsets, so passes stay cheap), a stable
code, a message and a hint. `SourceFile` turns offsets into line and column and renders
the source line with a caret under the span, as compilers do.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
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


class Diagnostic(BaseModel):
    """One finding, located in a source file."""

    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str
    message: str
    path: str
    span: Span = NO_SPAN
    hint: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


class SourceFile:
    """The text of one input file, with offset to line/column conversion."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text

    @classmethod
    def read(cls, path: str) -> SourceFile:
        """Read a file as UTF-8; bytes that are not UTF-8 (in comments) become U+FFFD."""
        with open(path, "rb") as f:
            data = f.read()
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


def _location(d: Diagnostic, sources: dict[str, SourceFile]) -> tuple[int, int] | None:
    src = sources.get(d.path)
    if src is None or d.span.start < 0:
        return None
    return src.position(d.span.start)


#: Source lines longer than this are shown as a window around the span.
SHOWN_LINE = 100


def render_text(d: Diagnostic, sources: dict[str, SourceFile]) -> str:
    """`path:line:col: severity[CODE]: message`, the line, a caret, the hint."""
    loc = _location(d, sources)
    where = d.path if loc is None else f"{d.path}:{loc[0]}:{loc[1]}"
    out = [f"{where}: {d.severity.value}[{d.code}]: {d.message}"]
    src = sources.get(d.path)
    if loc is not None and src is not None:
        line, col = loc
        text = src.line_text(line).expandtabs(1)
        end_line, end_col = src.position(max(d.span.end - 1, d.span.start))
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
        out.append(f"{gutter}{text}")
        out.append(" " * (len(gutter) + caret) + "^" + "~" * max(width - 1, 0))
    if d.hint:
        out.append(f"      = hint: {d.hint}")
    return "\n".join(out)


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



def to_record(d: Diagnostic, sources: dict[str, SourceFile]) -> DiagnosticRecord:
    """Locate a diagnostic: 1-based line and column of its span's start and end."""
    where: dict[str, int] = {}
    src = sources.get(d.path)
    if src is not None and d.span.start >= 0:
        line, col = src.position(d.span.start)
        end_line, end_col = src.position(d.span.end)
        where = {"line": line, "column": col, "end_line": end_line, "end_column": end_col}
    return DiagnosticRecord(
        path=d.path, severity=d.severity, code=d.code, message=d.message, hint=d.hint, **where
    )


def to_json(d: Diagnostic, sources: dict[str, SourceFile]) -> dict[str, Any]:
    """`to_record` as plain JSON data (unlocated fields left out)."""
    return to_record(d, sources).model_dump(mode="json", exclude_none=True)


def sort_key(d: Diagnostic) -> tuple[str, int, str]:
    return (d.path, d.span.start, d.code)


def count(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for d in diagnostics:
        if d.severity is Severity.ERROR:
            errors += 1
        elif d.severity is Severity.WARNING:
            warnings += 1
    return errors, warnings


def did_you_mean(name: str, candidates: Sequence[str] | Iterable[str]) -> str:
    """A hint naming the closest candidate, or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""
