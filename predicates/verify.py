"""Verifying a ground goal on a trajectory: FindingDory's multi-goal rules, done right.

The trajectory is a sequence of snapshots, each with the action that led to it. Rules:
- A plain goal is judged where the episode ends: at the first explicit `stop`, or at the
  last snapshot when the trajectory has no stop (a manipulation run that simply ends).
- Multi-goal (`GTargets`): a target counts only at an explicit stop while its goal holds
  there; each stop credits at most one new target; a stop that credits none fails the
  task; in ordered form, a stop where a later target holds but the next one does not
  fails the task. Unordered targets are credited by a maximum matching of stops to the
  targets each reached (a stop credits none only when the stops so far cannot each
  have a target of their own), so a state where more atoms hold never fails a run that
  succeeded: the relaxed modes never score below the strict one. Goals are evaluated
  at the stop itself: nothing seen earlier is credited later (no stale cache). The task
  succeeds at the stop that credits the last target.
- Sequence (`GThen`): each step is achieved (a plain step: holds at some snapshot; a
  multi-goal step: by its own stops) no earlier than the step before it was.

- Checklist (`GChecklist`, PARTNR's evaluation): judged up to the first stop (else the
  last snapshot). At each snapshot the propositions whose dependencies hold (judged on
  the snapshots before) are queried, the others count as false there; each records the
  snapshot it was first satisfied at, and the entities that filled its roles then. A
  `count` of n is n propositions, the k-th needing k items (PARTNR's unrolling, its
  constraints and dependencies carried over as PARTNR carries them). Constraints then
  invalidate propositions: out of order, not holding at the end, another (the same)
  entity than the first one satisfied in the group. Percent complete: the share that
  counts; success: all of them.

`holds(atom, i)` answers whether a fluent atom holds at snapshot `i`; the caller binds it
to checkers and world states (and caches as it likes). A `count` or `cluster` node that
sets its own thresholds is judged with `holds.tuned(thresholds)` (`TunableHolds`).
See docs/predicates.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Protocol, assert_never, runtime_checkable

from fdc.predicates.goal import (
    DifferentConstraint,
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
    OrderConstraint,
    SameConstraint,
    TerminalConstraint,
    atom,
    is_multi_goal,
)

if TYPE_CHECKING:
    from fdc.predicates.registry import Context, Mode, Registry
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot, WorldState

Holds = Callable[[GAtom, int], bool]

STOP = "stop"

#: The entity (or, for a cluster's group, the entities) that filled a role.
Filler = str | tuple[str, ...]


@runtime_checkable
class TunableHolds(Protocol):
    """A `holds` that can also judge atoms with some checker thresholds overridden."""

    def __call__(self, a: GAtom, i: int, /) -> bool: ...

    def tuned(self, thresholds: Mapping[str, float]) -> Holds: ...


def _node_holds(node: GCount | GCluster, holds: Holds) -> Holds:
    if not node.thresholds:
        return holds
    if isinstance(holds, TunableHolds):
        return holds.tuned(node.thresholds)
    names = ", ".join(sorted(node.thresholds))
    raise ValueError(f"a {node.kind} sets checker thresholds ({names}), and this `holds` "
                     "cannot apply them (it has no `tuned` method)")


def evaluate(goal: Goal, i: int, holds: Holds) -> bool:
    """A plain (not multi-goal) goal at snapshot `i`."""
    match goal:
        case GAtom():
            return holds(goal, i)
        case GNot():
            return not evaluate(goal.body, i, holds)
        case GAnd():
            return all(evaluate(p, i, holds) for p in goal.parts)
        case GOr():
            return any(evaluate(p, i, holds) for p in goal.parts)
        case GCount():
            if goal.op == "at-least":
                return count_fillers(goal, goal.number, i, holds) is not None
            return bool(goal.accepts(count_satisfied(goal, i, holds)))
        case GCluster():
            return cluster_fillers(goal, i, holds) is not None
        case GTargets() | GThen() | GChecklist():
            raise ValueError(f"a {type(goal).__name__} has no truth value at one snapshot")
        case _:
            assert_never(goal)


def count_fillers(goal: GCount, k: int, i: int, holds: Holds) -> dict[str, Filler] | None:
    """Whether at least `k` items satisfy the count at snapshot `i`, and if so who filled
    its roles, found as PARTNR finds them: the k-th satisfying item in list order with
    the first entity of `others` it relates to; with `same_other`, the first entity of
    `others` that k items relate to, and the k-th of them. None: fewer than k."""
    h = _node_holds(goal, holds)
    if goal.same_other:
        for other in goal.others:
            hits = [x for x in goal.items if h(goal.atom_for(x, other), i)]
            if len(hits) >= k:
                return {"item": hits[k - 1], "other": other}
        return None
    found = 0
    for x in goal.items:
        if not goal.others:
            if h(goal.atom_for(x), i):
                found += 1
                if found == k:
                    return {"item": x}
            continue
        hit = next((y for y in goal.others if h(goal.atom_for(x, y), i)), None)
        if hit is not None:
            found += 1
            if found == k:
                return {"item": x, "other": hit}
    return None


def count_satisfied(goal: GCount, i: int, holds: Holds) -> int:
    """How many items satisfy the count at snapshot `i` (with `same_other`, the most that
    relate to one entity of `others`): every candidate is judged, once."""
    h = _node_holds(goal, holds)
    if goal.same_other:
        return max(sum(1 for x in goal.items if h(goal.atom_for(x, y), i))
                   for y in goal.others)
    if not goal.others:
        return sum(1 for x in goal.items if h(goal.atom_for(x), i))
    return sum(1 for x in goal.items if any(h(goal.atom_for(x, y), i) for y in goal.others))


def cluster_fillers(goal: GCluster, i: int, holds: Holds) -> dict[str, Filler] | None:
    """The members of each group in the first cluster that satisfies the node at
    snapshot `i` (the largest first, ties by their sorted members), or None."""
    import networkx as nx

    h = _node_holds(goal, holds)
    graph = nx.Graph()
    ents = goal.entities
    graph.add_nodes_from(ents)
    for n, a in enumerate(ents):
        for b in ents[n + 1:]:
            if h(atom(goal.relation, a, b), i) or h(atom(goal.relation, b, a), i):
                graph.add_edge(a, b)
    parts = sorted((sorted(c) for c in nx.connected_components(graph)),
                   key=lambda c: (-len(c), c))
    for members in parts:
        inside = set(members)
        if all(len(inside.intersection(g)) >= n
               for g, n in zip(goal.groups, goal.numbers, strict=True)):
            return {f"group-{j}": tuple(e for e in g if e in inside)
                    for j, g in enumerate(goal.groups)}
    return None


@dataclass(frozen=True)
class TargetRecord:
    """When one target (or the whole plain goal) was satisfied, if it was."""

    target: str  # the target entity, "goal" for a plain goal, "step N" in a sequence,
    # "proposition N" (or "proposition N (k/n)" for the k-th of a count) in a checklist
    step: int | None  # the snapshot index where it counted (checklist: first satisfied)
    note: str = ""
    counts: bool | None = None  # checklist: whether it counts after the constraints


@dataclass(frozen=True)
class Verdict:
    success: bool
    end_step: int
    reason: str
    records: tuple[TargetRecord, ...] = field(default_factory=tuple)
    percent_complete: float | None = None  # checklists: the share of propositions that count


def _is_stop(action: str | None) -> bool:
    return action is not None and action.split(" ", 1)[0] == STOP


def verify(goal: Goal, actions: Sequence[str | None], holds: Holds) -> Verdict:
    """Judge `goal` on a trajectory whose snapshot `i` was reached by `actions[i]`."""
    if not actions:
        return Verdict(False, -1, "the trajectory is empty")
    return _verify(goal, actions, holds, 0)


def _verify(goal: Goal, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    match goal:
        case GTargets():
            return _targets(goal, actions, holds, start)
        case GThen():
            return _then(goal, actions, holds, start)
        case GChecklist():
            stops = [i for i in range(start, len(actions)) if _is_stop(actions[i])]
            return judge_checklist(goal, start, stops[0] if stops else len(actions) - 1, holds)
        case GAtom() | GNot() | GAnd() | GOr() | GCount() | GCluster():
            return _plain(goal, actions, holds, start)
        case _:
            assert_never(goal)


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

    reach: dict[int, list[int]] = {}  # stop -> the targets whose goal holds there
    for i in range(start, len(actions)):
        if not _is_stop(actions[i]):
            continue
        reach[i] = [k for k, t in enumerate(goal.targets) if evaluate(t.goal, i, holds)]
        if goal.ordered:
            holding = [k for k in reach[i] if k not in credited]
            nxt = min(k for k in range(n) if k not in credited)
            if not holding:
                return Verdict(False, i, f"the stop at step {i} reached no new target",
                               records())
            if nxt not in holding:
                later = goal.targets[holding[0]].entity
                return Verdict(
                    False,
                    i,
                    f"the stop at step {i} reached `{later}` before `{goal.targets[nxt].entity}`",
                    records(),
                )
            credited[nxt] = i
        elif not _augment(i, reach, credited):
            return Verdict(False, i, f"the stop at step {i} reached no new target", records())
        if len(credited) == n:
            return Verdict(True, i, f"all {n} targets reached, the last at step {i}", records())
    missing = [t.entity for k, t in enumerate(goal.targets) if k not in credited]
    return Verdict(
        False,
        len(actions) - 1,
        f"{len(missing)} target(s) never reached at a stop: " + ", ".join(missing),
        records(),
    )


def _augment(stop: int, reach: Mapping[int, Sequence[int]], credited: dict[int, int]) -> bool:
    """Credit `stop` with a target, moving earlier stops' credits to other targets they
    reached when that frees one (an augmenting path: Kuhn's maximum bipartite matching,
    one stop at a time). Unordered targets are credited by a maximum matching of stops to
    targets, not to the first target each stop reaches: that greedy choice failed a
    stop whose only target an earlier stop had taken though the earlier stop reached
    another too, so the relaxed success rates (more atoms hold) could fall below the
    strict one. A stop fails exactly when the stops so far cannot each credit their own
    target."""
    seen: set[int] = set()

    def free(s: int) -> bool:
        for k in reach[s]:
            if k in seen:
                continue
            seen.add(k)
            holder = credited.get(k)
            if holder is None or free(holder):
                credited[k] = s
                return True
        return False

    return free(stop)


def _then(goal: GThen, actions: Sequence[str | None], holds: Holds, start: int) -> Verdict:
    records: list[TargetRecord] = []
    at = start
    for k, step in enumerate(goal.steps):
        if is_multi_goal(step):
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


# ----------------------------------------------------------------------------- checklists
# PARTNR's evaluation engine, on fdc's goals: propositions unrolled, queried under their
# dependencies step by step, then judged by each constraint independently.


@dataclass(frozen=True)
class _Unit:
    """One counted proposition: proposition `p` needing `k` of its count's items."""

    p: int
    k: int


