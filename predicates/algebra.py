"""The goal algebra: rebuilding, mapping and folding goals, the connectives' canonical
constructors, one negation normal form, and counts expanded into connectives.

The goal kinds and their structure (`children`, `subgoals`) are `fdc.predicates.goal`;
everything here walks goals through them or through a `match` over the kinds that ends
in `assert_never`, so that adding a kind is one edit mypy checks (docs/architecture.md,
"Where does X live").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import combinations
from typing import Literal, TypeGuard, TypeVar, assert_never

from fdc.core.errors import FdcError
from fdc.predicates.goal import (
    FALSE,
    TRUE,
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
    Target,
    children,
    subgoals,
)

__all__ = [
    "CountTooLarge",
    "NotExpandable",
    "NotExpressible",
    "NotNegatable",
    "canonical_junction",
    "children",
    "conj",
    "disj",
    "expand_count",
    "expand_counts",
    "expansion_size",
    "fewest_to_change",
    "fold_goal",
    "has_count",
    "is_atom",
    "junction_parts",
    "literal",
    "map_goal",
    "neg",
    "nnf",
    "subgoals",
    "with_children",
]

T = TypeVar("T")


def with_children(goal: Goal, kids: Sequence[Goal]) -> Goal:
    """The goal over `kids` instead of its `children`: itself when every one is its own."""
    old = children(goal)
    if len(kids) != len(old):
        raise ValueError(f"a {goal.kind} has {len(old)} subgoal(s), not {len(kids)}")
    if all(a is b for a, b in zip(kids, old, strict=True)):
        return goal
    match goal:
        case GAtom() | GCount() | GCluster():  # no children: returned above
            return goal
        case GNot():
            return GNot(body=kids[0])
        case GAnd() | GOr():
            return type(goal)(parts=tuple(kids))
        case GTargets():
            return goal.model_copy(update={"targets": tuple(
                Target(entity=t.entity, goal=k) for t, k in zip(goal.targets, kids, strict=True))})
        case GThen():
            return GThen(steps=tuple(kids))
        case GChecklist():
            return GChecklist(propositions=tuple(kids), dependencies=goal.dependencies,
                              constraints=goal.constraints)
        case _:
            assert_never(goal)


def map_goal(goal: Goal, f: Callable[[Goal], Goal]) -> Goal:
    """Bottom-up: every subgoal mapped first, then `f` applied to the goal rebuilt over
    them (`with_children`: the same object where nothing changed)."""
    kids = children(goal)
    if kids:
        goal = with_children(goal, [map_goal(k, f) for k in kids])
    return f(goal)


def fold_goal(goal: Goal, f: Callable[[Goal, list[T]], T]) -> T:
    """Bottom-up: `f(goal, [the fold of each child])`."""
    return f(goal, [fold_goal(k, f) for k in children(goal)])


def _flat(kind: type[GAnd] | type[GOr], parts: Iterable[Goal]) -> Goal:
    """`and`/`or` of `parts`, nested ones of the same kind flattened (so the neutral
    constant vanishes); one part stands alone, none is the neutral constant."""
    flat = [q for p in parts for q in (p.parts if isinstance(p, kind) else (p,))]
    if len(flat) != 1:
        return kind(parts=tuple(flat)) if flat else TRUE if kind is GAnd else FALSE
    return flat[0]


def is_atom(goal: Goal) -> TypeGuard[GAtom]:
    """Whether the goal is an atom."""
    match goal:
        case GAtom():
            return True
        case _:
            return False


def literal(goal: Goal) -> tuple[GAtom, bool] | None:
    """The atom and its sign when the goal is a literal (an atom, or `not` on one)."""
    match goal:
        case GAtom():
            return goal, True
        case GNot(body=GAtom() as body):
            return body, False
        case _:
            return None


def junction_parts(goal: Goal, kind: Literal["and", "or"]) -> tuple[Goal, ...]:
    """The goal's parts when it is a junction of `kind` (`and`, `or`), else the goal."""
    match goal:
        case GAnd() | GOr() if goal.kind == kind:
            return goal.parts
        case _:
            return (goal,)


def conj(parts: Iterable[Goal]) -> Goal:
    """`(and parts...)`: nested `and`s flattened, one part alone, none `TRUE`; neither
    sorted nor deduplicated (the grounder's `canonical_junction` is)."""
    return _flat(GAnd, parts)


def disj(parts: Iterable[Goal]) -> Goal:
    """`(or parts...)`: nested `or`s flattened, one part alone, none `FALSE`."""
    return _flat(GOr, parts)


