"""`fdc validate`: check every task of a suite, for people or for CI.

Exit codes: 0 no error (`--strict`: no warning either), 1 findings, 2 usage or input
error (the suite, a scene, a template file or the manifest cannot be read), 130
interrupted (the tasks finished are kept in the cache: a rerun resumes).

The options of where tasks are checked and what is kept (`--jobs`, `--executor`,
`--scheduler`, `--cache`, `--no-cache`) are `fdc compile`'s and `fdc audit`'s too
(`compiler.suite_runs`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
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
from fdc.cli.compile import Executor

if TYPE_CHECKING:
    from rich.console import Console

    from fdc.compiler.suite_runs import CheckRun, ResultCache, ValidationStream
    from fdc.compiler.suite_runs import Executor as RunExecutor
    from fdc.compiler.validate import TaskReport, ValidationReport


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
#: Where tasks are checked and what is kept, shared by `fdc validate` and `fdc audit`.
JobsOption = Annotated[int, typer.Option(
    "--jobs", "-j", min=1, help="Worker processes of --executor local; the report is the "
    "same for any number.")]
ExecutorOption = Annotated[Executor, typer.Option(
    "--executor", help="Where tasks are checked: local (this machine, --jobs processes) or "
    "dask (a dask.distributed cluster, --scheduler).")]
SchedulerOption = Annotated[str | None, typer.Option(
    "--scheduler", help="The dask scheduler's address (tcp://HOST:PORT).")]
CacheOption = Annotated[Path | None, typer.Option(
    "--cache", help="The cache folder of each task's result (default: beside the suite, "
    "SUITE.cache, as `fdc compile`'s); a rerun checks only the tasks whose record, "
    "template, scene, experience, options or fdc's code changed.")]
NoCacheOption = Annotated[bool, typer.Option(
    "--no-cache", help="Keep results in a temporary folder, removed after the run.")]


def run_executor(kind: Executor, scheduler: str | None, jobs: int) -> RunExecutor:
    """The executor the options ask for (`fdc compile`'s); exit 2 when they disagree."""
    from fdc.cli.compile import _executor

    return _executor(kind, scheduler, jobs)


def result_cache(stack: contextlib.ExitStack, suite: Path, cache: Path | None,
                 no_cache: bool, err: Console) -> ResultCache:
    """The cache the options ask for: `--cache DIR`, a temporary folder (`--no-cache`,
    or the default beside the suite when it cannot be made: said on `err`), else
    SUITE.cache beside the suite; exit 2 when `--cache` cannot be written."""
    import tempfile

    from fdc.compiler.suite_runs import ResultCache
    from fdc.core.files import not_writable

    folder = cache if cache is not None else suite.with_suffix(".cache")
    if not no_cache:
        why = not_writable(folder, folder=True)
        existing = next((p for p in [folder, *folder.absolute().parents] if p.exists()),
                        None)  # the folder is made when a first result is kept
        if not why and existing is not None and not os.access(existing, os.W_OK | os.X_OK):
            why = f"cannot be written ({existing} is not writable)"
        if not why:
            return ResultCache(folder)
        if cache is not None:
            err.print(f"error: --cache {folder} {why}", markup=False, highlight=False)
            raise typer.Exit(EXIT_USAGE)
        err.print(f"note: the cache {folder} {why}; nothing is kept", markup=False,
                  highlight=False)
    return ResultCache(Path(stack.enter_context(
        tempfile.TemporaryDirectory(prefix="fdc-results-"))))


def run_summary(run: CheckRun, err: Console) -> None:
    """How many tasks were checked and how many reused (and the damaged entries)."""
    if run.cache.damaged:
        path, why = next(iter(sorted(run.cache.damaged.items())))
        n = len(run.cache.damaged)
        err.print(f"warning: {n} damaged cache entr{'y' if n == 1 else 'ies'} checked again "
                  f"(first: {path}: {why})", markup=False, highlight=False)
    err.print(run.summary(), markup=False, highlight=False)


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
    jobs: JobsOption = 1,
    executor: ExecutorOption = Executor.local,
    scheduler: SchedulerOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Check every task of a suite: schema, template version, goal types, not already
    true, unambiguous, non-empty answer set, goal frames; with --solve, a plan. Tasks
    are checked in --jobs processes or on a dask cluster, each result cached: a rerun
    checks only what changed."""

    import time

    from fdc.agents.oracle import oracle_plan
    from fdc.compiler.suite_runs import validate_run
    from fdc.compiler.validate import ValidateOptions
    from fdc.core.errors import InputError

    err = stderr()
    runner = run_executor(executor, scheduler, jobs)
    input_or_exit(suite, "the suite", err)
    if scene is not None:
        input_or_exit(scene, "the scene file", err)
    options = ValidateOptions(scene=str(scene) if scene else None, solve=solve,
                              timeout_s=timeout, strict=strict,
                              planner=planner.value if planner else None, oracle=oracle_plan)
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        store = result_cache(stack, suite, cache, no_cache, err)
        with progress_bar(err) as progress:
            bar = progress.add_task("validating", total=None)
            try:
                report, run = validate_run(
                    suite, options, store, runner, jobs,
                    on_planned=lambda n, _reused: progress.update(bar, total=n),
                    on_task=lambda ident: progress.update(bar, advance=1,
                                                          description=f"validated {ident}"))
            except InputError as e:  # ReopenError, SceneLoadError, a worker's, the cluster's
                err.print(f"error: {e}")
                raise typer.Exit(EXIT_USAGE) from None
            except KeyboardInterrupt:
                kept = "" if no_cache else f"; the tasks finished are kept in {store.root}: " \
                    "rerun to resume"
                err.print(f"interrupted: no report{kept}", markup=False, highlight=False)
                raise typer.Exit(EXIT_INTERRUPTED) from None
        try:  # the report read back from the cache (a temporary one too: still here)
            _write(report, output_format)
        except InputError as e:  # an entry that left the cache meanwhile
            err.print(f"error: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    _summary(report.header, time.perf_counter() - started)
    run_summary(run, stderr())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FINDINGS)


def _write(report: ValidationStream, output_format: ReportFormat) -> None:
    """The report on stdout, a task's report at a time (never held whole)."""
    if output_format is ReportFormat.json:
        for chunk in report.json_chunks():
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
    elif output_format is ReportFormat.junit:
        for chunk in report.junit_chunks():
            sys.stdout.write(chunk)
    else:
        _print_text(report.header, report.reports())


def _print_text(report: ValidationReport, tasks: Iterable[TaskReport]) -> None:
    out = console(soft_wrap=True)
    for b in report.bad_lines:
        for f in b.findings:
            where = f" at {f.where}" if f.where else ""
            out.print(f"{report.suite}:{b.line}: {f.severity}[{f.code}]{where}: {f.message}",
                      markup=False)
    for t in tasks:
        for f in t.findings:
            where = f" at {f.where}" if f.where else ""
            out.print(f"{report.suite}:{t.line}: {f.severity}[{f.code}] task {t.id}{where}: "
                      f"{f.message}", markup=False)
            if f.hint:
                out.print(f"  hint: {f.hint}", markup=False)


def _summary(report: ValidationReport, seconds: float) -> None:
    """The counts and the wall time (on stderr: the report holds no time)."""
    text = (f"validated {report.tasks} task(s) in {seconds:.1f} s: "
            f"{report.errors} error(s), {report.warnings} warning(s)")
    if report.solve:
        text += f"; {report.certified} of {report.planned} certified by a plan"
    stderr().print(text)
