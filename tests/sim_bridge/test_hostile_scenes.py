"""Scenes whose geometry or size would blow up the scene graph, the world or a compile
(issue 15): each is a located error (exit 2) or a bounded cost, never a traceback, and
stays under 2 GB. The scenes are generated here; the CLI runs in a subprocess with
RLIMIT_AS of 2 GB and a timeout."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fdc.core.limits import current
from fdc.instructions.describe import Describer
from tests.sim_bridge import helpers
from tests.sim_bridge.helpers import PICK_HELD, obj, scene_data, write_scene

REPO = Path(__file__).resolve().parents[2]
FIXTURE_DATASET = (REPO.parent / "shared" / "fixtures" / "habitat" / "habitat-sim" / "data"
                   / "test_assets" / "dataset_tests" / "dataset_0"
                   / "test_dataset_0.scene_dataset_config.json")
TWO_GB = 2 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (TWO_GB, TWO_GB))


def fdc(*args: str | Path, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`fdc ARGS` in a subprocess limited to 2 GB; never a traceback."""
    done = subprocess.run([sys.executable, "-m", "fdc", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def room(ident: str, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    return helpers.room(ident, "kitchen", x0, y0, x1, y1)


TABLE = obj("table", "table", (2, 2, 0.375), (0.8, 1.4, 0.75), kind="furniture")


def cup(k: int, x: float, y: float, z: float = 0.05) -> dict[str, Any]:
    return obj(f"cup_{k}", "cup", (x, y, z), (0.08, 0.08, 0.1), kind="movable")


# ----------------------------------------------------------------------- extent


@pytest.mark.slow
def test_a_room_of_100_km_is_a_located_error(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [TABLE], [room("r", 0, 0, 1e5, 1e5)])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert "rooms[0].polygon[1][0]: error[S041]" in done.stderr


@pytest.mark.slow
def test_a_floor_too_large_for_the_navigation_grid_is_a_located_error(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [TABLE], [room("r", 0, 0, 1000, 1000)])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert "rooms[0].polygon: error[G040]" in done.stderr
    assert "the limit `nav_cells`" in done.stderr
    assert "fdc --limit nav_cells=N" in done.stderr


@pytest.mark.slow
def test_an_agent_far_outside_a_scene_without_rooms_is_a_located_error(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [TABLE], [], agent=(5000, 5000), walls="none")
    done = fdc("compile", scene, "-o", tmp_path / "out" / "suite.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert "agent.position: error[G040]" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize(("old", "new", "where"), [
    ("0.375", "NaN", "objects[0].pose.position[2]"),
    ("1.4", "Infinity", "objects[0].size[1]"),
    ("[1.0, 0.0, 0.0, 0.0]", "[NaN, 0.0, 0.0, 0.0]", "objects[0].pose.orientation[0]"),
    ("[0.5, 0.5, 0.0]", "[0.5, -Infinity, 0.0]", "agent.position[1]"),
])
def test_non_finite_numbers_are_located_errors(tmp_path: Path, old: str, new: str,
                                               where: str) -> None:
    table = {**TABLE, "pose": {**TABLE["pose"], "orientation": [1.0, 0.0, 0.0, 0.0]}}
    scene = write_scene(tmp_path / "s.json", [table])
    text = scene.read_text()
    assert old in text
    scene.write_text(text.replace(old, new, 1))
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert f"{where}: error[S010]: NaN and infinite numbers are not allowed" in done.stderr


@pytest.mark.slow
def test_a_huge_finite_size_is_a_located_error(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [{**TABLE, "size": [0.8, 1e308, 0.75]}])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert "objects[0].size[1]: error[S041]" in done.stderr


# ----------------------------------------------------------------------- size and density


@pytest.mark.slow
def test_more_objects_than_the_limit_is_an_error_before_building(tmp_path: Path) -> None:
    n = 100_000
    assert n > current().scene_objects
    scene = write_scene(tmp_path / "s.json", [cup(k, 0.1 + k % 300 * 0.01, 0.1 + k // 300 * 0.01)
                                              for k in range(n)], [room("r", 0, 0, 40, 40)])
    done = fdc("scene", "inspect", scene, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "objects: error[S040]: the scene has 100,000 objects, more than 20,000, the " \
           "limit `scene_objects`" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("count", "category", "size"), [
    (10_000, "cup", (0.08, 0.08, 0.1)),
    (10_000, "table", (0.8, 1.4, 0.75)),
])
def test_objects_piled_on_one_spot_are_a_located_error(tmp_path: Path, count: int,
                                                       category: str,
                                                       size: tuple[float, float, float]) -> None:
    scene = write_scene(tmp_path / "s.json", [
        obj(f"{category}_{k}", category, (2, 2, size[2] / 2), size) for k in range(count)])
    done = fdc("scene", "inspect", scene, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert f"objects[0].pose.position: error[G041]: more than 100,000 pairs of objects " \
           f"overlap, the limit `footprint_overlaps` (`{category}_0` alone overlaps" \
           in done.stderr


@pytest.mark.slow
def test_a_pile_under_the_overlap_limit_builds_with_its_warnings_bounded(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [cup(k, 2, 2) for k in range(440)])
    done = fdc("scene", "inspect", scene, cwd=tmp_path, timeout=120)
    assert done.returncode == 1
    assert done.stderr.count("warning[W105]") == 1000
    assert "warning[W106]: 95,580 more pairs of objects interpenetrate" in done.stderr


# ----------------------------------------------------------------------- meshes


@pytest.mark.slow
def test_a_mesh_outside_the_scene_folder_is_refused_unless_allowed(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [{**TABLE, "mesh": {"path": "/etc/passwd"}}])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert "objects[0].mesh.path: error[S031]: mesh path `/etc/passwd` of `table` leads " \
           "outside the scene's folder" in done.stderr
    allowed = fdc("scene", "inspect", scene, "--mesh-root", "/etc", cwd=tmp_path)
    assert allowed.returncode == 2  # read now, and not a mesh
    assert "objects[0].mesh.path: error[G030]: cannot read the mesh `/etc/passwd` of " \
           "`table`" in allowed.stderr


@pytest.mark.slow
def test_a_relative_path_climbing_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "scene").mkdir()
    (tmp_path / "outside.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    scene = write_scene(tmp_path / "scene" / "s.json",
                        [{**TABLE, "mesh": {"path": "../outside.obj"}}])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert "error[S031]" in done.stderr


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize(("name", "data"), [
    ("garbage.glb", b"glTF\x02\x00\x00\x00" + b"garbage" * 20),
    ("garbage.obj", b"v 1 2\nf 1 2 3 9\nnonsense\n"),
    ("empty.ply", b""),
])
def test_a_garbage_mesh_is_a_located_error(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / name).write_bytes(data)
    scene = write_scene(tmp_path / "s.json", [{**TABLE, "mesh": {"path": name}}])
    done = fdc("scene", "inspect", scene, cwd=tmp_path)
    assert done.returncode == 2
    assert f"objects[0].mesh.path: error[G030]: cannot read the mesh `{name}` of `table`" \
        in done.stderr


# ----------------------------------------------------------------------- experiences


@pytest.mark.slow
def test_compiling_a_scene_with_nothing_to_move_skips_the_memory_templates(
        tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [])
    done = fdc("compile", scene, "-o", tmp_path / "out" / "suite.jsonl", cwd=tmp_path,
               timeout=300)
    assert done.returncode == 1
    assert "skipped: no experience could be simulated: only 0 of 5 interactions" in done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    skipped = [e for t in manifest["per_template"].values() for e in t["errors"]]
    assert len(skipped) > 1 and all("skipped: no experience could be simulated" in e
                                    for e in skipped)
    # the reason is said once for all the templates it stops (it was said once each)
    assert done.stderr.count("no experience could be simulated") == 1
    assert f"error: {len(skipped)} templates (" in done.stderr
    assert manifest["scenes"][0]["experience"] is None


@pytest.mark.slow
@pytest.mark.skipif(not FIXTURE_DATASET.is_file(), reason="the Habitat fixtures are absent")
def test_the_habitat_fixture_scene_compiles_with_the_default_library(tmp_path: Path) -> None:
    done = fdc("import", "habitat", FIXTURE_DATASET, "--scene", "dataset_test_scene",
               "-o", tmp_path / "hab.json", cwd=tmp_path, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    done = fdc("compile", tmp_path / "hab.json", "-o", tmp_path / "out" / "suite.jsonl",
               cwd=tmp_path, timeout=300)
    assert done.returncode == 1
    assert "skipped: no experience could be simulated" in done.stderr
    assert (tmp_path / "out" / "manifest.json").is_file()


@pytest.mark.slow
def test_no_experience_is_simulated_when_no_template_needs_one(tmp_path: Path) -> None:
    scene = write_scene(tmp_path / "s.json", [TABLE, cup(0, 2, 2, 0.8)])
    template = tmp_path / "t.pddl"
    template.write_text(PICK_HELD)
    done = fdc("compile", scene, "-T", template, "-o", tmp_path / "out" / "suite.jsonl",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["scenes"][0]["experience"] is None


# ----------------------------------------------------------------------- identical items


class _Counting(Describer):
    chosen = 0

    def _choose(self, entity: str, mine: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        type(self).chosen += 1
        return super()._choose(entity, mine)


def test_identical_items_are_described_once_per_class() -> None:
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.schema import Scene

    cups = [cup(k, 1 + k % 10 * 0.2, 1 + k // 10 * 0.2, 0.8) for k in range(50)]
    data = {"format_version": "1.0", "name": "cups", "rooms": [room("r", 0, 0, 6, 6)],
            "objects": [obj("big_table", "table", (2, 2, 0.375), (3, 3, 0.75),
                            kind="furniture"), *cups],
            "agent": {"position": [0.3, 0.3, 0.0]}}
    graph = build_scene_graph(Scene.model_validate(data))
    compiler = SceneCompiler(graph, "cups.json", "0" * 64)
    entries, _ = load_entries(None)
    d = _Counting(compiler.facts(entries[0].domain), compiler.states["initial"])
    found = [d.describe(f"cup_{k}") for k in range(50)]
    assert _Counting.chosen == 1
    assert all(not f.unique for f in found)
    assert {f.fits for f in found} == {tuple(sorted(f"cup_{k}" for k in range(50)))}
    assert [f.entity for f in found] == [f"cup_{k}" for k in range(50)]
    assert {f.phrase for f in found} == {"cup"}


@pytest.mark.slow
def test_ten_thousand_identical_cups_compile_in_bounded_time(tmp_path: Path) -> None:
    k = 100
    cups = [cup(i, 3 + i % k * 0.2, 3 + i // k * 0.2, 0.8) for i in range(10_000)]
    table = obj("big_table", "table", (13, 13, 0.375), (24, 24, 0.75), kind="furniture")
    scene = write_scene(tmp_path / "s.json", [table, *cups], [room("r", 0, 0, 26, 26)],
                        agent=(0.5, 0.5))
    template = tmp_path / "t.pddl"
    template.write_text(PICK_HELD)
    done = fdc("compile", scene, "-T", template, "--no-history", "-o",
               tmp_path / "out" / "suite.jsonl", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["drops"] == {"ambiguous description of ?o": 10_000}


# ----------------------------------------------------------------------- the same, in process


def _codes(text: str, base_dir: Path | None = None) -> list[tuple[str, str]]:
    from fdc.sim_bridge.scene.load import parse_scene

    return [(f.code, f.where) for f in parse_scene(text, base_dir).findings if f.is_error]


def _scene_text(objects: list[dict[str, Any]], rooms: list[dict[str, Any]] | None = None,
                **extra: Any) -> str:
    return json.dumps(scene_data(objects, rooms, **extra))


def test_in_process_the_object_count_is_checked_before_validation() -> None:
    many = [{"not": "an object"}] * (current().scene_objects + 1)
    assert _codes(_scene_text(many)) == [("S040", "objects")]


def test_in_process_coordinates_beyond_the_limit_are_located() -> None:
    text = _scene_text([{**TABLE, "pose": {"position": [2, 2e6, 0.375]}}])
    assert _codes(text) == [("S041", "objects[0].pose.position[1]")]


def test_in_process_mesh_paths_stay_in_the_scene_or_its_dataset(tmp_path: Path) -> None:
    from fdc.sim_bridge.scene.load import parse_scene

    dataset = tmp_path / "data" / "hssd.scene_dataset_config.json"
    (tmp_path / "data" / "objects").mkdir(parents=True)
    dataset.write_text("{}")
    (tmp_path / "data" / "objects" / "chair.glb").write_bytes(b"")
    (tmp_path / "scenes").mkdir()
    mesh = {**TABLE, "mesh": {"path": "../data/objects/chair.glb"}}
    assert _codes(_scene_text([mesh]), tmp_path / "scenes") == \
        [("S031", "objects[0].mesh.path")]
    imported = _scene_text([mesh], source={"dataset": dataset.name})
    assert _codes(imported, tmp_path / "scenes") == []
    allowed = parse_scene(_scene_text([mesh]), tmp_path / "scenes", [tmp_path / "data"])
    assert not [f for f in allowed.findings if f.is_error]


def test_in_process_the_navigation_grid_and_the_overlaps_are_bounded() -> None:
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError, build_scene_graph
    from fdc.sim_bridge.scene.schema import Scene

    big = Scene.model_validate_json(_scene_text([TABLE], [room("r", 0, 0, 800, 800)]))
    with pytest.raises(SceneLoadError) as e:
        build_scene_graph(big)
    assert [(f.code, f.where) for f in e.value.findings] == [("G040", "rooms[0].polygon")]
    pile = Scene.model_validate_json(_scene_text([cup(k, 2, 2) for k in range(460)]))
    with pytest.raises(SceneLoadError) as e:
        build_scene_graph(pile)
    assert [(f.code, f.where) for f in e.value.findings] == \
        [("G041", "objects[256].pose.position")]


# ----------------------------------------------------------------------- limits raised and lowered


@pytest.fixture
def limits() -> Any:
    """Set limits for one test (`limits(name=value, ...)`); the defaults come back after."""
    from dataclasses import replace

    from fdc.core.limits import Limits, set_current

    previous = current()
    yield lambda **values: set_current(replace(Limits(), **values))
    set_current(previous)


def test_in_process_the_scene_limits_are_read_where_they_are_checked(limits: Any) -> None:
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError, build_scene_graph
    from fdc.sim_bridge.scene.schema import Scene

    limits(scene_objects=1, coordinate_m=3.0)
    assert [c for c, _ in _codes(_scene_text([TABLE, TABLE]))] == ["S040"]
    beyond = _codes(_scene_text([TABLE], [room("r", 0, 0, 4, 4)]))
    assert ("S041", "rooms[0].polygon[1][0]") in beyond and {c for c, _ in beyond} == {"S041"}
    limits(nav_cells=100)
    with pytest.raises(SceneLoadError) as e:
        build_scene_graph(Scene.model_validate_json(_scene_text([TABLE])))
    [finding] = e.value.findings
    assert finding.code == "G040" and "the limit `nav_cells`" in finding.message
    assert "fdc --limit nav_cells=N" in finding.hint
    limits(footprint_overlaps=3)
    with pytest.raises(SceneLoadError) as e:
        build_scene_graph(Scene.model_validate_json(_scene_text([cup(k, 2, 2) for k in range(4)])))
    assert [f.code for f in e.value.findings] == ["G041"]
    limits(interpenetration_warnings=2)
    graph = build_scene_graph(Scene.model_validate_json(
        _scene_text([cup(k, 2, 2) for k in range(4)])))
    assert [f.code for f in graph.findings if f.code.startswith("W10")].count("W105") == 2
    assert "the limit `interpenetration_warnings`" in \
        next(f for f in graph.findings if f.code == "W106").message


# ----------------------------------------------------------------------- mesh and URDF files


TRIANGLE_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"


def _mesh_findings(tmp_path: Path, name: str) -> list[tuple[str, str, str]]:
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError, build_scene_graph
    from fdc.sim_bridge.scene.load import parse_scene

    loaded = parse_scene(_scene_text([{**TABLE, "mesh": {"path": name}}]), tmp_path)
    assert loaded.scene is not None, loaded.findings
    try:
        graph = build_scene_graph(loaded.scene, base_dir=tmp_path)
    except SceneLoadError as e:
        return [(f.code, f.where, f.message) for f in e.findings]
    return [(f.code, f.where, f.message) for f in graph.findings if f.code == "G030"]


def test_a_mesh_over_the_mesh_bytes_limit_is_refused_before_it_is_parsed(
        tmp_path: Path, limits: Any) -> None:
    (tmp_path / "m.obj").write_text(TRIANGLE_OBJ)
    assert _mesh_findings(tmp_path, "m.obj") == []
    limits(mesh_bytes=10)
    [(code, where, message)] = _mesh_findings(tmp_path, "m.obj")
    assert (code, where) == ("G030", "objects[0].mesh.path")
    assert "the mesh file is larger than 10 bytes, the limit `mesh_bytes`" in message


def test_a_special_file_as_a_mesh_is_refused_not_taken_for_missing(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "m.glb")  # it said "not found; the box is used"
    [(code, where, message)] = _mesh_findings(tmp_path, "m.glb")
    assert (code, where) == ("G030", "objects[0].mesh.path")
    assert message.endswith("not a regular file")


def test_a_urdf_is_read_bounded_and_may_declare_no_entities(tmp_path: Path,
                                                            limits: Any) -> None:
    from fdc.core.inputs import InputFileError
    from fdc.sim_bridge.habitat.urdf import read_urdf

    urdf = tmp_path / "a.urdf"
    urdf.write_text('<robot name="r"><link name="base"/></robot>')
    assert read_urdf(urdf).links == ["base"]
    laughs = "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, 10))
    urdf.write_text(f'<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY l0 "ha">{laughs}]>'
                    '<robot name="&l9;"><link name="base"/></robot>')
    with pytest.raises(ValueError, match=r"a DOCTYPE .* is not allowed"):
        read_urdf(urdf)
    limits(urdf_bytes=8)
    with pytest.raises(InputFileError, match="the limit `urdf_bytes`"):
        read_urdf(urdf)
    import os

    os.mkfifo(tmp_path / "fifo.urdf")
    with pytest.raises(InputFileError, match="not a regular file"):
        read_urdf(tmp_path / "fifo.urdf")


def test_the_errors_a_compile_worker_raises_cross_back_to_the_cli() -> None:
    """Unpicklable, a scene past a limit in `compile --jobs 2` broke the process pool
    (exit 3); now it is the located error."""
    import pickle

    from fdc.core.inputs import InputFileError
    from fdc.core.problems import error
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    scene = SceneLoadError("s.json", [error("G040", "too large", "rooms[0].polygon")])
    back = pickle.loads(pickle.dumps(scene))
    assert (str(back), back.findings) == (str(scene), scene.findings)
    unread = InputFileError("x.json", "not a regular file", "a hint")
    back_unread = pickle.loads(pickle.dumps(unread))
    assert (back_unread.path, str(back_unread)) == ("x.json", str(unread))
