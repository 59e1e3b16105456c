"""The audit's checks: each task of a suite judged, independently, by every model fdc has.

fdc has three models of the world: the planning abstraction (`compiler/planning/`,
behind `fdc validate --solve`), the embedded world that agents act in
(`sim_bridge/world/embedded.py`, through `agents/`) and the checkers that judge
(`predicates/`). A task is sound when they agree on it. `audit_task` asks, for a task
that is acted out (a process task, from the scene's initial state; a
memory-manipulation task, from the world the experience left behind, where the plan,
its replay, the agents and the start judgement all begin):

- `plan`: the planner certifies it (a plan in the abstraction, as `--solve` finds it);
- `replay`: that plan, acted out step by step in the embedded world
  (`sim_bridge/world/plans.py`), reaches the goal by the checkers, every action done;
- `oracle`: the oracle agent's trace succeeds (`fdc evaluate`'s scoring);
- `idle`: an agent that ends at once fails (its success: the goal is already true);
- `random`: the random agent (seeded) fails: its trace does not reach the goal;
- `start`: the checkers and the abstraction judge the goal alike where the task starts
  (each step of a sequence and each target of a multi-goal holding at once);
- `answer`: the record's targets are the goal's answer set, not empty;

and for a memory task (it starts where the experience ends; the agents answer with
frames): `oracle`, `idle` (the last frame, where the robot stands), `answer`,

- `random`: a random answer is right at most as often as `AuditOptions.chance_bound`
  says (default: half the time). The random agent answers with uniformly drawn frames,
  so whether one seeded answer succeeds is luck (a room the robot spent a third of the
  day in is hit by a third of all frames); its exact chance of success, from the valid
  frames (`random_frames_chance`), is what the check judges. The seeded answer is still
  judged, and its success where that chance is 0 is a disagreement too (the record's
  frames and the judge disagree). A sequence, which has no frame lists, is judged by
  the seeded answer alone;

and

- `frames`: every target has valid frames;
- `l-star`: L*, the shortest walk from the start through valid frames, is finite;
- `walk`: an agent walking the L* route in the embedded world (the oracle's low-level
  run) succeeds;
- `pixels`: the geometric valid frames agree with what the camera sees, by the pixel
  rule on frames rendered as they were (`evaluation/audit/pixels.py`, within its stated
  tolerance); `n/a` when the audit runs without rendering (`AuditOptions.pixels` off, or
  no EGL on the machine: the reason is given) or the goal needs nothing in view.

A check that does not apply to a task is `n/a`, with the reason. Each check is run on
its own: a failure of one (no plan) does not hide another (the oracle's), except where
one needs the other's output (no plan: nothing to replay). Nothing here is timed or
random beyond the seeded agents, so an audit is the same on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.baselines import random_actions, random_frames, random_frames_chance
from fdc.agents.env import is_manipulation
from fdc.agents.oracle import (
    TaskOracle,
    Unsolvable,
    oracle_frames,
    oracle_run,
)
from fdc.compiler.planning import PlanningError, holds_initially
from fdc.compiler.reopen import ReopenError, imported
from fdc.compiler.targets import goal_targets
from fdc.compiler.validate import SceneWorlds
from fdc.evaluation.audit import DEFAULT_CHANCE_BOUND
from fdc.evaluation.manipulation import score_manipulation
from fdc.evaluation.memory import (
    MemoryWorld,
    frame_problem,
    frames_expected,
    score_frames,
    score_run,
    valid_frame_lists,
)
from fdc.predicates.algebra import children
from fdc.predicates.goal import Goal, GTargets, GThen, atoms
from fdc.predicates.registry import EvaluationError
from fdc.predicates.verify import evaluate, judge_at_end, verify_snapshots
from fdc.sim_bridge.world.plans import PlanReplay, replay_plan
from fdc.sim_bridge.world.shared import PosedShare, sharing_posed

if TYPE_CHECKING:
    from fdc.compiler.planning import PlanningProblem
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.compiler.templates import TemplateEntry
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.render.pixels import FrameRenders
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot

#: Every check, in the order of the report's columns, and the question it asks.
CHECKS: dict[str, str] = {
    "plan": "the planner certifies the task (a plan in the planning abstraction)",
    "replay": "the plan, acted out in the embedded world, reaches the goal by the checkers",
    "oracle": "the oracle agent succeeds",
    "idle": "an idle agent fails (when it succeeds, the goal is already true)",
    "random": "a random agent fails (a memory task: its chance of success is at most the "
              "bound)",
    "start": "the checkers and the abstraction judge the goal alike where the task starts",
    "answer": "the record's targets are the goal's answer set",
    "frames": "every target has valid frames",
    "l-star": "L*, the shortest walk through valid frames, is finite",
    "walk": "an agent walking the L* route in the embedded world succeeds",
    "pixels": "the valid frames' targets are seen in the rendered frames (the pixel rule)",
}
#: The checks of a task that is acted out (a process or a memory-manipulation task), and
#: of a memory task.
PROCESS = ("plan", "replay", "oracle", "idle", "random", "start", "answer")
MEMORY = ("oracle", "idle", "random", "answer", "frames", "l-star", "walk", "pixels")

Status = Literal["agree", "disagree", "n/a"]



@dataclass(frozen=True)
class Outcome:
    """One check's result on one task, and what it found (its words, deterministic)."""

    status: Status
    detail: str = ""