@dataclass
class _Dependency:
    units: list[int]
    depends_on: tuple[int, ...]
    relation: str
    mode: str


@dataclass
class _Order:
    ancestors: dict[int, set[int]]

    def unrolled(self, orig: int, new: int) -> list[_Rule]:
        if orig in self.ancestors:
            self.ancestors[new] = set(self.ancestors[orig])
        return []


@dataclass
class _Terminal:
    units: list[int]

    def unrolled(self, orig: int, new: int) -> list[_Rule]:
        if orig in self.units:
            self.units.append(new)
        return []


@dataclass
class _Fillers:
    units: list[int]
    roles: dict[int, str]
    same: bool

    def unrolled(self, orig: int, new: int) -> list[_Rule]:
        if orig not in self.units:
            return []
        if self.same:  # the new unit joins the group
            self.units.append(new)
            self.roles[new] = self.roles[orig]
            return []
        # a new group where the new unit stands for the original (as PARTNR does)
        rest = [u for u in self.units if u != orig]
        return [_Fillers([new, *rest], {new: self.roles[orig], **{u: self.roles[u] for u in rest}},
                         same=False)]


_Rule = _Order | _Terminal | _Fillers


def _match(a: Filler, b: Filler) -> bool:
    """Two fillers match when they share an entity (a cluster's group fills with many)."""
    sa = {a} if isinstance(a, str) else set(a)
    sb = {b} if isinstance(b, str) else set(b)
    return bool(sa & sb)


