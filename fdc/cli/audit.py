"""`fdc audit`: every task of a suite judged by every model fdc has; where they disagree.

Exit codes: 0 every check agrees, 1 some disagreement (each listed with its reproducer
commands), 2 usage or input error (the suite, a scene, an experience log, a template or
the manifest cannot be read; an unknown `--task`), 130 interrupted (no report written).
"""

from __future__ import annotations

import contextlib
import itertools
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
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
from fdc.core.files import Outputs
from fdc.evaluation.audit import DEFAULT_CHANCE_BOUND

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite_runs import Line, Lines
    from fdc.core.problems import Diagnostic
    from fdc.evaluation.audit.report import AuditReport, AuditStream

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
    from fdc.evaluation.audit.checks import AuditOptions, TaskAudit
    from fdc.evaluation.audit.report import AuditStream
    from fdc.evaluation.audit.reproducers import Invocation, Reproducers
    from fdc.evaluation.audit.workers import audit_checks, audits

    err = stderr()
    runner = run_executor(executor, scheduler, jobs)
    input_or_exit(suite, "the suite", err)
    for given, what in ((scene, "the scene file"), (experience, "the experience log")):
        if given is not None:
            input_or_exit(given, what, err)
    opened, lines = _open_streamed(suite, err, scene, experience, task)
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
                run = audit_checks(
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
        try:  # the report read back from the cache (a temporary one too: still here)
            with Outputs() as out:  # the report and its reproducers together, or none

                def reproduce(audit: TaskAudit) -> None:  # a task's files, as it is read
                    for path, data in repro.task_files(audit).items():
                        out.write(path, data)

                report = AuditStream(
                    str(suite), lambda: audits(run), seed, repro.commands,
                    lambda disagree: str(folder) if folder is not None and disagree else None,
                    chance_bound, on_task=None if output is None else reproduce)
                _write(report, output_format, output, out)
        except InputError as e:  # an entry that left the cache meanwhile
            err.print(f"error: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    _summary(report.header, time.perf_counter() - started, output)
    run_summary(run, err)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FINDINGS)


def _open_streamed(suite: Path, err: Console, scene: Path | None, experience: Path | None,
                   task: list[str] | None) -> tuple[ReopenedSuite, Lines]:
    """The suite's inputs without its records, and its records (those of `task` when
    given) read from the file again at each call: a first reading here reports its bad
    lines and unknown `--task` ids (exit 2) and finds its memory scenes; the suite is
    never held whole."""
    from fdc.compiler.reopen import ReopenError, reopen_inputs
    from fdc.compiler.suite_runs import suite_records
    from fdc.core.problems import render_line

    scenes = [scene] if scene else []
    experiences = [experience] if experience else []
    wanted = set(task or ())
    known: set[str] = set()
    problems: list[Diagnostic] = []
    probe = reopen_inputs(suite, (), scenes=scenes, experiences=experiences)
    memory: set[Path] = set()
    try:
        for _, r in suite_records(suite, problems):
            if r.id in wanted:
                known.add(r.id)
            if r.experience is not None and (r.scene or len(scenes) == 1):
                memory.add(probe.scene_path(r))
    except ReopenError as e:
        err.print(f"{e.file}: error: {e.message}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    for p in problems:
        err.print(f"{suite}: error: {render_line(p)}", markup=False)
    if problems:
        raise typer.Exit(EXIT_USAGE)
    if task:
        unknown = [t for t in dict.fromkeys(task) if t not in known]
        if unknown:
            err.print(f"{suite}: error: no task {', '.join(f'`{t}`' for t in unknown)} in the "
                      "suite", markup=False)
            raise typer.Exit(EXIT_USAGE)
    opened = reopen_inputs(suite, sorted(memory), scenes=scenes, experiences=experiences)

    def lines() -> Iterator[Line]:
        for n, r in suite_records(suite):
            if not wanted or r.id in wanted:
                yield n, r

    return opened, lines


def _write(report: AuditStream, output_format: ReportFormat, output: Path | None,
           out: Outputs) -> None:
    """The report on stdout or staged for `output`, a task at a time for JSON and JUnit
    (the text report is the header's: the matrix and the disagreements)."""
    if output_format is ReportFormat.json:
        chunks: Iterable[str] = itertools.chain(report.json_chunks(), ["\n"])
    elif output_format is ReportFormat.junit:
        chunks = report.junit_chunks()
    else:
        chunks = [_render(report.header, output_format, to_file=output is not None)]
    if output is None:
        for chunk in chunks:
            sys.stdout.write(chunk)
    else:
        out.write_lines(output, chunks)


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
