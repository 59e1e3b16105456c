"""One task's oracle run shared by every check that needs it (`TaskOracle`, issue 38:
"one oracle run and one replay per task"): the trace, its plan and the witness come
from one run, equal to what the separate functions give; `fdc audit` runs the oracle
once per process task and acts the certified plan out once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fdc.agents.oracle import TaskOracle, Unsolvable, oracle_actions, oracle_plan, witness
from fdc.predicates.goal import GAnd, GAtom, GThen
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from tests.agents.test_baselines import _hand_made
from tests.sim_bridge.helpers import graph, obj, on_top

SIZE = (0.227, 0.218, 0.08)


def _scene() -> SceneGraph:
    return graph([obj("platform", "table", (2.0, 2.0, 0.3), (1.03, 0.88, 0.6),
                      kind="furniture"),
                  obj("counter", "counter", (0.6, 3.3, 0.3), (0.8, 0.6, 0.6),
                      kind="furniture"),
                  on_top("donut_0", "toy", (0.4, 3.3), 0.6, SIZE),
                  on_top("donut_1", "toy", (0.8, 3.3), 0.6, SIZE)])


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every `run_oracle` call counted, whoever calls it (`oracle_actions` and
    `oracle_plan` through the manipulation module, `TaskOracle` through the witness's)."""
    calls: list[int] = []
    for name in ("fdc.agents.oracle.manipulation", "fdc.agents.oracle.witness"):
        module = sys.modules[name]
        inner = module.run_oracle

        def counted(*args: object, _inner: object = inner) -> object:
            calls.append(1)
            return _inner(*args)  # type: ignore[operator]

        monkeypatch.setattr(module, "run_oracle", counted)
    return calls


def test_trace_plan_and_witness_come_from_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    g = _scene()
    task = _hand_made(GAnd(parts=tuple(GAtom(predicate="on", args=(f"donut_{k}",
                                                                    "platform|top"))
                                       for k in range(2))))
    expected = (oracle_actions(task, g), oracle_plan(task, g), witness(task, g))
    calls = _counted(monkeypatch)
    shared = TaskOracle(task, g, None)
    assert (shared.actions(), shared.plan(), shared.witness()) == expected
    assert shared.plan() == expected[1]
    assert len(calls) == 1 and shared.runs == 1


def test_no_trace_is_said_to_every_caller_from_one_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    g = _scene()
    on = GAtom(predicate="on", args=("donut_0", "platform|top"))
    task = _hand_made(GThen(steps=(GThen(steps=(on, on)), on)))  # a step of steps
    calls = _counted(monkeypatch)
    shared = TaskOracle(task, g, None)
    with pytest.raises(Unsolvable) as first:
        shared.actions()
    with pytest.raises(Unsolvable) as second:
        shared.plan()
    assert str(first.value) == str(second.value) == shared.witness()
    assert len(calls) == 1


def test_the_audit_runs_the_oracle_and_replays_once_per_process_task(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the certificate's fallback and the oracle check each ran the oracle, and
    the certified plan, replayed by the certificate, was replayed again for the
    `replay` check."""
    from tests.evaluation.test_audit import APARTMENT, TEMPLATES, audit_json, records, run

    path = tmp_path / "suite.jsonl"
    code, out, err = run("compile", str(APARTMENT), "-T", str(TEMPLATES / "manipulation" /
                         "level-1.pddl"), "--max-per-template", "1", "-o", str(path))
    assert code == 0, out + err
    ids = [r.id for r in records(path).values()][:3]
    calls = _counted(monkeypatch)
    import fdc.compiler.planning.certify as certify
    import fdc.evaluation.audit.checks as checks

    replays: list[int] = []
    for module in (certify, checks):
        inner = module.replay_plan

        def counted(*args: object, _inner: object = inner) -> object:
            replays.append(1)
            return _inner(*args)  # type: ignore[operator]

        monkeypatch.setattr(module, "replay_plan", counted)
    args = [x for i in ids for x in ("--task", i)]
    code, report, err = audit_json(str(path), "--no-pixels", *args)
    assert report.tasks == len(ids), err
    assert len(calls) == len(ids)
    assert len(replays) == len(ids)  # one replay per task's certified plan
