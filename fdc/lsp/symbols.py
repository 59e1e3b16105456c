"""What each name of a file is, where it is declared, where it is used, and renames.

Names are classified from the lexer's tokens and the parenthesis around them (the head
of a form, the section it sits in, a `-` before a type), so a file that does not parse
while it is being typed still has its names; declarations are looked up in the resolved
domains of the workspace's check (`DomainInfo`) and in the AST.
See docs/editor.md.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator
from dataclasses import dataclass

from fdc.compiler import ast as A
from fdc.compiler.check import DomainInfo
from fdc.compiler.lexer import WORD_KEYWORDS, LexError, tokenize
from fdc.core.problems import Span
from fdc.instructions.lint import name_spans
from fdc.instructions.variants import jinja_name
from fdc.lsp.workspace import Tok, Workspace


class Kind(enum.StrEnum):
    PREDICATE = "predicate"
    FUNCTION = "function"
    TYPE = "type"
    CONSTANT = "constant"
    VARIABLE = "variable"
    DOMAIN = "domain"
    TEMPLATE = "template"
    PROBLEM = "problem"
    KEYWORD = "keyword"
    SECTION = "section"
    VALUE = "value"  # a template's category, tags, ambiguity; a threshold's name


@dataclass(frozen=True)
class Name:
    """One name token of a file: what it is, and whether it declares it."""

    kind: Kind
    name: str
    span: Span
    declares: bool = False


#: Forms whose first parenthesised list declares variables.
BINDERS = frozenset({"exists", "forall", "at-least", "at-most", "exactly", "forn", "forpairs",
                     "fornpairs", "argmax", "argmin", "targets", "ordered-targets"})
_DEFINES = {"DOMAIN": Kind.DOMAIN, "TEMPLATE": Kind.TEMPLATE, "PROBLEM": Kind.PROBLEM}
_LISTS = {":types": Kind.TYPE, ":constants": Kind.CONSTANT, ":objects": Kind.CONSTANT}
_VALUES = frozenset({":category", ":tags", ":ambiguity", ":thresholds", ":metric",
                     ":requirements", ":version", ":level"})
_NAMED = frozenset({"K_ACTION", "K_DURATIVE_ACTION"})  # `:action NAME`
_WORDS = frozenset(WORD_KEYWORDS.values())


def names(tokens: list[Tok], domain: DomainInfo | None = None) -> Iterator[Name]:
    """Every name token, classified. `domain` tells a function from a predicate."""
    frames: list[_Frame] = []  # one per open parenthesis
    prev: Tok | None = None
    for tok in tokens:
        ty = tok.type
        if ty == "LPAR":
            frames.append(_Frame("", prev.type if prev is not None else ""))
        elif ty == "RPAR":
            if frames:
                frames.pop()
        elif frames:
            is_head = prev is not None and prev.type == "LPAR"
            if is_head:
                frames[-1] = _Frame(tok.value, frames[-1].after)
            found = _classify(tok, is_head, frames, prev, domain)
            if found is not None:
                yield found
        prev = tok


@dataclass(frozen=True)
class _Frame:
    head: str  # the first token of the parenthesis ("" before it is read)
    after: str  # the type of the token before it (`K_PARAMETERS` in an action)


def _classify(tok: Tok, is_head: bool, frames: list[_Frame], prev: Tok | None,
              domain: DomainInfo | None) -> Name | None:
    span = Span(tok.start_pos, tok.end_pos)
    head = frames[-1].head
    parent = frames[-2].head if len(frames) > 1 else ""
    value: str = tok.value
    if tok.type == "VAR":
        declares = (head == ":parameters" or frames[-1].after == "K_PARAMETERS"
                    or (parent in BINDERS and head.startswith("?"))
                    or (not is_head and parent in (":predicates", ":functions")))
        return Name(Kind.VARIABLE, value, span, declares)
    if tok.type in _WORDS:
        return Name(Kind.KEYWORD, value, span)
    if tok.type.startswith("K_") or tok.type == "KEYWORD":
        return Name(Kind.SECTION, value, span)
    if tok.type != "NAME":
        return None
    if prev is not None and prev.type in _DEFINES and parent == "define":
        return Name(_DEFINES[prev.type], value, span, True)
    if is_head:
        if parent in (":predicates", ":functions"):
            kind = Kind.PREDICATE if parent == ":predicates" else Kind.FUNCTION
            return Name(kind, value, span, True)
        if parent in _VALUES:
            return Name(Kind.VALUE, value, span)
        if domain is not None and value in domain.functions:
            return Name(Kind.FUNCTION, value, span)
        return Name(Kind.PREDICATE, value, span)
    if (prev is not None and prev.type == "MINUS") or head == "either":
        return Name(Kind.TYPE, value, span)
    if head in _LISTS:
        return Name(_LISTS[head], value, span, True)
    if head == ":domain":
        return Name(Kind.DOMAIN, value, span)
    if head in _VALUES or (prev is not None and prev.type in _NAMED):
        return Name(Kind.VALUE, value, span)
    return Name(Kind.CONSTANT, value, span)


def name_at(ws: Workspace, path: str, offset: int) -> Name | None:
    """The name under `offset` (or just before it, where a cursor ends a word)."""
    domain = ws.domain_at(path, offset)
    for n in names(ws.tokens(path), domain):
        if n.span.start <= offset <= n.span.end:
            return n
    return None


# ---------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Location:
    path: str
    span: Span


def first_name(ws: Workspace, path: str, node: A.Node, name: str) -> Location:
    """Where `name` is first written inside `node`'s span (the node when it is not)."""
    for tok in ws.tokens(path):
        if tok.start_pos >= node.span.start and tok.value == name:
            if tok.start_pos > node.span.end:
                break
            return Location(path, Span(tok.start_pos, tok.end_pos))
    return Location(path, node.span)


