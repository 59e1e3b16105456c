"""Property tests: hostile Habitat configs never escape as a traceback.

Each generated dataset is written to files: a scene instance, an object config, an
articulated object config and a semantic config. Every field the importer reads (the
fields of the config models in `fdc.sim_bridge.habitat.configs`, by their JSON names)
gets a valid value or a hostile one (NaN, infinities, zeros, huge and negative numbers,
wrong lengths, wrong types, nesting); whole files may be replaced by random bytes or
text. `import_habitat` must answer with a scene or with located errors, never raise.
Derandomized, so CI sees the same examples every run.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from fdc.cli import app
from fdc.sim_bridge.habitat import import_habitat
from fdc.sim_bridge.habitat.configs import (
    AabbReceptacle,
    ArticulatedInstance,
    AssetConfig,
    MeshReceptacle,
    ObjectInstance,
    Region,
    StageInstance,
)
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOX = TEST_ASSETS / "dataset_tests/dataset_0/objects/dataset_test_object2.glb"
PLY = TEST_ASSETS / "objects/receptacle_mesh_chair.ply"
URDF = TEST_ASSETS / "urdf/fridge/fridge.urdf"

numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, -0.0, 1, -1, 1e308, -1e308, 1e-320, 10**40]),
    st.integers(min_value=-(10**6), max_value=10**6),
)
scalars = st.one_of(numbers, st.text(max_size=8), st.booleans(), st.none())
hostile = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)


def vectors(n: int) -> st.SearchStrategy[Any]:
    """A vector of `n` numbers, sometimes of another length."""
    return st.one_of(st.lists(numbers, min_size=n, max_size=n),
                     st.lists(numbers, min_size=0, max_size=n + 2))


VALID: dict[str, st.SearchStrategy[Any]] = {
    "template_name": st.sampled_from(["box", "box", "fridge", "ghost", "", "218-19"]),
    "translation": st.lists(st.floats(-5, 5), min_size=3, max_size=3),
    "rotation": st.just([1.0, 0.0, 0.0, 0.0]),
    "non_uniform_scale": st.sampled_from([[1, 1, 1], [-1, 1, 1], [0.5, 2, -1]]),
    "uniform_scale": st.sampled_from([1.0, 2.0, -1.0]),
    "render_asset": st.just("box.glb"),
    "mesh_filepath": st.just("recep.ply"),
    "poly_loop": st.just([[0, 0, 0], [2, 0, 0], [2, 0, 2]]),
    "name": st.sampled_from(["a", "b", "shelf"]),
    "label": st.sampled_from(["kitchen", "bedroom"]),
    "motion_type": st.sampled_from(["STATIC", "DYNAMIC", "KINEMATIC"]),
    "translation_origin": st.sampled_from(["COM", "asset_local"]),
    "parent_link": st.sampled_from(["body", "top_door", "no_such_link"]),
    "fixed_base": st.booleans(),
    "initial_joint_pose": st.lists(st.floats(0, 2), max_size=4),
    "floor_height": st.floats(-1, 1),
    "extrusion_height": st.floats(0.5, 3),
    "units_to_meters": st.sampled_from([1.0, 0.01]),
    "up": st.sampled_from([[0, 1, 0], [0, 0, 1]]),
    "front": st.sampled_from([[0, 0, -1], [1, 0, 0]]),
    "scale": st.lists(st.floats(0.01, 2), min_size=3, max_size=3),
}


@st.composite
def fields(draw: st.DrawFn, model: type[BaseModel], rate: int) -> dict[str, Any]:
    """A JSON object with the model's fields (by alias): each absent, valid, or (in
    `rate` % of fields) hostile."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        roll = draw(st.integers(0, 99))
        if roll < rate:
            out[key] = draw(st.one_of(hostile, numbers, vectors(3), vectors(4)))
        elif roll < 70 or key in ("template_name", "render_asset", "mesh_filepath",
                                  "poly_loop"):
            out[key] = draw(VALID.get(key, st.lists(st.floats(-3, 3), min_size=3,
                                                    max_size=3)))
    return out


