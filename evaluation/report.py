"""The evaluation report: its format, how a suite and a predictions file become one, and
its tables.

`build_report` matches predictions to tasks and checks them (a line that is not a
prediction, an unknown task, a memory task answered with actions or a manipulation task
with frames, a wrong number of frames, a frame outside the history, an unreadable run:
errors, each scored as a failure and located; a task without a prediction: a warning,
scored as a failure), then scores memory tasks with `fdc.evaluation.memory` and
manipulation tasks with `fdc.evaluation.manipulation.score_manipulation`, and averages
the scores per category, per level and overall (`summarise`). Rates are fractions in
[0, 1]; manipulation points are 0-100.

High-level metrics are reported when some memory prediction names frames, low-level ones
when some names a trajectory; a memory task without them then counts as a failure.
See docs/formats/evaluation-report.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from fdc.agents.predictions import Prediction
from fdc.compiler.suite import TaskRecord, is_memory_manipulation
from fdc.core.problems import Diagnostic, Severity, did_you_mean, render_message
from fdc.core.version import __version__
from fdc.evaluation.memory import (
    START_TOLERANCE_M,
    HighLevelScore,
    LowLevelScore,
    MemoryWorld,
    failed_frames,
    failed_run,
    frame_problem,
    frames_expected,
    score_frames,
    score_run,
    solvable,
    start_offset_m,
)

if TYPE_CHECKING:
    from rich.table import Table

    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot

#: Metric keys and their names in tables and plots, in column order.
MEMORY_METRICS: dict[str, str] = {
    "hl_sr": "HL-SR", "hl_spl": "HL-SPL", "dtg_sr": "DTG-SR", "sc_sr": "SC-SR",
    "ll_sr": "LL-SR", "ll_spl": "LL-SPL", "solvable": "solvable",
}
MANIPULATION_METRICS: dict[str, str] = {"success_rate": "success", "points": "points"}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(_Model):
    """A problem with the predictions, located in the predictions file where it can be."""

    severity: Literal["error", "warning"]
    code: str = Field(description="bad-line, unknown-task, wrong-kind, empty-prediction, "
                      "wrong-frame-count, frame-out-of-range, no-goal-frames, "
                      "bad-trajectory, run-start, bad-actions, missing-prediction, "
                      "missing-frames, missing-trajectory, no-answer.")
    message: str
    task_id: str | None = None
    line: int | None = Field(default=None, description="Line of the predictions file.")
    where: str = Field(default="", description="JSON path inside that line.")
    hint: str = ""


def finding(d: Diagnostic) -> Finding:
    """A problem (an error or a warning; its entity, if any, the task) as the report
    records it."""
    return Finding(severity="error" if d.is_error else "warning", code=d.code,
                   message=d.message, task_id=d.entities[0] if d.entities else None,
                   line=d.line, where=d.where, hint=d.hint)


class MemoryTaskScore(_Model):
    """One memory task's scores."""

    task_id: str
    template: str
    category: str | None = None
    level: int | None = None
    targets: int = Field(description="Frames a prediction names (one per target).")
    solvable: bool = Field(description="Every target has a valid frame.")
    optimal_path_m: float | None = Field(description="L*, the task's `optimal_path_m`.")
    high: HighLevelScore | None = Field(
        default=None, description="None when no prediction of the run names frames.")
    low: LowLevelScore | None = Field(
        default=None, description="None when no prediction of the run names a trajectory.")


class ManipulationTaskScore(_Model):
    """One manipulation task's scores (`score_manipulation`'s result, summarised)."""

    task_id: str
    template: str
    category: str | None = None
    level: int | None = None
    success: bool
    points: float = Field(ge=0, le=100)
    stage: int = Field(ge=0, description="Stages reached (4 of 25 points each).")
    steps: int = Field(ge=0, description="Actions replayed.")
    reason: str = Field(default="", description="The verifier's verdict, or why the task "
                        "was not scored.")


