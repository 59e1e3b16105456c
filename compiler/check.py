"""The resolve/typecheck pass: names, arities, types, variables and goal structure.

`check_units` takes every parsed file at once, so problems and templates find their
domain among the definitions given (and fdc's built-in domains). Every finding is a
`Diagnostic`; nothing here raises on bad input.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fdc.core.inputs import InputFileError
from fdc.core.problems import Diagnostic, Severity, SourceFile, did_you_mean, sort_key

from . import ast as A
from .parse import ParseResult, parse_source

ERROR, WARNING = Severity.ERROR, Severity.WARNING

#: Functions every planner knows without a declaration.
BUILTIN_FUNCTIONS = {"total-time": 0, "is-violated": 1}


# ---------------------------------------------------------------------------- domains


@dataclass
class DomainInfo:
    """A domain's resolved namespaces: types, constants, predicates, functions, actions."""

    domain: A.Domain
    path: str
    parents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    constants: dict[str, A.TypedName] = field(default_factory=dict)
    predicates: dict[str, A.PredicateDef] = field(default_factory=dict)
    functions: dict[str, A.FunctionDef] = field(default_factory=dict)
    _ancestors: dict[str, frozenset[str]] = field(default_factory=dict)

    def has_type(self, name: str) -> bool:
        return name == "object" or name in self.parents

    def ancestors(self, name: str) -> frozenset[str]:
        """`name` and every type above it (always including `object`)."""
        cached = self._ancestors.get(name)
        if cached is not None:
            return cached
        seen = {name, "object"}
        stack = [name]
        while stack:
            for parent in self.parents.get(stack.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        result = frozenset(seen)
        self._ancestors[name] = result
        return result

    def subtype(self, sub: Sequence[str], sup: Sequence[str]) -> bool:
        """Every type in `sub` (an `either`; `()` is object) lies under some type of `sup`."""
        if not sup or "object" in sup:
            return True
        subs = sub or ("object",)
        return all(any(s in self.ancestors(t) for s in sup) for t in subs)

    def overlaps(self, a: Sequence[str], b: Sequence[str]) -> bool:
        """Some entity could have both types (one lies under the other)."""
        if self.subtype(a, b) or self.subtype(b, a):
            return True
        a_set = a or ("object",)
        b_set = b or ("object",)
        return any(x in self.ancestors(y) or y in self.ancestors(x) for x in a_set for y in b_set)


def _a_type_hint(name: str, info: DomainInfo) -> str | None:
    """The hint for a type's name written where an entity goes (`counter`): a parameter
    of that type, which ranges over every entity of it, the category's furniture or
    rooms included."""
    if name == "object" or not info.has_type(name):
        return None
    letter = name[0] if name[0].isalpha() else "x"
    return (f"`{name}` is a type, not an entity: bind a parameter of it, `?{letter} - {name}`"
            f" (every {name})")


def _category_hint(name: str, info: DomainInfo, expected: Sequence[str]) -> str | None:
    """The hint for a category's word written where a template needs an entity of type
    `category` (`(category-of ?l lamp)`): categories are entities of the scene, named in
    a template by the type of the same word, or bound by a `category` parameter."""
    if "category" not in info.parents or not any(
            "category" in info.ancestors(t) or t in info.ancestors("category")
            for t in expected if info.has_type(t) and t != "object"):
        return None
    kinds = sorted(t for t in info.parents if t != "movable" and "movable" in info.ancestors(t))
    if name in kinds:
        word = name
    elif info.has_type(name):
        return None  # another type (`counter`): `_a_type_hint` says it
    else:
        close = difflib.get_close_matches(name, kinds, n=1, cutoff=0.6)
        if not close:
            return None
        word = close[0]
    letter = word[0]
    mean = "" if word == name else f"did you mean `{word}`? "
    return (f"{mean}a category is named by its type: `?{letter} - {word}` binds every {word}; "
            f"or bind `?c - category` for any category (docs/language.md, "
            "Naming a category)")


def _type_text(types: Sequence[str]) -> str:
    if not types:
        return "object"
    if len(types) == 1:
        return types[0]
    return "(either " + " ".join(types) + ")"


# ---------------------------------------------------------------------------- scopes


@dataclass
class _Var:
    types: tuple[str, ...]
    decl: A.TypedName
    used: bool = False
    report_unused: bool = True


@dataclass
class _Context:
    """Where a formula sits: which forms it may use."""

    where: str  # human words: "the precondition of action `move`"
    kind: str  # condition, effect, goal, init, constraint, duration, template-goal, binding
    objects: dict[str, A.TypedName]
    template: bool = False


# Which forms each kind of formula may contain.
_ALLOWED: dict[str, frozenset[type[A.Node]]] = {
    "condition": frozenset(
        {
            A.Atom,
            A.And,
            A.Or,
            A.Not,
            A.Imply,
            A.Exists,
            A.Forall,
            A.Comparison,
            A.Empty,
            A.Preference,
        }
    ),
    "effect": frozenset({A.Atom, A.And, A.Not, A.Forall, A.When, A.NumericEffect, A.Empty}),
    "init": frozenset({A.Atom, A.Not, A.Comparison, A.TimedLiteral}),
    "constraint": frozenset(
        {
            A.Atom,
            A.And,
            A.Or,
            A.Not,
            A.Imply,
            A.Exists,
            A.Forall,
            A.Comparison,
            A.Preference,
            A.Modal,
            A.Timed,
            A.Empty,
        }
    ),
    "duration": frozenset({A.And, A.Comparison, A.Timed, A.Empty}),
    "durative-condition": frozenset(
        {
            A.Atom,
            A.And,
            A.Or,
            A.Not,
            A.Imply,
            A.Exists,
            A.Forall,
            A.Comparison,
            A.Preference,
            A.Timed,
            A.Empty,
        }
    ),
    "durative-effect": frozenset(
        {A.Atom, A.And, A.Not, A.Forall, A.When, A.NumericEffect, A.Timed, A.Empty}
    ),
    "binding": frozenset(
        {
            A.Atom,
            A.And,
            A.Or,
            A.Not,
            A.Imply,
            A.Exists,
            A.Forall,
            A.Comparison,
            A.Count,
            A.Pairs,
            A.Extreme,
            A.Empty,
        }
    ),
    "template-goal": frozenset(
        {
            A.Atom,
            A.And,
            A.Or,
            A.Not,
            A.Imply,
            A.Exists,
            A.Forall,
            A.Comparison,
            A.Count,
            A.Pairs,
            A.Extreme,
            A.Targets,
            A.Then,
            A.Empty,
        }
    ),
}

_FORM_WORDS: dict[type[A.Node], str] = {
    A.Atom: "an atom",
    A.And: "`and`",
    A.Or: "`or`",
    A.Not: "`not`",
    A.Imply: "`imply`",
    A.Exists: "`exists`",
    A.Forall: "`forall`",
    A.When: "`when`",
    A.Comparison: "a numeric comparison",
    A.NumericEffect: "a numeric effect",
    A.Preference: "a preference",
    A.Timed: "a time specifier (`at start`, `at end`, `over all`)",
    A.TimedLiteral: "a timed literal",
    A.Modal: "a PDDL3 constraint operator",
    A.Count: "a counting quantifier",
    A.Pairs: "`forpairs`",
    A.Extreme: "`argmax`/`argmin`",
    A.Targets: "a multi-goal form (`targets`, `ordered-targets`)",
    A.Then: "`then`",
    A.Empty: "`()`",
}

_TEMPLATE_ONLY = (A.Count, A.Pairs, A.Extreme, A.Targets, A.Then)
_PDDL_ONLY = (A.Preference, A.Timed, A.TimedLiteral, A.Modal, A.NumericEffect, A.When)


def _compares_functions(info: DomainInfo, f: A.Atom, ctx: _Context) -> bool:
    """`(= ?duration boarding-time)`, `(= total-fuel-used limit)`: an `=` of two terms is
    a numeric comparison when a side is a bare name of a function that no object or
    constant is called (PDDL 2.1's `<f-head>` may be a bare 0-ary symbol)."""
    return f.predicate == "=" and len(f.args) == 2 and any(
        isinstance(a, A.Constant) and a.name in info.functions
        and a.name not in ctx.objects and a.name not in info.constants for a in f.args)


class TypeChecker:
    """Checks the definitions of a set of files against each other."""

    def __init__(self, sources: dict[str, SourceFile]) -> None:
        self.sources = sources
        self.diagnostics: list[Diagnostic] = []
        self.path = ""
        self._lower: dict[str, str] = {}

    # ------------------------------------------------------------------ reporting
    def report(
        self,
        severity: Severity,
        code: str,
        message: str,
        span: A.Span,
        hint: str = "",
        path: str | None = None,
    ) -> None:
        self.diagnostics.append(
            Diagnostic(
                severity=severity,
                code=code,
                message=message,
                file=path or self.path,
                span=span,
                hint=hint,
            )
        )

    def name_span(
        self, node: A.Node, name: str, path: str | None = None, end: int | None = None
    ) -> A.Span:
        """The span of `name` as a whole word, first found from `node`'s start.

        The search stops at `end`, or else at the node's end; a node whose span holds
        only its own name (a typed-list entry) is searched to the end of its line.
        """
        path = path or self.path
        src = self.sources.get(path)
        if src is None or node.span.start < 0:
            return node.span
        lower = self._lower.get(path)
        if lower is None:
            lower = self._lower[path] = _lower_keeping_offsets(src.text)
        stop = end if end is not None else node.span.end
        if stop <= node.span.start + len(name):
            line_end = lower.find("\n", node.span.start)
            stop = len(lower) if line_end < 0 else line_end
        pattern = re.compile(r"(?<![\w\-?])" + re.escape(name) + r"(?![\w\-])")
        m = pattern.search(lower, node.span.start, stop)
        return A.Span(m.start(), m.end()) if m else node.span

    def guarded(self, path: str, node: A.Node, check: Callable[..., None], *args: Any) -> None:
        """Run one definition's check; a formula nested beyond Python's stack is a finding."""
        try:
            check(*args)
        except RecursionError:
            self.report(
                ERROR,
                "P005",
                "this definition nests too deeply to check",
                node.span,
                "formulas nested hundreds deep are not supported; flatten them",
                path=path,
            )

    # ------------------------------------------------------------------ domains
    def resolve_domain(self, domain: A.Domain, path: str) -> DomainInfo:
        self.path = path
        info = DomainInfo(domain, path)
        self._declare_types(info)
        for c in domain.constants:
            self._check_types(info, c.types, c.span)
            if c.name in info.constants:
                self.report(
                    WARNING,
                    "N206",
                    f"constant `{c.name}` is declared twice",
                    c.span,
                    "drop one declaration",
                )
            info.constants[c.name] = c
        for p in domain.predicates:
            if p.name in info.predicates:
                self._duplicate("predicate", p.name, p, info.predicates[p.name])
                continue
            info.predicates[p.name] = p
            self._check_parameters(info, p.parameters, "predicate", p.name)
        for f in domain.functions:
            if f.name in info.functions:
                self._duplicate("function", f.name, f, info.functions[f.name])
                continue
            info.functions[f.name] = f
            self._check_parameters(info, f.parameters, "function", f.name)
            if f.type not in (("number",), ("int",), ("real",)):
                self._check_types(info, f.type, f.span)
        for d in domain.derived:
            name = d.predicate.name
            if name not in info.predicates:
                info.predicates[name] = d.predicate
        return info

    def _duplicate(self, kind: str, name: str, node: A.Node, first: A.Node) -> None:
        line = self._line_of(first)
        self.report(
            ERROR,
            "N206",
            f"{kind} `{name}` is defined twice",
            self.name_span(node, name),
            f"the first definition is on line {line}" if line else "",
        )

    def _line_of(self, node: A.Node, path: str | None = None) -> int:
        src = self.sources.get(path or self.path)
        if src is None or node.span.start < 0:
            return 0
        return int(src.position(node.span.start)[0])

    def _declare_types(self, info: DomainInfo) -> None:
        declared: dict[str, A.TypedName] = {}
        for t in info.domain.types:
            parents = t.types or ("object",)
            if t.name == "object":
                continue
            old = info.parents.get(t.name)
            if old is not None and set(old) != set(parents) and t.types:
                if old == ("object",):
                    info.parents[t.name] = parents
                else:
                    self.report(
                        WARNING,
                        "N207",
                        f"type `{t.name}` is declared again with parent "
                        f"`{_type_text(parents)}` (first: `{_type_text(old)}`)",
                        t.span,
                        "fdc takes both parents; declare the type once",
                    )
                    info.parents[t.name] = tuple(dict.fromkeys(old + parents))
            elif old is None:
                info.parents[t.name] = parents
            declared.setdefault(t.name, t)
        for t in info.domain.types:
            for parent in t.types:
                if not info.has_type(parent):
                    # Planners accept a parent type used without its own declaration.
                    self.report(
                        WARNING,
                        "N211",
                        f"type `{parent}` is used as the parent of `{t.name}` but never "
                        "declared; fdc declares it under `object`",
                        t.span,
                        did_you_mean(parent, list(info.parents))
                        or f"declare it: `{parent} - object`",
                    )
                    info.parents[parent] = ("object",)
        # Cycles: a type among its own proper ancestors.
        for name, node in declared.items():
            stack = list(info.parents.get(name, ()))
            seen: set[str] = set()
            while stack:
                ancestor = stack.pop()
                if ancestor == name:
                    self.report(
                        ERROR,
                        "N209",
                        f"type `{name}` is its own ancestor",
                        node.span,
                        "the type hierarchy must be a tree (or a DAG) rooted at `object`",
                    )
                    info.parents[name] = ("object",)
                    break
                if ancestor not in seen:
                    seen.add(ancestor)
                    stack.extend(info.parents.get(ancestor, ()))

    def _check_types(self, info: DomainInfo, types: Sequence[str], span: A.Span) -> None:
        for t in types:
            if not info.has_type(t):
                # The type follows the typed name: search from the name's end.
                node = A.TypedName.make(name="", types=(), span=A.Span(span.end, span.end))
                self.report(
                    ERROR,
                    "N202",
                    f"unknown type `{t}`",
                    self.name_span(node, t),
                    did_you_mean(t, [*info.parents, "object"])
                    or "declare it in the domain's `:types`",
                )

    def _check_parameters(
        self, info: DomainInfo, params: Sequence[A.TypedName], kind: str, owner: str
    ) -> None:
        seen: set[str] = set()
        for p in params:
            self._check_types(info, p.types, p.span)
            if p.name in seen:
                # In a declaration the names are placeholders, so a repeat is harmless.
                declaration = kind in ("predicate", "function", "derived predicate")
                self.report(
                    WARNING if declaration else ERROR,
                    "V404",
                    f"variable `{p.name}` appears twice in the parameters of {kind} `{owner}`",
                    p.span,
                    "rename one of them",
                )
            seen.add(p.name)

    def check_domain(self, info: DomainInfo) -> None:
        self.path = info.path
        domain = info.domain
        seen: dict[str, A.Node] = {}
        actions: list[A.Action | A.DurativeAction] = [*domain.actions, *domain.durative_actions]
        for action in actions:
            if action.name in seen:
                self._duplicate("action", action.name, action, seen[action.name])
            seen[action.name] = action
            self._check_parameters(info, action.parameters, "action", action.name)
            scope = self._scope(action.parameters)
            ctx_objects = info.constants
            if isinstance(action, A.Action):
                pairs = [
                    (action.precondition, "condition", "the precondition"),
                    (action.effect, "effect", "the effect"),
                ]
            else:
                pairs = [
                    (action.duration, "duration", "the duration"),
                    (action.condition, "durative-condition", "the condition"),
                    (action.effect, "durative-effect", "the effect"),
                ]
                scope["?duration"] = _Var((), A.TypedName.make(name="?duration"), True, False)
            for formula, kind, words in pairs:
                if formula is not None:
                    ctx = _Context(f"{words} of action `{action.name}`", kind, ctx_objects)
                    self.formula(info, formula, scope, ctx)
        for d in domain.derived:
            self._check_parameters(
                info, d.predicate.parameters, "derived predicate", d.predicate.name
            )
            scope = self._scope(d.predicate.parameters)
            ctx = _Context(f"derived predicate `{d.predicate.name}`", "condition", info.constants)
            self.formula(info, d.body, scope, ctx)
        if domain.constraints is not None:
            ctx = _Context(
                f"the constraints of domain `{domain.name}`", "constraint", info.constants
            )
            self.formula(info, domain.constraints, {}, ctx)

    @staticmethod
    def _scope(params: Iterable[A.TypedName], report_unused: bool = False) -> dict[str, _Var]:
        return {p.name: _Var(p.types, p, False, report_unused) for p in params}

    # ------------------------------------------------------------------ formulas
    def formula(
        self, info: DomainInfo, f: A.Node, scope: dict[str, _Var], ctx: _Context, top: bool = True
    ) -> None:
        if isinstance(f, A.Atom) and not ctx.template and _compares_functions(info, f, ctx):
            f = A.Comparison.make(op="=", left=f.args[0], right=f.args[1], span=f.span)
        kind = type(f)
        if kind not in _ALLOWED[ctx.kind]:
            self._misplaced(f, ctx)
        elif isinstance(f, A.Targets | A.Then) and not top:
            self.report(
                ERROR,
                "G501",
                f"{_FORM_WORDS[kind]} makes no sense here: multi-goal and sequence forms go "
                "at the top of a goal or directly inside `then`",
                f.span,
                "a negated, disjoint, conjoined or quantified set of targets has no defined "
                "stops; write the multi-goal form as the whole goal",
            )
        if isinstance(f, A.Atom):
            self.atom(info, f, scope, ctx)
        elif isinstance(f, A.And | A.Or):
            for part in f.parts:
                self.formula(info, part, scope, ctx, False)
        elif isinstance(f, A.Not):
            self.formula(info, f.body, scope, ctx, False)
        elif isinstance(f, A.Imply):
            self.formula(info, f.condition, scope, ctx, False)
            self.formula(info, f.consequence, scope, ctx, False)
        elif isinstance(f, A.Exists | A.Forall):
            inner = self._bind(info, f.variables, scope, "quantifier")
            self.formula(info, f.body, inner, ctx, False)
            self._unused(f.variables, inner)
        elif isinstance(f, A.When):
            cond_ctx = _Context(
                ctx.where,
                "condition" if ctx.kind == "effect" else "durative-condition",
                ctx.objects,
            )
            self.formula(info, f.condition, scope, cond_ctx, False)
            self.formula(info, f.effect, scope, ctx, False)
        elif isinstance(f, A.Comparison):
            self.numeric(info, f.left, scope, ctx)
            self.numeric(info, f.right, scope, ctx)
        elif isinstance(f, A.NumericEffect):
            # PDDL 2.1's <f-head> is `(f t*)` or a bare 0-ary function symbol:
            # `(increase total-fuel-used 3)`.
            bare = isinstance(f.target, A.Constant) and f.target.name in info.functions
            if not isinstance(f.target, A.FunctionTerm) and not bare:
                self.report(
                    ERROR,
                    "T305",
                    f"`{f.op}` needs a function term to change, as in `({f.op} (total-cost) 1)`",
                    f.target.span,
                )
            self.numeric(info, f.target, scope, ctx)
            self.numeric(info, f.value, scope, ctx)
        elif isinstance(f, A.Preference | A.Timed | A.TimedLiteral):
            self.formula(info, f.body, scope, ctx, False)
        elif isinstance(f, A.Modal):
            for part in f.parts:
                self.formula(info, part, scope, ctx, False)
        elif isinstance(f, A.Count):
            self._needs_variables(f, f.variables, f.op)
            inner = self._bind(info, f.variables, scope, "quantifier")
            self.formula(info, f.body, inner, ctx, False)
            self._unused(f.variables, inner)
        elif isinstance(f, A.Pairs):
            word = "forpairs" if f.n is None else "fornpairs"
            for group in (f.first, f.second):
                if len(group) != 1:
                    self.report(
                        ERROR,
                        "G505",
                        f"`{word}` pairs one variable with one variable; this list has "
                        f"{len(group)}",
                        f.span,
                        f"write `({word} (?a - type1) (?b - type2) φ)`",
                    )
            inner = self._bind(info, (*f.first, *f.second), scope, "quantifier")
            self.formula(info, f.body, inner, ctx, False)
            self._unused((*f.first, *f.second), inner)
        elif isinstance(f, A.Extreme):
            self.term(info, f.target, (), scope, ctx, f"the target of `{f.op}`")
            inner = self._bind(info, f.variables, scope, "quantifier")
            self.numeric(info, f.key, inner, ctx)
            if f.condition is not None:
                self.formula(info, f.condition, inner, ctx, False)
            self._unused(f.variables, inner)
            self._extreme_target(info, f, scope)
        elif isinstance(f, A.Targets):
            word = "targets" if f.order is None else "ordered-targets"
            self._needs_variables(f, f.variables, word)
            inner = self._bind(info, f.variables, scope, "quantifier")
            if f.order is not None:
                self.numeric(info, f.order, inner, ctx)
                names = {v.name for v in f.variables}
                if not any(isinstance(n, A.Variable) and n.name in names for n in f.order.walk()):
                    self.report(
                        WARNING,
                        "G505",
                        "the order of `ordered-targets` does not depend on its variables, so "
                        "every target ties",
                        f.order.span,
                        "order by a function of the targets, as `(interaction-order ?x)`",
                    )
            bind_ctx = _Context(
                f"the target condition in {ctx.where}", "binding", ctx.objects, ctx.template
            )
            self.formula(info, f.condition, inner, bind_ctx, False)
            self.formula(info, f.goal, inner, ctx, False)
            self._unused(f.variables, inner)
        elif isinstance(f, A.Then):
            for step in f.steps:
                self.formula(info, step, scope, ctx, True)

    def _needs_variables(self, f: A.Node, variables: Sequence[A.TypedName], word: str) -> None:
        if not variables:
            self.report(
                ERROR,
                "G505",
                f"`{word}` needs at least one variable to range over",
                f.span,
                f"write `({word} ... (?x - type) ...)`",
            )

    def _extreme_target(self, info: DomainInfo, f: A.Extreme, scope: dict[str, _Var]) -> None:
        """The target's type must be able to hold the quantified variable's values."""
        if len(f.variables) != 1:
            self.report(
                ERROR,
                "G505",
                f"`{f.op}` ranges over exactly one variable, not {len(f.variables)}",
                f.span,
                f"write `({f.op} ?o (?x - type) key condition)`",
            )
            return
        var = f.variables[0]
        target_types = self._term_types(info, f.target, scope)
        if target_types is not None and not info.overlaps(target_types, var.types):
            self.report(
                ERROR,
                "T302",
                f"the target `{_term_name(f.target)}` is a `{_type_text(target_types)}`, "
                f"but `{f.op}` ranges over `{_type_text(var.types)}`",
                f.target.span,
            )

    def _misplaced(self, f: A.Node, ctx: _Context) -> None:
        word = _FORM_WORDS.get(type(f), type(f).__name__)
        span = f.span
        if isinstance(f, _TEMPLATE_ONLY) and not ctx.template:
            self.report(
                ERROR,
                "G502",
                f"{word} is an fdc template form; it is not allowed in {ctx.where}",
                span,
                "counting, arg-extreme, multi-goal and `then` forms belong to "
                "`(define (template ...))` goals and constraints",
            )
        elif isinstance(f, _PDDL_ONLY) and ctx.template:
            self.report(
                ERROR,
                "G504",
                f"{word} is not supported in {ctx.where}",
                span,
                "fdc compiles classical goals over fluent, static and history predicates",
            )
        else:
            self.report(
                ERROR,
                "T305",
                f"{word} is not allowed in {ctx.where}",
                span,
                _PLACE_HINTS.get(ctx.kind, ""),
            )

    def _bind(
        self, info: DomainInfo, variables: Sequence[A.TypedName], scope: dict[str, _Var], what: str
    ) -> dict[str, _Var]:
        inner = dict(scope)
        seen: set[str] = set()
        for v in variables:
            self._check_types(info, v.types, v.span)
            if v.name in seen:
                self.report(
                    ERROR,
                    "V404",
                    f"variable `{v.name}` is bound twice by the same {what}",
                    v.span,
                    "rename one of them",
                )
            elif v.name in scope:
                line = self._line_of(scope[v.name].decl)
                self.report(
                    WARNING,
                    "V403",
                    f"variable `{v.name}` shadows the `{v.name}` bound outside",
                    v.span,
                    f"rename it; the outer one is bound on line {line}" if line else "rename it",
                )
            seen.add(v.name)
            inner[v.name] = _Var(v.types, v, False, True)
        return inner

    def _unused(self, variables: Sequence[A.TypedName], inner: dict[str, _Var]) -> None:
        for v in variables:
            var = inner.get(v.name)
            if var is not None and var.decl is v and not var.used and var.report_unused:
                self.report(
                    WARNING,
                    "V402",
                    f"variable `{v.name}` is never used",
                    v.span,
                    "drop it, or use it in the formula",
                )

    def atom(self, info: DomainInfo, f: A.Atom, scope: dict[str, _Var], ctx: _Context) -> None:
        if f.predicate == "=":
            params: Sequence[tuple[str, ...]] = ((), ())
            if len(f.args) != 2:
                self.report(ERROR, "T301", f"`=` takes 2 arguments, not {len(f.args)}", f.span)
                return
        else:
            pred = info.predicates.get(f.predicate)
            if pred is None:
                if f.predicate in info.functions:
                    self.report(
                        ERROR,
                        "T303",
                        f"`{f.predicate}` is a numeric function, used here as a predicate",
                        self.name_span(f, f.predicate),
                        f"compare it instead: `(> ({f.predicate} ...) 0)`",
                    )
                else:
                    self.report(
                        ERROR,
                        "N203",
                        f"unknown predicate `{f.predicate}`",
                        self.name_span(f, f.predicate),
                        did_you_mean(f.predicate, list(info.predicates))
                        or f"declare it in the `:predicates` of domain `{info.domain.name}`",
                    )
                for a in f.args:
                    self.term(info, a, (), scope, ctx, "")
                return
            if len(f.args) != len(pred.parameters):
                self.report(
                    ERROR,
                    "T301",
                    f"`{f.predicate}` takes {len(pred.parameters)} argument(s), not {len(f.args)}",
                    f.span,
                    f"declared as {_signature(pred.name, pred.parameters)}",
                )
                for a in f.args:
                    self.term(info, a, (), scope, ctx, "")
                return
            params = [p.types for p in pred.parameters]
        for i, (a, types) in enumerate(zip(f.args, params, strict=True)):
            self.term(info, a, types, scope, ctx, f"argument {i + 1} of `{f.predicate}`")

    def term(
        self,
        info: DomainInfo,
        t: A.Node,
        expected: Sequence[str],
        scope: dict[str, _Var],
        ctx: _Context,
        what: str,
    ) -> None:
        if isinstance(t, A.Variable):
            var = scope.get(t.name)
            if var is None:
                if ctx.kind == "init":
                    self.report(
                        ERROR,
                        "T305",
                        f"variable `{t.name}` in the initial state",
                        t.span,
                        "the initial state lists ground atoms over objects",
                    )
                    return
                self.report(
                    ERROR,
                    "V401",
                    f"variable `{t.name}` is not bound here",
                    t.span,
                    did_you_mean(t.name, list(scope))
                    or "bind it in `:parameters` or with a quantifier",
                )
                return
            var.used = True
            actual: tuple[str, ...] = var.types
        elif isinstance(t, A.Constant):
            obj = ctx.objects.get(t.name) or info.constants.get(t.name)
            if obj is None:
                candidates = {**info.constants, **ctx.objects}
                fitting = [n for n, c in candidates.items() if info.subtype(c.types, expected)]
                self.report(
                    ERROR,
                    "N205",
                    f"unknown constant or object `{t.name}`",
                    t.span,
                    _category_hint(t.name, info, expected)
                    or _a_type_hint(t.name, info)
                    or did_you_mean(t.name, fitting)
                    or f"declare it in `:constants` of domain `{info.domain.name}`"
                    + ("" if ctx.template else " or in the problem's `:objects`"),
                )
                return
            actual = obj.types
        else:
            return
        if not all(info.has_type(x) for x in (*actual, *expected)):
            return  # an unknown type is reported where it is declared
        if expected and not info.subtype(actual, expected):
            severity = ERROR if not info.overlaps(actual, expected) else None
            if severity is None:
                # A wider type (`?x - object` for a `truck` parameter) is legal PDDL:
                # the atom just never holds for the other objects.
                return
            self.report(
                ERROR,
                "T302",
                f"{what} must be a `{_type_text(expected)}`, but `{_term_name(t)}` is a "
                f"`{_type_text(actual)}`",
                t.span,
                "the types are disjoint, so this can never hold",
            )

    def _term_types(
        self, info: DomainInfo, t: A.Node, scope: dict[str, _Var]
    ) -> tuple[str, ...] | None:
        if isinstance(t, A.Variable):
            var = scope.get(t.name)
            return var.types if var else None
        if isinstance(t, A.Constant):
            c = info.constants.get(t.name)
            return c.types if c else None
        return None

    def numeric(self, info: DomainInfo, e: A.Node, scope: dict[str, _Var], ctx: _Context) -> None:
        if isinstance(e, A.FunctionTerm):
            fn = info.functions.get(e.name)
            if fn is None:
                if e.name in BUILTIN_FUNCTIONS:
                    return
                if e.name in info.predicates:
                    self.report(
                        ERROR,
                        "T304",
                        f"`{e.name}` is a predicate, used here as a numeric function",
                        self.name_span(e, e.name),
                        "predicates are true or false; declare a function in `:functions` "
                        "to compare numbers",
                    )
                else:
                    self.report(
                        ERROR,
                        "N204",
                        f"unknown function `{e.name}`",
                        self.name_span(e, e.name),
                        did_you_mean(e.name, list(info.functions))
                        or f"declare it in the `:functions` of domain `{info.domain.name}`",
                    )
                return
            if len(e.args) != len(fn.parameters):
                self.report(
                    ERROR,
                    "T301",
                    f"`{e.name}` takes {len(fn.parameters)} argument(s), not {len(e.args)}",
                    e.span,
                    f"declared as {_signature(fn.name, fn.parameters)}",
                )
                return
            for i, (a, p) in enumerate(zip(e.args, fn.parameters, strict=True)):
                self.term(info, a, p.types, scope, ctx, f"argument {i + 1} of `{e.name}`")
        elif isinstance(e, A.Arithmetic):
            for operand in e.args:
                self.numeric(info, operand, scope, ctx)
        elif isinstance(e, A.Variable):
            self.term(info, e, (), scope, ctx, "")
        elif isinstance(e, A.Constant):
            if e.name == "#t":
                return
            fn = info.functions.get(e.name)
            if fn is not None:
                # `(= total-cost 0)`: a 0-ary function written without parentheses.
                if fn.parameters:
                    self.report(
                        ERROR,
                        "T301",
                        f"`{e.name}` takes {len(fn.parameters)} argument(s), not 0",
                        e.span,
                        f"declared as {_signature(fn.name, fn.parameters)}; only a 0-ary "
                        "function may be written without parentheses",
                    )
                return
            self.term(info, e, (), scope, ctx, "")

    # ------------------------------------------------------------------ registry
    def check_registry(self, info: DomainInfo) -> None:
        """A domain that templates use must agree with fdc's predicate checkers."""
        from fdc.predicates.builtin import default_registry

        self.path = info.path
        domain = info.domain
        problems = default_registry().signature_problems(
            domain.predicates, domain.functions, type_parents=info.parents
        )
        decls: dict[str, A.Node] = {**{f.name: f for f in domain.functions}}
        decls.update({p.name: p for p in domain.predicates})
        known = default_registry().default_thresholds()
        seen_thresholds: set[str] = set()
        for t in domain.thresholds:
            if t.name not in known:
                self.report(
                    ERROR,
                    "R705",
                    f"unknown threshold `{t.name}`",
                    self.name_span(t, t.name),
                    did_you_mean(t.name, sorted(known))
                    or "the thresholds are listed in docs/predicates.md",
                )
            elif not (t.value >= 0 and math.isfinite(t.value)):
                self.report(ERROR, "R705", f"threshold `{t.name}` must be finite and >= 0", t.span)
            elif t.name in seen_thresholds:
                self.report(ERROR, "R705", f"threshold `{t.name}` is set twice", t.span)
            seen_thresholds.add(t.name)
        for problem in problems:
            (name,) = problem.entities
            self.report(
                ERROR,
                _REGISTRY_CODES.get(problem.code, "R701"),
                problem.message,
                self.name_span(decls.get(name, domain), name),
                problem.hint,
            )

    # ------------------------------------------------------------------ problems
    def check_problem(self, info: DomainInfo, problem: A.Problem, path: str) -> None:
        self.path = path
        objects: dict[str, A.TypedName] = {}
        for o in problem.objects:
            self._check_types(info, o.types, o.span)
            if o.name in objects:
                self.report(
                    WARNING,
                    "N206",
                    f"object `{o.name}` is declared twice",
                    o.span,
                    "drop one declaration",
                )
            elif o.name in info.constants:
                self.report(
                    WARNING,
                    "N208",
                    f"object `{o.name}` repeats constant `{o.name}` of domain `{info.domain.name}`",
                    o.span,
                    "the domain's constants are objects of every problem already",
                )
            objects[o.name] = o
        where = f"problem `{problem.name}`"
        init_ctx = _Context(f"the initial state of {where}", "init", objects)
        for fact in problem.init:
            self.formula(info, fact, {}, init_ctx)
            if isinstance(fact, A.Comparison) and fact.op != "=":
                self.report(
                    ERROR,
                    "T305",
                    f"the initial state sets values with `=`, not `{fact.op}`",
                    fact.span,
                )
        if problem.goal is not None:
            self.formula(
                info, problem.goal, {}, _Context(f"the goal of {where}", "condition", objects)
            )
        if problem.constraints is not None:
            ctx = _Context(f"the constraints of {where}", "constraint", objects)
            self.formula(info, problem.constraints, {}, ctx)
        if problem.metric is not None:
            ctx = _Context(f"the metric of {where}", "condition", objects)
            self.numeric(info, problem.metric.expr, {}, ctx)

    # ------------------------------------------------------------------ templates
    def _instructions(self, info: DomainInfo, template: A.Template, path: str,
                      scope: dict[str, Any]) -> set[str]:
        """Lint the template's instruction variants; the parameters they mention."""
        from fdc.instructions.lint import lint_instructions
        from fdc.instructions.variants import FileRef, Inline, read_variants

        inline = [Inline(i.text, i.span) for i in template.instructions]
        ref = template.instruction_file
        file_ref = FileRef(ref.path, ref.span) if ref is not None else None
        problems: list[Diagnostic] = []
        variants = read_variants(inline, file_ref, path, self.sources, problems)
        # a parameter that holds one entity (not a category, a colour, a number)
        entities = {"movable", "furniture", "surface", "room"}
        single = {name for name, var in scope.items()
                  if var.types and all(entities & info.ancestors(t) for t in var.types)}
        used: set[str] = lint_instructions(variants, template.name, scope, problems, single)
        self.diagnostics.extend(problems)
        return used

    def check_template(self, info: DomainInfo, template: A.Template, path: str) -> None:
        self.path = path
        where = f"template `{template.name}`"
        self._check_parameters(info, template.parameters, "template", template.name)
        scope = self._scope(template.parameters, report_unused=True)
        if template.constraints is not None:
            ctx = _Context(f"the binding constraints of {where}", "binding", info.constants, True)
            self.formula(info, template.constraints, scope, ctx)
        if template.goal is None:
            self.report(
                ERROR,
                "G503",
                f"{where} has no goal",
                self.name_span(template, template.name),
                "add `(:goal ...)`: what must hold for the task to succeed",
            )
        elif isinstance(template.goal, A.Empty) or template.goal == A.And(parts=()):
            self.report(
                ERROR,
                "G503",
                f"{where} has an empty goal",
                template.goal.span,
                "a task whose goal is always true tests nothing; state what must hold",
            )
        else:
            ctx = _Context(f"the goal of {where}", "template-goal", info.constants, True)
            self.formula(info, template.goal, scope, ctx)
        if not template.instructions and template.instruction_file is None:
            self.report(
                ERROR,
                "G503",
                f"{where} has no instruction",
                self.name_span(template, template.name),
                'add `(:instruction "...")` or `(:instruction-file "name.j2")`',
            )
        used_in_text = self._instructions(info, template, path, scope)
        for name in used_in_text:
            if name in scope:
                scope[name].used = True
        self._unused(template.parameters, scope)
        if info.domain.durative_actions:
            da = info.domain.durative_actions[0]
            self.report(
                WARNING,
                "G504",
                f"domain `{info.domain.name}` has durative actions (`{da.name}`, ...), "
                "which fdc's planner export ignores",
                template.domain.span,
                "process tasks are solved with the domain's classical actions",
            )


_REGISTRY_CODES = {
    "no-checker": "R701",
    "not-a-predicate": "R702",
    "not-a-function": "R702",
    "arity": "R703",
    "parameter-type": "R704",
}

_PLACE_HINTS = {
    "effect": "effects are atoms, `not`, `and`, `forall`, `when` and numeric updates",
    "condition": "conditions use atoms, `and`, `or`, `not`, `imply`, `exists`, `forall` "
    "and comparisons",
    "init": "the initial state lists ground atoms, `(not atom)`, `(= (f a) 3)` and timed literals",
    "binding": "binding constraints are checked at compile time, before any goal is built",
    "duration": "a duration constraint compares `?duration`: `(= ?duration 5)`",
}


def _lower_keeping_offsets(text: str) -> str:
    """`text.lower()`, except characters whose lower case is longer (`İ`) stay as they are."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


def _term_name(t: A.Node) -> str:
    return t.name if isinstance(t, A.Variable | A.Constant) else "?"


def _signature(name: str, params: Sequence[A.TypedName]) -> str:
    inner = " ".join(f"{p.name} - {_type_text(p.types)}" for p in params)
    return f"`({name}{' ' + inner if inner else ''})`"


# ---------------------------------------------------------------------------- driver



@dataclass
class CheckResult:
    units: list[A.SourceUnit]
    sources: dict[str, SourceFile]
    diagnostics: list[Diagnostic]
    usage_error: bool = False
    domains: dict[str, DomainInfo] = field(default_factory=dict)  # resolved, by name
    templates: dict[str, tuple[str, A.Template]] = field(default_factory=dict)  # name -> path

    @property
    def definition_count(self) -> int:
        return sum(len(u.definitions) for u in self.units)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


def expand_paths(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """Files named (reading them refuses what is not a regular file), and `.pddl` files
    under folders named (sorted); plus missing paths."""
    files: list[str] = []
    missing: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob("*.pddl") if f.is_file())
            if not found:
                missing.append(p)
            files.extend(found)
        elif os.path.exists(p):
            files.append(p)
        else:
            missing.append(p)
    return list(dict.fromkeys(files)), missing


def missing_message(path: str) -> str:
    """Why `expand_paths` found nothing at `path`."""
    return "no .pddl file in this folder" if os.path.isdir(path) else "no such file or folder"


def check_sources(
    sources: Sequence[SourceFile],
    library: Sequence[SourceFile] = (),
    *,
    texts: Sequence[SourceFile] = (),
    parse: Callable[[SourceFile], ParseResult] = parse_source,
) -> CheckResult:
    """Parse and check `sources`; `library` files (built-in domains) resolve names only.

    `texts` are instruction files as an editor holds them (read from disk when not
    given); `parse` parses one file (an editor passes a cached `parse_source`).
    """
    all_sources = {s.path: s for s in (*texts, *library, *sources)}
    diagnostics: list[Diagnostic] = []
    units: list[A.SourceUnit] = []
    lib_units: list[A.SourceUnit] = []
    for src, bucket in [*((s, lib_units) for s in library), *((s, units) for s in sources)]:
        result = parse(src)
        if bucket is units:
            diagnostics.extend(result.diagnostics)
        if result.unit is not None:
            bucket.append(result.unit)
    checker = TypeChecker(all_sources)
    lib_paths = {u.path for u in lib_units}
    domains: dict[str, DomainInfo] = {}
    # Built-in domains first; a user's domain of the same name replaces the built-in one.
    for unit, own in [*((u, False) for u in lib_units), *((u, True) for u in units)]:
        for d in unit.definitions:
            if isinstance(d, A.Domain):
                if own and d.name in domains and domains[d.name].path not in lib_paths:
                    checker.path = unit.path
                    checker.report(
                        ERROR,
                        "N210",
                        f"domain `{d.name}` is defined again (first in {domains[d.name].path})",
                        checker.name_span(d, d.name),
                        "give each domain its own name",
                    )
                    continue
                info = checker.resolve_domain(d, unit.path)
                if own:
                    domains[d.name] = info
                else:
                    domains.setdefault(d.name, info)
    unparsed = len(units) < len(sources)
    # A definition the parser already complained about is not checked further: its
    # placeholder nodes would only produce follow-on errors.
    broken = {
        (d.file, defn.span)
        for d in diagnostics
        for unit in units
        if unit.path == d.file
        for defn in unit.definitions
        if defn.span.start <= d.span.start < defn.span.end
    }
    for info in domains.values():
        if info.path not in lib_paths and (info.path, info.domain.span) not in broken:
            checker.guarded(info.path, info.domain, checker.check_domain, info)
    templates: dict[str, tuple[str, A.Template]] = {}
    template_domains: list[DomainInfo] = []
    for unit in units:
        for d in unit.definitions:
            if isinstance(d, A.Domain) or (unit.path, d.span) in broken:
                continue
            ref = d.domain
            found = domains.get(ref.name)
            checker.path = unit.path
            if found is None:
                if ref.name:
                    checker.report(
                        ERROR,
                        "N201",
                        f"unknown domain `{ref.name}`",
                        ref.span,
                        did_you_mean(ref.name, list(domains))
                        or (
                            "its file may be among those that did not parse; fix them first"
                            if unparsed
                            else "pass the domain's file to `fdc check` along with this one"
                        ),
                    )
                continue
            if isinstance(d, A.Problem):
                checker.guarded(unit.path, d, checker.check_problem, found, d, unit.path)
            else:
                if d.name in templates:
                    checker.report(
                        ERROR,
                        "N210",
                        f"template `{d.name}` is defined again (first in {templates[d.name][0]})",
                        checker.name_span(d, d.name),
                        "template names identify tasks: give each its own",
                    )
                templates.setdefault(d.name, (unit.path, d))
                if found not in template_domains:
                    template_domains.append(found)
                checker.guarded(unit.path, d, checker.check_template, found, d, unit.path)
    for info in template_domains:
        if info.path not in lib_paths and (info.path, info.domain.span) not in broken:
            checker.check_registry(info)
    diagnostics.extend(d for d in checker.diagnostics if d.file not in lib_paths)
    diagnostics.sort(key=sort_key)
    own_sources = {p: s for p, s in checker.sources.items() if p not in lib_paths}
    return CheckResult(units, own_sources, diagnostics, domains=domains, templates=templates)


def check_paths(paths: Sequence[str], builtin: bool = True) -> CheckResult:
    """`fdc check`: read every file under `paths` and check them together."""
    files, missing = expand_paths(paths)
    sources: list[SourceFile] = []
    diagnostics: list[Diagnostic] = []
    usage_error = bool(missing)
    for m in missing:
        diagnostics.append(
            Diagnostic(
                severity=ERROR,
                code="P001",
                message=missing_message(m),
                file=m,
                hint="check the path",
            )
        )
    for f in files:
        try:
            sources.append(SourceFile.read(f))
        except InputFileError as e:
            usage_error = True
            diagnostics.append(
                Diagnostic(severity=ERROR, code="P001", message=f"cannot read the file: {e.reason}",
                           file=f, hint=e.hint)
            )
    library: list[SourceFile] = []
    if builtin:
        from fdc.domain import builtin_domain_files

        own = {os.path.realpath(s.path) for s in sources}
        library = [
            SourceFile.read(str(p))
            for p in builtin_domain_files()
            if os.path.realpath(p) not in own
        ]
    result = check_sources(sources, library)
    result.diagnostics[:0] = diagnostics
    result.usage_error = usage_error
    return result
