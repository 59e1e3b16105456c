"""The embedded kinematic world: actions, refusals, the clock, paths, current poses."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import shapely

from fdc.sim_bridge.graph.placement import PlacementConfig
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld, WorldConfig
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Clock, WorldState
from fdc.sim_bridge.world.trajectory import read_trajectory
from tests.sim_bridge.helpers import graph, obj, on_top, room

STEP_MIN = 0.24  # 16 h over 4,000 steps


def _objects() -> list[dict]:
    return [
        obj("table", "table", (2.0, 3.0, 0.375), (1.0, 0.6, 0.75), kind="furniture"),
        obj("counter", "counter", (3.45, 1.0, 0.45), (0.6, 1.0, 0.9), kind="furniture"),
        obj("stool", "stool", (1.0, 2.0, 0.25), (0.3, 0.3, 0.5), kind="furniture"),
        on_top("mug", "mug", (1.8, 3.0), 0.75, (0.1, 0.1, 0.12)),
        on_top("tray", "tray", (2.2, 3.0), 0.75, (0.4, 0.3, 0.02)),
        on_top("cup", "cup", (2.2, 3.0), 0.77, (0.08, 0.08, 0.1)),
        on_top("box", "box", (1.0, 2.0), 0.5, (0.26, 0.26, 0.2)),
        obj(
            "cabinet",
            "cabinet",
            (0.5, 3.5, 0.4),
            (0.5, 0.6, 0.8),
            kind="articulated",
            containers=[
                {
                    "name": "inside",
                    "center": [0, 0, 0],
                    "size": [0.44, 0.54, 0.7],
                    "part": "door",
                    "open": False,
                }
            ],
            parts=[
                {
                    "name": "door",
                    "center": [0.24, 0, 0],
                    "size": [0.02, 0.6, 0.8],
                    "joint": {"type": "revolute", "lower": 0, "upper": 1.57},
                }
            ],
        ),
        on_top("can", "can", (0.5, 3.5), 0.05, (0.06, 0.06, 0.1)),
    ]


@pytest.fixture(scope="module")
def kitchen() -> SceneGraph:
    """One 4 x 4 m room; the agent at (0.5, 0.5) facing +x. The table's top is
    x 1.5-2.5, y 2.7-3.3 (z 0.75), the counter's x 3.15-3.75, y 0.5-1.5 (z 0.9), the
    stool's 0.3 x 0.3 m top (z 0.5) is filled by a 0.26 m box; a closed cabinet holds a
    can."""
    return graph(_objects())


def _frozen(w: EmbeddedWorld) -> tuple:
    """Everything a refused action must leave as it was."""
    return (
        w.snapshot(),
        w.snapshots,
        w.step,
        w.path_length_m,
        w.agent_pose(),
        w.held_object(),
        [w.object_pose(i) for i in w.object_ids()],
        {i: w.support_of(i) for i in w.object_ids()},
        w.time_min(),
    )


def _refused(w: EmbeddedWorld, call, reason_part: str) -> None:
    before = _frozen(w)
    res = call()
    assert not res.ok and not res
    assert reason_part in res.reason, res.reason
    assert res.steps == 0
    assert _frozen(w) == before


# ----- the world as a WorldState ----------------------------------------------------------
def test_starts_from_the_scene(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    assert isinstance(w, WorldState)
    assert w.agent_pose() == AgentPose(x=0.5, y=0.5, z=0.0, yaw_rad=0.0)
    assert w.held_object() is None
    assert list(w.object_ids()) == ["mug", "tray", "cup", "box", "cabinet", "can"]
    assert w.time_min() == 360.0
    s = w.snapshot()
    assert (s.step, s.action, s.path_length_m) == (0, None, 0.0)
    assert s.open == {"cabinet|inside": False}
    assert w.support_of("mug") == "table|top"
    assert w.support_of("cup") == "tray|top"
    assert w.support_of("can") == "cabinet|inside"
    assert w.support_of("table") is None
    assert w.room_of("mug") == "room"
    assert not w.is_open("cabinet") and not w.is_open("cabinet|inside")
    assert not w.is_open("cabinet|door")
    assert w.is_open("table")  # nothing to open: open


def test_starts_from_a_given_snapshot(kitchen: SceneGraph) -> None:
    """`start`: a world an earlier run left behind (the mug on the counter, the cabinet
    open, the robot by the counter), at step 0 of the new world's clock."""
    before = EmbeddedWorld(kitchen)
    assert before.navigate("mug").ok and before.pick("mug").ok
    assert before.navigate("counter|top").ok and before.place("counter|top").ok
    assert before.navigate("cabinet|inside").ok and before.open("cabinet").ok
    left = before.snapshot()
    w = EmbeddedWorld(kitchen, start=left)
    assert w.agent_pose() == left.agent and w.held_object() is None
    assert w.support_of("mug") == "counter|top" and w.is_open("cabinet|inside")
    assert w.support_of("cup") == "tray|top"  # unmoved: as the scene has it
    s = w.snapshot()
    assert (s.step, s.action, s.path_length_m, w.time_min()) == (0, None, 0.0, 360.0)
    assert w.navigate("mug").ok and w.pick("mug").ok  # it acts from there


