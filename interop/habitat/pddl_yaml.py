"""habitat-lab's multi-task PDDL (YAML) from fdc's domain and ground goals.

habitat-lab reads a domain (`types`, `constants`, `predicates`, `actions`) and, per task,
a problem (`objects`, `init`, `goal`, `stage_goals`) with its `PddlDomain` and
`PddlProblem` classes. Formulas are nested `{expr_type, sub_exprs}` maps over predicate
calls written `name(arg,arg)`; `expr_type` is AND, OR, NAND or NOR (a negated literal is a
NAND of one), and a node may carry a `quantifier` (FORALL or EXISTS) over typed `inputs`,
which habitat-lab expands over every entity of the input's type (the problem's objects
and the domain's constants) when it loads the problem.

fdc's ground goals have no quantifiers left, so quantifiers are *lifted* back: the parts
of an `and` (an `or`) that are one formula instantiated with every declared entity of a
type become one FORALL (EXISTS) node over that type. Only the entities a goal names are
declared, so habitat-lab's expansion gives back exactly the parts that were replaced: the
lifted goal means what the ground one does. Sequences (`then`) and multi-goal `targets`
have no counterpart (habitat-lab judges stage goals independently, at any time) and are
reported as not expressible.

See docs/formats/habitat-export.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, assert_never

from fdc.core.limits import current
from fdc.predicates.algebra import NotExpandable, NotExpressible, expand_counts
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    atoms,
    to_pddl,
)
from fdc.predicates.hierarchy import TypeHierarchy

#: Characters habitat-lab's `parse_func` splits predicate calls on.
_RESERVED = frozenset("(),") | frozenset(" \t\n")
#: Quantified variables: PDDL's `?` keeps them apart from every entity id.
_VARIABLE = "?x"


@dataclass(frozen=True)
class PddlDomainSpec:
    """What the YAML domain declares, from fdc's PDDL domain.

    `parents` maps each type to its parent (`object` is the root); `constants` each
    domain constant to its type; `predicates` each fluent predicate to its typed
    arguments, in order (an `either` argument already narrowed to one type)."""

    name: str
    parents: Mapping[str, str]
    constants: Mapping[str, str]
    predicates: Mapping[str, tuple[tuple[str, str], ...]]

    @cached_property
    def hierarchy(self) -> TypeHierarchy:
        return TypeHierarchy({t: (p,) for t, p in self.parents.items()})

    def ancestors(self, t: str) -> list[str]:
        """`t` and the types above it, most specific first (ending with `object`)."""
        return self.hierarchy.lineage(t)

    def is_subtype(self, t: str, of: str) -> bool:
        return self.hierarchy.subtype((t,), (of,))


def domain_document(spec: PddlDomainSpec) -> dict[str, Any]:
    """The YAML domain as data: fdc's types, constants and fluent predicates.

    fdc's root type `object` is declared under habitat-lab's `ENTITY_TYPE`, where
    `fdc.interop.habitat.judge.bind` resolves fdc's entities. Each predicate's
    `is_valid_fn` is fdc's checker, through habitat-lab's `_target_` mechanism
    (`fdc.interop.habitat.judge.holds`). The domain has no actions: habitat-lab's
    actions name skills (`task_info`) and add-only postconditions, which fdc's domain
    does not have."""
    from fdc.interop.habitat.judge import ENTITY_TYPE, is_valid_fn

    children: dict[str, list[str]] = {ENTITY_TYPE: ["object"]}
    for t in sorted(spec.parents):
        children.setdefault(spec.parents[t], []).append(t)
    return {
        "types": {ENTITY_TYPE: children.pop(ENTITY_TYPE),
                  **{parent: kids for parent, kids in sorted(children.items())}},
        "constants": [{"name": c, "expr_type": t} for c, t in sorted(spec.constants.items())],
        "predicates": [
            {"name": name, "args": [{"name": a, "expr_type": t} for a, t in args],
             "is_valid_fn": is_valid_fn(name, [a for a, _ in args])}
            for name, args in sorted(spec.predicates.items())
        ],
        "actions": [],
    }


def problem_document(goal: Goal, entity_types: Mapping[str, str], spec: PddlDomainSpec,
                     ) -> dict[str, Any]:
    """One task's YAML problem: the entities its goal names (with their fdc types) and
    the goal with quantifiers lifted (a count node as its `and`/`or` expansion, up to the
    `goal_atoms` limit). Raises `NotExpressible`."""
    try:
        goal = expand_counts(goal, current().goal_atoms)
    except NotExpandable as e:
        raise NotExpressible(f"{e}: habitat-lab's PDDL has no counting") from None
    if goal.kind == "then":
        raise NotExpressible("a sequence (`then`): habitat-lab judges stage goals "
                             "independently, so the order of the steps cannot be stated")
    if goal.kind == "targets":
        raise NotExpressible("a multi-goal task (`targets`): each target is reached at its "
                             "own stop, which a habitat-lab goal cannot state")
    named = sorted({e for a in _atoms(goal) for e in a.args} - set(spec.constants))
    for e in named:
        if e not in entity_types:
            raise NotExpressible(f"`{e}` has no type in the scene")
        if _RESERVED & set(e):
            raise NotExpressible(f"`{e}` holds a character habitat-lab's predicate calls "
                                 "split on (parentheses, commas, white space)")
    for a in _atoms(goal):
        if a.predicate not in spec.predicates:
            raise NotExpressible(f"`{a.predicate}` is not a fluent predicate of the domain")
    types = {**spec.constants, **{e: entity_types[e] for e in named}}
    lifter = _Lifter(spec, types)
    body = lifter.expr(goal, depth=0)
    if isinstance(body, str):  # habitat-lab wants a logical expression at the top
        body = {"expr_type": "AND", "sub_exprs": [body]}
    return {
        "objects": [{"name": e, "expr_type": types[e]} for e in named],
        "init": [],
        "goal": body,
        "stage_goals": {},
    }


def dump_yaml(doc: Mapping[str, Any], header: str = "") -> str:
    """Block-style YAML (PyYAML quotes words YAML 1.1 would read as booleans, `on`)."""
    import yaml

    text: str = yaml.safe_dump(dict(doc), sort_keys=False, default_flow_style=False,
                               allow_unicode=True, width=100)
    lines = "".join(f"# {line}\n" for line in header.splitlines())
    return lines + text


# --------------------------------------------------------------------------- lifting

Expr = str | dict[str, Any]


def _atoms(goal: Goal) -> list[GAtom]:
    return list(atoms(goal))


def _entities(g: Goal) -> list[str]:
    """Entities in order of first appearance (variables excluded)."""
    seen: dict[str, None] = {}
    for a in _atoms(g):
        for e in a.args:
            if not e.startswith(_VARIABLE):
                seen.setdefault(e, None)
    return list(seen)


def _substitute(g: Goal, old: str, new: str) -> Goal:
    match g:
        case GAtom():
            if old not in g.args:
                return g
            return GAtom(predicate=g.predicate, args=[new if x == old else x for x in g.args])
        case GNot():
            return GNot(body=_substitute(g.body, old, new))
        case GAnd():
            return GAnd(parts=tuple(_substitute(p, old, new) for p in g.parts))
        case GOr():
            return GOr(parts=tuple(_substitute(p, old, new) for p in g.parts))
        case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
            raise NotExpressible(f"a {type(g).__name__} inside a formula")
        case _:
            assert_never(g)


def _key(g: Goal) -> str:
    """Canonical text: `and`/`or` parts sorted, so a substituted copy compares equal."""
    match g:
        case GAtom():
            return str(to_pddl(g))
        case GNot():
            return f"(not {_key(g.body)})"
        case GAnd() | GOr():
            return f"({g.kind} {' '.join(sorted(_key(p) for p in g.parts))})"
        case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
            raise NotExpressible(f"a {type(g).__name__} inside a formula")
        case _:
            assert_never(g)


class _Lifter:
    def __init__(self, spec: PddlDomainSpec, types: Mapping[str, str]) -> None:
        self.spec = spec
        self.types = types

    def expr(self, g: Goal, depth: int) -> Expr:
        match g:
            case GAtom():
                return f"{g.predicate}({','.join(g.args)})"
            case GNot(body=GAnd() | GOr() as inner):
                word = "NAND" if inner.kind == "and" else "NOR"
                return {"expr_type": word, "sub_exprs": self.parts(inner, depth)}
            case GNot():
                return {"expr_type": "NAND", "sub_exprs": [self.expr(g.body, depth)]}
            case GAnd() | GOr():
                parts = self.parts(g, depth)
                if len(parts) == 1 and isinstance(parts[0], dict):
                    return parts[0]  # one quantifier stands for every part
                return {"expr_type": g.kind.upper(), "sub_exprs": parts}
            case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
                raise NotExpressible(f"a {type(g).__name__} inside a formula")
            case _:
                assert_never(g)

    def parts(self, g: GAnd | GOr, depth: int) -> list[Expr]:
        """The parts of an `and` (`or`), runs of instances lifted to FORALL (EXISTS)."""
        quantifier = "FORALL" if g.kind == "and" else "EXISTS"
        remaining = {_key(p): p for p in g.parts}
        out: list[Expr] = []
        for p in g.parts:
            k = _key(p)
            if k not in remaining:
                continue  # consumed by a quantifier lifted earlier
            lifted = self._lift(p, remaining, depth) if len(remaining) > 1 else None
            if lifted is None:
                del remaining[k]
                out.append(self.expr(p, depth))
                continue
            var, t, body, used = lifted
            for u in used:
                del remaining[u]
            out.append(self._quantified(quantifier, var, t, body, depth))
        return out

    def _lift(self, p: Goal, remaining: Mapping[str, Goal], depth: int
              ) -> tuple[str, str, Goal, list[str]] | None:
        """The widest (entity, type) whose every declared member instantiates `p` to a
        remaining part: the variable, its type, the body and the parts it stands for."""
        var = f"{_VARIABLE}{depth + 1}"
        for e in _entities(p):
            allowed = self._allowed_types(p, e)
            for t in reversed(self.spec.ancestors(self.types[e])):
                if t not in allowed:
                    continue
                members = sorted(x for x, xt in self.types.items() if self.spec.is_subtype(xt, t))
                if len(members) < 2:
                    continue
                keys = [_key(_substitute(p, e, m)) for m in members]
                if len(set(keys)) == len(keys) and all(k in remaining for k in keys):
                    return var, t, _substitute(p, e, var), keys
        return None

    def _allowed_types(self, p: Goal, e: str) -> set[str]:
        """Types a variable standing for `e` may have: under every argument type it fills."""
        ok = set(self.spec.ancestors(self.types[e]))
        for a in _atoms(p):
            for (_, arg_type), x in zip(self.spec.predicates[a.predicate], a.args, strict=True):
                if x == e:
                    ok = {t for t in ok if self.spec.is_subtype(t, arg_type)}
        return ok

    def _quantified(self, quantifier: str, var: str, t: str, body: Goal, depth: int
                    ) -> dict[str, Any]:
        node: dict[str, Any] = {"quantifier": quantifier,
                                "inputs": [{"name": var, "expr_type": t}]}
        inner = self.expr(body, depth + 1)
        if isinstance(inner, dict) and "quantifier" not in inner:
            node.update(inner)  # the body's own connective and parts
        else:
            node.update({"expr_type": "AND", "sub_exprs": [inner]})
        return node


__all__: Sequence[str] = ("NotExpressible", "PddlDomainSpec", "domain_document",
                          "dump_yaml", "problem_document")
