"""Scene maps that answer questions: labels that never overlap, one task's entities
highlighted by role, and `fdc explain --render`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.pictures import Label, entity_roles, place_labels, render_map
from fdc.sim_bridge.scene.schema import Kind


def test_labels_never_overlap_and_those_that_cannot_fit_are_left_out() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    labels = [Label(5.0, 5.0, f"label {k}") for k in range(60)]  # all on one point
    labels += [Label(1.0, 1.0, "fixed", movable=False), Label(1.0, 1.0, "beside", beside=True)]
    drawn = place_labels(fig, ax, labels)
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text()]
    assert 2 < drawn == len(texts) < len(labels)
    boxes = []
    for t in texts:
        t.update_positions(renderer)
        boxes.append(Text.get_window_extent(t, renderer))
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    beside = next(t for t in texts if t.get_text() == "beside")
    assert beside.xyann != (0.0, 0.0) and beside.arrow_patch is not None
    plt.close(fig)


def test_a_tasks_entities_have_one_role_each_targets_first(generated_graph: SceneGraph) -> None:
    g = generated_graph
    items = g.objects(kind=Kind.MOVABLE)
    target = items[0]
    same = [o.id for o in items if o.category == target.category and o.id != target.id]
    bound = [same[0]] if same else []
    surface = g.surfaces()[0].id  # a surface is drawn as its object
    roles = entity_roles(g, [target.id], [target.id, *bound, surface])
    assert roles[target.id] == "target"
    assert all(roles[x] == "bound" for x in bound)
    assert all(roles[x] == "distractor" for x in same[1:])
    assert roles[surface.split("|")[0]] in ("bound", "target", "distractor")


@pytest.mark.slow
def test_a_highlighted_map_is_deterministic(generated_graph: SceneGraph) -> None:
    g = generated_graph
    item = g.objects(kind=Kind.MOVABLE)[0].id
    png = render_map(g, dpi=60, highlight={item: "target"}, title="one task")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png == render_map(g, dpi=60, highlight={item: "target"}, title="one task")
    assert png != render_map(g, dpi=60)


@pytest.mark.slow
def test_explain_renders_the_first_task(tmp_path: Path) -> None:
    runner = CliRunner()
    scene = tmp_path / "scene.json"
    result = runner.invoke(app, ["scene", "generate", "--rooms", "2", "--objects", "40",
                                 "--seed", "1", "-o", str(scene)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "task.png"
    result = runner.invoke(app, ["explain", "l1-around", "--scene", str(scene), "--limit",
                                 "1", "--render", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out}" in result.output and "target(s) highlighted" in result.output


def test_explain_draws_a_memory_task_where_the_experience_left_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fdc explain --render` draws the state the task starts in: a memory task's
    target where the log left it and the robot where the log ends (it drew the scene's
    initial state: the target where it stood before the log moved it)."""
    import fdc.sim_bridge.pictures as pictures
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph
    from fdc.sim_bridge.world.experience import Experience, final_positions

    kitchen = Path(__file__).resolve().parents[1] / "golden" / "scenes" / "kitchen.json"
    runner = CliRunner()
    log_path = tmp_path / "log.json"
    result = runner.invoke(app, ["experience", "generate", str(kitchen), "-n", "3",
                                 "-o", str(log_path)])
    assert result.exit_code == 0, result.output
    drawn: list[pictures.MapWorld] = []
    real = pictures.render_map

    def spy(g: object, **kw: object) -> bytes:
        drawn.append(pictures.map_world(g, kw.get("state")))  # type: ignore[arg-type]
        return real(g, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pictures, "render_map", spy)
    out = tmp_path / "task.svg"
    result = runner.invoke(app, ["explain", "order-second-to-last-object", "--scene",
                                 str(kitchen), "--history", str(log_path), "--limit", "1",
                                 "--render", str(out)])
    assert result.exit_code == 0, result.output
    target = result.output.split("(robot-at-object ", 1)[1].split(")", 1)[0]
    log = Experience.model_validate_json(log_path.read_text())
    moved = final_positions(log)[target]
    (world,) = drawn
    centre = world.view.object(target).footprint.centroid
    assert abs(centre.x - moved[0]) < 1e-6 and abs(centre.y - moved[1]) < 1e-6
    initial = load_scene_graph(kitchen).object(target).footprint.centroid
    assert abs(initial.x - moved[0]) + abs(initial.y - moved[1]) > 0.05  # the log moved it
    end = log.frames[-1].agent
    assert world.agent == (end.x, end.y, end.yaw_rad)
