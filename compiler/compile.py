"""The compile API: what compiling takes (checked templates, options), the compiler of
one prepared scene, and what compiling gives (records, and per template the reasons
bindings dropped).

`SceneCompiler` holds one built scene graph, its experience and the states tasks start
in: the scene's initial state for a process task, the world the experience left behind
for a memory task (a template is a *memory* template when its tags say `memory` or its
constraints or goal read a history predicate or function). It answers, with caches
shared by every template of the scene, what the passes ask of the scene: its facts per
domain, descriptions, whether a goal already holds where a task starts, and the
experience's goal frames. The passes themselves, and their order, are
`compiler.pipeline`'s; `compiler.prepare` builds a `SceneCompiler` from files.

Everything here is deterministic: random choices come from `random.Random` seeded by a
hash of the seed and a stable name (`seeded_rng`).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fdc.core.hashing import sha256_text
from fdc.core.inputs import InputKind, read_input_bytes
from fdc.core.limits import current
from fdc.core.problems import SourceFile
from fdc.instructions.describe import Describer
from fdc.instructions.render import thread_renderer
from fdc.instructions.variants import variant_texts
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    Goal,
    GOr,
    GTargets,
    GThen,
    atoms,
)
from fdc.predicates.registry import Context, Registry
from fdc.predicates.registry import Kind as CheckerKind
from fdc.predicates.verify import evaluate
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.world.state import Snapshot

from . import ast as A
from .drops import Drop
from .frames import FrameIndex
from .scene_facts import SceneFacts, StateFacts
from .suite import TaskRecord
from .timings import Timings

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState

    from .check import DomainInfo


# --------------------------------------------------------------------------- inputs, results


@dataclass(frozen=True)
class TemplateEntry:
    """A checked template, ready to compile."""

    name: str
    path: str
    template: A.Template
    domain: DomainInfo
    texts: tuple[str, ...]  # instruction variants, as written
    sha256: str  # of the template's file
    source: SourceFile  # the template's file: errors about its goal are located in it

    @property
    def category(self) -> str | None:
        return self.template.category

    @property
    def level(self) -> int | None:
        return self.template.level


#: Why no agent of fdc's is known to achieve a task from where it starts (None: one
#: is): the manipulation oracle's answer (`fdc.agents.oracle.witness`). The agents
#: sit above the compiler, so the commands that compile hand it down (`CompileOptions`).
Witness = Callable[[TaskRecord, "SceneGraph", Snapshot | None], str | None]


@dataclass(frozen=True)
class CompileOptions:
    seed: int = 0
    max_per_template: int | None = None
    max_atoms: int = field(default_factory=lambda: current().goal_atoms)  # per ground goal
    bind_limit: int = field(default_factory=lambda: current().template_bindings)
    #: Asked of a task whose goal the geometric rules cannot decide (`start_checks.
    #: needs_witness`); None: such tasks are kept unasked.
    witness: Witness | None = field(default=None, compare=False)


@dataclass
class Outcome:
    """What became of one binding (kept for `fdc explain`): its task, or why it dropped."""

    binding: dict[str, str]
    record: TaskRecord | None = None
    reason: Drop | None = None


@dataclass
class TemplateReport:
    """One template on one scene: its tasks and why the other bindings dropped."""

    template: str
    path: str
    category: str | None
    level: int | None
    bindings: int = 0  # the complete set
    visited: int = 0
    tasks: int = 0
    drops: Counter[str] = field(default_factory=Counter)  # by `Drop.key`
    sampled: bool = False  # bindings drawn by sampling; `bindings` is then an estimate
    error: str | None = None  # the template could not be compiled here (a limit, say)
    records: list[TaskRecord] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)  # with `explain` only
    examples: dict[str, Outcome] = field(default_factory=dict)  # the first drop per key
    unbound: list[str] = field(default_factory=list)  # with `explain`: why no binding

    def drop(self, reason: Drop, binding: Mapping[str, str], n: int = 1) -> None:
        """Count `n` bindings dropped for `reason`, the first under its key kept as the
        key's example (`binding` empty: found while binding, for a partial binding)."""
        self.drops[reason.key] += n
        self.examples.setdefault(reason.key, Outcome(dict(binding), reason=reason))


