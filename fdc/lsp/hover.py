"""What a hover shows (Markdown): a predicate's signature, kind, thresholds and checker;
a type's ancestors; a constant's or variable's type; a template's card; a Jinja filter.
See docs/editor.md."""

from __future__ import annotations

import inspect
import os
from functools import cache
from pathlib import Path

from fdc.compiler import ast as A
from fdc.compiler.check import DomainInfo
from fdc.core.problems import Span
from fdc.domain import LIBRARY_ROOT
from fdc.instructions.filters import FILTERS, GLOBALS
from fdc.instructions.lint import word_at
from fdc.lsp.symbols import Kind, Name, declaration, name_at, variable_binder
from fdc.lsp.workspace import Workspace, is_pddl


def hover(ws: Workspace, path: str, offset: int) -> tuple[str, Span] | None:
    """The hover text at `offset` of `path`, and the span it is about."""
    jinja = _jinja_word(ws, path, offset)
    if jinja is not None:
        return jinja
    n = name_at(ws, path, offset)
    if n is None:
        return None
    info = ws.domain_at(path, offset)
    text = ""
    if n.kind in (Kind.PREDICATE, Kind.FUNCTION) and info is not None:
        text = predicate_text(info, n.name)
    elif n.kind is Kind.TYPE and info is not None:
        text = type_text(info, n.name)
    elif n.kind is Kind.CONSTANT and info is not None:
        text = _constant_text(ws, path, offset, n, info)
    elif n.kind is Kind.VARIABLE:
        binder = variable_binder(ws, path, offset, n.name)
        if binder is not None:
            text = f"```pddl\n{n.name} - {_types(binder[1].types)}\n```"
    elif n.kind is Kind.TEMPLATE:
        found = ws.check().templates.get(n.name)
        text = template_text(found[1]) if found else ""
    elif n.kind is Kind.DOMAIN:
        d = ws.domain_named(n.name)
        if d is not None:
            text = (f"domain `{n.name}`: {len(d.parents)} types, {len(d.predicates)} "
                    f"predicates, {len(d.constants)} constants\n\n{_where(d.path)}")
    if not text and n.kind is not Kind.TEMPLATE:
        d = ws.definition_at(path, offset)
        if isinstance(d, A.Template) and n.kind in (Kind.SECTION, Kind.VALUE, Kind.KEYWORD):
            text = template_text(d)
    return (text, n.span) if text else None


def predicate_text(info: DomainInfo, name: str) -> str:
    """A predicate's (or function's) declaration, kind, thresholds and checker."""
    from fdc.predicates.builtin import default_registry

    decl: A.PredicateDef | A.FunctionDef | None = (
        info.predicates.get(name) or info.functions.get(name))
    if decl is None:
        return ""
    params = " ".join(f"{p.name} - {_types(p.types)}" for p in decl.parameters)
    what = "function" if isinstance(decl, A.FunctionDef) else "predicate"
    lines = [f"```pddl\n({name}{' ' + params if params else ''})\n```"]
    registry = default_registry()
    if name not in registry:
        lines.append(f"{what} of domain `{info.domain.name}`; no fdc checker implements it")
        return "\n\n".join(lines)
    checker = registry.checker(name)
    lines.append(f"**{checker.kind.value}** {what} of domain `{info.domain.name}` "
                 f"({_KIND_WORDS[checker.kind.value]})")
    if checker.thresholds:
        overrides = {t.name: t.value for t in info.domain.thresholds}
        lines.append("thresholds: " + ", ".join(
            f"`{t}` = {overrides.get(t, default):g}"
            + (f" (default {default:g})" if t in overrides else "")
            for t, default in checker.thresholds.items()))
    if checker.doc:
        lines.append(checker.doc)
    elsewhere = elsewhere_notes().get(name)
    if elsewhere:
        lines.append(f"*elsewhere:* {elsewhere}")
    lines.append(f"checker: `{checker.module}.{checker.fn.__name__}`")
    return "\n\n".join(lines)


_KIND_WORDS = {
    "static": "a fact of the scene, decided at compile time",
    "history": "a fact of the experience log, decided at compile time",
    "fluent": "the world state, checked on snapshots at run time",
}


