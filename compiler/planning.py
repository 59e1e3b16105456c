"""Planning certificates: a task's ground goal as a classical planning problem, solved.

The domain is fdc-home's actions (`domain/fdc-home.pddl`): a symbolic abstraction of the
embedded world in which the robot navigates to any furniture surface or item top, picks
an item from the surface it rests on when nothing stands on it (or, walking to it, from
the floor, where it rests on no surface: `pick-from-floor`), and puts it down with one
placement action per geometric fluent (`place`, `place-in-cell`, `place-around`,
`place-at-side`, `place-between`, `place-inside`) or on another item's top
(`place-on-item`); a fluent becomes true only by the placement that establishes it, and
false when an item it relates is picked up. Receptacles of articulated furniture are
reached only while it is open.

`PlanningWorld` holds what every task of one scene shares: the domain read by
unified-planning (`either` parameter types widened to their closest common supertype,
which unified-planning lacks; numeric functions other than `total-cost` left out), the
scene's facts and its initial state. `PlanningWorld.build` makes one task's problem:

- objects: the scene's furniture and rooms, the surfaces a plan may use (those named,
  those the kept items start on, one spare: see `_objects`), what stands on the items kept
  (`pick` needs an item's tops clear, as the world does) and the items the goal names,
  except items it names only in literals that are false at the start and must stay
  false (`(not (on cup_3 table|top))` for every cup not on the table): no plan needs to
  move them, so leaving them out changes no answer and keeps grounding small;
- initial state: every fluent atom over those objects that the registered checkers
  find true in the scene's initial state, but those judged from where the robot stands
  (`Registry.viewer_relative`, `at-side`: the same spot is "left" of an anchor from the
  table's front and "right" from its rear; where the robot will stand is no part of the
  abstraction, so none holds at the start, and only the placement that makes one, seen
  from where the robot then stands, makes it true), and
  the static facts the actions read;
- actions: fdc-home's, but the placement actions the goal has no use for (each does
  what `place` does plus a fluent neither the goal nor any precondition reads);
- goal: the ground goal, a `same-surface` literal as its definition over `on` (no action
  sets it): `(exists (?s - surface) (and (on a ?s) (on b ?s)))` over the surfaces kept,
  which include every surface its items start `on`, its items kept whatever the
  literal's polarity (moving either item changes it); a sequence (`then`) or
  multi-goal (`targets`) gets one checkpoint action per step, whose precondition is the
  step and the step before it reached, so the plan achieves the steps in order, as
  `verify` judges them; a conjunction of disjunctions is checked conjunct by conjunct
  with the world frozen in between (`_checkpoints`), since a translator would expand
  the product of its parts; so is one holding a positive `same-surface` (each
  existential becomes a parameter of the goal's condition: their product, otherwise).

`solve` runs Fast Downward (up-fast-downward), or pyperplan (up-pyperplan) on the problem
compiled to STRIPS by unified-planning's compilers when Fast Downward is not available.
`holds_initially` says whether the abstraction finds a task's goal reached before any
action (`fdc audit` compares it with the checkers' judgement).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar, assert_never

from fdc.core.errors import FdcError
from fdc.core.limits import current
from fdc.predicates.algebra import NotExpandable, children, expand_counts, is_atom, junction_parts
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
    atom,
    atoms,
    is_multi_goal,
    joined,
)
from fdc.predicates.registry import Context, Kind, Registry
from fdc.sim_bridge.world.plans import PlanStep
from fdc.sim_bridge.world.snapshot import SnapshotState

from . import ast as A
from .printer import print_unit

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot, WorldState

    from .check import DomainInfo
    from .scene_facts import SceneFacts

#: The checkpoint actions and fluents a sequence or multi-goal adds (not fdc-home names).
CHECKPOINT = "fdc-reach"
STAGE = "fdc-reached"
#: The goal predicate no action sets, planned as its definition over `on`.
SAME_SURFACE = "same-surface"
IN_CELL = "in-cell"
#: Planning only: the item may be in the cell (`_may_be_in_cell`).
MAY_BE_IN_CELL = "fdc-may-be-in-cell"
#: Planning-only fluents of a forbidden placement: `fdc-as-refused-K-J`, occupant J of
#: the surface of the K-th refusal stands as it stood then (`_forbid`).
AS_REFUSED = "fdc-as-refused"

N = TypeVar("N", bound=A.Node)

Status = Literal["solved", "unsolvable", "timeout", "error", "refused"]
#: Why the embedded world refused the plans of a `refused` certificate: `room`, it
#: refused a placement for lack of room (free space, which the abstraction does not
#: model) in every plan; `action`, it refused an action the abstraction allows for
#: another reason (the two models disagree on what the robot can do); `goal`, it
#: carried out every action and the checkers did not judge the goal reached at the end
#: (the abstraction and the checkers disagree on a predicate of the goal).
Cause = Literal["room", "action", "goal"]


class PlanningError(FdcError):
    """A goal the planning abstraction cannot express (a nested multi-goal form)."""


# --------------------------------------------------------------------------- the domain


def planning_domain(info: DomainInfo) -> str:
    """fdc-home as planners read it: `(either a b)` parameters widened to the closest
    common supertype, only the `total-cost` function, no fdc extensions."""

    def widen(names: Sequence[A.TypedName]) -> tuple[A.TypedName, ...]:
        return tuple(
            _with(n, types=(_common_type(info, n.types),)) if len(n.types) > 1 else n
            for n in names)

    d = info.domain
    domain = A.Domain(
        name=d.name,
        requirements=(*(r for r in d.requirements if r != ":numeric-fluents"), ":action-costs"),
        types=d.types,
        constants=d.constants,
        predicates=tuple(_with(p, parameters=widen(p.parameters)) for p in d.predicates),
        functions=tuple(f for f in d.functions if f.name == "total-cost"),
        actions=tuple(_with(a, parameters=widen(a.parameters)) for a in d.actions),
    )
    return print_unit(A.SourceUnit(path="<planning>", definitions=(domain,)))


def _with(node: N, **fields: Any) -> N:
    """A copy of an AST node with some fields replaced (nodes are frozen)."""
    return type(node).make(**{**node.__dict__, **fields})


def _common_type(info: DomainInfo, types: Sequence[str]) -> str:
    """The most specific type above every one of `types`."""
    shared = set.intersection(*(set(info.ancestors(t)) for t in types))
    return max(sorted(shared), key=lambda t: len(info.ancestors(t)))


def _skeleton(domain_name: str) -> str:
    # A problem with the metric makes unified-planning read `total-cost` as action costs.
    return (f"(define (problem skeleton) (:domain {domain_name}) (:init (= (total-cost) 0))"
            " (:goal (and)) (:metric minimize (total-cost)))")


def _quiet() -> None:
    import unified_planning.shortcuts as ups

    env = ups.get_environment()
    env.credits_stream = None
    # A scene names rooms and furniture by their category (room `kitchen` of type
    # `kitchen`); SceneFacts already refuses two entities with one name.
    env.error_used_name = False


# --------------------------------------------------------------------------- problems


@dataclass
class PlanningProblem:
    """One task's planning problem (a unified-planning `Problem`) and how it was made."""

    task: str
    problem: Any
    items: tuple[str, ...]  # the items kept as objects
    left_out: int  # items the goal names only in literals that stay false
    checkpoints: tuple[str, ...] = ()  # checkpoint action names (not part of the plan)
    goal: Goal | None = None  # what it was built from, to build it again with more items
    reduce: bool = True


