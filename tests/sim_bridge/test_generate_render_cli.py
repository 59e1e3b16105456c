"""The generator, the example apartment, the pictures and the scene commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.pictures import render_map, render_support_tree
from fdc.sim_bridge.scene.generate import generate_scene
from fdc.sim_bridge.scene.load import load_scene
from fdc.sim_bridge.scene.schema import Kind
from tests.sim_bridge.helpers import TEST_ASSETS

APARTMENT = Path(__file__).parents[2] / "examples" / "scenes" / "apartment.json"
runner = CliRunner()


@pytest.mark.slow
def test_generation_is_deterministic_and_clean() -> None:
    a = generate_scene(4, 120, seed=7)
    assert a.to_json() == generate_scene(4, 120, seed=7).to_json()
    assert a.to_json() != generate_scene(4, 120, seed=8).to_json()
    assert len(a.rooms) == 4 and 100 <= len(a.objects) <= 120
    g = build_scene_graph(a)
    assert g.findings == []
    assert all(p.reachable for p in g.standing_points())
    assert all(o.parent_surface is not None for o in g.objects(kind=Kind.MOVABLE))


def test_the_example_apartment_is_big_enough_and_clean() -> None:
    result = load_scene(APARTMENT)
    assert result.ok
    g = build_scene_graph(result.scene, base_dir=APARTMENT.parent)
    assert g.findings == []
    furniture = [o for o in g.objects() if not o.is_movable]
    movable = g.objects(kind=Kind.MOVABLE)
    surfaces = [s for s in g.surfaces() if not g.object(s.object_id).is_movable]
    assert len(g.rooms()) >= 5 and len(furniture) >= 25 and len(surfaces) >= 40
    assert len(movable) >= 60
    assert all(o.attributes.get("color") and o.attributes.get("material") for o in movable)
    assert all(o.parent_surface is not None for o in movable)
    assert all(p.reachable for p in g.standing_points())
    assert not g.surface("kitchen_cabinet|inside").is_open
    assert max(o.depth for o in movable) == 3  # cups on a tray on the coffee table


@pytest.mark.slow
def test_pictures_are_deterministic(generated_graph: SceneGraph) -> None:
    g = generated_graph
    png = render_map(g, dpi=60)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == render_map(g, dpi=60)
    svg = render_support_tree(g)
    assert svg.startswith("<svg") and svg == render_support_tree(g)
    assert all(o.id in svg for o in g.objects())


@pytest.mark.slow
def test_cli_generate_inspect_render(tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    r = runner.invoke(
        app, ["scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["scene", "inspect", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["summary"]["rooms"] == 3 and report["findings"] == []
    png, svg = tmp_path / "map.png", tmp_path / "tree.svg"
    r = runner.invoke(app, ["scene", "render", str(out), "-o", str(png), "--graph", str(svg)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:4] == b"\x89PNG" and svg.read_text().startswith("<svg")
    r = runner.invoke(app, ["scene", "render", str(out), "-o", str(tmp_path / "map.gif")])
    assert r.exit_code == 2


def test_cli_support_tree_as_picture_outline_and_on_the_terminal(tmp_path: Path) -> None:
    scene = tmp_path / "g.json"
    scene.write_text(generate_scene(2, 12, seed=0).to_json())
    png, txt = tmp_path / "tree.png", tmp_path / "tree.txt"
    r = runner.invoke(app, ["scene", "render", str(scene), "--graph", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:4] == b"\x89PNG"
    r = runner.invoke(app, ["scene", "render", str(scene), "--graph", str(txt), "--tree"])
    assert r.exit_code == 0, r.output
    outline = txt.read_text()
    assert r.stdout == outline  # not a terminal: the same text, no colour codes
    lines = outline.splitlines()
    assert lines[0] == "scene generated-r2-n12-s0"
    assert lines[1].startswith("├── room room_000 (kitchen)")
    assert any(line.lstrip("│ ").startswith("└── ") and "|top [surface" in line
               for line in lines)
    g = build_scene_graph(generate_scene(2, 12, seed=0))
    assert all(o.id in outline for o in g.objects())
    r = runner.invoke(app, ["scene", "render", str(scene)])
    assert r.exit_code == 2 and "nothing to draw" in r.output
    r = runner.invoke(app, ["scene", "render", str(scene), "--graph", str(tmp_path / "t.gif")])
    assert r.exit_code == 2 and "t.gif" in r.output


def test_cli_exit_codes_for_bad_and_odd_scenes(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": "1.0", "name": "x", "agent": {"position": [0, 0, NaN]}}')
    r = runner.invoke(app, ["scene", "inspect", str(bad)])
    assert r.exit_code == 2 and "agent.position[2]" in r.output
    assert "Traceback" not in r.output
    scene = generate_scene(1, 20, seed=3)
    data = json.loads(scene.to_json())
    data["objects"][-1]["pose"]["position"][2] += 0.5  # lift an item off its surface
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data))
    r = runner.invoke(app, ["scene", "inspect", str(odd)])
    assert r.exit_code == 1 and "W102" in r.output and data["objects"][-1]["id"] in r.output


def test_cli_import_habitat(tmp_path: Path) -> None:
    cfg = TEST_ASSETS / "dataset_tests/dataset_1/test_dataset_1.scene_dataset_config.json"
    if not cfg.is_file():
        import pytest

        pytest.skip(f"Habitat fixtures not found at {TEST_ASSETS}")
    out = tmp_path / "s.json"
    r = runner.invoke(
        app, ["import", "habitat", str(cfg), "--scene", "dataset_test_scene_0", "-o", str(out)]
    )
    assert r.exit_code == 2 and "H001" in r.output and not out.exists()
    r = runner.invoke(
        app,
        [
            "import",
            "habitat",
            str(cfg),
            "--scene",
            "dataset_test_scene_0",
            "-o",
            str(out),
            "--allow-missing",
        ],
    )
    assert r.exit_code == 1 and out.exists()
    assert load_scene(out).ok
    r = runner.invoke(app, ["import", "habitat", str(cfg), "--scene", "nope", "-o", str(out)])
    assert r.exit_code == 2 and "no scene instance" in r.output


def test_a_family_varies_its_rooms_and_is_deterministic_per_seed(tmp_path: Path) -> None:
    from fdc.sim_bridge.scene.generate import family_scene

    args = ["scene", "generate", "--count", "5", "--seed", "3", "--rooms", "6",
            "--objects", "30"]
    for name in ("a", "b"):
        r = runner.invoke(app, [*args, "-o", str(tmp_path / name)])
        assert r.exit_code == 0, r.output
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == [f"scene-{k:03d}.json" for k in range(5)]
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
               for f in files)
    rooms = [len(load_scene(tmp_path / "a" / f).scene.rooms) for f in files]  # type: ignore[union-attr]
    assert len(set(rooms)) > 1 and all(2 <= n <= 6 for n in rooms)
    # a scene does not depend on the size of its family; another seed, another family
    assert family_scene(2, 3, 6, 30).to_json() == (tmp_path / "a" / files[2]).read_text()
    assert family_scene(2, 4, 6, 30).to_json() != family_scene(2, 3, 6, 30).to_json()
    r = runner.invoke(app, [*args, "-o", str(tmp_path / "a" / files[0])])
    assert r.exit_code == 2 and "names a folder" in r.output
