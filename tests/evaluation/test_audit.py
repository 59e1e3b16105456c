"""`fdc audit` on a real suite of the example apartment (level-1 and object-recall tasks),
and on mutations of it, each caught in its own column with exit 1: a checker made wrong
on purpose, a plan step removed, a goal already true, a target with no valid frame.
Also: the report's matrix and JUnit form, reproducers that run, input errors (exit 2)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.planning import PlanningWorld
from fdc.compiler.suite import TaskRecord, parse_suite
from fdc.evaluation.audit import checks
from fdc.evaluation.audit.checks import CHECKS, MEMORY, PROCESS, Outcome, TaskAudit
from fdc.evaluation.audit.report import AuditReport, build_report, junit_xml
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import atom, to_pddl
from tests.sim_bridge.helpers import PICK_HELD, obj, on_top, write_scene

REPO = Path(__file__).resolve().parents[2]
APARTMENT = str(REPO / "examples" / "scenes" / "apartment.json")
TEMPLATES = REPO / "domain" / "templates"


def run(*args: str) -> tuple[int, str, str]:
    """The CLI; an audit without the cache: the mutation tests change fdc's code in this
    process, which the cache key's hash of fdc's files does not see."""
    more = ["--no-cache"] if args[0] == "audit" else []
    result = CliRunner().invoke(app, [*args, *more])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One task per level-1 and object-recall template of the apartment, with its
    manifest (the experience simulated)."""
    path = tmp_path_factory.mktemp("suite") / "suite.jsonl"
    code, out, err = run("compile", APARTMENT, "-T", str(TEMPLATES / "manipulation" /
                         "level-1.pddl"), "-T", str(TEMPLATES / "memory" / "object-recall.pddl"),
                         "--max-per-template", "1", "-o", str(path))
    assert code == 0, out + err
    return path


def records(path: Path) -> dict[str, TaskRecord]:
    found, problems = parse_suite(path.read_text())
    assert not problems
    return {r.template: r for r in found}


def copy_with(suite: Path, folder: Path, record: TaskRecord) -> Path:
    """A one-task suite holding `record`, with the original's manifest beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text((suite.parent / "manifest.json").read_text())
    path = folder / "suite.jsonl"
    path.write_text(json.dumps(record.model_dump(mode="json")) + "\n")
    return path


def audit_json(*args: str) -> tuple[int, AuditReport, str]:
    code, out, err = run("audit", *args, "--format", "json")
    assert code in (0, 1), out + err
    return code, AuditReport.model_validate_json(out), err


def columns(report: AuditReport, template: str) -> dict[str, str]:
    task = next(t for t in report.task_results if t.template == template)
    return {k: c.status for k, c in task.checks.items()}


def disagreeing(report: AuditReport) -> set[tuple[str, str]]:
    return {(d.template, d.check) for d in report.disagreements}


# --------------------------------------------------------------------------- sound tasks


@pytest.mark.slow
def test_sound_tasks_agree_in_every_column_that_applies(suite: Path) -> None:
    r = records(suite)
    code, report, err = audit_json(str(suite), "--task", r["l1-around"].id,
                                   "--task", r["recall-category-in-room"].id)
    assert code == 0, report.disagreements
    assert report.ok and report.tasks == 2 and report.disagreements == []
    process = columns(report, "l1-around")
    assert {k for k, s in process.items() if s == "agree"} == set(PROCESS)
    memory = columns(report, "recall-category-in-room")
    assert {k for k, s in memory.items() if s == "agree"} == set(MEMORY)
    assert list(report.checks) == list(CHECKS)
    assert report.total.cells["plan"].agree == 1 and report.total.cells["walk"].agree == 1
    assert "audited 2 task(s)" in err


@pytest.mark.slow
def test_a_plan_that_moves_a_tray_takes_its_cups_off_first(tmp_path: Path) -> None:
    """The planner, the world and the checkers agree on item tops: out-move-all moves
    everything on the coffee table, the tray with two cups among it; the plan used to
    pick the tray with its cups on it, which the world refuses ("take them off first")."""
    path = tmp_path / "suite.jsonl"
    code, out, err = run("compile", APARTMENT, "-T", str(TEMPLATES / "manipulation" /
                         "level-4.pddl"), "--max-per-template", "1", "-o", str(path))
    assert code == 0, out + err
    task = records(path)["out-move-all"]
    assert "tray_0" in task.goal_pddl
    _, report, _ = audit_json(str(path), "--task", task.id)
    assert columns(report, "out-move-all")["replay"] == "agree", report.disagreements
    assert "the goal verified" in report.task_results[0].checks["replay"].detail


# --------------------------------------------------------------------------- mutations


@pytest.mark.slow
def test_a_wrong_checker_is_caught_by_the_certificate(suite: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`around` made wrong (never true): the planner still places the soap around the
    vase, the world does it, and the checkers judge the end of the plan's replay a
    failure: no certificate (neither is the oracle's plan, which fails too)."""
    registry = default_registry()
    right = registry.checker("around")

    def never(*args: Any, **kwargs: Any) -> Any:
        return np.zeros_like(right.fn(*args, **kwargs))

    monkeypatch.setitem(registry._checkers, "around", dataclasses.replace(right, fn=never))
    code, report, _ = audit_json(str(suite), "--task", records(suite)["l1-around"].id)
    assert code == 1
    assert {("l1-around", "plan"), ("l1-around", "oracle")} <= disagreeing(report)
    assert columns(report, "l1-around")["replay"] == "n/a"
    detail = next(d.detail for d in report.disagreements if d.check == "plan")
    assert "the world carries out every action of the plan, and the goal is not " \
        "judged reached at its end" in detail