def agree(detail: str = "") -> Outcome:
    return Outcome("agree", detail)


def disagree(detail: str) -> Outcome:
    return Outcome("disagree", detail)


def not_applicable(detail: str) -> Outcome:
    return Outcome("n/a", detail)


@dataclass(frozen=True)
class AuditOptions:
    timeout_s: float = 60.0  # the planner's, per task
    planner: str | None = None  # default: Fast Downward, else pyperplan
    seed: int = 0  # the random agent's
    #: A memory task fails the `random` check when a random answer's exact chance of
    #: success is above this share (module doc).
    chance_bound: float = DEFAULT_CHANCE_BOUND
    #: Render the memory tasks' frames and run the `pixels` check (needs EGL).
    pixels: bool = False
    #: Why the `pixels` check is off, when it is (the report says so).
    pixels_off: str = ""


@dataclass
class TaskAudit:
    """A task's outcomes by check (every check of `CHECKS`), and what a reproducer needs:
    the plan replayed when its replay disagrees."""

    record: TaskRecord
    line: int
    outcomes: dict[str, Outcome]
    replay: PlanReplay | None = field(default=None, repr=False)

    @property
    def memory(self) -> bool:
        """The task starts where the experience ends."""
        return self.record.experience is not None

    @property
    def acted(self) -> bool:
        """The task is acted out (a process or a memory-manipulation task), not
        answered with frames."""
        return bool(is_manipulation(self.record))


# --------------------------------------------------------------------------- scenes


class SceneModels:
    """What the checks of one scene's tasks share: the graph, the compiler (its start
    states, the checkers' judgements there), the planning abstraction per domain and,
    for memory tasks, the experience, its judging world and the walker of L*."""

    def __init__(self, suite: ReopenedSuite, record: TaskRecord) -> None:
        self.suite = suite
        self.graph: SceneGraph = suite.graph(record)
        self.compiler = suite.compiler(record)
        self.worlds = SceneWorlds(self.compiler)
        self._memory: dict[str, tuple[Experience, MemoryWorld]] = {}
        self._renders: dict[str, FrameRenders] = {}
        self._after: dict[str, Snapshot | None] = {}
        self._walker: Walker | None = None
        #: The posed graphs of the arrangements its tasks' worlds meet (`world.shared`).
        self.posed = PosedShare()

    def after(self, record: TaskRecord) -> Snapshot | None:
        """The world a task starts in when it is not the scene's initial state: where
        the experience left it (a memory-manipulation task); None for a process task."""
        if record.experience is None:
            return None
        if record.experience not in self._after:
            from fdc.compiler.start import start_snapshots

            self._after[record.experience] = start_snapshots(self.graph,
                                                             self.memory(record)[0])[1]
        return self._after[record.experience]

    def memory(self, record: TaskRecord) -> tuple[Experience, MemoryWorld]:
        """The experience a memory task is about and the world it is judged in."""
        sha = record.experience or ""
        found = self._memory.get(sha)
        if found is None:
            log = self.suite.experience(record)
            found = self._memory[sha] = (log, MemoryWorld(self.graph, log))
        return found

    def renders(self, record: TaskRecord) -> FrameRenders:
        """The frames of a memory task's experience as the camera saw them (rendered on
        demand, kept for the tasks that follow)."""
        from fdc.sim_bridge.render.pixels import FrameRenders, robot_camera

        sha = record.experience or ""
        found = self._renders.get(sha)
        if found is None:
            log = self.memory(record)[0]
            found = self._renders[sha] = FrameRenders(
                self.graph, log, robot_camera(self.graph),
                base_dir=self.suite.scene_path(record).parent)
        return found

    @property
    def walker(self) -> Walker:
        from fdc.sim_bridge.graph.routes import Walker

        if self._walker is None:
            self._walker = Walker(self.graph.nav)
        return self._walker


