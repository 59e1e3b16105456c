"""Static checks of a template's Jinja instructions: parsed, never rendered.

Every name an instruction reads must be a template parameter (`?prev-obj` is
`prev_obj` in Jinja), a name the instruction binds itself (`{% for %}`, `{% set %}`),
or one of fdc's instruction globals; every filter must be Jinja's or fdc's. What the
render sandbox (`fdc.instructions.render`) would refuse is reported here, so that it
never first appears at compile: attributes and calls it forbids (J605), constants that
would build past the render limits (J606: `'x' * 10**9`, `range(10**9)`, a format width
of a billion), and macros that call themselves (J607).
See docs/instructions.md.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache
from typing import Any

from fdc.core.limits import Limits, current
from fdc.core.problems import Diagnostic, Severity, Span, did_you_mean
from fdc.instructions.filters import FILTERS, GLOBALS
from fdc.instructions.variants import Variant, jinja_name


@cache
def _environment() -> Any:
    from fdc.instructions.render import sandbox

    return sandbox()


@cache
def known_filters() -> frozenset[str]:
    from jinja2.filters import FILTERS as JINJA_FILTERS

    return frozenset(JINJA_FILTERS) | frozenset(FILTERS)


@cache
def fdc_filters() -> frozenset[str]:
    return frozenset(FILTERS)


def _name_hint(name: str, params: dict[str, str], names_ok: frozenset[str]) -> str:
    if name.lower() in params:
        return f"names are lower case in fdc: write `{name.lower()}`"
    return did_you_mean(name, [*params, *names_ok]) or "parameters: " + (
        ", ".join(sorted(params)) or "none"
    )


@cache
def known_globals() -> frozenset[str]:
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
                      problems: list[Diagnostic], single: Iterable[str] = ()) -> set[str]:
    """Report bad instructions of template `template` (its parameters `scope`, with `?`;
    `single`: those that hold one entity) in `problems`; return the parameters they
    mention."""
    params = tuple(sorted(scope))
    ones = frozenset(jinja_name(p) for p in single)
    used: set[str] = set()
    for variant in variants:
        found, mentioned = _lint_variant(variant, template, params, current(), ones)
        problems.extend(found)
        used |= mentioned
    return used


@lru_cache(maxsize=4096)
def _lint_variant(variant: Variant, template: str, scope: tuple[str, ...], limits: Limits,
                  single: frozenset[str] = frozenset()
                  ) -> tuple[tuple[Diagnostic, ...], frozenset[str]]:
    """One variant's problems and the parameters it mentions, under `limits` (those in
    effect). Cached: an editor checks the same instructions again after every change of
    their file (`fdc lsp`)."""
    from jinja2 import TemplateSyntaxError, nodes

    params = {jinja_name(p): p for p in scope}
    filters = known_filters()
    names_ok = known_globals()
    used: set[str] = set()
    problems: list[Diagnostic] = []
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
        return tuple(problems), frozenset(used)
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
    _sandbox_checks(tree, variant, problems)
    _grammar_checks(tree, variant, single, problems)
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
    return tuple(problems), frozenset(used)


#: Filters that write their own article or determiner.
_DETERMINERS = frozenset({"a", "an", "article", "the", "ref", "on", "off", "it", "all_the",
                          "join_list", "number_word"})
_ARTICLE_BEFORE = re.compile(r"(?:^|\s)(an?)\s+$", re.IGNORECASE)


def _grammar_checks(tree: Any, variant: Variant, single: frozenset[str],
                    problems: list[Diagnostic]) -> None:
    """J608: a literal 'a'/'an' before a placeholder (its sound is the value's: write
    `{{ x | a }}`); J609: a plural of a parameter that holds one entity."""
    from jinja2 import nodes

    for out in tree.find_all(nodes.Output):
        for before, node in zip(out.nodes, out.nodes[1:], strict=False):
            if not isinstance(before, nodes.TemplateData) or isinstance(node, nodes.TemplateData):
                continue
            m = _ARTICLE_BEFORE.search(before.data)
            if m is None or (isinstance(node, nodes.Filter) and node.name in _DETERMINERS):
                continue
            what = _placeholder_name(node)
            _report(problems, Severity.WARNING, "J608",
                    f"“{m.group(1)}” before a placeholder: the article depends on the "
                    "value's first sound (a mug, an apple)",
                    _locate(variant, node.lineno, what),
                    f"drop the “{m.group(1)}” and write `{{{{ {what or 'x'} | a }}}}`",
                    file=variant.path)
    for f in tree.find_all(nodes.Filter):
        if f.name != "plural" or not isinstance(f.node, nodes.Name) or \
                f.node.name not in single or f.args:
            continue
        _report(problems, Severity.WARNING, "J609",
                f"the plural of `{f.node.name}`, which holds one entity",
                _locate(variant, f.lineno, f.node.name),
                "one entity is singular: write `{{ " + f.node.name + " | ref }}`; for a "
                "set, inflect its category by the set's size (`{{ c | all_the(n_targets) "
                "}}`, `{{ c | plural(n_targets) }}`)", file=variant.path)


def _placeholder_name(node: Any) -> str:
    from jinja2 import nodes

    while isinstance(node, nodes.Filter | nodes.Getattr) and node.node is not None:
        node = node.node
    return node.name if isinstance(node, nodes.Name) else ""


@cache
def _forbidden_methods() -> frozenset[str]:
    """Methods the immutable sandbox refuses (they change a list, a dict, a set)."""
    from jinja2.sandbox import _mutable_spec

    return frozenset().union(*(names for _, names in _mutable_spec))


def _sandbox_checks(tree: Any, variant: Variant, problems: list[Diagnostic]) -> None:
    """J605-J607: what the render sandbox would refuse, found in the parsed tree."""
    from jinja2 import nodes

    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        attr = node.attr if isinstance(node, nodes.Getattr) else \
            node.arg.value if isinstance(node.arg, nodes.Const) and \
            isinstance(node.arg.value, str) else None
        if attr is None:
            continue
        if attr.startswith("_"):
            why = "attributes starting with `_` are internal"
        elif attr in _forbidden_methods():
            why = "instructions may not change a list, a dict or a set"
        else:
            continue
        _report(problems, Severity.ERROR, "J605",
                f"the instruction sandbox forbids `{attr}`: {why}",
                _locate(variant, node.lineno, attr),
                "an instruction reads its parameters' text (and `id`, `description`, "
                "`indefinite`) through filters", file=variant.path)
    for lineno, message in dict.fromkeys(_too_large(tree)):
        _report(problems, Severity.ERROR, "J606", message, _locate(variant, lineno, ""),
                "instructions are one short sentence; see docs/limits.md for the "
                "render limits", file=variant.path)
    for macro in _recursive_macros(tree):
        _report(problems, Severity.ERROR, "J607",
                f"macro `{macro.name}` calls itself (directly or through another macro)",
                _locate(variant, macro.lineno, macro.name),
                "the sandbox stops nested calls at the limit `render_depth`; write the "
                "text without recursion", file=variant.path)


def _too_large(tree: Any) -> Iterator[tuple[int, str]]:
    """Operations on constants the sandbox would refuse as past a render limit, with
    the sandbox's own message (its checks run on the constants, nothing is built)."""
    from jinja2 import nodes

    from fdc.instructions.render import RenderLimitError, static_budget

    check = static_budget()
    for node in tree.find_all((nodes.BinExpr, nodes.Call, nodes.Filter, nodes.Const)):
        try:
            if isinstance(node, nodes.BinExpr):
                left, right = _constant(node.left), _constant(node.right)
                if left is not None and right is not None:
                    check.binop(node.operator, left, right)
            elif isinstance(node, nodes.Const) and isinstance(node.value, str):
                if "{" in node.value or "%" in node.value:
                    check.format_string(node.value)
            elif not isinstance(node, nodes.Const):
                args = tuple(v for v in map(_constant, [*node.args, *(k.value for k in
                                                                    node.kwargs)])
                             if v is not None)
                ranged = isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) \
                    and node.node.name == "range"
                if ranged:
                    check.tick(max((a for a in args if isinstance(a, int)), default=0))
                else:
                    check.arguments(args)
        except RenderLimitError as e:
            yield node.lineno, f"the instruction would go past a render limit: {e}"
        check.steps = 0


