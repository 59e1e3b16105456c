"""scene.json: validation errors with JSON paths, references, NaN, schema, round trip."""

from __future__ import annotations

import json
import math
from pathlib import Path

from fdc.core.problems import render_text
from fdc.schemas import schema_json
from fdc.sim_bridge.scene.load import load_scene, parse_scene
from fdc.sim_bridge.scene.schema import Scene
from tests.sim_bridge.helpers import obj, room, scene


def _base() -> dict:
    return json.loads(scene([obj("table", "table", (2, 2, 0.375), (1.2, 0.8, 0.75))]).to_json())


def test_round_trip_is_identical() -> None:
    s = scene([obj("table", "table", (2, 2, 0.375), (1.2, 0.8, 0.75), 30.0)])
    again = parse_scene(s.to_json())
    assert again.ok and again.scene == s
    assert again.scene.to_json() == s.to_json()


def test_every_problem_gets_its_own_error_with_a_json_path() -> None:
    data = _base()
    data["objects"][0]["size"] = [1.2, -1, "wide"]
    data["objects"][0]["pose"]["orientation"] = [1, 0, 0, 1]
    data["rooms"][0]["polygon"] = [[0, 0], [1, 0]]
    data["agent"]["radius_m"] = "big"
    result = parse_scene(json.dumps(data))
    assert result.scene is None
    paths = sorted(f.where for f in result.findings)
    assert paths == [
        "agent.radius_m",
        "objects[0].pose.orientation",
        "objects[0].size[1]",
        "objects[0].size[2]",
        "rooms[0].polygon",
    ]
    assert all(f.is_error and f.code == "S010" for f in result.findings)


def test_nan_and_infinity_are_rejected_at_their_path() -> None:
    text = json.dumps(_base()).replace(
        '"position": [2.0, 2.0, 0.375]', '"position": [2.0, NaN, Infinity]'
    )
    result = parse_scene(text)
    assert [(f.where, f.message) for f in result.findings] == [
        ("objects[0].pose.position[1]", "NaN and infinite numbers are not allowed"),
        ("objects[0].pose.position[2]", "NaN and infinite numbers are not allowed"),
    ]


def test_duplicate_ids_and_unknown_references_are_reported() -> None:
    data = _base()
    data["objects"].append(dict(data["objects"][0]))
    data["objects"][1] = {**data["objects"][1], "room": "attic"}
    data["rooms"].append(room("table", "kitchen", 4, 0, 8, 4))
    data["doors"] = [{"id": "d1", "rooms": ["room", "cellar"], "position": [4, 2]}]
    result = parse_scene(json.dumps(data))
    got = sorted((f.code, f.where, f.message) for f in result.findings)
    assert got == [
        ("S020", "objects[0].id", "duplicate id `table`"),
        ("S020", "objects[1].id", "duplicate id `table`"),
        ("S021", "doors[0].rooms[1]", "unknown room `cellar`"),
        ("S021", "objects[1].room", "unknown room `attic`"),
    ]
    assert result.scene is None


def test_bad_json_and_wrong_version_are_input_errors(tmp_path: Path) -> None:
    assert parse_scene("{").findings[0].code == "S001"
    data = _base()
    data["format_version"] = "9.9"
    r = parse_scene(json.dumps(data))
    assert r.findings[0].where == "format_version" and r.scene is None
    missing = load_scene(tmp_path / "nope.json")
    assert missing.findings[0].code == "S000"


def test_schema_is_exported_and_states_the_conventions() -> None:
    schema = json.loads(schema_json("scene"))
    props = schema["properties"]
    assert props["format_version"]["const"] == "1.0"
    assert props["up_axis"]["const"] == "z" and props["quaternion_order"]["const"] == "wxyz"
    assert "ObjectSpec" in schema["$defs"]


def test_quaternion_order_is_wxyz() -> None:
    s = scene([obj("t", "table", (1, 1, 0.5), (2.0, 1.0, 1.0), 90.0)])
    w, _x, _y, z = s.objects[0].pose.orientation
    assert math.isclose(w, math.cos(math.pi / 4)) and math.isclose(z, math.sin(math.pi / 4))
    assert isinstance(Scene.model_json_schema(), dict)


def test_the_documented_example_is_a_valid_clean_scene() -> None:
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph

    doc = Path(__file__).parents[3] / "docs" / "formats" / "scene.md"
    block = doc.read_text().split("```json")[1].split("```")[0]
    result = parse_scene(block)
    assert result.ok, [render_text(f) for f in result.findings]
    g = build_scene_graph(result.scene)
    assert g.findings == []
    assert g.object("mug_red").parent_surface == "table|top"
    assert "closed" in g.place_inside("mug_red", "cabinet").reason
