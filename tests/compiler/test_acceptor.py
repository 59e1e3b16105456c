"""The fast acceptor (`compiler/planning/acceptor.py`) answers as unified-planning's
sequential simulator: on a certificate and refused plans (through `accept`, both ways),
and on enumerated random step sequences (applicability of many candidate steps, the
goal, every atom seen true, at each state)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from unified_planning.shortcuts import SequentialSimulator

from fdc.compiler.planning import PlanningWorld, PlanResult
from fdc.compiler.planning import acceptor as acceptor_module
from fdc.compiler.planning.acceptor import Acceptor, Unsupported
from fdc.compiler.planning.problem import _quiet
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.templates import load_entries
from fdc.predicates.goal import GAnd, GNot, Goal, GThen, atom
from fdc.sim_bridge.world.plans import parse_plan


@pytest.fixture(scope="module")
def world(apartment_compiler: SceneCompiler) -> PlanningWorld:
    entries, _ = load_entries(None)
    return PlanningWorld(apartment_compiler.facts(entries[0].domain),
                         apartment_compiler.states["initial"])


def _mug_plan(world: PlanningWorld) -> list[str]:
    start = world.context.require_state().support_of("mug_0")
    assert start is not None
    owner = world.graph.object(world.graph.surface(start).object_id)
    desk = world.graph.object("office_desk")
    return [f"navigate-to-receptacle {start} {owner.id} {owner.room}", f"pick mug_0 {start}",
            f"navigate-to-receptacle office_desk|top office_desk {desk.room}",
            f"place mug_0 office_desk|top office_desk {desk.room}"]


def _verdicts(world: PlanningWorld) -> list[str]:
    pp = world.build("mug", atom("on", "mug_0", "office_desk|top"))
    plan = _mug_plan(world)
    out = []
    for steps in (plan, plan[1:], plan[:2], [plan[1], plan[0], *plan[2:]],
                  [*plan, plan[1]], [*plan[:3], "place mug_0 nowhere|top x y"]):
        res = world.accept(pp, parse_plan(steps))
        out.append(str(res.plan if isinstance(res, PlanResult) else res))
    return out


def test_accept_gives_the_simulators_verdicts(world: PlanningWorld) -> None:
    fast = _verdicts(world)
    assert "mug_0" in fast[0]  # certified
    assert "does not allow action 1" in fast[1]  # inapplicable step
    assert "goal does not hold" in fast[2]  # goal not reached
    assert "does not allow action 1" in fast[3]  # wrong order
    assert "lacks" in fast[5]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(acceptor_module.Acceptor, "__init__", _refuse)
        assert _verdicts(world) == fast


def _refuse(self: Acceptor, problem: Any) -> None:
    raise Unsupported("the reference run")


def test_a_wrong_arity_or_type_is_refused_not_a_crash(world: PlanningWorld) -> None:
    """A step with one argument too many, or a room where an item goes, crashed
    unified-planning's grounder (an assertion) or its evaluation: now refused."""
    pp = world.build("mug", atom("on", "mug_0", "office_desk|top"))
    plan = _mug_plan(world)
    desk = world.graph.object("office_desk")
    extra = world.accept(pp, parse_plan([*plan[:3], f"{plan[3]} {desk.room}"]))
    assert isinstance(extra, str) and "takes 4 argument(s), the step gives 5" in extra
    typed = world.accept(pp, parse_plan(
        [*plan[:3], f"place {desk.room} office_desk|top office_desk {desk.room}"]))
    assert isinstance(typed, str) and "names what the abstraction lacks" in typed
    assert f"`{desk.room}` is a" in typed


GOALS: dict[str, Goal] = {
    "on": atom("on", "mug_0", "office_desk|top"),
    "not-on": GAnd(parts=(GNot(body=atom("on", "laptop_1", "office_desk|top")),
                          atom("on", "mug_0", "office_desk|top"))),
    "then": GThen(steps=(atom("holding", "mug_0"), atom("on", "mug_0", "office_desk|top"))),
}


def _candidates(problem: Any, facts: frozenset[tuple[str, ...]], rng: random.Random,
                n: int) -> list[tuple[str, tuple[str, ...]]]:
    """Random steps, each argument half the time an object of a true atom (so picks and
    placements of what the robot stands at come up, not only navigation)."""
    near = sorted({x for f in facts if f[0] in ("robot-at-receptacle", "holding", "on",
                                                "surface-of", "furniture-in-room")
                   for x in f[1:]})
    out = []
    actions = [a for a in problem.actions
               if all(list(problem.objects(p.type)) for p in a.parameters)]
    for _ in range(n):
        a = rng.choice(actions)
        args = []
        for p in a.parameters:
            typed = [o.name for o in problem.objects(p.type)]
            close = [x for x in near if x in typed]
            args.append(rng.choice(close if close and rng.random() < 0.7 else typed))
        out.append((a.name, tuple(args)))
    return out


@pytest.mark.parametrize("name", sorted(GOALS))
@pytest.mark.parametrize("seed", [0, 1])
def test_random_step_sequences_match_the_simulator(world: PlanningWorld, name: str,
                                                   seed: int) -> None:
    movers = {"mug_0", "laptop_1", "apple_0"}
    pp = world.build(name, GOALS[name], reduce=False, movable=movers)
    problem = pp.problem
    rng = random.Random(seed)
    fast = Acceptor(problem)
    _quiet()
    seen: set[tuple[str, ...]] = set()
    applied = 0
    kinds: set[str] = set()
    with SequentialSimulator(problem) as sim:
        state, facts = sim.get_initial_state(), fast.initial()
        for _ in range(25):
            seen |= facts
            for f in seen:  # every atom seen true so far, as the simulator holds it
                value = state.get_value(problem.fluent(f[0])(
                    *(problem.object(x) for x in f[1:]))).bool_constant_value()
                assert value == (f in facts), f
            assert bool(sim.is_goal(state)) == fast.is_goal(facts)
            # a random step, and the steps the state invites (what the last one touched)
            steps = _candidates(problem, facts, rng, 16) + [(c, ()) for c in pp.checkpoints]
            ok = []
            for action, args in steps:
                up = bool(sim.is_applicable(state, problem.action(action),
                                            [problem.object(x) for x in args]))
                assert up == fast.applicable(facts, action, args), (action, args)
                if up:
                    ok.append((action, args))
            if not ok:  # walk on: a navigation is usually applicable
                nav = problem.action("navigate-to-receptacle")
                objs = [list(problem.objects(p.type)) for p in nav.parameters]
                tries = [(nav.name, tuple(rng.choice(o).name for o in objs)) for _ in range(60)]
                ok = [(a, args) for a, args in tries if fast.applicable(facts, a, args)]
                if not ok:
                    continue
            action, args = rng.choice(ok)
            state = sim.apply_unsafe(state, problem.action(action),
                                     [problem.object(x) for x in args])
            facts = fast.apply(facts, action, args)
            applied += 1
            kinds.add(action)
    assert applied > 5
    assert kinds - {"navigate-to-receptacle"}, kinds  # not a walk alone
