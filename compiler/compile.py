"""The compile driver: templates and one scene (and one experience) become task records.

For each template, in name order: **bind** its parameters (constraints judged in the
state the task starts in: the scene's initial state for a process task, the world the
experience left behind for a memory task), then for each binding **ground** its goal,
drop it when it already holds at the start, **describe** every entity its instructions
name (rejecting or widening an ambiguous one, as the template says), **render** the
instruction variants, and **emit** a `TaskRecord`. Memory tasks then get their valid goal
frames and the shortest walk through them (`compiler.paths`).

A template is a *memory* template when its tags say `memory` or its constraints or goal
read a history predicate or function.

`--max-per-template K` takes K tasks per template: the complete, sorted list of bindings
is visited in an order shuffled with the seed (and the template's name) until K bindings
have become tasks, so the K are a uniform sample of the bindings that make tasks, and
only what is visited is paid for. Every binding visited and dropped is counted by reason.

Everything here is deterministic: records are sorted by template and binding; random
choices come from `random.Random` seeded by a hash of the seed and a stable name.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.core.hashing import sha256_text
from fdc.instructions.describe import Describer, Description
from fdc.instructions.lint import names_used
from fdc.instructions.render import EntityText, Renderer, RenderError
from fdc.instructions.variants import jinja_name, variant_texts
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import (
    FALSE,
    GAnd,
    GAtom,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    atoms,
    to_pddl,
)
from fdc.predicates.registry import Context, EvaluationError
from fdc.predicates.verify import evaluate
from fdc.sim_bridge.graph.feasible import Infeasible
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot

from . import ast as A
from . import start_checks as feasible
from .bind import BindError, random_order
from .ground import GroundError, ground
from .scene_facts import FactsError, SceneFacts, StateFacts
from .suite import TaskRecord

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState

    from .check import DomainInfo

ALREADY_TRUE = "goal already true at the start"
NO_TARGET = "no target entity"


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class TemplateEntry:
    """A checked template, ready to compile."""

    name: str
    path: str
    template: A.Template
    domain: DomainInfo
    texts: tuple[str, ...]  # instruction variants, as written
    sha256: str  # of the template's file

    @property
    def category(self) -> str | None:
        return self.template.category

    @property
    def level(self) -> int | None:
        return self.template.level


@dataclass(frozen=True)
class CompileOptions:
    seed: int = 0
    max_per_template: int | None = None
    max_atoms: int = 100_000  # per ground goal
    bind_limit: int = 1_000_000  # partial bindings explored per template


@dataclass
class Outcome:
    """What became of one binding (kept for `fdc explain`)."""

    binding: dict[str, str]
    record: TaskRecord | None = None
    reason: str | None = None


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
    drops: Counter[str] = field(default_factory=Counter)
    sampled: bool = False  # bindings drawn by sampling; `bindings` is then an estimate
    error: str | None = None  # the template could not be compiled here (a limit, say)
    records: list[TaskRecord] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)  # with `explain` only


@dataclass
class SceneResult:
    scene: str
    scene_sha256: str
    experience: dict[str, Any] | None
    records: list[TaskRecord]
    reports: list[TemplateReport]


def _rng(*parts: object) -> random.Random:
    digest = sha256_text("\0".join(str(p) for p in parts))
    return random.Random(int(digest[:16], 16))


# --------------------------------------------------------------------------- goals


def goal_targets(goal: Goal) -> list[str]:
    """The answer set: a multi-goal form's target entities, else the first argument of
    every positive fluent atom, in order, without repeats."""
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
    return list(out)


def disjunction(goals: Sequence[Goal]) -> Goal:
    """`or` of ground goals, flattened, without repeats, in canonical (text) order."""
    parts: dict[str, Goal] = {}
    for g in goals:
        for p in g.parts if isinstance(g, GOr) else (g,):
            parts.setdefault(to_pddl(p), p)
    if len(parts) == 1:
        return next(iter(parts.values()))
    return GOr(parts=tuple(parts[k] for k in sorted(parts))) if parts else FALSE


_TIE = re.compile(r"^tie between .*? (for|in the order) (.*?) \((?:all|both) [^)]*\)$")
_ENTITY = re.compile(r"`(?!(?:then|targets|ordered-targets)`)[^`\s()]+`")


def reason_key(reason: str) -> str:
    """A drop reason without the entities it names, for counting: "tie between `a` and
    `b` for argmax of (f ?x) (all 3)" counts as "tie for argmax of (f ?x)"."""
    m = _TIE.match(reason)
    if m:
        return f"tie {m.group(1)} {m.group(2)}"
    return _ENTITY.sub("…", reason)