# --------------------------------------------------------------------------- tasks


def audit_task(record: TaskRecord, line: int, entry: TemplateEntry | None,
               models: SceneModels | None, options: AuditOptions) -> TaskAudit:
    """Every check of one task (module doc); `models` is None for a record an importer
    wrote (nothing to audit it by: every check `n/a`)."""
    outcomes: dict[str, Outcome] = {}
    replay: PlanReplay | None = None
    source = imported(record)
    if source is not None or models is None or entry is None:
        why = f"imported from {source}: no template to audit it by" if source else \
            "no template or scene to audit it by"
        return TaskAudit(record, line, dict.fromkeys(CHECKS, not_applicable(why)))
    if record.experience is not None and not is_manipulation(record):
        outcomes = _memory_checks(record, models, options)
    else:
        outcomes, replay = _process_checks(record, entry, models, options)
    outcomes["answer"] = _answer(record)
    ordered = {name: outcomes.get(name) or not_applicable(_why_not(name, record))
               for name in CHECKS}
    keep = replay if ordered["replay"].status == "disagree" else None
    return TaskAudit(record, line, ordered, keep)


def _why_not(check: str, record: TaskRecord) -> str:
    if check in PROCESS:
        return "a memory task is answered with frames, not acted out"
    if record.experience is not None:
        return "a memory-manipulation task is acted out: it has no goal frames"
    return "not a memory task"


def _answer(record: TaskRecord) -> Outcome:
    answer = goal_targets(record.goal)
    if not record.targets:
        return disagree("the record's answer set is empty")
    if set(record.targets) != set(answer):
        return disagree(f"targets {', '.join(record.targets)}; the goal's answer set "
                        f"{', '.join(answer) or '(empty)'}")
    return agree(f"{len(answer)} target(s)")


# ----- process tasks ---------------------------------------------------------------------


def _process_checks(record: TaskRecord, entry: TemplateEntry, models: SceneModels,
                    options: AuditOptions) -> tuple[dict[str, Outcome], PlanReplay | None]:
    out: dict[str, Outcome] = {}
    replay: PlanReplay | None = None
    after = models.after(record)
    # the task's one oracle run, shared by the certificate's fallback and the oracle check
    oracle = shared = TaskOracle(record, models.graph, after)
    start = "initial" if record.experience is None else "after"
    if start in models.compiler.states and (
            record.experience is None or record.experience == models.compiler.experience_sha256):
        out["start"], problem = _start(record, entry, models, start)
        if problem is None:
            out["plan"] = disagree(out["start"].detail)
            out["replay"] = not_applicable("no plan")
        else:
            reached = judge_at_end(record.goal, models.graph, record.thresholds)
            world = models.worlds.planning(entry, start)
            if world.graph is not models.graph:  # not the world the oracle's check acts in
                oracle = TaskOracle(record, world.graph, world.start)
            # the oracle's trace is the certificate where the abstraction and the world
            # accept it (as `fdc validate --solve`'s): the planner only where it is not
            res = world.certify(problem, options.timeout_s, options.planner, reached,
                                oracle.plan, trace_first=True)
            if res.status != "solved":
                cause = f" ({res.cause})" if res.cause else ""
                out["plan"] = disagree(f"{res.planner}: {res.status}{cause}: {res.message}")
                out["replay"] = not_applicable("no plan")
            else:
                out["plan"] = agree(f"{res.length} action(s) ({res.planner})")
                # the certificate's own replay when certify kept it (the same plan, world
                # and start): not acted out twice
                replay = res.replay if res.replay is not None and \
                    res.replayed == res.plan and world.graph is models.graph else \
                    replay_plan(res.plan, models.graph, after, reached)
                out["replay"] = _judge_replay(record, replay, models.graph)
    else:
        out["start"] = out["plan"] = disagree(
            "the world after the experience is not known: the manifest beside the suite "
            "names no experience, or not the task's")
        out["replay"] = not_applicable("no plan")
    graph = models.graph
    try:
        actions = shared.actions()
    except Unsolvable as e:
        out["oracle"] = disagree(f"the oracle finds no trace: {e}")
    else:
        result = score_manipulation(record, actions, graph, after)
        out["oracle"] = agree(f"{result.steps} action(s)") if result.success else \
            disagree(f"the oracle's trace fails: {result.verdict}")
    idle = score_manipulation(record, [AgentAction(action=ActionName.CALL_END)], graph, after)
    out["idle"] = disagree("an agent that ends at once succeeds: the goal is already "
                           "true at the start") if idle.success else agree(idle.verdict)
    trace = random_actions(record, graph, options.seed, after)
    chance = score_manipulation(record, trace, graph, after)
    out["random"] = disagree(f"the random agent (seed {options.seed}) succeeds in "
                             f"{chance.steps} action(s)") if chance.success else \
        agree(chance.verdict)
    return out, replay