@dataclass(frozen=True)
class Refusal:
    """A placement the embedded world refused for lack of room: `item` on `surface`
    while each occupant stood there as it did (`placed`: the plan step that put it
    there, None: where it stood at the start)."""

    item: str
    surface: str
    occupants: tuple[tuple[str, PlanStep | None], ...]

    def __str__(self) -> str:
        if not self.occupants:
            return f"{self.item} on {self.surface}"
        said = ", ".join(x if step is None else f"{x} (put there by `{step}`)"
                         for x, step in self.occupants)
        return f"{self.item} on {self.surface} while {said} stand there"


@dataclass
class PlanResult:
    status: Status
    planner: str
    seconds: float
    length: int | None = None  # actions in the plan, checkpoints not counted
    plan: list[PlanStep] = field(default_factory=list)
    message: str = ""
    # placements the embedded world refused for lack of room, forbidden in the
    # abstraction before this plan was found (`item on surface`)
    forbidden: list[str] = field(default_factory=list)
    cause: Cause | None = None  # why a `refused` plan was refused


class PlanningWorld:
    """The planning view of one scene: domain, facts and initial state, shared by tasks."""

    def __init__(self, facts: SceneFacts, state: WorldState,
                 registry: Registry | None = None) -> None:
        self.facts = facts
        self.graph: SceneGraph = facts.graph
        self.info = facts.domain
        self.registry = registry or default_registry()
        self.context = Context(graph=self.graph, state=state,
                               type_parents=dict(self.info.parents))
        # where plans are acted out: the recorded world the state reads (a memory-
        # manipulation task's world after the experience), else the scene's initial state
        self.start: Snapshot | None = state.snapshot if isinstance(state, SnapshotState) \
            else None
        self._truth: dict[GAtom, bool] = {}

    @cached_property
    def domain_text(self) -> str:
        return planning_domain(self.info)

    @cached_property
    def _base(self) -> Any:
        from unified_planning.io import PDDLReader

        _quiet()
        return PDDLReader().parse_problem_string(self.domain_text,
                                                 _skeleton(self.info.domain.name))

    @cached_property
    def _static_used(self) -> tuple[str, ...]:
        """The static and history predicates the actions read (their facts go in init)."""
        names: set[str] = set()
        for a in self.info.domain.actions:
            for part in (a.precondition, a.effect):
                if part is None:
                    continue
                for n in part.walk():
                    if isinstance(n, A.Atom) and n.predicate in self.registry and \
                            self.registry.checker(n.predicate).kind is not Kind.FLUENT:
                        names.add(n.predicate)
        return tuple(sorted(names))

    def certify(self, pp: PlanningProblem, timeout_s: float, planner: str | None = None,
                reached: Callable[[Snapshot], bool] | None = None,
                fallback: Callable[[], Sequence[PlanStep]] | None = None) -> PlanResult:
        """`_certified`, and when every plan the planner found was refused by the world
        for lack of room, or none was found in time, a plan from `fallback` (the
        manipulation oracle's trace written as fdc-home's actions:
        `fdc.agents.oracle.oracle_plan`, which places with the world's geometry in view) accepted as
        the certificate when the abstraction validates it and the world carries it
        out (`accept`). An `unsolvable` answer (the abstraction's proof) is kept."""
        res = self._certified(pp, timeout_s, planner, reached)
        if fallback is None or res.status not in ("refused", "timeout"):
            return res
        started = time.perf_counter()
        try:
            plan = list(fallback())
        except FdcError as e:  # the oracle finds no trace either
            return replace(res, message=f"{res.message}; the oracle finds no trace either "
                           f"({e})")
        found = self.accept(pp, plan, reached)
        seconds = res.seconds + time.perf_counter() - started
        if isinstance(found, str):
            return replace(res, seconds=seconds, message=f"{res.message}; the oracle's "
                           f"plan is not a certificate: {found}")
        return replace(found, seconds=seconds, forbidden=res.forbidden,
                       message=f"{res.planner}: {res.message}")

    def accept(self, pp: PlanningProblem, plan: Sequence[PlanStep],
               reached: Callable[[Snapshot], bool] | None = None) -> PlanResult | str:
        """A plan found elsewhere (fdc-home's actions, a placement with its pose:
        `sim_bridge/world/plans.py`) as a certificate: each action applicable
        in the abstraction in turn (its problem built again with every item the plan
        moves; a sequence's checkpoints taken as soon as they hold), the goal reached
        there, and the plan carried out by the embedded world with the goal judged
        reached at its end (`reached`). The whole plan when the abstraction allows every
        action and holds the goal at its end (the world reached the goal at the end of
        the oracle's trace: cut short, the world may stand elsewhere), else its part up
        to where the goal first holds there. Else why not."""
        from unified_planning.exceptions import UPException
        from unified_planning.shortcuts import SequentialSimulator

        from fdc.sim_bridge.world.plans import moved, replay_plan

        if pp.goal is None:
            return "the task's goal is unknown"
        movers = {x for step in plan if (x := moved(step)) is not None}
        used = {x for step in plan for x in step.args}
        built = self.build(pp.task, pp.goal, reduce=False, movable=movers, extra=used)
        problem = built.problem
        checks: dict[str, list[Any]] = {}  # each step's checks, in order
        for n in built.checkpoints:
            checks.setdefault(n.rsplit("-", 1)[0], []).append(problem.action(n))
        frozen = problem.fluent(f"{STAGE}-frozen")() if checks else None
        _quiet()
        steps: list[PlanStep] = []
        with SequentialSimulator(problem) as sim:
            state = sim.get_initial_state()

            def check() -> Any:
                """Each step's checks that hold now; a step split in conjuncts only
                when all of them hold (its first check freezes the world until its
                last: half checked, no action could follow)."""
                nonlocal state
                for step in checks.values():
                    after = state
                    for c in step:
                        if sim.is_applicable(after, c, ()):
                            after = sim.apply(after, c, ())
                    if frozen is None or sim.is_goal(after) or \
                            not after.get_value(frozen).bool_constant_value():
                        state = after
                return state

            state = check()
            first: int | None = None  # how many actions first reach the goal
            for k, step in enumerate(plan, 1):
                if first is None and sim.is_goal(state):
                    first = len(steps)
                try:
                    action = problem.action(step.action)
                    params = [problem.object(x) for x in step.args]
                except UPException:
                    return f"action {k} of the plan, `{step}`, names what the abstraction lacks"
                if not sim.is_applicable(state, action, params):
                    if first is not None:
                        break
                    return f"the abstraction does not allow action {k} of the plan, `{step}`"
                state = sim.apply(state, action, params)
                state = check()
                steps.append(step)
            if len(steps) < len(plan) or not sim.is_goal(state):
                if first is None:
                    return "the goal does not hold in the abstraction at the plan's end"
                steps = steps[:first]
        replay = replay_plan(steps, self.graph, self.start, reached)
        if replay.refused is not None:
            return f"the embedded world refuses action {replay.refused}: {replay.reason}"
        if reached is not None and not reached(replay.snapshots[-1]):
            return "the goal is not judged reached at the end of the world's replay"
        return PlanResult("solved", "oracle", 0.0, len(steps), steps)

    def _certified(self, pp: PlanningProblem, timeout_s: float, planner: str | None = None,
                   reached: Callable[[Snapshot], bool] | None = None) -> PlanResult:
        """A plan the embedded world carries out (`_certify`; `reached`: the task's goal
        judged at the end of its replay, for the replay to choose spots that reach it:
        `fdc.predicates.verify.judge_at_end`). A goal that gathers items
        on one surface, any surface (positive `same-surface` conjuncts), is first
        certified gathering each group on the surface most of it stands on now
        (`gathered`): the abstraction does not know how many items a surface holds and
        the planner picks any, the world then refusing the ninth cup on a small table
        plan after plan. A plan of that stronger goal achieves the task's; when none is
        found, the task's own goal is certified in the time left, so that an
        `unsolvable` answer is always the task's own."""
        started = time.perf_counter()
        goal = gathered(pp.goal, self.context.require_state(), self.facts) \
            if pp.goal is not None else None
        if goal is not None:
            res = self._certify(self.build(pp.task, goal, reduce=pp.reduce), timeout_s,
                                planner, reached)
            left = timeout_s - (time.perf_counter() - started)
            if res.status == "solved" or left <= 0:
                return replace(res, seconds=time.perf_counter() - started)
            res = self._certify(pp, left, planner, reached)
            return replace(res, seconds=time.perf_counter() - started)
        return self._certify(pp, timeout_s, planner, reached)

    def _certify(self, pp: PlanningProblem, timeout_s: float, planner: str | None = None,
                 reached: Callable[[Snapshot], bool] | None = None) -> PlanResult:
        """A plan the embedded world carries out: solve, act the plan out in the world
        from where the task starts (`self.start`; `sim_bridge/world/plans.py`) and, while the world
        refuses a placement for lack of room (free space depends on what stands there,
        which the abstraction does not model), forbid it and solve again, at most
        `plan_rounds` plans, each found within `timeout_s`. What is forbidden is any placement
        of that item on that surface while every item then on it stands as it stood then
        (`_forbid`): with one of them elsewhere, or put down another way (anchors
        included), there may be room. Those of them that are not items of the problem
        become items of it (built again), so that a plan can take them away. `refused`: the
        world still refuses a placement of the last plan when the rounds are spent, or
        no plan is left (or none is found in the time left) once the refused placements
        are forbidden, or the world carries out every action of a plan and the goal is not
        judged reached at its end (`reached`: a spot it chose undid what the
        abstraction holds); none proves the task unsolvable. A plan the world refuses for
        another reason (an action the abstraction allows and the world does not: a
        closed door, out of reach) is `refused` at once: the two models disagree, a
        fault to fix in the domain or the world (`fdc audit` reports it). Each `refused`
        result says why (`cause`: `Cause`)."""
        from fdc.sim_bridge.world.plans import lack_of_room, placed_on, replay_plan

        task = replace(pp, problem=pp.problem.clone())
        refusals: list[Refusal] = []
        forbidden: list[str] = []
        started = time.perf_counter()
        while True:
            # each plan gets the whole time: a budget shared by the rounds was spent
            # sooner on a busy machine, and the same task came out certified or refused
            res = solve(task, timeout_s, planner)
            seconds = time.perf_counter() - started
            said = f"; {len(forbidden)} placement(s) the embedded world refused for lack " \
                f"of room forbidden ({'; '.join(forbidden)})" if forbidden else ""
            if res.status in ("unsolvable", "timeout") and forbidden:
                # the world refused every plan found before: not proof of either
                left_ = "no plan left" if res.status == "unsolvable" else \
                    f"no other plan within {timeout_s:g} s"
                return replace(res, status="refused", seconds=seconds, forbidden=forbidden,
                               message=f"{left_}{said}", cause="room")
            if res.status != "solved":
                return replace(res, seconds=seconds, forbidden=forbidden,
                               message=res.message + said)
            replay = replay_plan(res.plan, self.graph, self.start, reached)
            if replay.refused is None:
                if reached is not None and not reached(replay.snapshots[-1]):
                    # every action carried out, and the goal not reached: a spot the
                    # world chose undid what the abstraction still holds (an item put
                    # between two others no longer around each other): no certificate
                    return replace(res, status="refused", seconds=time.perf_counter()
                                   - started, forbidden=forbidden, message="the world "
                                   "carries out every action of the plan, and the goal "
                                   f"is not judged reached at its end{said}", cause="goal")
                return replace(res, seconds=time.perf_counter() - started,
                               forbidden=forbidden)
            spot = placed_on(replay.step) if replay.step is not None else None
            if spot is None or not lack_of_room(replay.reason):
                # not for lack of room: the abstraction allows what the world refuses
                return replace(res, status="refused", seconds=time.perf_counter() - started,
                               forbidden=forbidden, cause="action", message=f"the embedded "
                               f"world refuses action {replay.refused} of the plan, "
                               f"{replay.reason}, which the abstraction allows{said}")
            if len(forbidden) + 1 >= current().plan_rounds:
                return replace(res, status="refused", seconds=time.perf_counter() - started,
                               forbidden=forbidden, cause="room", message=f"the embedded "
                               f"world refuses action {replay.refused} of the plan, "
                               f"{replay.reason}{said}")
            refusal = self._refusal(spot, res.plan[:replay.refused - 1],
                                    SnapshotState(self.graph, replay.snapshots[-1]))
            mine = tuple(o for o in refusal.occupants if o[0] in task.items)
            steps = task.goal is not None and is_multi_goal(task.goal)
            if task.goal is not None and len(mine) < len(refusal.occupants) and (
                    not mine or not steps):
                # what fills the surface that no plan could move becomes movable (a
                # laptop among the bowls a plan put on a shelf), and, unless the goal
                # names it, off that surface: a plan makes room (in a sequence, only
                # when nothing of the plan's own is there, the goal left as it is)
                named = {x for a in atoms(task.goal) for x in a.args}
                away = () if steps else tuple(
                    part for x, _ in refusal.occupants if x not in task.items and x not in named
                    for part in (GNot(body=atom("on", x, refusal.surface)),
                                 atom("on-furniture", x)))  # set down elsewhere, not held
                goal = GAnd(parts=(task.goal, *away)) if away else task.goal
                task = self.build(task.task, goal, reduce=task.reduce, movable={
                    *task.items, *(x for x, _ in refusal.occupants)})
                refusals.append(refusal)
                for k, r in enumerate(refusals):
                    _forbid(task.problem, r, k)
            else:  # the others stand as they stood (a sequence, or no goal to build with)
                refusals.append(replace(refusal, occupants=mine))
                _forbid(task.problem, refusals[-1], len(refusals) - 1)
            forbidden.append(str(refusals[-1]))

    def _refusal(self, spot: tuple[str, str], before: Sequence[PlanStep], state: WorldState
                 ) -> Refusal:
        """The refused placement of `spot` (item, surface) after the plan steps `before`,
        in the world `state` then: what stood on the surface, and how each got there."""
        from fdc.sim_bridge.world.plans import moved

        item, surface = spot
        occupants = []
        for x in sorted(self.facts.entities(("movable",))):
            if x == item or state.support_of(x) != surface:
                continue
            steps = [step for step in before if moved(step) == x]
            occupants.append((x, steps[-1] if steps else None))
        return Refusal(item, surface, tuple(occupants))

    def initially(self, wanted: Iterable[GAtom]) -> dict[GAtom, bool]:
        """Whether each atom holds in the initial state (one checker call per predicate;
        none judged from where the robot stands: `Registry.viewer_relative`)."""
        new: dict[str, list[GAtom]] = {}
        for a in wanted:
            if a not in self._truth:
                new.setdefault(a.predicate, []).append(a)
        for predicate, batch in new.items():
            batch = list(dict.fromkeys(batch))
            if predicate in self.registry.viewer_relative():  # none holds at the start
                self._truth.update(dict.fromkeys(batch, False))
                continue
            truth = self.registry.evaluate_many(predicate, [a.args for a in batch], self.context)
            for a, ok in zip(batch, truth.tolist(), strict=True):
                self._truth[a] = bool(ok)
        return self._truth

    # ----- one task ---------------------------------------------------------------------

    def build(self, task: str, goal: Goal, *, reduce: bool = True,
              movable: Iterable[str] = (), extra: Iterable[str] = ()) -> PlanningProblem:
        """The planning problem of a task that starts in the scene's initial state.
        `reduce`: leave out the placement actions the goal has no use for (exact; off
        for export, so that every plain task shares one domain). `movable`: items a plan
        may move besides those the goal needs moved; `extra`: entities (surfaces) kept
        as objects besides `_objects`' (those a given plan uses). A count node is planned
        for as its `and`/`or` expansion, up to the `goal_atoms` limit."""
        try:
            goal = expand_counts(goal, current().goal_atoms)
        except NotExpandable as why:
            raise PlanningError(f"{why}: the planning abstraction states counts as "
                                "`and`/`or`; raise it with `fdc --limit goal_atoms=N`") from None
        named = {x for a in atoms(goal) for x in a.args}
        unknown = sorted(x for x in named if x not in self.facts.types)
        if unknown:
            raise PlanningError(f"the goal names {', '.join(unknown)}, not in the scene")
        items = self._items(goal) | set(movable)
        keep = self._objects(goal, items, named) | {x for x in extra if x in self.facts.types}
        mentioned = {a.predicate for a in atoms(goal)}
        if SAME_SURFACE in mentioned:  # planned over `on`: its initial atoms, not its own
            mentioned = (mentioned - {SAME_SURFACE}) | {"on"}
        problem = self._base.clone()
        problem.name = pddl_name(task)
        # `place` does all that dominated actions do that can matter
        dominated = self._dominated(mentioned) if reduce else set()
        actions = [a for a in problem.actions if a.name not in dominated]
        problem.clear_actions()
        problem.add_actions(actions)
        _set_costs(problem, {a.name: c for a, c in problem.quality_metrics[0].costs.items()
                             if a.name not in dominated})
        em = problem.environment.expression_manager
        objects: dict[str, Any] = {o.name: o for o in problem.all_objects}
        from unified_planning.model import Object

        for e in sorted(keep):
            if e in objects:
                continue
            t = self.facts.type_of(e)
            assert t is not None
            objects[e] = Object(e, problem.user_type(t), problem.environment)
            with warnings.catch_warnings():  # a room `kitchen` of type `kitchen` (_quiet)
                warnings.filterwarnings("ignore", "Name .* already defined", UserWarning)
                problem.add_object(objects[e])
        for atom_ in self._init(objects, keep, mentioned):
            fluent = problem.fluent(atom_.predicate)
            problem.set_initial_value(fluent(*(objects[x] for x in atom_.args)), True)
        left_out = {x for x in named if self.facts.has_type(x, ("movable",))} - items

        polar = _polar(goal)
        cells = any(a.predicate == IN_CELL and not positive
                    and not any(x in left_out for x in a.args) for a, positive in polar)
        if cells:
            _may_be_in_cell(problem)

        def expr(g: Goal, positive: bool = True) -> Any:
            match g:
                case GAtom():
                    if any(x in left_out for x in g.args):
                        return em.FALSE()  # stays false: no plan moves the item
                    if g.predicate == SAME_SURFACE:
                        return _same_surface(problem, objects[g.args[0]], objects[g.args[1]])
                    name = MAY_BE_IN_CELL if g.predicate == IN_CELL and not positive \
                        else g.predicate
                    return problem.fluent(name)(*(objects[x] for x in g.args))
                case GNot():
                    return em.Not(expr(g.body, not positive))
                case GAnd():
                    return em.And(*(expr(p, positive) for p in g.parts)) if g.parts \
                        else em.TRUE()
                case GOr():
                    return em.Or(*(expr(p, positive) for p in g.parts)) if g.parts \
                        else em.FALSE()
                case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
                    raise PlanningError("a multi-goal or sequence form nested inside a step")
                case _:
                    assert_never(g)

        simplify = problem.environment.simplifier.simplify
        problem.clear_goals()
        checkpoints: tuple[str, ...] = ()
        if goal.kind in ("then", "targets") or _splits(goal):
            checkpoints = self._checkpoints(problem, goal, lambda g: simplify(expr(g)))
        else:
            problem.add_goal(simplify(expr(goal)))
        return PlanningProblem(task, problem, tuple(sorted(items)), len(left_out), checkpoints,
                               goal, reduce)

    def _dominated(self, mentioned: set[str]) -> set[str]:
        """Placement actions the goal has no use for: they put the item on the surfaces
        `place` does, and what each makes true for sure beyond `place`'s unconditional
        effects is a fluent the goal does not mention and no precondition reads (`place`
        then does all of it that can matter)."""
        actions = {a.name: a for a in self.info.domain.actions}
        base = _added(actions["place"])
        where = self._surface_types(actions["place"])
        return {name for name, a in actions.items()
                if name != "place" and name.startswith("place")
                and self._surface_types(a) == where  # not `place-on-item`: item tops
                and not (_added(a) - base) & (mentioned | self._read)}

    def _surface_types(self, action: A.Action) -> set[str]:
        """The types of an action's surface parameters (where it puts the item)."""
        return {t for p in action.parameters for t in p.types
                if "surface" in self.info.ancestors(t)}

    @cached_property
    def _read(self) -> set[str]:
        """The predicates some action reads: in its precondition or in the condition of
        one of its conditional effects (`pick` puts the item in the rooms the robot is
        in: `robot-in-room` must hold its initial facts)."""
        read: set[str] = set()
        for a in self.info.domain.actions:
            conditions = [] if a.precondition is None else [a.precondition]
            if a.effect is not None:
                conditions += [n.condition for n in a.effect.walk() if isinstance(n, A.When)]
            read |= {n.predicate for c in conditions for n in c.walk() if isinstance(n, A.Atom)}
        return read

    def _objects(self, goal: Goal, items: set[str], named: set[str]) -> set[str]:
        """The objects of a task's problem: furniture and rooms; the items a plan may
        move; the surfaces the goal names, every one a `same-surface` item is `on`, and
        those of furniture in a room or of furniture the goal names, and one spare open
        surface; the items whose tops the goal names, and the surfaces of every item kept
        with what stands on them or lies in them (`_carried`); the surface each kept item
        stands on (an item on none is on the floor). In the abstraction surfaces
        have no capacity, so a plan never needs another: what it parks elsewhere it can
        park where the item came from, or, when the goal sends the item away from there,
        on the spare surface."""
        f = self.facts
        keep = set(f.entities(("furniture", "room"))) | items
        keep |= {x for x in named if not f.has_type(x, ("movable",))}
        rooms = {x for x in named if f.has_type(x, ("room",))}
        furniture = {x for x in named if f.has_type(x, ("furniture",))}
        for s, owner in f.true_atoms("surface-of"):
            if owner in furniture:
                keep.add(s)
        in_room = f.true_atoms("furniture-in-room")
        owners = {g for g, r in in_room if r in rooms}
        keep |= {s for s, owner in f.true_atoms("surface-of") if owner in owners}
        keep |= self._under(goal)
        # the items whose tops the goal names (a plan may put something there)
        tops = {o for t, o in f.true_atoms("top-of") if t in named}
        keep |= self._carried(items | tops)
        # every item kept with the surface it stands on: an item `on` no kept surface is
        # on the floor to `pick-from-floor`
        state = self.context.require_state()
        keep |= {s for x in keep if f.has_type(x, ("movable",))
                 if (s := state.support_of(x)) is not None and s in f.types}
        # the item whose top a kept surface is, with the surface it stands on, at any
        # depth: `navigate-to-item` walks to the tray in the tray's room
        todo = sorted(keep)
        while todo:
            x = todo.pop()
            if not f.has_type(x, ("item-top",)):
                continue
            carrier = self.graph.surface(x).object_id
            under = state.support_of(carrier)
            for y in (carrier, under):
                if y is not None and y in f.types and y not in keep:
                    keep.add(y)
                    todo.append(y)
        # One spare open surface the goal says nothing about: a place for what must
        # leave the surfaces it names (any other such surface would do as well).
        spare = [s for s, owner in f.true_atoms("surface-of") if s not in keep
                 and not f.has_type(s, ("receptacle",)) and not f.has_type(owner,
                                                                          ("articulated",))]
        keep.update(sorted(spare)[:1])
        return keep

    def _carried(self, items: set[str]) -> set[str]:
        """These items, and what stands on them or lies in them at the start, at any
        depth, with the tops it stands on: `pick` needs an item's tops and insides clear,
        so a plan must see what to take off first (a tray's cups). A top nothing stands
        on is left out unless the goal names it: a plan never needs to park an item on
        another's top (whose free space the abstraction does not model)."""
        f = self.facts
        movables = f.entities(("movable",))
        out: set[str] = set(items)
        todo = sorted(items)
        while todo:
            item = todo.pop()
            surfaces = [s for s in self.graph.object(item).surfaces if s in f.types]
            wanted = [atom("on", x, s) for x in movables for s in surfaces if x != item]
            if f.has_type(item, ("container",)):
                wanted += [atom("inside", x, item) for x in movables if x != item]
            truth = self.initially(wanted)
            for a in wanted:
                if truth[a]:
                    out.add(a.args[1])  # the top (or the container itself)
                    if a.args[0] not in out:
                        out.add(a.args[0])
                        todo.append(a.args[0])
        return out

    def _under(self, goal: Goal) -> set[str]:
        """Every surface the items of the goal's `same-surface` atoms are `on` at the start
        (an item on a tray is on the table below it too): with them, the definition over
        the kept surfaces holds at the start exactly when the atom does."""
        paired = sorted({x for a in atoms(goal) if a.predicate == SAME_SURFACE for x in a.args})
        if not paired:
            return set()
        surfaces = self.facts.entities(("surface",))
        truth = self.initially(atom("on", x, s) for x in paired for s in surfaces)
        return {s for x in paired for s in surfaces if truth[atom("on", x, s)]}

    def _items(self, goal: Goal) -> set[str]:
        """The items a plan may need to move: those in a positive literal, or in a
        negative literal that is true at the start, and both items of a `same-surface`
        literal (moving either one changes it)."""
        polar = _polar(goal)
        truth = self.initially(a for a, positive in polar if not positive)
        out: set[str] = set()
        for a, positive in polar:
            if positive or truth[a] or a.predicate == SAME_SURFACE:
                out.update(x for x in a.args if self.facts.has_type(x, ("movable",)))
        return out

    def _init(self, objects: Mapping[str, Any], keep: set[str], mentioned: set[str]
              ) -> list[GAtom]:
        """Every true initial atom over the kept objects: the fluents the goal or an
        action's precondition reads, by the checkers, and the static facts actions read."""
        out: list[GAtom] = []
        for name in self._static_used:
            out.extend(atom(name, *row) for row in self.facts.true_atoms(name)
                       if all(x in keep for x in row))
        for c in self.registry.predicates():
            if c.kind is not Kind.FLUENT or c.name not in self.info.predicates or \
                    c.name not in mentioned | self._read or c.meaning.viewer_relative:
                continue
            decl = self.info.predicates[c.name]
            domains = [[e for e in self.facts.entities(p.types) if e in objects]
                       for p in decl.parameters]
            rows = list(itertools.product(*domains))
            if not rows:
                continue
            truth = self.registry.evaluate_many(c.name, rows, self.context)
            out.extend(atom(c.name, *r) for r, ok in zip(rows, truth.tolist(), strict=True)
                       if ok)
        return out

    def _checkpoints(self, problem: Any, goal: Goal, expr: Any) -> tuple[str, ...]:
        """Checkpoint actions: one per step of a sequence (or target of a multi-goal, or
        the goal itself), each step split into its conjuncts when they hold disjunctions
        (a planner's translator would otherwise expand their product). The first check of
        a split step freezes the world (no domain action runs) until its last check, so
        the conjuncts hold at once; the final step stays frozen: the plan ends there."""
        from unified_planning.model import Fluent, InstantaneousAction

        env = problem.environment
        em = env.expression_manager
        boolean = env.type_manager.BoolType()
        match goal:
            case GThen():
                steps, ordered = goal.steps, True
            case GTargets():
                steps, ordered = children(goal), goal.ordered
            case _:
                steps, ordered = (goal,), True
        with _actions_changed(problem) as costs:
            frozen = Fluent(f"{STAGE}-frozen", boolean, environment=env)
            problem.add_fluent(frozen, default_initial_value=False)
            world = list(problem.actions)
            for action in world:
                action.add_precondition(em.Not(frozen()))
            names: list[str] = []
            last: list[Any] = []  # each step's final flag
            for k, step in enumerate(steps, 1):
                parts = junction_parts(step, "and") if _splits(step) else (step,)
                previous = last[-1] if ordered and last else None
                for j, part in enumerate(parts, 1):
                    flag = Fluent(f"{STAGE}-{k}-{j}", boolean, environment=env)
                    problem.add_fluent(flag, default_initial_value=False)
                    action = InstantaneousAction(f"{CHECKPOINT}-{k}-{j}", _env=env)
                    action.add_precondition(expr(part))
                    if previous is not None:
                        action.add_precondition(previous)
                    if j == 1:
                        action.add_precondition(em.Not(frozen()))
                    if len(parts) > 1 and j == 1:
                        action.add_effect(frozen(), em.TRUE())
                    final = k == len(steps) and ordered
                    if len(parts) > 1 and j == len(parts) and not final:
                        action.add_effect(frozen(), em.FALSE())
                    if final and j == len(parts):
                        action.add_effect(frozen(), em.TRUE())
                    action.add_effect(flag(), em.TRUE())
                    problem.add_action(action)
                    names.append(action.name)
                    previous = flag()
                last.append(previous)
            problem.add_goal(last[-1] if ordered else em.And(*last))
            costs.update(dict.fromkeys(names, em.Int(0)))  # checks cost nothing
        return tuple(names)