@dataclass
class SceneResult:
    scene: str
    scene_sha256: str
    records: list[TaskRecord]
    reports: list[TemplateReport]
    timings: Timings = field(default_factory=Timings)


@dataclass
class SuiteResult:
    """Every scene's result, in the order the scenes were given."""

    records: list[TaskRecord]
    scenes: list[SceneResult]
    timings: Timings = field(default_factory=Timings)  # summed over the scenes


def seeded_rng(*parts: object) -> random.Random:
    """A random generator seeded by a hash of `parts` (the seed and stable names)."""
    digest = sha256_text("\0".join(str(p) for p in parts))
    return random.Random(int(digest[:16], 16))


# --------------------------------------------------------------------------- goals


def goal_targets(goal: Goal) -> list[str]:
    """The answer set: a multi-goal form's target entities, else the first argument of
    every positive fluent atom, a count's items and a cluster's members (a checklist
    imported from PARTNR: every object its propositions ask about), in order, without
    repeats."""
    if isinstance(goal, GTargets):
        return list(dict.fromkeys(t.entity for t in goal.targets))
    out: dict[str, None] = {}
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        if isinstance(g, GAtom):
            if g.args:
                out.setdefault(g.args[0])
        elif isinstance(g, GAnd | GOr):
            stack.extend(reversed(g.parts))
        elif isinstance(g, GThen):
            stack.extend(reversed(g.steps))
        elif isinstance(g, GTargets):
            stack.extend(reversed([t.goal for t in g.targets]))
        elif isinstance(g, GCount | GCluster):
            out.update(dict.fromkeys(g.items if isinstance(g, GCount) else g.entities))
        elif isinstance(g, GChecklist):
            stack.extend(reversed(g.propositions))
    return list(out)


def is_memory_template(t: A.Template, registry: Registry) -> bool:
    """Whether a template is about the experience: tagged `memory`, or reading a history
    predicate or function."""
    if "memory" in t.tags:
        return True
    for part in (t.constraints, t.goal):
        if part is None:
            continue
        for n in part.walk():
            name = n.predicate if isinstance(n, A.Atom) else n.name \
                if isinstance(n, A.FunctionTerm) else None
            if name is not None and name in registry and \
                    registry.checker(name).kind is CheckerKind.HISTORY:
                return True
    return False


#: The fluents a memory task's goal may name and still be answered by returning
#: somewhere: where the robot is. A memory template whose goal names another fluent
#: asks the robot to change the world (`is_memory_manipulation_template`).
ROBOT_PLACE = frozenset({"robot-at-object", "robot-at-receptacle", "robot-in-room"})


def is_memory_manipulation_template(t: A.Template, registry: Registry) -> bool:
    """Whether a memory template (`is_memory_template`) asks for manipulation: its
    goal names a fluent other than where the robot is (`(on ?o ?s)`), so its tasks
    start where the experience ends and are acted out, planned and scored as
    manipulation tasks, not answered with frames."""
    if t.goal is None or not is_memory_template(t, registry):
        return False
    return any(isinstance(n, A.Atom) and n.predicate not in ROBOT_PLACE
               and n.predicate in registry
               and registry.checker(n.predicate).kind is CheckerKind.FLUENT
               for n in t.goal.walk())


# --------------------------------------------------------------------------- scenes


def start_snapshots(graph: SceneGraph, log: Experience | None) -> tuple[Snapshot, Snapshot | None]:
    """The scene's initial state, and the world the experience left behind (objects at
    their final places, the robot where the log ends)."""
    from fdc.sim_bridge.world.embedded import EmbeddedWorld
    from fdc.sim_bridge.world.experience import snapshot_at

    initial = EmbeddedWorld(graph).snapshot()
    if log is None or not log.frames:
        return initial, None
    last = snapshot_at(initial, log, len(log.frames) - 1)
    after = last.model_copy(update={"held": None, "step": 0, "action": None})
    return initial, after


