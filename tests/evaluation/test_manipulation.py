"""ManiTaskGen's scores of hand-written traces on the example apartment: each stage of a
relocation, a wrong item, a wrong region, a THEN task with one step done, an early end."""

from __future__ import annotations

import pytest

from fdc.agents.actions import ActionName, AgentAction
from fdc.compiler.suite import TaskRecord
from fdc.evaluation.manipulation import ManipulationResult, score_manipulation
from fdc.predicates.goal import GAnd, GNot, Goal, GThen, atom, to_pddl
from fdc.sim_bridge.graph.scene_graph import SceneGraph


def task(goal: Goal, *, level: int = 1, ident: str = "t") -> TaskRecord:
    return TaskRecord(id=ident, template="hand-made", level=level, goal=goal,
                      goal_pddl=to_pddl(goal), instructions=["Do it."],
                      tags=["manipulation", "process"])


def a(name: str, target: str | None = None, *regions: str) -> AgentAction:
    return AgentAction(action=ActionName(name), target=target, regions=list(regions))


# soap_0 stands on the sink cabinet; the side table holds glass_0 and lamp_1.
ON = atom("on", "soap_0", "side_table|top")
FULL = [a("go_to", "sink_cabinet|top"), a("pick", "soap_0"), a("go_to", "side_table|top"),
        a("place", "side_table|top"), a("call_end")]


@pytest.mark.parametrize(("n", "stage", "points"), [
    (0, 0, 0.0), (1, 1, 25.0), (2, 2, 50.0), (3, 3, 75.0), (5, 4, 100.0)])
@pytest.mark.slow
def test_each_stage_scores_25(apartment_graph: SceneGraph, n: int, stage: int,
                              points: float) -> None:
    r = score_manipulation(task(ON), FULL[:n], apartment_graph)
    assert (r.stage, r.points, r.success, r.steps) == (stage, points, stage == 4, n)
    if stage < 4:
        assert r.note.failed_stage == stage + 1
        assert r.note.failed_part == to_pddl(ON)
    else:
        assert r.note.failed_stage is None


@pytest.mark.slow
def test_the_note_says_what_the_oracle_would_do_next(apartment_graph: SceneGraph) -> None:
    nxt = [score_manipulation(task(ON), FULL[:n], apartment_graph).note.oracle_next
           for n in range(4)]
    assert [x.action if x else None for x in nxt] == [
        ActionName.GO_TO, ActionName.PICK, ActionName.GO_TO, ActionName.PLACE]
    assert [x.target if x else None for x in nxt] == [
        "sink_cabinet|top", "soap_0", "side_table|top", "side_table|top"]
    r = score_manipulation(task(ON), FULL[:2], apartment_graph)
    assert r.note.actions == ["1. go_to sink_cabinet|top: done", "2. pick soap_0: done"]
    assert r.note.failed_stage_name == "at the destination holding it"


def test_the_wrong_item_stops_at_the_source(apartment_graph: SceneGraph) -> None:
    wrong = [a("go_to", "sink_cabinet|top"), a("pick", "cup_4"), a("go_to", "side_table|top"),
             a("place", "side_table|top"), a("call_end")]
    r = score_manipulation(task(ON), wrong, apartment_graph)
    assert (r.success, r.stage, r.points) == (False, 1, 25.0)
    # the hand is empty, soap_0 out of reach from the side table: back to it
    assert r.note.oracle_next == a("go_to", "sink_cabinet|top")
    assert r.note.advice == "go to `sink_cabinet|top`, where `soap_0` stands"


def test_a_refused_action_costs_a_step_and_changes_nothing(apartment_graph: SceneGraph) -> None:
    trace = [a("pick", "soap_0"), *FULL]
    r = score_manipulation(task(ON), trace, apartment_graph)
    assert (r.success, r.steps, r.points) == (True, 6, 100.0)
    assert r.note.actions[0].startswith("1. pick soap_0: refused: `soap_0` is out of reach")


@pytest.mark.slow
def test_the_wrong_region_reaches_the_destination_only(apartment_graph: SceneGraph) -> None:
    # at-side is judged from where the robot stands: at the front of the sink cabinet
    # the surface's own words are the viewer's.
    goal = atom("at-side", "soap_0", "cup_4", "left")
    env_regions = "sink_cabinet|top#cup_4:{}"
    base = [a("go_to", "sink_cabinet|top"), a("pick", "soap_0"),
            a("show_receptacle", "sink_cabinet|top")]
    wrong = score_manipulation(task(goal), [*base, a("place", "sink_cabinet|top",
                                                     env_regions.format("right")),
                                            a("call_end")], apartment_graph)
    assert (wrong.success, wrong.stage, wrong.points) == (False, 3, 75.0)
    # soap_0 fits left of cup_4 only across two regions: one is refused, with the hint
    one = a("place", "sink_cabinet|top", env_regions.format("left"))
    two = a("place", "sink_cabinet|top", env_regions.format("left"),
            env_regions.format("rear-left"))
    right = score_manipulation(task(goal), [*base, one, two, a("call_end")], apartment_graph)
    assert right.note.actions[3] == (
        "4. place sink_cabinet|top [sink_cabinet|top#cup_4:left]: refused: `soap_0` fits left "
        "of `cup_4` only across `sink_cabinet|top#cup_4:rear-left`, "
        "`sink_cabinet|top#cup_4:left`: choose those regions")
    assert right.success and right.points == 100.0 and right.steps == 6