def gathered(goal: Goal, state: WorldState, facts: SceneFacts) -> Goal | None:
    """A stronger goal than a conjunction with positive `same-surface` conjuncts: each
    group of items they join (transitively) `on` one surface, the one most of the group
    stands on now (the lowest name on a tie) among those every one of them `fits`,
    instead of any one. None: the goal has no such conjunct, or no group a surface takes."""
    match goal:
        case GAnd():
            pass
        case _:
            return None
    same = [p for p in goal.parts if is_atom(p) and p.predicate == SAME_SURFACE]
    if not same:
        return None
    fits: dict[str, set[str]] = {}
    for o, s in facts.true_atoms("fits"):
        fits.setdefault(o, set()).add(s)
    ons: list[Goal] = []
    for items in joined((a.args[0], a.args[1]) for a in same):
        counts: dict[str, int] = {}
        for x in items:
            if (s := state.support_of(x)) is not None:
                counts[s] = counts.get(s, 0) + 1
        room = set.intersection(*(fits.get(x, set()) for x in items))
        home = min(room, key=lambda s: (-counts.get(s, 0), s), default=None)
        if home is None:
            return None
        ons += [atom("on", x, home) for x in items]
    return GAnd(parts=tuple(p for p in goal.parts if p not in same) + tuple(ons))


