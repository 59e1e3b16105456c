"""habitat-lab judges fdc's goals with fdc's checkers: the exported YAML domain's
`is_valid_fn`s (habitat-lab's `_target_` mechanism) read a stand-in `RearrangeSim`
through `HabitatWorldState`, and `PddlProblem.is_expr_true` agrees with `fdc verify` on
the same states, for every exported predicate, true and false.

The scene: fixture assets (../shared/fixtures/habitat, read-only) assembled in tmp_path
into a dataset with two rooms, a chair (furniture with receptacles), three movable items
and ReplicaCAD's fridge (articulated), imported with `fdc import habitat`; a suite
compiled from one template per exported predicate and one per negated predicate, so
that every atom is in the suite once, false where its task starts."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, read_suite
from fdc.interop.habitat.export import domain_spec, fdc_domain
from fdc.interop.habitat.judge import JudgeError, bind
from fdc.predicates.goal import GAtom
from fdc.predicates.goal import atoms as goal_atoms
from fdc.predicates.verify import verify_snapshots
from fdc.sim_bridge.graph.placement import Relation, place
from fdc.sim_bridge.graph.scene_graph import SceneGraph, load_scene_graph
from fdc.sim_bridge.habitat.importer import C, zup_to_yup_quaternion
from fdc.sim_bridge.habitat.live import HabitatWorldState
from fdc.sim_bridge.world.trajectory import read_trajectory
from tests.sim_bridge.habitat import stand_in as H
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
DATASET_0 = TEST_ASSETS / "dataset_tests/dataset_0/objects"
DONUT = "dataset_test_object1_:{:04d}"
TABLE, BALL = "dataset_test_object2_:0000", "dataset_test_object3_:0000"
CHAIR, FRIDGE = "chair_:0000", "fridge_:0000"
#: Each instance: template, Habitat (x, y, z) on the floor or on the table by its mesh's
#: bounds (the table is 0.64 m high), motion type.
INSTANCES = [
    ("dataset_test_object2", (-1.5, 0.32, 1.0), "STATIC"),  # a 1.03 x 0.88 m table
    ("dataset_test_object1", (-2.5, 0.036, -1.0), "DYNAMIC"),  # three donuts
    ("dataset_test_object1", (-1.85, 0.676, 1.0), "DYNAMIC"),
    ("dataset_test_object1", (-1.15, 0.676, 1.0), "DYNAMIC"),
    ("dataset_test_object3", (2.0, 0.25, -1.5), "DYNAMIC"),  # a 0.5 m ball
    ("chair", (1.5, 0.657, 1.0), "STATIC"),
]
REGIONS = [("kitchen", "kitchen", [(-4, -3), (0, -3), (0, 3), (-4, 3)]),
           ("bedroom", "bedroom", [(0, -3), (4, -3), (4, 3), (0, 3)])]
START = (-3.0, 0.0, 2.5)  # Habitat: in the kitchen, heading fdc +x


def _dataset(root: Path) -> Path:
    (root / "objects").mkdir()
    for name in ("chair.object_config.json", "chair.glb", "receptacle_mesh_chair.ply"):
        shutil.copy(TEST_ASSETS / "objects" / name, root / "objects" / name)
    for k in (1, 2, 3):
        for ext in (".object_config.json", ".glb"):
            name = f"dataset_test_object{k}{ext}"
            shutil.copy(DATASET_0 / name, root / "objects" / name)
    # The fridge's URDF and meshes inside the dataset too: nothing of the scene names a
    # path outside it, so the scene (and the tasks sampled from it) are the same wherever
    # the fixtures and the temporary folder lie.
    shutil.copytree(TEST_ASSETS / "urdf" / "fridge", root / "urdf" / "fridge")
    (root / "semantics").mkdir()
    (root / "semantics" / "home.semantic_config.json").write_text(json.dumps({
        "region_annotations": [
            {"name": name, "label": label, "floor_height": 0.0, "extrusion_height": 3.0,
             "poly_loop": [[x, 0.0, z] for x, z in loop]}
            for name, label, loop in REGIONS]}))
    (root / "scenes").mkdir()
    objects = [{"template_name": t, "translation": list(p), "translation_origin": "asset_local",
                "motion_type": motion} for t, p, motion in INSTANCES]
    (root / "scenes" / "home.scene_instance.json").write_text(json.dumps({
        "object_instances": objects,
        "articulated_object_instances": [
            {"template_name": "fridge", "fixed_base": True, "translation": [3.0, 0.0, 2.0]}],
        "semantic_scene_instance": "semantics/home.semantic_config.json"}))
    config = root / "home.scene_dataset_config.json"
    config.write_text(json.dumps({
        "objects": {"paths": {".json": ["objects"]}},
        "articulated_objects": {"paths": {".urdf": ["urdf/fridge"]}},
        "scene_instances": {"paths": {".json": ["scenes"]}}}))
    return config


def _templates() -> str:
    """One template per exported predicate: `(and (holding ?h) (P ...))`. Holding
    something is false where every task starts, so each binding of P makes a task
    whether P holds there or not (a goal true at the start makes none)."""
    info = fdc_domain()
    out = []
    for name in sorted(domain_spec(info).predicates):
        params = info.predicates[name].parameters
        decl = " ".join(f"{p.name} - {_type(p.types)}" for p in params)
        atom = f"({name}{''.join(' ' + p.name for p in params)})"
        out.append(f"""(define (template judge-{name})
  (:domain fdc-home) (:category judge) (:level 1) (:tags process) (:version 1)
  (:description "judge {name}")
  (:parameters ?h - movable {decl})
  (:goal (and (holding ?h) {atom}))
  (:instruction "Hold {{{{ h | ref }}}}; make {atom} hold.")
  (:ambiguity widen))