def declaration(ws: Workspace, path: str, offset: int, n: Name) -> Location | None:
    """Where the name `n` (in `path` at `offset`) is declared."""
    if n.kind is Kind.VARIABLE:
        binder = variable_binder(ws, path, offset, n.name)
        return Location(path, binder[1].span) if binder else None
    if n.kind is Kind.DOMAIN:
        info = ws.domain_named(n.name)
        return first_name(ws, info.path, info.domain, n.name) if info else None
    if n.kind is Kind.TEMPLATE:
        found = ws.check().templates.get(n.name)
        return first_name(ws, found[0], found[1], n.name) if found else None
    info = ws.domain_at(path, offset)
    if info is None:
        return None
    node: A.Node | None = None
    if n.kind is Kind.PREDICATE:
        node = info.predicates.get(n.name)
    elif n.kind is Kind.FUNCTION:
        node = info.functions.get(n.name)
    elif n.kind is Kind.TYPE:
        node = next((t for t in info.domain.types if t.name == n.name), None)
    elif n.kind is Kind.CONSTANT:
        d = ws.definition_at(path, offset)
        objects = d.objects if isinstance(d, A.Problem) else ()
        obj = next((o for o in objects if o.name == n.name), None)
        if obj is not None:
            return Location(path, obj.span)
        node = info.constants.get(n.name)
    if node is None:
        return None
    if isinstance(node, A.TypedName):
        return Location(info.path, node.span)
    return first_name(ws, info.path, node, n.name)


# ---------------------------------------------------------------------------- variables


def _binders(node: A.Node) -> Iterator[tuple[A.Node, tuple[A.TypedName, ...]]]:
    """The nodes under `node` (itself included) that declare variables, with them."""
    for n in node.walk():
        if isinstance(n, A.Pairs):
            yield n, (*n.first, *n.second)
        elif isinstance(n, A.Exists | A.Forall | A.Count | A.Extreme | A.Targets):
            yield n, n.variables
        elif isinstance(n, A.Template | A.Action | A.DurativeAction | A.PredicateDef
                        | A.FunctionDef):
            yield n, n.parameters


def variable_binder(ws: Workspace, path: str, offset: int, name: str
                    ) -> tuple[A.Node, A.TypedName] | None:
    """The innermost node around `offset` that declares variable `name`, and the
    declaration."""
    d = ws.definition_at(path, offset)
    if d is None:
        return None
    best: tuple[A.Node, A.TypedName] | None = None
    for node, variables in _binders(d):
        if node.span.start <= offset <= node.span.end:
            decl = next((v for v in variables if v.name == name), None)
            if decl is not None and (best is None or node.span.start >= best[0].span.start):
                best = (node, decl)
    return best


