"""A ground goal's answer set: the entities a task is about (`goal_targets`), which the
record lists, the start checks require, and the exports read. See docs/architecture.md."""

from __future__ import annotations

from typing import assert_never

from fdc.predicates.algebra import children
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
)


def goal_targets(goal: Goal) -> list[str]:
    """The answer set: a multi-goal form's target entities, else the first argument of
    every positive fluent atom, a count's items and a cluster's members (a checklist
    imported from PARTNR: every object its propositions ask about), in order, without
    repeats. A goal with no positive atom ("no egg is covered with dust", BEHAVIOR's
    cleaning) is about the first argument of each negated atom."""
    match goal:
        case GTargets():
            return list(dict.fromkeys(t.entity for t in goal.targets))
        case _:
            pass
    out: dict[str, None] = {}
    negated: dict[str, None] = {}
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        match g:
            case GAtom():
                if g.args:
                    out.setdefault(g.args[0])
            case GAnd() | GOr() | GThen() | GTargets() | GChecklist():
                stack.extend(reversed(children(g)))
            case GCount():
                out.update(dict.fromkeys(g.items))
            case GCluster():
                out.update(dict.fromkeys(g.entities))
            case GNot():  # positive atoms first
                negated.update((a.args[0], None) for a in atoms(g.body) if a.args)
            case _:
                assert_never(g)
    return list(out or negated)
