"""`fdc audit` on the compile's executors, cached per task (`compiler.suite_runs`).

Each task's audit depends on the task alone (the agents are seeded by the task, the
planner runs in its own folder), so the report is the same for any executor, any number
of workers and any mix of fresh and cached audits. A batch of one world's tasks goes to a
worker (`audit_batch`), which opens the suite's inputs once (not its records: a batch
carries its own) and keeps the models of each world it
has met (the scene graph, the start states, the abstraction), so a world is built at most
once a worker. A task's audit is kept as JSON (`encode`): its outcomes and, when the
replay disagrees, the plan acted out (the trajectory a reproducer writes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from fdc.compiler.suite_runs import (
    CheckRun,
    Executor,
    Failure,
    Line,
    Lines,
    ResultCache,
    SuiteSpec,
    opened_suite,
    run_checks,
)
from fdc.core.errors import FdcError

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.evaluation.audit.checks import AuditOptions, SceneModels, TaskAudit

#: What a worker keeps between batches: each world's models, for the suite it opened.
_MODELS: dict[SuiteSpec, dict[Any, SceneModels]] = {}


def audit_batch(spec: SuiteSpec, lines: list[Line], options: AuditOptions
                ) -> list[str] | Failure:
    """A worker's audits of a batch of records (`checks.audit_lines`), each as JSON."""
    from fdc.evaluation.audit.checks import audit_lines

    try:
        suite = opened_suite(spec)
        if spec not in _MODELS:
            _MODELS.clear()
        models = _MODELS.setdefault(spec, {})
        return [encode(a) for a in audit_lines(suite, lines, options, models)]
    except FdcError as e:  # ReopenError, SceneLoadError: input errors, said by the client
        return Failure(str(e))


def encode(audit: TaskAudit) -> str:
    """A task's audit as the cache keeps it (its record and line are the suite's)."""
    from fdc.sim_bridge.world.trajectory import trajectory_text

    replay = audit.replay
    return json.dumps({
        "outcomes": {k: [o.status, o.detail] for k, o in audit.outcomes.items()},
        "replay": None if replay is None else {
            "trajectory": trajectory_text(replay.header, replay.snapshots),
            "refused": replay.refused, "reason": replay.reason},
    }, sort_keys=True, ensure_ascii=False)


def decode(text: str, record: TaskRecord, line: int) -> TaskAudit:
    """`encode`'s text back as the task's audit."""
    from fdc.evaluation.audit.checks import CHECKS, Outcome, TaskAudit
    from fdc.sim_bridge.world.plans import PlanReplay
    from fdc.sim_bridge.world.trajectory import parse_trajectory

    data = json.loads(text)
    outcomes = {k: Outcome(*data["outcomes"][k]) for k in CHECKS}
    replay = None
    if data["replay"] is not None:
        header, snapshots = parse_trajectory(data["replay"]["trajectory"])
        replay = PlanReplay(header, tuple(snapshots), data["replay"]["refused"],
                            data["replay"]["reason"])
    return TaskAudit(record, line, outcomes, replay)


def audit_run(spec: SuiteSpec, suite: ReopenedSuite, lines: Sequence[Line],
              options: AuditOptions, cache: ResultCache, executor: Executor | None = None,
              jobs: int = 1, *, on_planned: Callable[[int, int], None] | None = None,
              on_task: Callable[[str], None] | None = None
              ) -> tuple[list[TaskAudit], CheckRun]:
    """`checks.audit_suite`'s audits, those the cache lacks made in batches on `executor`
    (None: this process; every input of those checked here first, `check_inputs`); in
    the order of `lines`. Held whole: `audit_checks` and `audits` stream them."""
    run = audit_checks(spec, suite, lambda: lines, options, cache, executor, jobs,
                       on_planned=on_planned, on_task=on_task)
    return list(audits(run)), run


def audit_checks(spec: SuiteSpec, suite: ReopenedSuite, lines: Lines,
                 options: AuditOptions, cache: ResultCache, executor: Executor | None = None,
                 jobs: int = 1, *, on_planned: Callable[[int, int], None] | None = None,
                 on_task: Callable[[str], None] | None = None) -> CheckRun:
    """Audit each task of `lines()` (read again at each call: the suite streamed from its
    file, say) the cache lacks, in batches on `executor` (`run_checks`); read the audits
    back with `audits`."""
    from fdc.evaluation.audit.checks import check_inputs

    # A run begins with no models kept: batches in this process (jobs 1) would otherwise
    # reuse those of an earlier run in the same process (a library caller, the tests),
    # made before the caller changed what they depend on.
    _MODELS.clear()
    return run_checks("audit", suite, spec, lines, options, asdict(options), audit_batch,
                      cache, executor, jobs, prepare=lambda todo: check_inputs(suite, todo),
                      on_planned=on_planned, on_task=on_task)


def audits(run: CheckRun) -> Iterator[TaskAudit]:
    """A run's audits read back from its cache, a task at a time in the suite's order."""
    for (n, r), text in run.results():
        yield decode(text, r, n)


__all__ = ["SuiteSpec", "audit_batch", "audit_checks", "audit_run", "audits", "decode",
           "encode"]
