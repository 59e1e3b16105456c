"""A ground goal's answer set: the entities a task is about (`goal_targets`), which the
record lists, the start checks require, and the exports read."""

from __future__ import annotations

from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    Goal,
    GOr,
    GTargets,
    GThen,
)


def goal_targets(goal: Goal) -> list[str]:
    """The answer set: a multi-goal form's target entities, else the first argument of
    every positive fluent atom, a count's items and a cluster's members (a checklist
    imported from PARTNR: every object its propositions ask about), in order, without
    repeats."""
    if isinstance(goal, GTargets):
        return list(dict.fromkeys(t.entity for t in goal.targets))
    out: dict[str, None] = {}
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        if isinstance(g, GAtom):
            if g.args:
                out.setdefault(g.args[0])
        elif isinstance(g, GAnd | GOr):
            stack.extend(reversed(g.parts))
        elif isinstance(g, GThen):
            stack.extend(reversed(g.steps))
        elif isinstance(g, GTargets):
            stack.extend(reversed([t.goal for t in g.targets]))
        elif isinstance(g, GCount | GCluster):
            out.update(dict.fromkeys(g.items if isinstance(g, GCount) else g.entities))
        elif isinstance(g, GChecklist):
            stack.extend(reversed(g.propositions))
    return list(out)
