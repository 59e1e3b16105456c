"""`fdc evaluate` end to end on a small compiled suite: a generated three-room scene, an
experience log of three interactions, a few memory templates and one manipulation
template. Frames taken from the valid frames score HL-SR 1.0; random frames score less;
malformed predictions are located, scored as failures and exit 1; bad input exits 2."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, read_suite
from fdc.core.hashing import sha256_text
from fdc.evaluation.report import EvaluationReport

REPO = Path(__file__).resolve().parents[2]
MEMORY = REPO / "domain" / "templates" / "memory"
TEMPLATES = [MEMORY / "object-recall.pddl", MEMORY / "ordered-revisit.pddl",
             MEMORY / "unordered-revisit.pddl",
             REPO / "domain" / "templates" / "manipulation" / "level-1.pddl"]


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite (and scene, log, manifest) in one folder."""
    d = tmp_path_factory.mktemp("suite")
    code, out = run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
                    "-o", d / "scene.json")
    assert code == 0, out
    code, out = run("experience", "generate", d / "scene.json", "-n", "3", "-o", d / "log.json")
    assert code == 0, out
    templates = [x for t in TEMPLATES for x in ("-T", t)]
    code, out = run("compile", d / "scene.json", *templates, "--history", d / "log.json",
                    "--max-per-template", "2", "-o", d / "suite.jsonl")
    assert code == 0, out
    return d


def records(d: Path) -> list[TaskRecord]:
    found, problems = read_suite(d / "suite.jsonl")
    assert not problems
    return found


def memory_tasks(d: Path) -> list[TaskRecord]:
    return [r for r in records(d) if r.valid_frames is not None]


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def oracle(tasks: list[TaskRecord]) -> list[dict[str, object]]:
    """The first valid frame of each target, in target order (0 where none is valid)."""
    return [{"task_id": r.id, "frames": [f[0] if f else 0 for f in r.valid_frames or []]}
            for r in tasks]


def report_of(path: Path) -> EvaluationReport:
    return EvaluationReport.model_validate_json(path.read_text(encoding="utf-8"))


def overall(report: EvaluationReport, kind: str = "memory") -> dict[str, float]:
    return next(r.metrics for r in report.summary if r.kind == kind and r.by == "overall")


@pytest.mark.slow
def test_the_suite_has_single_and_multi_goal_memory_tasks(compiled: Path) -> None:
    kinds = {r.goal.kind for r in memory_tasks(compiled)}  # type: ignore[union-attr]
    assert "targets" in kinds and kinds - {"targets"}
    assert any(r.valid_frames is None for r in records(compiled))  # a manipulation task


