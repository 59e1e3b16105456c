"""Validate a task suite: every task well-formed, current, checkable, unambiguous, reachable.

For each record of a `suite.jsonl` (`validate_suite`), the checks, each a `Finding` with a
code (`docs/formats/validation-report.md` lists them):

- `schema`: the line is a task record (pydantic, with the JSON path of each fault);
- `scene-changed`: the scene file is the one the suite was compiled on (the manifest's
  sha256);
- `unknown-template`, `stale-template`: its template exists (the built-in library, or the
  file the record names) and has the record's `template_version`;
- `goal-text`: `goal_pddl` is the goal's own PDDL text;
- `goal-type`: the goal type-checks against the template's domain (`check.py`, on a
  problem that declares each entity with its type in the scene);
- `already-true`: the goal does not hold where the task starts (the scene's initial
  state; for a memory task, the world the experience left behind), by the checkers, nor
  the first step of a sequence;
- `ambiguous`: every parameter an instruction names is described uniquely (`Describer`),
  or the template widens the goal and the goal covers the goal of every reading of the
  words (`ground.readings`: each entity they fit in the parameter's place);
- `no-targets`: the answer set is not empty;
- `missing-frames`, `no-valid-frame`: memory tasks have goal frames, and a target
  without a valid frame is an error (`fdc compile` drops such a binding), a warning
  when the task is flagged `target-without-valid-frame` (kept on purpose, as
  FindingDory keeps such tasks);
- with `solve`, for tasks that are acted out: `unreachable`, `timeout`,
  `planner-error`, `plan-refused` (`compiler.planning`: a plan in the planning
  abstraction that the embedded world carries out is the certificate, its length
  recorded; none found is an error naming why the world refused the plans: room,
  action or goal, `REFUSED`). A process task is planned from the scene's initial state, a
  memory-manipulation task (`suite.is_memory_manipulation`) from the world the experience
  left behind; it has no goal frames to check.

The suite's templates, scenes and experiences are found as `reopen` finds them: a memory
task's experience is rebuilt from the manifest beside the suite (a given log, or the same
simulation) and checked against the record's hash.

A record an importer wrote (`fdc import partnr`: `reopen.imported`) has no template and
names a Habitat scene id, not a scene file: `check_imported` runs the checks of the
record itself (`goal-text`, `no-targets`) and, given the imported scene (`--scene`),
`unknown-entity`: every object, receptacle and room the goal names is in the scene;
without one, an `unchecked-start` warning says so. Whether the goal already holds, and
the descriptions, are not checked: there is no template domain or instruction template
to judge them by (`fdc verify` judges the goal on a run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field

from fdc.core.problems import Diagnostic, Severity
from fdc.predicates.algebra import children, junction_parts
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    atoms,
    to_pddl,
)
from fdc.predicates.registry import EvaluationError
from fdc.predicates.verify import judge_at_end
from fdc.sim_bridge.world.plans import PlanStep, format_plan

from .ground import GroundError, ground, readings
from .planning import PlanningError, PlanningWorld
from .reopen import ReopenedSuite, ReopenError, imported, reopen_suite
from .scene_compiler import SceneCompiler
from .suite import TaskRecord, is_memory_manipulation
from .targets import goal_targets
from .templates import TemplateEntry

if TYPE_CHECKING:
    from fdc.instructions.describe import Describer
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot

VALIDATION_REPORT_VERSION = "1.0"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(_Model):
    """One problem with a task (or a line of the suite)."""

    code: str = Field(description="What kind of problem (see the format's page).")
    severity: Literal["error", "warning"]
    message: str
    where: str = Field(default="", description="The JSON path in the record, if any.")
    hint: str = ""


def finding(d: Diagnostic) -> Finding:
    """A problem (an error or a warning) as the report records it, under its task or line."""
    return Finding(code=d.code, severity="error" if d.is_error else "warning",
                   message=d.message, where=d.where, hint=d.hint)


class Certificate(_Model):
    """What the planner said about a task that is acted out (from where it starts)."""

    status: Literal["solved", "unsolvable", "timeout", "error", "refused"]
    planner: str
    length: int | None = Field(default=None, description="Actions in the plan found.")
    plan: list[str] = Field(default_factory=list, description="The plan, one action a line.")
    objects: int = Field(description="Items kept as planning objects.")
    left_out: int = Field(description="Items the goal names only in literals that stay false.")
    forbidden: list[str] = Field(
        default_factory=list, description="Placements (`item on surface`) the embedded world "
        "refused for lack of room, forbidden in the abstraction before the plan was found.")


class TaskReport(_Model):
    id: str
    line: int = Field(description="The record's line in the suite (from 1).")
    template: str
    category: str | None = None
    level: int | None = None
    memory: bool = Field(description="A memory task (it starts where the experience ends).")
    findings: list[Finding] = Field(default_factory=list)
    certificate: Certificate | None = None


class LineReport(_Model):
    """A line of the suite that is not a task record."""

    line: int
    findings: list[Finding]


class ValidationReport(_Model):
    """The result of `fdc validate` (format 2.0: no measured time, so the same inputs give
    the same bytes; `fdc validate` says the time on stderr)."""

    format_version: Literal["2.0"] = "2.0"
    kind: Literal["fdc-validation-report"] = "fdc-validation-report"
    suite: str
    solve: bool = Field(description="Whether reachability was checked with a planner.")
    strict: bool = Field(description="Whether warnings count as errors.")
    tasks: int
    errors: int = Field(description="Error findings, over tasks and lines.")
    warnings: int
    certified: int = Field(description="Tasks with a plan (with `solve`).")
    planned: int = Field(description="Tasks given to the planner (with `solve`).")
    bad_lines: list[LineReport] = Field(default_factory=list)
    task_reports: list[TaskReport] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.errors == 0 and (not self.strict or self.warnings == 0)


@dataclass(frozen=True)
class ValidateOptions:
    scene: str | None = None  # overrides every record's scene
    solve: bool = False
    timeout_s: float = 60.0
    strict: bool = False
    planner: str | None = None  # default: Fast Downward, else pyperplan
    # where no planner's plan is carried out by the world: a second source of plans
    # (task, scene graph, start snapshot -> fdc-home's actions; the CLI gives the
    # manipulation oracle's, `fdc.agents.oracle.oracle_plan`), each checked by
    # `PlanningWorld.accept`, tried before the planner (which is called only where the
    # trace is no certificate)
    oracle: Callable[[TaskRecord, SceneGraph, Snapshot | None], Sequence[PlanStep]] | None \
        = None
    # the posed graphs of the states the tasks meet are shared between them, at most
    # this many kept (`SceneWorlds`, kept by a process for its batches on a world); 0:
    # each state builds its own and each batch its worlds (the same reports;
    # `benchmarks/validate_share.py` compares the two)
    share_posed: int = 512


@dataclass
class _Task:
    record: TaskRecord
    line: int
    findings: list[Diagnostic] = field(default_factory=list)
    certificate: Certificate | None = None

    def add(self, code: str, severity: Severity, message: str, where: str = "",
            hint: str = "") -> None:
        self.findings.append(Diagnostic(severity, code, message, where=where, hint=hint))


def _error(task: _Task, code: str, message: str, where: str = "", hint: str = "") -> None:
    task.add(code, Severity.ERROR, message, where, hint)


# --------------------------------------------------------------------------- scenes


class SceneWorlds:
    """One scene's compiler (and the experience its memory tasks are about), with the
    planning abstraction of each domain and start state, built once, and the posed
    graphs its tasks share (kept by the opened suite for the batches a process runs on
    that world: `ReopenedSuite.kept`)."""

    def __init__(self, compiler: SceneCompiler, share_posed: int = 0) -> None:
        from fdc.sim_bridge.world.shared import PosedShare

        self.compiler = compiler
        self._planning: dict[tuple[str, str], PlanningWorld] = {}
        #: The posed graphs the tasks checked on these worlds share (`sharing`); None:
        #: not shared.
        self.posed: PosedShare | None = PosedShare(share_posed) if share_posed > 0 \
            else None

    def sharing(self) -> AbstractContextManager[object]:
        """While open, the scene's states share their posed graphs (`self.posed`,
        `world.shared.sharing_posed`): the tasks of a batch that meet one state build its
        posed graph once."""
        from contextlib import nullcontext

        from fdc.sim_bridge.world.shared import sharing_posed

        if self.posed is None:
            return nullcontext()
        lent: AbstractContextManager[object] = sharing_posed(self.posed)
        return lent

    def planning(self, entry: TemplateEntry, start: str = "initial") -> PlanningWorld:
        """The abstraction of `entry`'s domain from state `start` of the scene (`initial`,
        or `after`: where the experience leaves the world)."""
        key = (entry.domain.domain.name, start)
        if key not in self._planning:
            c = self.compiler
            self._planning[key] = PlanningWorld(c.facts(entry.domain), c.states[start],
                                                c.registry)
        return self._planning[key]


# --------------------------------------------------------------------------- checks


def _flat(goal: Goal) -> Goal:
    """A plain formula of a goal's parts, for type checking: steps and targets a
    conjunction, a count the conjunction of its atoms."""
    match goal:
        case GThen() | GTargets():
            return GAnd(parts=tuple(_flat(s) for s in children(goal)))
        case GCount():
            return GAnd(parts=tuple(atoms(goal)))
        case GAnd() | GOr():
            return type(goal)(parts=tuple(_flat(p) for p in goal.parts))
        case GAtom() | GNot() | GCluster() | GChecklist():
            return goal
        case _:
            assert_never(goal)


def check_goal_types(tasks: Sequence[_Task], entries: Mapping[str, TemplateEntry],
                     worlds: SceneWorlds) -> None:
    """Type-check every task's goal against its template's domain, all in one `check`
    run: one problem per task declaring each entity with its type in the scene."""
    from fdc.core.problems import SourceFile
    from fdc.domain import builtin_domain_files

    from .check import check_sources

    sources: list[SourceFile] = []
    owner: dict[str, _Task] = {}
    builtin = builtin_domain_files()
    library_paths: set[str] = {str(p) for p in builtin}
    builtin_folder = str(Path(builtin[0]).parent)
    for t in tasks:
        entry = entries.get(t.record.id)
        if entry is None:
            continue
        facts = worlds.compiler.facts(entry.domain)
        constants = set(entry.domain.constants)
        names = sorted({x for a in atoms(t.record.goal) for x in a.args} - constants)
        objects = " ".join(f"{n} - {facts.type_of(n)}" for n in names
                           if facts.type_of(n) is not None)
        text = (f"(define (problem p) (:domain {entry.domain.domain.name})\n"
                f"  (:objects {objects})\n  (:goal {to_pddl(_flat(t.record.goal))}))\n")
        path = f"task {t.record.id}"
        sources.append(SourceFile(path, text))
        owner[path] = t
        if not entry.domain.path.startswith(builtin_folder):
            library_paths.add(entry.domain.path)
    if not sources:
        return
    library = [SourceFile.read(p) for p in sorted(library_paths)]
    result = check_sources(sources, library)
    for d in result.diagnostics:
        t_ = owner.get(d.file)
        if t_ is None or not d.is_error:
            continue
        words = result.sources[d.file].text[d.span.start:d.span.end]
        _error(t_, "goal-type", f"{d.message} [{d.code}]" + (f" at `{words}`" if words else ""),
               "goal", d.hint)


def check_text_and_targets(task: _Task, answer: Sequence[str]) -> None:
    """`goal_pddl` is the goal's text, and `targets` the goal's answer set `answer`."""
    r = task.record
    if r.goal_pddl and r.goal_pddl != to_pddl(r.goal):
        _error(task, "goal-text", "`goal_pddl` is not the goal's PDDL text", "goal_pddl",
               "records are written by `fdc compile`; do not edit one field alone")
    if not r.targets:
        _error(task, "no-targets", "the answer set is empty", "targets",
               "a task needs at least one target entity")
    elif set(r.targets) != set(answer):
        _error(task, "no-targets", "`targets` is not the goal's answer set "
               f"({', '.join(answer) or 'empty'})", "targets")


def check_task(task: _Task, entry: TemplateEntry | None, worlds: SceneWorlds | None) -> None:
    """The checks of one record that need no planner."""
    from fdc.instructions.lint import names_used
    from fdc.instructions.variants import jinja_name

    r = task.record
    check_text_and_targets(task, goal_targets(r.goal))
    memory = r.experience is not None
    if memory and not is_memory_manipulation(r):
        if r.valid_frames is None:
            _error(task, "missing-frames", "a memory task without goal frames",
                   "valid_frames", "compile the suite with an experience log")
        elif any(not f for f in r.valid_frames):
            empty = [r.targets[k] if k < len(r.targets) and len(r.valid_frames) > 1 else "goal"
                     for k, f in enumerate(r.valid_frames) if not f]
            message = f"no valid frame for {', '.join(empty)}"
            if "target-without-valid-frame" in r.flags:
                task.add("no-valid-frame", Severity.WARNING, message, "valid_frames",
                         "an agent cannot succeed by returning to a frame of the log")
            else:
                _error(task, "no-valid-frame", message + " and the task is not flagged",
                       "flags", "`fdc compile` drops such a binding (`no-valid-frame`): "
                       "compile again, or flag a task kept on purpose "
                       "`target-without-valid-frame`")
    if worlds is None or entry is None or any(f.code == "goal-type" for f in task.findings):
        return  # a goal that does not type-check cannot be judged on a state
    start = "after" if memory else "initial"
    if start not in worlds.compiler.states:
        task.add("unchecked-start", Severity.WARNING, "the world after the experience is unknown "
                 "(no manifest beside the suite, or it names no experience): the start "
                 "state and the descriptions were not checked")
        return
    if memory and worlds.compiler.experience_sha256 != r.experience:
        _error(task, "experience", "the experience rebuilt from the manifest is not the "
               "one the task is about (sha256 differs)", "experience",
               "validate the suite beside the manifest it was compiled with")
        return
    what = "the world after the experience" if memory else "the scene's initial state"
    try:
        judge = worlds.compiler.judge(entry.domain, start)
        if judge.already_true(r.goal, r.thresholds):
            _error(task, "already-true", f"the goal already holds in {what}", "goal",
                   "a task must ask for a change; `fdc compile` drops such bindings")
        elif judge.first_step_true(r.goal, r.thresholds):
            _error(task, "already-true", f"the first step of the goal's sequence already "
                   f"holds in {what}", "goal", "each step must ask for a change; `fdc "
                   "compile` drops such bindings")
    except (EvaluationError, KeyError) as e:
        _error(task, "goal-type", f"the goal cannot be judged: {e}", "goal")
        return
    t = entry.template
    describer = worlds.compiler.describer(entry.domain, start)
    used = set().union(*(names_used(text) for text in entry.texts)) if entry.texts else set()
    widened = t.ambiguity != "reject" and r.goal.kind not in ("targets", "then")
    fits: dict[str, tuple[str, ...]] = {}
    for p in t.parameters:
        if jinja_name(p.name) not in used:
            continue
        value = r.bindings.get(p.name)
        if value is None:
            _error(task, "ambiguous", f"the instructions name {p.name}, which the record "
                   "does not bind", "bindings")
            continue
        try:
            d = describer.describe(value, p.types)
        except KeyError:
            _error(task, "ambiguous", f"{p.name} is `{value}`, which is not in the scene",
                   f"bindings.{p.name}")
            continue
        if d.unique:
            continue
        fits[p.name] = d.fits
        if not widened:
            _error(task, "ambiguous",
                   f"“{d.phrase}” ({p.name} = `{value}`) also fits "
                   f"{', '.join(f'`{e}`' for e in d.fits if e != value)}",
                   f"bindings.{p.name}", "the template rejects ambiguous bindings")
    if widened and fits and len(r.bindings) == len(t.parameters):
        _check_widened(task, entry, worlds.compiler, fits)
    experience = worlds.compiler.experience
    check_references(task, describer, frozenset(i.object for i in experience.interactions)
                     if memory and experience is not None else None)


#: How to reword each kind of misleading wording (`fdc.instructions.listen.WORDING`).
WORDING_HINTS = {
    "attachment-ambiguity": "say where the item is in a clause of its own (“Take the "
                            "plate from the table and put it beside the bowl”), or put the "
                            "destination right after the item",
    "nested-repetition": "compile the suite again with this version of fdc (it names "
                         "such a part by its level: “the bottom level of the shelf”), or "
                         "reword the template",
    "punctuation-before-destination": "name the destination without a pronoun for "
                                      "another entity after the item (“the right part of "
                                      "{{ s | ref }}”, not “its right part”): the item's "
                                      "place then goes in a clause of its own",
    "stranded-preposition": "say the place first: “Go to where you picked up what you "
                            "held at 20:26”, not “the spot you lifted what you held at "
                            "20:26 from”",
}


def check_references(task: _Task, describer: Describer,
                     interacted: frozenset[str] | None = None) -> None:
    """`ambiguous-reference`, `wrong-reference`: the listener reads every instruction
    back without the bindings, and each definite mention must fit one entity the task
    is about (`fdc.instructions.listen`); warnings for wording that misleads though
    every mention resolves (`listen.wording`: `attachment-ambiguity`,
    `nested-repetition`, `punctuation-before-destination`, `stranded-preposition`)."""
    from fdc.instructions.listen import about, listen, listener_for, wording

    r = task.record
    entities = about(describer, {*r.bindings.values(), *r.targets,
                                 *goal_entities(r.goal)})
    for k, text in enumerate(r.instructions):
        for code, message in listen(listener_for(describer), text, entities, interacted):
            _error(task, code, message, f"instructions[{k}]",
                   "the describer's words name another entity, or several: compile "
                   "the suite again with this version of fdc, or reword the template")
        for code, message in wording(text):
            task.add(code, Severity.WARNING, message, f"instructions[{k}]",
                     WORDING_HINTS[code])


def _check_widened(task: _Task, entry: TemplateEntry, compiler: SceneCompiler,
                   fits: Mapping[str, tuple[str, ...]]) -> None:
    """A widened goal covers the goal of every reading of the words (`ground.readings`):
    whichever entities the agent takes the words to mean, reaching their goal succeeds."""
    r, t = task.record, entry.template
    assert t.goal is not None
    have = {to_pddl(p) for p in junction_parts(r.goal, "or")}
    facts = compiler.facts(entry.domain)
    try:
        for reading in readings(r.bindings, fits, t.name):
            g = ground(t.goal, reading, facts, template=t.name).goal
            parts = () if g is None else junction_parts(g, "or")
            if any(to_pddl(p) not in have for p in parts):
                other = ", ".join(f"{k} = `{reading[k]}`" for k in sorted(fits))
                _error(task, "ambiguous", f"the words also fit {other}, whose goal the "
                       "widened goal does not cover", "goal",
                       "compile the suite again with this version of fdc")
                return
    except GroundError as e:
        _error(task, "ambiguous", f"the widened goal cannot be checked: {e}", "goal")


def goal_entities(goal: Goal) -> list[str]:
    """Every entity a goal names, once, in order (a count's items and others, a
    cluster's members: not every pair of them)."""
    out: dict[str, None] = {}
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        match g:
            case GCount():
                out.update(dict.fromkeys((*g.items, *g.others)))
            case GCluster():
                out.update(dict.fromkeys(g.entities))
            case GChecklist():
                stack.extend(reversed(g.propositions))
            case GAtom() | GNot() | GAnd() | GOr() | GTargets() | GThen():
                out.update(dict.fromkeys(x for a in atoms(g) for x in a.args))
            case _:
                assert_never(g)
    return list(out)


def check_imported(task: _Task, source: str, opened: ReopenedSuite | None) -> None:
    """The checks of an imported record (the module's docstring): `opened` is None when
    no scene was given."""
    check_text_and_targets(task, goal_targets(task.record.goal))
    if opened is None:
        task.add("unchecked-start", Severity.WARNING,
                 f"imported from {source}: the task's scene `{task.record.scene}` is not an "
                 "fdc scene file, so the goal's entities were not checked",
                 "scene", "give the scene imported with `fdc import habitat` (--scene)")
        return
    graph = opened.graph(task.record)
    missing = [e for e in goal_entities(task.record.goal) if not graph.has(e)]
    if missing:
        shown = ", ".join(f"`{e}`" for e in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        _error(task, "unknown-entity", f"the goal names {shown}{more}, not in the scene",
               "goal", "is the scene the one the episodes were made for?")


def certify(task: _Task, entry: TemplateEntry, worlds: SceneWorlds, timeout_s: float,
            planner: str | None,
            oracle: Callable[[TaskRecord, SceneGraph, Snapshot | None], Sequence[PlanStep]]
            | None = None) -> None:
    """Solve a task that is acted out, from where it starts (a memory-manipulation task:
    the world after the experience); findings for no plan. `oracle`: a second source
    of plans (`ValidateOptions.oracle`), tried first: its trace is the certificate
    where the abstraction and the world accept it, and the planner is called only
    where it is not (`PlanningWorld.certify`'s `trace_first`; the same verdicts)."""
    after = task.record.experience is not None
    world = worlds.planning(entry, "after" if after else "initial")
    try:
        pp = world.build(task.record.id, task.record.goal)
    except PlanningError as e:
        _error(task, "planner-error", f"the goal has no planning problem: {e}", "goal")
        return
    fallback = None if oracle is None else (
        lambda: oracle(task.record, world.graph, world.start))
    res = world.certify(pp, timeout_s, planner, judge_at_end(
        task.record.goal, world.graph, task.record.thresholds), fallback, trace_first=True)
    task.certificate = Certificate(status=res.status, planner=res.planner,
                                   length=res.length,
                                   plan=format_plan(res.plan), objects=len(pp.items),
                                   left_out=pp.left_out, forbidden=res.forbidden)
    if res.status == "unsolvable":
        where = "the world after the experience" if after else "the scene's initial state"
        _error(task, "unreachable", f"no plan reaches the goal from {where} "
               f"({res.planner}: {res.message})", "goal",
               "the goal asks for something no sequence of placements achieves")
    elif res.status == "refused":  # no certificate: an error, with its cause
        why, hint = REFUSED[res.cause or "room"]
        _error(task, "plan-refused", f"no plan the embedded world carries out was found "
               f"({why}): {res.message}", "goal", hint)
    elif res.status == "timeout":
        _error(task, "timeout", f"{res.planner} found no plan within {timeout_s:g} s",
               "goal", "raise --timeout, or simplify the goal")
    elif res.status == "error":
        _error(task, "planner-error", res.message, "goal")


#: What a `plan-refused` finding says of each cause (`planning.Cause`), and its hint.
REFUSED: dict[str, tuple[str, str]] = {
    "room": ("room: the world refused a placement for lack of room in every plan",
             "the planning abstraction does not model free space on surfaces and learns it "
             "only from the world's refusals; raise `fdc --limit plan_rounds=N` or "
             "--timeout, or give the task's items more room (`fdc audit` shows whether the "
             "oracle solves it)"),
    "action": ("action: the world refused an action the planning abstraction allows",
               "the abstraction (domain/fdc-home.pddl's actions) and the embedded world "
               "disagree on what the robot can do; `fdc audit` replays the plan: fix the "
               "action in the domain, or the world"),
    "goal": ("goal: the world carried out the plan, and the checkers do not judge the "
             "goal reached at its end",
             "the planning abstraction and the checkers disagree on a predicate of the "
             "goal (docs/predicates.md says what each checker judges, docs/ci.md what the "
             "abstraction models); `fdc audit` shows the plan and the judgement"),
}


#: Findings after which a task is not given to the planner: its goal cannot be judged,
#: or its start state is not the one it was compiled in.
_UNPLANNED = frozenset({"goal-type", "experience", "unchecked-start"})


def _acted(record: TaskRecord, worlds: SceneWorlds) -> bool:
    """Whether `--solve` plans the task: a process task, or a memory-manipulation task
    whose start state (the world after the experience) is known."""
    if record.experience is None:
        return True
    return is_memory_manipulation(record) and "after" in worlds.compiler.states


# --------------------------------------------------------------------------- the suite


def validate_suite(suite: str | Path, options: ValidateOptions,
                   on_task: Callable[[str], None] | None = None,
                   on_start: Callable[[int], None] | None = None) -> ValidationReport:
    """Validate every line of a suite file (`ReopenError`, or `SceneLoadError` for a scene,
    when an input cannot be read). In shards, cached, on an executor:
    `compiler.suite_runs.validate_run`."""
    opened = open_for_validation(suite, options)
    if on_start is not None:
        on_start(len(opened.lines))
    reports = validate_lines(opened, opened.lines, options, on_task)
    return validation_report(str(suite), options, reports, bad_lines(opened))


def open_for_validation(suite: str | Path, options: ValidateOptions) -> ReopenedSuite:
    """The suite reopened as `validate_suite` reads it (`ReopenError`)."""
    try:
        return reopen_suite(Path(suite), scenes=[options.scene] if options.scene else [])
    except ReopenError as e:
        if e.code == "suite-encoding":
            raise ReopenError(e.code, "not a UTF-8 text file", e.file) from None
        raise


def bad_lines(opened: ReopenedSuite) -> list[LineReport]:
    """The suite's lines that are not task records, as the report lists them."""
    bad: dict[int, list[Diagnostic]] = {}
    for p in opened.problems:
        assert p.line is not None  # a problem of a suite is one of its lines
        bad.setdefault(p.line, []).append(
            replace(p, hint="`fdc schema task` prints the record's JSON Schema"))
    return [LineReport(line=n, findings=[finding(p) for p in f])
            for n, f in sorted(bad.items())]


def validation_report(suite: str, options: ValidateOptions, reports: Sequence[TaskReport],
                      bad: Sequence[LineReport]) -> ValidationReport:
    """The report of the task reports and bad lines of a suite, in line order."""
    every = [f for r in reports for f in r.findings] + [f for b in bad for f in b.findings]
    planned = [r for r in reports if r.certificate is not None]
    return ValidationReport(
        suite=suite, solve=options.solve, strict=options.strict, tasks=len(reports),
        errors=sum(f.severity == "error" for f in every),
        warnings=sum(f.severity == "warning" for f in every),
        certified=sum(r.certificate is not None and r.certificate.status == "solved"
                      for r in planned),
        planned=len(planned),
        bad_lines=list(bad), task_reports=list(reports))


def validate_lines(opened: ReopenedSuite, lines: Sequence[tuple[int, TaskRecord]],
                   options: ValidateOptions, on_task: Callable[[str], None] | None = None
                   ) -> list[TaskReport]:
    """The report of each of these records of an opened suite (with its line), in
    order; each record's report depends on the record alone, not on the others."""
    tasks = [_Task(r, line) for line, r in lines]
    entries: dict[str, TemplateEntry] = {}
    for t in tasks:
        if imported(t.record) is not None:
            continue
        entry, why = opened.template(t.record)
        if entry is None:
            _error(t, "unknown-template", why, "template",
                   "recompile the suite with the current templates")
            continue
        entries[t.record.id] = entry
        if entry.template.version != t.record.template_version:
            _error(t, "stale-template",
                   f"template `{entry.name}` is at version {entry.template.version}, the task "
                   f"was compiled from version {t.record.template_version}",
                   "template_version", "recompile the suite (`fdc compile`)")
    opened.read_manifest()  # one that does not read stops validation before any scene
    by_scene: dict[str, list[_Task]] = {}
    for t in tasks:
        source = imported(t.record)
        if source is not None:
            check_imported(t, source, opened if options.scene else None)
            if on_task is not None:
                on_task(t.record.id)
            continue
        scene = options.scene or t.record.scene
        if scene is None:
            t.add("unchecked-start", Severity.WARNING, "the record names no scene and none was "
                  "given (--scene): only the record itself was checked")
            check_task(t, entries.get(t.record.id), None)
            if on_task is not None:
                on_task(t.record.id)
            continue
        by_scene.setdefault(scene, []).append(t)
    for scene, on_scene in by_scene.items():
        if not opened.scene_path(on_scene[0].record).is_file():
            raise ReopenError("scene-not-found", "no such scene file (give it with --scene)",
                              scene)
        by_world: dict[tuple[Path, str | None], list[_Task]] = {}
        for t in on_scene:  # a scene compiled with several experiences: one world each
            by_world.setdefault(opened.world_key(t.record), []).append(t)
        for group in by_world.values():
            _validate_group(group, scene, entries, opened, options, on_task)
    return [TaskReport(id=t.record.id, line=t.line, template=t.record.template,
                       category=t.record.category, level=t.record.level,
                       memory=t.record.experience is not None,
                       findings=[finding(p) for p in t.findings],
                       certificate=t.certificate) for t in tasks]


def _validate_group(group: Sequence[_Task], scene: str, entries: Mapping[str, TemplateEntry],
                    opened: ReopenedSuite, options: ValidateOptions,
                    on_task: Callable[[str], None] | None) -> None:
    """Check the tasks of one scene that share a compiler (`ReopenedSuite.world_key`)."""
    first = group[0].record
    held = ("validate", opened.world_key(first), options.share_posed)
    worlds = opened.kept.get(held) if options.share_posed > 0 else None
    if worlds is None:  # kept for the next batches on this world run in this process
        worlds = SceneWorlds(opened.compiler(first), options.share_posed)
        if options.share_posed > 0:
            opened.kept[held] = worlds
    compiled = opened.compiled_sha256(first)
    if compiled is not None and compiled != worlds.compiler.scene_sha256:
        for t in group:
            _error(t, "scene-changed", f"{scene} is not the scene the suite was compiled "
                   "on (its sha256 differs from the manifest's)", "scene",
                   "recompile the suite, or validate it with the scene it was made for")
    check_goal_types(group, entries, worlds)
    with worlds.sharing():
        for t in group:
            entry = entries.get(t.record.id)
            check_task(t, entry, worlds)
            if (options.solve and entry is not None and _acted(t.record, worlds)
                    and not any(f.code in _UNPLANNED for f in t.findings)):
                certify(t, entry, worlds, options.timeout_s, options.planner,
                        options.oracle)
            if on_task is not None:
                on_task(t.record.id)


# --------------------------------------------------------------------------- JUnit


def junit_xml(report: ValidationReport) -> str:
    """The report as JUnit XML: one test case per task (and per bad line), a failure per
    error finding (and per warning under --strict); no `time` (JUnit's is optional: the
    same report gives the same bytes)."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="fdc validate")
    suite = ET.SubElement(root, "testsuite", name=report.suite,
                          tests=str(report.tasks + len(report.bad_lines)))
    failures = 0
    for classname, name, findings in junit_cases(report.bad_lines, report.task_reports):
        failures += junit_case(suite, classname, name, findings, report.strict)
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def junit_cases(bad: Iterable[LineReport], tasks: Iterable[TaskReport]
                ) -> Iterator[tuple[str, str, list[Finding]]]:
    """The JUnit test cases (class name, name, findings): the bad lines', then the tasks'."""
    for b in bad:
        yield "suite", f"line {b.line}", b.findings
    for t in tasks:
        yield t.template, t.id, t.findings


def junit_case(parent: Any, classname: str, name: str, findings: list[Finding],
               strict: bool) -> int:
    """A test case under `parent` (an `xml.etree` element): its failures (the error
    findings, and the warnings when `strict`), said back."""
    import xml.etree.ElementTree as ET

    failing = {"error", "warning"} if strict else {"error"}
    case = ET.SubElement(parent, "testcase", classname=classname, name=name)
    failures = 0
    notes = []
    for f in findings:
        where = f" (at {f.where})" if f.where else ""
        if f.severity in failing:
            failures += 1
            node = ET.SubElement(case, "failure", type=f.code, message=f"{f.message}{where}")
            node.text = f.hint or None
        else:
            notes.append(f"{f.severity}[{f.code}]: {f.message}{where}")
    if notes:
        ET.SubElement(case, "system-out").text = "\n".join(notes)
    return failures
