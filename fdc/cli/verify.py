"""`fdc verify`: judge a suite's goals on a recorded trajectory.

Exit codes: 0 every task succeeded, 1 some task failed, 2 usage or input error (a suite,
trajectory or scene that cannot be read, a trajectory that does not fit the scene: another
scene's sha256, objects, a held object or states the scene does not have; an unknown task
or threshold).
"""

from __future__ import annotations

import json
import math
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    OutputFormat,
    console,
    graph_or_exit,
    print_table,
    report_findings,
    report_suite,
    stderr,
    table,
)

if TYPE_CHECKING:
    from fdc.predicates.registry import Mode
    from fdc.predicates.verify import Verdict


class Relax(StrEnum):
    visibility = "visibility"
    distance = "distance"


def verify_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    trajectory: Annotated[
        Path, typer.Option("--trajectory", "-t", help="Recorded snapshots (JSONL).")
    ],
    task: Annotated[
        list[str] | None, typer.Option("--task", help="Only these task ids (repeatable).")
    ] = None,
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file (default: the one the trajectory's header names, "
                     "looked for from the trajectory's folder, the suite's, then the working "
                     "folder)."),
    ] = None,
    threshold: Annotated[
        list[str] | None,
        typer.Option(
            "--threshold", help="Override a checker threshold for every task: NAME=VALUE."
        ),
    ] = None,
    relax: Annotated[
        list[Relax] | None,
        typer.Option(help="Drop a check (FindingDory's DTG-SR: visibility; SC-SR: distance)."),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
) -> None:
    """Judge each task's goal on a recorded trajectory: success, and when each target counted
    (a PARTNR checklist: percent complete, and when each proposition was first satisfied)."""
    from fdc.core.limits import current, hint
    from fdc.predicates.registry import EvaluationError
    from fdc.predicates.verify import verify_snapshots
    from fdc.sim_bridge.world.trajectory import (
        TrajectoryError,
        read_trajectory,
        scene_problems,
    )

    err = stderr()
    most = current().verify_tasks
    if _count_lines(suite, most) > most:
        err.print(f"{suite}: error: more than {most:,} tasks, the limit `verify_tasks` of one "
                  "run; hint: split the suite (a trajectory is of one scene: one suite per "
                  "scene), or " + hint("verify_tasks"), markup=False)
        raise typer.Exit(EXIT_USAGE)
    opened, bad_suite = report_suite(suite, err)
    records = opened.records
    try:
        header, snapshots = read_trajectory(trajectory)
    except TrajectoryError as e:
        err.print(f"{trajectory}: error: {e}")
        raise typer.Exit(EXIT_USAGE) from None
    except OSError as e:
        err.print(f"{trajectory}: error: cannot read the trajectory: {e.strerror}")
        raise typer.Exit(EXIT_USAGE) from None
    if bad_suite:
        raise typer.Exit(EXIT_USAGE)
    if task:
        unknown = sorted(set(task) - {r.id for r in records})
        if unknown:
            err.print(f"error: no task {', '.join(unknown)} in {suite}")
            raise typer.Exit(EXIT_USAGE)
        records = [r for r in records if r.id in set(task)]
    overrides = _thresholds(threshold or [])
    graph = graph_or_exit(scene or _scene_of(trajectory, header.scene, suite))
    mismatches = scene_problems(graph, header, snapshots)
    if mismatches:  # a run of another scene, objects the scene does not have
        report_findings(mismatches, str(trajectory))
        raise typer.Exit(EXIT_USAGE)
    try:
        verdicts = verify_snapshots(
            {r.id: r.goal for r in records},
            graph,
            snapshots,
            thresholds={r.id: {**r.thresholds, **overrides} for r in records},
            mode=_mode(relax or []),
        )
    except KeyError as e:  # an unknown threshold name, with a suggestion
        err.print(f"error: {e.args[0]}")
        raise typer.Exit(EXIT_USAGE) from None
    except EvaluationError as e:  # an entity the scene does not have, a wrong arity
        err.print(f"{suite}: error: {e}; hint: is the trajectory's scene the one the task is "
                  "for?", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    failed = sum(not v.success for v in verdicts.values())
    if output_format is OutputFormat.json:
        report = {
            "suite": str(suite),
            "trajectory": str(trajectory),
            "tasks": [
                {
                    "id": task_id,
                    "success": v.success,
                    "end_step": v.end_step,
                    "reason": v.reason,
                    "percent_complete": v.percent_complete,
                    "targets": [
                        {"target": t.target, "step": t.step, "note": t.note, "counts": t.counts}
                        for t in v.records
                    ],
                }
                for task_id, v in verdicts.items()
            ],
            "succeeded": len(verdicts) - failed,
            "failed": failed,
        }
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        _print_verdicts(verdicts, failed)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _count_lines(path: Path, stop: int) -> int:
    """The lines of a regular file, counted a block at a time up to just past `stop`
    (0 for anything else: reading it reports the problem)."""
    if not path.is_file():
        return 0
    n = 0
    try:
        with path.open("rb") as f:
            while n <= stop and (block := f.read(1 << 20)):
                n += block.count(b"\n")
    except OSError:
        return 0
    return n


def _thresholds(items: list[str]) -> dict[str, float]:
    """`--threshold NAME=VALUE` settings; a threshold is a finite number >= 0 (a length,
    an angle, a duration), as in a domain's `:thresholds`."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not name.strip() or not math.isfinite(number) or number < 0:
            stderr().print(f"error: --threshold wants NAME=NUMBER with a finite number >= 0, "
                           f"not `{item}`", markup=False)
            raise typer.Exit(EXIT_USAGE)
        out[name.strip()] = number
    return out


def _mode(relax: list[Relax]) -> Mode:
    from fdc.predicates.registry import Mode

    mode = Mode.STRICT
    for r in relax:
        mode |= Mode.NO_VISIBILITY if r is Relax.visibility else Mode.NO_DISTANCE
    return mode


def _scene_of(trajectory: Path, named: str, suite: Path) -> Path:
    """The scene file the trajectory's header names: from the trajectory's folder, the
    suite's, then the working folder (`scene_places`); exit 2 listing every place looked
    at when none holds it."""
    import os

    from fdc.sim_bridge.world.trajectory import scene_places

    places = scene_places(trajectory, named, [suite.parent])
    for place in places:
        if place.is_file():
            return place
    looked = "".join(f"\n  {os.path.abspath(p)}" for p in places)
    stderr().print(f"{trajectory}: error: cannot find the scene file `{named}` its header "
                   f"names; looked at:{looked}\nhint: pass the scene with --scene PATH",
                   markup=False, soft_wrap=True)
    raise typer.Exit(EXIT_USAGE)


def _print_verdicts(verdicts: dict[str, Verdict], failed: int) -> None:
    from rich.text import Text

    shown = table("verification")
    for column in ("task", "result", "end step", "why", "targets (step)"):
        shown.add_column(column)
    for task_id, v in verdicts.items():
        targets = ", ".join(
            f"{t.target} ({'-' if t.step is None else t.step}"
            + ("" if t.counts is not False else ", does not count") + ")"
            for t in v.records
        )
        result = Text("success", style="green") if v.success else Text("failure", style="red")
        if v.percent_complete is not None:
            result += f" {100 * v.percent_complete:.1f}%"
        shown.add_row(task_id, result, str(v.end_step), v.reason, targets)
    print_table(console(), shown)
    stderr().print(f"{len(verdicts) - failed} succeeded, {failed} failed")
