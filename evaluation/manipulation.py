"""ManiTaskGen's scores of a manipulation trace: success, intermediate points, feedback.

`score_manipulation(task, actions, graph)` replays the agent's actions in the agent
environment (`fdc.agents.env`: the embedded world from the scene's initial
state, the task's step budget; actions past `call_end` or the budget are ignored) and
judges the recorded snapshots. A memory-manipulation task (`fdc.compiler.suite.
is_memory_manipulation`: "put the first object you moved back where you found it") is
replayed from the world the experience left behind (`after`) and scored as a process
task: success and the four stages of its relocation atoms.

- **success**: the task's ground goal verifies on the trajectory
  (`fdc.predicates.verify`: a plain goal where the episode ends, at `call_end` or at the
  last action; a THEN goal step after step).
- **process tasks** (levels 1-3, and memory-manipulation tasks): each relocation atom
  of the goal (`on`, `in-cell`, `inside`, `around`, `at-side`, `between`, `in-room`,
  `on-furniture`, `same-surface`: its first argument is the item) is a sub-task of 4
  stages of 25 points, each reached once the one before it is:
  1. at the source: the robot within reach of the item where it stands;
  2. holding the item;
  3. at the destination holding it: within reach of the destination surface (of the
     anchor's surface for `around`/`at-side`/`between`, of the other item's for
     `same-surface`, of any furniture surface for `on-furniture`; in the room for
     `in-room`);
  4. placed correctly: the atom holds where its step is judged.
  A conjunction scores the mean of its parts still to do when its step starts (the
  parts already true, such as "the anchor stays where it is", count only if broken),
  a disjunction its best part; other atoms (`is-open`, which `open` and `close`
  change, and their negations) 0 or 100. A step that is achieved scores 100, one that
  is not at most 75. A THEN goal (level 3) scores the
  mean of its steps; a step after one never achieved scores 0 (so "one step of two
  done" is 50 plus half the second's points).
- **outcome tasks** (level 4): points are the fraction of the goal's conjuncts to do
  (false in the initial state) that hold at the end, a conjunct that held at the start
  and is broken at the end counting as one more to do; a disjunctive goal takes its
  best disjunct. Success scores 100. `stage` is the quarter reached (4 on success).

Each result carries a `ReflectionNote`: the goal in words, the actions taken and what
came of them, the stage that failed and what the oracle would have done next: the
step-wise feedback ManiTaskGen gives agents.
See docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from pydantic import BaseModel, ConfigDict, Field

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import ManipulationEnv, within_reach
from fdc.core.limits import current
from fdc.predicates.algebra import (
    NotExpandable,
    children,
    expand_counts,
    is_atom,
    junction_parts,
    literal,
)
from fdc.predicates.builtin import default_registry
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
    to_pddl,
)
from fdc.predicates.registry import Context, Mode
from fdc.predicates.verify import Verdict, evaluate, verify
from fdc.sim_bridge.world.snapshot import SnapshotState

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import Snapshot

POINTS_PER_STAGE = 25.0
#: The stages of a relocation, by number (0: none reached).
STAGES: dict[int, str] = {
    1: "at the source surface",
    2: "holding the item",
    3: "at the destination holding it",
    4: "placed correctly",
}
#: A step that is not achieved scores at most this much.
UNFINISHED_CAP = 75.0


class ReflectionNote(BaseModel):
    """What went wrong, in the terms of ManiTaskGen's reflection notes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: str = Field(description="The instruction the agent was given.")
    goal_pddl: str = Field(description="The ground goal.")
    actions: list[str] = Field(
        default_factory=list, description="Each action taken and what came of it, in order."
    )
    failed_stage: int | None = Field(
        default=None, description="The first stage (1-4) not reached; None on success."
    )
    failed_stage_name: str = ""
    failed_part: str = Field(
        default="", description="The part of the goal that failed, in PDDL (and its step)."
    )
    oracle_next: AgentAction | None = Field(
        default=None, description="The action the oracle would have taken next."
    )
    advice: str = ""


