"""The browser's data: an index of every task (facets as integer codes into value lists,
ids, the first instruction for search), and, in chunks of `CHUNK` tasks loaded when a
task is opened, each task's record as the suite holds it with its statuses and agents'
outcomes. docs/browse.md documents the format.

The builders are pure: records, reports and scored runs in, JSON-ready dicts out, in
suite order and with sorted value lists, so the same inputs give the same bytes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fdc.compiler.manifest import Manifest
    from fdc.compiler.suite import TaskRecord
    from fdc.compiler.validate import ValidationReport
    from fdc.evaluation.audit.report import AuditReport
    from fdc.evaluation.report import EvaluationReport

BROWSE_FORMAT_VERSION = "1.0"
#: Tasks per detail file (`tasks/NNNN.js`): a task page loads one such file.
CHUNK = 500
#: Shown for a task a facet has no value for.
NONE = "(none)"


@dataclass(frozen=True)
class Run:
    """One agent's predictions, scored: a name and, per task id, its outcome."""

    name: str
    outcomes: dict[str, dict[str, Any]]


@dataclass
class Extras:
    """What is shown beside the suite: reports, scored runs, scene maps, experiences."""

    validation: ValidationReport | None = None
    audit: AuditReport | None = None
    runs: list[Run] = field(default_factory=list)
    scenes: dict[str, dict[str, Any]] = field(default_factory=dict)  # record.scene -> map
    experiences: dict[str, dict[str, Any]] = field(default_factory=dict)  # sha -> timeline
    experience_names: dict[str, str] = field(default_factory=dict)  # sha -> a label
    strips: dict[str, dict[str, Any]] = field(default_factory=dict)  # sha -> its thumbnails
    views: dict[str, str] = field(default_factory=dict)  # task id -> its view's thumbnail
    thumbs: dict[str, Path] = field(default_factory=dict)  # site path -> source PNG


# ----------------------------------------------------------------------------- statuses


