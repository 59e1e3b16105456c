"""`HabitatWorldState` against a stand-in `RearrangeSim` (habitat-sim does not install
here): one test per state query, on real fixture scenes imported with fdc's importer
(../shared/fixtures/habitat, read-only). The stand-in holds what a test puts in it; the
values checked are computed by hand or by the importer, independently of `live.py`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from typer.testing import CliRunner

from fdc.cli import app
from fdc.core.problems import render_text
from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context
from fdc.sim_bridge.geometry import box_corners, quaternion_to_matrix
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.habitat import import_habitat
from fdc.sim_bridge.habitat.importer import C
from fdc.sim_bridge.habitat.live import HabitatNames, HabitatStateError, HabitatWorldState
from fdc.sim_bridge.scene.schema import Scene
from fdc.sim_bridge.world.state import WorldState
from fdc.sim_bridge.world.trajectory import read_trajectory
from tests.sim_bridge.habitat import stand_in as H
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
DATASET_0 = TEST_ASSETS / "dataset_tests/dataset_0"
CONFIG_0 = DATASET_0 / "test_dataset_0.scene_dataset_config.json"
REGIONS_0 = DATASET_0 / "semantics/dataset_test_scene.semantic_config.json"
BALL, CRATE = "dataset_test_object1_:0000", "dataset_test_object2_:0000"
BEDROOM, BATHROOM = "test_region_negativeX", "test_region_positiveX"
# The bedroom's floor (Habitat x, z), with a 2 m x 2 m pillar the agent walks around.
BEDROOM_FLOOR = shapely.Polygon([(-20, -10), (-25, 0), (-20, 10), (-10, 10), (-5, 0), (-10, -10)])
PILLAR = shapely.box(-16, -1, -14, 1)
START = (-15.0, -2.0, -5.0)  # Habitat: the importer's agent start (-15, 5, -2) in fdc


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SceneGraph]:
    out = tmp_path_factory.mktemp("dataset_0")
    r = import_habitat(CONFIG_0, "dataset_test_scene", out)
    assert r.ok and r.scene is not None, [render_text(f) for f in r.findings]
    path = out / "scene.json"
    path.write_text(r.scene.to_json())
    return path, build_scene_graph(r.scene, base_dir=out)


def _stand_in() -> H.RearrangeSimStandIn:
    pf = H.PathFinder(BEDROOM_FLOOR.difference(PILLAR), floor_y=-2.0)
    return H.rearrange_sim_from_dataset(CONFIG_0, "dataset_test_scene", REGIONS_0, pf, START)


def _live(graph: SceneGraph, sim: H.RearrangeSimStandIn | None = None) -> HabitatWorldState:
    return HabitatWorldState(sim or _stand_in(), graph, shortest_path=H.ShortestPath)


@pytest.mark.slow
def test_the_live_module_imports_no_habitat() -> None:
    code = ("import sys, fdc.sim_bridge.habitat.live; "
            "print(sorted(m for m in sys.modules if m.startswith(('habitat', 'magnum'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_object_pose_is_the_importers_pose_and_follows_the_simulator(imported) -> None:
    _, g = imported
    sim = _stand_in()
    live = _live(g, sim)
    for ident in (BALL, CRATE):  # unmoved: where the importer put them, from the same meshes
        spec = g.object(ident).spec
        p = live.object_pose(ident)
        assert p.position == pytest.approx(spec.pose.position, abs=1e-5)
        assert p.orientation == pytest.approx(spec.pose.orientation, abs=1e-9)
    # The crate turned 90 deg about Habitat's up axis and moved to Habitat (1, 0.5, -2):
    # fdc's (1, 2, 0.5), turned 90 deg about +Z. Its mesh box is centred on its origin.
    crate = sim.rigid.get_object_by_handle(CRATE)
    crate.translation = (1.0, 0.5, -2.0)
    crate.rotation = H.Quaternion.rotation(math.pi / 2, (0.0, 1.0, 0.0))
    p = live.object_pose(CRATE)
    assert p.position == pytest.approx((1.0, 2.0, 0.5), abs=1e-6)
    assert p.orientation == pytest.approx((math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)), abs=1e-9)
    # The ball's box centre is off its origin by (0.003582, 0.002717, 0.099132) (Habitat,
    # from the importer's pose minus its translation); turned with it: (x, z) -> (z, -x).
    ball = sim.rigid.get_object_by_handle(BALL)
    ball.translation = (2.0, 0.0, 0.0)
    ball.rotation = H.Quaternion.rotation(math.pi / 2, (0.0, 1.0, 0.0))
    offset = np.asarray(g.object(BALL).spec.pose.position) @ C - np.array([0.1, 0.2, 0.3])
    expected = np.array([2.0 + offset[2], offset[1], -offset[0]]) @ C.T
    assert live.object_pose(BALL).position == pytest.approx(tuple(expected), abs=1e-6)
    with pytest.raises(KeyError):
        live.object_pose("no_such_object")


def test_box_sizes_are_the_importers_and_turn_with_the_object(imported) -> None:
    _, g = imported
    sim = _stand_in()
    live = _live(g, sim)
    assert live.object_pose(CRATE).size == pytest.approx((1.034476, 0.878002, 0.63917), abs=1e-5)
    assert live.object_pose(BALL).size == pytest.approx((0.227163, 0.218265, 0.077726), abs=1e-5)
    # Tipped 90 deg about Habitat's +X, the crate's height (fdc z) is its old depth (fdc y).
    sim.rigid.get_object_by_handle(CRATE).rotation = H.Quaternion.rotation(
        math.pi / 2, (1.0, 0.0, 0.0))
    p = live.object_pose(CRATE)
    assert p.size == pytest.approx((1.034476, 0.878002, 0.63917), abs=1e-5)  # its own axes
    corners = box_corners(np.array([p.position]), quaternion_to_matrix(p.orientation)[None],
                          np.array([p.size]))[0]
    extent = corners.max(axis=0) - corners.min(axis=0)
    assert extent == pytest.approx((1.034476, 0.63917, 0.878002), abs=1e-5)


def test_agent_pose_from_base_pos_and_base_rot(imported) -> None:
    _, g = imported
    sim = _stand_in()
    live = _live(g, sim)
    assert isinstance(live, WorldState)  # the protocol checkers read
    a = live.agent_pose()
    assert (a.x, a.y, a.z, a.yaw_rad) == pytest.approx((-15.0, 5.0, -2.0, 0.0))
    # base_rot turns about Habitat's +Y; the agent faces its local +X, which a quarter
    # turn takes to Habitat -Z: fdc +Y, a yaw of +pi/2 (counter-clockwise from +x).
    agent = sim.articulated_agent
    agent.base_pos, agent.base_rot = (-12.0, -2.0, 3.0), math.pi / 2
    a = live.agent_pose()
    assert (a.x, a.y, a.z, a.yaw_rad) == pytest.approx((-12.0, -3.0, -2.0, math.pi / 2))
    agent.base_rot = 3 * math.pi / 2  # the same heading as -pi/2
    assert live.agent_pose().yaw_rad == pytest.approx(-math.pi / 2)


@pytest.mark.slow
def test_held_object_is_the_grasp_managers_snapped_object(imported) -> None:
    path, g = imported
    sim = _stand_in()
    live = _live(g, sim)
    registry = default_registry()
    ctx = Context(graph=g).with_state(live)
    assert live.held_object() is None
    assert registry.evaluate("hand-empty", [], ctx)
    sim.grasp_mgr.snap_to_obj(sim.rigid.get_object_by_handle(BALL).object_id)
    assert live.held_object() == BALL
    assert registry.evaluate("holding", [BALL], ctx)
    assert live.support_of(BALL) is None  # in the hand: on nothing
    # With the scene's ids renamed, the same handle maps to the new id.
    renamed = _renamed(g.scene)
    live2 = _live(build_scene_graph(renamed, base_dir=path.parent), sim)
    assert live2.held_object() == "ball"
    sim.grasp_mgr.snap_idx = 999
    with pytest.raises(HabitatStateError, match="999"):
        live.held_object()


def _renamed(scene: Scene) -> Scene:
    data = json.loads(scene.to_json())
    for o in data["objects"]:
        o["id"] = {BALL: "ball", CRATE: "crate"}.get(o["id"], o["id"])
    return Scene.model_validate(data)


def _write_dataset(root: Path, sections: dict, instance: dict) -> Path:
    (root / "scenes").mkdir()
    (root / "scenes" / "kitchen.scene_instance.json").write_text(json.dumps(instance))
    cfg = {**sections, "scene_instances": {"paths": {".json": ["scenes"]}}}
    path = root / "kitchen.scene_dataset_config.json"
    path.write_text(json.dumps(cfg))
    return path


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory: pytest.TempPathFactory) -> SceneGraph:
    """ReplicaCAD's fridge and the chair on the simple room stage, imported."""
    root = tmp_path_factory.mktemp("kitchen")
    stage, chair = TEST_ASSETS / "scenes/simple_room", TEST_ASSETS / "objects/chair"
    cfg = _write_dataset(
        root,
        {
            "stages": {"paths": {".json": [f"{stage}.stage_config.json"]}},
            "objects": {"paths": {".json": [f"{chair}.object_config.json"]}},
            "articulated_objects": {"paths": {".urdf": [str(TEST_ASSETS / "urdf/fridge")]}},
        },
        {
            "stage_instance": {"template_name": "simple_room"},
            "object_instances": [{"template_name": "chair", "translation": [1.0, 0.0, 2.0],
                                  "translation_origin": "asset_local", "motion_type": "STATIC"}],
            "articulated_object_instances": [
                {"template_name": "fridge", "fixed_base": True, "translation": [2.0, 0.0, -1.0]}],
        },
    )
    r = import_habitat(cfg, "kitchen", root)
    assert r.ok and r.scene is not None, [render_text(f) for f in r.findings]
    return build_scene_graph(r.scene, base_dir=root)