def files() -> st.SearchStrategy[Any]:
    """A whole config: JSON of the right shape, or garbage."""
    return st.one_of(st.just(None), st.binary(max_size=40), st.text(max_size=40), hostile)


@st.composite
def datasets(draw: st.DrawFn) -> dict[str, Any]:
    rate = draw(st.sampled_from([0, 3, 10, 40]))  # % of fields made hostile
    receptacles = {
        "receptacle_aabb_a": draw(fields(AabbReceptacle, rate)),
        "receptacle_mesh_b": draw(fields(MeshReceptacle, rate)),
    }
    asset = {**draw(fields(AssetConfig, rate)), "user_defined": receptacles}
    ao = {"urdf_filepath": str(URDF),
          "user_defined": {"receptacle_aabb_c": draw(fields(AabbReceptacle, rate))}}
    instance = {
        "stage_instance": draw(fields(StageInstance, rate)),
        "object_instances": draw(st.lists(fields(ObjectInstance, rate), max_size=3)),
        "articulated_object_instances": draw(st.lists(fields(ArticulatedInstance, rate),
                                                      max_size=1)),
        "translation_origin": draw(st.sampled_from(["COM", "asset_local"])),
        "semantic_scene_instance": "home.semantic_config.json",
    }
    semantic = {"region_annotations": draw(st.lists(fields(Region, rate), max_size=2))}
    out: dict[str, Any] = {"box.object_config.json": asset, "fridge.ao_config.json": ao,
                           "s.scene_instance.json": instance,
                           "home.semantic_config.json": semantic}
    for name, doc in list(out.items()):  # sometimes a part or a whole file is garbage
        roll = draw(st.integers(0, 99))
        if roll < rate // 4:
            out[name] = draw(files())
        elif roll < rate // 2 and isinstance(doc, dict):
            doc[draw(st.sampled_from(sorted(doc)))] = draw(hostile)
    return out


def _write(root: Path, dataset: dict[str, Any]) -> Path:
    for name, content in dataset.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(json.dumps(content, allow_nan=True))
    config = root / "t.scene_dataset_config.json"
    config.write_text(json.dumps({
        "objects": {"paths": {".json": ["box.object_config.json"]}},
        "articulated_objects": {"paths": {".json": ["fridge.ao_config.json"]}},
        "scene_instances": {"paths": {".json": ["s.scene_instance.json"]}},
        "semantic_scene_descriptor_instances": {"paths": {".json": ["."]}}}))
    return config


@pytest.fixture(scope="module")
def root() -> Any:
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(BOX, Path(d) / "box.glb")
        shutil.copy(PLY, Path(d) / "recep.ply")
        yield Path(d)


@pytest.mark.slow
@FUZZ
@given(datasets(), st.booleans())
def test_hostile_configs_import_or_fail_located(root: Path, dataset: dict[str, Any],
                                                allow_missing: bool) -> None:
    config = _write(root, dataset)
    r = import_habitat(config, "s", root, allow_missing=allow_missing)
    errors = [f for f in r.findings if f.is_error]
    if r.scene is None:
        assert errors
    for f in r.findings:
        assert f.file or f.where or f.entities, f  # located
    if r.scene is not None:
        for o in r.scene.objects:
            assert all(math.isfinite(v) for v in (*o.pose.position, *o.size))


def test_a_hostile_config_through_the_cli_has_no_traceback(root: Path) -> None:
    config = _write(root, {
        "box.object_config.json": {"render_asset": "box.glb", "up": [0, 0, 0],
                                   "scale": [1e308, 1e308, 1e308]},
        "fridge.ao_config.json": b"\x00\xff",
        "s.scene_instance.json": {"object_instances": [
            {"template_name": "box", "rotation": [0, 0, 0, 0], "uniform_scale": float("nan")}],
            "articulated_object_instances": [{"template_name": "fridge",
                                              "initial_joint_pose": "open"}]},
        "home.semantic_config.json": {"region_annotations": [{"poly_loop": [[1, 2]]}]},
    })
    out = root / "out.json"
    result = CliRunner().invoke(app, ["import", "habitat", str(config), "--scene", "s",
                                      "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and not out.exists()
    assert "s.scene_instance.json: object_instances[0].rotation" in result.output
