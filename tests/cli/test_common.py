"""What every command shares: a suite is read through one reader (exit 2, located)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.cli import app
from tests.cli.helpers import runner


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "SUITE", "--trajectory", "SUITE"],
        ["run-baseline", "random", "SUITE", "-o", "OUT"],
        ["export", "partnr", "SUITE", "-o", "OUT"],
        ["export", "habitat", "SUITE", "-o", "OUT"],
    ],
)
def test_a_suite_that_is_not_text_is_an_input_error(command: list[str], tmp_path: Path) -> None:
    # every command reads a suite through one reader: bytes that are not UTF-8 used to
    # escape as a UnicodeDecodeError traceback from some of them
    suite = tmp_path / "suite.jsonl"
    suite.write_bytes(b"\xff\xfe\x00not utf-8\n")
    args = [str(suite) if a == "SUITE" else str(tmp_path / "out") if a == "OUT" else a
            for a in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "cannot read the suite: not UTF-8 text" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
