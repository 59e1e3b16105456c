"""The trajectory JSONL: round trips, located faults, the scene check, the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fdc.core.hashing import scene_sha256
from fdc.schemas import schema_json
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot, TrajectoryHeader
from fdc.sim_bridge.world.trajectory import (
    TrajectoryError,
    parse_trajectory,
    read_trajectory,
    scene_problems,
    write_trajectory,
)
from tests.sim_bridge.world.two_rooms import snapshot, two_rooms


@pytest.fixture(scope="module")
def g() -> SceneGraph:
    return two_rooms()


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
    good = snapshot((3.45, 1.0, 0.96))
    return "\n".join([_header(g).model_dump_json(), good.model_dump_json(), *rows]) + "\n"


def test_bad_lines_are_reported_with_line_numbers_and_paths(g: SceneGraph) -> None:
    snap = json.loads(snapshot((3.45, 1.0, 0.96), step=1).model_dump_json())
    nan = json.dumps(snap).replace("0.96", "NaN")
    no_agent = json.dumps({k: v for k, v in snap.items() if k != "agent"})
    back = json.dumps({**snap, "step": 0, "time_min": 300})
    text = _text(g, '{"step": 1,', nan, no_agent, "", "[1, 2]", back)
    with pytest.raises(TrajectoryError) as e:
        parse_trajectory(text, "run.jsonl")
    found = [(p.line, p.where, p.message) for p in e.value.problems]
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
        return [(p.line, p.where, p.message) for p in e.value.problems]

    assert problems("") == [(1, "", "empty file: expected a header line and one snapshot per line")]
    snap = snapshot((3.45, 1.0, 0.96)).model_dump_json()
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
    assert e.value.problems[0].line is None and "cannot read" in e.value.problems[0].message


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
    found = [(p.line, p.where) for p in scene_problems(g, header, [bad])]
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
