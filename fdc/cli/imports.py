"""`fdc import ...`: scenes and tasks from other formats (Habitat scenes, PARTNR
episodes, BEHAVIOR-1K's BDDL activities).

Exit codes: 0 ok; 1 findings (warnings about an imported scene; an episode skipped, the
rest written); 2 usage or input error (a file that cannot be read or does not validate:
nothing written).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    console,
    file_option,
    folder_option,
    input_or_exit,
    print_table,
    progress_bar,
    report_findings,
    stderr,
    table,
)

import_app = typer.Typer(help="Import scenes and tasks from other formats.", no_args_is_help=True)


@import_app.command()
def habitat(
    dataset_config: Annotated[Path, typer.Argument(help="A *.scene_dataset_config.json.")],
    scene: Annotated[str, typer.Option("--scene", help="The scene instance to import.")],
    output: Annotated[Path, file_option("-o", "--output", help="Where to write scene.json.")],
    allow_missing: Annotated[
        bool, typer.Option("--allow-missing", help=(
            "Skip unknown templates (object, stage, articulated) and missing assets, each "
            "with a warning naming it (a partial download)."))
    ] = False,
) -> None:
    """Import a Habitat scene (no habitat-sim needed): objects, articulated objects,
    receptacles, rooms; Y-up to Z-up."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.habitat import import_habitat

    input_or_exit(dataset_config, "the dataset config", stderr())
    result = import_habitat(dataset_config, scene, output.parent, allow_missing)
    report_findings(result.findings, str(dataset_config))
    if result.scene is None or any(f.is_error for f in result.findings):
        raise typer.Exit(EXIT_USAGE)
    write_atomic(output, result.scene.to_json())
    skipped = f", {len(result.skipped)} skipped" if result.skipped else ""
    stderr().print(f"wrote {output}: {len(result.scene.rooms)} rooms, "
                   f"{len(result.scene.objects)} objects{skipped}", markup=False)
    raise typer.Exit(EXIT_FINDINGS if result.findings else EXIT_OK)


@import_app.command()
def partnr(
    episodes: Annotated[Path, typer.Argument(help="PARTNR episodes (.json.gz or .json).")],
    output: Annotated[Path, file_option("-o", "--output", help="The suite to write.")] = Path(
        "suite.jsonl"),
) -> None:
    """Import PARTNR episodes as a task suite: each episode's instruction and evaluation
    (propositions, dependencies, constraints) become a task whose goal means the same."""

    from fdc.compiler.suite import suite_lines
    from fdc.core.files import write_atomic
    from fdc.core.problems import render_text
    from fdc.interop.partnr.episodes import read_episodes
    from fdc.interop.partnr.tasks import import_episodes

    err = stderr()
    dataset, findings = read_episodes(episodes)
    for f in findings:
        err.print(render_text(f), markup=False)
    if dataset is None:
        raise typer.Exit(EXIT_USAGE)
    with progress_bar(err) as progress:
        bar = progress.add_task("importing", total=len(dataset.episodes))
        records, skipped = import_episodes(dataset, str(episodes),
                                           lambda: progress.update(bar, advance=1))
    for s in skipped:
        err.print(f"{episodes}: episodes[{s.index}]: warning[PN004]: episode "
                  f"`{s.episode_id}` names the agent ({', '.join(s.agents)}), which "
                  "is no entity of an fdc scene; skipped", markup=False)
    write_atomic(output, "".join(suite_lines(records)))
    err.print(f"wrote {output}: {len(records)} task(s) from {len(dataset.episodes)} "
              f"episode(s)" + (f", {len(skipped)} skipped" if skipped else ""))
    raise typer.Exit(EXIT_FINDINGS if skipped else EXIT_OK)


@import_app.command()
def bddl(
    activities: Annotated[list[Path] | None, typer.Argument(
        help="BDDL problem files, or folders of them (BEHAVIOR's layout: "
        "ACTIVITY/problem0.bddl).", show_default=False)] = None,
    output: Annotated[Path, folder_option(
        "-o", "--output", help="The folder to write: bddl-home.pddl, templates/, report.json.")
    ] = Path("bddl"),
    corpus: Annotated[bool, typer.Option(
        "--corpus", help="Every activity of BEHAVIOR-1K that the `bddl` package ships.")
    ] = False,
    report_format: Annotated[str, typer.Option(
        "--format", help="`text`: a table of the reasons; `json`: the report.")] = "text",
) -> None:
    """Import BEHAVIOR-1K's BDDL activities (read with the `bddl` package's own parser, fdc's
    optional extra `bddl`): a domain extending fdc-home, one template per activity whose
    goal means the same, and a report of what could not be said, by reason (docs/bddl.md).
    Every template written passes `fdc check`."""
    import json

    from fdc.core.errors import InputError
    from fdc.core.files import Outputs
    from fdc.interop.bddl.corpus import activity_files
    from fdc.interop.bddl.importer import REPORT_FILE, import_files
    from fdc.interop.bddl.translate import REASONS

    err = stderr()
    if report_format not in ("text", "json"):
        err.print(f"error: --format is `text` or `json`, not `{report_format}`", markup=False)
        raise typer.Exit(EXIT_USAGE)
    if not activities and not corpus:
        err.print("error: name BDDL files or folders, or give --corpus", markup=False)
        raise typer.Exit(EXIT_USAGE)
    try:
        files = activity_files(activities or [], corpus=corpus)
        if not files:
            err.print("error: no BDDL problem (*.bddl) among the paths given", markup=False)
            raise typer.Exit(EXIT_USAGE)
        result = import_files(files)
        with Outputs() as out:
            for rel, text in result.files().items():
                out.write(output / rel, text)
    except InputError as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    report = result.report()
    if report_format == "json":
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        shown = table(f"{report['imported']} of {report['activities']} activities imported "
                      f"({100 * report['share']:.1f}%), every template check-clean")
        for col in ("reason", "activities", "what it means", "example"):
            shown.add_column(col)
        examples: dict[str, str] = {}
        for f in result.failures:
            examples.setdefault(f.reason, f"{f.activity}: {f.detail}")
        for reason, n in sorted(result.by_reason().items(), key=lambda x: (-x[1], x[0])):
            shown.add_row(reason, str(n), REASONS[reason], examples[reason])
        if result.failures:
            print_table(console(), shown)
        else:
            console().print(shown.title)
    err.print(f"wrote {output}: {len(result.templates)} template(s), {output / REPORT_FILE}",
              markup=False)
    raise typer.Exit(EXIT_FINDINGS if result.failures else EXIT_OK)