""")
    return "\n".join(out)


def _type(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@dataclass
class Home:
    root: Path
    scene: Path
    suite: Path
    out: Path
    graph: SceneGraph
    records: list[TaskRecord]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("home")
    config = _dataset(root)
    scene = root / "scene.json"
    code, out = _run("import", "habitat", str(config), "--scene", "home", "-o", str(scene))
    assert code == 0, out
    data = json.loads(scene.read_text())
    for o in data["objects"]:
        if o["id"] == DONUT.format(1):  # the state predicates: this donut's, no other's
            o["attributes"] = {"state": "clean, filled, powered-on"}
        if o["id"] == FRIDGE:  # its lower compartment, behind the bottom door
            sx, sy, sz = o["size"]
            o["containers"] = [{"name": "lower", "center": [0.0, 0.0, -sz / 4],
                                "size": [sx * 0.6, sy * 0.6, sz * 0.3], "part": "bottom_door"}]
    scene.write_text(json.dumps(data))
    (root / "judge.pddl").write_text(_templates())
    suite = root / "suite.jsonl"
    code, out = _run("compile", str(scene), "-T", str(root / "judge.pddl"), "--no-history",
                     "-o", str(suite))
    assert code == 0, out
    records, problems = read_suite(suite)
    assert not problems
    code, out = _run("export", "habitat", str(suite), "-o", str(root / "out"),
                     "--data-root", str(root))
    assert code in (0, 1), out
    return Home(root, scene, suite, root / "out", load_scene_graph(scene), records)


def _stand_in(home: Home) -> H.RearrangeSimStandIn:
    """The imported scene as habitat-sim would load it: each object's box centred on its
    translation (asset-local origins moved to the mesh box centre)."""
    graph = home.graph
    regions = H.regions_from_config(home.root / "semantics" / "home.semantic_config.json")
    sim = H.RearrangeSimStandIn(H.PathFinder(shapely.box(-4, -3, 4, 3), floor_y=0.0), regions,
                                START)
    for o in graph.scene.objects:
        centre = np.asarray(o.pose.position) @ C
        half = np.abs(C.T) @ np.asarray(o.size) / 2
        if o.id == FRIDGE:
            origin = np.array([3.0, 0.0, 2.0])
            sim.add_articulated("fridge", TEST_ASSETS / "urdf/fridge/fridge.urdf",
                                tuple(origin), H.Range3D(tuple(centre - origin - half),
                                                         tuple(centre - origin + half)))
        else:
            sim.add_rigid(o.id.split("_:")[0], tuple(centre), H.Range3D(tuple(-half),
                                                                          tuple(half)))
    return sim


def _put(sim: H.RearrangeSimStandIn, item: str, position: Any, orientation: Any) -> None:
    """Move a rigid object of the stand-in to an fdc pose (its box centre)."""
    obj = sim.rigid.get_object_by_handle(item)
    obj.translation = tuple(float(c) for c in np.asarray(position) @ C)
    w, x, y, z = zup_to_yup_quaternion(orientation)
    obj.rotation = H.Quaternion(w, (x, y, z))


def _placed(home: Home, sim: H.RearrangeSimStandIn, atom: GAtom) -> bool:
    """Move the atom's item where fdc's placement search makes the atom hold."""
    relation = {"at-side": Relation.DIRECTION, "in-cell": Relation.IN_CELL}.get(
        atom.predicate, atom.predicate)
    world = HabitatWorldState(sim, home.graph, shortest_path=H.ShortestPath)
    found = place(world.state.posed, relation, atom.args, home.graph.config.placement)
    if found.pose is None:
        return False
    _put(sim, atom.args[0], found.pose.position, found.pose.orientation)
    return True


def _states(home: Home) -> Iterator[tuple[str, H.RearrangeSimStandIn]]:
    """The states both judges see, each a stand-in simulator: where the tasks start; for
    each placement relation, a task's item placed by fdc's placement search while the
    agent holds what the task names; the agent at the table with the fridge's doors
    open, and a step back from it; an item in the other room."""
    graph = home.graph
    yield "start", _stand_in(home)
    for predicate in ("between", "at-side", "around", "in-cell", "on", "inside"):
        for r in home.records:
            if r.template != f"judge-{predicate}":
                continue
            hold = next(a for a in goal_atoms(r.goal) if a.predicate == "holding")
            atom = next(a for a in goal_atoms(r.goal) if a.predicate == predicate)
            sim = _stand_in(home)
            for door in ("top_door", "bottom_door"):  # the fridge open, to put things in
                sim.articulated.get_object_by_handle(FRIDGE).set_joint(door, 2.0)
            if hold.args[0] in atom.args or not _placed(home, sim, atom):
                continue
            sim.grasp_mgr.snap_to_obj(sim.rigid.get_object_by_handle(hold.args[0]).object_id)
            yield f"{predicate}: {r.goal_pddl}", sim
            break
    sim = _stand_in(home)
    top = max(graph.surfaces(TABLE), key=lambda s: s.z)
    stand = graph.standing_points(top.id)[0].position
    sim.articulated_agent.base_pos = tuple(np.array([stand[0], stand[1], 0.0]) @ C)
    sim.articulated_agent.base_rot = math.atan2(top.origin[1] - stand[1],
                                                top.origin[0] - stand[0])
    for door in ("top_door", "bottom_door"):
        sim.articulated.get_object_by_handle(FRIDGE).set_joint(door, 2.0)
    sim.grasp_mgr.snap_to_obj(sim.rigid.get_object_by_handle(DONUT.format(0)).object_id)
    yield "at the table", sim
    # A step back from there: what stands on the table is in the head camera's view (at
    # the standing point it is below the image's bottom edge, nearer than 0.7 m).
    sim = _stand_in(home)
    heading = math.atan2(top.origin[1] - stand[1], top.origin[0] - stand[0])
    back = (stand[0] - 0.6 * math.cos(heading), stand[1] - 0.6 * math.sin(heading))
    sim.articulated_agent.base_pos = tuple(np.array([back[0], back[1], 0.0]) @ C)
    sim.articulated_agent.base_rot = heading
    yield "a step back from the table", sim
    sim = _stand_in(home)
    _put(sim, DONUT.format(0), (1.0, 2.0, 0.036), (1.0, 0.0, 0.0, 0.0))
    _put(sim, DONUT.format(1), graph.object(TABLE).spec.pose.position, (1.0, 0.0, 0.0, 0.0))
    sim.articulated_agent.base_pos = (1.0, 0.0, 0.0)
    yield "in the bedroom", sim


def _atoms(expr: Any) -> Iterator[Any]:
    """habitat-lab's predicates in an expression."""
    if hasattr(expr, "sub_exprs"):
        for e in expr.sub_exprs:
            yield from _atoms(e)
    else:
        yield expr