class ManipulationResult(BaseModel):
    """The score of one manipulation trace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    success: bool
    points: float = Field(ge=0, le=100, description="ManiTaskGen's intermediate points.")
    stage: int = Field(ge=0, le=4, description="The stage reached (4: placed correctly).")
    steps: int = Field(ge=0, description="Actions taken (within the budget, to call_end).")
    sub_points: list[float] = Field(
        default_factory=list, description="Points of each step of a THEN goal (one otherwise)."
    )
    ignored: int = Field(default=0, description="Actions past call_end or the budget.")
    verdict: str = Field(default="", description="Why the goal holds or not (the verifier's).")
    note: ReflectionNote


@dataclass(frozen=True)
class _Part:
    """A scored part of a step: its points, the stage reached, the atom that failed."""

    points: float
    stage: int
    failed: Goal | None


class _Trace:
    """The replayed trajectory, with each atom judged at most once per snapshot."""

    def __init__(self, env: ManipulationEnv) -> None:
        self.env = env
        self.graph = env.graph
        self.snapshots: tuple[Snapshot, ...] = env.world.snapshots
        self.registry = default_registry()
        base = Context(graph=self.graph, mode=Mode.STRICT)
        t = env.task
        self.ctx = base.with_thresholds(t.thresholds, self.registry) if t.thresholds else base
        self._states: dict[int, SnapshotState] = {}
        self._cache: dict[tuple[GAtom, int], bool] = {}

    def state(self, i: int) -> SnapshotState:
        found = self._states.get(i)
        if found is None:
            found = self._states[i] = SnapshotState(self.graph, self.snapshots[i])
        return found

    def holds(self, a: GAtom, i: int) -> bool:
        key = (a, i)
        found = self._cache.get(key)
        if found is None:
            ctx = self.ctx.with_state(self.state(i))
            found = self._cache[key] = self.registry.evaluate(a.predicate, a.args, ctx)
        return found

    def true(self, g: Goal, i: int) -> bool:
        return bool(evaluate(g, i, self.holds))

    def reaches(self, i: int, what: str) -> bool:
        cfg = self.env.world.config
        st = self.state(i)
        return bool(within_reach(st.posed, st.agent_pose(), what, reach_m=cfg.reach_m,
                                 arm_reach_m=cfg.arm_reach_m))

    def at_destination(self, a: GAtom, i: int) -> bool:
        p, args = a.predicate, a.args
        if p == "in-room":
            pose = self.state(i).agent_pose()
            return bool(self.state(i).room_of((pose.x, pose.y)) == args[1])
        if p == "on-furniture":  # at any furniture surface
            posed = self.state(i).posed
            return any(self.reaches(i, s.id) for s in posed.surfaces()
                       if not self.graph.object(s.object_id).is_movable)
        dest = args[1]
        return self.graph.has(dest) and self.reaches(i, dest)

    def stage(self, a: GAtom, first: int, judged: int) -> int:
        """The stage a relocation atom reached over snapshots first..judged."""
        if self.true(a, judged):
            return 4
        item = a.args[0]
        window = range(first, judged + 1)
        held = [i for i in window if self.snapshots[i].held == item]
        if any(self.at_destination(a, i) for i in held):
            return 3
        if held:
            return 2
        if any(self.snapshots[i].held != item and self.reaches(i, item) for i in window):
            return 1
        return 0


def score_manipulation(task: TaskRecord, actions: list[AgentAction],
                       graph: SceneGraph, after: Snapshot | None = None) -> ManipulationResult:
    """Replay `actions` on `task` in the embedded world and score them (module doc);
    `after`: the world the experience left behind, where a memory-manipulation task
    starts (`ManipulationEnv`)."""
    env = ManipulationEnv(graph, after=after)
    env.reset(options={"task": task})
    ignored = 0
    for a in actions:
        if env.done:
            ignored += 1
            continue
        env.step(a)
    trace = _Trace(env)
    verdict = verify(task.goal, [s.action for s in trace.snapshots], trace.holds)
    outcome = task.level == 4 or "outcome" in task.tags
    try:  # partial credit is given by the parts of connectives: a count's expansion
        scored = expand_counts(task.goal, current().goal_atoms)
    except NotExpandable:
        scored = task.goal  # too large to take apart: all or nothing
    if outcome:
        points, stage, failed, sub = _score_outcome(scored, trace, verdict)
    else:
        points, stage, failed, sub = _score_process(scored, trace, verdict)
    if verdict.success:
        points, stage, failed = 100.0, 4, None
    note = _note(task, env, trace, failed, stage if failed is not None else None)
    return ManipulationResult(
        task_id=task.id, success=verdict.success, points=round(points, 4), stage=stage,
        steps=env.steps, sub_points=[round(p, 4) for p in sub], ignored=ignored,
        verdict=verdict.reason, note=note)


# ----------------------------------------------------------------------------- process


def _score_process(goal: Goal, trace: _Trace, verdict: Verdict
                   ) -> tuple[float, int, tuple[str, Goal] | None, list[float]]:
    last = len(trace.snapshots) - 1
    sequence = goal.kind == "then"
    steps: Sequence[Goal] = children(goal) if sequence else (goal,)
    sub: list[float] = []
    failed: tuple[str, Goal] | None = None
    stage = 4
    start = 0
    for k, step in enumerate(steps):
        where = f"step {k + 1} of {len(steps)}: " if len(steps) > 1 else ""
        if failed is not None:
            sub.append(0.0)
            continue
        if sequence:
            rec = verdict.records[k] if k < len(verdict.records) else None
            at = rec.step if rec is not None else None
        else:
            at = verdict.end_step if verdict.success else None
        if at is not None:
            sub.append(100.0)
            start = at
            continue
        judged = verdict.end_step if not sequence else last
        part = _score_part(step, trace, start, max(judged, start))
        sub.append(min(UNFINISHED_CAP, part.points))
        stage = min(part.stage, 3)
        failed = (where, part.failed if part.failed is not None else step)
    return sum(sub) / len(sub), stage, failed, sub


def _score_part(g: Goal, trace: _Trace, first: int, judged: int) -> _Part:
    match g:
        case GAtom() if g.predicate in default_registry().relocating():
            s = trace.stage(g, first, judged)
            return _Part(POINTS_PER_STAGE * s, s, None if s == 4 else g)
        case GAtom() | GNot():  # a `not` judged whole, as atoms that relocate nothing
            ok = trace.true(g, judged)
            return _Part(100.0 if ok else 0.0, 4 if ok else 0, None if ok else g)
        case GOr():
            parts = [_score_part(p, trace, first, judged) for p in g.parts]
            if not parts:
                return _Part(0.0, 0, g)
            return max(parts, key=lambda p: p.points)
        case GAnd():
            todo = [p for p in g.parts if not trace.true(p, first)] or list(g.parts)
            parts = [_score_part(p, trace, first, judged) for p in todo]
            if not parts:
                return _Part(100.0, 4, None)
            worst = min(parts, key=lambda p: (p.stage, p.points))
            return _Part(sum(p.points for p in parts) / len(parts), worst.stage, worst.failed)
        case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
            return _Part(0.0, 0, g)  # a multi-goal part: no stages
        case _:
            assert_never(g)


# ----------------------------------------------------------------------------- outcome


def _score_outcome(goal: Goal, trace: _Trace, verdict: Verdict
                   ) -> tuple[float, int, tuple[str, Goal] | None, list[float]]:
    end = verdict.end_step
    options = list(junction_parts(goal, "or")) or [goal]
    best: tuple[float, Goal | None] = (-1.0, None)
    for option in options:
        parts = list(junction_parts(option, "and"))
        todo = [p for p in parts if not trace.true(p, 0)]
        done = [p for p in todo if trace.true(p, end)]
        broken = [p for p in parts if p not in todo and not trace.true(p, end)]
        need = len(todo) + len(broken)
        frac = len(done) / need if need else 1.0
        missing = [p for p in todo if p not in done] + broken
        if frac > best[0]:
            best = (frac, missing[0] if missing else None)
    frac, failed = best
    points = 100.0 * frac
    stage = min(3, int(frac * 4))
    return points, stage, ("", failed) if failed is not None else None, [points]


# ----------------------------------------------------------------------------- feedback


def _note(task: TaskRecord, env: ManipulationEnv, trace: _Trace,
          failed: tuple[str, Goal] | None, stage: int | None) -> ReflectionNote:
    lines = []
    for k, r in enumerate(env.records, 1):
        what = _action_text(r.action) if r.action is not None else "(not an action)"
        result = "done" if r.ok else f"refused: {r.reason}"
        lines.append(f"{k}. {what}: {result}")
    goal_text = task.instructions[0] if task.instructions else task.goal_pddl
    if failed is None:
        return ReflectionNote(goal=goal_text, goal_pddl=task.goal_pddl, actions=lines,
                              advice="the goal holds: nothing to correct")
    where, part = failed
    atom_stage = stage or 0
    if is_atom(part) and part.predicate in default_registry().relocating():
        atom_stage = trace.stage(part, 0, len(trace.snapshots) - 1)
    next_action, advice = oracle_next(env, part, atom_stage)
    name = STAGES.get(min(atom_stage + 1, 4), "")
    return ReflectionNote(
        goal=goal_text, goal_pddl=task.goal_pddl, actions=lines,
        failed_stage=min(atom_stage + 1, 4), failed_stage_name=name,
        failed_part=where + to_pddl(part), oracle_next=next_action, advice=advice)


def oracle_next(env: ManipulationEnv, part: Goal, stage: int
                ) -> tuple[AgentAction | None, str]:
    """What the oracle would do next, from the world `env` ended in, towards `part`
    (a relocation atom at `stage`, or a negated one), and why."""
    from fdc.agents.oracle import choose_placement, clear_destinations, destinations

    w = env.world
    posed = w.state.posed
    held = w.held_object()
    door = _door(part)
    if door is not None:
        furniture, value = door
        verb = "open" if value else "close"
        doors = env.doors(furniture)
        if not doors:
            return None, f"{verb} `{furniture}`: it has no door or drawer"
        if held is not None:
            return act(ActionName.PLACE, env.at_surface or ""), \
                f"put `{held}` down first: the hand must be empty to {verb} `{furniture}`"
        if not env.reachable(furniture):
            return act(ActionName.GO_TO, doors[0].id), f"go to `{furniture}` to {verb} it"
        return act(ActionName.OPEN if value else ActionName.CLOSE, furniture), \
            f"{verb} `{furniture}`"
    lit = literal(part)
    if lit is None or lit[0].predicate not in default_registry().relocating():
        return None, (f"make {to_pddl(part)} true: the action space has no action for it"
                      if part.kind != "not" else
                      f"make {to_pddl(part)} true: the action space cannot change it")
    atom, positive = lit
    negative = not positive
    item = atom.args[0]
    if held is not None and held != item:
        here = env.at_surface or posed.support_of(held) or ""
        return act(ActionName.PLACE, here), f"put `{held}` down first: the hand is needed"
    shut = [] if negative else [
        x for x in dict.fromkeys(x for x, _ in destinations(env, atom))
        if posed.surface(x).container is not None and not posed.surface(x).is_open]
    if held is None and shut and posed.enclosing_container(item) is None:
        if not env.reachable(shut[0]):
            return act(ActionName.GO_TO, shut[0]), \
                f"go to `{shut[0]}` to open it before fetching `{item}`"
        return act(ActionName.OPEN, shut[0]), \
            f"open `{shut[0]}` while the hand is empty, then fetch `{item}`"
    if held is None:
        src = posed.support_of(item)
        closed = posed.enclosing_container(item)
        if closed is not None:
            if not env.reachable(closed.id):
                return act(ActionName.GO_TO, closed.id), \
                    f"go to `{closed.id}`, where `{item}` is shut in"
            return act(ActionName.OPEN, closed.id), f"open `{closed.id}` to reach `{item}`"
        if not env.reachable(item):
            return act(ActionName.GO_TO, src), f"go to `{src}`, where `{item}` stands"
        return act(ActionName.PICK, item), f"pick `{item}`"
    # holding the item
    if negative:
        dests = clear_destinations(env, item, [atom])
        if not dests:
            return None, f"no surface takes `{item}` away from where it must not be"
        if not env.reachable(dests[0]):
            return act(ActionName.GO_TO, dests[0]), f"take `{item}` to `{dests[0]}`"
        return act(ActionName.PLACE, dests[0]), f"put `{item}` on `{dests[0]}`"
    choice = choose_placement(env, atom)
    if choice is None:
        if shut:
            return act(ActionName.PLACE, env.at_surface or ""), \
                f"put `{item}` down: open `{shut[0]}` with an empty hand, then bring it"
        return None, f"no placement of `{item}` makes {to_pddl(atom)} true from here"
    surface, labels = choice
    if not env.reachable(surface):
        return act(ActionName.GO_TO, surface), f"carry `{item}` to `{surface}`"
    where = f" in {', '.join(labels)}" if labels else ""
    return act(ActionName.PLACE, surface, labels), f"place `{item}` on `{surface}`{where}"


def _door(part: Goal) -> tuple[str, bool] | None:
    """(furniture, whether it must be open) for an `is-open` literal, else None."""
    lit = literal(part)
    if lit is not None and lit[0].predicate == "is-open":
        return lit[0].args[0], lit[1]
    return None


def act(name: ActionName, target: str | None = None, regions: Sequence[str] = ()
        ) -> AgentAction:
    return AgentAction(action=name, target=target, regions=list(regions))


def _action_text(a: AgentAction) -> str:
    parts = [a.action.value] + ([a.target] if a.target else [])
    if a.regions:
        parts.append("[" + ", ".join(a.regions) + "]")
    return " ".join(parts)