def _kitchen_sim(g: SceneGraph) -> tuple[H.RearrangeSimStandIn, H.ArticulatedObject]:
    sim = H.RearrangeSimStandIn(H.PathFinder(shapely.box(-4, -4, 4, 4), 0.0), [], (0.0, 0.0, 0.0))
    spec = g.object("chair_:0000").spec
    half = np.abs(C.T) @ np.asarray(spec.size) / 2  # the chair does not move in these tests
    sim.add_rigid("chair", (1.0, 0.0, 2.0), H.Range3D(tuple(-half), tuple(half)))
    fridge = g.object("fridge_:0000").spec
    # The box habitat-sim computes when it loads the fridge: the importer's, in its frame.
    centre = np.asarray(fridge.pose.position) @ C - np.array([2.0, 0.0, -1.0])
    half = np.abs(C.T) @ np.asarray(fridge.size) / 2
    ao = sim.add_articulated("fridge", TEST_ASSETS / "urdf/fridge/fridge.urdf", (2.0, 0.0, -1.0),
                             H.Range3D(tuple(centre - half), tuple(centre + half)))
    return sim, ao


def test_articulated_open_state_from_joint_positions_and_limits(kitchen) -> None:
    g = kitchen
    sim, fridge = _kitchen_sim(g)
    live = _live(g, sim)
    assert [(k.name, k.num_joint_pos) for k in fridge.links] == [
        ("body", 0), ("top_door", 1), ("bottom_door", 1)]
    assert fridge.joint_position_limits == ([0.0, 0.0], [2.3, 2.5])  # the URDF's hinges
    assert live.link_states("fridge_:0000") == {"top_door": False, "bottom_door": False}
    assert not live.is_open("fridge_:0000")
    # habitat-lab's rule: open from 40 % of the range (top door: 0.92 rad of 2.3).
    fridge.set_joint("top_door", 0.91)
    assert not live.is_open("fridge_:0000|top_door")
    fridge.set_joint("top_door", 0.92)
    assert live.is_open("fridge_:0000|top_door") and live.is_open("fridge_:0000")
    fridge.set_joint("bottom_door", 0.99)  # 39.6 % of 2.5 rad
    assert live.link_states("fridge_:0000") == {"top_door": True, "bottom_door": False}
    assert live.is_open("fridge_:0000|body")  # a fixed link: nothing to open
    assert default_registry().evaluate("is-open", ["fridge_:0000"],
                                       Context(graph=g).with_state(live))
    fridge.set_joint("top_door", 0.0)
    assert not live.is_open("fridge_:0000")
    assert live.is_open("chair_:0000")  # a rigid object has nothing to open
    with pytest.raises(KeyError):
        live.is_open("sofa_:0000")
    # The fridge moved 1 m along Habitat -Z (fdc +Y) and turned a quarter about +Y.
    before = live.object_pose("fridge_:0000")
    fridge.translation = (2.0, 0.0, -2.0)
    after = live.object_pose("fridge_:0000")
    assert np.subtract(after.position, before.position) == pytest.approx((0.0, 1.0, 0.0))
    assert after.size == pytest.approx(g.object("fridge_:0000").spec.size, abs=1e-6)


