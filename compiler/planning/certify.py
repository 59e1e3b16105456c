"""Certificates: a plan of the planning abstraction that the embedded world carries out.

`PlanningWorld.certify` solves a task's problem (`solvers.solve`), acts the plan out in
the embedded world (`sim_bridge/world/plans.py`) and, while the world refuses a placement
for lack of room, forbids it in the abstraction (`_forbid`) and solves again; a plan
found elsewhere (the manipulation oracle's) is checked by `accept`. The problems are
`problem.py`'s.

See docs/architecture.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fdc.core.errors import FdcError
from fdc.core.limits import current
from fdc.predicates.goal import GAnd, GNot, atom, atoms, is_multi_goal
from fdc.sim_bridge.world.plans import (
    ITEM_SURFACE_ARG,
    SURFACE_ARG,
    PlanStep,
    lack_of_room,
    moved,
    placed_on,
    replay_plan,
)
from fdc.sim_bridge.world.snapshot import SnapshotState

from .acceptor import Acceptor, Unsupported
from .problem import (
    AS_REFUSED,
    STAGE,
    PlanningProblem,
    PlanningScene,
    PlanResult,
    _actions_changed,
    _quiet,
    gathered,
)
from .solvers import solve

if TYPE_CHECKING:
    from fdc.sim_bridge.world.state import Snapshot, WorldState


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

#: `certify(trace_first=True)`: a trace of at most this many steps is checked before any
#: planner call; a longer one only where the planner's plans fail. It was 24 while
#: unified-planning's simulator checked traces (a 73-step trace, `out-group-kind`: 56
#: CPU-s by its trace, 14 by Fast Downward); with the acceptor (`acceptor.py`) that task
#: took 13.6 CPU-s by its trace against 22.0 with the planner first (`fdc validate` of
#: it alone, the same report), so the bound now lets every trace of the apartment suite
#: (the longest: 73 steps) go first; longer traces are unmeasured and keep the planner first.
TRACE_FIRST_STEPS = 128


class PlanningWorld(PlanningScene):
    """The planning view of one scene (`PlanningScene`) and its certificates: plans the
    embedded world carries out."""

    def certify(self, pp: PlanningProblem, timeout_s: float, planner: str | None = None,
                reached: Callable[[Snapshot], bool] | None = None,
                fallback: Callable[[], Sequence[PlanStep]] | None = None, *,
                trace_first: bool = False) -> PlanResult:
        """`_certified`, and when every plan the planner found was refused by the world
        for lack of room, or none was found in time, a plan from `fallback` (the
        manipulation oracle's trace written as fdc-home's actions:
        `fdc.agents.oracle.oracle_plan`, which places with the world's geometry in view) accepted as
        the certificate when the abstraction validates it and the world carries it
        out (`accept`). An `unsolvable` answer (the abstraction's proof) is kept.
        `trace_first`: the fallback's plan is tried first, and the planner is called
        only where it is no certificate (a planner's process and the PDDL it reads cost
        more than checking a trace); the fallback runs once either way. A trace the
        abstraction accepts is a plan of it, so the planner could not have proved the
        task unsolvable: the verdict is the one the planner first would give."""
        made: list[list[PlanStep] | str] = []  # the fallback's plan, or why none
        checked: list[PlanResult | str] = []  # that plan as a certificate, or why not

        def plan_of() -> list[PlanStep] | str:
            assert fallback is not None
            if not made:
                try:
                    made.append(list(fallback()))
                except FdcError as e:  # the oracle finds no trace
                    made.append(f"the oracle finds no trace either ({e})")
            return made[0]

        def traced() -> PlanResult | str:
            """The fallback's plan checked (`accept`), or why there is none; once."""
            if not checked:
                plan = plan_of()
                found = plan if isinstance(plan, str) else self.accept(pp, plan, reached)
                checked.append(found if not isinstance(found, str) or isinstance(plan, str)
                               else f"the oracle's plan is not a certificate: {found}")
            return checked[0]

        started = time.perf_counter()
        if fallback is not None and trace_first:
            plan = plan_of()
            # a very long trace: the planner first (TRACE_FIRST_STEPS, measured)
            if not isinstance(plan, str) and len(plan) <= TRACE_FIRST_STEPS:
                first = traced()
                if isinstance(first, PlanResult):
                    return replace(first, seconds=time.perf_counter() - started,
                                   message="the oracle's trace, accepted (no planner called)")
        res = self._certified(pp, timeout_s, planner, reached)
        if fallback is None or res.status not in ("refused", "timeout"):
            return res
        again = time.perf_counter()
        found = traced()
        seconds = res.seconds + time.perf_counter() - again
        if isinstance(found, str):
            return replace(res, seconds=seconds, message=f"{res.message}; {found}")
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
        if pp.goal is None:
            return "the task's goal is unknown"
        for k, step in enumerate(plan, 1):
            lacks = self._lacks(step)
            if lacks is not None:
                return f"action {k} of the plan, `{step}`, names what the abstraction " \
                    f"lacks: {lacks}"
        movers = {x for step in plan if (x := moved(step)) is not None}
        used = {x for step in plan for x in step.args}
        built = self.build(pp.task, pp.goal, reduce=False, movable=movers, extra=used)
        problem = built.problem
        checks: dict[str, list[str]] = {}  # each step's checks, in order
        for n in built.checkpoints:
            checks.setdefault(n.rsplit("-", 1)[0], []).append(n)
        frozen = f"{STAGE}-frozen" if checks else None
        _quiet()
        try:
            stepper: _Stepper = _Fast(Acceptor(problem))
        except Unsupported:  # a construct the acceptor lacks: the simulator's answer
            stepper = _Simulated(problem)
        with stepper:
            state = stepper.initial()

            def check() -> Any:
                """Each step's checks that hold now; a step split in conjuncts only
                when all of them hold (its first check freezes the world until its
                last: half checked, no action could follow)."""
                nonlocal state
                for step in checks.values():
                    after = state
                    for c in step:
                        if stepper.applicable(after, c, ()):
                            after = stepper.apply(after, c, ())
                    if frozen is None or stepper.is_goal(after) or \
                            not stepper.holds(after, frozen):
                        state = after
                return state

            state = check()
            first: int | None = None  # how many actions first reach the goal
            steps: list[PlanStep] = []
            for k, step in enumerate(plan, 1):
                if first is None and stepper.is_goal(state):
                    first = len(steps)
                if not stepper.applicable(state, step.action, step.args):
                    if first is not None:
                        break
                    return f"the abstraction does not allow action {k} of the plan, `{step}`"
                state = stepper.apply(state, step.action, step.args)
                state = check()
                steps.append(step)
            if len(steps) < len(plan) or not stepper.is_goal(state):
                if first is None:
                    return "the goal does not hold in the abstraction at the plan's end"
                steps = steps[:first]
        replay = replay_plan(steps, self.graph, self.start, reached)
        if replay.refused is not None:
            return f"the embedded world refuses action {replay.refused}: {replay.reason}"
        if reached is not None and not reached(replay.snapshots[-1]):
            return "the goal is not judged reached at the end of the world's replay"
        return PlanResult("solved", "oracle", 0.0, len(steps), steps, replay=replay,
                          replayed=list(steps))

    def _lacks(self, step: PlanStep) -> str | None:
        """What the abstraction lacks to take a plan step at all (no such action, a
        wrong number of arguments, no such entity, one of the wrong type), or None."""
        domain = self._base
        if not domain.has_action(step.action):
            return f"no action `{step.action}`"
        params = domain.action(step.action).parameters
        if len(step.args) != len(params):
            return f"`{step.action}` takes {len(params)} argument(s), the step gives " \
                f"{len(step.args)}"
        for x, p in zip(step.args, params, strict=True):
            if (name := self.facts.type_of(x)) is not None and domain.has_type(name):
                t = domain.user_type(name)
            elif domain.has_object(x):  # a constant
                t = domain.object(x).type
            else:
                return f"no object `{x}`"
            if not t.is_subtype(p.type):
                return f"`{x}` is a `{t.name}`, and `{step.action}`'s parameter " \
                    f"`{p.name}` a `{p.type.name}`"
        return None

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
        task = pp.with_problem(pp.problem.clone())
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
                               forbidden=forbidden, replay=replay,
                               replayed=list(res.plan))
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
        item, surface = spot
        occupants = []
        for x in sorted(self.facts.entities(("movable",))):
            if x == item or state.support_of(x) != surface:
                continue
            steps = [step for step in before if moved(step) == x]
            occupants.append((x, steps[-1] if steps else None))
        return Refusal(item, surface, tuple(occupants))


def _forbid(problem: Any, refusal: Refusal, k: int) -> None:
    """Forbid every placement of the refused item on the surface while every occupant
    stands as it stood then (always, with none): per occupant J a fluent
    `AS_REFUSED-k-J`, true at the start if it had not moved then, false once it is
    picked, true again when the very plan line that put it there runs again; and a
    precondition `(imply (and (= ?o item) (= ?s surface)) (not (and AS_REFUSED-k-J ...)))`
    of each placement on a surface."""
    from unified_planning.model import Fluent

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
        for name, j in {**SURFACE_ARG, **ITEM_SURFACE_ARG}.items():
            if problem.has_action(name):
                action = problem.action(name)
                same = em.And(em.Equals(action.parameters[0], o),
                              em.Equals(action.parameters[j], s))
                action.add_precondition(em.Implies(same, em.Not(em.And(*flags))))


class _Stepper:
    """A plan stepped through a problem's actions (`accept`): the fast acceptor or
    unified-planning's simulator, one answer."""

    def __enter__(self) -> _Stepper:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def initial(self) -> Any:
        raise NotImplementedError

    def applicable(self, state: Any, action: str, args: Sequence[str]) -> bool:
        raise NotImplementedError

    def apply(self, state: Any, action: str, args: Sequence[str]) -> Any:
        raise NotImplementedError

    def is_goal(self, state: Any) -> bool:
        raise NotImplementedError

    def holds(self, state: Any, fluent: str) -> bool:
        raise NotImplementedError


class _Fast(_Stepper):
    def __init__(self, acceptor: Acceptor) -> None:
        self.a = acceptor

    def initial(self) -> Any:
        return self.a.initial()

    def applicable(self, state: Any, action: str, args: Sequence[str]) -> bool:
        return self.a.applicable(state, action, args)

    def apply(self, state: Any, action: str, args: Sequence[str]) -> Any:
        return self.a.apply(state, action, args)

    def is_goal(self, state: Any) -> bool:
        return self.a.is_goal(state)

    def holds(self, state: Any, fluent: str) -> bool:
        return self.a.holds(state, fluent)


class _Simulated(_Stepper):
    def __init__(self, problem: Any) -> None:
        from unified_planning.shortcuts import SequentialSimulator

        self.problem = problem
        self.sim = SequentialSimulator(problem)

    def __exit__(self, *exc: object) -> None:
        self.sim.__exit__(None, None, None)

    def initial(self) -> Any:
        return self.sim.get_initial_state()

    def _ground(self, action: str, args: Sequence[str]) -> tuple[Any, list[Any]]:
        return self.problem.action(action), [self.problem.object(x) for x in args]

    def applicable(self, state: Any, action: str, args: Sequence[str]) -> bool:
        a, params = self._ground(action, args)
        return bool(self.sim.is_applicable(state, a, params))

    def apply(self, state: Any, action: str, args: Sequence[str]) -> Any:
        # applicable, just asked: `apply` would ask again (half a step's cost)
        a, params = self._ground(action, args)
        return self.sim.apply_unsafe(state, a, params)

    def is_goal(self, state: Any) -> bool:
        return bool(self.sim.is_goal(state))

    def holds(self, state: Any, fluent: str) -> bool:
        return bool(state.get_value(self.problem.fluent(fluent)()).bool_constant_value())
