"""The compile pipeline: scenes and checked templates become task records, pass by pass.

    per scene       prepare      load and build the scene, load or simulate the
                                 experience, the start states        (compiler.prepare)
    per template    bind         the bindings, in a seeded random order (compiler.bind)
    per binding     describe     the parameters the instructions name (compiler.wording)
                    ground       the goal                               (compiler.ground)
                    start checks no target, already true, infeasible    (compiler.start_checks)
                    ground       widened over ambiguous descriptions    (compiler.ground)
                    describe     the goal's targets                     (compiler.wording)
                    render       the instruction variants               (compiler.wording)
                    frames       a memory task's goal frames and walk   (compiler.frames)
                                 (not a memory-manipulation task: it is acted out)
                    record       the task record                        (compiler.record)
                    witness      a goal the geometric rules cannot decide (items by
                                 anchors): the oracle's trace, else it drops
                                 (`CompileOptions.witness`; start_checks.needs_witness)
                                 then a task with the goal and instructions of one kept
                                 before drops as a duplicate

then `compiler.emit` builds the manifest and writes the suite. Every pass is timed
(`Timings`); the times never change what is compiled.

The first pass that drops a binding says why (a typed `Drop`), and the manifest counts
the binding under that reason alone, so the order of the binding passes is part of the
output. Describe comes before ground because it is cheap and, in a large scene, most
bindings of a template that names its entities drop there (`:ambiguity reject`) while
a goal over the whole scene is not cheap to ground. Widening grounds again, after the
start checks, because the checks judge the binding's own goal; the targets are
described once the goal, widened or not, is final.

`--max-per-template K` takes K tasks per template: the complete, sorted list of bindings
is visited in an order shuffled with the seed (and the template's name) until K bindings
have become tasks, so the K are a uniform sample of the bindings that make tasks, and
only what is visited is paid for. Every binding visited and dropped is counted by reason.

Scenes compile independently (in shards, on an executor: `compiler.shards`) and merge in
the order given (a scene file whose content an earlier one has is compiled again with an id
scope, `twin_scopes`, so task ids stay unique), and records are sorted by template and
binding, so the output is the same for any number of workers.

A scene with several experiences (days: `--history` logs, `--experiences K`) is one job
per day, in day order. Day 1 compiles every template; a later day its memory templates
alone (`job_entries`), whose task ids hold the day's experience, so they differ from
day to day and the ids of day 1 are those of a one-day compile. Two days of one scene
with the same experience would make the same tasks: an input error (`check_days`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from fdc.core.errors import InputError
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import Goal, atoms
from fdc.predicates.registry import EvaluationError

from .bind import BindError, Draw, random_order, why_no_binding
from .compile import (
    CompileOptions,
    Outcome,
    SceneCompiler,
    SceneResult,
    SuiteResult,
    TemplateEntry,
    TemplateReport,
    goal_targets,
    is_memory_manipulation_template,
    is_memory_template,
    seeded_rng,
)
from .drops import Drop, DropCode
from .frames import GoalFrames, goal_frames
from .ground import GroundError, ground, widen
from .manifest import ExperienceRef
from .prepare import SceneJob, prepare_scene
from .record import task_record, task_start
from .scene_facts import FactsError
from .start_checks import check_start, needs_witness
from .suite import TaskRecord
from .timings import Pass, Timings
from .wording import describe_parameters, describe_targets, render_variants

SceneOutput = tuple[SceneResult, ExperienceRef | None]


def compile_suite(
    jobs: Sequence[SceneJob],
    entries: Sequence[TemplateEntry],
    options: CompileOptions,
    on_template: Callable[[TemplateEntry], None] | None = None,
) -> tuple[SuiteResult, list[ExperienceRef | None]]:
    """Compile every scene in this process, in memory (`compiler.shards` compiles in
    shards, cached, on an executor). A later simulated day is left out when no template
    reads the experience."""
    registry = default_registry()
    if not any(is_memory_template(e.template, registry) for e in entries):
        jobs = [j for j in jobs if j.day == 1 or j.history is not None]
    done = [compile_scene(job, entries, options, on_template) for job in jobs]
    check_days(jobs, [ref for _, ref in done])
    for k, scope in twin_scopes(jobs, [s.scene_sha256 for s, _ in done]).items():
        done[k] = compile_scene(replace(jobs[k], id_scope=scope), entries, options)
    timings = Timings()
    for scene, _ in done:
        timings.merge(scene.timings)
    records = [rec for scene, _ in done for rec in scene.records]
    return SuiteResult(records, [s for s, _ in done], timings), [e for _, e in done]


def twin_scopes(jobs: Sequence[SceneJob], shas: Sequence[str]) -> dict[int, str]:
    """The jobs whose scene file has a content an earlier file has too (by index), each
    with its id scope: `PATH#N`, its path as given and N, its rank among the files of that
    content (2, 3, ...); a file's later days share its scope. The first file of a content
    keeps no scope, so the ids of a compile without twins are what they always were."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    scope: str | None = None
    for k, (job, sha) in enumerate(zip(jobs, shas, strict=True)):
        if job.day == 1:
            seen[sha] = seen.get(sha, 0) + 1
            scope = f"{job.path}#{seen[sha]}" if seen[sha] > 1 else None
        if scope is not None:
            out[k] = scope
    return out


