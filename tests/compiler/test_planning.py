"""Planning certificates on the example apartment: the abstraction's problems, their plans,
goals it cannot satisfy, and `fdc export pddl` read back by unified-planning."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.compile import CompileOptions, SceneCompiler, load_entries
from fdc.compiler.emit import SceneJob, prepare_scene
from fdc.compiler.planning import CHECKPOINT, PlanningWorld, planning_domain, solve
from fdc.compiler.suite import TaskRecord, suite_lines
from fdc.predicates.goal import GAnd, GNot, GOr, GThen, atom, to_pddl

REPO = Path(__file__).resolve().parents[2]
APARTMENT = str(REPO / "examples" / "scenes" / "apartment.json")


@pytest.fixture(scope="module")
def compiler() -> SceneCompiler:
    found, _ = prepare_scene(SceneJob(APARTMENT, None, simulate=False), CompileOptions())
    return found


@pytest.fixture(scope="module")
def world(compiler: SceneCompiler) -> PlanningWorld:
    entries, _ = load_entries(None)
    return PlanningWorld(compiler.facts(entries[0].domain), compiler.states["initial"])


def support(compiler: SceneCompiler, item: str) -> str:
    s = compiler.states["initial"].support_of(item)
    assert s is not None
    return s


def test_the_planning_domain_reads_in_unified_planning(world: PlanningWorld) -> None:
    from unified_planning.io import PDDLReader

    text = planning_domain(world.info)
    assert "either" not in text and "(total-cost)" in text
    problem = PDDLReader().parse_problem_string(text)
    names = {a.name for a in problem.actions}
    assert {"navigate-to-receptacle", "pick", "place", "place-in-cell", "place-around",
            "place-at-side", "place-between", "place-inside", "open", "close"} <= names
    # (inside ?o - movable ?c - (either receptacle container)) widens to object
    assert str(problem.fluent("inside").signature[1].type) == "object"


def test_a_sequence_is_planned_step_by_step(world: PlanningWorld,
                                            compiler: SceneCompiler) -> None:
    a, b = "mug_2", "book_0"
    sa, sb = support(compiler, a), support(compiler, b)
    # first a goes to b's surface, then back to its own: two placements of a, in order
    goal = GThen(steps=(atom("on", a, sb), atom("on", a, sa)))
    pp = world.build("seq", goal)
    assert pp.checkpoints == (f"{CHECKPOINT}-1-1", f"{CHECKPOINT}-2-1")
    res = solve(pp, 60)
    assert res.status == "solved", res.message
    places = [s for s in res.plan if s.startswith("place")]
    assert [p.split()[2] for p in places] == [sb, sa]
    assert res.length == len(res.plan) and not any(CHECKPOINT in s for s in res.plan)


def test_goals_the_abstraction_cannot_satisfy_are_unsolvable(world: PlanningWorld,
                                                             compiler: SceneCompiler) -> None:
    a = "mug_2"
    other = support(compiler, "book_0")
    two_places = GAnd(parts=(atom("on", a, other), atom("on", a, support(compiler, a)),
                             atom("holding", "book_0")))
    assert solve(world.build("two", two_places), 60).status == "unsolvable"
    # no action brings the robot to an object: only memory tasks ask that
    assert solve(world.build("at", atom("robot-at-object", a)), 60).status == "unsolvable"
    # placed around an anchor, the item is on the anchor's surface, never elsewhere
    around = GAnd(parts=(atom("around", a, "book_0"), atom("on", "book_0", other),
                         GNot(body=atom("on", a, other))))
    assert solve(world.build("around", around), 60).status == "unsolvable"


def test_a_conjunction_of_disjunctions_is_checked_part_by_part(
        world: PlanningWorld, compiler: SceneCompiler) -> None:
    surfaces = [s for s, _ in world.facts.true_atoms("surface-of")][:12]
    items = ["mug_2", "book_0", "apple_0"]
    goal = GAnd(parts=tuple(GOr(parts=tuple(atom("on", x, s) for s in surfaces
                                            if s != support(compiler, x)))
                            for x in items))
    pp = world.build("spread", goal)
    assert len(pp.checkpoints) == 3
    res = solve(pp, 120)
    assert res.status == "solved", res.message
    assert sorted(s.split()[1] for s in res.plan if s.startswith("pick")) == sorted(items)


def test_items_named_only_in_literals_that_stay_false_are_left_out(
        world: PlanningWorld, compiler: SceneCompiler) -> None:
    s = support(compiler, "book_0")
    every = [atom("on", x, s) for x in world.facts.entities(("movable",)) if x != "mug_2"]
    truth = world.initially(every)
    there = sorted(a.args[0] for a in every if truth[a])  # (a cup on a tray counts too)
    assert "book_0" in there and len(there) < len(every)
    goal = GAnd(parts=(atom("on", "mug_2", s), *(GNot(body=a) for a in every)))
    pp = world.build("mostly-false", goal)
    assert pp.items == tuple(sorted(["mug_2", *there]))
    assert pp.left_out == len(every) - len(there)
    assert solve(pp, 60).status == "solved"


def test_pyperplan_solves_the_compiled_problem(world: PlanningWorld,
                                               compiler: SceneCompiler) -> None:
    pp = world.build("py", atom("on", "mug_2", support(compiler, "book_0")))
    res = solve(pp, 120, planner="pyperplan")
    assert res.status == "solved", res.message
    assert res.planner == "pyperplan" and res.plan[-1].startswith("place mug_2 ")


def test_export_pddl_files_read_back(tmp_path: Path, compiler: SceneCompiler) -> None:
    from unified_planning.io import PDDLReader

    a, sb = "mug_2", support(compiler, "book_0")
    plain = atom("on", a, sb)
    seq = GThen(steps=(plain, atom("on", a, support(compiler, a))))
    records = [TaskRecord(id=f"t-{k}", template="test", scene=APARTMENT, goal=g,
                          goal_pddl=to_pddl(g), targets=[a])
               for k, g in enumerate([plain, atom("on", "book_0", support(compiler, a)), seq])]
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(suite_lines(records)))
    out = tmp_path / "pddl"
    result = CliRunner().invoke(app, ["export", "pddl", str(suite), "-o", str(out)])
    assert result.exit_code == 2 and "no template `test`" in result.stderr
    records = [r.model_copy(update={"template": "l1-to-surface"}) for r in records]
    suite.write_text("".join(suite_lines(records)))
    result = CliRunner().invoke(app, ["export", "pddl", str(suite), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 3 problem(s)" in result.stderr
    written = sorted(p.name for p in out.iterdir())
    assert written == ["domain.pddl", "t-0.pddl", "t-1.pddl", "t-2.domain.pddl", "t-2.pddl"]
    reader = PDDLReader()
    for name, domain in [("t-0", "domain"), ("t-1", "domain"), ("t-2", "t-2.domain")]:
        problem = reader.parse_problem(str(out / f"{domain}.pddl"), str(out / f"{name}.pddl"))
        assert problem.goals and problem.initial_values
        assert {"mug_2", "book_0"} & {o.name for o in problem.all_objects}
        with_checkpoints = any(x.name.startswith(CHECKPOINT) for x in problem.actions)
        assert with_checkpoints == (name == "t-2")
