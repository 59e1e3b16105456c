"""Drive the embedded world through a pick-and-place on the example apartment, record the
trajectory, and verify tasks on it with `fdc verify`, as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, suite_lines
from fdc.predicates.goal import GAnd, GNot, GTargets, Target, atom
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld

REPO = Path(__file__).resolve().parents[2]
APARTMENT = REPO / "examples" / "scenes" / "apartment.json"
runner = CliRunner()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, apartment_graph: SceneGraph
        ) -> tuple[Path, str, str, str]:
    """(trajectory path, item, source surface, destination surface)."""
    graph = apartment_graph
    surfaces = [s.id for s in graph.surfaces() if graph.object(s.object_id).kind.value != "movable"]
    for item in (o for o in graph.objects() if o.is_movable):
        source = graph.parent_surface(item.id)
        if source is None:
            continue
        world = EmbeddedWorld(graph)
        if not (world.navigate(source.id) and world.pick(item.id)):
            continue
        for dest in surfaces:
            if dest == source.id or not world.navigate(dest):
                continue
            if world.place(dest):
                assert world.stop()
                path = tmp_path_factory.mktemp("run") / "run.jsonl"
                world.record(path, scene=str(APARTMENT))
                return path, item.id, source.id, dest
    pytest.fail("no pick-and-place found in the example apartment")


def write_suite(path: Path, records: list[TaskRecord]) -> Path:
    path.write_text("".join(suite_lines(records)))
    return path


def task(task_id: str, goal: object) -> TaskRecord:
    return TaskRecord.model_validate({"id": task_id, "template": "test", "goal": goal})


@pytest.mark.slow
def test_verify_a_pick_and_place(run: tuple[Path, str, str, str], tmp_path: Path) -> None:
    trajectory, item, source, dest = run
    records = [
        task("moved", atom("on", item, dest)),
        task("still-there", atom("on", item, source)),
        task(
            "moved-and-free", GAnd(parts=(atom("on", item, dest), GNot(body=atom("holding", item))))
        ),
        task(
            "two-stops",
            GTargets(
                targets=(
                    Target(entity=item, goal=atom("on", item, dest)),
                    Target(entity="x", goal=atom("holding", item)),
                )
            ),
        ),
    ]
    suite = write_suite(tmp_path / "suite.jsonl", records)
    result = runner.invoke(app, ["verify", str(suite), "-t", str(trajectory), "--format", "json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    outcome = {t["id"]: t["success"] for t in report["tasks"]}
    assert outcome == {
        "moved": True,
        "still-there": False,
        "moved-and-free": True,
        "two-stops": False,
    }
    moved = next(t for t in report["tasks"] if t["id"] == "moved")
    assert moved["targets"][0]["step"] == moved["end_step"]
    only = runner.invoke(app, ["verify", str(suite), "-t", str(trajectory), "--task", "moved"])
    assert only.exit_code == 0, only.output


@pytest.mark.slow
def test_bad_inputs_exit_2(run: tuple[Path, str, str, str], tmp_path: Path) -> None:
    trajectory = run[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "t", "template": "x"}\nnot json\n')
    result = runner.invoke(app, ["verify", str(bad), "-t", str(trajectory)])
    assert result.exit_code == 2
    assert "line 1 at goal: Field required" in result.output
    assert "line 2: not JSON" in result.output
    good = write_suite(tmp_path / "s.jsonl", [task("t", atom("hand-empty"))])
    missing = runner.invoke(app, ["verify", str(good), "-t", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2
    unknown = runner.invoke(app, ["verify", str(good), "-t", str(trajectory), "--task", "zz"])
    assert unknown.exit_code == 2


@pytest.mark.slow
def test_threshold_overrides_and_relaxed_modes(
    run: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    trajectory, item, _, dest = run
    suite = write_suite(tmp_path / "suite.jsonl", [task("moved", atom("on", item, dest))])
    args = ["verify", str(suite), "-t", str(trajectory)]
    relaxed = runner.invoke(app, [*args, "--relax", "visibility", "--relax", "distance"])
    assert relaxed.exit_code == 0, relaxed.output
    tight = runner.invoke(app, [*args, "--threshold", "on_top_m=0.5"])
    assert tight.exit_code == 0, tight.output
    typo = runner.invoke(app, [*args, "--threshold", "on_tp_m=0.5"])
    assert typo.exit_code == 2
    assert "unknown threshold `on_tp_m`; did you mean `on_top_m`?" in typo.output
    malformed = runner.invoke(app, [*args, "--threshold", "on_top_m"])
    assert malformed.exit_code == 2


def test_the_documented_task_record_is_valid() -> None:
    from fdc.compiler.suite import parse_suite

    text = (REPO / "docs" / "formats" / "task.md").read_text()
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    records, problems = parse_suite(" ".join(example.split("\n")) + "\n")
    assert problems == []
    assert records[0].goal == atom("on", "apple_0", "kitchen_counter|top")