@pytest.mark.slow
def test_a_plan_step_removed_is_caught_by_the_replay(suite: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's last action dropped: the shortened plan still runs in the world,
    and the checkers find the goal not reached; the reproducer shows it again."""
    certify = PlanningWorld.certify

    def short(*args: Any, **kwargs: Any) -> Any:
        res = certify(*args, **kwargs)
        return dataclasses.replace(res, plan=res.plan[:-1], length=len(res.plan) - 1)

    monkeypatch.setattr(PlanningWorld, "certify", short)
    report_path = tmp_path / "audit.json"
    code, out, err = run("audit", str(suite), "--task", records(suite)["l1-to-surface"].id,
                         "--format", "json", "-o", str(report_path))
    assert code == 1, out + err
    report = AuditReport.model_validate_json(report_path.read_text())
    assert disagreeing(report) == {("l1-to-surface", "replay")}
    commands = report.disagreements[0].commands
    assert commands[0].startswith(f"fdc audit {suite} --task l1-to-surface-")
    verify = commands[1].split()
    assert verify[:2] == ["fdc", "verify"]
    assert Path(verify[2]).is_file() and Path(verify[4]).is_file()  # the one-task suite, run
    code, out, _ = run(*verify[1:])
    assert code == 1 and "failure" in out


@pytest.mark.slow
def test_a_goal_already_true_is_caught_by_the_idle_agent(suite: Path, tmp_path: Path) -> None:
    """The remote asked onto the coffee table, where it is: the idle agent succeeds;
    checkers and abstraction agree that it holds."""
    record = records(suite)["l1-to-surface"]
    goal = atom("on", "remote_0", "coffee_table|top")
    one = copy_with(suite, tmp_path / "true", record.model_copy(
        update={"goal": goal, "goal_pddl": to_pddl(goal)}))
    code, report, _ = audit_json(str(one))
    assert code == 1
    found = disagreeing(report)
    assert ("l1-to-surface", "idle") in found
    assert found <= {("l1-to-surface", "idle"), ("l1-to-surface", "random")}  # luck too
    assert "already true" in next(d.detail for d in report.disagreements if d.check == "idle")
    assert columns(report, "l1-to-surface")["start"] == "agree"


@pytest.mark.slow
def test_a_target_with_no_valid_frame_is_caught_by_the_frames(suite: Path,
                                                              tmp_path: Path) -> None:
    record = records(suite)["recall-category-in-room"]
    one = copy_with(suite, tmp_path / "frameless", record.model_copy(update={
        "valid_frames": [[]], "flags": ["target-without-valid-frame"]}))
    code, report, _ = audit_json(str(one))
    assert code == 1
    found = disagreeing(report)
    assert ("recall-category-in-room", "frames") in found
    assert ("recall-category-in-room", "oracle") in found  # nothing to return to
    assert columns(report, "recall-category-in-room")["answer"] == "agree"


@pytest.mark.slow
def test_a_frameless_target_a_random_answer_hits_is_caught_by_the_random_agent(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record says no frame is valid (its random chance is 0), yet the judge finds
    the goal where the random agent stops: the record's frames and the judge disagree."""
    record = records(suite)["recall-category-in-room"]
    lucky = record.valid_frames[0][0]  # type: ignore[index]
    monkeypatch.setattr(checks, "random_frames", lambda *_a: [lucky])
    one = copy_with(suite, tmp_path / "lucky", record.model_copy(update={
        "valid_frames": [[]], "flags": ["target-without-valid-frame"]}))
    code, report, _ = audit_json(str(one))
    assert code == 1
    assert ("recall-category-in-room", "random") in disagreeing(report)
    detail = next(d.detail for d in report.disagreements if d.check == "random")
    assert "no chance" in detail and "chance of success 0" in detail


@pytest.mark.slow
def test_the_random_check_judges_a_memory_task_by_its_exact_chance(suite: Path) -> None:
    """A random answer's chance is the share of valid frames: at most the bound, the
    check agrees whatever the seeded answer; a bound below it, the check disagrees."""
    record = records(suite)["recall-category-in-room"]
    code, report, _ = audit_json(str(suite), "--task", record.id)
    assert code == 0 and report.chance_bound == 0.5
    detail = report.task_results[0].checks["random"].detail
    frames = json.loads((suite.parent / "manifest.json").read_text())[
        "scenes"][0]["experience"]["frames"]
    chance = Fraction(len(set(record.valid_frames[0])), frames)  # type: ignore[index]
    assert f"its chance of success {chance} ({float(chance):.1%}, bound 50%)" in detail
    code, report, _ = audit_json(str(suite), "--task", record.id, "--chance-bound", "0")
    assert code == 1 and disagreeing(report) == {("recall-category-in-room", "random")}
    found = report.disagreements[0]
    assert "a random answer is right too often" in found.detail
    assert found.commands[0].endswith("--chance-bound 0")  # the reproducer keeps the bound


# --------------------------------------------------------------------------- the report


def _audits() -> list[TaskAudit]:
    goal = atom("on", "cup_0", "table|top")
    a = TaskRecord(id="t-a", template="put", category="level-1", goal=goal,
                   goal_pddl=to_pddl(goal), targets=["cup_0"])
    b = a.model_copy(update={"id": "t-b", "template": "take", "category": None})
    ok = dict.fromkeys(CHECKS, Outcome("n/a", "n/a")) | dict.fromkeys(PROCESS, Outcome("agree"))
    return [TaskAudit(a, 1, ok),
            TaskAudit(b, 2, ok | {"replay": Outcome("disagree", "the world refuses it")})]


def test_the_matrix_counts_agreements_per_category_and_template() -> None:
    report = build_report("s.jsonl", _audits(), 0, lambda a, k: [f"fdc audit s.jsonl "
                                                                  f"--task {a.record.id}"])
    assert report.tasks == 2 and report.disagreeing == 1 and not report.ok
    assert report.agreements == 2 * len(PROCESS) - 1
    assert [r.group for r in report.by_category] == ["(none)", "level-1"]
    assert [r.group for r in report.by_template] == ["put", "take"]
    take = report.by_template[1].cells
    assert (take["replay"].agree, take["replay"].disagree) == (0, 1)
    assert (take["frames"].agree, take["frames"].disagree) == (0, 0)  # n/a not counted
    d = report.disagreements[0]
    assert (d.task, d.line, d.check, d.commands) == ("t-b", 2, "replay",
                                                     ["fdc audit s.jsonl --task t-b"])
    again = build_report("s.jsonl", _audits(), 0, lambda a, k: [])
    assert again.model_dump_json() == build_report("s.jsonl", _audits(), 0,
                                                   lambda a, k: []).model_dump_json()


def test_junit_has_a_failure_per_disagreement() -> None:
    report = build_report("s.jsonl", _audits(), 0, lambda a, k: ["fdc audit s.jsonl"])
    root = ET.fromstring(junit_xml(report))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = root.find(".//testcase[@name='t-b']/failure")
    assert failure is not None and failure.get("type") == "replay"
    assert failure.text == "$ fdc audit s.jsonl"


# --------------------------------------------------------------------------- input errors


def test_input_errors_exit_2(tmp_path: Path) -> None:
    code, _, err = run("audit", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read the suite" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    code, _, err = run("audit", str(bad))
    assert code == 2 and "bad.jsonl" in err


@pytest.mark.slow
def test_an_unknown_task_is_a_usage_error(suite: Path) -> None:
    code, _, err = run("audit", str(suite), "--task", "no-such-task")
    assert code == 2 and "no task `no-such-task`" in err


@pytest.mark.slow
def test_text_and_junit_reports(suite: Path, tmp_path: Path) -> None:
    record = records(suite)["recall-category"]
    one = copy_with(suite, tmp_path / "frameless", record.model_copy(update={
        "valid_frames": [[]], "flags": ["target-without-valid-frame"]}))
    code, out, _ = run("audit", str(one), "--task", record.id)
    assert code == 1  # its target has no valid frame now
    assert "Agreement by category" in out and "Agreement by template" in out
    assert f"task {record.id} [frames]: no valid frame" in out
    assert f"$ fdc audit {one} --task {record.id}" in out
    assert all(line == line.rstrip() for line in out.splitlines())
    code, out, _ = run("audit", str(one), "--task", record.id, "--format", "junit")
    assert code == 1 and ET.fromstring(out).find(".//failure[@type='frames']") is not None


@pytest.mark.slow
def test_the_report_is_the_same_in_worker_processes(suite: Path) -> None:
    r = records(suite)
    tasks = [x for t in ("l1-around", "l1-to-surface", "recall-category-in-room",
                         "recall-category") for x in ("--task", r[t].id)]
    _, alone, _ = audit_json(str(suite), *tasks)
    _, shared, err = audit_json(str(suite), *tasks, "--jobs", "2")
    assert shared == alone and shared.tasks == 4
    assert "audited 4 task(s)" in err


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_leaves_no_report(suite: Path, tmp_path: Path, jobs: str) -> None:
    """Interrupted while it audits (its process has spent 3 CPU-seconds: fdc's imports
    and the suite's inputs take about 2, the whole audit about 8; the planner need not
    run, since a trace the abstraction accepts is the certificate): exit 130, the note,
    no report and no reproducers; with worker processes too."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    report = tmp_path / "audit.txt"
    fdc = str(Path(sys.executable).with_name("fdc"))
    proc = subprocess.Popen(
        [fdc, "audit", str(suite), "-o", str(report), "--jobs", jobs, "--no-cache"],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TMPDIR=str(scratch)),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    tick = os.sysconf("SC_CLK_TCK")
    while proc.poll() is None:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= 3.0:  # utime + stime
            break
        assert time.monotonic() < deadline, "the audit never got under way"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: no report" in err and "Traceback" not in err
    assert not report.exists() and not (tmp_path / "audit.repro").exists()


BALL_TO_TABLE = """(define (template ball-to-table)
  (:domain fdc-home)
  (:tags manipulation process)
  (:parameters ?o - movable ?s - furniture-surface)
  (:goal (on ?o ?s))
  (:instruction "Put {{ o | ref }} on {{ s | ref }}.")
  (:ambiguity reject))
"""


@pytest.mark.slow
def test_items_on_the_floor_are_picked_by_planner_world_and_oracle_alike(tmp_path: Path) -> None:
    """A ball on the floor (as the Habitat fixture scene's donut and ball): its tasks
    compile, the planner picks it with `pick-from-floor`, the world carries the plan out,
    the oracle walks to it: every column agrees (before, no model could pick it)."""
    scene = write_scene(tmp_path / "scene.json", [
        obj("table", "table", (2, 2, 0.375), (0.8, 1.4, 0.75), kind="furniture"),
        on_top("cup_0", "cup", (2, 2), 0.75, (0.08, 0.08, 0.1)),
        obj("ball_0", "ball", (3.2, 3.2, 0.1), (0.2, 0.2, 0.2), kind="movable")])
    (tmp_path / "t.pddl").write_text(BALL_TO_TABLE + PICK_HELD)
    suite = tmp_path / "out" / "suite.jsonl"
    code, out, err = run("compile", str(scene), "-T", str(tmp_path / "t.pddl"),
                         "-o", str(suite))
    assert code == 0, out + err
    ball = {r.template: r for r in parse_suite(suite.read_text())[0]
            if r.bindings["?o"] == "ball_0"}
    assert set(ball) == {"ball-to-table", "pick-held"}
    code, report, _ = audit_json(str(suite))
    assert code == 0, report.disagreements
    for r in ball.values():
        task = next(t for t in report.task_results if t.id == r.id)
        wanted = ("plan", "replay", "oracle", "idle", "random", "start")
        assert {k: task.checks[k].status for k in wanted} == dict.fromkeys(wanted, "agree")
    code, out, err = run("validate", str(suite), "--solve")
    assert code == 0, out + err