# ----- motion, clock, path lengths ----------------------------------------------------------
def test_navigate_to_a_point_counts_steps_and_time(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    res = w.navigate((2.5, 0.5))
    # 2.0 m straight ahead: 8 forward steps of 0.25 m, no turn.
    assert res.ok and res.steps == 8
    assert res.path_length_m == pytest.approx(2.0)
    assert w.agent_pose() == AgentPose(x=2.5, y=0.5, yaw_rad=0.0)
    assert w.time_min() == pytest.approx(360 + 8 * STEP_MIN)
    assert w.snapshot().action == "navigate (2.5, 0.5)"
    assert len(w.snapshots) == 2
    # Then to (2.5, 1.5): a quarter turn left (9 x 10 deg) and 4 steps.
    res = w.navigate((2.5, 1.5))
    assert res.steps == 13
    assert w.agent_pose().yaw_rad == pytest.approx(math.pi / 2)
    assert w.time_min() == pytest.approx(360 + 21 * STEP_MIN)
    assert w.path_length_m == pytest.approx(3.0)


def test_record_steps_expands_a_walk_into_primitive_steps(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    res = w.navigate((0.5, 1.1), record_steps=True)
    # 9 turns left (10 deg each) then 0.6 m: 0.25, 0.25, 0.1.
    assert res.steps == 12
    snaps = w.snapshots[1:]
    assert [s.action for s in snaps] == ["turn_left"] * 9 + ["move_forward"] * 3
    assert [s.step for s in snaps] == list(range(1, 13))
    assert [round(math.degrees(s.agent.yaw_rad)) for s in snaps[:9]] == list(range(10, 100, 10))
    assert [round(s.agent.y, 6) for s in snaps[9:]] == [0.75, 1.0, 1.1]
    assert [round(s.path_length_m, 6) for s in snaps[9:]] == [0.25, 0.5, 0.6]
    assert snaps[-1].time_min == pytest.approx(360 + 12 * STEP_MIN)


def test_turn_and_forward(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    assert w.turn(math.radians(-25)).steps == 3  # 10 + 10 + 5 deg
    assert w.agent_pose().yaw_rad == pytest.approx(math.radians(-25))
    w.turn(math.radians(25))
    res = w.forward()
    assert res.ok and res.steps == 1 and w.agent_pose().x == pytest.approx(0.75)
    assert w.snapshot().action == "forward 0.25"
    w.turn(math.pi)
    _refused(w, lambda: w.forward(1.0), "blocked")  # the wall behind


def test_path_lengths_equal_geodesic_distances(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    for target in ("counter|top", "table", "mug", "cabinet|inside", "room", (3.0, 3.5)):
        here = (w.agent_pose().x, w.agent_pose().y)
        expected = kitchen.geodesic_distance(here, target)
        res = w.navigate(target)
        assert res.ok, res.reason
        assert res.path_length_m == pytest.approx(expected, abs=1e-9), target


def test_navigate_ends_facing_the_furniture(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    w.navigate("counter|top")
    # The counter's only reachable side towards the room is its rear (x = 2.8).
    assert (w.agent_pose().x, w.agent_pose().y) == pytest.approx((2.8, 1.0))
    assert w.agent_pose().yaw_rad == pytest.approx(0.0)
    w.navigate("mug")  # an item: face the item itself
    a = w.agent_pose()
    assert a.yaw_rad == pytest.approx(math.atan2(3.0 - a.y, 1.8 - a.x))


def test_custom_clock_and_the_end_of_the_day(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen, clock=Clock(start_min=480, end_min=540, steps_per_day=60))
    w.navigate((1.5, 0.5))  # 4 steps of one minute
    assert w.time_min() == 484.0
    short = EmbeddedWorld(kitchen, clock=Clock(start_min=480, end_min=485, steps_per_day=5))
    _refused(short, lambda: short.navigate((2.5, 0.5)), "the day ends at 08:05")


def test_unknown_and_unreachable_targets(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    _refused(w, lambda: w.navigate("sink"), "there is no `sink`")
    two = graph([], rooms=[room("a", "kitchen", 0, 0, 4, 4), room("b", "bedroom", 5, 0, 9, 4)])
    w2 = EmbeddedWorld(two)
    _refused(w2, lambda: w2.navigate("b"), "no path")


# ----- manipulation ---------------------------------------------------------------------
def test_pick_and_place_moves_the_support(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    assert w.navigate("mug").ok
    res = w.pick("mug")
    assert res.ok and res.surface_id == "table|top" and res.steps == 1
    assert w.held_object() == "mug" and w.support_of("mug") is None
    w.navigate("counter|top")
    p = w.object_pose("mug").position
    assert (p[0], p[1]) == pytest.approx((w.agent_pose().x, w.agent_pose().y))  # carried
    res = w.place("counter|top")
    assert res.ok and res.surface_id == "counter|top"
    assert w.held_object() is None
    assert w.support_of("mug") == "counter|top"
    # Packed into the corner of the empty counter, resting on it: z = 0.9 + 0.06.
    x, y, z = w.object_pose("mug").position
    assert (x, y) == pytest.approx((3.2, 0.55), abs=0.01)
    assert z == pytest.approx(0.96)
    assert w.snapshot().action == "place mug on counter|top"


def test_refused_actions_change_nothing(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    _refused(w, lambda: w.pick("mug"), "out of reach")  # far away
    _refused(w, lambda: w.place("table|top"), "the hand is empty")
    _refused(w, lambda: w.pick("table"), "only movable items")
    _refused(w, lambda: w.pick("ghost"), "there is no object `ghost`")
    _refused(w, lambda: w.open("table"), "nothing to open")  # not articulated
    _refused(w, lambda: w.open("mug"), "nothing to open")
    _refused(w, lambda: w.close("cabinet"), "already closed")
    w.navigate("tray")
    _refused(w, lambda: w.pick("tray"), "`tray` carries `cup`")  # something on it
    assert w.pick("mug").ok
    _refused(w, lambda: w.pick("cup"), "the hand already holds `mug`")  # pick while holding
    _refused(w, lambda: w.place("counter|top"), "out of reach")
    _refused(w, lambda: w.place("table|top", "in_cell"), "needs a cell")
    _refused(w, lambda: w.place("table|top", "sideways"), "unknown relation")
    _refused(w, lambda: w.place("cup", "between", second="ghost"), "no object `ghost`")
    w.navigate("stool|top")
    _refused(w, lambda: w.place("stool|top"), "no collision-free spot")  # a full surface


def test_placement_avoids_items_moved_earlier(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    # Clear the stool: the box goes to the counter, then the mug takes the stool.
    w.navigate("box")
    assert w.pick("box").ok
    w.navigate("counter|top")
    assert w.place("counter|top").ok
    w.navigate("mug")
    w.pick("mug")
    w.navigate("stool|top")
    assert w.place("stool|top").ok
    assert w.support_of("mug") == "stool|top"
    # The cup cannot go in the counter's corner any more: it lands beside the box.
    w.navigate("cup")
    w.pick("cup")
    w.navigate("counter|top")
    assert w.place("counter|top").ok
    cup = shapely.box(*_bounds(w, "cup"))
    box = shapely.box(*_bounds(w, "box"))
    assert cup.distance(box) >= 0.01 - 1e-9
    # The static graph still thinks the counter is empty.
    assert kitchen.place_on("cup", "counter|top").pose.position[:2] == pytest.approx(
        (3.19, 0.54), abs=0.01
    )


def _bounds(w: EmbeddedWorld, ident: str) -> tuple[float, float, float, float]:
    p = w.object_pose(ident)
    hx, hy = p.size[0] / 2, p.size[1] / 2
    return (p.position[0] - hx, p.position[1] - hy, p.position[0] + hx, p.position[1] + hy)


def test_items_on_a_moved_item(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    w.navigate("cup")
    w.pick("cup")
    assert w.place("table|top", "in_cell", cell="rear-left").ok
    assert w.pick("tray").ok  # now empty
    w.navigate("counter|top")
    assert w.place("counter|top").ok
    assert w.support_of("tray") == "counter|top"
    w.navigate("cup")
    assert w.pick("cup").ok
    w.navigate("tray")  # the tray's standing points are the counter's
    spots = [sp.position for sp in kitchen.standing_points("counter|top")]
    assert spots == [pytest.approx((2.8, 1.0)), pytest.approx((3.375, 1.85))]
    assert (w.agent_pose().x, w.agent_pose().y) in spots
    assert w.place("tray").ok  # on the tray's top, where the tray is now
    assert w.support_of("cup") == "tray|top"
    cz = w.object_pose("cup").position[2]
    # packed into a corner of the tray, wherever the tray is now
    cup, tray = _bounds(w, "cup"), _bounds(w, "tray")
    assert tray[0] <= cup[0] and tray[1] <= cup[1] and cup[2] <= tray[2] and cup[3] <= tray[3]
    assert cup[0] == pytest.approx(tray[0], abs=1e-3) or cup[2] == pytest.approx(tray[2], abs=1e-3)
    assert cz == pytest.approx(0.9 + 0.02 + 0.05)
    _refused(w, lambda: w.pick("tray"), "`tray` carries `cup`")


def test_relations_to_anchors(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    w.navigate("cup")
    w.pick("cup")
    res = w.place("mug", "beside", direction="left")  # as seen facing the table's front
    assert res.ok and res.surface_id == "table|top"
    assert res.placement is not None and res.placement.region_ids[0] == "table|top#mug:left"
    assert w.object_pose("cup").position[1] < 2.95
    w.pick("cup")
    res = w.place("mug", "between", second="tray")
    assert res.ok
    assert 1.85 < w.object_pose("cup").position[0] < 2.0
    w.pick("cup")
    assert w.place("mug", "around").ok
    w.pick("cup")
    _refused(w, lambda: w.place("mug", "beside", direction="up"), "up")


def test_open_close_and_containers(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    w.navigate("cabinet")
    _refused(w, lambda: w.pick("can"), "inside `cabinet|inside`, which is closed")
    # 1.9 m away the can (0.05-0.15 m high) is in the camera's view (its lower edge is
    # 36.5 degrees down).
    assert not w.visible("can", AgentPose(x=2.4, y=3.5, yaw_rad=math.pi))
    res = w.open("cabinet|door")  # by its part
    assert res.ok and w.is_open("cabinet") and w.snapshot().open == {"cabinet|inside": True}
    assert w.visible("can", AgentPose(x=2.4, y=3.5, yaw_rad=math.pi))
    # 0.6 m away it is below the camera's view.
    assert not w.visible("can", AgentPose(x=1.1, y=3.5, yaw_rad=math.pi))
    _refused(w, lambda: w.open("cabinet"), "already open")
    assert w.pick("can").ok
    assert w.close("cabinet").ok
    _refused(w, lambda: w.place("cabinet", "inside"), "closed")
    w.open("cabinet|inside")
    assert w.place("cabinet", "inside").ok
    assert w.support_of("can") == "cabinet|inside"


def test_open_needs_the_robot_nearby(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    _refused(w, lambda: w.open("cabinet"), "out of reach")
    far = EmbeddedWorld(kitchen, config=WorldConfig(reach_m=10.0))
    assert far.open("cabinet").ok


def test_stop_is_recorded(kitchen: SceneGraph) -> None:
    w = EmbeddedWorld(kitchen)
    res = w.stop()
    assert res.ok and w.snapshot().action == "stop" and w.step == 1


def test_rooms_follow_items(tmp_path: Path) -> None:
    g = graph(
        [
            obj("desk", "desk", (6.0, 2.0, 0.375), (0.8, 0.6, 0.75), kind="furniture"),
            obj("table", "table", (2.0, 2.0, 0.375), (0.8, 0.6, 0.75), kind="furniture"),
            on_top("book", "book", (2.0, 2.0), 0.75, (0.2, 0.15, 0.03)),
        ],
        rooms=[room("a", "kitchen", 0, 0, 4, 4), room("b", "office", 4, 0, 8, 4)],
        doors=[{"id": "door", "rooms": ["a", "b"], "position": [4.0, 3.2]}],
    )
    w = EmbeddedWorld(g)
    assert w.room_of("book") == "a"
    w.navigate("book")
    w.pick("book")
    assert w.room_of("book") == "a"
    d = g.geodesic_distance((w.agent_pose().x, w.agent_pose().y), "desk|top")
    res = w.navigate("desk|top")
    assert res.path_length_m == pytest.approx(d)
    assert w.room_of("book") == "b"  # held: where the robot is
    w.place("desk|top")
    assert w.room_of("book") == "b" and w.support_of("book") == "desk|top"
    assert w.geodesic_distance("book", "desk") == pytest.approx(0.0)


# ----- the example apartment --------------------------------------------------------------
@pytest.mark.slow
def test_apartment_pick_and_place_recorded_and_read_back(
    apartment_graph: SceneGraph, tmp_path: Path
) -> None:
    w = EmbeddedWorld(apartment_graph, seed=7)
    start = (w.agent_pose().x, w.agent_pose().y)
    source = apartment_graph.object("mug_1").parent_surface
    assert source == "kitchen_counter_east|top"
    res = w.navigate(source)
    assert res.ok
    assert res.path_length_m == pytest.approx(apartment_graph.geodesic_distance(start, source))
    assert w.pick("mug_1").ok
    here = (w.agent_pose().x, w.agent_pose().y)
    res = w.navigate("coffee_table|top", record_steps=True)
    assert res.ok
    assert res.path_length_m == pytest.approx(
        apartment_graph.geodesic_distance(here, "coffee_table|top"))
    walk = w.snapshots[3:]
    assert len(walk) == res.steps
    assert {s.action for s in walk} <= {"turn_left", "turn_right", "move_forward"}
    free = apartment_graph.nav.free.buffer(1e-6)
    assert all(free.covers(shapely.Point(s.agent.x, s.agent.y)) for s in walk)
    assert all(s.objects["mug_1"].position[:2] == (s.agent.x, s.agent.y) for s in walk)
    assert w.path_length_m == pytest.approx(walk[-1].path_length_m)
    assert w.place("coffee_table|top").ok
    w.stop()
    path = tmp_path / "run.jsonl"
    w.record(path, scene="apartment.json")
    header, snaps = read_trajectory(path)
    assert header.scene == "apartment.json" and header.seed == 7
    assert snaps == list(w.snapshots)
    first = SnapshotState(apartment_graph, snaps[0])
    last = SnapshotState(apartment_graph, snaps[-1])
    assert first.support_of("mug_1") == "kitchen_counter_east|top"
    assert last.support_of("mug_1") == "coffee_table|top"
    assert last.room_of("mug_1") == "living_room"
    assert [s.action for s in snaps[-2:]] == ["place mug_1 on coffee_table|top", "stop"]
    assert snaps[-1].time_min == pytest.approx(360 + snaps[-1].step * STEP_MIN)


def test_apartment_closed_cabinet(apartment_graph: SceneGraph) -> None:
    w = EmbeddedWorld(apartment_graph)
    assert apartment_graph.object("cup_2").parent_surface == "kitchen_cabinet|inside"
    w.navigate("cup_2")
    _refused(w, lambda: w.pick("cup_2"), "which is closed")
    assert w.open("kitchen_cabinet").ok
    assert w.pick("cup_2").ok
    assert w.place("kitchen_cabinet|top").ok
    assert w.support_of("cup_2") == "kitchen_cabinet|top"


def test_a_world_that_does_not_pack_sets_items_down_in_the_middle(kitchen: SceneGraph) -> None:
    """The simulated experience's robot sets items down near the middle (unpacked)."""
    unpacked = WorldConfig(placement=PlacementConfig(pack=False))
    w = EmbeddedWorld(kitchen, config=unpacked)
    w.navigate("mug")
    assert w.pick("mug").ok
    w.navigate("counter|top")
    assert w.place("counter|top").ok
    assert w.object_pose("mug").position[:2] == pytest.approx((3.45, 1.0), abs=0.01)


# ----- the floor ----------------------------------------------------------------------------
def test_place_on_floor_puts_the_item_down_in_reach_and_clear(tmp_path: Path) -> None:
    """The held item goes down on the floor of the robot's room: on no surface, its
    bottom on the floor, clear of the furniture, the robot and what already lies there,
    within arm reach (picked up again from there); beside an item on the floor when
    asked; refused in another room, with an empty hand, or beside an item on a table."""
    g = graph(
        [
            obj("table", "table", (2.0, 2.0, 0.375), (0.8, 0.6, 0.75), kind="furniture"),
            obj("desk", "desk", (6.0, 2.0, 0.375), (0.8, 0.6, 0.75), kind="furniture"),
            on_top("book", "book", (2.0, 2.0), 0.75, (0.2, 0.15, 0.03)),
            on_top("mug", "mug", (1.8, 2.0), 0.75, (0.1, 0.1, 0.12)),
        ],
        rooms=[room("a", "kitchen", 0, 0, 4, 4), room("b", "office", 4, 0, 8, 4)],
        doors=[{"id": "door", "rooms": ["a", "b"], "position": [4.0, 3.2]}],
    )
    w = EmbeddedWorld(g)
    _refused(w, lambda: w.place_on_floor("a"), "the hand is empty")
    assert w.navigate("book").ok and w.pick("book").ok
    _refused(w, lambda: w.place_on_floor("b"), "not in `b`")
    _refused(w, lambda: w.place_on_floor("nowhere"), "no room `nowhere`")
    _refused(w, lambda: w.place_on_floor("a", near="mug"), "no item on the floor")
    res = w.place_on_floor("a")
    assert res.ok and res.surface_id is None, res.reason
    assert w.held_object() is None and w.support_of("book") is None
    assert w.room_of("book") == "a"
    x, y, z = w.object_pose("book").position
    assert z == pytest.approx(0.015)  # its bottom on the floor
    a = w.agent_pose()
    assert math.hypot(x - a.x, y - a.y) <= w.config.arm_reach_m + 1e-9
    posed = w.state.posed
    book = posed.object("book").footprint
    assert not book.intersects(posed.object("table").footprint)
    assert book.distance(shapely.Point(a.x, a.y)) >= g.scene.agent.radius_m
    assert w.snapshot().action == "place book on the floor of a"
    # the mug beside the book, both on the floor, apart
    assert w.navigate("mug").ok and w.pick("mug").ok
    assert w.navigate("book").ok
    res = w.place_on_floor("a", near="book")
    assert res.ok, res.reason
    posed = w.state.posed
    mug, book = posed.object("mug").footprint, posed.object("book").footprint
    assert not mug.intersects(book) and mug.distance(book) < 0.3  # next to it
    assert w.support_of("mug") is None
    # picked up from the floor again, and put down on the desk
    assert w.pick("book").ok, "in reach where it was put down"
    assert w.navigate("desk|top").ok and w.place("desk|top").ok
    assert w.support_of("book") == "desk|top"