def _polar(goal: Goal) -> list[tuple[GAtom, bool]]:
    """Every atom of a goal with its polarity (False: under an odd number of `not`)."""
    polar: list[tuple[GAtom, bool]] = []
    stack: list[tuple[Goal, bool]] = [(goal, True)]
    while stack:
        g, positive = stack.pop()
        match g:
            case GAtom():
                polar.append((g, positive))
            case GNot():
                stack.append((g.body, not positive))
            case GAnd() | GOr() | GThen() | GTargets():
                stack.extend((p, positive) for p in children(g))
            case GCount() | GCluster() | GChecklist():  # not walked into
                pass
            case _:
                assert_never(g)
    return polar


def _may_be_in_cell(problem: Any) -> None:
    """The fluent a negative `in-cell` literal of the goal reads: `(MAY_BE_IN_CELL ?o ?s
    ?c)`, the item may be in that cell. `in-cell` becomes true only by `place-in-cell`,
    but the world puts an item down anywhere on the surface with any other placement (a
    plain `place` in the centre cell, if there is room): each of them makes the item
    possibly in every cell of its surface, `place-in-cell` in its own cell only, `pick`
    in none; at the start it is `in-cell`. So `(not (MAY_BE_IN_CELL o s c))` holds only
    where the item was taken off the surface or put in another cell."""
    from unified_planning.model import Fluent, Variable

    from fdc.sim_bridge.world.plans import SURFACE_ARG

    env = problem.environment
    in_cell = problem.fluent(IN_CELL)
    may = Fluent(MAY_BE_IN_CELL, env.type_manager.BoolType(), in_cell.signature,
                 environment=env)
    problem.add_fluent(may, default_initial_value=False)
    for fnode, value in list(problem.explicit_initial_values.items()):
        if fnode.is_fluent_exp() and fnode.fluent() == in_cell and value.is_true():
            problem.set_initial_value(may(*fnode.args), True)
    surface, cell = problem.user_type("surface"), problem.user_type("cell")
    with _actions_changed(problem):
        for action in problem.actions:
            p = action.parameters
            if action.name == "pick":
                x, c = Variable("x", surface, env), Variable("c", cell, env)
                action.add_effect(may(p[0], x, c), False, forall=(x, c))
            elif action.name == "place-in-cell":
                action.add_effect(may(p[0], p[1], p[2]), True)
            elif action.name in SURFACE_ARG:
                c = Variable("c", cell, env)
                action.add_effect(may(p[0], p[SURFACE_ARG[action.name]], c), True,
                                  forall=(c,))