def _start(record: TaskRecord, entry: TemplateEntry, models: SceneModels, start: str
           ) -> tuple[Outcome, PlanningProblem | None]:
    """The checkers' and the abstraction's judgement of the goal where the task starts
    (state `start` of the scene), and the task's planning problem (None, and the reason,
    when it has none)."""
    try:
        problem = models.worlds.planning(entry, start).build(record.id, record.goal)
    except PlanningError as e:
        return disagree(f"the goal has no planning problem: {e}"), None
    parts = _parts(record.goal)
    try:
        holds = models.compiler.judge(entry.domain, start).holds(
            [a for p in parts for a in atoms(p)], record.thresholds)
        checkers = all(evaluate(p, 0, lambda a, _i: holds[a]) for p in parts)
    except (EvaluationError, KeyError) as e:
        return disagree(f"the checkers cannot judge the goal: {e}"), problem
    abstraction = holds_initially(problem)
    said = f"the checkers find the goal {_truth(checkers)} at the start, the abstraction " \
        f"{_truth(abstraction)}"
    return (agree(said) if checkers == abstraction else disagree(said)), problem


def _parts(goal: Goal) -> list[Goal]:
    """What must hold at once for the goal to be reached before any action: each step of
    a sequence, each target of a multi-goal, else the goal."""
    match goal:
        case GThen() | GTargets():
            return list(children(goal))
        case _:
            return [goal]


def _truth(value: bool) -> str:
    return "true" if value else "false"


def _judge_replay(record: TaskRecord, replay: PlanReplay, graph: SceneGraph) -> Outcome:
    verdict = verify_snapshots({record.id: record.goal}, graph, replay.snapshots,
                               thresholds={record.id: record.thresholds})[record.id]
    if replay.refused is not None:
        return disagree(f"the world refuses action {replay.refused} of the plan, "
                        f"{replay.reason}")
    if not verdict.success:
        return disagree(f"every action done, but by the checkers {verdict.reason}")
    return agree(f"{len(replay.snapshots) - 2} action(s) done, the goal verified")


# ----- memory tasks ----------------------------------------------------------------------


def _memory_checks(record: TaskRecord, models: SceneModels, options: AuditOptions
                   ) -> dict[str, Outcome]:
    out: dict[str, Outcome] = {}
    log, world = models.memory(record)
    lists = valid_frame_lists(record)
    if record.valid_frames is None:
        out["frames"] = disagree("the record has no goal frames")
    elif not lists or not all(lists):
        names = [record.targets[k] if k < len(record.targets) and len(lists) > 1 else "goal"
                 for k, f in enumerate(lists) if not f] or ["goal"]
        out["frames"] = disagree(f"no valid frame for {', '.join(names)}")
    else:
        out["frames"] = agree(f"{sum(map(len, lists))} valid frame(s)")
    lstar = record.optimal_path_m
    out["l-star"] = agree(f"{lstar:g} m") if lstar is not None and math.isfinite(lstar) \
        else disagree("L* is not finite: no walk from the start through valid frames")
    want = frames_expected(record)
    chosen = oracle_frames(record, models.graph, log, models.walker)
    out["oracle"] = _frames_verdict(record, chosen, world, "the oracle's frames",
                                    should_succeed=True)
    last = world.frame_count - 1
    out["idle"] = not_applicable("a sequence has no goal frames") if want == 0 else \
        _frames_verdict(record, [last] * want, world, "the last frame (where the task "
                        "starts)", should_succeed=False)
    out["random"] = _random_frames(record, log, world, options)
    try:
        run = oracle_run(record, models.graph, log, chosen)
    except Unsolvable as e:
        out["walk"] = disagree(f"the walk along L* cannot be made: {e}")
    else:
        ll = score_run(record, run, models.graph, "")
        out["walk"] = agree(f"{ll.walked_m} m walked") if ll.ll_sr else \
            disagree(f"the walk through frames {', '.join(map(str, chosen))} fails: "
                     f"{ll.reason}")
    out["pixels"] = _pixels(record, models, world, options)
    return out


