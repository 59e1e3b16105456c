"""`fdc validate`: check every task of a suite, for people or for CI.

Exit codes: 0 no error (`--strict`: no warning either), 1 findings, 2 usage or input
error (the suite, a scene, a template file or the manifest cannot be read), 130
interrupted.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    console,
    input_or_exit,
    progress_bar,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.validate import ValidationReport


class ReportFormat(StrEnum):
    text = "text"
    json = "json"
    junit = "junit"


class Planner(StrEnum):
    fast_downward = "fast-downward"
    pyperplan = "pyperplan"


#: The options of the planner, shared by `fdc validate` and `fdc audit`.
PlannerTimeout = Annotated[
    float, typer.Option(min=0.1, help="Seconds the planner may take per plan (a task tries up "
                              "to plan_rounds plans).")]
PlannerChoice = Annotated[
    Planner | None, typer.Option(help="The planner (default: Fast Downward, else pyperplan).")]


def validate_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file for every task (default: the one each names)."),
    ] = None,
    solve: Annotated[
        bool, typer.Option("--solve", help="Certify reachability with a planner.")
    ] = False,
    output_format: Annotated[
        ReportFormat, typer.Option("--format", help="text, json, or junit (XML, for CI).")
    ] = ReportFormat.text,
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
    timeout: PlannerTimeout = 60.0,
    planner: PlannerChoice = None,
) -> None:
    """Check every task of a suite: schema, template version, goal types, not already
    true, unambiguous, non-empty answer set, goal frames; with --solve, a plan."""

    from fdc.agents.oracle import oracle_plan
    from fdc.compiler.reopen import ReopenError
    from fdc.compiler.validate import ValidateOptions, validate_suite
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    err = stderr()
    input_or_exit(suite, "the suite", err)
    if scene is not None:
        input_or_exit(scene, "the scene file", err)
    options = ValidateOptions(scene=str(scene) if scene else None, solve=solve,
                              timeout_s=timeout, strict=strict,
                              planner=planner.value if planner else None, oracle=oracle_plan)
    with progress_bar(err) as progress:
        bar = progress.add_task("validating", total=None)
        try:
            report = validate_suite(
                suite, options,
                on_start=lambda n: progress.update(bar, total=n),
                on_task=lambda ident: progress.update(bar, advance=1,
                                                      description=f"validating {ident}"))
        except (ReopenError, SceneLoadError) as e:
            err.print(f"error: {e}")
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt:
            err.print("interrupted: no report")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if output_format is ReportFormat.json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    elif output_format is ReportFormat.junit:
        from fdc.compiler.validate import junit_xml

        sys.stdout.write(junit_xml(report))
    else:
        _print_text(report)
    _summary(report)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FINDINGS)


def _print_text(report: ValidationReport) -> None:
    out = console(soft_wrap=True)
    for b in report.bad_lines:
        for f in b.findings:
            where = f" at {f.where}" if f.where else ""
            out.print(f"{report.suite}:{b.line}: {f.severity}[{f.code}]{where}: {f.message}",
                      markup=False)
    for t in report.task_reports:
        for f in t.findings:
            where = f" at {f.where}" if f.where else ""
            out.print(f"{report.suite}:{t.line}: {f.severity}[{f.code}] task {t.id}{where}: "
                      f"{f.message}", markup=False)
            if f.hint:
                out.print(f"  hint: {f.hint}", markup=False)


def _summary(report: ValidationReport) -> None:
    text = (f"validated {report.tasks} task(s) in {report.seconds:.1f} s: "
            f"{report.errors} error(s), {report.warnings} warning(s)")
    if report.solve:
        text += f"; {report.certified} of {report.planned} certified by a plan"
    stderr().print(text)