def _forbid(problem: Any, refusal: Refusal, k: int) -> None:
    """Forbid every placement of the refused item on the surface while every occupant
    stands as it stood then (always, with none): per occupant J a fluent
    `AS_REFUSED-k-J`, true at the start if it had not moved then, false once it is
    picked, true again when the very plan line that put it there runs again; and a
    precondition `(imply (and (= ?o item) (= ?s surface)) (not (and AS_REFUSED-k-J ...)))`
    of each placement on a surface."""
    from unified_planning.model import Fluent

    from fdc.sim_bridge.world.plans import SURFACE_ARG

    env = problem.environment
    em = env.expression_manager
    with _actions_changed(problem):  # the metric names actions by value
        flags = []
        for j, (x, step) in enumerate(refusal.occupants):
            flag = Fluent(f"{AS_REFUSED}-{k}-{j}", env.type_manager.BoolType(),
                          environment=env)
            problem.add_fluent(flag, default_initial_value=step is None)
            flags.append(flag())
            pick = problem.action("pick")
            pick.add_effect(flag(), em.FALSE(),
                            condition=em.Equals(pick.parameters[0], problem.object(x)))
            if step is not None:
                action = problem.action(step.action)
                action.add_effect(flag(), em.TRUE(), condition=em.And(*(
                    em.Equals(p, problem.object(a))
                    for p, a in zip(action.parameters, step.args, strict=True))))
        o, s = problem.object(refusal.item), problem.object(refusal.surface)
        for name, j in SURFACE_ARG.items():
            if problem.has_action(name):
                action = problem.action(name)
                same = em.And(em.Equals(action.parameters[0], o),
                              em.Equals(action.parameters[j], s))
                action.add_precondition(em.Implies(same, em.Not(em.And(*flags))))


