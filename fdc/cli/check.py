"""`fdc check`: parse and type-check PDDL files, every problem located.

Exit codes: 0 no error (`--strict`: no warning either), 1 findings, 2 usage error (a path
that does not exist).
See docs/cli.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, OutputFormat, stderr


def check_command(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to check.")],
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
    no_builtin: Annotated[
        bool, typer.Option("--no-builtin", help="Do not load fdc's built-in domains.")
    ] = False,
) -> None:
    """Parse and type-check domains, problems and templates; report every problem."""
    from fdc.compiler.check import check_paths
    from fdc.compiler.diagnostics import CheckReport
    from fdc.core.problems import count, render_text, to_record

    result = check_paths([str(p) for p in paths], builtin=not no_builtin)
    errors, warnings = count(result.diagnostics)
    if output_format is OutputFormat.json:
        report = CheckReport(
            files=len(result.sources),
            definitions=result.definition_count,
            errors=errors,
            warnings=warnings,
            diagnostics=[to_record(d, result.sources) for d in result.diagnostics],
        )
        sys.stdout.write(report.model_dump_json(indent=2, exclude_none=True) + "\n")
    else:
        for d in result.diagnostics:
            sys.stdout.write(render_text(d, result.sources) + "\n")
        summary = (
            f"checked {len(result.sources)} file(s), {result.definition_count} definition(s): "
            f"{errors} error(s), {warnings} warning(s)"
        )
        stderr().print(summary)
    if result.usage_error:
        raise typer.Exit(EXIT_USAGE)
    if errors or (strict and warnings):
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)