def test_geodesic_distance_and_path_from_the_pathfinder(imported) -> None:
    _, g = imported
    live = _live(g)
    # Around the pillar (fdc x in [-16, -14], y in [-1, 1]) by its nearer (+y) side:
    # 2 * hypot(2, 0.5) + 2 = 6.1231 m, through its corners (-16, 1) and (-14, 1).
    d = live.geodesic_distance((-18.0, 0.5), (-12.0, 0.5))
    assert d == pytest.approx(2 * math.hypot(2.0, 0.5) + 2.0)
    path = live.shortest_path((-18.0, 0.5), (-12.0, 0.5))
    assert path is not None
    assert np.array(path) == pytest.approx(
        np.array([(-18.0, 0.5), (-16.0, 1.0), (-14.0, 1.0), (-12.0, 0.5)]))
    # A straight walk; a point just off the floor is snapped onto it first.
    assert live.geodesic_distance((-20.0, 5.0), (-20.0, 8.0)) == pytest.approx(3.0)
    assert live.geodesic_distance((-20.0, 5.0), (-20.0, 10.5)) == pytest.approx(5.0)
    # Unreachable: the bathroom has no navmesh here; the objects float far off it.
    assert live.geodesic_distance((-15.0, 5.0), (15.0, 5.0)) == math.inf
    assert live.shortest_path((-15.0, 5.0), (15.0, 5.0)) is None
    assert live.geodesic_distance((-15.0, 5.0), CRATE) == math.inf
    # An entity: the bedroom, reached at a point inside its outline.
    assert live.geodesic_distance((-15.0, 5.0), BEDROOM) < 10.0


