"""Verifying a ground goal on a trajectory: FindingDory's multi-goal rules, done right.

The trajectory is a sequence of snapshots, each with the action that led to it. Rules:
- A plain goal is judged where the episode ends: at the first explicit `stop`, or at the
  last snapshot when the trajectory has no stop (a manipulation run that simply ends).
- Multi-goal (`GTargets`): a target counts only at an explicit stop while its goal holds
  there; each stop credits at most one new target; a stop that credits none fails the
  task; in ordered form, a stop where a later target holds but the next one does not
  fails the task. Goals are evaluated at the stop itself: nothing seen earlier is
  credited later (no stale cache). The task succeeds at the stop that credits the last
  target.
- Sequence (`GThen`): each step is achieved (a plain step: holds at some snapshot; a
  multi-goal step: by its own stops) no earlier than the step before it was.

`holds(atom, i)` answers whether a fluent atom holds at snapshot `i`; the caller binds it
to checkers and world states (and caches as it likes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .goal import GAnd, GAtom, GNot, Goal, GOr, GTargets, GThen, _Goal

if TYPE_CHECKING:
    from fdc.sim_bridge.graph import SceneGraph
    from fdc.sim_bridge.state import Snapshot

    from .registry import Mode

Holds = Callable[[GAtom, int], bool]

STOP = "stop"


def evaluate(goal: _Goal | GAtom, i: int, holds: Holds) -> bool:
    """A plain (not multi-goal) goal at snapshot `i`."""
    if isinstance(goal, GAtom):
        return holds(goal, i)
    if isinstance(goal, GNot):
        return not evaluate(goal.body, i, holds)
    if isinstance(goal, GAnd):
        return all(evaluate(p, i, holds) for p in goal.parts)
    if isinstance(goal, GOr):
        return any(evaluate(p, i, holds) for p in goal.parts)
    raise ValueError(f"a {type(goal).__name__} has no truth value at one snapshot")


@dataclass(frozen=True)
class TargetRecord:
    """When one target (or the whole plain goal) was satisfied, if it was."""

    target: str  # the target entity, "goal" for a plain goal, "step N" in a sequence
    step: int | None  # the snapshot index where it counted
    note: str = ""


@dataclass(frozen=True)
class Verdict:
    success: bool
    end_step: int
    reason: str
    records: tuple[TargetRecord, ...] = field(default_factory=tuple)


def _is_stop(action: str | None) -> bool:
    return action is not None and action.split(" ", 1)[0] == STOP


def verify(goal: Goal, actions: Sequence[str | None], holds: Holds) -> Verdict:
    """Judge `goal` on a trajectory whose snapshot `i` was reached by `actions[i]`."""
    if not actions:
        return Verdict(False, -1, "the trajectory is empty")
    return _verify(goal, actions, holds, 0)


def _verify(goal: Goal, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    if isinstance(goal, GTargets):
        return _targets(goal, actions, holds, start)
    if isinstance(goal, GThen):
        return _then(goal, actions, holds, start)
    return _plain(goal, actions, holds, start)


def _plain(goal: Goal, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    stops = [i for i in range(start, len(actions)) if _is_stop(actions[i])]
    end = stops[0] if stops else len(actions) - 1
    first = next((i for i in range(start, end + 1) if evaluate(goal, i, holds)), None)
    where = f"the stop at step {end}" if stops else f"the last step ({end}; no explicit stop)"
    if evaluate(goal, end, holds):
        return Verdict(True, end, f"the goal holds at {where}", (TargetRecord("goal", end),))
    note = f"held first at step {first}, not at the end" if first is not None else ""
    return Verdict(
        False, end, f"the goal does not hold at {where}", (TargetRecord("goal", None, note),)
    )


def _targets(goal: GTargets, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    credited: dict[int, int] = {}  # target index -> step
    n = len(goal.targets)

    def records() -> tuple[TargetRecord, ...]:
        return tuple(TargetRecord(t.entity, credited.get(k)) for k, t in enumerate(goal.targets))

    for i in range(start, len(actions)):
        if not _is_stop(actions[i]):
            continue
        holding = [
            k
            for k, t in enumerate(goal.targets)
            if k not in credited and evaluate(t.goal, i, holds)
        ]
        if not holding:
            return Verdict(False, i, f"the stop at step {i} reached no new target", records())
        if goal.ordered:
            nxt = min(k for k in range(n) if k not in credited)
            if nxt not in holding:
                later = goal.targets[holding[0]].entity
                return Verdict(
                    False,
                    i,
                    f"the stop at step {i} reached `{later}` before `{goal.targets[nxt].entity}`",
                    records(),
                )
            credited[nxt] = i
        else:
            credited[holding[0]] = i
        if len(credited) == n:
            return Verdict(True, i, f"all {n} targets reached, the last at step {i}", records())
    missing = [t.entity for k, t in enumerate(goal.targets) if k not in credited]
    return Verdict(
        False,
        len(actions) - 1,
        f"{len(missing)} target(s) never reached at a stop: " + ", ".join(missing),
        records(),
    )


def _then(goal: GThen, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    records: list[TargetRecord] = []
    at = start
    for k, step in enumerate(goal.steps):
        if isinstance(step, GTargets | GThen):
            verdict = _verify(step, actions, holds, at)
            if not verdict.success:
                records.append(TargetRecord(f"step {k + 1}", None, verdict.reason))
                return Verdict(
                    False, verdict.end_step, f"step {k + 1}: {verdict.reason}", tuple(records)
                )
            at = verdict.end_step
        else:
            done = next((i for i in range(at, len(actions)) if evaluate(step, i, holds)), None)
            if done is None:
                records.append(TargetRecord(f"step {k + 1}", None))
                return Verdict(
                    False,
                    len(actions) - 1,
                    f"step {k + 1} of {len(goal.steps)} is never achieved after step {k}",
                    tuple(records),
                )
            at = done
        records.append(TargetRecord(f"step {k + 1}", at))
    return Verdict(True, at, f"all {len(goal.steps)} steps achieved in order", tuple(records))


def verify_snapshots(
    goals: Mapping[str, Goal],
    graph: SceneGraph,
    snapshots: Sequence[Snapshot],
    *,
    thresholds: Mapping[str, Mapping[str, float]] | None = None,
    mode: Mode | None = None,
) -> dict[str, Verdict]:
    """Judge each goal (by task id) on a recorded trajectory of `snapshots`.

    Fluent atoms are evaluated by the registered checkers on `SnapshotState`s, each atom
    at each snapshot at most once. `thresholds` maps a task id to its overrides.
    """
    from fdc.sim_bridge.trajectory import SnapshotState

    from .registry import Context, Mode, default_registry

    registry = default_registry()
    base = Context(graph=graph, mode=mode if mode is not None else Mode.STRICT)
    states = [SnapshotState(graph, s) for s in snapshots]
    actions = [s.action for s in snapshots]
    verdicts: dict[str, Verdict] = {}
    for task_id, goal in goals.items():
        overrides = (thresholds or {}).get(task_id, {})
        ctx = base.with_thresholds(overrides, registry) if overrides else base
        contexts: dict[int, Context] = {}
        cache: dict[tuple[str, tuple[str, ...], int], bool] = {}

        def holds(
            a: GAtom,
            i: int,
            ctx: Context = ctx,
            contexts: dict[int, Context] = contexts,
            cache: dict[tuple[str, tuple[str, ...], int], bool] = cache,
        ) -> bool:
            key = (a.predicate, a.args, i)
            found = cache.get(key)
            if found is None:
                at = contexts.get(i)
                if at is None:
                    at = contexts[i] = ctx.with_state(states[i])
                found = cache[key] = registry.evaluate(a.predicate, a.args, at)
            return found

        verdicts[task_id] = verify(goal, actions, holds)
    return verdicts