class GroupRow(_Model):
    """Mean scores of one group of tasks."""

    kind: Literal["memory", "manipulation"]
    by: Literal["overall", "category", "level", "solvable"]
    name: str = Field(description="The category or level (`-`: none), or `all`. "
                      "`solvable`: the memory tasks whose every target has a valid "
                      "frame (`all`).")
    tasks: int
    metrics: dict[str, float] = Field(
        description="Memory: hl_sr, hl_spl, dtg_sr, sc_sr (with frames), ll_sr, ll_spl "
        "(with trajectories), solvable; manipulation: success_rate, points.")


class EvaluationReport(_Model):
    """What `fdc evaluate` found (format 1.0)."""

    format_version: Literal["1.0"] = "1.0"
    kind: Literal["fdc-evaluation-report"] = "fdc-evaluation-report"
    fdc_version: str
    suite: str
    suite_sha256: str
    predictions: str
    predictions_sha256: str
    tasks: int = Field(description="Tasks in the suite.")
    predicted: int = Field(description="Tasks with a prediction.")
    errors: int
    warnings: int
    summary: list[GroupRow]
    memory: list[MemoryTaskScore]
    manipulation: list[ManipulationTaskScore]
    findings: list[Finding]


# ----------------------------------------------------------------------------- building


class Sources(Protocol):
    """Where scoring finds a task's scene graph and the experience a memory task is about
    (a reopened suite: `fdc.compiler.reopen`)."""

    def graph(self, task: TaskRecord) -> SceneGraph: ...

    def experience(self, task: TaskRecord) -> Experience: ...


@dataclass
class Evaluation:
    report: EvaluationReport
    feedback: list[Any] = field(default_factory=list)  # ManipulationResult, per task scored


def is_memory(task: TaskRecord) -> bool:
    """Scored with the memory metrics (frames, runs); a memory-manipulation task is not:
    it is acted out and scored with the manipulation metrics."""
    if is_memory_manipulation(task):
        return False
    return task.experience is not None or task.valid_frames is not None or \
        "memory" in task.tags


