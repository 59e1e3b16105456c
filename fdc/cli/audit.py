"""`fdc audit`: every task of a suite judged by every model fdc has; where they disagree.

Exit codes: 0 every check agrees, 1 some disagreement (each listed with its reproducer
commands), 2 usage or input error (the suite, a scene, an experience log, a template or
the manifest cannot be read; an unknown `--task`), 130 interrupted (no report written).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    console,
    file_option,
    input_or_exit,
    open_suite_or_exit,
    print_table,
    progress_bar,
    stderr,
    table,
)
from fdc.cli.compile import Executor
from fdc.cli.validate import (
    CacheOption,
    ExecutorOption,
    JobsOption,
    NoCacheOption,
    PlannerChoice,
    PlannerTimeout,
    ReportFormat,
    SchedulerOption,
    result_cache,
    run_executor,
    run_summary,
)
from fdc.evaluation.audit import DEFAULT_CHANCE_BOUND

if TYPE_CHECKING:
    from fdc.evaluation.audit.report import AuditReport

def _can_render(asked: bool | None) -> tuple[bool, str]:
    """Whether the `pixels` check runs, and why not when it does not: asked off; asked on
    or by default, when this machine can make a rendering context."""
    if asked is False:
        return False, "not asked for (--no-pixels)"
    from fdc.sim_bridge.render.context import RenderUnavailable, make_context

    try:  # a context of its own, released: worker processes make theirs
        make_context().release()
    except RenderUnavailable as e:
        return False, f"this machine cannot render: {e}"
    return True, ""


#: The text report's width when it goes to a file or a pipe (a terminal's own otherwise).
TEXT_WIDTH = 160


def audit_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file for every task (default: the one each names)."),
    ] = None,
    experience: Annotated[
        Path | None,
        typer.Option(help="The experience log of the memory tasks (default: the manifest "
                     "beside the suite says which)."),
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", help="Only these task ids (repeatable).")
    ] = None,
    output_format: Annotated[
        ReportFormat, typer.Option("--format", help="text, json, or junit (XML, for CI).")
    ] = ReportFormat.text,
    output: Annotated[
        Path | None, file_option("--output", "-o", help="Write the report here (default: "
                                 "standard output); one-task suites that reproduce each "
                                 "disagreement go in REPORT.repro/ beside it.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the random agent.")] = 0,
    chance_bound: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="A memory task fails the random check "
                            "when a random answer (uniform frames, as many as targets) is "
                            "right with a chance above this share.")
    ] = DEFAULT_CHANCE_BOUND,
    timeout: PlannerTimeout = 60.0,
    planner: PlannerChoice = None,
    jobs: JobsOption = 1,
    executor: ExecutorOption = Executor.local,
    scheduler: SchedulerOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    pixels: Annotated[
        bool | None, typer.Option("--pixels/--no-pixels", help="Render the memory tasks' "
                                  "frames and compare the valid frames with the pixel rule "
                                  "(default: on when this machine can render, with EGL).")
    ] = None,
) -> None:
    """Judge every task by every model: the planner's certificate, that plan acted out in
    the embedded world, the oracle, idle and random agents, the goal at the start by the
    checkers and by the abstraction; for memory tasks the answer set, valid frames, L*
    and a walk along it, and the random agent by its exact chance of success (at most
    --chance-bound). An agreement matrix per category and per template, and every
    disagreement with the commands that show it. Tasks are audited in --jobs processes
    or on a dask cluster, each audit cached: a rerun audits only what changed."""
    from fdc.compiler.suite_runs import SuiteSpec
    from fdc.core.errors import InputError
    from fdc.core.files import Outputs
    from fdc.evaluation.audit.checks import AuditOptions
    from fdc.evaluation.audit.report import build_report
    from fdc.evaluation.audit.reproducers import Invocation, Reproducers
    from fdc.evaluation.audit.workers import audit_run

    err = stderr()
    runner = run_executor(executor, scheduler, jobs)
    input_or_exit(suite, "the suite", err)
    for given, what in ((scene, "the scene file"), (experience, "the experience log")):
        if given is not None:
            input_or_exit(given, what, err)
    opened = open_suite_or_exit(suite, err, scenes=[scene] if scene else [],
                                experiences=[experience] if experience else [])
    lines = opened.lines
    if task:
        known = {r.id for _, r in lines}
        unknown = [t for t in dict.fromkeys(task) if t not in known]
        if unknown:
            err.print(f"{suite}: error: no task {', '.join(f'`{t}`' for t in unknown)} in the "
                      "suite", markup=False)
            raise typer.Exit(EXIT_USAGE)
        wanted = set(task)
        lines = [(n, r) for n, r in lines if r.id in wanted]
    render, render_off = _can_render(pixels)
    if pixels and not render:
        err.print(f"error: --pixels: {render_off}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    options = AuditOptions(timeout_s=timeout, planner=planner.value if planner else None,
                           seed=seed, chance_bound=chance_bound, pixels=render,
                           pixels_off=render_off)
    folder = output.parent / f"{output.stem}.repro" if output is not None else None
    invocation = Invocation(suite=str(suite), scene=str(scene) if scene else None,
                            experience=str(experience) if experience else None, seed=seed,
                            chance_bound=chance_bound,
                            timeout_s=timeout, planner=options.planner, folder=folder)
    started = time.perf_counter()
    spec = SuiteSpec(str(suite), (str(scene),) if scene else (),
                     (str(experience),) if experience else ())
    with contextlib.ExitStack() as stack:
        store = result_cache(stack, suite, cache, no_cache, err)
        with progress_bar(err) as progress, _interrupts() as interrupted:
            bar = progress.add_task("auditing", total=None)

            def done(ident: str) -> None:
                if interrupted:  # a Ctrl-C that landed where Python ignores it (a `__del__`)
                    raise KeyboardInterrupt
                progress.update(bar, advance=1, description=f"audited {ident}")

            try:
                audits, run = audit_run(
                    spec, opened, lines, options, store, runner, jobs,
                    on_planned=lambda n, _reused: progress.update(bar, total=n),
                    on_task=done)
            except InputError as e:  # ReopenError, SceneLoadError, a worker's, the cluster's
                err.print(f"error: {e}", markup=False)
                raise typer.Exit(EXIT_USAGE) from None
            except KeyboardInterrupt:
                kept = "" if no_cache else f"; the tasks finished are kept in {store.root}: " \
                    "rerun to resume"
                err.print(f"interrupted: no report{kept}", markup=False, highlight=False)
                raise typer.Exit(EXIT_INTERRUPTED) from None
    repro = Reproducers(invocation, opened)
    report = build_report(str(suite), audits, seed, repro.commands,
                          str(folder) if folder is not None and any(
                              a.status == "disagree" for t in audits
                              for a in t.outcomes.values()) else None, chance_bound)
    text = _render(report, output_format, to_file=output is not None)
    if output is None:
        sys.stdout.write(text)
    else:
        with Outputs() as out:  # the report and its reproducers together, or none
            for path, data in repro.files(audits).items():
                out.write(path, data)
            out.write(output, text)
    _summary(report, time.perf_counter() - started, output)
    run_summary(run, err)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FINDINGS)


@contextlib.contextmanager
def _interrupts() -> Iterator[list[int]]:
    """Ctrl-C raises `KeyboardInterrupt` as usual, and is also remembered (the list is not
    empty once one came): one raised inside a finaliser is lost (Python prints it as
    ignored: not here, it is not lost to us), and a long run would go on."""
    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield seen  # signals are the main thread's; a background job ignores Ctrl-C
        return

    def handler(signum: int, frame: object) -> None:
        seen.append(signum)
        raise KeyboardInterrupt

    def unraisable(u: sys.UnraisableHookArgs) -> None:
        if not isinstance(u.exc_value, KeyboardInterrupt):
            hook(u)

    hook = sys.unraisablehook
    previous = signal.signal(signal.SIGINT, handler)
    sys.unraisablehook = unraisable
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = hook


def _render(report: AuditReport, output_format: ReportFormat, *, to_file: bool) -> str:
    if output_format is ReportFormat.json:
        return report.model_dump_json(indent=2) + "\n"
    if output_format is ReportFormat.junit:
        from fdc.evaluation.audit.report import junit_xml

        return junit_xml(report)
    import io

    terminal = not to_file and sys.stdout.isatty()
    buffer = io.StringIO()
    out = console(file=buffer, force_terminal=terminal,
                  width=None if terminal else TEXT_WIDTH, no_color=not terminal)
    _print_text(report, out)
    text = buffer.getvalue()
    return text if terminal else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _print_text(report: AuditReport, out: Console) -> None:
    from rich.text import Text

    from fdc.evaluation.audit.report import MatrixRow, cell_text

    def matrix(title: str, what: str, rows: list[MatrixRow]) -> None:
        shown = table(title)
        shown.add_column(what)
        shown.add_column("tasks", justify="right")
        for check in report.checks:
            shown.add_column(check, justify="right")
        for row in [*rows, report.total]:
            cells: list[str | Text] = []
            for check in report.checks:
                c = row.cells[check]
                text = cell_text(c)
                cells.append(Text(text, style="red") if c.disagree else text)
            shown.add_row(row.group, str(row.tasks), *cells,
                          end_section=row is rows[-1] if rows else False)
        print_table(out, shown)

    matrix("Agreement by category (agreed/applicable)", "category", report.by_category)
    matrix("Agreement by template (agreed/applicable)", "template", report.by_template)
    if not report.disagreements:
        out.print("Every check agrees on every task.")
        return
    out.print(f"Disagreements ({len(report.disagreements)}):")
    for d in report.disagreements:
        out.print(f"{report.suite}:{d.line}: task {d.task} [{d.check}]: {d.detail}",
                  markup=False, soft_wrap=True)
        for c in d.commands:
            out.print(f"  $ {c}", markup=False, soft_wrap=True)


def _summary(report: AuditReport, seconds: float, output: Path | None) -> None:
    text = (f"audited {report.tasks} task(s) in {seconds:.1f} s: {report.agreements} "
            f"agreement(s), {report.disagreeing} disagreement(s)")
    counts = {k: c.disagree for k, c in report.total.cells.items() if c.disagree}
    if counts:
        text += " (" + ", ".join(f"{k} {n}" for k, n in counts.items()) + ")"
    if output is not None:
        text += f"; report in {output}"
    stderr().print(text, markup=False)
