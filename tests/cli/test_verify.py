"""`fdc verify` checks the trajectory against the scene before judging any goal: a run of
another scene, objects, a held object or states the scene does not have are input
errors (exit 2), located by line and JSON path, with a hint."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, suite_lines
from fdc.predicates.goal import GAnd, atom
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.load import load_scene
from fdc.sim_bridge.world.embedded import EmbeddedWorld

REPO = Path(__file__).resolve().parents[2]
APARTMENT = REPO / "examples" / "scenes" / "apartment.json"
BENCHMARK = REPO / "benchmarks" / "verify_memory.py"
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


def _benchmark() -> ModuleType:
    """benchmarks/verify_memory.py, whose helpers build the hostile inputs."""
    spec = importlib.util.spec_from_file_location("verify_memory", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_memory_does_not_grow_with_the_suite(tmp_path: Path) -> None:
    """The suite is streamed: judging 20,000 tasks takes about the memory of 1,000 (a
    suite of 200,000 tasks peaked at 7.6 GB; here the whole suite was held, 20,000
    kitchen tasks took 150 MB more than 1,000). The tasks are the golden kitchen's
    records under new ids, with a cheap goal, so that the run is quick."""
    bench = _benchmark()
    run = bench.kitchen_run(tmp_path / "run.jsonl")
    cheap = {"kind": "atom", "predicate": "hand-empty", "args": []}
    peaks = {}
    for n in (1_000, 20_000):
        suite = bench.big_suite(tmp_path / f"suite-{n}.jsonl", n, goal=cheap)
        got = bench.measure(suite, run, "json")
        assert got["exit_code"] == 1, got  # the robot holds the mug: every task fails
        peaks[n] = got["peak_rss_mb"]
    assert peaks[20_000] - peaks[1_000] < 30, peaks


def _suite_of(tmp_path: Path, goals: dict[str, object], extra: str = "") -> Path:
    suite = tmp_path / "suite.jsonl"
    records = [TaskRecord.model_validate({"id": k, "template": "x", "goal": g})
               for k, g in goals.items()]
    suite.write_text("".join(suite_lines(records)) + extra)
    return suite


def test_the_streamed_report_is_the_whole_one(
    tmp_path: Path, lines: list[dict[str, object]]
) -> None:
    """The report written task by task is `json.dumps(report, indent=2)`'s bytes, with
    the verdicts `verify_snapshots` gives for the whole suite at once."""
    from fdc.predicates.verify import verify_snapshots
    from fdc.sim_bridge.world.trajectory import read_trajectory

    goals = {"empty": atom("hand-empty"), "near": atom("robot-at-object", "sofa"),
             "both": GAnd(parts=(atom("hand-empty"), atom("robot-at-object", "fridge")))}
    suite = _suite_of(tmp_path, goals)
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = runner.invoke(app, ["verify", str(suite), "-t", str(run), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert result.stdout == json.dumps(report, indent=2) + "\n"
    _, snapshots = read_trajectory(run)
    graph = build_scene_graph(load_scene(APARTMENT).scene, base_dir=APARTMENT.parent)
    whole = verify_snapshots(goals, graph, snapshots)
    assert [(t["id"], t["success"], t["reason"]) for t in report["tasks"]] == \
        [(k, v.success, v.reason) for k, v in whole.items()]
    assert report["failed"] == sum(not v.success for v in whole.values())
    none = runner.invoke(app, ["verify", str(_suite_of(tmp_path, {})), "-t", str(run),
                               "--format", "json"])
    assert none.exit_code == 0, none.output
    assert none.stdout == json.dumps(json.loads(none.stdout), indent=2) + "\n"
    assert json.loads(none.stdout)["tasks"] == []


def test_a_bad_line_after_judged_tasks_writes_no_report(
    tmp_path: Path, lines: list[dict[str, object]]
) -> None:
    """A bad line found after tasks were judged: every bad line is reported, located,
    exit 2, and no report is written (the verdicts so far are thrown away)."""
    suite = _suite_of(tmp_path, {f"t{k}": atom("hand-empty") for k in range(5)},
                      'not json\n{"id": "t0", "template": "x", "goal": {"kind": "atom", '
                      '"predicate": "hand-empty", "args": []}}\n')
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(x) + "\n" for x in lines))
    for output in ("json", "text"):
        result = runner.invoke(app, ["verify", str(suite), "-t", str(run), "--format", output])
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert f"{suite}: error: line 6: not JSON" in result.stderr
        assert f"{suite}: error: line 7 at id: task id `t0` repeats line 1" in result.stderr
        assert "Traceback" not in result.output
