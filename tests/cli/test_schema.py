"""`fdc schema`: the JSON Schema of a public format, exit 2 for an unknown one."""

from __future__ import annotations

import json

from fdc.cli import app
from tests.cli.helpers import runner


def test_schema_command() -> None:
    result = runner.invoke(app, ["schema", "check-report"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "CheckReport"
    assert runner.invoke(app, ["schema", "nope"]).exit_code == 2
