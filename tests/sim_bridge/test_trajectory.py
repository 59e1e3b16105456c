"""Recorded snapshots: `SnapshotState` on hand-built states, and the trajectory JSONL."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fdc.core.hashing import scene_sha256
from fdc.schemas import schema_json
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot, TrajectoryHeader, WorldState
from fdc.sim_bridge.world.trajectory import (
    TrajectoryError,
    parse_trajectory,
    read_trajectory,
    scene_problems,
    write_trajectory,
)
from tests.sim_bridge.helpers import graph, obj, on_top, room

MUG = (0.1, 0.1, 0.12)


@pytest.fixture(scope="module")
def g() -> SceneGraph:
    """Two rooms: a (x 0-4) with a counter (top x 3.15-3.75, y 0.5-1.5, z 0.9) and a
    mug on it; b (x 4-8) with a 2 m tall wardrobe at x 5.5-6.5, y 1.5-2.5."""
    return graph(
        [
            obj("counter", "counter", (3.45, 1.0, 0.45), (0.6, 1.0, 0.9), kind="furniture"),
            on_top("mug", "mug", (3.45, 1.0), 0.9, MUG),
            obj("wardrobe", "wardrobe", (6.0, 2.0, 1.0), (1.0, 1.0, 2.0), kind="furniture"),
            on_top("cup", "cup", (7.5, 2.0), 0.0, (0.08, 0.08, 0.1)),
        ],
        rooms=[room("a", "kitchen", 0, 0, 4, 4), room("b", "bedroom", 4, 0, 8, 4)],
        doors=[{"id": "door", "rooms": ["a", "b"], "position": [4.0, 3.2]}],
    )


def _snap(
    mug_xyz: tuple[float, float, float],
    agent: AgentPose | None = None,
    held: str | None = None,
    step: int = 0,
) -> Snapshot:
    return Snapshot(
        step=step,
        time_min=360.0 + step,
        agent=agent or AgentPose(x=1, y=1, yaw_rad=0),
        held=held,
        objects={"mug": ObjectPose(position=mug_xyz, size=MUG)},
    )


# ----- support, rooms, distances, visibility on hand-built snapshots ------------------------
def test_snapshot_state_is_a_world_state(g: SceneGraph) -> None:
    s = SnapshotState(g, _snap((3.45, 1.0, 0.96)))
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
    s = SnapshotState(g, _snap((3.45, 1.0, bottom + 0.06)))
    assert (s.support_of("mug") == "counter|top") is supported


@pytest.mark.parametrize(
    ("x", "supported"), [(3.73, True), (3.755, True), (3.765, False), (3.77, False)]
)
def test_support_overlap_threshold(g: SceneGraph, x: float, supported: bool) -> None:
    # The counter ends at x = 3.75: a 0.1 m mug centred at 3.73 spans 3.68-3.78 and
    # overlaps it by 0.07 m (0.7 of its footprint), at 3.77 by 0.03 m (0.3 < 0.4); the
    # threshold 0.4 is at x = 3.76.
    s = SnapshotState(g, _snap((x, 1.0, 0.96)))
    assert (s.support_of("mug") == "counter|top") is supported


def test_held_item_rests_on_nothing(g: SceneGraph) -> None:
    s = SnapshotState(g, _snap((1.0, 1.0, 1.0), held="mug"))
    assert s.support_of("mug") is None
    assert s.room_of("mug") == "a"
    assert s.visible("mug")


def test_rooms_by_polygon(g: SceneGraph) -> None:
    assert SnapshotState(g, _snap((3.45, 1.0, 0.96))).room_of("mug") == "a"
    moved = SnapshotState(g, _snap((5.0, 1.0, 0.06)))
    assert moved.room_of("mug") == "b"
    assert moved.support_of("mug") is None  # on the floor
    assert moved.room_of((4.5, 0.5)) == "b"
    assert moved.room_of((9.0, 0.5)) is None
    assert moved.room_of("counter|top") == "a"


def test_geodesic_distance_to_where_items_are_now(g: SceneGraph) -> None:
    s = SnapshotState(g, _snap((3.45, 1.0, 0.96)))
    assert s.geodesic_distance((1.0, 1.0), "mug") == pytest.approx(
        g.geodesic_distance((1.0, 1.0), "counter|top")
    )
    on_floor = SnapshotState(g, _snap((1.0, 3.0, 0.06)))
    # An item on the floor is reached at its own position: 2 m straight from (1, 1).
    assert on_floor.geodesic_distance((1.0, 1.0), "mug") == pytest.approx(2.0)


def test_visibility_field_of_view_and_range(g: SceneGraph) -> None:
    s = SnapshotState(g, _snap((1.0, 3.0, 0.06)))
    eye = AgentPose(x=1.0, y=1.0, yaw_rad=math.pi / 2)  # facing the mug, 2 m away
    assert s.visible("mug", eye)
    assert not s.visible("mug", eye, max_range_m=1.9)
    # 50 deg off the heading: outside a 90 deg field of view, inside a 110 deg one.
    off = AgentPose(x=1.0, y=1.0, yaw_rad=math.pi / 2 + math.radians(50))
    assert not s.visible("mug", off)
    assert s.visible("mug", off, fov_rad=math.radians(110))


def test_visibility_occluded_by_furniture(g: SceneGraph) -> None:
    s = SnapshotState(g, _snap((3.45, 1.0, 0.96)))
    behind = AgentPose(x=4.7, y=2.0, yaw_rad=0.0)  # the wardrobe between the eye and the cup
    assert not s.visible("cup", behind)
    # From (5, 3.6) the sight line to the cup passes x = 6.5 at y = 2.64, above the
    # wardrobe's back edge (y = 2.5).
    beside = AgentPose(x=5.0, y=3.6, yaw_rad=math.atan2(-1.6, 2.5))
    assert s.visible("cup", beside)
    # Move the mug behind the wardrobe too: hidden; in front of it: visible.
    assert not SnapshotState(g, _snap((6.8, 2.0, 0.06))).visible("mug", behind)
    assert SnapshotState(g, _snap((5.2, 2.0, 0.06))).visible("mug", behind)
    assert SnapshotState(g, _snap((5.2, 2.0, 0.06))).visible_objects(behind) == ["mug", "wardrobe"]


# ----- the JSONL file ----------------------------------------------------------------------
def _header(g: SceneGraph) -> TrajectoryHeader:
    return TrajectoryHeader(scene="test.json", scene_sha256=scene_sha256(g.scene))


def test_round_trip(g: SceneGraph, tmp_path: Path) -> None:
    w = EmbeddedWorld(g)
    w.navigate("mug")
    w.pick("mug")
    w.navigate("b", record_steps=True)
    w.stop()
    path = tmp_path / "run.jsonl"
    w.record(path, scene="test.json")
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + len(w.snapshots)
    assert json.loads(lines[0])["kind"] == "fdc-trajectory"
    header, snaps = read_trajectory(path)
    assert header == w.header("test.json")
    assert snaps == list(w.snapshots)
    assert scene_problems(g, header, snaps) == []
    # Writing again replaces the file whole, leaving no temporary file behind.
    write_trajectory(path, header, snaps[:2])
    assert len(path.read_text().splitlines()) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]


def _text(g: SceneGraph, *rows: str) -> str:
    good = _snap((3.45, 1.0, 0.96))
    return "\n".join([_header(g).model_dump_json(), good.model_dump_json(), *rows]) + "\n"


def test_bad_lines_are_reported_with_line_numbers_and_paths(g: SceneGraph) -> None:
    snap = json.loads(_snap((3.45, 1.0, 0.96), step=1).model_dump_json())
    nan = json.dumps(snap).replace("0.96", "NaN")
    no_agent = json.dumps({k: v for k, v in snap.items() if k != "agent"})
    back = json.dumps({**snap, "step": 0, "time_min": 300})
    text = _text(g, '{"step": 1,', nan, no_agent, "", "[1, 2]", back)
    with pytest.raises(TrajectoryError) as e:
        parse_trajectory(text, "run.jsonl")
    found = [(p.line, p.path, p.message) for p in e.value.problems]
    assert found[0][:2] == (3, "") and found[0][2].startswith("not valid JSON")
    assert found[1] == (4, "objects.mug.position[2]", "NaN and infinite numbers are not allowed")
    assert found[2] == (5, "agent", "Field required")
    assert found[3] == (7, "", "expected a JSON object, found list")
    assert found[4][:2] == (8, "step") and "does not follow step 0 (line 2)" in found[4][2]
    assert found[5][:2] == (8, "time_min")
    assert len(found) == 6
    assert str(e.value).splitlines()[1] == (
        "run.jsonl:4: objects.mug.position[2]: NaN and infinite numbers are not allowed"
    )


def test_bad_headers_and_files(g: SceneGraph, tmp_path: Path) -> None:
    def problems(text: str) -> list[tuple[int, str, str]]:
        with pytest.raises(TrajectoryError) as e:
            parse_trajectory(text)
        return [(p.line, p.path, p.message) for p in e.value.problems]

    assert problems("") == [(1, "", "empty file: expected a header line and one snapshot per line")]
    snap = _snap((3.45, 1.0, 0.96)).model_dump_json()
    assert problems('{"kind": "scene"}\n' + snap)[0][:2] == (1, "kind")
    assert problems('{"format_version": "9.9", "scene": "x"}\n' + snap) == [
        (1, "format_version", "unsupported format_version '9.9'; this fdc reads '1.0'")
    ]
    assert problems('{"format_version": "1.0"}\n' + snap) == [(1, "scene", "Field required")]
    assert problems(_header(g).model_dump_json() + "\n") == [
        (1, "", "no snapshot follows the header")
    ]
    with pytest.raises(TrajectoryError) as e:
        read_trajectory(tmp_path / "missing.jsonl")
    assert e.value.problems[0].line == 0 and "cannot read" in e.value.problems[0].message


def test_scene_problems(g: SceneGraph) -> None:
    bad = Snapshot(
        step=0,
        time_min=360,
        agent=AgentPose(x=1, y=1, yaw_rad=0),
        held="counter",
        objects={"ghost": ObjectPose(position=(0, 0, 0), size=(1, 1, 1))},
        open={"counter|top": True},
    )
    header = TrajectoryHeader(scene="x", scene_sha256="0" * 64)
    found = [(p.line, p.path) for p in scene_problems(g, header, [bad])]
    assert found == [
        (1, "scene_sha256"),
        (2, "objects.ghost"),
        (2, "held"),
        (2, "open.counter|top"),
    ]


def test_trajectory_schema_is_published() -> None:
    schema = json.loads(schema_json("trajectory"))
    assert schema["title"] == "Snapshot"
    assert {"step", "time_min", "agent"} <= set(schema["required"])
