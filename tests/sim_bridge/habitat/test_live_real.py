"""`HabitatWorldState` on a real habitat-sim `Simulator` running the dataset_0 fixture
scene. Skipped unless `habitat_sim` imports (`fdc[habitat]` with habitat-sim from conda;
see docs/habitat.md).

A plain `habitat_sim.Simulator` has no articulated agent or grasp manager (habitat-lab's
`RearrangeSim` adds them), so the agent's base is read from the simulator's own agent
and the hand is empty; everything else is read as on a `RearrangeSim`."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fdc.core.problems import render_text
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.habitat import import_habitat
from fdc.sim_bridge.habitat.live import HabitatWorldState
from fdc.sim_bridge.world.trajectory import read_trajectory
from tests.sim_bridge.helpers import TEST_ASSETS

habitat_sim = pytest.importorskip("habitat_sim")

CONFIG_0 = TEST_ASSETS / "dataset_tests/dataset_0/test_dataset_0.scene_dataset_config.json"
BALL, CRATE = "dataset_test_object1_:0000", "dataset_test_object2_:0000"


class AgentBase:
    """The simulator's agent 0 read as an articulated agent's base (`base_pos` on the
    floor, `base_rot` about +Y)."""

    def __init__(self, sim: Any) -> None:
        self._sim = sim

    @property
    def base_pos(self) -> Any:
        return self._sim.get_agent(0).get_state().position

    @property
    def base_rot(self) -> float:
        q = self._sim.get_agent(0).get_state().rotation  # numpy-quaternion, about +Y
        return 2.0 * math.atan2(float(q.y), float(q.w))


class EmptyHand:
    snap_idx = None


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, SceneGraph, Path]]:
    out = tmp_path_factory.mktemp("dataset_0_real")
    r = import_habitat(CONFIG_0, "dataset_test_scene", out)
    assert r.ok and r.scene is not None, [render_text(f) for f in r.findings]
    scene_path = out / "scene.json"
    scene_path.write_text(r.scene.to_json())
    graph = build_scene_graph(r.scene, base_dir=out)
    backend = habitat_sim.SimulatorConfiguration()
    backend.scene_dataset_config_file = str(CONFIG_0)
    backend.scene_id = "dataset_test_scene"
    backend.enable_physics = True
    sim = habitat_sim.Simulator(
        habitat_sim.Configuration(backend, [habitat_sim.agent.AgentConfiguration()]))
    settings = habitat_sim.NavMeshSettings()
    settings.set_defaults()
    sim.recompute_navmesh(sim.pathfinder, settings)
    try:
        yield sim, graph, scene_path
    finally:
        sim.close()


def _live(sim: Any, graph: SceneGraph) -> HabitatWorldState:
    return HabitatWorldState(sim, graph, agent=AgentBase(sim), grasp=EmptyHand())


def test_object_boxes_match_the_importer(running) -> None:
    sim, graph, _ = running
    live = _live(sim, graph)
    for ident in (BALL, CRATE):
        spec = graph.object(ident).spec
        p = live.object_pose(ident)
        assert p.position == pytest.approx(spec.pose.position, abs=1e-3)
        assert p.size == pytest.approx(spec.size, abs=1e-3)


def test_regions_match_the_importers_rooms(running) -> None:
    sim, graph, _ = running
    live = _live(sim, graph)
    for x in np.linspace(-26, 26, 14).tolist():
        for y in (-8.0, 0.0, 8.0):
            room = graph.room_of((x, y, 0.0))
            assert live.room_of((x, y, 0.0)) == (room.id if room is not None else None)


def test_geodesic_distance_is_never_shorter_than_the_straight_line(running) -> None:
    sim, graph, _ = running
    live = _live(sim, graph)
    a = sim.pathfinder.get_random_navigable_point()
    b = sim.pathfinder.get_random_navigable_point()
    pa = (float(a[0]), -float(a[2]), float(a[1]))
    pb = (float(b[0]), -float(b[2]), float(b[1]))
    d = live.geodesic_distance(pa, pb)
    if math.isfinite(d):
        assert d >= math.dist(pa[:2], pb[:2]) - 1e-3
        path = live.shortest_path(pa, pb)
        assert path is not None and len(path) >= 2


def test_a_recorded_run_reads_back(running, tmp_path: Path) -> None:
    sim, graph, scene_path = running
    live = _live(sim, graph)
    sim.step_physics(0.5)
    live.record("wait", steps=1)
    live.record("stop")
    run = tmp_path / "run.jsonl"
    live.write(run, scene=str(scene_path))
    header, snaps = read_trajectory(run)
    assert header.source == "habitat-lab" and [s.step for s in snaps] == [0, 1, 2]
    assert set(snaps[-1].objects) == {BALL, CRATE}