class _Builder:
    def __init__(self, sources: Sources, trajectory_root: Path) -> None:
        self.sources = sources
        self.root = trajectory_root
        self.findings: list[Diagnostic] = []
        self.feedback: list[Any] = []
        self._runs: dict[tuple[str, str], tuple[list[Snapshot], str | None]] = {}
        self._worlds: dict[tuple[str, str], MemoryWorld] = {}
        self._afters: dict[tuple[str, str], Snapshot | None] = {}
        self._scorer: Callable[..., Any] | None = None

    def find(self, severity: Literal["error", "warning"], code: str, message: str,
             task: str | None, line: int | None, where: str = "", hint: str = "") -> None:
        self.findings.append(Diagnostic(Severity(severity), code, message, line=line,
                                        where=where, hint=hint,
                                        entities=(task,) if task is not None else ()))

    # ----- memory ------------------------------------------------------------------
    def memory(self, task: TaskRecord, pred: Prediction | None, line: int | None,
               high: bool, low: bool) -> MemoryTaskScore:
        usable = pred is not None
        if pred is None:
            self.find("warning", "missing-prediction", "no prediction for this memory "
                      "task: scored as a failure", task.id, None)
        elif pred.actions is not None:
            usable = False
            self.find("error", "wrong-kind", "a memory task is answered with `frames` "
                      "(and a `trajectory`), not `actions`", task.id, line, "actions")
        elif pred.frames is None and pred.trajectory is None:
            usable = False
            self.find("error", "empty-prediction", "the prediction names neither frames "
                      "nor a trajectory", task.id, line)
        hl = ll = None
        if high:
            frames = pred.frames if usable and pred is not None else None
            if frames is None:
                if usable:
                    self.find("warning", "missing-frames", "no frames predicted (other "
                              "predictions name some): HL metrics score a failure",
                              task.id, line, "frames")
                hl = failed_frames(None, "no frames predicted")
            else:
                hl = self._frames(task, frames, line)
        if low:
            run = pred.trajectory if usable and pred is not None else None
            if run is None:
                if usable:
                    self.find("warning", "missing-trajectory", "no trajectory (other "
                              "predictions name one): LL metrics score a failure",
                              task.id, line, "trajectory")
                ll = failed_run(None, "no trajectory")
            else:
                ll = self._run(task, run, line)
        return MemoryTaskScore(
            task_id=task.id, template=task.template, category=task.category,
            level=task.level, targets=frames_expected(task), solvable=solvable(task),
            optimal_path_m=task.optimal_path_m, high=hl, low=ll)

    def _frames(self, task: TaskRecord, frames: list[int], line: int | None
                ) -> HighLevelScore:
        if not frames and frames_expected(task) > 0:
            self.find("warning", "no-answer", "the agent gave no answer (`frames` is empty): "
                      "scored as a failure", task.id, line, "frames")
            return failed_frames([], "no answer")
        if frames_expected(task) == 0:
            problem = frame_problem(task, frames, 0)
        else:
            world = self._world(task)
            problem = frame_problem(task, frames, world.frame_count)
            if problem is None:
                return score_frames(task, frames, world)
        assert problem is not None
        code, message = problem
        hint = "a `targets` / `ordered-targets` goal takes one frame per target (in the " \
            "order of its targets when ordered); any other goal takes one frame" \
            if code == "wrong-frame-count" else ""
        self.find("error", code, message, task.id, line, "frames", hint)
        return failed_frames(frames, message)

    def _world(self, task: TaskRecord) -> MemoryWorld:
        """The world a memory task is judged in: one per scene and experience."""
        key = (task.scene or "", task.experience or "")
        found = self._worlds.get(key)
        if found is None:
            found = self._worlds[key] = MemoryWorld(self.sources.graph(task),
                                                    self.sources.experience(task))
        return found

    def _run(self, task: TaskRecord, run: str, line: int | None) -> LowLevelScore:
        graph = self.sources.graph(task)
        snapshots, problem = self._read_run(run, task.scene or "", graph)
        code = "bad-trajectory"
        if problem is None:
            off = start_offset_m(task, snapshots)
            if off > START_TOLERANCE_M:
                code = "run-start"
                problem = (f"the run starts {off:.2f} m from the task's start pose "
                           f"(more than {START_TOLERANCE_M} m)")
        if problem is not None:
            self.find("error", code, f"{run}: {problem}", task.id, line, "trajectory")
            return failed_run(run, problem)
        return score_run(task, snapshots, graph, run)

    def _read_run(self, run: str, scene: str, graph: SceneGraph
                  ) -> tuple[list[Snapshot], str | None]:
        """A run's snapshots, or what is wrong with it (read once per scene)."""
        found = self._runs.get((run, scene))
        if found is None:
            from fdc.sim_bridge.world.trajectory import (
                TrajectoryError,
                read_trajectory,
                scene_problems,
            )

            try:
                header, snapshots = read_trajectory(self.root / run)
            except TrajectoryError as e:
                found = ([], "; ".join(render_message(p) for p in e.problems[:3]))
            else:
                bad = scene_problems(graph, header, snapshots)
                found = (snapshots, "; ".join(render_message(p) for p in bad[:3]) or None)
            self._runs[(run, scene)] = found
        return found

    # ----- manipulation ------------------------------------------------------------
    def manipulation(self, task: TaskRecord, pred: Prediction | None, line: int | None
                     ) -> ManipulationTaskScore:
        reason = ""
        if pred is None:
            reason = "no prediction"
            self.find("warning", "missing-prediction", "no prediction for this "
                      "manipulation task: scored as a failure", task.id, None)
        elif pred.actions is None:
            reason = "no actions"
            self.find("error", "wrong-kind", "a manipulation task is answered with "
                      "`actions`", task.id, line,
                      "frames" if pred.frames is not None else "")
        else:
            try:
                result = self._score_manipulation(task, pred)
            except ValueError as e:
                reason = str(e)
                self.find("error", "bad-actions", reason, task.id, line, "actions")
            else:
                self.feedback.append(result)
                return ManipulationTaskScore(
                    task_id=task.id, template=task.template, category=task.category,
                    level=task.level, success=bool(result.success),
                    points=float(result.points), stage=int(result.stage),
                    steps=int(result.steps), reason=str(result.verdict))
        return ManipulationTaskScore(
            task_id=task.id, template=task.template, category=task.category,
            level=task.level, success=False, points=0.0, stage=0, steps=0, reason=reason)

    def _score_manipulation(self, task: TaskRecord, pred: Prediction) -> Any:
        if self._scorer is None:
            from fdc.evaluation.manipulation import score_manipulation

            self._scorer = score_manipulation
        return self._scorer(task, list(pred.actions or []), self.sources.graph(task),
                            self._after(task))

    def _after(self, task: TaskRecord) -> Snapshot | None:
        """Where a task that starts after the experience starts: the world the experience
        left behind (one per scene and experience); None for a process task."""
        if task.experience is None:
            return None
        key = (task.scene or "", task.experience)
        if key not in self._afters:
            from fdc.compiler.start import start_snapshots

            graph = self.sources.graph(task)
            self._afters[key] = start_snapshots(graph, self.sources.experience(task))[1]
        return self._afters[key]


