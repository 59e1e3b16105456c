"""The `fdc` command line: a thin layer over the library, one module per command group.

This module builds the app and registers each command and group, in the order `fdc
--help` lists them. Exit codes everywhere: 0 ok, 1 findings, 2 usage or input error.
"""

from __future__ import annotations

from typing import Annotated

import typer

from fdc.cli.baseline import run_baseline_command
from fdc.cli.check import check_command
from fdc.cli.compile import compile_command, explain_command
from fdc.cli.evaluate import evaluate_command
from fdc.cli.experience import experience_app
from fdc.cli.export import export_app
from fdc.cli.fmt import fmt_command
from fdc.cli.imports import import_app
from fdc.cli.limits import apply_limits
from fdc.cli.scene import scene_app
from fdc.cli.schema import schema_command
from fdc.cli.validate import validate_command
from fdc.cli.verify import verify_command

app = typer.Typer(
    name="fdc",
    help="Compile PDDL task templates into verifiable task suites for embodied agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def options(
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", metavar="NAME=VALUE",
        help="Raise (or lower) one of fdc's input limits; repeatable. See docs/limits.md.",
    )] = None,
) -> None:
    """Compile PDDL task templates into verifiable task suites for embodied agents."""
    apply_limits(limit or [])


app.command("validate")(validate_command)
app.command("compile")(compile_command)
app.command("explain")(explain_command)
app.command("evaluate")(evaluate_command)
app.command("run-baseline")(run_baseline_command)
app.command("check")(check_command)
app.command("fmt")(fmt_command)
app.command("verify")(verify_command)
app.command("schema")(schema_command)
app.add_typer(scene_app, name="scene")
app.add_typer(import_app, name="import")
app.add_typer(experience_app, name="experience")
app.add_typer(export_app, name="export")


def main() -> None:  # pragma: no cover - console entry point
    app()
