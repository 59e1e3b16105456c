"""The predictions file `fdc evaluate` scores: one `Prediction` a line (JSONL).

A memory task's prediction names the history frames the agent chose (`frames`: one for a
single goal, one per target for a multi-goal task, in the order the agent visits them),
and optionally the low-level run that followed (`trajectory`: a trajectory file of
snapshots, relative to the predictions file). A manipulation task's prediction is the
agent's action trace (`actions`).

`read_predictions` reads a file and reports every bad line with its number and JSON
path (and a task predicted twice); it never raises on bad input.
See docs/formats/predictions.md.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pydantic import Field

from fdc.agents.actions import AgentAction
from fdc.compiler.suite import TaskId
from fdc.core.inputs import InputKind, read_input_text
from fdc.core.jsonl import parse_jsonl
from fdc.core.models import FrozenRecord
from fdc.core.problems import Diagnostic, error

PREDICTIONS_FORMAT_VERSION = "1.0"


class Prediction(FrozenRecord):
    """What an agent did on one task of a suite."""

    format_version: str = PREDICTIONS_FORMAT_VERSION
    task_id: TaskId = Field(description="The `id` of the task record.")
    frames: list[int] | None = Field(
        default=None, description="Memory tasks: the chosen history frame indices."
    )
    trajectory: str | None = Field(
        default=None,
        description="Memory tasks: a trajectory file (JSONL snapshots) of the low-level "
        "run, relative to the predictions file.",
    )
    actions: list[AgentAction] | None = Field(
        default=None, description="Manipulation tasks: the agent's action trace."
    )


def parse_predictions(text: str) -> tuple[list[tuple[int, Prediction]], list[Diagnostic]]:
    """The predictions of a file's text with their line numbers (from 1), and every
    problem found; a second prediction for a task is a problem and is left out."""
    out: list[tuple[int, Prediction]] = []
    problems: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for got in parse_jsonl(text, Prediction, "bad-line"):
        p = got.value
        if p is None:
            task = got.raw.get("task_id") if isinstance(got.raw, dict) else None
            about = (task,) if isinstance(task, str) else ()
            problems.extend(replace(x, entities=about) for x in got.problems)
            continue
        if p.task_id in seen:
            problems.append(error(
                "bad-line", f"task `{p.task_id}` is predicted again (first on line "
                f"{seen[p.task_id]}); only the first counts", "task_id", [p.task_id],
                line=got.line))
            continue
        seen[p.task_id] = got.line
        out.append((got.line, p))
    return out, problems


def read_predictions(path: str | Path
                     ) -> tuple[list[tuple[int, Prediction]], list[Diagnostic]]:
    """`parse_predictions` of a file (an unreadable file raises `InputFileError`)."""
    return parse_predictions(read_input_text(path, InputKind.PREDICTIONS))
