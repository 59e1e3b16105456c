"""The start checks' reach rule (`UNREACHABLE`): a goal that must move an item the robot
cannot walk to, or put it on a surface or by an anchor it cannot walk to, makes no task.

Found by `fdc validate --solve` on the FindingDory fraction of docs/scale.md: the first
scene of `benchmarks/scale.py`'s family (`family_scene(0, 0)`) has a nightstand wedged
between a wall and a bed's foot (`room_002/nightstand_03`: no standing point at all), and
every task that moved the clock on it was compiled, then refused by the embedded world
(`plan-refused`: "no path from the robot ... to room_002/nightstand_03|top").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import assert_never

import pytest

from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.start_checks import infeasible, reach_from
from fdc.compiler.suite import read_suite
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
)
from fdc.sim_bridge.graph.feasible import Infeasible
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.generate import family_scene
from fdc.sim_bridge.world.embedded import EmbeddedWorld

LEVEL1 = Path(__file__).parents[2] / "domain" / "templates" / "manipulation" / "level-1.pddl"
NIGHTSTAND = "room_002/nightstand_03|top"
CLOCK = "clock_0001"  # on the nightstand
SHELF = "room_001/shelf_05|shelf_0"  # reachable


@pytest.fixture(scope="module")
def family0() -> SceneGraph:
    return build_scene_graph(family_scene(0, 0))


def at(*args: str) -> GAtom:
    return GAtom(predicate=args[0], args=args[1:])


def never(_a: GAtom) -> bool:
    return False


def test_the_scene_has_a_surface_no_path_reaches(family0: SceneGraph) -> None:
    w = EmbeddedWorld(family0)
    assert w.support_of(CLOCK) == NIGHTSTAND
    assert not family0.standing_points(NIGHTSTAND)
    assert not w.navigate(NIGHTSTAND).ok and not w.navigate(CLOCK).ok
    assert w.navigate(SHELF).ok


def test_an_item_surface_or_anchor_out_of_reach(family0: SceneGraph) -> None:
    w = EmbeddedWorld(family0)
    start = (w.agent_pose().x, w.agent_pose().y)
    reach = reach_from(w.state.posed, start)
    assert not reach(CLOCK) and not reach(NIGHTSTAND) and reach(SHELF)
    items = [o for o in family0.objects() if o.is_movable and
             family0.standing_points(o.id, reachable_only=True)]
    other = items[0].id
    move_clock = at("on", CLOCK, SHELF)
    onto_nightstand = at("on", other, NIGHTSTAND)
    by_clock = at("around", other, CLOCK)
    for goal in (move_clock, onto_nightstand, by_clock):
        assert infeasible(goal, family0, never, {}, reach=reach) is Infeasible.UNREACHABLE
        assert infeasible(goal, family0, never, {}) is not Infeasible.UNREACHABLE
    # an atom true at the start asks nothing to move; another way out is enough
    assert infeasible(move_clock, family0, lambda a: a == move_clock, {}, reach=reach) is None
    either = GOr(parts=(move_clock, at("on", other, SHELF)))
    assert infeasible(either, family0, never, {}, reach=reach) is None
    assert infeasible(GAnd(parts=(move_clock, at("on", other, SHELF))), family0, never, {},
                      reach=reach) is Infeasible.UNREACHABLE
    # a negated atom true at the start: the item must be taken away (`out-clear-surface`)
    off = GNot(body=at("on", CLOCK, NIGHTSTAND))
    assert infeasible(off, family0, lambda a: a == off.body, {}, reach=reach) is \
        Infeasible.UNREACHABLE
    assert infeasible(off, family0, never, {}, reach=reach) is None
    assert infeasible(GNot(body=at("on", other, NIGHTSTAND)), family0, never, {},
                      reach=reach) is None
    # a count: fewer items than it wants can end on what the robot walks to
    # (validate's `out-exactly-one-on-1516db2303b9`: one glass on the nightstand)
    def count(items: tuple[str, ...], others: tuple[str, ...], number: int,
              op: str = "at-least") -> GCount:
        return GCount.model_validate({"kind": "count", "relation": "on", "items": items,
                                      "others": others, "op": op, "number": number})

    glasses = tuple(o.id for o in family0.objects() if o.category == "glass")
    assert infeasible(count(glasses, (NIGHTSTAND,), 1, "exactly"), family0, never, {},
                      reach=reach) is Infeasible.UNREACHABLE
    assert infeasible(count((CLOCK, other), (SHELF,), 1), family0, never, {},
                      reach=reach) is None
    assert infeasible(count((CLOCK, other), (SHELF,), 2), family0, never, {},
                      reach=reach) is Infeasible.UNREACHABLE
    assert infeasible(count((CLOCK, other), (SHELF,), 2, "at-most"), family0, never, {},
                      reach=reach) is None


def needs_the_unreachable(goal: Goal, reach: dict[str, bool]) -> bool:
    """Whether every way to the goal moves an item the robot cannot walk to, or puts it
    on a surface or by an anchor it cannot walk to (`reach`: entity -> reachable)."""
    match goal:
        case GAtom():
            m = default_registry().meaning(goal.predicate)
            if m.relocates is None:
                return False
            roles = [m.relocates, *([] if m.onto is None else [m.onto]), *m.anchors]
            return any(not reach.get(goal.args[i], True) for i in roles if i < len(goal.args))
        case GAnd():
            return any(needs_the_unreachable(p, reach) for p in goal.parts)
        case GThen():
            return any(needs_the_unreachable(p, reach) for p in goal.steps)
        case GOr():
            return all(needs_the_unreachable(p, reach) for p in goal.parts)
        case GCount() if goal.op != "at-most":
            can = sum(any(not needs_the_unreachable(goal.atom_for(i, o), reach)
                          for o in goal.others or (None,)) for i in set(goal.items))
            return can < goal.number
        case GCount() | GNot() | GTargets() | GCluster() | GChecklist():
            return False
        case _:
            assert_never(goal)


def test_no_task_of_a_suite_needs_what_the_robot_cannot_reach(family0: SceneGraph,
                                                              tmp_path: Path) -> None:
    """Every task of the scene's level-1 suite (as benchmarks/scale.py compiles it, at
    most 25 tasks a template), judged by the embedded world itself: each item a goal
    moves, each surface and anchor it names, is one the robot walks to from the start
    (before the rule: 7 of its 200 tasks moved the clock on the nightstand)."""
    from typer.testing import CliRunner

    from fdc.cli import app

    scene = tmp_path / "scene-000.json"
    scene.write_text(family_scene(0, 0).to_json())
    out = tmp_path / "suite.jsonl"
    res = CliRunner().invoke(app, ["compile", str(scene), "-T", str(LEVEL1), "--seed", "0",
                                   "--max-per-template", "25", "--no-cache", "-o", str(out)])
    assert res.exit_code == 0, res.output
    records, found = read_suite(out)
    assert records and not found
    reach: dict[str, bool] = {}
    for e in [*(o.id for o in family0.objects()), *(s.id for s in family0.surfaces())]:
        w = EmbeddedWorld(family0)
        reach[e] = w.navigate(e).ok
    assert not reach[CLOCK] and not reach[NIGHTSTAND]
    start = family0.scene.agent.position
    for r in records:
        assert (r.start.x, r.start.y) == pytest.approx((start[0], start[1]), abs=1e-4)
        assert not needs_the_unreachable(r.goal, reach), (r.id, r.goal_pddl)
    drops = json.loads((tmp_path / "manifest.json").read_text())["drops"]
    assert drops[Drop(DropCode.INFEASIBLE, str(Infeasible.UNREACHABLE)).key] >= 1