@pytest.mark.slow
def test_valid_frames_score_full_marks(compiled: Path, tmp_path: Path) -> None:
    # `fdc compile` drops a binding whose target no frame shows; a suite made elsewhere
    # may keep one (flagged, as FindingDory keeps it): the first memory task, made so.
    suite = tmp_path / "kept" / "suite.jsonl"
    suite.parent.mkdir()
    lines = (compiled / "suite.jsonl").read_text().splitlines()
    first = next(k for k, line in enumerate(lines) if json.loads(line)["valid_frames"])
    kept = json.loads(lines[first])
    kept |= {"valid_frames": [[] for _ in kept["valid_frames"]],
             "flags": ["target-without-valid-frame"], "optimal_path_m": None}
    lines[first] = json.dumps(kept)
    suite.write_text("".join(line + "\n" for line in lines))
    manifest = json.loads((compiled / "manifest.json").read_text())
    manifest["suite_sha256"] = sha256_text(suite.read_text())  # the manifest of this suite
    (suite.parent / "manifest.json").write_text(json.dumps(manifest))
    tasks = memory_tasks(suite.parent)
    solvable = [r for r in tasks if all(r.valid_frames or [[]])]
    preds = write_lines(tmp_path / "preds.jsonl", oracle(tasks))
    code, out = run("evaluate", suite, "-p", preds, "-o",
                    tmp_path / "report.json", "--plots", tmp_path / "plots")
    assert code == 0, out
    assert "memory tasks" in out and "HL-SR" in out
    report = report_of(tmp_path / "report.json")
    by_id = {s.task_id: s for s in report.memory}
    for r in tasks:
        high = by_id[r.id].high
        assert high is not None
        assert high.hl_sr == high.dtg_sr == high.sc_sr == (r in solvable), (r.id, high)
        if r in solvable:  # positive unless the optimum is zero and another frame chosen
            assert 0 < high.hl_spl <= 1 or r.optimal_path_m == 0.0
        else:
            assert high.hl_spl == 0
    m = overall(report)
    assert m["hl_sr"] == m["solvable"] == round(len(solvable) / len(tasks), 4)
    # the same metrics over the solvable tasks alone: full marks, in the table too
    assert len(solvable) < len(tasks)
    row = next(r for r in report.summary if r.by == "solvable")
    assert (row.kind, row.name, row.tasks) == ("memory", "all", len(solvable))
    assert (row.metrics["hl_sr"], row.metrics["dtg_sr"], row.metrics["sc_sr"],
            row.metrics["solvable"]) == (1.0, 1.0, 1.0, 1.0)
    assert next(line for line in out.splitlines() if line.startswith("solvable")).count(
        "100.") >= 4
    # the manipulation tasks have no prediction: warnings, scored as failures
    manipulation = [r.id for r in records(compiled) if r.valid_frames is None]
    assert [(f.code, f.task_id) for f in report.findings] == [
        ("missing-prediction", i) for i in manipulation]
    assert report.errors == 0 and report.warnings == len(manipulation)
    assert overall(report, "manipulation") == {"success_rate": 0.0, "points": 0.0}
    pngs = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert pngs == ["manipulation-by-category.png", "manipulation-by-level.png",
                    "memory-by-category.png"]
    assert all((tmp_path / "plots" / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


@pytest.mark.slow
def test_solvable_tasks_alone_score_hl_sr_1(compiled: Path, tmp_path: Path) -> None:
    # A suite of the solvable tasks (no manifest describes it: the log comes by --history).
    tasks = [r for r in memory_tasks(compiled) if all(r.valid_frames or [[]])]
    suite = tmp_path / "solvable.jsonl"
    suite.write_text("".join(r.model_dump_json() + "\n" for r in tasks), encoding="utf-8")
    preds = write_lines(tmp_path / "preds.jsonl", oracle(tasks))
    code, out = run("evaluate", suite, "-p", preds, "--history", compiled / "log.json",
                    "-o", tmp_path / "report.json")
    assert code == 0, out
    m = overall(report_of(tmp_path / "report.json"))
    assert (m["hl_sr"], m["dtg_sr"], m["sc_sr"], m["solvable"]) == (1.0, 1.0, 1.0, 1.0)
    # every task solvable: no separate row
    assert not any(r.by == "solvable" for r in report_of(tmp_path / "report.json").summary)
    assert 0 < m["hl_spl"] <= 1.0
    # without the log there is nothing to judge frames in: bad input
    code, out = run("evaluate", suite, "-p", preds)
    assert code == 2 and "no experience log with sha256" in out and "--history" in out


@pytest.mark.slow
def test_random_frames_score_less(compiled: Path, tmp_path: Path) -> None:
    tasks = memory_tasks(compiled)
    rng = random.Random(7)
    n = json.loads((compiled / "log.json").read_text())["frames"][-1]["index"] + 1
    rows = [{"task_id": r.id, "frames": [rng.randrange(n) for _ in r.valid_frames or []]}
            for r in tasks]
    preds = write_lines(tmp_path / "random.jsonl", rows)
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "random.json")
    assert code == 0, out
    m = overall(report_of(tmp_path / "random.json"))
    assert m["hl_sr"] < m["solvable"]
    assert m["hl_spl"] <= m["hl_sr"] <= min(m["dtg_sr"], m["sc_sr"])


def test_malformed_predictions_are_located_and_exit_1(compiled: Path, tmp_path: Path) -> None:
    tasks = memory_tasks(compiled)
    single = next(r for r in tasks if r.goal.kind != "targets")  # type: ignore[union-attr]
    multi = next(r for r in tasks if r.goal.kind == "targets")  # type: ignore[union-attr]
    lines = [
        "{not json",
        json.dumps({"task_id": "no-such-task", "frames": [1]}),
        json.dumps({"task_id": single.id, "frames": [1, 2]}),
        json.dumps({"task_id": multi.id, "frames": [0, 99999] + [0] * (len(multi.targets) - 2)}),
        json.dumps({"task_id": single.id, "frames": [1]}),
        json.dumps({"task_id": multi.id, "frames": "3"}),
    ]
    preds = tmp_path / "bad.jsonl"
    preds.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "bad.json")
    assert code == 1, out
    report = report_of(tmp_path / "bad.json")
    errors = [(f.line, f.code) for f in report.findings if f.severity == "error"]
    assert errors == [(1, "bad-line"), (2, "unknown-task"), (3, "wrong-frame-count"),
                      (4, "frame-out-of-range"), (5, "bad-line"), (6, "bad-line")]
    assert f"{preds}:3 at frames: error[wrong-frame-count]: 2 frame(s) for a single goal: " \
        f"name exactly 1 (task {single.id})" in out
    assert f"{preds}:5 at task_id: error[bad-line]: task `{single.id}` is predicted again " \
        "(first on line 3); only the first counts" in out
    by_id = {s.task_id: s for s in report.memory}
    for r in (single, multi):
        high = by_id[r.id].high
        assert high is not None and not high.hl_sr and high.hl_spl == 0.0
    missing = [f for f in report.findings if f.code == "missing-prediction"]
    assert len(missing) == len(records(compiled)) - 2 and report.predicted == 2