def canonical_junction(
    kind: type[GAnd] | type[GOr],
    parts: Iterable[Goal],
    keys: Sequence[str],
    text: Callable[[Goal], str],
) -> tuple[Goal, list[str] | None]:
    """The grounder's `and`/`or` of flat `parts` (no constant, no junction of the same
    kind) whose texts are `keys`: repeats removed, a part and its negation (`text` of a
    body) absorbing, one part alone, none the neutral constant; else the parts sorted by
    text. Returns the goal and, for a junction made, its parts' sorted texts."""
    absorbing, neutral = (FALSE, TRUE) if kind is GAnd else (TRUE, FALSE)
    # equal texts are equal goals, so which of them is kept does not matter
    unique = dict(zip(keys, parts, strict=True))
    for p in unique.values():
        if type(p) is GNot and text(p.body) in unique:
            return absorbing, None  # p and (not p)
    if len(unique) <= 1:
        return (next(iter(unique.values())) if unique else neutral), None
    ordered = sorted(unique)
    # the parts are canonical goals already: building the junction needs no validation
    return kind.model_construct(parts=tuple([unique[k] for k in ordered])), ordered


class NotExpressible(FdcError, ValueError):
    """A goal (or a part of it) an export format cannot state (habitat-lab's PDDL,
    PARTNR's evaluation); the message says why."""


class NotNegatable(FdcError, ValueError):
    """A goal `neg` cannot negate: a multi-goal form, a cluster, a count (unless told)."""


def neg(
    goal: Goal,
    *,
    conj: Callable[[Sequence[Goal]], Goal] = conj,
    disj: Callable[[Sequence[Goal]], Goal] = disj,
    count: Callable[[GCount], Goal] | None = None,
) -> Goal:
    """`(not goal)` in negation normal form (`not` only on atoms), the junctions built
    by `conj`/`disj` (or the grounder's canonical ones); `count` negates a count node
    (else it is `NotNegatable`)."""
    match goal:
        case GAtom():
            return GNot(body=goal)
        case GNot():
            return goal.body
        case GAnd():  # TRUE becomes FALSE
            return disj([neg(p, conj=conj, disj=disj, count=count) for p in goal.parts])
        case GOr():
            return conj([neg(p, conj=conj, disj=disj, count=count) for p in goal.parts])
        case GCount() if count is not None:
            return count(goal)
        case GCount() | GCluster() | GTargets() | GThen() | GChecklist():
            raise NotNegatable(f"a {goal.kind} cannot be negated")
        case _:
            assert_never(goal)


def nnf(
    goal: Goal,
    *,
    conj: Callable[[Sequence[Goal]], Goal] = conj,
    disj: Callable[[Sequence[Goal]], Goal] = disj,
    count: Callable[[GCount], Goal] | None = None,
) -> Goal:
    """The goal in negation normal form: every `not` pushed onto atoms by `neg`, every
    junction rebuilt by `conj`/`disj`; other kinds kept, their subgoals normalised."""

    def step(g: Goal) -> Goal:
        match g:
            case GNot():
                return neg(g.body, conj=conj, disj=disj, count=count)
            case GAnd():
                return conj(g.parts)
            case GOr():
                return disj(g.parts)
            case GAtom() | GCount() | GCluster() | GTargets() | GThen() | GChecklist():
                return g
            case _:
                assert_never(g)

    return map_goal(goal, step)


class NotExpandable(FdcError):
    """A count that has no `and`/`or` form here."""


class CountTooLarge(NotExpandable):
    """A count whose expansion into `and`/`or` would exceed the limit it was given."""

    def __init__(self, goal: GCount, size: int, limit: int) -> None:
        super().__init__(
            f"`{goal.op} {goal.number}` over {len(goal.items)} items expands to {size} "
            f"atoms, over the limit of {limit}")
        self.size = size
        self.limit = limit


def expansion_size(g: GCount) -> int:
    """How many atom occurrences `expand_count(g)` holds: each subset's bodies, where a
    body (one item) holds one atom per entity of `others`; `same_other`, once per
    entity of `others`."""
    m, k = len(g.items), g.number
    per_item = max(1, len(g.others)) if not g.same_other else 1
    copies = len(g.others) if g.same_other else 1

    def subsets(n: int) -> int:  # "at least n of the m"
        return math.comb(m, n) * n if 0 < n <= m else 0

    size = 0
    if g.op in ("at-least", "exactly"):
        size += subsets(k)
    if g.op in ("at-most", "exactly"):
        size += subsets(k + 1)
    return size * per_item * copies


