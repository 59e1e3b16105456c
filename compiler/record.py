"""The record pass: a binding that made it through every pass becomes a `TaskRecord`.

The task's id is a hash of what makes the task (template and version, bindings, scene
content, and for a memory task the experience), so it is stable across runs and distinct
across scenes; two scene files of equal content are told apart by the second's scope.
The instruction variant listed first is drawn with the seed and the id.
See docs/architecture.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fdc.core.hashing import sha256_text
from fdc.predicates.goal import Goal, to_pddl

from .options import seeded_rng
from .suite import MEMORY_MANIPULATION_TAGS, TaskRecord, id_prefix

if TYPE_CHECKING:
    from .frames import GoalFrames
    from .start import TemplateStart
    from .templates import TemplateEntry


def task_record(start: TemplateStart, entry: TemplateEntry, binding: Mapping[str, str],
                goal: Goal, targets: Sequence[str], rendered: Sequence[str],
                frames: GoalFrames | None = None) -> TaskRecord:
    """The record of one task starting where `start` says (a memory task with its goal
    `frames`). A memory-manipulation template's tasks are tagged `memory` and
    `manipulation` whatever the template's own tags say (`suite.is_memory_manipulation`)."""
    t = entry.template
    bindings = {k: binding[k] for k in sorted(binding)}
    ident = task_id(start, entry, bindings)
    texts = list(rendered)
    if len(texts) > 1:
        first = seeded_rng(start.seed, ident).randrange(len(texts))
        texts = [texts[first], *texts[:first], *texts[first + 1:]]
    tags = list(t.tags)
    if start.manipulation:
        tags += [x for x in MEMORY_MANIPULATION_TAGS if x not in tags]
    return TaskRecord(
        id=ident, template=t.name, template_file=entry.path, template_version=t.version,
        category=t.category, level=t.level, scene=start.scene, bindings=bindings,
        goal=goal, goal_pddl=to_pddl(goal), instructions=texts, targets=list(targets),
        thresholds=start.thresholds, tags=tags, experience=start.experience_sha256,
        start=start.pose,
        **({} if frames is None else {"valid_frames": frames.valid_frames,
                                      "optimal_path_m": frames.optimal_path_m,
                                      "flags": frames.flags}),
    )


def task_id(start: TemplateStart, entry: TemplateEntry, bindings: Mapping[str, str]
            ) -> str:
    """`TEMPLATE-HASH`, the hash over template, version, bindings, the scene's content and
    the experience; a scene whose content an earlier scene file of the compile has too
    adds its scope (`compiler.pipeline.twin_scopes`), so twins' ids differ while every
    other id stays what it was."""
    parts: list[object] = [entry.name, entry.template.version, bindings,
                           start.scene_sha256, start.experience_sha256]
    if start.id_scope is not None:
        parts.append(start.id_scope)
    key = json.dumps(parts, sort_keys=True)
    return f"{id_prefix(entry.name)}-{sha256_text(key)[:12]}"