def build_report(
    records: Sequence[TaskRecord],
    predictions: Sequence[tuple[int, Prediction]],
    problems: Iterable[Diagnostic],
    sources: Sources,
    *,
    suite: str,
    suite_sha256: str,
    predictions_file: str,
    predictions_sha256: str,
    trajectory_root: Path,
    on_task: Callable[[TaskRecord], None] | None = None,
) -> Evaluation:
    """Score every task of the suite on its prediction (see the module)."""
    b = _Builder(sources, trajectory_root)
    b.findings.extend(problems)
    by_id = {r.id: r for r in records}
    mine: dict[str, tuple[int, Prediction]] = {}
    for n, p in predictions:
        if p.task_id not in by_id:
            b.find("error", "unknown-task", f"no task `{p.task_id}` in the suite", None,
                   n, "task_id", did_you_mean(p.task_id, list(by_id)))
        else:
            mine[p.task_id] = (n, p)
    memory_preds = [q for i, (_, q) in mine.items() if is_memory(by_id[i])]
    high = any(q.frames is not None and q.actions is None for q in memory_preds)
    low = any(q.trajectory is not None and q.actions is None for q in memory_preds)
    memory: list[MemoryTaskScore] = []
    manipulation: list[ManipulationTaskScore] = []
    for task in records:
        line: int | None = None
        pred: Prediction | None = None
        if task.id in mine:
            line, pred = mine[task.id]
        if is_memory(task):
            memory.append(b.memory(task, pred, line, high, low))
        else:
            manipulation.append(b.manipulation(task, pred, line))
        if on_task is not None:
            on_task(task)
    # In the order of the predictions file; tasks without a prediction last (suite order).
    findings = [finding(f) for _, f in sorted(enumerate(b.findings), key=lambda p: (
        p[1].line is None, p[1].line or 0, p[0]))]
    errors = sum(f.severity == "error" for f in findings)
    report = EvaluationReport(
        fdc_version=__version__, suite=suite, suite_sha256=suite_sha256,
        predictions=predictions_file, predictions_sha256=predictions_sha256,
        tasks=len(records), predicted=len(mine), errors=errors,
        warnings=len(findings) - errors, summary=summarise(memory, manipulation),
        memory=memory, manipulation=manipulation, findings=findings)
    return Evaluation(report, b.feedback)


# ----------------------------------------------------------------------------- summary


def _mean(values: Sequence[float], digits: int = 4) -> float:
    return round(sum(values) / len(values), digits) if values else 0.0


