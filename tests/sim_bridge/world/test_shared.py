"""`PosedShare`: worlds that meet the same arrangement share its posed graph (and its
placement answers) while a caller asks for it, and answer as worlds that do not."""

from __future__ import annotations

import pytest

from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.shared import PosedShare, active_share, key_of, sharing_posed
from tests.sim_bridge.helpers import graph, obj, on_top


@pytest.fixture(scope="module")
def kitchen() -> SceneGraph:
    return graph([
        obj("table", "table", (2.0, 3.0, 0.375), (1.0, 0.6, 0.75), kind="furniture"),
        obj("counter", "counter", (3.45, 1.0, 0.45), (0.6, 1.0, 0.9), kind="furniture"),
        on_top("mug", "mug", (1.8, 3.0), 0.75, (0.1, 0.1, 0.12)),
        on_top("cup", "cup", (2.2, 3.0), 0.75, (0.08, 0.08, 0.1)),
    ])


def _run(g: SceneGraph) -> EmbeddedWorld:
    """The mug carried from the table to the counter."""
    w = EmbeddedWorld(g)
    assert w.navigate("mug").ok and w.pick("mug").ok
    assert w.navigate("counter|top").ok and w.place("counter|top").ok
    return w


def _answers(w: EmbeddedWorld) -> list[object]:
    return [[s.objects, s.held, s.agent, s.action] for s in w.snapshots]


def test_worlds_in_a_share_reuse_posed_graphs_and_answer_alike(kitchen: SceneGraph) -> None:
    alone = _run(kitchen)
    share = PosedShare()
    with sharing_posed(share):
        first = _run(kitchen)
        posed = first.state.posed
        built = share.misses
        second = _run(kitchen)
        assert second.state.posed is posed
    assert share.misses == built and share.hits > 0  # the second run built nothing
    assert _answers(first) == _answers(second) == _answers(alone)
    assert alone.state.posed is not posed
    assert active_share() is None  # the block left, nothing is shared any more
    assert _run(kitchen).state.posed is not posed


def test_a_different_arrangement_or_held_pose_is_another_posed_graph(
        kitchen: SceneGraph) -> None:
    """The key is the content the posed graph is built from: a moved item, or the robot
    elsewhere while it holds an item (the held item's place), keys apart; the robot
    elsewhere with an empty hand does not."""
    w = EmbeddedWorld(kitchen)
    start = w.snapshot()
    assert w.navigate("mug").ok
    walked = w.snapshot()
    assert key_of(walked) == key_of(start)
    assert w.pick("mug").ok
    holding = w.snapshot()
    assert key_of(holding) != key_of(start)
    assert w.navigate("counter|top").ok
    assert key_of(w.snapshot()) != key_of(holding)  # the held mug moved with the robot
    assert w.place("counter|top").ok
    assert key_of(w.snapshot()) != key_of(start)


def test_a_share_keeps_at_most_its_limit(kitchen: SceneGraph) -> None:
    share = PosedShare(limit=2)
    with sharing_posed(share):
        w = _run(kitchen)
        assert w.state.posed is not None
    assert len(share._kept) <= 2