def variable_spans(ws: Workspace, path: str, binder: A.Node, name: str) -> list[Span]:
    """Every `name` that `binder` binds: inside it, not inside a form that binds the
    same name again."""
    shadows = [n.span for n, vs in _binders(binder)
               if n is not binder and any(v.name == name for v in vs)]
    return [Span(t.start_pos, t.end_pos) for t in ws.tokens(path)
            if t.type == "VAR" and t.value == name
            and binder.span.start <= t.start_pos < binder.span.end
            and not any(s.start <= t.start_pos < s.end for s in shadows)]


def instruction_spans(ws: Workspace, path: str, template: A.Template, name: str
                      ) -> list[Location]:
    """Where the template's instructions (inline and in its instruction file) read the
    parameter `name`."""
    word = jinja_name(name)
    text = ws.text(path)
    out = [Location(path, Span(i.span.start + s.start, i.span.start + s.end))
           for i in template.instructions
           for s in name_spans(text[i.span.start : i.span.end], word)]
    ref = template.instruction_file
    if ref is not None:
        file = os.path.normpath(os.path.join(os.path.dirname(path), ref.path))
        out += [Location(file, s) for s in name_spans(ws.text(file), word)]
    return out


# ---------------------------------------------------------------------------- references


def references(ws: Workspace, path: str, offset: int, n: Name, *, declarations: bool = True
               ) -> list[Location]:
    """Every use of the name `n` (in `path` at `offset`): a variable in its scope (and
    a template parameter in the instructions); a predicate, function, type or constant
    in every file over the same domain; a domain in every file that names it."""
    if n.kind is Kind.VARIABLE:
        binder = variable_binder(ws, path, offset, n.name)
        if binder is None:
            return []
        node, decl = binder
        out = [Location(path, s) for s in variable_spans(ws, path, node, n.name)
               if declarations or s.start != decl.span.start]
        if isinstance(node, A.Template):
            out += instruction_spans(ws, path, node, n.name)
        return out
    info = ws.domain_named(n.name) if n.kind is Kind.DOMAIN else ws.domain_at(path, offset)
    if info is None:
        return []
    want = {n.kind, Kind.FUNCTION if n.kind is Kind.PREDICATE else n.kind}
    out = []
    for file in _files_over(ws, info):
        for m in names(ws.tokens(file), info):
            if (m.name == n.name and m.kind in want and (declarations or not m.declares)
                    and (n.kind is Kind.DOMAIN or ws.domain_at(file, m.span.start) is info)):
                out.append(Location(file, m.span))
    return out


def _files_over(ws: Workspace, info: DomainInfo) -> list[str]:
    """The domain's file and the workspace files that name the domain."""
    files = [info.path]
    for file in ws.files():
        unit = ws.unit(file)
        if file != info.path and unit is not None and any(
                not isinstance(d, A.Domain) and d.domain.name == info.domain.name
                for d in unit.definitions):
            files.append(file)
    return files


def rename(ws: Workspace, path: str, offset: int, new: str) -> list[tuple[Location, str]] | str:
    """The edits that rename the variable under `offset` to `new`, or why it cannot be."""
    n = name_at(ws, path, offset)
    if n is None or n.kind is not Kind.VARIABLE:
        return "only variables and template parameters can be renamed"
    new = new if new.startswith("?") else "?" + new

    try:
        toks = list(tokenize(new))
    except LexError:
        toks = []
    if len(toks) != 1 or toks[0].type != "VAR" or not jinja_name(new).isidentifier():
        return f"`{new}` is not a variable name (write `?name`: letters, digits, `-`, `_`)"
    new = new.lower()
    out: list[tuple[Location, str]] = []
    for loc in references(ws, path, offset, n):
        is_var = ws.text(loc.path)[loc.span.start : loc.span.end].startswith("?")
        out.append((loc, new if is_var else jinja_name(new)))
    return out
