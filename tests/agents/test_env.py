"""The agent environment: ManiTaskGen's loop over the embedded world (reset, actions,
observations, refusals, the step budget, Gymnasium's checks) and FindingDory's frame
selection."""

from __future__ import annotations

import json

import pytest
from gymnasium.utils.env_checker import check_env

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import (
    CHARSET,
    ManipulationEnv,
    items_to_move,
    parse_action,
    step_budget,
)
from fdc.agents.frame_selection import FrameSelection
from fdc.compiler.suite import TaskRecord
from fdc.predicates.goal import GAnd, Goal, GThen, atom, to_pddl
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.experience import Experience, Frame
from fdc.sim_bridge.world.state import AgentPose

ON = atom("on", "soap_0", "side_table|top")


def task(goal: Goal = ON, *, level: int = 1, tags: tuple[str, ...] = ("manipulation",),
         ident: str = "t1") -> TaskRecord:
    return TaskRecord(id=ident, template="hand-made", level=level, goal=goal,
                      goal_pddl=to_pddl(goal), instructions=["Put the soap on the side table."],
                      tags=list(tags))


def act(name: str, target: str | None = None, *regions: str) -> str:
    return AgentAction(action=ActionName(name), target=target,
                       regions=list(regions)).model_dump_json()


def test_reset_observes_the_task_and_the_surfaces(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    obs, info = env.reset(options={"task": task()})
    lines = obs.split("\n")
    assert lines[0] == "Task: Put the soap on the side table."
    assert lines[1] == "Step 0 of 20. Last action: none yet."
    assert lines[2] == "You stand at the start, at no surface."
    assert "`side_table|top`" in obs and "`sink_cabinet|top`" in obs
    assert info == {"task_id": "t1", "steps": 0, "budget": 20, "held": None, "at": None,
                    "last_ok": None, "last_reason": ""}


def test_a_relocation_step_by_step(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    obs, reward, term, trunc, info = env.step(act("go_to", "sink_cabinet|top"))
    assert (reward, term, trunc, info["at"]) == (0.0, False, False, "sink_cabinet|top")
    assert "You stand at the front side of `sink_cabinet|top` (sink cabinet, in bathroom)." in obs
    assert "`soap_0` (soap; color green, function cleaning, material soap)" in obs
    obs, *_ = env.step(act("pick", "soap_0"))
    assert "You hold `soap_0` (soap;" in obs
    obs, *_ = env.step(act("go_to", "side_table|top"))
    obs, *_ = env.step(act("show_receptacle", "side_table|top"))
    assert "Regions of `side_table|top` (place in them by id):" in obs
    assert "  side_table|top#glass_0:rear: " in obs  # occupied: around each item, then cells
    assert "  side_table|top#cell:center: the center cell" in obs
    obs, reward, term, trunc, info = env.step(act("place", "side_table|top"))
    assert info["held"] is None and not term
    obs, reward, term, trunc, info = env.step(act("call_end"))
    assert (reward, term, trunc, info["success"]) == (1.0, True, False, True)
    assert env.steps == 6
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(act("call_end"))


@pytest.mark.parametrize(("action", "reason"), [
    (act("pick", "soap_0"), "`soap_0` is out of reach"),
    (act("place", "side_table|top"), "the hand is empty: pick something first"),
    (act("go_to", "nowhere"), "there is no `nowhere` in the scene"),
    (act("go_to", "kitchen"), "`kitchen` is a room, not a surface"),
    (act("change_view"), "go_to a surface first"),
    (act("show_receptacle", "side_table|top"), "`side_table|top` is out of reach: go_to it first"),
    (json.dumps({"action": "go_to"}), "go_to needs a target"),
    (json.dumps({"action": "call_end", "target": "x"}), "call_end takes no target"),
    (json.dumps({"action": "pick", "target": "x", "regions": ["r"]}),
     "only place takes regions, not pick"),
    ("fly away", "not an action: the action: Invalid JSON"),
    (json.dumps({"action": "fly"}), "not an action: action: Input should be"),
])
def test_refusals_cost_a_step_and_change_nothing(apartment_graph: SceneGraph, action: str,
                                                 reason: str) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    before = env.world.snapshot()
    obs, _, _, _, info = env.step(action)
    assert info["last_ok"] is False and info["last_reason"].startswith(reason)
    assert f"refused: {reason}" in obs.split("\n")[1]
    assert env.steps == 1 and env.world.snapshot() == before


def test_place_in_regions_that_are_not_listed_is_refused(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    for a in (act("go_to", "sink_cabinet|top"), act("pick", "soap_0")):
        env.step(a)
    _, _, _, _, info = env.step(act("place", "sink_cabinet|top", "sink_cabinet|top#mug_9:left"))
    assert info["last_reason"] == ("`sink_cabinet|top#mug_9:left` is not a region of "
                                   "`sink_cabinet|top` now (show_receptacle lists them)")
    _, _, _, _, info = env.step(act("place", "sink_cabinet|top", "sink_cabinet|top#cup_4:left",
                                    "sink_cabinet|top#cell:left"))
    assert info["last_reason"] == "choose cells or regions around items, not both"


def test_change_view_walks_round_the_surface(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    def side(obs: str) -> str:
        return obs.split("\n")[2].split(" side of ")[0].rsplit(" ", 1)[1]

    sides = [side(env.step(act("go_to", "dining_table|top"))[0])]
    for _ in range(4):
        sides.append(side(env.step(act("change_view"))[0]))
    assert sides == ["rear", "left", "front", "right", "rear"]  # counter-clockwise


def test_the_budget_truncates(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph, budget=3)
    env.reset(options={"task": task()})
    results = [env.step(act("change_view")) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert results[-1][4]["success"] is False


def test_budgets(apartment_graph: SceneGraph) -> None:
    assert step_budget(task(), apartment_graph) == 20
    then = GThen(steps=(ON, GAnd(parts=(ON, atom("on", "cup_4", "coffee_table|top")))))
    assert step_budget(task(then, level=3), apartment_graph) == 40
    three = GAnd(parts=(ON, atom("on", "cup_4", "coffee_table|top"),
                        atom("on", "glass_0", "side_table|top")))  # glass_0 is there already
    outcome = task(three, level=4, tags=("manipulation", "outcome"))
    assert items_to_move(outcome, apartment_graph) == 2
    assert step_budget(outcome, apartment_graph) == 30


@pytest.mark.slow
def test_reset_draws_tasks_with_the_seed(apartment_graph: SceneGraph) -> None:
    tasks = [task(ident=f"t{k}") for k in range(5)]
    env = ManipulationEnv(apartment_graph, tasks)
    first = [env.reset(seed=s)[1]["task_id"] for s in (1, 2, 3)]
    again = [env.reset(seed=s)[1]["task_id"] for s in (1, 2, 3)]
    assert first == again
    assert env.reset(options={"task": "t3"})[1]["task_id"] == "t3"
    with pytest.raises(ValueError, match="no manipulation task `t9`"):
        env.reset(options={"task": "t9"})


def test_gymnasiums_env_checker_passes(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph, [task()], budget=4)
    check_env(env, skip_render_check=True)


def test_valid_actions_apply_to_the_robot_now(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    names = {a.action for a in env.valid_actions()}
    assert names == {ActionName.GO_TO, ActionName.CALL_END}
    env.step(act("go_to", "sink_cabinet|top"))
    picks = {a.target for a in env.valid_actions() if a.action is ActionName.PICK}
    assert picks == {"soap_0", "cup_4"}


def test_parse_action_reads_json_and_models() -> None:
    a = AgentAction(action=ActionName.PICK, target="mug_1")
    assert parse_action(a) is a
    assert parse_action({"action": "pick", "target": "mug_1"}) == a
    assert isinstance(parse_action("[1, 2]"), str)


def test_observations_stay_in_the_charset(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph)
    t = task().model_copy(update={"instructions": ["Put the soap — gently ☃ there."]})
    obs, _ = env.reset(options={"task": t})
    assert obs.split("\n")[0] == "Task: Put the soap — gently ? there."
    assert set(obs) <= CHARSET


def test_a_memory_task_is_refused(apartment_graph: SceneGraph) -> None:
    memory = task(tags=("memory",)).model_copy(update={"level": None, "valid_frames": [[0]]})
    with pytest.raises(ValueError, match="memory task"):
        ManipulationEnv(apartment_graph).reset(options={"task": memory})


def _log() -> Experience:
    pose = AgentPose(x=1.0, y=2.0, yaw_rad=0.0)
    frames = tuple(Frame(index=k, clock_min=360.0 + k, agent=pose, room="kitchen",
                         visible_objects=("mug_1",) if k == 1 else ()) for k in range(3))
    return Experience(scene="s.json", frames=frames)


def test_frame_selection_gives_the_history_and_takes_frames() -> None:
    memory = task(tags=("memory",)).model_copy(update={
        "level": None, "valid_frames": [[1], [2]], "instructions": ["Revisit both."]})
    sel = FrameSelection(memory, _log())
    assert sel.frames_wanted == 2 and len(sel.history) == 3
    assert sel.frame_text(1) == "Frame 1 at 06:01 in kitchen: sees mug_1"
    assert sel.prompt().split("\n")[-2:] == ["Instruction: Revisit both.",
                                             "Answer with 2 frame index(es)."]
    assert sel.answer(FrameSelection.parse("[2, 0]")) == [2, 0]
    with pytest.raises(ValueError, match="wants 2 frame"):
        sel.answer([1])
    with pytest.raises(ValueError, match=r"outside the history \(0-2\)"):
        sel.answer([1, 3])


def test_open_and_close_a_cabinet(apartment_graph: SceneGraph) -> None:
    # kitchen_cabinet|inside starts closed, with cup_2 and plate_1 shut in it.
    env = ManipulationEnv(apartment_graph)
    obs, _ = env.reset(options={"task": task()})
    containers = next(x for x in obs.split("\n") if x.startswith("Containers: "))
    assert "`kitchen_cabinet|inside` (closed)" in containers
    assert "`fridge|upper` (open)" in containers and "`box_0|inside` (open, no door)" in containers
    assert "open{target}, close{target}" in obs
    obs, *_ = env.step(act("go_to", "kitchen_cabinet|inside"))
    assert "`kitchen_cabinet|inside` is closed: open it to see inside." in obs
    assert "`kitchen_cabinet` has `kitchen_cabinet|inside` (closed)." in obs
    assert AgentAction(action=ActionName.OPEN, target="kitchen_cabinet|inside") in \
        env.valid_actions()
    _, _, _, _, info = env.step(act("pick", "cup_2"))
    assert info["last_reason"] == "`cup_2` is inside `kitchen_cabinet|inside`, which is closed"
    obs, _, _, _, info = env.step(act("open", "kitchen_cabinet|inside"))
    assert info["last_ok"] and env.world.is_open("kitchen_cabinet|inside")
    assert "`kitchen_cabinet` has `kitchen_cabinet|inside` (open)." in obs
    assert "`cup_2` (cup;" in obs
    assert AgentAction(action=ActionName.CLOSE, target="kitchen_cabinet|inside") in \
        env.valid_actions()
    _, _, _, _, info = env.step(act("open", "kitchen_cabinet"))
    assert info["last_reason"] == "`kitchen_cabinet` is already open"
    _, _, _, _, info = env.step(act("pick", "cup_2"))
    assert info["held"] == "cup_2"
    # fdc-home's open / close need (hand-empty): a one-armed robot puts things down first
    assert not any(a.action in (ActionName.OPEN, ActionName.CLOSE)
                   for a in env.valid_actions())
    before = env.world.snapshot()
    _, _, _, _, info = env.step(act("close", "kitchen_cabinet"))
    assert info["last_ok"] is False and info["last_reason"].startswith(
        "the hand holds `cup_2`: put it down first")
    assert env.world.snapshot() == before and env.world.is_open("kitchen_cabinet|inside")
    env.step(act("place", "kitchen_cabinet|inside"))
    _, _, _, _, info = env.step(act("close", "kitchen_cabinet"))  # the furniture: all of it
    assert info["last_ok"] and not env.world.is_open("kitchen_cabinet|inside")


@pytest.mark.parametrize(("action", "reason"), [
    (act("open", "kitchen_cabinet|inside"), "`kitchen_cabinet` is out of reach"),
    (act("close", "sofa"), "`sofa` has nothing to close"),
    (act("close", "box_0|inside"), "`box_0|inside` has no door or drawer: it is always open"),
    (json.dumps({"action": "open"}), "open needs a target"),
])
def test_open_and_close_refusals(apartment_graph: SceneGraph, action: str, reason: str) -> None:
    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    before = env.world.snapshot()
    _, _, _, _, info = env.step(action)
    assert info["last_ok"] is False and info["last_reason"].startswith(reason)
    assert env.world.snapshot() == before


@pytest.mark.parametrize("answer", ["[" * 100_000, "[" + "9" * 5000 + "]"])
def test_a_hostile_frame_answer_is_a_value_error(answer: str) -> None:
    """An agent's answer nested past the stack or with a number past Python's int
    conversion limit: a ValueError like any bad answer (once a RecursionError)."""
    with pytest.raises(ValueError, match=r"the limit `(json_depth|number_digits)`"):
        FrameSelection.parse(answer)


def test_truths_judged_ahead_are_those_judged_one_by_one(apartment_graph: SceneGraph) -> None:
    from fdc.agents.oracle.placements import truth_in
    from fdc.predicates.goal import GNot
    from fdc.predicates.registry import EvaluationError

    env = ManipulationEnv(apartment_graph)
    env.reset(options={"task": task()})
    surfaces = [s.id for s in apartment_graph.surfaces()][:6]
    movers = [o.id for o in apartment_graph.objects() if o.is_movable][:5]
    parts: list[Goal] = [atom("on", m, s) for m in movers for s in surfaces]
    parts += [GNot(body=atom("in-cell", m, s, "front-left")) for m in movers for s in surfaces]
    parts.append(ON)
    truths = [truth_in(env)(p) for p in parts]
    assert any(truths[:30]) and not all(truths[:30])
    assert [truth_in(env, ahead=parts)(p) for p in parts] == truths
    # an atom no checker can judge spoils no batch: it fails when asked, as before
    bad = atom("on", "soap_0", "no_such|top")
    ahead = truth_in(env, ahead=[*parts, bad])
    assert [ahead(p) for p in parts] == truths
    with pytest.raises(EvaluationError):
        ahead(bad)


def test_place_on_the_floor_of_a_room_and_beside_an_item_there(
        apartment_graph: SceneGraph) -> None:
    """`place` with a room as its target puts the held item down on its floor by the
    robot (the world's `place_on_floor`: `on-floor` holds); with an item on the floor as
    its target, beside that item; refused in another room, with regions."""
    env = ManipulationEnv(apartment_graph)
    goal = GAnd(parts=(atom("on-floor", "soap_0"), atom("in-room", "soap_0", "bathroom")))
    env.reset(options={"task": task(goal)})
    env.step(act("go_to", "sink_cabinet|top"))
    env.step(act("pick", "soap_0"))
    *_, info = env.step(act("place", "kitchen"))
    assert not info["last_ok"] and "not in `kitchen`" in info["last_reason"]
    *_, info = env.step(act("place", "bathroom", "bathroom#x"))
    assert not info["last_ok"] and "takes no regions" in info["last_reason"]
    *_, info = env.step(act("place", "bathroom"))
    assert info["last_ok"] and info["held"] is None, info["last_reason"]
    assert env.floor_items() == ["soap_0"]
    other = next(o.id for o in apartment_graph.items_on("sink_cabinet|top")
                 if o.id != "soap_0")
    env.step(act("pick", other))
    *_, info = env.step(act("place", "soap_0"))  # beside the soap on the floor
    assert info["last_ok"], info["last_reason"]
    assert sorted(env.floor_items()) == sorted(["soap_0", other])
    *_, info = env.step(act("call_end"))
    assert info["success"]