def test_room_of_a_point_is_the_semantic_region_that_contains_it(imported) -> None:
    _, g = imported
    live = _live(g)
    assert live.room_of((-15.0, 5.0, -1.0)) == BEDROOM
    assert live.room_of((15.0, -5.0, 0.0)) == BATHROOM
    assert live.room_of((0.0, 0.0, -1.0)) is None  # between the rooms
    assert live.room_of((-15.0, 5.0, 2.5)) is None  # above the 4 m band from -2 m
    assert live.room_of((-15.0, 5.0)) == BEDROOM  # a 2-D point: at the agent's height
    assert live.room_of(BEDROOM) == BEDROOM
    # Habitat's regions and the importer's rooms agree everywhere on a grid.
    xs, ys = np.meshgrid(np.linspace(-26, 26, 27), np.linspace(-11, 11, 12))
    for x, y in zip(xs.ravel().tolist(), ys.ravel().tolist(), strict=True):
        room = g.room_of((x, y, 0.0))
        assert live.room_of((x, y, 0.0)) == (room.id if room is not None else None), (x, y)


@pytest.mark.slow
def test_names_map_both_ways(imported, kitchen) -> None:
    path, g = imported
    names = HabitatNames.of_scene(_renamed(g.scene))
    assert names.handle("ball") == BALL and names.object_id(BALL) == "ball"
    assert names.handle("crate") == CRATE and names.object_id(CRATE) == "crate"
    assert names.object_id("024_bowl_:0001") == "024_bowl_:0001"  # an episode's object
    assert names.room_id(BEDROOM) == BEDROOM and names.room_id("hall") == "hall"
    # Receptacles: `<handle>|<name>` on objects, `stage|<name>` on the stage.
    k = HabitatNames.of_scene(kitchen.scene)
    for sid in ("chair_:0000|receptacle_aabb_chair_test",
                "chair_:0000|receptacle_mesh_chair_test.0000",
                "stage|receptacle_mesh_simpleroom_test.0000"):
        assert kitchen.has(sid)
        assert k.receptacle(sid) == sid and k.surface_id(sid) == sid
    data = json.loads(kitchen.scene.to_json())
    data["objects"][1]["id"] = "armchair"
    renamed = HabitatNames.of_scene(Scene.model_validate(data))
    assert renamed.receptacle("armchair|receptacle_aabb_chair_test") == \
        "chair_:0000|receptacle_aabb_chair_test"
    assert renamed.surface_id("chair_:0000|receptacle_aabb_chair_test") == \
        "armchair|receptacle_aabb_chair_test"
    # The live state reads the renamed scene's objects through their handles.
    sim = _stand_in()
    live = _live(build_scene_graph(_renamed(g.scene), base_dir=path.parent), sim)
    assert list(live.object_ids()) == ["ball", "crate"]
    assert live.object_pose("crate").position == pytest.approx((0.3, -0.5, 0.4), abs=1e-6)
    sim.rigid._by_handle.pop(CRATE)
    with pytest.raises(HabitatStateError, match=CRATE):
        live.object_pose("crate")


