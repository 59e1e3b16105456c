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
                                 anchors, or fitting on a surface only stacked): the
                                 oracle's trace, else it drops (`CompileOptions.witness`;
                                 start_checks.needs_witness, only_stacked)
                                 then a task with the goal and instructions of one kept
                                 before drops as a duplicate

then the driver (`compiler.shards`) merges the scenes' records into the suite and
`compiler.emit` counts the manifest. Every pass is timed
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

Each template is handed where its tasks start (`SceneCompiler.start`: a frozen
`start.TemplateStart`), and the passes read the scene through it alone. Which scenes,
days and templates are compiled, and in which order they merge, is the driver's
(`compiler.shards`, the only one: `fdc compile`, the examples and the benchmarks).
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fdc.predicates.goal import Goal, atoms
from fdc.predicates.registry import EvaluationError

from .bind import BindError, Draw, random_order, why_no_binding
from .drops import Drop, DropCode
from .frames import GoalFrames, goal_frames
from .ground import GroundError, ground, widen
from .options import seeded_rng
from .record import task_record
from .reports import Outcome, SceneResult, TemplateReport
from .scene_compiler import SceneCompiler
from .scene_facts import FactsError
from .start import TemplateStart
from .start_checks import check_start, needs_witness, only_stacked
from .suite import TaskRecord
from .targets import goal_targets
from .templates import TemplateEntry, is_memory_template
from .timings import Pass, Timings
from .wording import describe_parameters, describe_targets, render_variants


def compile_templates(compiler: SceneCompiler, entries: Sequence[TemplateEntry],
                      timings: Timings | None = None) -> SceneResult:
    """Every template on the prepared scene, in name order."""
    timings = Timings() if timings is None else timings
    records: list[TaskRecord] = []
    reports: list[TemplateReport] = []
    for entry in sorted(entries, key=lambda e: e.name):
        report = compile_template(compiler, entry, timings=timings)
        reports.append(report)
        records.extend(report.records)
    return SceneResult(compiler.scene, compiler.scene_sha256, records, reports, timings)


def compile_template(compiler: SceneCompiler, entry: TemplateEntry, explain: bool = False,
                     timings: Timings | None = None) -> TemplateReport:
    """One template on the scene: bind, each binding through `compile_binding` until K
    have become tasks. A limit or a checker
    refusing stops the whole template, with the error in the report; with `explain`, the
    report keeps what became of every binding visited."""
    timings = Timings() if timings is None else timings
    report = TemplateReport(entry.name, entry.path, entry.category, entry.level)
    options = compiler.options
    if compiler.no_experience is not None and \
            is_memory_template(entry.template, compiler.registry):
        report.error = f"skipped: {compiler.no_experience}"
        return report
    try:
        start = compiler.start(entry)
        seed = seeded_rng(options.seed, entry.name, compiler.scene_sha256)
        draw = timings.run(Pass.BIND, random_order, entry.template, start.state_facts,
                           seed=seed.randrange(2**63), limit=options.bind_limit,
                           every=options.max_per_template is None)
    except (BindError, GroundError, FactsError, EvaluationError) as e:
        report.error = _error_text(e, entry)
        return report
    try:
        kept = _visit(compiler, entry, draw, start, report, explain, timings)
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
            report.unbound = why_no_binding(entry.template, start.state_facts,
                                            limit=options.bind_limit)
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


def _visit(compiler: SceneCompiler, entry: TemplateEntry, draw: Draw, start: TemplateStart,
           report: TemplateReport, explain: bool, timings: Timings
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
        made = compile_binding(compiler, entry, binding, start, timings)
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
                    start: TemplateStart, timings: Timings) -> TaskRecord | Drop:
    """One binding through the passes, in order: its task record, or the `Drop` of the
    first pass that drops it. The order decides which reason a binding is counted under
    (the module's docstring says why it is this one). The passes read the scene through
    `start` (the compiler gives the renderer and the options)."""
    t, run, options = entry.template, timings.run, compiler.options
    assert t.goal is not None  # checked: every template has a goal
    words = run(Pass.DESCRIBE, describe_parameters, start.describer, entry, binding)
    if isinstance(words, Drop):
        return words
    goal: Goal | Drop = run(Pass.GROUND, ground, t.goal, binding, start.facts,
                            max_atoms=options.max_atoms, template=t.name).outcome
    if isinstance(goal, Drop):
        return goal
    drop = run(Pass.START_CHECKS, check_start, start, goal)
    if drop is not None:
        return drop
    if words.ambiguous:
        if goal.kind in ("targets", "then"):  # each target needs its own stop
            return words.ambiguity(binding)
        goal = run(Pass.GROUND, widen, t.goal, binding, words.fits, goal, start.facts,
                   max_atoms=options.max_atoms, template=entry.name)
    targets = goal_targets(goal)
    values = run(Pass.DESCRIBE, describe_targets, start.describer, words, targets)
    rendered = run(Pass.RENDER, render_variants, compiler.renderer, entry.texts, values)
    if isinstance(rendered, Drop):
        return rendered
    frames: GoalFrames | Drop | None = None
    if start.frames is not None:
        # answered by frames of the experience (a memory-manipulation task is acted out)
        frames = run(Pass.FRAMES, goal_frames, goal, targets, start.pose, *start.frames())
    if isinstance(frames, Drop):
        return frames
    record = run(Pass.RECORD, task_record, start, entry, binding, goal, targets, rendered,
                 frames)
    witness = options.witness
    if witness is None:
        return record
    holds = start.judge.holds(atoms(goal)).__getitem__
    if needs_witness(goal, holds, start.judge.registry) or only_stacked(start, goal, holds):
        why = run(Pass.WITNESS, witness, record, start.graph, start.after)
        if why is not None:
            return Drop(DropCode.UNSOLVED, why)
    return record