@pytest.mark.slow
def test_is_expr_true_judges_as_fdc_verify_for_every_predicate(home: Home, habitat_pddl: Any
                                                               ) -> None:
    domain = str(home.out / "pddl" / "domain.yaml")
    problems = {r.id: habitat_pddl.PddlProblem(domain, str(home.out / "pddl" / "problems" /
                                                         f"{r.id}.yaml"))
                for r in home.records}
    seen: dict[str, set[bool]] = {}
    for k, (name, sim) in enumerate(_states(home)):
        # fdc verify on the state recorded from the simulator: every task's goal, and
        # every atom of them.
        world = HabitatWorldState(sim, home.graph, shortest_path=H.ShortestPath)
        world.record("stop")
        run = home.root / f"state{k}.jsonl"
        world.write(run, scene=str(home.scene))
        code, out = _run("verify", str(home.suite), "-t", str(run), "--format", "json")
        assert code in (0, 1), out
        verdicts = {t["id"]: t["success"] for t in json.loads(out)["tasks"]}
        _, snapshots = read_trajectory(run)
        atoms = {a for r in home.records for a in goal_atoms(r.goal)}
        keys = {f"{a.predicate}{list(a.args)}": a for a in atoms}
        by_atom = verify_snapshots(keys, home.graph, snapshots)
        # habitat-lab, on the same simulator.
        live = HabitatWorldState(sim, home.graph, shortest_path=H.ShortestPath)
        for r in home.records:
            p = problems[r.id]
            bind(p, sim, live)
            assert p.is_expr_true(p.goal) == verdicts[r.id], (name, r.goal_pddl)
            for pred in _atoms(p.goal):
                text = f"{pred.name}{[a.name for a in pred._arg_values]}"
                judged = pred.is_true(p.sim_info)
                assert judged == by_atom[text].success, (name, text)
                seen.setdefault(pred.name, set()).add(judged)
    predicates = set(domain_spec(fdc_domain()).predicates)
    assert {p for p, v in seen.items() if v == {True, False}} == predicates, seen