def memory_metrics(scores: Sequence[MemoryTaskScore]) -> dict[str, float]:
    out: dict[str, float] = {}
    highs = [s.high for s in scores if s.high is not None]
    if highs:
        out["hl_sr"] = _mean([h.hl_sr for h in highs])
        out["hl_spl"] = _mean([h.hl_spl for h in highs])
        out["dtg_sr"] = _mean([h.dtg_sr for h in highs])
        out["sc_sr"] = _mean([h.sc_sr for h in highs])
    lows = [s.low for s in scores if s.low is not None]
    if lows:
        out["ll_sr"] = _mean([lo.ll_sr for lo in lows])
        out["ll_spl"] = _mean([lo.ll_spl for lo in lows])
    out["solvable"] = _mean([s.solvable for s in scores])
    return out


def manipulation_metrics(scores: Sequence[ManipulationTaskScore]) -> dict[str, float]:
    return {"success_rate": _mean([s.success for s in scores]),
            "points": _mean([s.points for s in scores], 2)}


def _level_key(name: str) -> tuple[int, str]:
    return (0, f"{int(name):09d}") if name.lstrip("-").isdigit() else (1, name)


def summarise(memory: Sequence[MemoryTaskScore],
              manipulation: Sequence[ManipulationTaskScore]) -> list[GroupRow]:
    """Means per kind of task: overall, per category, per level (`-`: none)."""
    rows: list[GroupRow] = []
    kinds: list[tuple[Literal["memory", "manipulation"], Sequence[Any],
                      Callable[[Sequence[Any]], dict[str, float]]]] = [
        ("memory", memory, memory_metrics), ("manipulation", manipulation,
                                             manipulation_metrics)]
    for by in ("overall", "category", "level"):
        for kind, scores, metrics in kinds:
            if not scores:
                continue
            groups: dict[str, list[Any]] = {}
            for s in scores:
                key = "all" if by == "overall" else (s.category or "-") if by == "category" \
                    else (str(s.level) if s.level is not None else "-")
                groups.setdefault(key, []).append(s)
            order = sorted(groups, key=_level_key if by == "level" else str)
            rows.extend(GroupRow(kind=kind, by=by, name=name,
                                 tasks=len(groups[name]), metrics=metrics(groups[name]))
                        for name in order)
    # FindingDory keeps tasks whose targets lack valid frames: the same metrics over the
    # others show how an agent does where the task can be done.
    fit = [s for s in memory if s.solvable]
    if memory and len(fit) < len(memory):
        rows.append(GroupRow(kind="memory", by="solvable", name="all", tasks=len(fit),
                             metrics=memory_metrics(fit)))
    return rows


# ----------------------------------------------------------------------------- tables


def _cell(key: str, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if key == "points" else f"{100 * value:.1f}%"


def tables(report: EvaluationReport) -> list[Table]:
    """One table per kind of task: its categories, its levels, then all of them."""
    from rich.table import Table

    out = []
    for kind, names in (("memory", MEMORY_METRICS), ("manipulation", MANIPULATION_METRICS)):
        rows = [r for r in report.summary if r.kind == kind]
        if not rows:
            continue
        keys = [k for k in names if any(k in r.metrics for r in rows)]
        table = Table(title=f"{kind} tasks")
        table.add_column("group")
        table.add_column("tasks", justify="right")
        for k in keys:
            table.add_column(names[k], justify="right")
        levels = [r for r in rows if r.by == "level"]
        sections = [[r for r in rows if r.by == "category"],
                    levels if any(r.name != "-" for r in levels) else [],
                    [r for r in rows if r.by in ("overall", "solvable")]]
        for section in [s for s in sections if s]:
            if table.row_count:
                table.add_section()
            for r in section:
                label = f"level {r.name}" if r.by == "level" else \
                    "solvable" if r.by == "solvable" else r.name
                table.add_row(label, str(r.tasks), *(_cell(k, r.metrics.get(k)) for k in keys))
        out.append(table)
    return out
