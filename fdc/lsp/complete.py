"""What completion offers where the cursor is: predicates after `(`, types after `-`,
variables in scope after `?`, sections after `(:`, constants in argument places, and
parameters, globals and filters inside an instruction's `{{ }}`. See docs/editor.md."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass

from fdc.compiler import ast as A
from fdc.compiler.check import DomainInfo
from fdc.compiler.lexer import COLON_KEYWORDS
from fdc.instructions.variants import jinja_name
from fdc.lsp.symbols import Kind, names
from fdc.lsp.workspace import Workspace, is_pddl

#: The sections of a template, in the order they are written.
TEMPLATE_SECTIONS = (":domain", ":category", ":level", ":tags", ":version", ":description",
                     ":parameters", ":constraints", ":goal", ":instruction",
                     ":instruction-file", ":ambiguity")

#: Forms a formula may start with.
FORMULA_WORDS = ("and", "or", "not", "imply", "exists", "forall", "at-least", "at-most",
                 "exactly", "forpairs", "fornpairs", "argmax", "argmin", "targets",
                 "ordered-targets", "then")


class ItemKind(enum.StrEnum):
    PREDICATE = "predicate"
    FUNCTION = "function"
    TYPE = "type"
    CONSTANT = "constant"
    VARIABLE = "variable"
    SECTION = "section"
    KEYWORD = "keyword"
    FILTER = "filter"
    PARAMETER = "parameter"


@dataclass(frozen=True)
class Item:
    label: str
    kind: ItemKind
    detail: str = ""


def complete(ws: Workspace, path: str, offset: int) -> list[Item]:
    """The completions at `offset` of `path`."""
    text = ws.text(path)
    in_jinja = _in_jinja(ws, path, text, offset) if is_pddl(path) else True
    if in_jinja:
        return _jinja_items(ws, path, offset, text)
    start = offset
    while start > 0 and text[start - 1] not in " \t\r\n()\";":
        start -= 1
    word = text[start:offset]
    before = text[:start].rstrip()
    info = ws.domain_at(path, offset)
    if word.startswith("?"):
        return _variables(ws, path, offset)
    if word.startswith(":"):
        d = ws.definition_at(path, offset)
        sections = TEMPLATE_SECTIONS if isinstance(d, A.Template) or d is None \
            else tuple(COLON_KEYWORDS)
        return [Item(s, ItemKind.SECTION) for s in sections]
    if info is None:
        return []
    if before.endswith("-") or before.endswith("(either"):
        return [Item(t, ItemKind.TYPE, _parent(info, t)) for t in sorted(info.parents)]
    if before.endswith("("):
        return [*_predicates(info), *(Item(w, ItemKind.KEYWORD) for w in FORMULA_WORDS)]
    return [*(Item(c.name, ItemKind.CONSTANT, " ".join(c.types) or "object")
              for c in info.constants.values()), *_variables(ws, path, offset)]


def _predicates(info: DomainInfo) -> list[Item]:
    out = []
    for name, p in sorted(info.predicates.items()):
        params = " ".join(f"{v.name} - {' '.join(v.types) or 'object'}" for v in p.parameters)
        out.append(Item(name, ItemKind.PREDICATE, f"({name} {params})".replace(" )", ")")))
    for name in sorted(info.functions):
        out.append(Item(name, ItemKind.FUNCTION, "numeric function"))
    return out


def _parent(info: DomainInfo, t: str) -> str:
    return "- " + " ".join(info.parents.get(t, ("object",)))


def _variables(ws: Workspace, path: str, offset: int) -> list[Item]:
    """The variables declared in the definition around `offset` before it (from the
    tokens, so a formula being typed still has them)."""
    d = ws.definition_at(path, offset)
    lo = d.span.start if d is not None else 0
    seen: dict[str, Item] = {}
    for n in names(ws.tokens(path)):
        if n.kind is Kind.VARIABLE and n.declares and lo <= n.span.start < offset:
            seen.setdefault(n.name, Item(n.name, ItemKind.VARIABLE))
    return list(seen.values())


def _in_jinja(ws: Workspace, path: str, text: str, offset: int) -> bool:
    """Inside `{{ }}` or `{% %}` of a string (a template's instruction), one being typed
    (not yet closed) included."""
    string_start, last_end = -1, 0
    for tok in ws.tokens(path):
        if tok.start_pos >= offset:
            break
        string_start = tok.start_pos if tok.type == "STRING" and offset < tok.end_pos else -1
        last_end = tok.end_pos
    if string_start < 0:
        # A string being typed stops the lexer: the text after the last token.
        string_start = text.find('"', last_end, offset)
        if string_start < 0 or last_end >= offset:
            return False
    return _in_jinja_file(text[string_start:offset], offset - string_start)


def _jinja_items(ws: Workspace, path: str, offset: int, text: str) -> list[Item]:
    from fdc.instructions.filters import FILTERS, GLOBALS
    from fdc.instructions.lint import known_filters

    if not is_pddl(path) and not _in_jinja_file(text, offset):
        return []
    if text[:offset].rstrip(" \t\r\n" + "abcdefghijklmnopqrstuvwxyz_0123456789").endswith("|"):
        return [Item(f, ItemKind.FILTER, "fdc" if f in FILTERS else "Jinja")
                for f in sorted(known_filters())]
    declared = _template_of(ws, path, offset).parameters
    params = [Item(jinja_name(p.name), ItemKind.PARAMETER, " ".join(p.types))
              for p in declared] or [Item(jinja_name(name), ItemKind.PARAMETER)
                                     for name in _typed_parameters(ws, path, offset)]
    return [*params, *(Item(g, ItemKind.VARIABLE, doc) for g, doc in GLOBALS.items())]


def _in_jinja_file(text: str, offset: int) -> bool:
    opened = max(text.rfind("{{", 0, offset), text.rfind("{%", 0, offset))
    return opened >= 0 and opened > max(text.rfind("}}", 0, offset), text.rfind("%}", 0, offset))


def _template_of(ws: Workspace, path: str, offset: int) -> A.Template:
    """The template whose instruction is at `offset` of `path` (inline, or its file)."""
    d = ws.definition_at(path, offset) if is_pddl(path) else None
    if isinstance(d, A.Template):
        return d
    for file, template in ws.templates():
        ref = template.instruction_file
        if ref is not None and os.path.normpath(
                os.path.join(os.path.dirname(file), ref.path)) == path:
            return template
    return _NO_TEMPLATE


def _typed_parameters(ws: Workspace, path: str, offset: int) -> list[str]:
    """The variables of the last `(:parameters ...)` before `offset`, from the tokens
    (a template whose instruction is being typed does not parse)."""
    toks = [t for t in ws.tokens(path) if t.start_pos < offset] if is_pddl(path) else []
    starts = [i for i, t in enumerate(toks) if t.type == "K_PARAMETERS"]
    found: list[str] = []
    if starts:
        for t in toks[starts[-1] + 1 :]:
            if t.type == "RPAR":
                break
            if t.type == "VAR":
                found.append(t.value)
    return found


_NO_TEMPLATE = A.Template(name="", domain=A.DomainRef(name=""))
