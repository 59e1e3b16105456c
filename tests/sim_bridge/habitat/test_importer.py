"""Import of the real Habitat test assets (../shared/fixtures/habitat, read-only)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fdc.core.problems import render_text
from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.habitat import import_habitat
from fdc.sim_bridge.habitat.importer import yup_to_zup_quaternion
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
DATASET_0 = TEST_ASSETS / "dataset_tests/dataset_0/test_dataset_0.scene_dataset_config.json"
STAGE, CHAIR = "simple_room.stage_config.json", "chair.object_config.json"
CFG = ".object_config.json"
DATASET_1 = TEST_ASSETS / "dataset_tests/dataset_1/test_dataset_1.scene_dataset_config.json"


def _bounds(poly) -> list[float]:
    return [round(v, 6) for v in poly.bounds]


@pytest.mark.slow
def test_dataset_0_imports_with_its_rooms(tmp_path: Path) -> None:
    r = import_habitat(DATASET_0, "dataset_test_scene", tmp_path)
    assert r.ok, [render_text(f) for f in r.findings]
    s = r.scene
    rooms = {x.id: x for x in s.rooms}
    assert {k: v.category for k, v in rooms.items()} == {
        "test_region_negativeX": "bedroom",
        "test_region_positiveX": "bathroom",
    }
    bed = rooms["test_region_negativeX"]
    # poly_loop (x, y, z) -> (x, -z); the floor height and extrusion give the band.
    assert bed.polygon == [
        (-20.0, 10.0),
        (-25.0, 0.0),
        (-20.0, -10.0),
        (-10.0, -10.0),
        (-5.0, 0.0),
        (-10.0, 10.0),
    ]
    assert (bed.floor_z, bed.height_m) == (-2.0, 4.0)
    ids = [o.id for o in s.objects]
    assert ids == ["stage", "dataset_test_object1_:0000", "dataset_test_object2_:0000"]
    # object2 is placed asset_local at Habitat (0.3, 0.4, 0.5) -> fdc (0.3, -0.5, 0.4); its
    # mesh box is centred on its origin (glTF bounds +-0.5172, +-0.3196, +-0.4390).
    o2 = s.objects[2]
    assert o2.pose.position == pytest.approx((0.3, -0.5, 0.4), abs=1e-5)
    assert o2.size == pytest.approx((1.034476, 0.878002, 0.63917), abs=1e-5)
    assert o2.source["template"].endswith("dataset_test_object2.object_config.json")
    # The graph builds from the written file (mesh paths are relative to it).
    out = tmp_path / "scene.json"
    out.write_text(s.to_json())
    g = build_scene_graph(s, base_dir=tmp_path)
    assert not [render_text(f) for f in g.findings if f.code.startswith("G")]  # meshes read
    # its mesh has two layers 1 mm apart: one platform
    assert [x.source for x in g.surfaces("dataset_test_object2_:0000")] == ["mesh"]
    outside = sorted(f.entities[0] for f in g.findings if f.code == "W103")
    assert outside == ["dataset_test_object1_:0000", "dataset_test_object2_:0000"]


def _write_dataset(tmp_path: Path, sections: dict, instance: dict) -> Path:
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "test.scene_instance.json").write_text(json.dumps(instance))
    cfg = {**sections, "scene_instances": {"paths": {".json": ["scenes"]}}}
    path = tmp_path / "test.scene_dataset_config.json"
    path.write_text(json.dumps(cfg))
    return path


@pytest.mark.slow
def test_chair_and_simple_room_receptacles_where_their_configs_put_them(tmp_path: Path) -> None:
    cfg = _write_dataset(
        tmp_path,
        {
            "stages": {"paths": {".json": [str(TEST_ASSETS / "scenes" / STAGE)]}},
            "objects": {"paths": {".json": [str(TEST_ASSETS / "objects" / CHAIR)]}},
        },
        {
            "stage_instance": {"template_name": "simple_room"},
            "object_instances": [
                {
                    "template_name": "chair",
                    "translation": [1.0, 0.0, 2.0],
                    "rotation": [math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0],
                    "translation_origin": "asset_local",
                    "motion_type": "STATIC",
                }
            ],
        },
    )
    r = import_habitat(cfg, "test", tmp_path)
    assert r.ok, [render_text(f) for f in r.findings]
    g = build_scene_graph(r.scene, base_dir=tmp_path)
    surf = {s.id: s for s in g.surfaces()}
    # Chair: rotated +90 deg about Habitat's Y, so asset (x, y, z) -> world (1 + z, y, 2 - x)
    # -> fdc (1 + z, x - 2, y). AABB centre (-0.079131, 0.119772, 0), half sizes
    # (0.158802, 0.11, 0.19): bottom y 0.009772, x in [-0.237933, 0.079671], z in +-0.19.
    aabb = surf["chair_:0000|receptacle_aabb_chair_test"]
    assert _bounds(aabb.polygon) == [0.81, -2.237933, 1.19, -1.920329]
    assert aabb.z == pytest.approx(0.009772, abs=1e-6)
    # Mesh receptacle: y 0.009212, x in [-0.243901, 0.045097], z in +-0.175879.
    mesh = surf["chair_:0000|receptacle_mesh_chair_test.0000"]
    assert _bounds(mesh.polygon) == [0.824121, -2.243901, 1.175879, -1.954903]
    assert mesh.z == pytest.approx(0.009212, abs=1e-6)
    # Stage receptacles are in world coordinates: (x, y, z) -> (x, -z, y).
    box = surf["stage|receptacle_aabb_simpleroom_test"]
    assert _bounds(box.polygon) == [1.36945, -3.00823, 3.36945, -2.22481]
    assert box.z == pytest.approx(-1.3934 - 1.0, abs=1e-6)
    table = surf["stage|receptacle_mesh_simpleroom_test.0000"]
    assert _bounds(table.polygon) == [-0.45, -0.45, 0.95, 0.95]
    assert table.z == pytest.approx(1.167508, abs=1e-6)
    chair = g.object("chair_:0000")
    assert chair.yaw_rad == pytest.approx(math.pi / 2)
    assert chair.kind.value == "furniture"
    # The Z-up stage asset (up +Z, front +Y) lands unrotated: its box is the glb's.
    stage = g.object("stage")
    assert stage.footprint.bounds == pytest.approx(
        (-5.247027, -5.397878, 5.279845, 5.448619), abs=1e-5
    )


def test_dataset_1_resolves_templates_by_substring(tmp_path: Path) -> None:
    strict = import_habitat(DATASET_1, "dataset_test_scene_0", tmp_path)
    assert strict.scene is None
    assert [f.code for f in strict.findings] == ["H001"]
    assert "test_semantic_descriptor_path1" in strict.findings[0].message
    r = import_habitat(DATASET_1, "dataset_test_scene_0", tmp_path, allow_missing=True)
    assert r.scene is not None and [f.severity.value for f in r.findings] == ["warning"]
    src = {o.id: o.source.get("template") for o in r.scene.objects}
    assert src == {
        "stage": "modified_test_stage_0",
        "dataset_test_object1_0_:0000": f"objects/object_0/dataset_test_object1_0{CFG}",
        "dataset_test_object2_1_:0000": f"objects/object_1/dataset_test_object2_1{CFG}",
    }
    assert r.scene.rooms == []


def test_fridge_links_and_joints(tmp_path: Path) -> None:
    cfg = _write_dataset(
        tmp_path,
        {"articulated_objects": {"paths": {".urdf": [str(TEST_ASSETS / "urdf/fridge")]}}},
        {
            "articulated_object_instances": [
                {"template_name": "fridge", "fixed_base": True, "translation": [2.0, 0.0, -1.0]}
            ]
        },
    )
    r = import_habitat(cfg, "test", tmp_path)
    assert r.ok, [render_text(f) for f in r.findings]
    (fridge,) = r.scene.objects
    assert fridge.id == "fridge_:0000" and fridge.kind.value == "articulated"
    assert fridge.source["links"] == "root,body,top_door,bottom_door"
    parts = {p.name: p for p in fridge.parts}
    assert set(parts) == {"body", "top_door", "bottom_door"}  # the root link has no geometry
    assert parts["body"].joint.type.value == "fixed"
    top, bottom = parts["top_door"].joint, parts["bottom_door"].joint
    assert (top.type.value, top.parent, top.upper) == ("revolute", "body", 2.3)
    assert (bottom.type.value, bottom.parent, bottom.upper) == ("revolute", "body", 2.5)
    # The root joint turns the body by 1.565 rad about X, so its 1.92 m long axis (URDF z)
    # stands up: the fridge is about 1.9 m tall in fdc's Z-up world.
    assert 1.85 < fridge.size[2] < 2.0
    # The hinges (URDF +z of the body) are vertical: the body's +z is Habitat's -Y.
    assert top.axis == pytest.approx((0.0, 0.0, -1.0), abs=0.01)
    x, y, _ = fridge.pose.position
    assert (x, y) == pytest.approx((2.0, 1.0), abs=0.4)


def test_missing_asset_is_an_error_naming_file_and_object(tmp_path: Path) -> None:
    (tmp_path / "objects").mkdir()
    (tmp_path / "objects" / "lamp.object_config.json").write_text(
        json.dumps({"render_asset": "lamp.glb"})
    )
    cfg = _write_dataset(
        tmp_path,
        {"objects": {"paths": {".json": ["objects"]}}},
        {"object_instances": [{"template_name": "lamp"}, {"template_name": "ghost"}]},
    )
    r = import_habitat(cfg, "test", tmp_path)
    assert r.scene is None
    (f,) = [x for x in r.findings if x.code == "H001"]
    assert "lamp.glb" in f.message and f.entities == ("lamp_:0000",)
    allowed = import_habitat(cfg, "test", tmp_path, allow_missing=True)
    assert allowed.scene is not None and allowed.scene.objects == []
    assert [x.code for x in allowed.findings] == ["H001", "H002"]
    assert "ghost" in allowed.findings[1].message


def test_quaternion_conversion_matches_the_axis_change() -> None:
    # 90 deg about Habitat's +Y (up) is 90 deg about fdc's +Z (up).
    q = yup_to_zup_quaternion([math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0])
    assert q == pytest.approx((math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)))
