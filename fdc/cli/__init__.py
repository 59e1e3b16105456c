"""The `fdc` command line: a thin layer over the library.

Exit codes everywhere: 0 ok, 1 findings, 2 usage or input error.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, report_suite, stderr
from fdc.schemas import MODELS

if TYPE_CHECKING:
    from fdc.predicates.registry import Mode
    from fdc.predicates.verify import Verdict

app = typer.Typer(
    name="fdc",
    help="Compile PDDL task templates into verifiable task suites for embodied agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _register_subcommands() -> None:
    from fdc.cli.baseline import run_baseline_command
    from fdc.cli.compile import compile_command, explain_command
    from fdc.cli.evaluate import evaluate_command
    from fdc.cli.experience import experience_app
    from fdc.cli.export import export_app
    from fdc.cli.export_habitat import export_habitat_command
    from fdc.cli.partnr import export_partnr, import_partnr
    from fdc.cli.scene import import_app, scene_app
    from fdc.cli.validate import export_pddl_command, validate_command

    app.add_typer(scene_app, name="scene")
    app.add_typer(import_app, name="import")
    app.add_typer(experience_app, name="experience")
    export_app.command("habitat")(export_habitat_command)
    export_app.command("partnr")(export_partnr)
    export_app.command("pddl")(export_pddl_command)
    import_app.command("partnr")(import_partnr)
    app.add_typer(export_app, name="export")
    app.command("validate")(validate_command)
    app.command("compile")(compile_command)
    app.command("explain")(explain_command)
    app.command("evaluate")(evaluate_command)
    app.command("run-baseline")(run_baseline_command)


_register_subcommands()


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to check.")],
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
    no_builtin: Annotated[
        bool, typer.Option("--no-builtin", help="Do not load fdc's built-in domains.")
    ] = False,
) -> None:
    """Parse and type-check domains, problems and templates; report every problem."""
    from fdc.compiler.check import check_paths
    from fdc.compiler.diagnostics import CheckReport
    from fdc.core.problems import count, render_text, to_record

    result = check_paths([str(p) for p in paths], builtin=not no_builtin)
    errors, warnings = count(result.diagnostics)
    if output_format is OutputFormat.json:
        report = CheckReport(
            files=len(result.sources),
            definitions=result.definition_count,
            errors=errors,
            warnings=warnings,
            diagnostics=[to_record(d, result.sources) for d in result.diagnostics],
        )
        sys.stdout.write(report.model_dump_json(indent=2, exclude_none=True) + "\n")
    else:
        for d in result.diagnostics:
            sys.stdout.write(render_text(d, result.sources) + "\n")
        summary = (
            f"checked {len(result.sources)} file(s), {result.definition_count} definition(s): "
            f"{errors} error(s), {warnings} warning(s)"
        )
        stderr().print(summary)
    if result.usage_error:
        raise typer.Exit(EXIT_USAGE)
    if errors or (strict and warnings):
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)


@app.command()
def fmt(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to format.")],
    check_only: Annotated[
        bool, typer.Option("--check", help="Exit 1 if a file is not in canonical form.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", "-w", help="Rewrite files in place.")] = False,
) -> None:
    """Print each file in canonical form (or rewrite it, or just check it)."""
    from fdc.compiler.check import expand_paths, missing_message
    from fdc.compiler.parse import parse_source
    from fdc.compiler.printer import print_unit
    from fdc.core.files import write_atomic
    from fdc.core.problems import SourceFile, render_text

    files, missing = expand_paths([str(p) for p in paths])
    for m in missing:
        stderr().print(f"{m}: error[P001]: {missing_message(m)}")
    if missing:
        raise typer.Exit(EXIT_USAGE)
    status = EXIT_OK
    for path in files:
        try:
            source = SourceFile.read(path)
        except OSError as e:
            stderr().print(f"{path}: error[P001]: cannot read the file: {e.strerror}")
            status = EXIT_USAGE
            continue
        result = parse_source(source)
        if result.unit is None or result.diagnostics:
            for d in result.diagnostics:
                sys.stderr.write(render_text(d, {path: source}) + "\n")
            status = EXIT_USAGE
            continue
        try:
            text = print_unit(result.unit, comments_from=source.text)
        except RecursionError:
            stderr().print(f"{path}: error[P005]: the file nests too deeply to format")
            status = EXIT_USAGE
            continue
        if check_only:
            if text != source.text:
                sys.stdout.write(f"{path}: not in canonical form\n")
                status = max(status, EXIT_FINDINGS)
        elif write:
            if text != source.text:
                write_atomic(Path(path), text)
        else:
            sys.stdout.write(text)
    raise typer.Exit(status)


@app.command()
def verify(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    trajectory: Annotated[
        Path, typer.Option("--trajectory", "-t", help="Recorded snapshots (JSONL).")
    ],
    task: Annotated[
        list[str] | None, typer.Option("--task", help="Only these task ids (repeatable).")
    ] = None,
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file (default: the one the trajectory names)."),
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
    from fdc.predicates.registry import EvaluationError
    from fdc.predicates.verify import verify_snapshots
    from fdc.sim_bridge.world.trajectory import TrajectoryError, read_trajectory

    err = stderr()
    records, bad_suite = report_suite(suite, err)
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
    scene_path = scene or _scene_of(trajectory, header.scene)
    from fdc.cli.scene import _load_graph

    graph = _load_graph(scene_path)
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


class Relax(StrEnum):
    visibility = "visibility"
    distance = "distance"


def _thresholds(items: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not name or number != number:
            stderr().print(f"error: --threshold wants NAME=NUMBER, not `{item}`")
            raise typer.Exit(EXIT_USAGE)
        out[name.strip()] = number
    return out


def _mode(relax: list[Relax]) -> Mode:
    from fdc.predicates.registry import Mode

    mode = Mode.STRICT
    for r in relax:
        mode |= Mode.NO_VISIBILITY if r is Relax.visibility else Mode.NO_DISTANCE
    return mode


def _scene_of(trajectory: Path, named: str) -> Path:
    """A trajectory names its scene relative to itself, or to the working folder."""
    beside = trajectory.parent / named
    return beside if beside.exists() else Path(named)


def _print_verdicts(verdicts: dict[str, Verdict], failed: int) -> None:
    from rich.table import Table

    table = Table(title="verification", show_lines=False)
    for column in ("task", "result", "end step", "why", "targets (step)"):
        table.add_column(column)
    for task_id, v in verdicts.items():
        targets = ", ".join(
            f"{t.target} ({'-' if t.step is None else t.step}"
            + ("" if t.counts is not False else ", does not count") + ")"
            for t in v.records
        )
        result = "[green]success[/]" if v.success else "[red]failure[/]"
        if v.percent_complete is not None:
            result += f" {100 * v.percent_complete:.1f}%"
        table.add_row(task_id, result, str(v.end_step), v.reason, targets)
    Console(highlight=False).print(table)
    stderr().print(f"{len(verdicts) - failed} succeeded, {failed} failed")


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help="The format: " + ", ".join(sorted(MODELS)))],
) -> None:
    """Print the JSON Schema of one of fdc's public formats."""
    from fdc.schemas import schema_json

    if name not in MODELS:
        stderr().print(f"error: unknown format `{name}`; known: {', '.join(sorted(MODELS))}")
        raise typer.Exit(EXIT_USAGE)
    sys.stdout.write(schema_json(name))


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
