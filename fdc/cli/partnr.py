"""`fdc import partnr` and `fdc export partnr`: PARTNR episodes to task suites and back.

Thin commands over `fdc.interop.partnr.episodes` (the episode format) and
`fdc.interop.partnr.goals` (the evaluation as fdc goals). Exit codes: 0 ok; 1 some
episode or task could not be translated (the rest is written, each one named with why);
2 a file that cannot be read or does not validate (nothing written).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, read_suite_or_exit, stderr

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from fdc.compiler.suite import TaskRecord
    from fdc.interop.partnr.episodes import Episode



def _progress(err: Console, what: str, total: int) -> tuple[Progress, TaskID]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    return progress, progress.add_task(what, total=total)


def task_record(episode: Episode, source: str) -> TaskRecord:
    """The task record of one PARTNR episode: its instruction, and its evaluation as one
    checklist goal over the episode's Habitat handles."""
    from fdc.compiler.suite import TaskRecord
    from fdc.interop.partnr.goals import import_evaluation, targets, task_id
    from fdc.predicates.goal import to_pddl

    goal = import_evaluation(episode)
    return TaskRecord(
        id=task_id(episode), template="partnr", template_file=source, category="partnr",
        scene=episode.scene_id or None, goal=goal, goal_pddl=to_pddl(goal),
        instructions=[episode.instruction] if episode.instruction else [],
        targets=targets(goal), tags=["partnr"],
    )


def import_partnr(
    episodes: Annotated[Path, typer.Argument(help="PARTNR episodes (.json.gz or .json).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The suite to write.")] = Path(
        "suite.jsonl"),
) -> None:
    """Import PARTNR episodes as a task suite: each episode's instruction and evaluation
    (propositions, dependencies, constraints) become a task whose goal means the same."""
    from fdc.compiler.suite import suite_lines
    from fdc.core.files import write_atomic
    from fdc.core.problems import render_text
    from fdc.interop.partnr.episodes import read_episodes
    from fdc.interop.partnr.goals import unsupported_entities

    err = stderr()
    dataset, findings = read_episodes(episodes)
    for f in findings:
        err.print(render_text(f), markup=False)
    if dataset is None:
        raise typer.Exit(EXIT_USAGE)
    records = []
    skipped = 0
    progress, bar = _progress(err, "importing", len(dataset.episodes))
    with progress:
        for k, ep in enumerate(dataset.episodes):
            agents = unsupported_entities(ep)
            if agents:
                skipped += 1
                err.print(f"{episodes}: episodes[{k}]: warning[PN004]: episode "
                          f"`{ep.episode_id}` names the agent ({', '.join(agents)}), which "
                          "is no entity of an fdc scene; skipped", markup=False)
            else:
                records.append(task_record(ep, str(episodes)))
            progress.update(bar, advance=1)
    write_atomic(output, "".join(suite_lines(records)))
    err.print(f"wrote {output}: {len(records)} task(s) from {len(dataset.episodes)} "
              f"episode(s)" + (f", {skipped} skipped" if skipped else ""))
    raise typer.Exit(EXIT_FINDINGS if skipped else EXIT_OK)


def export_partnr(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The episodes to write "
                                         "(.json.gz).")] = Path("episodes.json.gz"),
) -> None:
    """Write the tasks whose goals PARTNR can express as PARTNR episodes (instruction and
    evaluation); name each task it cannot express, and why (on stdout)."""
    from fdc.core.files import write_atomic
    from fdc.interop.partnr.episodes import Dataset, Episode, episodes_bytes
    from fdc.interop.partnr.goals import NotExpressible, episode_id, export_evaluation

    err = stderr()
    records = read_suite_or_exit(suite, err)
    episodes = []
    refused = 0
    for r in records:
        try:
            evaluation = export_evaluation(r.goal, r.thresholds)
        except NotExpressible as e:
            refused += 1
            sys.stdout.write(f"{r.id}: not expressible: {e}\n")
            continue
        episodes.append(Episode.model_validate({
            "episode_id": episode_id(r.id, r.template), "scene_id": r.scene or "",
            "instruction": r.instructions[0] if r.instructions else "",
            **evaluation.fields()}))
    write_atomic(output, episodes_bytes(Dataset(config=None, episodes=episodes)))
    err.print(f"wrote {output}: {len(episodes)} episode(s) from {len(records)} task(s)"
              + (f", {refused} not expressible" if refused else ""))
    raise typer.Exit(EXIT_FINDINGS if refused else EXIT_OK)