def _pixels(record: TaskRecord, models: SceneModels, world: MemoryWorld,
            options: AuditOptions) -> Outcome:
    """The `pixels` check (`evaluation/audit/pixels.py`)."""
    from fdc.evaluation.audit.pixels import compare, describe, seen_atoms
    from fdc.sim_bridge.render.context import RenderUnavailable

    if not options.pixels:
        return not_applicable(options.pixels_off or "not asked for (--no-pixels)")
    if not seen_atoms(record):
        return not_applicable("the goal needs nothing in view")
    try:
        c = compare(record, world, models.renders(record))
    except RenderUnavailable as e:
        return not_applicable(f"cannot render: {e}")
    return agree(describe(c)) if c.agrees else disagree(describe(c))


def _random_frames(record: TaskRecord, log: Experience, world: MemoryWorld,
                   options: AuditOptions) -> Outcome:
    """The random agent on a memory task, judged by its exact chance of success (module
    doc): its seeded answer is judged too, and must not succeed where it has no chance."""
    run = _frames_verdict(record, random_frames(record, log, options.seed), world,
                          f"the random agent's frames (seed {options.seed})",
                          should_succeed=False)
    chance = random_frames_chance(record, world.frame_count)
    if chance is None:  # a sequence: no frame lists to take the chance from
        return run
    said = f"{run.detail}; its chance of success {chance} " \
        f"({float(chance):.1%}, bound {options.chance_bound:.0%})"
    if run.status == "disagree" and chance == 0:
        return disagree(f"{said}: it succeeds where the valid frames give it no chance, "
                        "so the record's frames and the judge disagree")
    if chance > options.chance_bound:
        return disagree(f"{said}: a random answer is right too often")
    return agree(said)


def _frames_verdict(record: TaskRecord, frames: Sequence[int], world: MemoryWorld,
                    who: str, *, should_succeed: bool) -> Outcome:
    """The frames `who` chose, judged as `fdc evaluate` judges them (HL-SR)."""
    problem = frame_problem(record, frames, world.frame_count)
    if problem is not None:
        success, reason = False, problem[1]
    else:
        score = score_frames(record, frames, world)
        success, reason = score.hl_sr, score.reason
    said = f"{who} {', '.join(map(str, frames))}: " + \
        ("success" if success else f"failure ({reason})")
    if success == should_succeed:
        return agree(said)
    if success and "last frame" in who:
        said += ": the goal already holds where the task starts"
    return disagree(said)


# --------------------------------------------------------------------------- the suite


def check_inputs(suite: ReopenedSuite, lines: Sequence[tuple[int, TaskRecord]]) -> None:
    """Find and check every input the records need before any work (`ReopenError`,
    `SceneLoadError`): templates, scenes, experiences."""
    compiled = [r for _, r in lines if imported(r) is None]
    for r in compiled:
        entry, why = suite.template(r)
        if entry is None:
            raise ReopenError("unknown-template", f"task `{r.id}`: {why}",
                              str(suite.path))
    suite.load(compiled, [r for r in compiled if r.experience is not None])


def audit_suite(suite: ReopenedSuite, lines: Sequence[tuple[int, TaskRecord]],
                options: AuditOptions, on_task: Callable[[str], None] | None = None
                ) -> list[TaskAudit]:
    """Audit each record (with its line in the suite), in order, every input checked
    first (`check_inputs`). On executors, cached: `workers.audit_run`."""
    check_inputs(suite, lines)
    out = []
    for audit in audit_lines(suite, lines, options, {}):
        out.append(audit)
        if on_task is not None:
            on_task(audit.record.id)
    return out


def audit_lines(suite: ReopenedSuite, lines: Sequence[tuple[int, TaskRecord]],
                options: AuditOptions, models: dict[Hashable, SceneModels]
                ) -> Iterator[TaskAudit]:
    """Each record's audit, in order; `models` keeps each world's models (a scene and
    the experience its tasks start after) for the records that follow."""
    for line, r in lines:
        entry, m = None, None
        if imported(r) is None:
            entry = suite.template(r)[0]
            key = suite.world_key(r)  # a scene compiled with several experiences: one each
            m = models.get(key)
            if m is None:
                m = models[key] = SceneModels(suite, r)
        if m is None:
            yield audit_task(r, line, entry, m, options)
            continue
        # every world the task's checks run meets the same arrangements: one posed graph
        # (and its placement answers) for each, kept for the world's later tasks too
        with sharing_posed(m.posed):
            audit = audit_task(r, line, entry, m, options)
        yield audit