def test_the_domain_binds_fdcs_checkers_through_target(home: Home, habitat_pddl: Any) -> None:
    import yaml

    doc = yaml.safe_load((home.out / "pddl" / "domain.yaml").read_text())
    for p in doc["predicates"]:
        assert p["is_valid_fn"] == {"_target_": "fdc.interop.habitat.judge.holds",
                                    "fdc_predicate": p["name"],
                                    "fdc_params": [a["name"] for a in p["args"]]}
    d = habitat_pddl.PddlDomain(str(home.out / "pddl" / "domain.yaml"))
    assert d.predicates["on"]._is_valid_fn.func.__module__ == "fdc.interop.habitat.judge"


def test_an_unbound_simulator_is_a_named_error(home: Home, habitat_pddl: Any) -> None:
    r = next(r for r in home.records if r.template == "judge-hand-empty")
    p = habitat_pddl.PddlProblem(str(home.out / "pddl" / "domain.yaml"),
                                 str(home.out / "pddl" / "problems" / f"{r.id}.yaml"))
    p.bind_to_instance(_FakeSimInfoSim(_stand_in(home)), None)
    with pytest.raises(JudgeError, match=r"judge\.bind"):
        p.is_expr_true(p.goal)


class _FakeSimInfoSim:
    """The stand-in with every entity resolvable, but no fdc world bound."""

    def __init__(self, sim: H.RearrangeSimStandIn) -> None:
        self._sim = sim

    @property
    def receptacles(self) -> dict[str, Any]:
        return _Everything()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)


class _Everything(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return key