def _constant(node: Any) -> Any:
    """A node's value when it is a constant number or string, or an arithmetic of
    constant numbers small enough to compute; else None."""
    from jinja2 import nodes

    from fdc.instructions.render import RenderLimitError, static_budget

    if isinstance(node, nodes.Const) and isinstance(node.value, int | float | str):
        return node.value
    if isinstance(node, nodes.Neg):
        value = _constant(node.node)
        return -value if isinstance(value, int | float) else None
    if isinstance(node, nodes.BinExpr) and node.operator in ("*", "**", "+", "-"):
        left, right = _constant(node.left), _constant(node.right)
        if not (isinstance(left, int | float) and isinstance(right, int | float)):
            return None
        try:
            static_budget().binop(node.operator, left, right)
            return _ARITHMETIC[node.operator](left, right)
        except (RenderLimitError, ArithmeticError):
            return None
    return None


_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul, "**": operator.pow, "+": operator.add, "-": operator.sub}


def _recursive_macros(tree: Any) -> list[Any]:
    """The macros that reach themselves through calls of macros."""
    from jinja2 import nodes

    macros = {m.name: m for m in tree.find_all(nodes.Macro)}
    calls = {name: {c.node.name for c in m.find_all(nodes.Call)
                    if isinstance(c.node, nodes.Name) and c.node.name in macros}
             for name, m in macros.items()}
    out = []
    for name, macro in macros.items():
        seen: set[str] = set()
        todo = list(calls[name])
        while todo:
            callee = todo.pop()
            if callee == name:
                out.append(macro)
                break
            if callee not in seen:
                seen.add(callee)
                todo.extend(calls[callee])
    return out


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


def name_spans(raw: str, name: str) -> Iterator[Span]:
    """Where instruction text `raw` reads `name` (a parameter in Jinja spelling): whole
    words inside `{{ }}` and `{% %}`, never an attribute (`x.name`) or a filter (`| name`).
    Offsets are into `raw`."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?!\w)")
    for block in _JINJA_BLOCK.finditer(raw):
        for m in pattern.finditer(raw, block.start(), block.end()):
            if not _after_pipe(raw, m.start()):
                yield Span(m.start(), m.end())


def word_at(raw: str, offset: int) -> tuple[Span, str, bool] | None:
    """The Jinja word under `offset` of instruction text `raw`, and whether it names a
    filter (it follows `|`); None outside `{{ }}` and `{% %}`."""
    for block in _JINJA_BLOCK.finditer(raw):
        if block.start() <= offset <= block.end():
            for m in re.finditer(r"\w+", raw[block.start() : block.end()]):
                start, end = block.start() + m.start(), block.start() + m.end()
                if start <= offset <= end:
                    return Span(start, end), m.group(0), _after_pipe(raw, start)
    return None


def _after_pipe(raw: str, start: int) -> bool:
    return raw[:start].rstrip().endswith("|")
