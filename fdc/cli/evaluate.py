"""`fdc evaluate`: score predictions on a task suite (FindingDory's memory metrics,
ManiTaskGen's success rate and points), with a JSON report, tables, plots and feedback.

What scoring needs is found as `fdc.compiler.reopen` finds a suite's inputs: a task's
scene is the one given with `--scene` (several are matched to the suite's scenes by
their sha256 in the manifest beside the suite, else by file name), else the file its
record names; a memory task's experience log is the `--history` log with the record's
sha256, else the one the manifest names (its log file, or its simulation run again),
checked against the hash. A manifest that is not one, or describes another suite, is
ignored with a warning.

Exit codes: 0 ok, 1 some prediction was malformed (every problem located; the rest is
scored), 2 bad input (a suite, predictions file, scene or log that cannot be read or
found, or that does not match the suite).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    console,
    file_option,
    folder_option,
    open_suite_or_exit,
    progress_bar,
    report_findings,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenError
    from fdc.evaluation.report import Finding


#: Findings of one kind printed on the terminal before the rest are counted.
_SHOWN_PER_CODE = 5

#: What to do about an input that cannot be found, by `ReopenError` code.
_HINTS = {
    "no-scene": "give it with --scene",
    "scene-not-found": "give it with --scene",
    "not-in-manifest": "give the log with --history",
    "experience-changed": "give the log with --history",
    "simulation": "give the log with --history",
    "simulation-differs": "give the log with --history",
}


def _fail(message: str) -> typer.Exit:
    stderr().print(message, markup=False)
    return typer.Exit(EXIT_USAGE)


def _input_error(e: ReopenError) -> str:
    if e.code == "no-scene-match":
        return (f"error: no --scene matches the suite's scene `{e.details['scene']}` "
                f"({e.details['how']})")
    hint = _HINTS.get(e.code)
    return (f"{e.file}: error: " if e.file else "error: ") + e.message + \
        (f"; {hint}" if hint else "")


def _print_finding(f: Finding, predictions: Path) -> None:
    where = f"{predictions}:{f.line}" if f.line is not None else str(predictions)
    path = f" at {f.where}" if f.where else ""
    task = f" (task {f.task_id})" if f.task_id else ""
    err = stderr()
    err.print(f"{where}{path}: {f.severity}[{f.code}]: {f.message}{task}", markup=False)
    if f.hint:
        err.print(f"  = hint: {f.hint}", markup=False)


def evaluate_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    predictions: Annotated[
        Path, typer.Option("--predictions", "-p", help="The predictions (JSONL, one task a line).")
    ],
    history: Annotated[
        list[Path] | None,
        typer.Option("--history", help="An experience log memory tasks are about "
                     "(repeatable; default: found through the manifest beside the suite)."),
    ] = None,
    scene: Annotated[
        list[Path] | None,
        typer.Option("--scene", help="A scene file (repeatable; default: the ones the "
                     "suite names)."),
    ] = None,
    output: Annotated[
        Path | None, file_option("--output", "-o", help="Write the JSON report here.")
    ] = None,
    plots: Annotated[
        Path | None, folder_option("--plots", help="Write PNG bar charts into this folder.")
    ] = None,
    feedback: Annotated[
        Path | None,
        file_option("--feedback", help="Write each manipulation task's stage and reflection "
                     "note here (JSONL)."),
    ] = None,
) -> None:
    """Score predictions on a suite: HL-SR, HL-SPL, DTG-SR, SC-SR (and LL-SR, LL-SPL with
    trajectories) for memory tasks, success rate and points for manipulation tasks (and
    memory-manipulation tasks, acted out from the world after the experience)."""

    from fdc.compiler.reopen import ReopenError
    from fdc.core.files import Outputs
    from fdc.core.hashing import sha256_text
    from fdc.core.inputs import InputFileError, InputKind, read_input_bytes
    from fdc.evaluation.report import tables
    from fdc.evaluation.score import read_predictions_file, score_predictions
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    err = stderr()
    opened = open_suite_or_exit(suite, err, scenes=scene or [], experiences=history or [])
    try:
        suite_bytes = read_input_bytes(suite, InputKind.SUITE)
    except InputFileError as e:
        raise _fail(f"{suite}: error: cannot read the suite: {e}") from None
    try:
        run = read_predictions_file(predictions)
    except InputFileError as e:
        raise _fail(f"{predictions}: error: cannot read the predictions: {e}") from None
    note = opened.read_manifest_leniently()
    if note is not None:
        err.print(f"{opened.manifest_path}: warning: {note}", markup=False)
    with progress_bar(err) as progress:
        bar = progress.add_task("scoring", total=len(opened.records))
        try:
            evaluation = score_predictions(
                opened, sha256_text(suite_bytes), run,
                on_task=lambda t: progress.update(bar, advance=1,
                                                  description=f"scoring {t.id}"))
        except SceneLoadError as e:
            report_findings(e.findings, str(e.path))
            raise typer.Exit(EXIT_USAGE) from None
        except ReopenError as e:
            raise _fail(_input_error(e)) from None
    report = evaluation.report
    out = console()
    for table in tables(report):
        out.print(table)
    shown: dict[str, int] = {}
    for f in report.findings:
        shown[f.code] = shown.get(f.code, 0) + 1
        if shown[f.code] <= _SHOWN_PER_CODE:
            _print_finding(f, predictions)
    for code, n in shown.items():
        if n > _SHOWN_PER_CODE:
            err.print(f"... {n - _SHOWN_PER_CODE} more `{code}` finding(s)"
                      + ("; the report (-o) lists them all" if output is None else
                         f"; {output} lists them all"), markup=False)
    with Outputs() as out:  # the report, plots and feedback together, or none
        if output is not None:
            out.write(output, report.model_dump_json(indent=2) + "\n")
        if plots is not None:
            from fdc.evaluation.plots import plot_reports

            for name, data in plot_reports(report).items():
                out.write(plots / name, data)
        if feedback is not None:
            out.write(feedback, "".join(r.model_dump_json() + "\n"
                                        for r in evaluation.feedback))
    err.print(f"scored {report.tasks} task(s), {report.predicted} predicted: "
              f"{report.errors} error(s), {report.warnings} warning(s)")
    raise typer.Exit(EXIT_FINDINGS if report.errors else EXIT_OK)