def _added(action: A.Action) -> set[str]:
    """The predicates an action makes true unconditionally (not under `when`/`forall`)."""
    out: set[str] = set()
    stack = [action.effect] if action.effect is not None else []
    while stack:
        e = stack.pop()
        if isinstance(e, A.And):
            stack.extend(e.parts)
        elif isinstance(e, A.Atom):
            out.add(e.predicate)
    return out


@contextlib.contextmanager
def _actions_changed(problem: Any) -> Iterator[dict[str, Any]]:
    """Change the problem's actions in the block, then set the metric anew, from the
    costs by action name (yielded: add those of new actions). unified-planning's
    metric keys its costs by the action's value (its hash covers preconditions and
    effects): an action changed after the metric was set is no longer found in it, and
    the PDDL writer then crashes on a cost of None (`fdc export pddl` did, on a task
    with a negative `in-cell`). Every change to a problem's actions goes through here."""
    costs = {a.name: c for a, c in problem.quality_metrics[0].costs.items()}
    yield costs
    _set_costs(problem, costs)
    metric = problem.quality_metrics[0]
    missing = [a.name for a in problem.actions if metric.get_action_cost(a) is None]
    assert not missing, f"actions without a cost: {missing}"


def _set_costs(problem: Any, costs: Mapping[str, Any]) -> None:
    """The metric: minimise the sum of these action costs (by action name)."""
    from unified_planning.model.metrics import MinimizeActionCosts

    problem.clear_quality_metrics()
    problem.add_quality_metric(MinimizeActionCosts(
        {problem.action(n): c for n, c in costs.items()}, environment=problem.environment))