@pytest.mark.slow
def test_a_low_level_run_scores_ll_sr(compiled: Path, tmp_path: Path) -> None:
    from fdc.compiler.start import start_snapshots
    from fdc.core.hashing import scene_sha256
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.load import load_scene
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import TrajectoryHeader
    from fdc.sim_bridge.world.trajectory import write_trajectory

    tasks = memory_tasks(compiled)
    task = next(r for r in tasks if r.goal.kind != "targets" and r.valid_frames  # type: ignore[union-attr]
                and r.valid_frames[0])
    log = Experience.model_validate_json((compiled / "log.json").read_text())
    scene = load_scene(compiled / "scene.json").scene
    assert scene is not None
    graph = build_scene_graph(scene)
    _, after = start_snapshots(graph, log)
    assert after is not None and task.valid_frames is not None
    goal_pose = log.frames[task.valid_frames[0][0]].agent
    stop = after.model_copy(update={"step": 1, "action": "stop", "agent": goal_pose})
    header = TrajectoryHeader(scene="scene.json", scene_sha256=scene_sha256(graph.scene))
    write_trajectory(tmp_path / "run.jsonl", header, [after, stop])
    preds = write_lines(tmp_path / "preds.jsonl",
                        [{"task_id": task.id, "frames": [task.valid_frames[0][0]],
                          "trajectory": "run.jsonl"}])
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "report.json")
    assert code == 0, out
    report = report_of(tmp_path / "report.json")
    score = next(s for s in report.memory if s.task_id == task.id)
    assert score.low is not None and score.low.ll_sr and score.low.end_step == 1
    straight = ((goal_pose.x - after.agent.x) ** 2 + (goal_pose.y - after.agent.y) ** 2) ** 0.5
    assert score.low.walked_m == pytest.approx(straight, abs=1e-4)
    assert "LL-SR" in out
    others = [s for s in report.memory if s.task_id != task.id]
    assert all(s.low is not None and not s.low.ll_sr for s in others)


@pytest.mark.slow
def test_manipulation_traces_are_replayed_with_feedback(compiled: Path, tmp_path: Path) -> None:
    task = next(r for r in records(compiled) if r.valid_frames is None)
    preds = write_lines(tmp_path / "preds.jsonl",
                        [{"task_id": task.id, "actions": [{"action": "call_end"}]}])
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "report.json", "--feedback", tmp_path / "feedback.jsonl")
    assert code == 0, out
    score = report_of(tmp_path / "report.json").manipulation[0]
    assert score.task_id == task.id and not score.success and score.points == 0.0
    notes = [json.loads(x) for x in (tmp_path / "feedback.jsonl").read_text().splitlines()]
    assert [n["task_id"] for n in notes] == [task.id] and "note" in notes[0]
    # frames are no answer to a manipulation task
    wrong = write_lines(tmp_path / "wrong.jsonl", [{"task_id": task.id, "frames": [0]}])
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", wrong)
    assert code == 1 and "wrong-kind" in out


@pytest.mark.slow
def test_the_simulated_log_is_found_through_the_manifest(tmp_path: Path) -> None:
    code, out = run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
                    "-o", tmp_path / "scene.json")
    assert code == 0, out
    code, out = run("compile", tmp_path / "scene.json", "-T", TEMPLATES[0],
                    "--interactions", "2", "--max-per-template", "2",
                    "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    tasks = [r for r in records(tmp_path) if all(r.valid_frames or [[]])]
    assert tasks
    preds = write_lines(tmp_path / "preds.jsonl", oracle(tasks))
    code, out = run("evaluate", tmp_path / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "report.json")
    assert code == 0, out
    scores = report_of(tmp_path / "report.json").memory
    assert all(s.high is not None and s.high.hl_sr for s in scores if s.solvable)


def test_bad_input_exits_2(compiled: Path, tmp_path: Path) -> None:
    preds = write_lines(tmp_path / "preds.jsonl", oracle(memory_tasks(compiled)))
    code, out = run("evaluate", tmp_path / "missing.jsonl", "-p", preds)
    assert code == 2 and "cannot read the suite" in out
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", tmp_path / "none.jsonl")
    assert code == 2 and "cannot read the predictions" in out
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "--scene",
                    tmp_path / "nowhere.json")
    assert code == 2 and "no such scene file" in out
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "--history",
                    compiled / "scene.json")
    assert code == 2 and "not an fdc experience log" in out


