"""`fdc verify` checks the trajectory against the scene before judging any goal: a run of
another scene, objects, a held object or states the scene does not have are input
errors (exit 2), located by line and JSON path, with a hint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, suite_lines
from fdc.core.limits import current
from fdc.predicates.goal import atom
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld

REPO = Path(__file__).resolve().parents[2]
APARTMENT = REPO / "examples" / "scenes" / "apartment.json"
runner = CliRunner()


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory, apartment_graph: SceneGraph
          ) -> list[dict[str, object]]:
    """A one-stop run in the example apartment, as JSON lines."""
    world = EmbeddedWorld(apartment_graph)
    assert world.stop()
    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    world.record(path, scene=str(APARTMENT))
    return [json.loads(line) for line in path.read_text().splitlines()]


def verify(tmp_path: Path, lines: list[dict[str, object]]) -> tuple[int, str]:
    suite = tmp_path / "suite.jsonl"
    record = TaskRecord.model_validate({"id": "t", "template": "x", "goal": atom("hand-empty")})
    suite.write_text("".join(suite_lines([record])))
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = runner.invoke(app, ["verify", str(suite), "-t", str(run)])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_a_run_of_the_scene_is_judged(tmp_path: Path, lines: list[dict[str, object]]) -> None:
    code, out = verify(tmp_path, lines)
    assert code == 0, out


def test_a_run_of_another_scene_is_an_input_error(
    tmp_path: Path, lines: list[dict[str, object]]
) -> None:
    header = {**lines[0], "scene_sha256": "0" * 64}
    code, out = verify(tmp_path, [header, *lines[1:]])
    assert code == 2
    assert "run.jsonl:1: scene_sha256: error[T020]: the trajectory was recorded in another" in out
    assert "hint: give the scene the trajectory was recorded in" in out


@pytest.mark.parametrize(("change", "where", "says"), [
    ({"objects": {"ghost": {"position": [0, 0, 0], "size": [1, 1, 1]}}}, "objects.ghost",
     "object `ghost` is not in the scene"),
    ({"held": "nobody"}, "held", "`nobody` is not a movable object of the scene"),
    ({"held": "fridge"}, "held", "`fridge` is not a movable object of the scene"),
    ({"states": {"ghost": {"is_clean": True}}}, "states.ghost",
     "object `ghost` is not in the scene"),
    ({"open": {"ghost|inside": True}}, "open.ghost|inside",
     "`ghost|inside` is not a container of the scene"),
])
def test_what_the_scene_does_not_have_is_an_input_error(
    tmp_path: Path, lines: list[dict[str, object]], change: dict[str, object], where: str,
    says: str
) -> None:
    last = lines[-1]
    merged = {k: ({**v, **change[k]} if isinstance(v, dict) and isinstance(change.get(k), dict)
                  else change.get(k, v)) for k, v in last.items()}
    merged.update({k: v for k, v in change.items() if k not in last})
    code, out = verify(tmp_path, [*lines[:-1], merged])
    assert code == 2, out
    assert f"run.jsonl:{len(lines)}: {where}: error[T020]: {says}" in out
    assert "hint:" in out


def test_a_suite_over_the_task_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A suite too large for one run: a located limit, checked before the suite is read
    (a 200,000-task suite ran out of memory)."""
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"id": "t", "template": "x", "goal": {}}\n' * (current().verify_tasks + 1))
    trajectory = tmp_path / "run.jsonl"
    trajectory.write_text("")
    result = runner.invoke(app, ["verify", str(suite), "-t", str(trajectory)])
    assert result.exit_code == 2
    assert f"{suite}: error: more than 50,000 tasks, the limit `verify_tasks`" in result.stderr
    assert "fdc --limit verify_tasks=N" in result.stderr
    assert "Traceback" not in result.output
