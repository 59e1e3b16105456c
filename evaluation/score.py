"""Scoring a predictions file on a reopened suite: what `fdc evaluate` and `fdc browse`
share. The file is read once (`read_predictions_file`), then the scenes and experiences
the predicted tasks need are found and checked before any task is scored
(`score_predictions`): a missing scene raises `ReopenError`, one that does not load
`SceneLoadError`, before work starts. See docs/evaluation.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fdc.agents.predictions import Prediction, read_predictions
from fdc.compiler.suite import is_memory_manipulation
from fdc.core.hashing import sha256_text
from fdc.core.inputs import InputKind, read_input_bytes
from fdc.core.problems import Diagnostic
from fdc.evaluation.memory import frames_expected
from fdc.evaluation.report import Evaluation, build_report, is_memory

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord


@dataclass(frozen=True)
class PredictionsFile:
    """A predictions file as read: its predictions (with line numbers), its bad lines."""

    path: Path
    predictions: list[tuple[int, Prediction]]
    problems: list[Diagnostic]
    sha256: str


def read_predictions_file(path: Path) -> PredictionsFile:
    """Read a predictions file (an unreadable one raises `InputFileError`)."""
    predictions, problems = read_predictions(path)
    return PredictionsFile(path, predictions, problems,
                           sha256_text(read_input_bytes(path, InputKind.PREDICTIONS)))


def tasks_needing_inputs(records: Sequence[TaskRecord], predictions: Sequence[Prediction]
                         ) -> tuple[list[TaskRecord], list[TaskRecord]]:
    """The tasks whose scene graph, and those whose experience log, scoring will read."""
    by_id = {r.id: r for r in records}
    predicted = [(by_id[p.task_id], p) for p in predictions if p.task_id in by_id]
    graph_tasks = [t for t, p in predicted if p.frames is not None or p.trajectory is not None
                   or p.actions is not None]
    log_tasks = [t for t, p in predicted if (is_memory(t) and p.frames is not None and
                 p.actions is None and frames_expected(t) > 0) or
                 (is_memory_manipulation(t) and p.actions is not None)]
    return graph_tasks, log_tasks


def score_predictions(opened: ReopenedSuite, suite_sha256: str, run: PredictionsFile,
                      on_task: Callable[[TaskRecord], None] | None = None) -> Evaluation:
    """Every task of the suite scored on its prediction in `run`, its inputs found first."""
    opened.load(*tasks_needing_inputs(opened.records, [p for _, p in run.predictions]))
    return build_report(
        opened.records, run.predictions, run.problems, opened, suite=str(opened.path),
        suite_sha256=suite_sha256, predictions_file=str(run.path),
        predictions_sha256=run.sha256, trajectory_root=run.path.parent, on_task=on_task)
