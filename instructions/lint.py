"""Static checks of a template's Jinja instructions: parsed, never rendered.

Every name an instruction reads must be a template parameter (`?prev-obj` is
`prev_obj` in Jinja), a name the instruction binds itself (`{% for %}`, `{% set %}`),
or one of fdc's instruction globals; every filter must be Jinja's or fdc's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from fdc.core.problems import Diagnostic, Severity, Span, did_you_mean
from fdc.instructions.variants import Variant, jinja_name


@cache
def _environment() -> Any:
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment()


@cache
def known_filters() -> frozenset[str]:
    from jinja2.filters import FILTERS as JINJA_FILTERS

    from fdc.instructions.filters import FILTERS

    return frozenset(JINJA_FILTERS) | frozenset(FILTERS)


@cache
def fdc_filters() -> frozenset[str]:
    from fdc.instructions.filters import FILTERS

    return frozenset(FILTERS)


def _name_hint(name: str, params: dict[str, str], names_ok: frozenset[str]) -> str:
    if name.lower() in params:
        return f"names are lower case in fdc: write `{name.lower()}`"
    return did_you_mean(name, [*params, *names_ok]) or "parameters: " + (
        ", ".join(sorted(params)) or "none"
    )


@cache
def known_globals() -> frozenset[str]:
    from fdc.instructions.filters import GLOBALS

    return frozenset(_environment().globals) | frozenset(GLOBALS) | {"loop"}


_JINJA_BLOCK = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as Jinja counts lines


def _locate(variant: Variant, lineno: int, word: str) -> Span:
    """The span of `word` (a whole word inside `{{ }}` or `{% %}`) on line `lineno`."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(variant.raw))]
    lineno = min(max(lineno, 1), len(starts))
    begin = starts[lineno - 1]
    brk = _LINE_BREAK.search(variant.raw, begin)
    line = variant.raw[begin : brk.start() if brk else len(variant.raw)]
    start = variant.offset + begin
    if word:
        pattern = re.compile(r"(?<![\w.])" + re.escape(word) + r"(?!\w)")
        for block in _JINJA_BLOCK.finditer(line):
            m = pattern.search(line, block.start(), block.end())
            if m:
                return Span(start + m.start(), start + m.end())
    return Span(start, start + max(len(line), 1))


def lint_instructions(variants: Iterable[Variant], template: str, scope: Iterable[str],
                      problems: list[Diagnostic]) -> set[str]:
    """Report bad instructions of template `template` (its parameters `scope`, with `?`)
    in `problems`; return the parameters they mention."""
    from jinja2 import TemplateSyntaxError, nodes

    params = {jinja_name(p): p for p in scope}
    filters = known_filters()
    names_ok = known_globals()
    used: set[str] = set()
    for variant in variants:
        try:
            tree = _environment().parse(variant.text)
        except TemplateSyntaxError as e:
            _report(problems,
                Severity.ERROR,
                "J601",
                f"instruction is not valid Jinja: {e.message}",
                _locate(variant, e.lineno, ""),
                "placeholders look like `{{ name | filter }}`",
                file=variant.path,
            )
            continue
        bound = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
        bound |= {m.name for m in tree.find_all(nodes.Macro)}
        for n in tree.find_all(nodes.Name):
            if n.ctx != "load":
                continue
            if n.name in params:
                used.add(params[n.name])
            elif n.name not in bound and n.name not in names_ok:
                _report(problems,
                    Severity.ERROR,
                    "J602",
                    f"`{n.name}` in the instruction names no parameter of template "
                    f"`{template}`",
                    _locate(variant, n.lineno, n.name),
                    _name_hint(n.name, params, names_ok),
                    file=variant.path,
                )
        for f in tree.find_all(nodes.Filter):
            if f.name not in filters:
                _report(problems,
                    Severity.ERROR,
                    "J603",
                    f"unknown filter `{f.name}`",
                    _locate(variant, f.lineno, f.name),
                    did_you_mean(f.name, sorted(filters))
                    or "fdc's filters: "
                    + ", ".join(sorted(fdc_filters()))
                    + "; Jinja's built-in filters work too",
                    file=variant.path,
                )
    return used


def _report(problems: list[Diagnostic], severity: Severity, code: str, message: str,
            span: Span, hint: str, *, file: str) -> None:
    problems.append(Diagnostic(severity=severity, code=code, message=message, file=file,
                               span=span, hint=hint))


@cache
def names_used(text: str) -> frozenset[str]:
    """The names an instruction reads (parameters in Jinja spelling and globals)."""
    from jinja2 import nodes

    tree = _environment().parse(text)
    return frozenset(n.name for n in tree.find_all(nodes.Name) if n.ctx == "load")
