"""Formula typing, the second job of the type checker: each formula's forms are allowed
where it stands (a precondition, an effect, a template goal...), its atoms and terms
name declared predicates, functions and entities of fitting types, and its variables
are bound and used. docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fdc.core.problems import did_you_mean
from fdc.predicates.hierarchy import type_text

from . import ast as A
from .domains import (
    BUILTIN_FUNCTIONS,
    ERROR,
    WARNING,
    DomainInfo,
    DomainResolver,
    a_type_hint,
    category_hint,
)

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

class FormulaChecker(DomainResolver):
    """Types formulas against a resolved domain (the second job of `TypeChecker`)."""

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
                f"the target `{_term_name(f.target)}` is a `{type_text(target_types)}`, "
                f"but `{f.op}` ranges over `{type_text(var.types)}`",
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
                    category_hint(t.name, info, expected)
                    or a_type_hint(t.name, info)
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
                f"{what} must be a `{type_text(expected)}`, but `{_term_name(t)}` is a "
                f"`{type_text(actual)}`",
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

_PLACE_HINTS = {
    "effect": "effects are atoms, `not`, `and`, `forall`, `when` and numeric updates",
    "condition": "conditions use atoms, `and`, `or`, `not`, `imply`, `exists`, `forall` "
    "and comparisons",
    "init": "the initial state lists ground atoms, `(not atom)`, `(= (f a) 3)` and timed literals",
    "binding": "binding constraints are checked at compile time, before any goal is built",
    "duration": "a duration constraint compares `?duration`: `(= ?duration 5)`",
}


def _term_name(t: A.Node) -> str:
    return t.name if isinstance(t, A.Variable | A.Constant) else "?"


def _signature(name: str, params: Sequence[A.TypedName]) -> str:
    inner = " ".join(f"{p.name} - {type_text(p.types)}" for p in params)
    return f"`({name}{' ' + inner if inner else ''})`"
