"""A prediction's `task_id` follows the task id rule: a located error otherwise."""

from __future__ import annotations

import json

from fdc.agents.predictions import parse_predictions


def test_an_unsafe_task_id_is_a_located_error() -> None:
    text = "".join(json.dumps({"task_id": t, "frames": [0]}) + "\n"
                   for t in ["ok-1", "../../x"])
    found, problems = parse_predictions(text)
    assert [p.task_id for _, p in found] == ["ok-1"]
    (p,) = problems
    assert (p.line, p.where) == (2, "task_id") and "is not a task id" in p.message