def _units_of(goal: Goal) -> int:
    match goal:
        case GCount():
            return goal.number
        case _:
            return 1


def unroll(goal: GChecklist) -> tuple[list[_Unit], list[_Dependency], list[_Rule]]:
    """PARTNR's `unroll_propositions_with_number`: a count of n is kept as the unit that
    needs n, and n - 1 units needing 1 .. n-1 are appended after every proposition;
    each constraint and dependency that names the proposition names the new units as
    PARTNR's do (a dependency's `depends_on` is never unrolled)."""
    import networkx as nx

    units = [_Unit(p, _units_of(g)) for p, g in enumerate(goal.propositions)]
    deps = [_Dependency(list(d.propositions), d.depends_on, d.relation, d.mode)
            for d in goal.dependencies]
    rules: list[_Rule] = []
    for c in goal.constraints:
        match c:
            case OrderConstraint():
                dag = nx.DiGraph(list(c.edges))
                rules.append(_Order({n: set(nx.ancestors(dag, n)) for n in dag}))
            case TerminalConstraint():
                rules.append(_Terminal(list(c.propositions)))
            case SameConstraint() | DifferentConstraint():
                rules.append(_Fillers(list(c.propositions),
                                      dict(zip(c.propositions, c.roles, strict=True)),
                                      same=c.kind == "same"))
            case _:
                assert_never(c)
    for p, g in enumerate(goal.propositions):
        for k in range(1, _units_of(g)):
            new = len(units)
            units.append(_Unit(p, k))
            for j in range(len(rules)):
                rules.extend(rules[j].unrolled(p, new))
            for d in deps:
                if p in d.units:
                    d.units.append(new)
    return units, deps, rules


