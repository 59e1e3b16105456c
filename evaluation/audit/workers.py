"""`fdc audit --jobs N`: the tasks of a suite audited in N worker processes.

Each task's audit depends on the task alone (the agents are seeded by the task, the
planner runs in its own folder), so the report is the same for any N. The tasks go out
in small batches of one world each (a scene and the experience its tasks start after);
a worker opens the suite once and keeps the models of each world it has met (the scene
graph, the start states, the abstraction), so a world is built at most once a worker.
Batches finish in any order; each audit goes back to its place in the suite's order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.evaluation.audit.checks import AuditOptions, SceneModels, TaskAudit

#: At most this many tasks a batch (a batch is a world's tasks, cut in pieces so that
#: every worker has work until the end).
BATCH_MAX = 8


@dataclass(frozen=True)
class SuiteSpec:
    """How a worker opens the suite the main process opened (the same files given)."""

    path: str
    scenes: tuple[str, ...]
    experiences: tuple[str, ...]


def batches(keys: Sequence[Hashable], jobs: int) -> list[list[int]]:
    """The indices of `keys` (each task's world) in batches of one world each, at most
    `BATCH_MAX` long and small enough that each of `jobs` workers gets about four; in
    the order of each world's first task."""
    groups: dict[Hashable, list[int]] = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, []).append(k)
    size = max(1, min(BATCH_MAX, math.ceil(len(keys) / (4 * jobs))))
    return [g[i:i + size] for g in groups.values() for i in range(0, len(g), size)]


def audit_in_processes(spec: SuiteSpec, suite: ReopenedSuite,
                       lines: Sequence[tuple[int, TaskRecord]], options: AuditOptions,
                       jobs: int, on_task: Callable[[str], None] | None = None
                       ) -> list[TaskAudit]:
    """`checks.audit_suite`'s audits, made in `jobs` processes; in the order of
    `lines`. Every input is checked here first (`check_inputs`)."""
    from fdc.compiler.executors import in_processes
    from fdc.compiler.reopen import imported
    from fdc.evaluation.audit.checks import check_inputs

    check_inputs(suite, lines)
    keys = [suite.world_key(r) if imported(r) is None else None for _, r in lines]
    groups = batches(keys, jobs)
    out: list[TaskAudit | None] = [None] * len(lines)
    calls = [(spec, [lines[k] for k in batch], options) for batch in groups]
    for b, audits in in_processes(_audit_batch, calls, jobs):
        for k, audit in zip(groups[b], audits, strict=True):
            out[k] = audit
            if on_task is not None:
                on_task(audit.record.id)
    return [a for a in out if a is not None]


# --------------------------------------------------------------------------- the worker

#: What a worker keeps between batches: the suite it opened and each world's models.
_OPENED: dict[SuiteSpec, tuple[ReopenedSuite, dict[Any, SceneModels]]] = {}


def _audit_batch(spec: SuiteSpec, lines: list[tuple[int, TaskRecord]],
                 options: AuditOptions) -> list[TaskAudit]:
    from fdc.evaluation.audit.checks import audit_lines

    suite, models = _opened(spec)
    return list(audit_lines(suite, lines, options, models))


def _opened(spec: SuiteSpec) -> tuple[ReopenedSuite, dict[Any, SceneModels]]:
    found = _OPENED.get(spec)
    if found is None:
        from fdc.compiler.reopen import reopen_suite

        _OPENED.clear()
        suite = reopen_suite(Path(spec.path), scenes=spec.scenes,
                             experiences=spec.experiences)
        found = _OPENED[spec] = (suite, {})
    return found


__all__ = ["BATCH_MAX", "SuiteSpec", "audit_in_processes", "batches"]
