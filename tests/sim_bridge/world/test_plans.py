"""A planner's plan acted out in the embedded world: each fdc-home action does what it
says, the first refusal stops the replay with the world's reason, the trajectory ends
with a stop where the goal is judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.predicates.goal import atom
from fdc.predicates.verify import verify_snapshots
from fdc.sim_bridge.graph.scene_graph import SceneGraph, load_scene_graph
from fdc.sim_bridge.world.plans import replay_plan

APARTMENT = Path(__file__).resolve().parents[3] / "examples" / "scenes" / "apartment.json"

REMOTE_TO_SOFA = [
    "navigate-to-receptacle coffee_table|top coffee_table living_room",
    "pick remote_0 coffee_table|top",
    "navigate-to-receptacle sofa|top sofa living_room",
    "place remote_0 sofa|top sofa living_room",
]


@pytest.fixture(scope="module")
def graph() -> SceneGraph:
    return load_scene_graph(APARTMENT)


@pytest.mark.slow
def test_a_plan_is_acted_out_and_ends_with_a_stop(graph: SceneGraph) -> None:
    replay = replay_plan(REMOTE_TO_SOFA, graph)
    assert replay.refused is None and replay.reason == ""
    assert len(replay.snapshots) == 1 + len(REMOTE_TO_SOFA) + 1  # the start, each, the stop
    assert replay.snapshots[-1].action == "stop"
    goal = atom("on", "remote_0", "sofa|top")
    assert verify_snapshots({"t": goal}, graph, replay.snapshots)["t"].success
    assert replay.header.scene_sha256


@pytest.mark.slow
@pytest.mark.parametrize(("plan", "step", "words"), [
    (["fly-to sofa|top"], 1, "not an fdc-home action"),
    (["pick remote_0"], 1, "pick takes 2 arguments"),
    (REMOTE_TO_SOFA[1:], 1, "out of reach"),
    (["navigate-to-receptacle coffee_table|top coffee_table living_room",
      "pick tray_0 coffee_table|top"], 2, "take them off first"),
])
def test_the_first_refusal_stops_the_replay(graph: SceneGraph, plan: list[str], step: int,
                                            words: str) -> None:
    replay = replay_plan(plan, graph)
    assert replay.refused == step and words in replay.reason
    assert replay.reason.startswith(f"`{plan[step - 1]}`")
    assert replay.snapshots[-1].action == "stop"
