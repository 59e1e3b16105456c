"""Domain resolution, the first job of the type checker: a domain's types, constants,
predicates and functions become a `DomainInfo`, each name checked (unknown or twice
declared types, cycles, repeated parameters). `DomainResolver` also holds what every
check reports with (a `Diagnostic` at a name's span). docs/architecture.md.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from fdc.core.problems import Diagnostic, Severity, SourceFile, did_you_mean
from fdc.predicates.hierarchy import TypeHierarchy, type_text

from . import ast as A

ERROR, WARNING = Severity.ERROR, Severity.WARNING

#: Functions every planner knows without a declaration.
BUILTIN_FUNCTIONS = {"total-time": 0, "is-violated": 1}


# ---------------------------------------------------------------------------- domains


@dataclass
class DomainInfo:
    """A domain's resolved namespaces: types, constants, predicates, functions, actions."""

    domain: A.Domain
    path: str
    hierarchy: TypeHierarchy = field(default_factory=TypeHierarchy)
    constants: dict[str, A.TypedName] = field(default_factory=dict)
    predicates: dict[str, A.PredicateDef] = field(default_factory=dict)
    functions: dict[str, A.FunctionDef] = field(default_factory=dict)

    # The hierarchy's answers, typed (`mypy compiler/` does not see fdc.predicates).
    @property
    def parents(self) -> dict[str, tuple[str, ...]]:
        """Each declared type's parents."""
        return cast(dict[str, tuple[str, ...]], self.hierarchy.parents)

    def has_type(self, name: str) -> bool:
        return cast(bool, self.hierarchy.has_type(name))

    def ancestors(self, name: str) -> frozenset[str]:
        """`name` and every type above it (always including `object`)."""
        return cast(frozenset[str], self.hierarchy.ancestors(name))

    def subtype(self, sub: Sequence[str], sup: Sequence[str]) -> bool:
        """Every type in `sub` (an `either`; `()` is object) lies under some type of `sup`."""
        return cast(bool, self.hierarchy.subtype(sub, sup))

    def overlaps(self, a: Sequence[str], b: Sequence[str]) -> bool:
        """Some entity could have both types (one lies under the other)."""
        return cast(bool, self.hierarchy.overlaps(a, b))


def a_type_hint(name: str, info: DomainInfo) -> str | None:
    """The hint for a type's name written where an entity goes (`counter`): a parameter
    of that type, which ranges over every entity of it, the category's furniture or
    rooms included."""
    if name == "object" or not info.has_type(name):
        return None
    letter = name[0] if name[0].isalpha() else "x"
    return (f"`{name}` is a type, not an entity: bind a parameter of it, `?{letter} - {name}`"
            f" (every {name})")


def category_hint(name: str, info: DomainInfo, expected: Sequence[str]) -> str | None:
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
        return None  # another type (`counter`): `a_type_hint` says it
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


def _lower_keeping_offsets(text: str) -> str:
    """`text.lower()`, except characters whose lower case is longer (`İ`) stay as they are."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


class DomainResolver:
    """Reports findings, and resolves domains (the first job of `TypeChecker`)."""

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
                        f"`{type_text(parents)}` (first: `{type_text(old)}`)",
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