def _uses_history(t: A.Template, facts: SceneFacts) -> bool:
    for part in (t.constraints, t.goal):
        if part is None:
            continue
        for n in part.walk():
            name = n.predicate if isinstance(n, A.Atom) else n.name \
                if isinstance(n, A.FunctionTerm) else None
            if name is not None and facts.kind(name) == "history":
                return True
    return False


# --------------------------------------------------------------------------- scenes


def start_snapshots(graph: SceneGraph, log: Experience | None) -> tuple[Snapshot, Snapshot | None]:
    """The scene's initial state, and the world the experience left behind (objects at
    their final places, the robot where the log ends)."""
    from fdc.sim_bridge.world.embedded import EmbeddedWorld
    from fdc.sim_bridge.world.experience import final_agent_pose, final_positions

    initial = EmbeddedWorld(graph).snapshot()
    if log is None or not log.frames:
        return initial, None
    objects = dict(initial.objects)
    placed = {i.object: i.placed_orientation for i in log.interactions}  # the last one
    for ident, pos in final_positions(log).items():
        old = objects.get(ident)
        if old is not None:
            turned = placed.get(ident)
            objects[ident] = ObjectPose(position=pos, size=old.size, orientation=(
                turned if turned is not None else old.orientation))
    agent = final_agent_pose(log)
    assert agent is not None
    after = initial.model_copy(update={
        "objects": objects, "agent": agent, "held": None, "time_min": log.frames[-1].clock_min,
        "step": 0, "action": None})
    return initial, after


