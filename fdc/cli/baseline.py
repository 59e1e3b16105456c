"""`fdc run-baseline NAME suite.jsonl -o preds.jsonl`: a baseline agent's predictions.

Exit codes: 0 every task predicted, 1 the oracle failed some tasks (listed with the
reason), 2 usage or input error (a suite, scene or experience log that cannot be read).
See docs/cli.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    file_option,
    open_suite_or_exit,
    progress_bar,
    report_findings,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite, ReopenError
    from fdc.compiler.suite import TaskRecord


def run_baseline_command(
    name: Annotated[str, typer.Argument(help="The baseline: random or oracle.")],
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, file_option("--output", "-o", help="The predictions file.")],
    seed: Annotated[int, typer.Option(help="Seed of the random baseline.")] = 0,
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file (default: the one each task names, found from the "
                     "working folder or beside the suite)."),
    ] = None,
    experience: Annotated[
        Path | None,
        typer.Option(help="The experience log of the memory tasks (default: the manifest "
                     "beside the suite says which; a simulated one is simulated again)."),
    ] = None,
) -> None:
    """Predict every task of a suite with a baseline agent: frames for memory tasks (the
    oracle also walks to them, recorded beside the predictions), action traces for
    manipulation tasks."""

    from fdc.agents.baselines import BASELINES, SceneContext, run_baseline
    from fdc.compiler.reopen import ReopenError
    from fdc.core.files import Outputs
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    err = stderr()
    if name not in BASELINES:
        err.print(f"error: unknown baseline `{name}`; known: {', '.join(BASELINES)}")
        raise typer.Exit(EXIT_USAGE)
    opened = open_suite_or_exit(suite, err, scenes=[scene] if scene else [],
                                experiences=[experience] if experience else [])
    records = opened.records
    contexts: dict[str, SceneContext] = {}
    for r in records:  # everything first: input errors before any work
        try:
            contexts[r.id] = SceneContext.of(opened, r)
        except SceneLoadError as e:
            report_findings(e.findings, str(e.path))
            raise typer.Exit(EXIT_USAGE) from None
        except ReopenError as e:
            err.print(_input_error(e, r, opened, experience))
            raise typer.Exit(EXIT_USAGE) from None
    trajectories = output.parent / f"{output.stem}.trajectories" if name == "oracle" else None
    lines: list[str] = []
    failures: list[tuple[str, str]] = []
    # trajectories and predictions go in place together at the end, or not at all
    with Outputs() as out, progress_bar(err) as progress:
        bar = progress.add_task(f"{name} baseline", total=len(records))
        for result in run_baseline(name, records, lambda r: contexts[r.id], seed=seed,
                                   trajectories=trajectories, predictions_dir=output.parent,
                                   outputs=out):
            lines.append(json.dumps(result.prediction.model_dump(mode="json", exclude_none=True),
                                    sort_keys=True) + "\n")
            if result.failure:
                failures.append((result.prediction.task_id, result.failure))
            progress.update(bar, advance=1)
        out.write(output, "".join(lines))
    for task_id, why in failures:
        err.print(f"{task_id}: not solved: {why}", markup=False)
    err.print(f"wrote {len(lines)} prediction(s) to {output}"
              + (f"; {len(failures)} task(s) not solved" if failures else ""))
    raise typer.Exit(EXIT_FINDINGS if failures else EXIT_OK)


def _input_error(e: ReopenError, task: TaskRecord, suite: ReopenedSuite,
                 experience: Path | None) -> str:
    """What a task's missing input is, and the option that gives it."""
    named = task.scene or ""
    found, want = e.details.get("found", ""), task.experience or ""
    if e.code == "no-scene":
        return f"{suite.path}: error: a task names no scene; hint: pass --scene"
    if e.code == "scene-not-found":
        return (f"{suite.path}: error: scene `{named}` not found from the working folder or "
                "beside the suite; hint: pass --scene")
    from_manifest = ("manifest", "not-in-manifest", "experience-changed", "simulation-differs")
    if experience is not None and e.code in from_manifest:
        given = next(iter(suite.given_experiences()), "")
        return (f"{experience}: error: this log (sha256 {given[:12]}) is not the one the "
                f"suite's memory tasks are about ({want[:12]})")
    if e.code == "manifest" or (e.code == "not-in-manifest" and not e.details["manifest"]):
        return (f"error: no readable manifest beside {suite.path} to find the experience of its "
                "memory tasks; hint: pass --experience")
    if e.code == "not-in-manifest" and not found:
        return (f"error: the manifest beside {suite.path} names no experience for scene "
                f"`{named}`; hint: pass --experience")
    if e.code in ("not-in-manifest", "experience-changed", "simulation-differs"):
        return (f"error: the experience of `{named}` (sha256 {found[:12]}) is not the one "
                f"the suite's memory tasks are about ({want[:12]}); hint: pass --experience")
    hint = "; hint: pass --experience" if "manifest" in e.details else ""
    return f"error: {e}{hint}"