TEMPLATE = """(define (template put-on-surface)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:tags manipulation process)
  (:version 1)
  (:description "Put an item on a free surface.")
  (:parameters ?o - movable ?s - surface)
  (:constraints (not (exists (?x - movable) (on ?x ?s))))
  (:goal (on ?o ?s))
  (:instruction "Put {{ o | ref }} on {{ s | ref }}.")
  (:ambiguity reject))
"""


@pytest.mark.slow
def test_recorded_run_is_verified_by_fdc_verify(imported, tmp_path: Path) -> None:
    scene_path, g = imported
    runner = CliRunner()
    (tmp_path / "put.pddl").write_text(TEMPLATE)
    suite = tmp_path / "suite.jsonl"
    res = runner.invoke(app, ["compile", str(scene_path), "-T", str(tmp_path / "put.pddl"),
                              "--no-history", "-o", str(suite)])
    assert res.exit_code == 0, res.output
    target = f"{CRATE}|platform_0"
    (task,) = [json.loads(line) for line in suite.read_text().splitlines()
               if json.loads(line)["bindings"] == {"?o": BALL, "?s": target}]
    assert task["goal_pddl"] == f"(on {BALL} {target})"

    sim = _stand_in()
    live = _live(g, sim)
    ctx = Context(graph=g).with_state(live)
    registry = default_registry()
    assert not registry.evaluate("on", [BALL, target], ctx)
    ball = sim.rigid.get_object_by_handle(BALL)
    agent = sim.articulated_agent
    agent.base_pos = (-10.0, -2.0, -5.0)  # 5 m along fdc +x
    live.record(f"navigate {BALL}", steps=20)
    sim.grasp_mgr.snap_to_obj(ball.object_id)
    live.record(f"pick {BALL}")
    # Put the ball down on the crate's top: its box bottom on the surface, centred on it.
    top = g.surface(target)
    size_z = live.object_pose(BALL).size[2]
    want = np.array([top.origin[0], top.origin[1], top.z + size_z / 2 + 0.005])
    centre_offset = (np.asarray(g.object(BALL).spec.pose.position) @ C) - np.array([0.1, 0.2, 0.3])
    ball.translation = tuple((want @ C) - centre_offset)
    sim.grasp_mgr.desnap()
    live.record(f"place {BALL} on {target}")
    assert live.support_of(BALL) in (target, f"{CRATE}|platform_1")
    assert registry.evaluate("on", [BALL, target], ctx)  # the goal holds live
    live.record("stop")
    run = tmp_path / "run.jsonl"
    live.write(run, scene=str(scene_path))
    header, snaps = read_trajectory(run)
    assert header.source == "habitat-lab" and [s.step for s in snaps] == [0, 20, 21, 22, 23]
    assert snaps[2].held == BALL and snaps[3].held is None
    assert snaps[-1].path_length_m == pytest.approx(5.0)
    assert snaps[-1].time_min == pytest.approx(360.0 + 23 * 0.24)
    res = runner.invoke(app, ["verify", str(suite), "-t", str(run), "--task", task["id"],
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    (verdict,) = json.loads(res.stdout)["tasks"]
    assert verdict["success"] and verdict["end_step"] == 4
    # The same run without the placement fails offline as it does live.
    live2 = _live(g, _stand_in())
    live2.record("stop")
    live2.write(tmp_path / "idle.jsonl", scene=str(scene_path))
    res = runner.invoke(app, ["verify", str(suite), "-t", str(tmp_path / "idle.jsonl"),
                              "--task", task["id"]])
    assert res.exit_code == 1, res.output