def check_days(jobs: Sequence[SceneJob], refs: Sequence[ExperienceRef | None]) -> None:
    """`InputError` when two days of one scene file have the same experience (their
    memory tasks would be the same tasks, under the same ids)."""
    days: dict[str, int] = {}
    for job, ref in zip(jobs, refs, strict=True):
        if job.day == 1:
            days = {}
        if ref is None:
            continue
        if ref.sha256 in days:
            hint = ("give each day its own log" if ref.path is not None else
                    "simulate more --interactions, or fewer --experiences")
            raise InputError(f"{job.path}: days {days[ref.sha256]} and {job.day} have the same "
                             f"experience (sha256 {ref.sha256[:12]}...): their memory tasks "
                             f"would be the same; hint: {hint}")
        days[ref.sha256] = job.day


def job_entries(job: SceneJob, entries: Sequence[TemplateEntry]) -> list[TemplateEntry]:
    """The templates a job compiles: every one on day 1, the memory templates later."""
    if job.day == 1:
        return list(entries)
    registry = default_registry()
    return [e for e in entries if is_memory_template(e.template, registry)]


def compile_scene(job: SceneJob, entries: Sequence[TemplateEntry], options: CompileOptions,
                  on_template: Callable[[TemplateEntry], None] | None = None) -> SceneOutput:
    """Prepare one scene and compile every template on it (in this process)."""
    timings = Timings()
    registry = default_registry()
    entries = job_entries(job, entries)
    needs = any(is_memory_template(e.template, registry) for e in entries)
    compiler, ref = prepare_scene(job, options, timings, needs_experience=needs)
    return compile_templates(compiler, entries, on_template, timings), ref


def compile_templates(compiler: SceneCompiler, entries: Sequence[TemplateEntry],
                      on_template: Callable[[TemplateEntry], None] | None = None,
                      timings: Timings | None = None) -> SceneResult:
    """Every template on the prepared scene, in name order."""
    timings = Timings() if timings is None else timings
    records: list[TaskRecord] = []
    reports: list[TemplateReport] = []
    for entry in sorted(entries, key=lambda e: e.name):
        report = compile_template(compiler, entry, timings=timings)
        reports.append(report)
        records.extend(report.records)
        if on_template is not None:
            on_template(entry)
    return SceneResult(compiler.scene, compiler.scene_sha256, records, reports, timings)


def compile_template(compiler: SceneCompiler, entry: TemplateEntry, explain: bool = False,
                     timings: Timings | None = None) -> TemplateReport:
    """One template on the scene: bind, each binding through `compile_binding` until K
    have become tasks. A limit or a checker
    refusing stops the whole template, with the error in the report; with `explain`, the
    report keeps what became of every binding visited."""
    timings = Timings() if timings is None else timings
    report = TemplateReport(entry.name, entry.path, entry.category, entry.level)
    try:
        start, memory = compiler.start(entry)
        if memory and compiler.no_experience is not None:
            report.error = f"skipped: {compiler.no_experience}"
            return report
        seed = seeded_rng(compiler.options.seed, entry.name, compiler.scene_sha256)
        facts = compiler.state_facts(entry.domain, start)
        draw = timings.run(Pass.BIND, random_order, entry.template, facts,
                           seed=seed.randrange(2**63), limit=compiler.options.bind_limit,
                           every=compiler.options.max_per_template is None)
    except (BindError, GroundError, FactsError, EvaluationError) as e:
        report.error = _error_text(e, entry)
        return report
    try:
        kept = _visit(compiler, entry, draw, start, memory, report, explain, timings)
    except (BindError, GroundError, EvaluationError) as e:  # a limit, a checker refusing
        report.error = _error_text(e, entry)
        return report
    for drop, n in draw.dropped().items():
        if drop.counted:
            report.drop(drop, {}, n)
    report.bindings = draw.estimate or 0
    report.sampled = draw.sampled
    if explain and not report.bindings and not draw.sampled:
        try:
            report.unbound = why_no_binding(entry.template, facts,
                                            limit=compiler.options.bind_limit)
        except (BindError, GroundError, EvaluationError) as e:
            report.unbound = [f"undecided: {e}"]
    report.records = [r for _, r in sorted(kept, key=lambda p: p[0])]
    report.tasks = len(report.records)
    report.outcomes.sort(key=lambda o: tuple(o.binding.values()))
    return report


