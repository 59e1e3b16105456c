"""What compiling gives: per template on a scene, its task records and why the other
bindings dropped (`TemplateReport`, each binding's `Outcome` for `fdc explain`), and a
scene's reports (`SceneResult`). A shard keeps a report as its summary and records
(`emit.TemplateSummary`), and the manifest adds the summaries up. See docs/architecture.md."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from .drops import Drop
from .suite import TaskRecord
from .timings import Timings


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
    """Every template on one prepared scene, in name order (`pipeline.compile_templates`)."""

    scene: str
    scene_sha256: str
    records: list[TaskRecord]
    reports: list[TemplateReport]
    timings: Timings = field(default_factory=Timings)
