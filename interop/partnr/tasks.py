"""PARTNR episodes as fdc task records, and task records as PARTNR episodes.

An episode's task is its instruction and its evaluation as one checklist goal over the
episode's Habitat handles (`fdc.interop.partnr.goals`); an episode that names PARTNR's
agent is left aside (no entity of an fdc scene is the agent). A task goes back as an
episode when PARTNR can express its goal.
See docs/partnr.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fdc.compiler.suite import TaskRecord
from fdc.compiler.targets import goal_targets
from fdc.interop.partnr.episodes import Dataset, Episode
from fdc.interop.partnr.goals import (
    NotExpressible,
    episode_id,
    export_evaluation,
    import_evaluation,
    kept_names,
    restore_rooms,
    task_id,
    unsupported_entities,
)
from fdc.predicates.goal import to_pddl


@dataclass(frozen=True)
class Skipped:
    """An episode left aside: it names the agent."""

    index: int
    episode_id: str
    agents: list[str]


def task_record(episode: Episode, source: str) -> TaskRecord:
    """The task record of one PARTNR episode: its instruction, and its evaluation as one
    checklist goal over the episode's Habitat handles (rooms as fdc room ids). The names
    the import changed are kept in `bindings` (`kept_names`), for the export."""
    goal = import_evaluation(episode)
    return TaskRecord(
        id=task_id(episode), template="partnr", template_file=source, category="partnr",
        scene=episode.scene_id or None, bindings=kept_names(episode), goal=goal,
        goal_pddl=to_pddl(goal),
        instructions=[episode.instruction] if episode.instruction else [],
        targets=goal_targets(goal), tags=["partnr"],
    )


def import_episodes(dataset: Dataset, source: str,
                    on_episode: Callable[[], None] | None = None
                    ) -> tuple[list[TaskRecord], list[Skipped]]:
    """Every episode's task record (`source`: the episodes file), and the episodes left
    aside."""
    records: list[TaskRecord] = []
    skipped: list[Skipped] = []
    for k, ep in enumerate(dataset.episodes):
        agents = unsupported_entities(ep)
        if agents:
            skipped.append(Skipped(k, ep.episode_id, agents))
        else:
            records.append(task_record(ep, source))
        if on_episode is not None:
            on_episode()
    return records, skipped


def export_records(records: Sequence[TaskRecord]) -> tuple[Dataset, list[tuple[str, str]]]:
    """The episodes of the tasks PARTNR can express, and (task id, why not) for the rest."""
    episodes: list[Episode] = []
    refused: list[tuple[str, str]] = []
    for r in records:
        try:
            evaluation = export_evaluation(r.goal, r.thresholds)
        except NotExpressible as e:
            refused.append((r.id, str(e)))
            continue
        kept = r.bindings if r.template == "partnr" else {}
        episodes.append(Episode.model_validate({
            "episode_id": episode_id(r.id, r.template, kept), "scene_id": r.scene or "",
            "instruction": r.instructions[0] if r.instructions else "",
            **restore_rooms(evaluation.fields(), kept)}))
    return Dataset(config=None, episodes=episodes), refused
