"""The audit's `pixels` check: the geometric valid frames of a memory task against what
the camera sees in the rendered frames (the pixel rule), on the example apartment."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fdc.compiler.suite import TaskRecord
from fdc.evaluation.memory import valid_frame_lists
from fdc.sim_bridge.render import RenderUnavailable
from fdc.sim_bridge.render import context as render_context
from tests.evaluation.test_audit import APARTMENT, TEMPLATES, audit_json, records, run


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One task per object-recall template of the apartment (the experience simulated)."""
    path = tmp_path_factory.mktemp("suite") / "suite.jsonl"
    code, out, err = run("compile", APARTMENT, "-T", str(TEMPLATES / "memory" /
                         "object-recall.pddl"), "--max-per-template", "1", "-o", str(path))
    assert code == 0, out + err
    return path


@pytest.fixture(scope="module")
def egl() -> None:
    try:
        render_context.gl_context()
    except RenderUnavailable as e:
        pytest.skip(f"no EGL rendering on this machine: {e}")


def _task(suite: Path) -> TaskRecord:
    return records(suite)["recall-category-in-room"]


def test_without_pixels_the_check_says_why(suite: Path) -> None:
    _, report, _ = audit_json(str(suite), "--task", _task(suite).id, "--no-pixels")
    cell = report.task_results[0].checks["pixels"]
    assert cell.status == "n/a" and "--no-pixels" in cell.detail


@pytest.mark.slow
def test_the_pixel_rule_agrees_with_the_valid_frames(suite: Path, egl: None) -> None:
    code, report, _ = audit_json(str(suite), "--task", _task(suite).id, "--pixels")
    cell = report.task_results[0].checks["pixels"]
    assert code == 0 and cell.status == "agree", cell.detail
    assert "candidate frame(s) agree (seen: >= 308 px)" in cell.detail


@pytest.mark.slow
def test_a_camera_that_sees_nothing_is_caught(suite: Path, egl: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The camera tilted to the ceiling: no target is seen in pixels, the check
    disagrees and names the targets never seen."""
    from fdc.sim_bridge.render import pixels
    from fdc.sim_bridge.render.camera import Camera

    monkeypatch.setattr(pixels, "robot_camera", lambda g: Camera(tilt_deg=80.0))
    code, report, _ = audit_json(str(suite), "--task", _task(suite).id, "--pixels")
    cell = report.task_results[0].checks["pixels"]
    assert code == 1 and cell.status == "disagree", cell.detail
    assert "never seen in pixels" in cell.detail and "geometric visible" in cell.detail


@pytest.mark.slow
def test_each_valid_frame_shows_its_target_in_the_ids(suite: Path, egl: None) -> None:
    """Render the valid frames of an object-recall task as the robot saw them and open
    each one's id buffer: a target of the task covers pixels there."""
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph
    from fdc.sim_bridge.render import Renderer
    from fdc.sim_bridge.render.pixels import robot_camera
    from fdc.sim_bridge.world.embedded import EmbeddedWorld
    from fdc.sim_bridge.world.experience import Experience, snapshot_at

    record = _task(suite)
    lists = valid_frame_lists(record)
    assert lists and lists[0]
    g = load_scene_graph(Path(APARTMENT))
    log_path = next(suite.parent.glob("**/*experience*.json"), None)
    if log_path is None:  # the simulated experience lives in the compile's cache
        from rich.console import Console

        from fdc.cli.common import open_suite_or_exit

        log = open_suite_or_exit(suite, Console(stderr=True)).experience(record)
    else:
        log = Experience.model_validate_json(log_path.read_text())
    initial = EmbeddedWorld(g).snapshot()
    with Renderer(g.scene, robot_camera(g), base_dir=Path(APARTMENT).parent) as r:
        index = {ident: k for k, ident in enumerate(r.object_ids)}
        wanted = [index[t] for t in record.targets]
        for frame in lists[0]:
            f = r.render(snapshot_at(initial, log, frame))
            ids = np.unique(f.ids)
            assert any(k in ids for k in wanted), (frame, record.targets)
