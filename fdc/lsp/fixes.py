"""Quick fixes for the checker's did-you-mean hints, and formatting with `fdc fmt`'s
printer. See docs/editor.md."""

from __future__ import annotations

import re
from typing import NamedTuple

from fdc.core.problems import Diagnostic, SourceFile, Span

#: The hints that name a replacement: `did_you_mean`'s, and the lower-case hint of an
#: instruction's name.
_SUGGESTION = re.compile(
    r"^did you mean `([^`]+)`\?$|^names are lower case in fdc: write `([^`]+)`$")
_FIRST_QUOTED = re.compile(r"`([^`]+)`")


class Fix(NamedTuple):
    """Replace `span` of the diagnostic's file by `text`."""

    title: str
    span: Span
    text: str


def quick_fix(d: Diagnostic, text: str) -> Fix | None:
    """The edit a diagnostic's hint proposes: the misspelt name (the first name its
    message quotes), found at or after the diagnostic's start, replaced by the name the
    hint suggests."""
    m = _SUGGESTION.match(d.hint)
    wrong = _FIRST_QUOTED.search(d.message)
    if m is None or wrong is None or d.span.start < 0:
        return None
    new = m.group(1) or m.group(2)
    old = wrong.group(1)
    line_end = text.find("\n", d.span.start)
    stop = max(d.span.end, len(text) if line_end < 0 else line_end)
    word = re.compile(r"(?<![\w\-?])" + re.escape(old) + r"(?![\w\-])", re.IGNORECASE)
    found = word.search(text, d.span.start, stop)
    if found is None:
        return None
    return Fix(f"Replace `{old}` with `{new}`", Span(found.start(), found.end()), new)


def formatted(path: str, text: str) -> str | None:
    """The file in canonical form (`fdc fmt`), or None when it does not parse."""
    from fdc.compiler.parse import parse_source
    from fdc.compiler.printer import print_unit

    result = parse_source(SourceFile(path, text))
    if result.unit is None or result.diagnostics:
        return None
    try:
        return str(print_unit(result.unit, comments_from=text))
    except RecursionError:
        return None
