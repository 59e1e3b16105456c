"""`fdc browse`: write a static site to read a suite in a web browser (`fdc.browse`).

Exit codes: 0 written, 2 bad input (a suite, report or predictions file that cannot be
read or is not one, a scene or log a prediction needs that cannot be found) or an output
folder that cannot be written. See docs/cli.md."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    folder_option,
    input_or_exit,
    open_suite_or_exit,
    progress_bar,
    report_findings,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite


def browse_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, folder_option("--output", "-o", help="The folder to write the "
                                          "site into (open its index.html).")],
    audit: Annotated[Path | None, typer.Option(
        "--audit", help="An audit report (`fdc audit --format json -o REPORT`): each "
        "task's checks and a filter by agreement.")] = None,
    validation: Annotated[Path | None, typer.Option(
        "--validation", help="A validation report (`fdc validate --solve --format json`): "
        "each task's findings and the planner's plan.")] = None,
    predictions: Annotated[list[Path] | None, typer.Option(
        "--predictions", "-p", help="A predictions file, scored as `fdc evaluate` scores "
        "it (repeatable: one outcome filter and one section per agent).")] = None,
    scene: Annotated[list[Path] | None, typer.Option(
        "--scene", help="A scene file (repeatable; default: the ones the suite names).")] = None,
    history: Annotated[list[Path] | None, typer.Option(
        "--history", help="An experience log memory tasks are about (repeatable; default: "
        "found through the manifest beside the suite).")] = None,
    frames: Annotated[Path | None, typer.Option(
        "--frames", help="A folder `fdc render suite` wrote: the experience strip with "
        "thumbnails (chosen and valid frames marked), each task's valid frames and "
        "first view.")] = None,
) -> None:
    """Write a static site to browse a suite: a table of tasks with search, filters and
    counts; each task's instructions, goal, bindings, map (targets and distractors
    highlighted), experience timeline, plan and agents' outcomes; the manifest's drops.
    Open OUTPUT/index.html from disk: no server is needed."""
    from fdc.core.jsonl import gc_kept

    err = stderr()
    for path, what in [(audit, "the audit report"), (validation, "the validation report"),
                       *((p, "the predictions") for p in predictions or [])]:
        if path is not None:
            input_or_exit(path, what, err)
    started = time.perf_counter()
    with gc_kept() as keep:  # the records stay to the end: collections need not walk them
        opened = open_suite_or_exit(suite, err, scenes=scene or [],
                                    experiences=history or [], keep_text=True)
        keep()
        _write(opened, output, suite, audit, validation, predictions or [], started, frames)


def _write(opened: ReopenedSuite, output: Path, suite: Path, audit: Path | None,
           validation: Path | None, predictions: list[Path], started: float,
           frames: Path | None = None) -> None:
    """Gather the maps, timelines, reports and runs, and write the site."""
    from fdc.browse import gather, read_report, score_runs, write_site
    from fdc.compiler.reopen import ReopenError
    from fdc.compiler.validate import ValidationReport
    from fdc.evaluation.audit.report import AuditReport
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    err = stderr()
    try:
        extras = gather(opened, lambda m: err.print(f"warning: {m}", markup=False))
        if audit is not None:
            extras.audit = read_report(audit, AuditReport, "an fdc audit report",
                                       "fdc audit SUITE --format json -o REPORT")
        if validation is not None:
            extras.validation = read_report(
                validation, ValidationReport, "an fdc validation report",
                "fdc validate SUITE --solve --format json > REPORT")
        extras.runs = score_runs(opened, predictions)
        if frames is not None:
            from fdc.browse.frames import gather_thumbs

            thumbs = gather_thumbs(opened, frames,
                                   lambda m: err.print(f"warning: {m}", markup=False))
            extras.strips, extras.views, extras.thumbs = \
                thumbs.strips, thumbs.views, thumbs.sources
    except SceneLoadError as e:
        report_findings(e.findings, str(e.path))
        raise typer.Exit(EXIT_USAGE) from None
    except ReopenError as e:
        err.print(f"error: {e}; hint: give it with --scene or --history", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    with progress_bar(err) as progress:
        bar = progress.add_task("writing", total=len(opened.records))
        thumbs = progress.add_task("thumbnails", total=len(extras.thumbs)) \
            if extras.thumbs else None
        site = write_site(opened, extras, output, suite.name,
                          on_chunk=lambda _: progress.update(bar, advance=500),
                          on_thumb=None if thumbs is None else
                          lambda k, _: progress.update(thumbs, completed=k))
    err.print(f"wrote {site.files} file(s) for {site.tasks} task(s) into {output} in "
              f"{time.perf_counter() - started:.1f} s; open {output / 'index.html'}",
              markup=False)
    raise typer.Exit(EXIT_OK)
