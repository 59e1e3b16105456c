"""`fdc verify`: judge a suite's goals on a recorded trajectory.

Exit codes: 0 every task succeeded, 1 some task failed, 2 usage or input error (a suite,
trajectory or scene that cannot be read, a trajectory that does not fit the scene: another
scene's sha256, objects, a held object or states the scene does not have; an unknown task
or threshold).

The suite is streamed: read a line at a time, each task judged as it is read and its
verdict spooled to a temporary file until the report is written, so memory does not grow
with the suite (a suite of 200,000 tasks is judged in the memory of one).
See docs/cli.md.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Protocol

import typer
from rich.console import Console

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    OutputFormat,
    SpooledTable,
    console,
    graph_or_exit,
    report_findings,
    stderr,
)

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.core.jsonl import JsonlLine
    from fdc.predicates.goal import Goal
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
    from fdc.compiler.suite import stream_suite
    from fdc.core.inputs import InputFileError
    from fdc.predicates.registry import EvaluationError
    from fdc.predicates.verify import verify_each
    from fdc.sim_bridge.world.trajectory import (
        TrajectoryError,
        read_trajectory,
        scene_problems,
    )

    err = stderr()
    overrides = _thresholds(threshold or [])
    try:
        lines = stream_suite(suite)
    except InputFileError as e:
        err.print(f"{suite}: error: cannot read the suite: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    # The suite is read a line at a time, each task judged as it comes and its verdict
    # spooled to a temporary file: memory holds one task, whatever the suite's size.
    stream = _Stream(suite, lines, err, set(task) if task else None)
    try:
        header, snapshots = read_trajectory(trajectory)
    except (TrajectoryError, OSError) as e:
        stream.drain()  # the suite's bad lines are reported first, as they always were
        why = e if isinstance(e, TrajectoryError) else f"cannot read the trajectory: {e.strerror}"
        err.print(f"{trajectory}: error: {why}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    graph = graph_or_exit(scene or _scene_of(trajectory, header.scene, suite))
    mismatches = scene_problems(graph, header, snapshots)
    if mismatches:  # a run of another scene, objects the scene does not have
        report_findings(mismatches, str(trajectory))
        raise typer.Exit(EXIT_USAGE)
    report: _Report = (_JsonReport(suite, trajectory) if output_format is OutputFormat.json
                       else _TextReport())
    try:
        for task_id, verdict in verify_each(stream.tasks(overrides), graph, snapshots,
                                            mode=_mode(relax or [])):
            report.add(task_id, verdict)
    except KeyError as e:  # an unknown threshold name, with a suggestion
        err.print(f"error: {e.args[0]}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except EvaluationError as e:  # an entity the scene does not have, a wrong arity
        err.print(f"{suite}: error: {e}; hint: is the trajectory's scene the one the task is "
                  "for?", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    if stream.bad:
        raise typer.Exit(EXIT_USAGE)
    unknown = sorted((stream.wanted or set()) - stream.found)
    if unknown:
        err.print(f"error: no task {', '.join(unknown)} in {suite}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    report.finish()
    raise typer.Exit(EXIT_FINDINGS if report.failed else EXIT_OK)


class _Stream:
    """The suite's lines read one at a time: the tasks to judge (those `wanted`, or
    all), every bad line reported as it comes (after one, nothing more is judged, but
    every line is still read, so that all of them are reported); `InputFileError` from
    the reading (bytes that are not UTF-8) is reported and exits 2."""

    def __init__(self, suite: Path, lines: Iterator[JsonlLine[TaskRecord]], err: Console,
                 wanted: set[str] | None) -> None:
        self.suite = suite
        self.lines = lines
        self.err = err
        self.wanted = wanted
        self.found: set[str] = set()
        self.bad = False

    def tasks(self, overrides: Mapping[str, float]
              ) -> Iterator[tuple[str, Goal, Mapping[str, float]]]:
        for record in self._records():
            if self.bad or (self.wanted is not None and record.id not in self.wanted):
                continue
            if self.wanted is not None:
                self.found.add(record.id)
            yield record.id, record.goal, {**record.thresholds, **overrides}

    def drain(self) -> None:
        for _ in self._records():
            pass

    def _records(self) -> Iterator[TaskRecord]:
        from fdc.core.inputs import InputFileError
        from fdc.core.problems import render_line

        try:
            for got in self.lines:
                if got.value is None:
                    for p in got.problems:
                        self.err.print(f"{self.suite}: error: {render_line(p)}", markup=False)
                    self.bad = True
                else:
                    yield got.value
        except InputFileError as e:
            self.err.print(f"{self.suite}: error: cannot read the suite: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None


class _Report(Protocol):
    failed: int

    def add(self, task_id: str, verdict: Verdict) -> None: ...

    def finish(self) -> None: ...


class _JsonReport:
    """The JSON report (`json.dumps(report, indent=2)`'s bytes), its tasks spooled to a
    temporary file as they are judged and written out when all are: a run that ends in
    an error writes nothing."""

    def __init__(self, suite: Path, trajectory: Path) -> None:
        import tempfile

        self.head = (f'{{\n  "suite": {json.dumps(str(suite))},\n'
                     f'  "trajectory": {json.dumps(str(trajectory))},\n  "tasks": [')
        # closed by `finish`; an unnamed file, gone with the process after an error
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self.tasks = 0
        self.failed = 0

    def add(self, task_id: str, v: Verdict) -> None:
        entry = {
            "id": task_id,
            "success": v.success,
            "end_step": v.end_step,
            "reason": v.reason,
            "percent_complete": v.percent_complete,
            "targets": [{"target": t.target, "step": t.step, "note": t.note, "counts": t.counts}
                        for t in v.records],
        }
        text = json.dumps(entry, indent=2).replace("\n", "\n    ")
        self.spool.write(("," if self.tasks else "") + "\n    " + text)
        self.tasks += 1
        self.failed += not v.success

    def finish(self) -> None:
        import shutil

        out = sys.stdout
        out.write(self.head)
        with self.spool as spool:
            spool.seek(0)
            shutil.copyfileobj(spool, out)
        out.write(("\n  ]" if self.tasks else "]") + f',\n  "succeeded": '
                  f'{self.tasks - self.failed},\n  "failed": {self.failed}\n}}\n')
        out.flush()


class _TextReport:
    """The verdicts as a table (`SpooledTable`), then a count on standard error."""

    def __init__(self) -> None:
        self.shown = SpooledTable("verification",
                                  ("task", "result", "end step", "why", "targets (step)"))
        self.failed = 0

    def add(self, task_id: str, v: Verdict) -> None:
        from rich.text import Text

        targets = ", ".join(
            f"{t.target} ({'-' if t.step is None else t.step}"
            + ("" if t.counts is not False else ", does not count") + ")"
            for t in v.records
        )
        result = Text("success", style="green") if v.success else Text("failure", style="red")
        if v.percent_complete is not None:
            result += f" {100 * v.percent_complete:.1f}%"
        self.shown.add_row(task_id, result, str(v.end_step), v.reason, targets)
        self.failed += not v.success

    def finish(self) -> None:
        self.shown.print(console())
        stderr().print(f"{self.shown.rows - self.failed} succeeded, {self.failed} failed")


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
