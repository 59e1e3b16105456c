"""The predictions file `fdc evaluate` scores: one `Prediction` a line (JSONL).

A memory task's prediction names the history frames the agent chose (`frames`: one for a
single goal, one per target for a multi-goal task, in the order the agent visits them),
and optionally the low-level run that followed (`trajectory`: a trajectory file of
snapshots, relative to the predictions file). A manipulation task's prediction is the
agent's action trace (`actions`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from fdc.sim_bridge.actions import AgentAction

PREDICTIONS_FORMAT_VERSION = "1.0"


class Prediction(BaseModel):
    """What an agent did on one task of a suite."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: str = PREDICTIONS_FORMAT_VERSION
    task_id: str = Field(min_length=1, description="The `id` of the task record.")
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