@dataclass(frozen=True)
class _Result:
    satisfied: bool
    fillers: Mapping[str, Filler] = field(default_factory=dict)


def _outcome(goal: Goal, k: int, i: int, holds: Holds) -> _Result:
    match goal:
        case GCount():
            f = count_fillers(goal, k, i, holds)
            return _Result(f is not None, f or {})
        case GCluster():
            f = cluster_fillers(goal, i, holds)
            return _Result(f is not None, f or {})
        case _:
            return _Result(evaluate(goal, i, holds))


def _dependency_holds(d: _Dependency, history: Sequence[Sequence[_Result]]) -> bool:
    def now(p: int) -> bool:
        return bool(history) and history[-1][p].satisfied

    def ever(p: int) -> bool:
        return any(state[p].satisfied for state in history)

    def stopped(p: int) -> bool:
        return any(a[p].satisfied and not b[p].satisfied for a, b in pairwise(history))

    def never(p: int) -> bool:
        return not ever(p)

    tests: dict[str, Callable[[int], bool]] = {
        "while-satisfied": now, "after-satisfied": ever, "after-unsatisfied": stopped,
        "before-satisfied": never}
    results = (tests[d.relation](p) for p in d.depends_on)
    return all(results) if d.mode == "all" else any(results)


def judge_checklist(goal: GChecklist, start: int, end: int, holds: Holds) -> Verdict:
    """PARTNR's success and percent complete of `goal` on snapshots `start` .. `end`."""
    units, deps, rules = unroll(goal)
    first: list[int | None] = [None] * len(units)
    at_first: list[_Result] = [_Result(False)] * len(units)
    history: list[list[_Result]] = []
    for i in range(start, end + 1):
        asked = set(range(len(units)))
        for d in deps:
            if not _dependency_holds(d, history):
                asked.difference_update(d.units)
        state = [_Result(False)] * len(units)
        for u in sorted(asked):
            unit = units[u]
            state[u] = _outcome(goal.propositions[unit.p], unit.k, i, holds)
            if state[u].satisfied and first[u] is None:
                first[u], at_first[u] = i, state[u]
        history.append(state)
    notes = [""] * len(units)
    for rule in rules:
        for u, why in _broken(rule, units, first, at_first, history).items():
            notes[u] = notes[u] or why
    counts = [first[u] is not None and not notes[u] for u in range(len(units))]
    records = []
    for u in sorted(range(len(units)), key=lambda u: (units[u].p, units[u].k)):
        unit, n = units[u], _units_of(goal.propositions[units[u].p])
        name = f"proposition {unit.p}" + (f" ({unit.k}/{n})" if n > 1 else "")
        note = notes[u] if first[u] is not None else "never satisfied"
        records.append(TargetRecord(name, first[u], note, counts[u]))
    done = sum(counts)
    share = done / len(units)
    where = f"up to step {end}"
    reason = (f"all {len(units)} propositions count ({where})" if done == len(units) else
              f"{done} of {len(units)} propositions count ({where})")
    return Verdict(done == len(units), end, reason, tuple(records), share)


def _name(units: Sequence[_Unit], u: int) -> str:
    return f"proposition {units[u].p}"