def _error_text(e: Exception, entry: TemplateEntry) -> str:
    """The error's message, after `file:line:column` of the part of the template's goal
    it is about, when it names one."""
    if isinstance(e, GroundError) and e.span is not None:
        line, column = entry.source.position(e.span.start)
        return f"{entry.path}:{line}:{column}: {e}"
    return str(e)


def _visit(compiler: SceneCompiler, entry: TemplateEntry, draw: Draw, start: str,
           memory: bool, report: TemplateReport, explain: bool, timings: Timings
           ) -> list[tuple[tuple[str, ...], TaskRecord]]:
    """Draw bindings until K have become tasks; count the others by reason. A task with
    the goal and instructions of one kept before is that task again (two readings of the
    same widened words, say): it drops, naming the task kept."""
    k = compiler.options.max_per_template
    kept: list[tuple[tuple[str, ...], TaskRecord]] = []
    tasks: dict[tuple[str, tuple[str, ...]], str] = {}  # (goal, instructions) -> task id
    for binding in timings.each(Pass.BIND, draw.bindings):
        if k is not None and len(kept) >= k:
            break
        report.visited += 1
        made = compile_binding(compiler, entry, binding, start, memory, timings)
        if not isinstance(made, Drop):
            same = tasks.setdefault((made.goal_pddl, tuple(sorted(made.instructions))),
                                    made.id)
            if same != made.id:
                made = Drop(DropCode.DUPLICATE, same)
        if isinstance(made, Drop):
            report.drop(made, binding)
            outcome = Outcome(dict(binding), reason=made)
        else:
            kept.append((tuple(binding[n] for n in draw.parameters), made))
            outcome = Outcome(dict(binding), record=made)
        if explain:
            report.outcomes.append(outcome)
    return kept


def compile_binding(compiler: SceneCompiler, entry: TemplateEntry, binding: Mapping[str, str],
                    start: str, memory: bool, timings: Timings) -> TaskRecord | Drop:
    """One binding through the passes, in order: its task record, or the `Drop` of the
    first pass that drops it. The order decides which reason a binding is counted under
    (the module's docstring says why it is this one)."""
    t, run = entry.template, timings.run
    assert t.goal is not None  # checked: every template has a goal
    facts, describer = compiler.facts(entry.domain), compiler.describer(entry.domain, start)
    words = run(Pass.DESCRIBE, describe_parameters, describer, entry, binding)
    if isinstance(words, Drop):
        return words
    goal: Goal | Drop = run(Pass.GROUND, ground, t.goal, binding, facts,
                            max_atoms=compiler.options.max_atoms, template=t.name).outcome
    if isinstance(goal, Drop):
        return goal
    drop = run(Pass.START_CHECKS, check_start, compiler, goal, entry.domain, start)
    if drop is not None:
        return drop
    if words.ambiguous:
        if goal.kind in ("targets", "then"):  # each target needs its own stop
            return words.ambiguity(binding)
        goal = run(Pass.GROUND, widen, t.goal, binding, words.fits, goal, facts,
                   max_atoms=compiler.options.max_atoms, template=entry.name)
    targets = goal_targets(goal)
    values = run(Pass.DESCRIBE, describe_targets, describer, words, targets)
    rendered = run(Pass.RENDER, render_variants, compiler.renderer, entry.texts, values)
    if isinstance(rendered, Drop):
        return rendered
    frames: GoalFrames | Drop | None = None
    if memory and start == "after" and not is_memory_manipulation_template(t, compiler.registry):
        # answered by frames of the experience (a memory-manipulation task is acted out)
        frames = run(Pass.FRAMES, goal_frames, goal, targets, task_start(compiler, start),
                     *compiler.goal_frames())
    if isinstance(frames, Drop):
        return frames
    record = run(Pass.RECORD, task_record, compiler, entry, binding, goal, targets, rendered,
                 start, memory, frames)
    witness = compiler.options.witness
    if witness is not None and needs_witness(
            goal, compiler.judge(entry.domain, start, atoms(goal)).__getitem__):
        after = compiler.states[start].snapshot if start == "after" else None
        why = run(Pass.WITNESS, witness, record, compiler.graph, after)
        if why is not None:
            return Drop(DropCode.UNSOLVED, why)
    return record
