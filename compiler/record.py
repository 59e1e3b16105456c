"""The record pass: a binding that made it through every pass becomes a `TaskRecord`.

The task's id is a hash of what makes the task (template and version, bindings, scene
content, and for a memory task the experience), so it is stable across runs and distinct
across scenes; two scene files of equal content are told apart by the second's scope.
The instruction variant listed first is drawn with the seed and the id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fdc.core.hashing import sha256_text
from fdc.predicates.goal import Goal, to_pddl
from fdc.sim_bridge.world.state import AgentPose

from .compile import is_memory_manipulation_template, seeded_rng
from .suite import MEMORY_MANIPULATION_TAGS, TaskRecord, id_prefix

if TYPE_CHECKING:
    from .compile import SceneCompiler, TemplateEntry
    from .frames import GoalFrames


def task_record(compiler: SceneCompiler, entry: TemplateEntry, binding: Mapping[str, str],
                goal: Goal, targets: Sequence[str], rendered: Sequence[str], start: str,
                memory: bool, frames: GoalFrames | None = None) -> TaskRecord:
    """The record of one task starting in state `start` of the compiler's scene (a memory
    task with its goal `frames`). A memory-manipulation template's tasks are tagged
    `memory` and `manipulation` whatever the template's own tags say
    (`suite.is_memory_manipulation`)."""
    t = entry.template
    bindings = {k: binding[k] for k in sorted(binding)}
    ident = task_id(compiler, entry, bindings, memory)
    texts = list(rendered)
    if len(texts) > 1:
        first = seeded_rng(compiler.options.seed, ident).randrange(len(texts))
        texts = [texts[first], *texts[:first], *texts[first + 1:]]
    thresholds = {th.name: float(th.value) for th in entry.domain.domain.thresholds}
    tags = list(t.tags)
    if memory and is_memory_manipulation_template(t, compiler.registry):
        tags += [x for x in MEMORY_MANIPULATION_TAGS if x not in tags]
    return TaskRecord(
        id=ident, template=t.name, template_file=entry.path, template_version=t.version,
        category=t.category, level=t.level, scene=compiler.scene, bindings=bindings,
        goal=goal, goal_pddl=to_pddl(goal), instructions=texts, targets=list(targets),
        thresholds=thresholds, tags=tags,
        experience=compiler.experience_sha256 if memory else None,
        start=task_start(compiler, start),
        **({} if frames is None else {"valid_frames": frames.valid_frames,
                                      "optimal_path_m": frames.optimal_path_m,
                                      "flags": frames.flags}),
    )


def task_start(compiler: SceneCompiler, start: str) -> AgentPose:
    """Where a task starting in state `start` starts: the robot's pose, rounded as the
    record keeps it."""
    pose = compiler.states[start].agent_pose()
    return AgentPose(x=round(pose.x, 4), y=round(pose.y, 4), z=round(pose.z, 4),
                     yaw_rad=round(pose.yaw_rad, 6))


def task_id(compiler: SceneCompiler, entry: TemplateEntry, bindings: Mapping[str, str],
            memory: bool) -> str:
    """`TEMPLATE-HASH`, the hash over template, version, bindings, the scene's content and
    the experience; a scene whose content an earlier scene file of the compile has too
    adds its scope (`compiler.pipeline.twin_scopes`), so twins' ids differ while every
    other id stays what it was."""
    parts: list[object] = [entry.name, entry.template.version, bindings,
                           compiler.scene_sha256, compiler.experience_sha256 if memory else None]
    if compiler.id_scope is not None:
        parts.append(compiler.id_scope)
    key = json.dumps(parts, sort_keys=True)
    return f"{id_prefix(entry.name)}-{sha256_text(key)[:12]}"