def _broken(rule: _Rule, units: Sequence[_Unit], first: Sequence[int | None],
            at_first: Sequence[_Result], history: Sequence[Sequence[_Result]]
            ) -> dict[int, str]:
    """The units the rule invalidates, each with why (PARTNR's constraint semantics)."""
    out: dict[int, str] = {}
    if isinstance(rule, _Order):
        for u, before in rule.ancestors.items():
            for a in sorted(before):
                if first[a] is None:
                    out[u] = f"{_name(units, a)} must be satisfied first and never was"
                    break
                if first[u] is not None and first[u] <= first[a]:  # type: ignore[operator]
                    out[u] = (f"satisfied at step {first[u]}, not after {_name(units, a)} "
                              f"(step {first[a]})")
                    break
        return out
    if isinstance(rule, _Terminal):
        for u in rule.units:
            if first[u] is not None and history and not history[-1][u].satisfied:
                out[u] = f"satisfied at step {first[u]}, but no longer at the end"
        return out
    done = [u for u in rule.units if first[u] is not None]
    if len(done) < 2:
        return out
    done.sort(key=lambda u: first[u])  # type: ignore[arg-type,return-value]
    pivot = done[0]
    seen: list[tuple[int, Filler]] = [(pivot, at_first[pivot].fillers[rule.roles[pivot]])]
    for u in done[1:]:
        role = rule.roles[u]
        value = at_first[u].fillers[role]
        if rule.same and not _match(value, seen[0][1]):
            out[u] = (f"its {role} was {_text(value)}, not {_text(seen[0][1])} as for "
                      f"{_name(units, pivot)}")
        elif not rule.same:
            clash = next((w for w, v in seen if _match(value, v)), None)
            if clash is not None:
                out[u] = f"its {role} {_text(value)} was already used by {_name(units, clash)}"
            seen.append((u, value))
    return out


def _text(value: Filler) -> str:
    return f"`{value}`" if isinstance(value, str) else ", ".join(f"`{v}`" for v in value)


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
    given = thresholds or {}
    return dict(verify_each(((task_id, goal, given.get(task_id, {}))
                             for task_id, goal in goals.items()), graph, snapshots, mode=mode))


def verify_each(
    tasks: Iterable[tuple[str, Goal, Mapping[str, float]]],
    graph: SceneGraph,
    snapshots: Sequence[Snapshot],
    *,
    mode: Mode | None = None,
) -> Iterator[tuple[str, Verdict]]:
    """`verify_snapshots` of tasks (an id, a goal, its threshold overrides) given and
    judged one at a time: each task's verdict is yielded before the next task is read,
    and nothing of a task is kept after it, so a stream of any length is judged in the
    memory of one task (`fdc verify`). `EvaluationError` names the task at fault;
    `KeyError` an unknown threshold."""
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.registry import Context, EvaluationError, Mode
    from fdc.sim_bridge.world.snapshot import SnapshotState

    registry = default_registry()
    base = Context(graph=graph, mode=mode if mode is not None else Mode.STRICT)
    states = [SnapshotState(graph, s) for s in snapshots]
    actions = [s.action for s in snapshots]
    for task_id, goal, overrides in tasks:
        ctx = base.with_thresholds(overrides, registry) if overrides else base
        try:
            verdict = verify(goal, actions, _CheckerHolds(registry, ctx, states))
        except EvaluationError as e:
            raise EvaluationError(f"task `{task_id}`: {e}") from None
        yield task_id, verdict


def judge_at_end(goal: Goal, graph: SceneGraph,
                 thresholds: Mapping[str, float] | None = None
                 ) -> Callable[[Snapshot], bool] | None:
    """The goal judged by the checkers on one snapshot, as `verify_snapshots` judges a
    plain goal at the stop (for a plan's replay to look for spots that reach it); None
    for a goal judged over a whole trajectory (`is_multi_goal`)."""
    if is_multi_goal(goal):
        return None
    overrides = {"": dict(thresholds or {})}

    def reached(snapshot: Snapshot) -> bool:
        return verify_snapshots({"": goal}, graph, [snapshot], thresholds=overrides)[""].success

    return reached


class _CheckerHolds:
    """`holds` over the registry's checkers and one state per snapshot: each atom judged
    at most once per snapshot (and per threshold overrides)."""

    def __init__(self, registry: Registry, ctx: Context, states: Sequence[WorldState]) -> None:
        self.registry = registry
        self.ctx = ctx
        self.states = states
        self.contexts: dict[int, Context] = {}
        self.cache: dict[tuple[str, tuple[str, ...], int], bool] = {}
        self.variants: dict[tuple[tuple[str, float], ...], _CheckerHolds] = {}

    def __call__(self, a: GAtom, i: int, /) -> bool:
        key = (a.predicate, a.args, i)
        found = self.cache.get(key)
        if found is None:
            at = self.contexts.get(i)
            if at is None:
                at = self.contexts[i] = self.ctx.with_state(self.states[i])
            found = self.cache[key] = self.registry.evaluate(a.predicate, a.args, at)
        return found

    def tuned(self, thresholds: Mapping[str, float]) -> Holds:
        key = tuple(sorted(thresholds.items()))
        got = self.variants.get(key)
        if got is None:
            got = self.variants[key] = _CheckerHolds(
                self.registry, self.ctx.with_thresholds(thresholds, self.registry), self.states)
        return got