@pytest.mark.slow
def test_then_with_one_step_done_scores_half_plus_the_second_steps_points(
        apartment_graph: SceneGraph) -> None:
    first = atom("on", "soap_0", "side_table|top")
    second = atom("on", "cup_4", "coffee_table|top")
    goal = GThen(steps=(first, GAnd(parts=(first, second))))
    done_first = FULL[:4]
    r = score_manipulation(task(goal, level=3), [*done_first, a("call_end")], apartment_graph)
    assert (r.success, r.points, r.sub_points) == (False, 50.0, [100.0, 0.0])
    assert r.note.failed_part.startswith("step 2 of 2: (on cup_4 coffee_table|top)")
    r = score_manipulation(task(goal, level=3), [
        *done_first, a("go_to", "sink_cabinet|top"), a("pick", "cup_4"), a("call_end")],
        apartment_graph)
    assert (r.points, r.sub_points, r.stage) == (75.0, [100.0, 50.0], 2)
    r = score_manipulation(task(goal, level=3), [
        *done_first, a("go_to", "sink_cabinet|top"), a("pick", "cup_4"),
        a("go_to", "coffee_table|top"), a("place", "coffee_table|top"), a("call_end")],
        apartment_graph)
    assert r.success and r.points == 100.0 and r.sub_points == [100.0, 100.0]


def test_a_then_step_after_a_failed_one_scores_nothing(apartment_graph: SceneGraph) -> None:
    first = atom("on", "soap_0", "side_table|top")
    second = atom("on", "cup_4", "coffee_table|top")
    goal = GThen(steps=(first, GAnd(parts=(first, second))))
    trace = [a("go_to", "sink_cabinet|top"), a("pick", "cup_4"), a("go_to", "coffee_table|top"),
             a("place", "coffee_table|top"), a("call_end")]
    r = score_manipulation(task(goal, level=3), trace, apartment_graph)
    assert r.sub_points == [25.0, 0.0] and r.points == 12.5


def test_call_end_early_ignores_the_rest(apartment_graph: SceneGraph) -> None:
    trace = [FULL[0], a("call_end"), *FULL[1:]]
    r = score_manipulation(task(ON), trace, apartment_graph)
    assert (r.success, r.steps, r.ignored, r.points) == (False, 2, 4, 25.0)


def test_the_budget_cuts_a_long_trace(apartment_graph: SceneGraph) -> None:
    idle = [a("change_view")] * 30
    r = score_manipulation(task(ON), [FULL[0], *idle, *FULL[1:]], apartment_graph)
    assert (r.steps, r.ignored, r.success, r.stage) == (20, 15, False, 1)


@pytest.mark.slow
def test_outcome_points_count_the_conjuncts_done(apartment_graph: SceneGraph) -> None:
    goal = GAnd(parts=(atom("on", "soap_0", "side_table|top"),
                       atom("on", "cup_4", "side_table|top")))
    t = task(goal, level=4).model_copy(update={"tags": ["manipulation", "outcome"]})
    r = score_manipulation(t, [*FULL[:4], a("call_end")], apartment_graph)
    assert (r.success, r.points, r.stage) == (False, 50.0, 2)
    both = [*FULL[:4], a("go_to", "sink_cabinet|top"), a("pick", "cup_4"),
            a("go_to", "side_table|top"), a("place", "side_table|top"), a("call_end")]
    r = score_manipulation(t, both, apartment_graph)
    assert (r.success, r.points, r.stage) == (True, 100.0, 4)


def test_the_result_is_a_pydantic_model(apartment_graph: SceneGraph) -> None:
    r = score_manipulation(task(ON), FULL, apartment_graph)
    again = ManipulationResult.model_validate_json(r.model_dump_json())
    assert again == r


def test_doors_are_scored_and_the_note_says_open_or_close(apartment_graph: SceneGraph) -> None:
    # the fridge starts open; cup_2 is shut in the kitchen cabinet, which starts closed
    shut = GNot(body=atom("is-open", "fridge"))
    r = score_manipulation(task(shut), [a("call_end")], apartment_graph)
    assert (r.success, r.points) == (False, 0.0)
    assert r.note.oracle_next == a("go_to", "fridge|lower")
    trace = [a("go_to", "fridge|lower"), a("close", "fridge"), a("call_end")]
    assert score_manipulation(task(shut), trace[:1], apartment_graph).note.oracle_next == \
        a("close", "fridge")
    r = score_manipulation(task(shut), trace, apartment_graph)
    assert (r.success, r.points) == (True, 100.0)
    cup = atom("on", "cup_2", "dining_table|top")
    r = score_manipulation(task(cup), [a("go_to", "kitchen_cabinet|inside")], apartment_graph)
    assert (r.stage, r.points) == (1, 25.0)
    assert r.note.oracle_next == a("open", "kitchen_cabinet|inside")
    assert r.note.advice == "open `kitchen_cabinet|inside` to reach `cup_2`"
