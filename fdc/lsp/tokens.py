"""Semantic tokens: what colours a file as PDDL and Jinja (names by what they are,
sections, strings with their `{{ }}` blocks, numbers and comments). See docs/editor.md."""

from __future__ import annotations

import re
from collections.abc import Iterator

from fdc.core.problems import Span
from fdc.lsp.symbols import Kind, names
from fdc.lsp.workspace import Workspace, is_pddl

#: The token types, in the order of the legend the server announces.
TOKEN_TYPES = ("keyword", "function", "type", "enumMember", "variable", "namespace",
               "property", "string", "number", "comment", "macro")
#: The modifiers of the legend.
TOKEN_MODIFIERS = ("declaration",)

_BY_KIND = {
    Kind.KEYWORD: "keyword", Kind.SECTION: "keyword", Kind.PREDICATE: "function",
    Kind.FUNCTION: "function", Kind.TYPE: "type", Kind.CONSTANT: "enumMember",
    Kind.VARIABLE: "variable", Kind.DOMAIN: "namespace", Kind.TEMPLATE: "namespace",
    Kind.PROBLEM: "namespace", Kind.VALUE: "property",
}
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_COMMENT = re.compile(r";[^\n]*")


def semantic_tokens(ws: Workspace, path: str) -> list[tuple[Span, str, bool]]:
    """Every coloured span of the file, in order: (span, token type, declares)."""
    text = ws.text(path)
    if not is_pddl(path):
        return [(s, "macro", False) for s in _jinja_blocks(text, 0, len(text))]
    toks = ws.tokens(path)
    out: list[tuple[Span, str, bool]] = []
    for n in names(toks, ws.domain_at(path, 0)):
        out.append((n.span, _BY_KIND[n.kind], n.declares))
    last = 0
    for tok in toks:
        out.extend((Span(m.start(), m.end()), "comment", False)
                   for m in _COMMENT.finditer(text, last, tok.start_pos))
        last = tok.end_pos
        if tok.type == "NUMBER":
            out.append((Span(tok.start_pos, tok.end_pos), "number", False))
        elif tok.type == "STRING":
            out.extend(_string(text, tok.start_pos, tok.end_pos))
    out.extend((Span(m.start(), m.end()), "comment", False)
               for m in _COMMENT.finditer(text, last))
    out.sort(key=lambda t: t[0].start)
    return out


def _string(text: str, start: int, end: int) -> Iterator[tuple[Span, str, bool]]:
    """A string, cut around its Jinja blocks."""
    pos = start
    for block in _jinja_blocks(text, start, end):
        if block.start > pos:
            yield Span(pos, block.start), "string", False
        yield block, "macro", False
        pos = block.end
    if end > pos:
        yield Span(pos, end), "string", False


def _jinja_blocks(text: str, start: int, end: int) -> Iterator[Span]:
    for m in _JINJA.finditer(text, start, end):
        yield Span(m.start(), m.end())
