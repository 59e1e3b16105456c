"""Hostile and real-world Habitat configs: located errors instead of tracebacks, mirrored
scales, partial downloads (`--allow-missing`) and receptacles of articulated objects."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.core.problems import render_text
from fdc.sim_bridge.graph.bodies import compute_bodies
from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.graph.surfaces import load_mesh_world
from fdc.sim_bridge.habitat import import_habitat
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
CHAIR = ("chair.object_config.json", "chair.glb", "receptacle_mesh_chair.ply")


def _dataset(tmp_path: Path, instances: dict[str, Any], **sections: Any) -> Path:
    """A dataset in tmp_path with the chair object and the given scene instances."""
    (tmp_path / "objects").mkdir(exist_ok=True)
    for name in CHAIR:
        shutil.copy(TEST_ASSETS / "objects" / name, tmp_path / "objects" / name)
    (tmp_path / "scenes").mkdir(exist_ok=True)
    for name, inst in instances.items():
        path = tmp_path / "scenes" / f"{name}.scene_instance.json"
        if isinstance(inst, bytes):
            path.write_bytes(inst)
        else:
            path.write_text(json.dumps(inst) if not isinstance(inst, str) else inst)
    cfg = {"objects": {"paths": {".json": ["objects"]}},
           "scene_instances": {"paths": {".json": ["scenes"]}}, **sections}
    path = tmp_path / "test.scene_dataset_config.json"
    path.write_text(json.dumps(cfg))
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _chair(**fields: Any) -> dict[str, Any]:
    return {"object_instances": [{"template_name": "chair", **fields}]}


HOSTILE = {
    "nan-rotation": ('{"object_instances": [{"template_name": "chair", '
                     '"rotation": [NaN, 0, 0, 0]}]}', "object_instances[0].rotation[0]",
                     "quaternion"),
    "zero-rotation": (_chair(rotation=[0, 0, 0, 0]), "object_instances[0].rotation",
                      "quaternion"),
    "zero-scale": (_chair(non_uniform_scale=[1, 0, 1]),
                   "object_instances[0].non_uniform_scale[1]", "none zero"),
    "zero-uniform-scale": (_chair(uniform_scale=0), "object_instances[0].uniform_scale",
                           "other than zero"),
    "infinite-translation": ('{"object_instances": [{"template_name": "chair", '
                             '"translation": [Infinity, 0, 0]}]}',
                             "object_instances[0].translation[0]", "finite"),
    "short-rotation": (_chair(rotation=[1, 0]), "object_instances[0].rotation", "quaternion"),
    "text-scale": (_chair(non_uniform_scale="big"), "object_instances[0].non_uniform_scale",
                   "none zero"),
    "binary": (bytes(range(256)), "", "UTF-8 JSON"),
    "not-json": ("{object_instances: [", "", "UTF-8 JSON"),
    "list-of-instances": ({"object_instances": {"a": 1}}, "object_instances", ""),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_scene_instance_is_a_located_error(tmp_path: Path, case: str) -> None:
    inst, where, hint = HOSTILE[case]
    cfg = _dataset(tmp_path, {"bad": inst})
    out = tmp_path / "out" / "scene.json"
    code, text = _run("import", "habitat", str(cfg), "--scene", "bad", "-o", str(out))
    assert code == 2, text
    assert "Traceback" not in text and "ValidationError" not in text
    assert "bad.scene_instance.json" in text  # the config file
    assert (f"{where}" in text and "error[H005]" in text) if where else "error[H003]" in text
    assert hint in text
    assert not out.exists()


@pytest.mark.parametrize("attributes, where", [
    ({"scale": [1, 0, 1]}, "scale[1]"),
    ({"up": [0, 0, 0]}, "up"),
    ({"up": [0, 1, 0], "front": [0, 2, 0]}, "parallel"),
    ({"units_to_meters": -1}, "units_to_meters"),
    ({"user_defined": {"receptacle_aabb_x": {"rotation": [0, 0, 0, 0]}}},
     "user_defined.receptacle_aabb_x.rotation"),
])
def test_a_hostile_object_config_is_a_located_error(tmp_path: Path, attributes: dict[str, Any],
                                                    where: str) -> None:
    cfg = _dataset(tmp_path, {"s": _chair()})
    config = tmp_path / "objects" / "chair.object_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), **attributes}))
    r = import_habitat(cfg, "s", tmp_path)
    errors = [render_text(f) for f in r.findings if f.is_error]
    assert errors and all("chair.object_config.json" in e for e in errors), errors
    assert any(where in e for e in errors), errors


def test_a_broken_config_nobody_uses_does_not_stop_an_import(tmp_path: Path) -> None:
    cfg = _dataset(tmp_path, {"good": _chair(), "broken": b"\xff\xfe\x00"})
    r = import_habitat(cfg, "good", tmp_path)
    assert r.ok and r.scene is not None and len(r.scene.objects) == 1


# --------------------------------------------------------------------------- mirrors


@pytest.mark.parametrize("mirror", [[-1, 1, 1], [1, 1, -1], [-1, -1, 1], [-0.5, 2, 1]])
def test_a_mirrored_object_has_the_box_and_mesh_extent_of_the_unmirrored_one(
        tmp_path: Path, mirror: list[float]) -> None:
    plain = [abs(v) for v in mirror]
    cfg = _dataset(tmp_path, {
        "plain": _chair(non_uniform_scale=plain, translation=[1, 0, 2], motion_type="STATIC"),
        "mirrored": _chair(non_uniform_scale=mirror, translation=[1, 0, 2],
                           motion_type="STATIC")})
    extents = {}
    for name in ("plain", "mirrored"):
        r = import_habitat(cfg, name, tmp_path)
        assert r.ok and r.scene is not None, [render_text(f) for f in r.findings]
        (chair,) = r.scene.objects
        assert chair.mesh is not None
        graph = build_scene_graph(r.scene, base_dir=tmp_path)
        assert not [f for f in graph.findings if f.code.startswith("G")]  # the mesh is read
        mesh = load_mesh_world(chair, 0, compute_bodies(graph.scene), tmp_path)
        lo, hi = mesh.bounds
        # The mesh as placed fills the object's box, mirrored or not.
        assert hi - lo == pytest.approx(chair.size, abs=1e-5)
        assert (lo + hi) / 2 == pytest.approx(chair.pose.position, abs=1e-5)
        extents[name] = (chair.size, hi - lo, chair.mesh.scale, mesh.volume)
    assert extents["mirrored"][0] == pytest.approx(extents["plain"][0], abs=1e-6)
    assert extents["mirrored"][1] == pytest.approx(extents["plain"][1], abs=1e-6)
    assert np.sign(extents["mirrored"][2]).tolist() == np.sign(mirror).tolist()
    # Rewound faces: the mirrored mesh is not inside out (its volume stays positive).
    assert extents["mirrored"][3] == pytest.approx(extents["plain"][3], rel=1e-6)


# --------------------------------------------------------------------------- partial


def _hssd_partial(tmp_path: Path) -> Path:
    """The shape of a real HSSD scene instance (hssd-hab `scenes/*.scene_instance.json`)
    whose stage, object and articulated configs were not downloaded: only the chair is."""
    instance = {
        "stage_instance": {"template_name": "stages/102344022"},
        "object_instances": [
            {"template_name": "218-19", "translation": [-8.7, 0.1, -3.2],
             "rotation": [0.7071, 0, -0.7071, 0], "non_uniform_scale": [-1, 1, 1],
             "motion_type": "STATIC"},
            {"template_name": "chair", "translation": [1.0, 0.0, 2.0],
             "rotation": [1, 0, 0, 0], "non_uniform_scale": [1, 1, -1],
             "motion_type": "STATIC"},
            {"template_name": "3f7a8b3a3c0c4e5e9e1a2b6c7d8e9f00a1b2c3d4",
             "translation": [0, 0.9, 0], "rotation": [1, 0, 0, 0], "motion_type": "DYNAMIC"},
        ],
        "articulated_object_instances": [
            {"template_name": "fridge_shared", "fixed_base": True, "translation_origin": "COM",
             "uniform_scale": 1.0, "motion_type": "DYNAMIC", "translation": [2, 0, -1]}],
        "translation_origin": "asset_local",
        "default_lighting": "lighting/102344022",
        "user_custom_attributes": {},
    }
    (tmp_path / "stages").mkdir()
    (tmp_path / "urdf").mkdir()
    return _dataset(tmp_path, {"102344022": instance},
                    stages={"paths": {".json": ["stages"]}},
                    articulated_objects={"paths": {".json": ["urdf"]}})


def test_a_partial_hssd_download_imports_with_allow_missing(tmp_path: Path) -> None:
    cfg = _hssd_partial(tmp_path)
    out = tmp_path / "scene.json"
    code, text = _run("import", "habitat", str(cfg), "--scene", "102344022", "-o", str(out))
    assert code == 2 and not out.exists()
    assert "unknown object template `218-19`" in text and "--allow-missing" in text
    code, text = _run("import", "habitat", str(cfg), "--scene", "102344022", "-o", str(out),
                      "--allow-missing")
    assert code == 1, text
    assert "Traceback" not in text
    for name in ("stage template `stages/102344022`", "object template `218-19`",
                 "object template `3f7a8b3a3c0c4e5e9e1a2b6c7d8e9f00a1b2c3d4`",
                 "articulated object template `fridge_shared`"):
        assert f"warning[H002]: unknown {name}; skipped" in text
    assert "1 objects, 4 skipped" in text
    scene = json.loads(out.read_text())
    assert [o["id"] for o in scene["objects"]] == ["chair_:0000"]
    assert scene["objects"][0]["mesh"]["scale"] == [1.0, 1.0, -1.0]  # mirrored in Habitat Z


def test_allow_missing_lists_what_it_skipped(tmp_path: Path) -> None:
    r = import_habitat(_hssd_partial(tmp_path), "102344022", tmp_path, allow_missing=True)
    assert r.ok and r.scene is not None
    assert r.skipped == ["stages/102344022", "218-19",
                         "3f7a8b3a3c0c4e5e9e1a2b6c7d8e9f00a1b2c3d4", "fridge_shared"]
    assert all(not f.is_error for f in r.findings)


# --------------------------------------------------------------------------- AO receptacles


def test_receptacles_of_an_articulated_object_are_its_surfaces(tmp_path: Path) -> None:
    """An ao_config's receptacles: on a link (`parent_link`, in the link's frame) and on
    the object's root; named `<handle>|<receptacle>` as habitat-lab names them."""
    (tmp_path / "urdf").mkdir()
    ao = {"urdf_filepath": str(TEST_ASSETS / "urdf/fridge/fridge.urdf"),
          "user_defined": {
              "receptacle_aabb_middle": {"name": "middle", "parent_link": "body",
                                         "position": [0.0, 0.0, 0.2],
                                         "scale": [0.25, 0.25, 0.01]},
              "receptacle_aabb_top": {"position": [0.0, 1.9, 0.0],
                                      "scale": [0.3, 0.01, 0.3]}}}
    (tmp_path / "urdf" / "fridge.ao_config.json").write_text(json.dumps(ao))
    cfg = _dataset(tmp_path, {"s": {"articulated_object_instances": [
        {"template_name": "fridge", "fixed_base": True, "translation": [2.0, 0.0, -1.0]}]}},
        articulated_objects={"paths": {".json": ["urdf"]}})
    r = import_habitat(cfg, "s", tmp_path)
    assert r.ok and r.scene is not None, [render_text(f) for f in r.findings]
    (fridge,) = r.scene.objects
    graph = build_scene_graph(r.scene, base_dir=tmp_path)
    surfaces = {s.id: s for s in graph.surfaces("fridge_:0000")}
    middle, top = surfaces["fridge_:0000|middle"], surfaces["fridge_:0000|receptacle_aabb_top"]
    # The body link stands the fridge up (1.565 rad about X): its z=0.2 is ~0.2 m above
    # the body's origin in Habitat's Y, a shelf inside the fridge's box.
    z = fridge.pose.position[2]
    bottom, height = z - fridge.size[2] / 2, fridge.size[2]
    assert bottom < middle.z < bottom + height
    assert middle.polygon.area == pytest.approx(0.25, rel=0.05)  # 0.5 m x 0.5 m
    # The root receptacle: Habitat (0, 1.9, 0) from the root, fdc z 1.9 - 0.01.
    assert top.z == pytest.approx(1.89, abs=1e-6)
    cx, cy = top.polygon.centroid.x, top.polygon.centroid.y
    assert (cx, cy) == pytest.approx((2.0, 1.0), abs=1e-6)
    assert math.isclose(top.polygon.area, 0.36, rel_tol=1e-6)