def _splits(goal: Goal) -> bool:
    """A conjunction with a disjunction (or a positive `same-surface`: an existential)
    among two or more parts: split it into checks."""
    match goal:
        case GAnd() if len(goal.parts) > 1:
            return any(_splitting(p) for p in goal.parts)
        case _:
            return False


def _splitting(part: Goal) -> bool:
    """A disjunction: an `or`, a negated `and`, a positive `same-surface`."""
    match part:
        case GOr() | GNot(body=GAnd()):
            return True
        case GAtom() if part.predicate == SAME_SURFACE:
            return True
        case _:
            return False


def _same_surface(problem: Any, a: Any, b: Any) -> Any:
    """`(same-surface a b)` by its definition: some surface of the problem both are `on`
    (two different items: an item shares no surface with itself)."""
    from unified_planning.model import Variable

    em = problem.environment.expression_manager
    if a == b:
        return em.FALSE()
    s = Variable("s", problem.user_type("surface"), problem.environment)
    on = problem.fluent("on")
    return em.Exists(em.And(on(a, s), on(b, s)), s)


def holds_initially(pp: PlanningProblem) -> bool:
    """Whether the abstraction judges the task's goal reached before any action: the goal
    in the problem's initial state, the checkpoints of a sequence or multi-goal taken in
    order where they apply (unified-planning's simulator)."""
    from unified_planning.shortcuts import SequentialSimulator

    _quiet()
    with SequentialSimulator(problem=pp.problem) as sim:
        state = sim.get_initial_state()
        for name in pp.checkpoints:
            action = pp.problem.action(name)
            if sim.is_applicable(state, action, ()):
                state = sim.apply(state, action, ())
        return bool(sim.is_goal(state))


def pddl_name(text: str) -> str:
    """`text` as a PDDL name: characters other than letters, digits, `-` and `_` become
    `_`, and one that does not start with a letter gets `t-` before it."""
    name = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_"
                   for ch in text)
    return name if name[:1].isalpha() else f"t-{name}"


# --------------------------------------------------------------------------- solving


def available_planners() -> list[str]:
    """The installed planners fdc can use, preferred first."""
    _quiet()
    from unified_planning.shortcuts import get_environment

    known = get_environment().factory.engines
    return [p for p in ("fast-downward", "pyperplan") if p in known]