@pytest.mark.slow
def test_unusable_runs_are_located_failures(compiled: Path, tmp_path: Path) -> None:
    from fdc.sim_bridge.world.state import AgentPose, Snapshot, TrajectoryHeader
    from fdc.sim_bridge.world.trajectory import write_trajectory

    task, other = memory_tasks(compiled)[:2]
    assert task.start is not None
    far = AgentPose(x=task.start.x + 3.0, y=task.start.y, yaw_rad=0.0)
    write_trajectory(tmp_path / "far.jsonl", TrajectoryHeader(scene="scene.json"),
                     [Snapshot(step=0, time_min=0.0, agent=far),
                      Snapshot(step=1, time_min=0.1, action="stop", agent=far)])
    preds = write_lines(tmp_path / "preds.jsonl", [
        {"task_id": task.id, "trajectory": "far.jsonl"},
        {"task_id": other.id, "trajectory": "missing.jsonl"}])
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", preds, "-o",
                    tmp_path / "report.json")
    assert code == 1, out
    report = report_of(tmp_path / "report.json")
    errors = [(f.line, f.code) for f in report.findings if f.severity == "error"]
    assert errors == [(1, "run-start"), (2, "bad-trajectory")]
    assert "far.jsonl: the run starts 3.00 m from the task's start pose" in out
    lows = {s.task_id: s.low for s in report.memory}
    assert all(lo is not None and not lo.ll_sr and lo.ll_spl == 0.0 for lo in lows.values())
    assert all(s.high is None for s in report.memory)  # no frames anywhere: no HL metrics
    assert "ll_sr" in overall(report) and "hl_sr" not in overall(report)


@pytest.mark.slow
def test_two_predictions_files_side_by_side(compiled: Path, tmp_path: Path) -> None:
    """Each file is scored and tabled; the plots draw them side by side, values on the
    bars and `solvable` as a reference line; a report (-o) takes one file."""
    tasks = memory_tasks(compiled)
    good = write_lines(tmp_path / "oracle.jsonl", oracle(tasks))
    zero = write_lines(tmp_path / "zero.jsonl", [
        {"task_id": r.id, "frames": [0] * max(1, len(r.valid_frames or []))} for r in tasks])
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", good, "-p", zero,
                    "--plots", tmp_path / "plots")
    assert code in (0, 1), out
    assert f"predictions: {good}" in out and f"predictions: {zero}" in out
    assert out.count("memory tasks") == 2
    pngs = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert "memory-by-category.png" in pngs
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", good, "-p", zero,
                    "-o", tmp_path / "report.json")
    assert code == 2 and "take one --predictions file" in out
    assert not (tmp_path / "report.json").exists()


def test_the_oracle_on_unordered_revisit_scores_no_relaxed_rate_below_hl_sr(
        tmp_path: Path) -> None:
    """The apartment's unordered-revisit tasks, answered by the oracle: a frame that
    satisfied two targets once had its credit given to the first, failing the next frame
    under SC-SR (71.4% against HL-SR 100%); credit by matching keeps every relaxed rate
    at least the strict one, task by task."""
    suite, preds, report = tmp_path / "suite.jsonl", tmp_path / "p.jsonl", tmp_path / "r.json"
    code, out = run("compile", REPO / "examples" / "scenes" / "apartment.json",
                    "-T", MEMORY / "unordered-revisit.pddl", "--no-cache", "-o", suite)
    assert code == 0, out
    code, out = run("run-baseline", "oracle", suite, "-o", preds)
    assert code == 0, out
    code, out = run("evaluate", suite, "-p", preds, "-o", report)
    assert code == 0, out
    scored = report_of(report)
    assert scored.memory, "the apartment gave no unordered-revisit task"
    for t in scored.memory:
        assert t.high is not None and t.high.hl_sr, t.task_id
        assert t.high.sc_sr and t.high.dtg_sr, t.task_id
    metrics = overall(scored)
    assert metrics["sc_sr"] == metrics["dtg_sr"] == metrics["hl_sr"] == 1.0