def task_start_state(graph: SceneGraph, record: TaskRecord, log: Experience | None
                     ) -> Snapshot:
    """The state the record's task starts in, as the compile chose it
    (`SceneCompiler.start`): for a task about an experience (its record names one), the
    world `log` left behind (`start_snapshots`); for any other, the scene's initial state.
    What every picture of a task draws: items where the task finds them, the robot where
    it starts."""
    initial, after = start_snapshots(graph, log if record.experience is not None else None)
    return initial if after is None else after


class SceneCompiler:
    """One built scene graph and its experience, the states tasks start in, and what the
    passes ask of them (facts, descriptions, judgements, goal frames), cached."""

    def __init__(self, graph: SceneGraph, scene: str, scene_sha256: str,
                 experience: Experience | None = None, experience_sha256: str | None = None,
                 options: CompileOptions | None = None, id_scope: str | None = None,
                 no_experience: str | None = None) -> None:
        from fdc.sim_bridge.world.snapshot import SnapshotState

        self.graph = graph
        self.scene = scene
        self.scene_sha256 = scene_sha256
        self.experience = experience
        self.experience_sha256 = experience_sha256
        #: Why no experience could be simulated (its memory templates are skipped).
        self.no_experience = no_experience
        self.options = options or CompileOptions()
        #: Set for a scene file whose content an earlier scene of the compile has too:
        #: it joins the task ids' key, so twins' ids differ (`compiler.record.task_id`).
        self.id_scope = id_scope
        self.registry = default_registry()
        self.renderer = thread_renderer()
        initial, after = start_snapshots(graph, experience)
        self.states: dict[str, SnapshotState] = {"initial": SnapshotState(graph, initial)}
        if after is not None:
            self.states["after"] = SnapshotState(graph, after)
        self._facts: dict[str, SceneFacts] = {}
        self._state_facts: dict[tuple[str, str], StateFacts] = {}
        self._describers: dict[tuple[str, str], Describer] = {}
        # (start state, thresholds) -> atom -> truth
        self._holds: dict[tuple[str, tuple[tuple[str, float], ...]], dict[GAtom, bool]] = {}
        self._frames: FrameIndex | None = None

    # ----- per-domain views -------------------------------------------------------

    def facts(self, domain: DomainInfo) -> SceneFacts:
        name = domain.domain.name
        found = self._facts.get(name)
        if found is None:
            found = self._facts[name] = SceneFacts(self.graph, domain, self.experience,
                                                   self.registry)
        return found

    def state_facts(self, domain: DomainInfo, start: str) -> StateFacts:
        key = (domain.domain.name, start)
        found = self._state_facts.get(key)
        if found is None:
            found = self._state_facts[key] = StateFacts(self.facts(domain), self.states[start])
        return found

    def describer(self, domain: DomainInfo, start: str) -> Describer:
        key = (domain.domain.name, start)
        found = self._describers.get(key)
        if found is None:
            found = self._describers[key] = Describer(self.facts(domain), self.states[start])
        return found

    def start(self, entry: TemplateEntry) -> tuple[str, bool]:
        """The state `entry`'s tasks start in, and whether it is a memory template (with
        no experience, a memory template's tasks start where process tasks do)."""
        memory = is_memory_template(entry.template, self.registry)
        return ("after" if memory and "after" in self.states else "initial"), memory

    def already_true(self, goal: Goal, domain: DomainInfo, start: str,
                     thresholds: Mapping[str, float] | None = None) -> bool:
        """Whether the goal holds where a task starts, as `verify` would judge it on a
        one-snapshot trajectory (with the task's `thresholds`, if any; a multi-goal
        needs its stops: never)."""
        if isinstance(goal, GTargets):
            return False  # each target needs its own stop
        steps = goal.steps if isinstance(goal, GThen) else (goal,)
        if any(isinstance(s, GTargets | GThen) for s in steps):
            return False
        holds = self.judge(domain, start, [a for s in steps for a in atoms(s)], thresholds)
        return all(evaluate(s, 0, lambda a, _i: holds[a]) for s in steps)

    def first_step_true(self, goal: Goal, domain: DomainInfo, start: str,
                        thresholds: Mapping[str, float] | None = None) -> bool:
        """Whether the goal is a sequence whose first step holds where a task starts (it
        asks for less than it says: `start_checks`' `step-true`, `fdc validate`)."""
        return isinstance(goal, GThen) and self.already_true(goal.steps[0], domain, start,
                                                             thresholds)

    def judge(self, domain: DomainInfo, start: str, wanted: Iterable[GAtom],
              thresholds: Mapping[str, float] | None = None) -> dict[GAtom, bool]:
        """Decide every new atom in the start state: a look-up in the state's table where
        the predicate has one (at the default thresholds), else one batched checker call
        each predicate (a goal over every item and surface holds thousands of atoms)."""
        holds = self._holds.setdefault((start, tuple(sorted((thresholds or {}).items()))), {})
        new: dict[str, dict[GAtom, None]] = {}
        for a in wanted:
            if a not in holds:
                new.setdefault(a.predicate, {})[a] = None
        if not new:
            return holds
        facts = None if thresholds else self.state_facts(domain, start)
        ctx = Context(graph=self.graph, state=self.states[start], experience=self.experience)
        if thresholds:
            ctx = ctx.with_thresholds(thresholds, self.registry)
        for predicate, found in new.items():
            batch = list(found)
            table = facts.direct_set(predicate) if facts is not None else None
            if table is not None:
                for a in batch:
                    holds[a] = a.args in table
                continue
            truth = self.registry.evaluate_many(predicate, [a.args for a in batch], ctx)
            for a, ok in zip(batch, truth.tolist(), strict=True):
                holds[a] = bool(ok)
        return holds

    # ----- memory tasks ---------------------------------------------------------------

    def goal_frames(self) -> tuple[FrameIndex, Walker]:
        """The experience's goal frames and the walker between them, built on first use
        and shared by every memory template of the scene (the walker by all of the
        graph's route searches)."""
        if self._frames is None:
            assert self.experience is not None
            self._frames = FrameIndex(self.graph, self.states["after"], self.experience)
        walker: Walker = self.graph.walker
        return self._frames, walker