def type_text(info: DomainInfo, name: str) -> str:
    """A type, its ancestors nearest first, and the types right under it."""
    if not info.has_type(name):
        return ""
    chain = [name]
    while chain[-1] != "object":
        parents = info.parents.get(chain[-1], ("object",))
        chain.append(parents[0])
    children = sorted(t for t, ps in info.parents.items() if name in ps)
    lines = [f"type `{name}` of domain `{info.domain.name}`",
             "ancestors: " + " < ".join(f"`{t}`" for t in chain)]
    if children:
        lines.append("subtypes: " + ", ".join(f"`{t}`" for t in children))
    return "\n\n".join(lines)


def template_text(t: A.Template) -> str:
    """A template's card: its category, level, version, tags and description."""
    facts = [f"category `{t.category}`" if t.category else "",
             f"level {t.level}" if t.level is not None else "",
             f"version {t.version}",
             ("tags " + ", ".join(f"`{x}`" for x in t.tags)) if t.tags else ""]
    head = f"template `{t.name}` over domain `{t.domain.name}`"
    body = " · ".join(f for f in facts if f)
    params = " ".join(f"{p.name} - {_types(p.types)}" for p in t.parameters)
    out = [head, body, f"parameters: `{params}`" if params else ""]
    if t.description:
        out.append(t.description)
    return "\n\n".join(x for x in out if x)


def _constant_text(ws: Workspace, path: str, offset: int, n: Name, info: DomainInfo) -> str:
    loc = declaration(ws, path, offset, n)
    c = info.constants.get(n.name)
    if c is not None:
        return f"constant `{n.name} - {_types(c.types)}` of domain `{info.domain.name}`"
    if loc is not None:
        return f"object `{n.name}`"
    return ""


def filter_text(name: str) -> str:
    """A Jinja filter's signature and doc (fdc's own, or Jinja's built-in)."""
    from jinja2.filters import FILTERS as JINJA_FILTERS

    fn = FILTERS.get(name) or JINJA_FILTERS.get(name)
    if fn is None:
        return ""
    whose = "fdc" if name in FILTERS else "Jinja"
    try:
        sig = str(inspect.signature(fn))
    except (TypeError, ValueError):
        sig = "(...)"
    doc = inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0]
    return f"{whose} filter `{name}`\n\n```python\n{name}{sig}\n```\n\n{doc}"


def _jinja_word(ws: Workspace, path: str, offset: int) -> tuple[str, Span] | None:
    """A hover on a word inside an instruction: a filter, a parameter or a global."""
    start = 0
    text = ws.text(path)
    if is_pddl(path):
        d = ws.definition_at(path, offset)
        inside = [i.span for i in d.instructions] if isinstance(d, A.Template) else []
        found = next((s for s in inside if s.start < offset < s.end), None)
        if found is None:
            return None
        start = found.start
        text = text[found.start : found.end]
    word = word_at(text, offset - start)
    if word is None:
        return None
    span, name, is_filter = word
    span = Span(span.start + start, span.end + start)
    if is_filter:
        doc = filter_text(name)
        return (doc, span) if doc else None
    if name in GLOBALS:
        return f"instruction global `{name}`: {GLOBALS[name]}", span
    return None


def _types(types: tuple[str, ...]) -> str:
    if not types:
        return "object"
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


def _where(path: str) -> str:
    return f"`{os.path.basename(path)}`"


@cache
def elsewhere_notes() -> dict[str, str]:
    """Where FindingDory, ManiTaskGen or PARTNR define a predicate differently: the
    `elsewhere:` lines of docs/predicates.md, when fdc runs from a source checkout."""
    page = Path(LIBRARY_ROOT).parent / "docs" / "predicates.md"
    notes: dict[str, str] = {}
    try:
        lines = page.read_text(encoding="utf-8").splitlines()
    except OSError:
        return notes
    current = ""
    for line in lines:
        if line.startswith("### `") and line.endswith("`"):
            current = line[5:-1]
        elif current and line.startswith("- elsewhere: "):
            notes[current] = line[len("- elsewhere: "):]
    return notes