def expand_count(g: GCount, limit: int) -> Goal:
    """The count as `and`/`or`/`not` over its atoms (what fdc compiled counting forms to
    before count nodes): `at-least k` is the disjunction over the k-subsets of the items
    of their conjunction, `at-most k` the conjunction over the (k+1)-subsets of "one of
    them fails"; `exactly`, both. `CountTooLarge` past `limit` atoms, checked first.
    Thresholds cannot ride on plain atoms: a count that sets them is `NotExpandable`."""
    if g.thresholds:
        raise NotExpandable("a count that sets checker thresholds has no `and`/`or` form")
    size = expansion_size(g)
    if size > limit:
        raise CountTooLarge(g, size, limit)

    def body(x: str, others: Sequence[str]) -> Goal:
        if not others:
            return g.atom_for(x)
        found = [g.atom_for(x, y) for y in others]
        return found[0] if len(found) == 1 else GOr(parts=tuple(found))

    def one(bodies: Sequence[Goal]) -> Goal:
        m, k = len(bodies), g.number
        parts: list[Goal] = []
        if g.op in ("at-least", "exactly") and k > 0:
            if k > m:
                return FALSE
            parts.append(disj([conj(c) for c in combinations(bodies, k)]))
        if g.op in ("at-most", "exactly") and k < m:
            parts.append(conj([disj([neg(b) for b in c])
                               for c in combinations(bodies, k + 1)]))
        return conj(parts)

    if g.same_other:
        return disj([one([g.atom_for(x, y) for x in g.items]) for y in g.others])
    return one([body(x, g.others) for x in g.items])


def expand_counts(goal: Goal, limit: int) -> Goal:
    """The goal with every count node replaced by `expand_count` (for the models that
    reason in connectives: the planning abstraction, the oracles, the Habitat exports);
    checklists and clusters are left as they are. `CountTooLarge` past `limit` atoms
    for one count (`NotExpandable`: one that sets thresholds)."""
    match goal:
        case GCount():
            return expand_count(goal, limit)
        case GNot():
            body = expand_counts(goal.body, limit)
            return goal if body is goal.body else neg(body)
        case GAnd() | GOr():
            parts = [expand_counts(p, limit) for p in goal.parts]
            if all(a is b for a, b in zip(parts, goal.parts, strict=True)):
                return goal
            return conj(parts) if goal.kind == "and" else disj(parts)
        case GThen():
            return GThen(steps=tuple(expand_counts(s, limit) for s in goal.steps))
        case GTargets():
            return goal.model_copy(update={"targets": tuple(
                Target(entity=t.entity, goal=expand_counts(t.goal, limit))
                for t in goal.targets)})
        case GAtom() | GCluster() | GChecklist():
            return goal
        case _:
            assert_never(goal)


def has_count(goal: Goal) -> bool:
    """Whether the goal holds a count node (outside checklists)."""
    match goal:
        case GCount():
            return True
        case GAtom() | GCluster() | GChecklist():
            return False
        case GNot() | GAnd() | GOr() | GTargets() | GThen():
            return any(has_count(g) for g in children(goal))
        case _:
            assert_never(goal)


def fewest_to_change(goal: Goal, predicates: Collection[str], holds: Callable[[GAtom], bool],
                     *, count: Callable[[GCount], frozenset[str]] | None = None,
                     descend: bool = True) -> frozenset[str]:
    """The fewest objects the goal makes change, as the first arguments of its literals
    over `predicates`: those a literal is false for now (`holds`: an atom that must become
    true, or a negated one that holds), a conjunction the union of its parts', a
    disjunction its cheapest part's; a count `count(node)` (None: as the other kinds);
    clusters, targets, sequences, checklists (and counts without `count`) their
    children's union when `descend`, else nothing."""

    def walk(g: Goal) -> frozenset[str]:
        match g:
            case GAtom() | GNot():
                lit = literal(g)
                if lit is None or lit[0].predicate not in predicates or not lit[0].args:
                    return frozenset()
                a, positive = lit
                return frozenset({a.args[0]}) if holds(a) == (not positive) else frozenset()
            case GAnd():
                return frozenset().union(*(walk(p) for p in g.parts))
            case GOr():
                options = [walk(p) for p in g.parts]
                return min(options, key=len) if options else frozenset()
            case GCount() if count is not None:
                return count(g)
            case GCount() | GCluster() | GTargets() | GThen() | GChecklist():
                return frozenset().union(*(walk(p) for p in children(g))) if descend \
                    else frozenset()
            case _:
                assert_never(g)

    return walk(goal)
