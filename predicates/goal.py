"""Ground goals: what a compiled task asks of the world, as data.

The compiler's ground pass folds static and history facts away, leaving a quantifier-free
goal over fluent atoms with its multi-goal and sequence structure intact. This module
holds that structure (pydantic models, serialised in every task record) and its PDDL
rendering; `fdc.predicates.verify` evaluates it on trajectories.

Identical atoms are one object (`atom()` interns them), so a goal evaluated on many
snapshots caches per atom and compares by identity.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Goal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GAtom(_Goal):
    """A fluent atom over entity ids: `(on mug_1 kitchen_counter|top)`."""

    kind: Literal["atom"] = "atom"
    predicate: str
    args: tuple[str, ...] = ()


class GNot(_Goal):
    kind: Literal["not"] = "not"
    body: Goal


class GAnd(_Goal):
    """All parts hold; `GAnd(parts=())` is true."""

    kind: Literal["and"] = "and"
    parts: tuple[Goal, ...] = ()


class GOr(_Goal):
    """Some part holds; `GOr(parts=())` is false."""

    kind: Literal["or"] = "or"
    parts: tuple[Goal, ...] = ()


class Target(_Goal):
    """One target of a multi-goal task: the entity and the goal that reaches it."""

    entity: str
    goal: Goal


class GTargets(_Goal):
    """Reach every target, each at its own explicit stop; `ordered`: in the given order."""

    kind: Literal["targets"] = "targets"
    ordered: bool = False
    targets: tuple[Target, ...]


class GThen(_Goal):
    """A sequence: each step must be achieved after the one before it."""

    kind: Literal["then"] = "then"
    steps: tuple[Goal, ...]


Goal = Annotated[GAtom | GNot | GAnd | GOr | GTargets | GThen, Field(discriminator="kind")]

TRUE = GAnd(parts=())
FALSE = GOr(parts=())

_ATOMS: dict[tuple[str, tuple[str, ...]], GAtom] = {}


def atom(predicate: str, *args: str) -> GAtom:
    """The interned atom `(predicate args...)`: equal atoms are the same object."""
    key = (predicate, args)
    found = _ATOMS.get(key)
    if found is None:
        found = _ATOMS[key] = GAtom(predicate=predicate, args=args)
    return found


def atoms(goal: _Goal) -> Iterator[GAtom]:
    """Every atom of the goal, in order (repeats included)."""
    stack: list[_Goal] = [goal]
    while stack:
        g = stack.pop()
        if isinstance(g, GAtom):
            yield g
        elif isinstance(g, GNot):
            stack.append(g.body)
        elif isinstance(g, GAnd | GOr):
            stack.extend(reversed(g.parts))
        elif isinstance(g, GTargets):
            stack.extend(reversed([t.goal for t in g.targets]))
        elif isinstance(g, GThen):
            stack.extend(reversed(g.steps))


def is_multi_goal(goal: _Goal) -> bool:
    return isinstance(goal, GTargets | GThen)


def to_pddl(goal: _Goal) -> str:
    """The goal in fdc's PDDL dialect (`targets`/`then` as in templates)."""
    if isinstance(goal, GAtom):
        return "(" + " ".join([goal.predicate, *goal.args]) + ")"
    if isinstance(goal, GNot):
        return f"(not {to_pddl(goal.body)})"
    if isinstance(goal, GAnd | GOr):
        word = "and" if isinstance(goal, GAnd) else "or"
        return "(" + " ".join([word, *(to_pddl(p) for p in goal.parts)]) + ")"
    if isinstance(goal, GTargets):
        word = "ordered-targets" if goal.ordered else "targets"
        inner = " ".join(f"({t.entity} {to_pddl(t.goal)})" for t in goal.targets)
        return f"({word} {inner})"
    if isinstance(goal, GThen):
        return "(then " + " ".join(to_pddl(s) for s in goal.steps) + ")"
    raise TypeError(f"not a goal: {goal!r}")


for _model in (GNot, GAnd, GOr, Target, GTargets, GThen):
    _model.model_rebuild()