def validation_status(report: ValidationReport) -> dict[str, tuple[str, dict[str, Any]]]:
    """Task id -> (status, details): `errors`, `warnings` or `valid`, and, when the
    planner was run, its certificate (the plan with it)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for t in report.task_reports:
        severities = {f.severity for f in t.findings}
        status = "errors" if "error" in severities else \
            "warnings" if "warning" in severities else "valid"
        detail: dict[str, Any] = {"findings": [f.model_dump(mode="json") for f in t.findings]}
        if t.certificate is not None:
            c = t.certificate
            detail["certificate"] = {"status": c.status, "planner": c.planner,
                                     "length": c.length, "plan": c.plan}
        out[t.id] = (status, detail)
    return out


def audit_status(report: AuditReport) -> dict[str, tuple[str, dict[str, Any]]]:
    """Task id -> (`agree` or `disagree`, every check's status and detail)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for t in report.task_results:
        status = "disagree" if any(c.status == "disagree" for c in t.checks.values()) \
            else "agree"
        out[t.id] = (status, {k: c.model_dump(mode="json") for k, c in t.checks.items()})
    return out


def run_outcomes(report: EvaluationReport, predicted: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Task id -> outcome (`success`, `failure`, `not predicted`) and what the agent did:
    the frames it chose and its trajectory file (memory), its actions (manipulation)."""
    preds = {p.task_id: p for p in predicted}
    out: dict[str, dict[str, Any]] = {}
    for m in report.memory:
        p = preds.get(m.task_id)
        got: dict[str, Any] = {"outcome": "not predicted" if p is None else "failure"}
        if m.high is not None and p is not None:
            got.update(outcome="success" if m.high.hl_sr else "failure", frames=m.high.frames,
                       reason=m.high.reason, hl_spl=m.high.hl_spl)
        if m.low is not None and p is not None:
            got["low"] = m.low.model_dump(mode="json")
        if p is not None and p.trajectory is not None:
            got["trajectory"] = p.trajectory
        out[m.task_id] = got
    for s in report.manipulation:
        p = preds.get(s.task_id)
        if p is None:
            out[s.task_id] = {"outcome": "not predicted"}
            continue
        out[s.task_id] = {
            "outcome": "success" if s.success else "failure", "points": s.points,
            "stage": s.stage, "steps": s.steps, "reason": s.reason,
            "actions": [" ".join([a.action, *([a.target] if a.target else []), *a.regions])
                        for a in p.actions or []]}
    return out


# ----------------------------------------------------------------------------- the index


def _level_key(value: str) -> tuple[int, str]:
    return (0, value.zfill(6)) if value.isdigit() else (1, value)


def _facet(key: str, label: str, values: Sequence[str], numeric: bool = False
           ) -> dict[str, Any]:
    """A facet: its sorted distinct values and one code per task."""
    distinct = sorted(set(values), key=_level_key if numeric else None)
    code = {v: k for k, v in enumerate(distinct)}
    return {"key": key, "label": label, "values": distinct, "codes": [code[v] for v in values]}


def facets(records: Sequence[TaskRecord], extras: Extras,
           statuses: dict[str, dict[str, tuple[str, dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The facets the table filters by, in the order the page shows them."""
    out = [
        _facet("category", "category", [r.category or NONE for r in records]),
        _facet("level", "level", [NONE if r.level is None else str(r.level) for r in records],
               numeric=True),
        _facet("template", "template", [r.template for r in records]),
        _facet("scene", "scene", [r.scene or NONE for r in records]),
        _facet("experience", "experience", [
            NONE if r.experience is None else
            extras.experience_names.get(r.experience, r.experience[:12]) for r in records]),
    ]
    for key, by_id in statuses.items():
        out.append(_facet(key, key, [by_id[r.id][0] if r.id in by_id else "not " + {
            "validation": "validated", "audit": "audited"}[key] for r in records]))
    if not statuses:
        out.append(_facet("flags", "flags", [", ".join(r.flags) or NONE for r in records]))
    for k, run in enumerate(extras.runs):
        out.append(_facet(f"run{k}", f"outcome: {run.name}", [
            run.outcomes.get(r.id, {}).get("outcome", "not predicted") for r in records]))
    return out


def manifest_view(manifest: Manifest | None) -> dict[str, Any] | None:
    """The manifest as the page shows it: drops by reason with an example of each (the
    first template, by name, that has one), and per-template counts."""
    if manifest is None:
        return None
    examples: dict[str, dict[str, Any]] = {}
    for name in sorted(manifest.per_template):
        for reason, ex in sorted(manifest.per_template[name].drop_examples.items()):
            examples.setdefault(reason, {"template": name, **ex.model_dump(mode="json")})
    return {
        "seed": manifest.seed, "tasks": manifest.tasks, "fdc_version": manifest.fdc_version,
        "scenes": [{"path": s.path, "tasks": s.tasks} for s in manifest.scenes],
        "drops": [{"reason": reason, "count": n, "example": examples.get(reason)}
                  for reason, n in sorted(manifest.drops.items(), key=lambda p: (-p[1], p[0]))],
        "templates": [{"name": name, "category": t.category, "level": t.level,
                       "bindings": t.bindings, "visited": t.visited, "tasks": t.tasks,
                       "dropped": sum(t.drops.values()), "errors": t.errors}
                      for name, t in sorted(manifest.per_template.items())],
    }


def index_data(records: Sequence[TaskRecord], extras: Extras, manifest: Manifest | None,
               suite: str) -> dict[str, Any]:
    """The index (`data.js`): see the module."""
    statuses = _statuses(extras)
    checks = dict(extras.audit.checks) if extras.audit is not None else {}
    return {
        "format_version": BROWSE_FORMAT_VERSION, "kind": "fdc-browse-data", "suite": suite,
        "tasks": len(records), "chunk": CHUNK,
        "ids": [r.id for r in records],
        "texts": [r.instructions[0] if r.instructions else r.goal_pddl for r in records],
        "facets": facets(records, extras, statuses),
        "runs": [run.name for run in extras.runs], "checks": checks,
        "scenes": extras.scenes,
        "experiences": {sha: {**x, "thumbs": extras.strips[sha]} if sha in extras.strips
                        else x for sha, x in extras.experiences.items()},
        "manifest": manifest_view(manifest),
    }


def _statuses(extras: Extras) -> dict[str, dict[str, tuple[str, dict[str, Any]]]]:
    out: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
    if extras.validation is not None:
        out["validation"] = validation_status(extras.validation)
    if extras.audit is not None:
        out["audit"] = audit_status(extras.audit)
    return out


# ----------------------------------------------------------------------------- details


def task_extras(task_id: str, extras: Extras,
                statuses: dict[str, dict[str, tuple[str, dict[str, Any]]]]) -> dict[str, Any]:
    """What a task's page shows beside its record: its statuses (`validation`: findings
    and the planner's plan; `audit`: every check) and each agent's outcome (`runs`)."""
    d: dict[str, Any] = {key: by_id[task_id][1] for key, by_id in statuses.items()
                         if task_id in by_id}
    if task_id in extras.views:
        d["view"] = extras.views[task_id]
    if extras.runs:
        d["runs"] = [run.outcomes.get(task_id, {"outcome": "not predicted"})
                     for run in extras.runs]
    return d


def chunks(ids: Sequence[str], extras: Extras
           ) -> Iterable[tuple[int, list[dict[str, Any]]]]:
    """Per `CHUNK` tasks in suite order, the first one's position and every task's
    `task_extras`."""
    statuses = _statuses(extras)
    for start in range(0, len(ids), CHUNK):
        yield start, [task_extras(i, extras, statuses) for i in ids[start:start + CHUNK]]