def load_entries(paths: Sequence[str] | None) -> tuple[list[TemplateEntry], Any]:
    """Check template files (the built-in library when `paths` is None) and return the
    templates ready to compile, with the check result (its diagnostics for the CLI)."""
    from fdc.domain import builtin_template_files

    from .check import check_paths

    files = [str(p) for p in builtin_template_files()] if paths is None else list(paths)
    result = check_paths(files)
    entries: list[TemplateEntry] = []
    if result.errors or result.usage_error:
        return entries, result
    for name, (path, t) in sorted(result.templates.items()):
        domain = result.domains[t.domain.name]
        entries.append(TemplateEntry(name, _display(path), t, domain,
                                     tuple(variant_texts(
                                         [i.text for i in t.instructions],
                                         t.instruction_file.path if t.instruction_file else None,
                                         path)),
                                     sha256_text(read_input_bytes(path, InputKind.TEMPLATE)),
                                     result.sources[path]))
    return entries, result


def _display(path: str) -> str:
    """A template's path as records show it: relative to the working folder when inside
    it, to the built-in library for built-in templates."""
    from fdc.domain import LIBRARY_ROOT

    try:
        return "fdc:domain/" + Path(path).resolve().relative_to(LIBRARY_ROOT).as_posix()
    except ValueError:
        pass
    p = Path(os.path.abspath(path))
    try:
        return p.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return p.as_posix()
