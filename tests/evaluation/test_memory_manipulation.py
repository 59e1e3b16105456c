"""Memory-manipulation tasks acted out from the world the experience left behind: the
oracle solves them, `fdc evaluate` scores them with the manipulation metrics (before:
scored as memory navigation, 0%), idle and random agents fail, and `fdc audit` agrees on
every check that applies (plan replayed from the world after the experience)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import ManipulationEnv
from fdc.agents.oracle import oracle_actions
from fdc.cli import app
from fdc.compiler.reopen import reopen_suite
from fdc.compiler.start import start_snapshots
from fdc.compiler.suite import is_memory_manipulation, parse_suite
from fdc.evaluation.audit.checks import MEMORY, PROCESS
from fdc.evaluation.manipulation import score_manipulation

REPO = Path(__file__).resolve().parents[2]
APARTMENT = str(REPO / "examples" / "scenes" / "apartment.json")
LIBRARY = REPO / "domain" / "templates" / "memory-manipulation"


def run(*args: str) -> tuple[int, str]:
    """Exit code and standard output (standard error after it when the code is not 0)."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout + (result.stderr if result.exit_code else "")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mm") / "suite.jsonl"
    code, out = run("compile", APARTMENT, "-T", str(LIBRARY), "--max-per-template", "0",
                    "-o", str(path))
    assert code == 0, out
    return path


def _evaluate(suite: Path, baseline: str) -> dict:
    preds = suite.parent / f"{baseline}.jsonl"
    code, out = run("run-baseline", baseline, str(suite), "-o", str(preds))
    assert code == 0, out
    assert all(p.get("actions") for p in map(json.loads, preds.read_text().splitlines()))
    report = suite.parent / f"{baseline}-report.json"
    code, out = run("evaluate", str(suite), "-p", str(preds), "-o", str(report))
    assert code == 0, out
    return json.loads(report.read_text())


@pytest.mark.slow
def test_the_oracle_solves_them_and_evaluate_scores_them_as_manipulation(suite: Path) -> None:
    report = _evaluate(suite, "oracle")
    records, _ = parse_suite(suite.read_text())
    assert len(report["manipulation"]) == len(records) >= 3 and not report["memory"]
    assert all(s["success"] and s["points"] == 100.0 for s in report["manipulation"])
    rows = {(r["kind"], r["name"]) for r in report["summary"]}
    assert ("manipulation", "memory-manipulation") in rows
    assert not any(kind == "memory" for kind, _ in rows)


@pytest.mark.slow
def test_random_and_idle_agents_fail(suite: Path) -> None:
    report = _evaluate(suite, "random")
    assert not any(s["success"] for s in report["manipulation"])
    opened = reopen_suite(suite)
    for r in opened.records:
        graph = opened.graph(r)
        after = start_snapshots(graph, opened.experience(r))[1]
        idle = score_manipulation(r, [AgentAction(action=ActionName.CALL_END)], graph, after)
        assert not idle.success and idle.points == 0.0


@pytest.mark.slow
def test_the_oracle_acts_from_the_world_after_the_experience(suite: Path) -> None:
    """Where the task starts matters: in the scene's initial state the first object moved
    is still where it was found (an idle agent would succeed there), so an env without
    the world after the experience refuses the task."""
    opened = reopen_suite(suite)
    r = next(r for r in opened.records if r.template == "mm-first-moved-back")
    assert is_memory_manipulation(r)
    graph = opened.graph(r)
    after = start_snapshots(graph, opened.experience(r))[1]
    assert after is not None
    actions = oracle_actions(r, graph, after)
    env = ManipulationEnv(graph, after=after)
    env.reset(options={"task": r})
    assert env.world.agent_pose() == after.agent  # where the experience ended
    assert "where the experience ended" in env._obs
    for a in actions:
        env.step(a)
    assert env.verdict().success
    with pytest.raises(ValueError, match="starts where the experience ends"):
        ManipulationEnv(graph).reset(options={"task": r})
    as_process = r.model_copy(update={"experience": None})
    idle = [AgentAction(action=ActionName.CALL_END)]
    assert score_manipulation(as_process, idle, graph).success


@pytest.mark.slow
def test_audit_agrees_on_every_check_from_the_world_after_the_experience(suite: Path) -> None:
    out_file = suite.parent / "audit.json"
    code, out = run("audit", str(suite), "--format", "json", "-o", str(out_file))
    assert code == 0, out
    report = json.loads(out_file.read_text())
    assert report["disagreeing"] == 0 and not report["disagreements"]
    for task in report["task_results"]:
        checks = task["checks"]
        for name in PROCESS:  # plan, replay, oracle, idle, random, start, answer
            assert checks[name]["status"] == "agree", (name, checks[name])
        for name in set(MEMORY) - set(PROCESS):  # frames, l-star, walk
            assert checks[name]["status"] == "n/a"
