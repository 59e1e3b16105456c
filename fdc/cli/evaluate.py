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
See docs/cli.md.
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
    print_table,
    progress_bar,
    report_findings,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite, ReopenError
    from fdc.evaluation.report import Evaluation, EvaluationReport, Finding


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
        list[Path], typer.Option("--predictions", "-p", help="The predictions (JSONL, one "
                                 "task a line); repeatable: each file scored, the plots "
                                 "side by side.")
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

    from fdc.core.files import Outputs
    from fdc.core.hashing import sha256_text
    from fdc.core.inputs import InputFileError, InputKind, read_input_bytes
    from fdc.evaluation.report import tables

    err = stderr()
    if len(predictions) > 1 and (output is not None or feedback is not None):
        raise _fail("error: --output and --feedback take one --predictions file (a report "
                    "is about one); hint: run `fdc evaluate` once per file for reports, "
                    "or leave them out to compare the files' tables and --plots")
    opened = open_suite_or_exit(suite, err, scenes=scene or [], experiences=history or [])
    try:
        suite_sha = sha256_text(read_input_bytes(suite, InputKind.SUITE))
    except InputFileError as e:
        raise _fail(f"{suite}: error: cannot read the suite: {e}") from None
    note = opened.read_manifest_leniently()
    if note is not None:
        err.print(f"{opened.manifest_path}: warning: {note}", markup=False)
    evaluations = [_score(opened, suite_sha, path) for path in predictions]
    out = console()
    for path, evaluation in zip(predictions, evaluations, strict=True):
        if len(predictions) > 1:
            out.print(f"predictions: {path}", markup=False, soft_wrap=True)
        for table in tables(evaluation.report):
            print_table(out, table)
        _print_findings(evaluation.report, path, output)
    with Outputs() as files:  # the report, plots and feedback together, or none
        if output is not None:
            files.write(output, evaluations[0].report.model_dump_json(indent=2) + "\n")
        if plots is not None:
            from fdc.evaluation.plots import plot_reports

            names = _run_names(predictions)
            for name, data in plot_reports([(n, e.report) for n, e in zip(
                    names, evaluations, strict=True)]).items():
                files.write(plots / name, data)
        if feedback is not None:
            files.write(feedback, "".join(r.model_dump_json() + "\n"
                                          for r in evaluations[0].feedback))
    for path, evaluation in zip(predictions, evaluations, strict=True):
        report = evaluation.report
        err.print(("" if len(predictions) == 1 else f"{path}: ") +
                  f"scored {report.tasks} task(s), {report.predicted} predicted: "
                  f"{report.errors} error(s), {report.warnings} warning(s)")
    failed = any(e.report.errors for e in evaluations)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _run_names(paths: list[Path]) -> list[str]:
    """Each predictions file's name in the plots: its file name, its path where two
    files share a name."""
    names = [p.name for p in paths]
    return [n if names.count(n) == 1 else str(p) for n, p in zip(names, paths, strict=True)]


def _score(opened: ReopenedSuite, suite_sha: str, path: Path) -> Evaluation:
    """One predictions file scored on the suite, or exit 2 on bad input."""
    from fdc.compiler.reopen import ReopenError
    from fdc.core.inputs import InputFileError
    from fdc.evaluation.score import read_predictions_file, score_predictions
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    try:
        run = read_predictions_file(path)
    except InputFileError as e:
        raise _fail(f"{path}: error: cannot read the predictions: {e}") from None
    with progress_bar(stderr()) as progress:
        bar = progress.add_task("scoring", total=len(opened.records))
        try:
            return score_predictions(
                opened, suite_sha, run,
                on_task=lambda t: progress.update(bar, advance=1,
                                                  description=f"scoring {t.id}"))
        except SceneLoadError as e:
            report_findings(e.findings, str(e.path))
            raise typer.Exit(EXIT_USAGE) from None
        except ReopenError as e:
            raise _fail(_input_error(e)) from None


def _print_findings(report: EvaluationReport, predictions: Path, output: Path | None) -> None:
    """At most `_SHOWN_PER_CODE` findings of each code, then how many more."""
    shown: dict[str, int] = {}
    for f in report.findings:
        shown[f.code] = shown.get(f.code, 0) + 1
        if shown[f.code] <= _SHOWN_PER_CODE:
            _print_finding(f, predictions)
    for code, n in shown.items():
        if n > _SHOWN_PER_CODE:
            stderr().print(f"... {n - _SHOWN_PER_CODE} more `{code}` finding(s)"
                           + ("; the report (-o) lists them all" if output is None else
                              f"; {output} lists them all"), markup=False)
