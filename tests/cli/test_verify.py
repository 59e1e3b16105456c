"""`fdc verify` on a suite too large for one run: a located limit, checked before the
suite is read (issue 15: a 200,000-task suite ran out of memory)."""

from __future__ import annotations

from pathlib import Path

from fdc.cli import app
from fdc.cli.verify import MAX_VERIFY_TASKS
from tests.cli.helpers import runner


def test_a_suite_over_the_task_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"id": "t", "template": "x", "goal": {}}\n' * (MAX_VERIFY_TASKS + 1))
    trajectory = tmp_path / "run.jsonl"
    trajectory.write_text("")
    result = runner.invoke(app, ["verify", str(suite), "-t", str(trajectory)])
    assert result.exit_code == 2
    assert f"{suite}: error: more than 50,000 tasks" in result.stderr
    assert "MAX_VERIFY_TASKS" in result.stderr
    assert "Traceback" not in result.output