def solve(pp: PlanningProblem, timeout_s: float, planner: str | None = None) -> PlanResult:
    """Solve with Fast Downward (or pyperplan, after compiling to STRIPS)."""
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.exceptions import UPException
    from unified_planning.shortcuts import OneshotPlanner

    _quiet()
    names = [planner] if planner else available_planners()
    if not names:
        return PlanResult("error", "none", 0.0, message="no planner installed "
                          "(install up-fast-downward or up-pyperplan)")
    name = names[0]
    problem, back = ((_closed_world(pp.problem), None) if name == "fast-downward"
                     else _strips(pp.problem))

    started = time.perf_counter()
    # LAMA's first iteration; when it finds no plan (its landmark heuristic is not exact
    # with conditional effects), greedy search with the FF heuristic alone, whose dead
    # ends are real: a complete search, so its "unsolvable" is a proof
    configs: list[dict[str, str]] = [{}]
    if name == "fast-downward":
        configs.append({"fast_downward_search_config": "lazy_greedy([ff()])"})
    try:
        # Fast Downward writes its translation (`output.sas`) in the working folder:
        # each run gets its own, or runs side by side read each other's tasks.
        with tempfile.TemporaryDirectory(prefix="fdc-plan.") as folder, _cwd(folder):
            for params in configs:
                left = max(timeout_s - (time.perf_counter() - started), 0.1)
                with OneshotPlanner(name=name, params=params) as engine:
                    result = engine.solve(problem, timeout=left)
                if result.status not in (S.UNSOLVABLE_INCOMPLETELY, S.UNSOLVABLE_PROVEN):
                    break
    except UPException as e:  # the planner answered something unified-planning cannot read
        return PlanResult("error", name, time.perf_counter() - started,
                          message=f"unified-planning could not use the planner's answer: {e}")
    seconds = time.perf_counter() - started
    status = result.status
    if status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
        plan = result.plan
        if back is not None:
            plan = plan.replace_action_instances(back)
        found = [_plan_step(a) for a in plan.actions]
        if pp.checkpoints:  # nothing after the last checkpoint is needed
            found = found[:max(k for k, s in enumerate(found)
                               if s.action.startswith(CHECKPOINT)) + 1]
        steps = [s for s in found if not s.action.startswith(CHECKPOINT)]
        return PlanResult("solved", name, seconds, len(steps), steps)
    if status is S.UNSOLVABLE_PROVEN:
        return PlanResult("unsolvable", name, seconds,
                          message="the goal is unreachable in the planning abstraction")
    if status is S.UNSOLVABLE_INCOMPLETELY:
        return PlanResult("unsolvable", name, seconds, message="the search ended without "
                          "a plan (an incomplete search: not a proof)")
    if status is S.TIMEOUT or seconds >= timeout_s:
        return PlanResult("timeout", name, seconds, message=f"no plan within {timeout_s:g} s")
    log = " ".join(m.message for m in result.log_messages or [])[-300:]
    return PlanResult("error", name, seconds, message=f"the planner failed ({status.name}) {log}")


@contextlib.contextmanager
def _cwd(folder: str) -> Iterator[None]:
    """Run the block in `folder` (the planner's scratch files go there)."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _strips(problem: Any) -> tuple[Any, Any]:
    """The problem compiled to what pyperplan reads (STRIPS with typing), and the map
    from its plan's actions back to the problem's."""
    from unified_planning.engines import CompilationKind
    from unified_planning.shortcuts import Compiler

    kinds = [CompilationKind.QUANTIFIERS_REMOVING,
             CompilationKind.GROUNDING,  # equalities become constants
             CompilationKind.CONDITIONAL_EFFECTS_REMOVING,
             CompilationKind.DISJUNCTIVE_CONDITIONS_REMOVING,
             CompilationKind.NEGATIVE_CONDITIONS_REMOVING]
    p = problem.clone()
    p.clear_quality_metrics()
    maps = []
    for kind in kinds:
        with Compiler(problem_kind=p.kind, compilation_kind=kind) as compiler:
            res = compiler.compile(p, kind)
        p = res.problem
        maps.append(res.map_back_action_instance)

    def back(ai: Any) -> Any:
        for m in reversed(maps):
            ai = m(ai)
            if ai is None:
                return None
        return ai

    return p, back


def _plan_step(ai: Any) -> PlanStep:
    """A unified-planning action instance as a plan step."""
    return PlanStep(ai.action.name, tuple(str(p) for p in ai.actual_parameters))


# --------------------------------------------------------------------------- PDDL files


def write_pddl(pp: PlanningProblem, domain_name: str | None = None,
               problem_name: str | None = None) -> tuple[str, str]:
    """The problem's domain and problem as PDDL text (unified-planning's writer: names
    that are not PDDL names, such as `fridge|lower`, become `fridge_lower`), objects
    keeping their names where they are PDDL names (`_ObjectNamesKept`).
    `domain_name`, `problem_name`: the names the text defines (default the writer's,
    `<problem's name>-domain` and `-problem`); the problem names its domain by the
    domain's."""
    from unified_planning.io.pddl_writer import _get_pddl_name

    writer = _writer_class()(_closed_world(pp.problem))
    domain, problem = writer.get_domain(), writer.get_problem()
    written = _get_pddl_name(pp.problem, writer.pddl_keywords) if pp.problem.name \
        else "pddl"
    head_d = f"(define (domain {written}-domain)\n"
    head_p = f"(define (problem {written}-problem)\n (:domain {written}-domain)\n"
    assert domain.startswith(head_d) and problem.startswith(head_p), "writer changed"
    d = domain_name or f"{written}-domain"
    p = problem_name or f"{written}-problem"
    return (f"(define (domain {d})\n{domain[len(head_d):]}",
            f"(define (problem {p})\n (:domain {d})\n{problem[len(head_p):]}")


@functools.cache
def _writer_class() -> type:
    from unified_planning.io import PDDLWriter
    from unified_planning.io.pddl_writer import _get_pddl_name
    from unified_planning.model import Object

    class _ObjectNamesKept(PDDLWriter):
        """unified-planning's PDDL writer, but an object whose name is a PDDL name keeps
        it when a type, predicate or action has the same name: PDDL keeps objects apart
        from those (the room `kitchen` of type `kitchen`; the writer, with one namespace
        for every name, wrote `kitchen_0`). Objects still get names unique among
        objects; unified-planning's reader reads them back with the environment's
        `error_used_name` off, as fdc's is (`_quiet`)."""

        def _get_mangled_name(self, item: Any) -> str:
            if not isinstance(item, Object):
                return str(super()._get_mangled_name(item))
            kept: dict[Any, str] = self.__dict__.setdefault("_kept_objects", {})
            taken: set[str] = self.__dict__.setdefault("_kept_names", set())
            if item in kept:
                return kept[item]
            name: str = _get_pddl_name(item, self.pddl_keywords)
            if name != item.name or name in taken:
                return str(super()._get_mangled_name(item))  # renamed, as the writer does
            kept[item] = name
            taken.add(name)
            return name

    return _ObjectNamesKept


def _closed_world(problem: Any) -> Any:
    """`problem` (shallow-copied) as the PDDL writer reads it: its `initial_values` are
    what the writer writes, the values set and the defaults that are not false.
    unified-planning's own lists every grounding of every fluent, mostly false (about
    0.13 s of Python a task on the apartment), and writes none of those down; the text
    is the same."""
    view = copy.copy(problem)
    view.__class__ = _closed_world_class()
    return view


@functools.cache
def _closed_world_class() -> type:
    from unified_planning.model import Problem
    from unified_planning.model.fluent import get_all_fluent_exp

    class ClosedWorldProblem(Problem):
        @property
        def initial_values(self) -> dict[Any, Any]:
            out = dict(self.explicit_initial_values)
            defaults = self.fluents_defaults
            for f in self.fluents:
                default = defaults.get(f)
                if default is not None and default.is_false():
                    continue  # what was set is in `out`; the rest is false, not written
                for exp in get_all_fluent_exp(self, f):
                    if exp not in out:
                        value = self.initial_value(exp)
                        if value is not None:
                            out[exp] = value
            return out

    return ClosedWorldProblem
