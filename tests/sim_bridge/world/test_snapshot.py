"""`SnapshotState` on hand-built snapshots: support, rooms, distances, visibility."""

from __future__ import annotations

import math

import pytest

from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, WorldState
from tests.sim_bridge.world.two_rooms import snapshot, two_rooms


@pytest.fixture(scope="module")
def g() -> SceneGraph:
    return two_rooms()


def test_snapshot_state_is_a_world_state(g: SceneGraph) -> None:
    s = SnapshotState(g, snapshot((3.45, 1.0, 0.96)))
    assert isinstance(s, WorldState)
    assert s.support_of("mug") == "counter|top"
    assert s.object_pose("cup").position == (7.5, 2.0, 0.05)  # not in the snapshot: initial
    assert s.time_min() == 360.0 and s.held_object() is None
    with pytest.raises(KeyError):
        s.object_pose("ghost")


@pytest.mark.parametrize(
    ("bottom", "supported"), [(0.94, True), (0.96, False), (0.86, True), (0.84, False)]
)
def test_support_height_threshold(g: SceneGraph, bottom: float, supported: bool) -> None:
    # Bottom within 5 cm of the counter top (z 0.9).
    s = SnapshotState(g, snapshot((3.45, 1.0, bottom + 0.06)))
    assert (s.support_of("mug") == "counter|top") is supported


@pytest.mark.parametrize(
    ("x", "supported"), [(3.73, True), (3.755, True), (3.765, False), (3.77, False)]
)
def test_support_overlap_threshold(g: SceneGraph, x: float, supported: bool) -> None:
    # The counter ends at x = 3.75: a 0.1 m mug centred at 3.73 spans 3.68-3.78 and
    # overlaps it by 0.07 m (0.7 of its footprint), at 3.77 by 0.03 m (0.3 < 0.4); the
    # threshold 0.4 is at x = 3.76.
    s = SnapshotState(g, snapshot((x, 1.0, 0.96)))
    assert (s.support_of("mug") == "counter|top") is supported


def test_held_item_rests_on_nothing(g: SceneGraph) -> None:
    s = SnapshotState(g, snapshot((1.0, 1.0, 1.0), held="mug"))
    assert s.support_of("mug") is None
    assert s.room_of("mug") == "a"
    assert s.visible("mug")


def test_rooms_by_polygon(g: SceneGraph) -> None:
    assert SnapshotState(g, snapshot((3.45, 1.0, 0.96))).room_of("mug") == "a"
    moved = SnapshotState(g, snapshot((5.0, 1.0, 0.06)))
    assert moved.room_of("mug") == "b"
    assert moved.support_of("mug") is None  # on the floor
    assert moved.room_of((4.5, 0.5)) == "b"
    assert moved.room_of((9.0, 0.5)) is None
    assert moved.room_of("counter|top") == "a"


def test_geodesic_distance_to_where_items_are_now(g: SceneGraph) -> None:
    s = SnapshotState(g, snapshot((3.45, 1.0, 0.96)))
    assert s.geodesic_distance((1.0, 1.0), "mug") == pytest.approx(
        g.geodesic_distance((1.0, 1.0), "counter|top")
    )
    on_floor = SnapshotState(g, snapshot((1.0, 3.0, 0.06)))
    # An item on the floor is reached at its own position: 2 m straight from (1, 1).
    assert on_floor.geodesic_distance((1.0, 1.0), "mug") == pytest.approx(2.0)


def test_visibility_field_of_view_and_range(g: SceneGraph) -> None:
    s = SnapshotState(g, snapshot((1.0, 3.0, 0.06)))
    eye = AgentPose(x=1.0, y=1.0, yaw_rad=math.pi / 2)  # facing the mug, 2 m away
    assert s.visible("mug", eye)
    assert not s.visible("mug", eye, max_range_m=1.9)
    # 50 deg off the heading: outside a 90 deg field of view, inside a 110 deg one.
    off = AgentPose(x=1.0, y=1.0, yaw_rad=math.pi / 2 + math.radians(50))
    assert not s.visible("mug", off)
    assert s.visible("mug", off, fov_rad=math.radians(110))


def test_visibility_occluded_by_furniture(g: SceneGraph) -> None:
    s = SnapshotState(g, snapshot((3.45, 1.0, 0.96)))
    behind = AgentPose(x=4.7, y=2.0, yaw_rad=0.0)  # the wardrobe between the eye and the cup
    assert not s.visible("cup", behind)
    # From (5, 3.6) the sight line to the cup passes x = 6.5 at y = 2.64, above the
    # wardrobe's back edge (y = 2.5).
    beside = AgentPose(x=5.0, y=3.6, yaw_rad=math.atan2(-1.6, 2.5))
    assert s.visible("cup", beside)
    # Move the mug behind the wardrobe too: hidden; in front of it: visible.
    assert not SnapshotState(g, snapshot((6.8, 2.0, 0.06))).visible("mug", behind)
    # On the floor 0.5 m away the mug is below the camera's view (its lower edge is 36.5
    # degrees down); held up at 1 m it is in view.
    assert not SnapshotState(g, snapshot((5.2, 2.0, 0.06))).visible("mug", behind)
    assert SnapshotState(g, snapshot((5.2, 2.0, 1.0))).visible("mug", behind)
    assert SnapshotState(g, snapshot((5.2, 2.0, 1.0))).visible_objects(behind) == \
        ["mug", "wardrobe"]


def test_many_sight_lines_at_once_answer_as_one_view_does(g: SceneGraph) -> None:
    """`visible_many` (the checkers over an experience's frames ask it for every pose and
    item at once) answers, pair by pair, what `visible_objects` sees from each pose."""
    s = SnapshotState(g, snapshot((5.2, 2.0, 0.06)))
    ids = [o.id for o in g.scene.objects]
    poses = [AgentPose(x=x, y=y, yaw_rad=math.radians(yaw))
             for x in (1.0, 3.0, 4.7, 5.0) for y in (1.0, 2.0, 3.6)
             for yaw in range(0, 360, 45)]
    pairs = [(x, p) for p in poses for x in ids]
    many = s.visible_many([x for x, _ in pairs], [p for _, p in pairs])
    seen = {(x, id(p)) for p in poses for x in s.visible_objects(p)}
    assert many == [(x, id(p)) in seen for x, p in pairs]
    assert any(many) and not all(many)
    assert s.visible_many([], []) == []