class SceneCompiler:
    """Compiles templates on one built scene graph (and one experience)."""

    def __init__(self, graph: SceneGraph, scene: str, scene_sha256: str,
                 experience: Experience | None = None, experience_sha256: str | None = None,
                 options: CompileOptions | None = None) -> None:
        from fdc.sim_bridge.world.snapshot import SnapshotState

        self.graph = graph
        self.scene = scene
        self.scene_sha256 = scene_sha256
        self.experience = experience
        self.experience_sha256 = experience_sha256
        self.options = options or CompileOptions()
        self.registry = default_registry()
        self.renderer = Renderer()
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
        self._walker: Walker | None = None

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

    # ----- templates --------------------------------------------------------------

    def compile_template(self, entry: TemplateEntry, explain: bool = False) -> TemplateReport:
        report = TemplateReport(entry.name, entry.path, entry.category, entry.level)
        t = entry.template
        try:
            facts = self.facts(entry.domain)
            memory = "memory" in t.tags or _uses_history(t, facts)
            start = "after" if memory and "after" in self.states else "initial"
            draw = random_order(t, self.state_facts(entry.domain, start),
                                seed=_rng(self.options.seed, entry.name,
                                          self.scene_sha256).randrange(2**63),
                                limit=self.options.bind_limit)
        except (BindError, GroundError, FactsError, EvaluationError) as e:
            report.error = str(e)
            return report
        k = self.options.max_per_template
        kept: list[tuple[tuple[str, ...], TaskRecord]] = []
        try:
            for binding in draw.bindings:
                if k is not None and len(kept) >= k:
                    break
                report.visited += 1
                record, reason = self._task(entry, binding, start, memory)
                if record is None:
                    report.drops[reason_key(reason or "dropped")] += 1
                else:
                    kept.append((tuple(binding[n] for n in draw.parameters), record))
                if explain:
                    report.outcomes.append(Outcome(dict(binding), record, reason))
        except (BindError, GroundError, EvaluationError) as e:  # a limit, a checker refusing:
            report.error = str(e)  # the whole template stops, located
            return report
        for why, n in draw.dropped().items():
            if not why.startswith("constraint "):  # a false constraint is no drop
                report.drops[reason_key(why)] += n
        report.bindings = draw.estimate or 0
        report.sampled = draw.sampled
        kept.sort(key=lambda p: p[0])
        records = [r for _, r in kept]
        if memory and "after" in self.states:
            records = self._add_frames(records)
        report.records = records
        report.tasks = len(records)
        report.outcomes.sort(key=lambda o: tuple(o.binding.values()))
        return report

    def compile(self, entries: Sequence[TemplateEntry],
                on_template: Callable[[TemplateEntry], None] | None = None) -> SceneResult:
        records: list[TaskRecord] = []
        reports: list[TemplateReport] = []
        for entry in sorted(entries, key=lambda e: e.name):
            report = self.compile_template(entry)
            reports.append(report)
            records.extend(report.records)
            if on_template is not None:
                on_template(entry)
        exp = None
        if self.experience is not None:
            exp = {"sha256": self.experience_sha256, "source": self.experience.source,
                   "seed": self.experience.seed, "frames": len(self.experience.frames),
                   "interactions": len(self.experience.interactions)}
        return SceneResult(self.scene, self.scene_sha256, exp, records, reports)

    # ----- one binding ------------------------------------------------------------

    def _task(self, entry: TemplateEntry, binding: Mapping[str, str], start: str,
              memory: bool) -> tuple[TaskRecord | None, str | None]:
        t = entry.template
        facts = self.facts(entry.domain)
        assert t.goal is not None  # checked: every template has a goal
        # Describe first: it is cheap, and in a large scene most bindings of a template
        # that names its entities drop here (a goal over the whole scene is not cheap).
        describer = self.describer(entry.domain, start)
        used = set().union(*(names_used(text) for text in entry.texts)) if entry.texts else set()
        values: dict[str, Any] = {}
        widen: dict[str, tuple[str, ...]] = {}
        for p in t.parameters:
            name = jinja_name(p.name)
            if name not in used:
                continue
            d = describer.describe(binding[p.name], p.types)
            if not d.unique:
                if t.ambiguity == "reject":
                    return None, f"ambiguous description of {p.name}"
                widen[p.name] = d.fits
            values[name] = _entity_text(d)
        g = ground(t.goal, binding, facts, max_atoms=self.options.max_atoms, template=t.name)
        if g.goal is None:
            return None, g.reason
        goal = g.goal
        if not goal_targets(goal):
            return None, NO_TARGET
        if self.already_true(goal, entry.domain, start):
            return None, ALREADY_TRUE
        rule = self._infeasible(goal, entry.domain, start)
        if rule is not None:
            return None, feasible.reason(rule)
        if widen and isinstance(goal, GTargets | GThen):  # no goal to widen: each its own stop
            return None, f"ambiguous description of {next(iter(widen))}"
        if widen:
            goal = self._widen(entry, binding, widen, goal)
        targets = goal_targets(goal)
        values["targets"] = [_entity_text(describer.describe(e)) for e in targets] \
            if "targets" in used else []
        values["n_targets"] = len(targets)
        rendered: list[str] = []
        for text in entry.texts:
            try:
                rendered.append(self.renderer.render(text, values))
            except RenderError as e:
                return None, f"instruction cannot be rendered: {e}"
        bindings = {k: binding[k] for k in sorted(binding)}
        ident = self._task_id(entry, bindings, memory)
        if len(rendered) > 1:
            first = _rng(self.options.seed, ident).randrange(len(rendered))
            rendered = [rendered[first], *rendered[:first], *rendered[first + 1:]]
        thresholds = {th.name: float(th.value) for th in entry.domain.domain.thresholds}
        start_pose = self.states[start].agent_pose()
        return TaskRecord(
            id=ident, template=t.name, template_file=entry.path, template_version=t.version,
            category=t.category, level=t.level, scene=self.scene, bindings=bindings,
            goal=goal, goal_pddl=to_pddl(goal), instructions=rendered, targets=targets,
            thresholds=thresholds, tags=list(t.tags),
            experience=self.experience_sha256 if memory else None,
            start=AgentPose(x=round(start_pose.x, 4), y=round(start_pose.y, 4),
                            z=round(start_pose.z, 4), yaw_rad=round(start_pose.yaw_rad, 6)),
        ), None

    def _task_id(self, entry: TemplateEntry, bindings: Mapping[str, str], memory: bool) -> str:
        key = json.dumps([entry.name, entry.template.version, bindings, self.scene_sha256,
                          self.experience_sha256 if memory else None], sort_keys=True)
        return f"{entry.name}-{sha256_text(key)[:12]}"

    def _widen(self, entry: TemplateEntry, binding: Mapping[str, str],
               widen: Mapping[str, tuple[str, ...]], goal: Goal) -> Goal:
        """The goal for every entity the ambiguous descriptions fit (distinct entities)."""
        facts = self.facts(entry.domain)
        names = sorted(widen)
        goals = [goal]
        fixed = {v for k, v in binding.items() if k not in widen}
        assert entry.template.goal is not None
        for combo in itertools.product(*(widen[n] for n in names)):
            if len(set(combo)) < len(combo) or fixed & set(combo):
                continue
            alt = {**binding, **dict(zip(names, combo, strict=True))}
            g = ground(entry.template.goal, alt, facts, max_atoms=self.options.max_atoms,
                       template=entry.name)
            if g.goal is not None:
                goals.append(g.goal)
        return disjunction(goals)

    def _infeasible(self, goal: Goal, domain: DomainInfo, start: str
                    ) -> Infeasible | None:
        """The rule by which the embedded world can never make `goal` true, if any."""
        if isinstance(goal, GTargets):
            return None
        holds = self._judge(domain, start, atoms(goal))
        thresholds = {th.name: float(th.value) for th in domain.domain.thresholds}
        return feasible.infeasible(goal, self.graph, holds.__getitem__, thresholds)

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
        holds = self._judge(domain, start, [a for s in steps for a in atoms(s)], thresholds)
        return all(evaluate(s, 0, lambda a, _i: holds[a]) for s in steps)

    def _judge(self, domain: DomainInfo, start: str, wanted: Iterable[GAtom],
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

    # ----- memory tasks: goal frames and the shortest walk ---------------------------

    def _add_frames(self, records: list[TaskRecord]) -> list[TaskRecord]:
        if self._frames is None:
            assert self.experience is not None
            self._frames = FrameIndex(self.graph, self.states["after"], self.experience)
            self._walker = Walker(self.graph.nav)
        frames, walker = self._frames, self._walker
        assert walker is not None
        frames.prepare(a for r in records for a in atoms(r.goal))
        out = []
        for r in records:
            lists = frames.valid_frames(r.goal)
            flags = ["target-without-valid-frame"] if any(not f for f in lists) else []
            mode = "single" if not isinstance(r.goal, GTargets) else \
                "ordered" if r.goal.ordered else "unordered"
            assert r.start is not None
            nodes = [frames.nodes(f) for f in lists]
            length, exact = walker.walk((r.start.x, r.start.y), nodes, mode)
            if not exact:
                flags.append("optimal-path-approximate")
            out.append(r.model_copy(update={"valid_frames": lists, "optimal_path_m": length,
                                            "flags": flags}))
        return out


class FrameIndex:
    """Which experience frames satisfy which fluent atoms, in the world the experience
    left behind, with the robot at each frame's pose. An atom about an object the robot
    moved holds only from the frame that object reached its final place."""

    def __init__(self, graph: SceneGraph, after: SnapshotState, log: Experience) -> None:
        self.graph = graph
        self.log = log
        self.registry = default_registry()
        self.base = Context(graph=graph, experience=log)
        self.after = after
        self.masks: dict[GAtom, np.ndarray] = {}
        n = len(log.frames)
        self.final_frame: dict[str, int] = {}
        for it in log.interactions:  # sorted by pick frame: the last one is final
            self.final_frame[it.object] = it.place_frame if it.place_frame is not None else n
        xy = np.array([(f.agent.x, f.agent.y) for f in log.frames], dtype=np.float64)
        self._nodes = graph.nav.nearest_nodes(xy) if n else np.zeros(0, dtype=np.int64)

    def prepare(self, wanted: Iterable[GAtom]) -> None:
        """Evaluate every new atom at every frame: one batched call per predicate and frame."""
        new: dict[str, list[GAtom]] = {}
        for a in wanted:
            if a not in self.masks and a not in new.get(a.predicate, ()):
                new.setdefault(a.predicate, []).append(a)
        if not new:
            return
        n = len(self.log.frames)
        results = {p: np.zeros((len(batch), n), dtype=bool) for p, batch in new.items()}
        for i, frame in enumerate(self.log.frames):
            ctx = self.base.with_state(self.after.at_pose(frame.agent, step=i))
            for p, batch in new.items():
                results[p][:, i] = self.registry.evaluate_many(p, [a.args for a in batch], ctx)
        for p, batch in new.items():
            for k, a in enumerate(batch):
                mask = results[p][k]
                first = max((self.final_frame.get(x, 0) for x in a.args), default=0)
                if first:
                    mask[:first] = False
                self.masks[a] = mask

    def _mask(self, g: Goal) -> np.ndarray:
        n = len(self.log.frames)
        if isinstance(g, GAtom):
            return self.masks[g]
        if isinstance(g, GNot):
            return ~self._mask(g.body)
        if isinstance(g, GAnd):
            out = np.ones(n, dtype=bool)
            for p in g.parts:
                out &= self._mask(p)
            return out
        if isinstance(g, GOr):
            out = np.zeros(n, dtype=bool)
            for p in g.parts:
                out |= self._mask(p)
            return out
        raise GroundError("a sequence has no goal frames")

    def valid_frames(self, goal: Goal) -> list[list[int]]:
        if isinstance(goal, GTargets):
            return [np.nonzero(self._mask(t.goal))[0].tolist() for t in goal.targets]
        if isinstance(goal, GThen):
            return []
        return [np.nonzero(self._mask(goal))[0].tolist()]

    def nodes(self, frames: Sequence[int]) -> list[int]:
        return sorted({int(self._nodes[i]) for i in frames if self._nodes[i] >= 0})


def _entity_text(d: Description) -> EntityText:
    return EntityText(d.phrase, d.entity, d.definite, value=d.value)


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
                                     sha256_text(Path(path).read_bytes())))
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
