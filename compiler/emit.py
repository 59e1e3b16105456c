"""Emit: the suite's last stage. Adds up the `Manifest` of a compiled suite, scene by
scene, from each template's summary (`ManifestBuilder`, `TemplateSummary`), and says where
it goes beside the suite; the driver (`compiler.shards.emit_sharded`) streams the records
and writes both files, both or neither.

The manifest says what went in (fdc's version, the hashes of every scene, experience and
template file, the seed and options), what came out (tasks per template, category and
level) and every binding dropped, by reason (`Drop.key`), with the first binding met
for each reason as its example (`DropExample`).
See docs/formats/task.md.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from fdc.core.errors import OutputError
from fdc.core.version import __version__

from .manifest import (
    DropExample,
    ExperienceRef,
    Manifest,
    SceneEntry,
    TemplateCounts,
    TemplateFile,
)
from .options import CompileOptions
from .reports import Outcome, TemplateReport
from .templates import TemplateEntry, domain_files


@dataclass(frozen=True)
class TemplateSummary:
    """What the manifest counts of one template on one scene (a `TemplateReport` without
    its records): what a shard keeps beside a template's records."""

    template: str
    path: str
    category: str | None
    level: int | None
    bindings: int
    sampled: bool
    visited: int
    tasks: int
    drops: dict[str, int]
    examples: dict[str, DropExample]  # the first binding dropped per reason
    error: str | None
    texts: dict[str, int]  # each distinct instruction text of its tasks: how many times

    @classmethod
    def of(cls, report: TemplateReport, scene: str) -> TemplateSummary:
        texts = Counter(t for r in report.records for t in r.instructions)
        return cls(report.template, report.path, report.category, report.level,
                   report.bindings, report.sampled, report.visited, report.tasks,
                   dict(report.drops), {k: drop_example(scene, o)
                                        for k, o in report.examples.items()}, report.error,
                   dict(sorted(texts.items())))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["examples"] = {k: e.model_dump(mode="json") for k, e in self.examples.items()}
        return data

    def respelled(self, scene: str, path: str) -> TemplateSummary:
        """The summary with the template's file at `path` and its drop examples on
        `scene` (a cache entry compiled with other spellings of the same files); an error
        located in the template (`FILE:LINE:COLUMN: ...`) names it at `path` too."""
        examples = {k: e.model_copy(update={"scene": scene}) for k, e in self.examples.items()}
        error = self.error
        if error is not None and error.startswith(self.path + ":"):
            error = path + error[len(self.path):]
        return replace(self, path=path, examples=examples, error=error)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TemplateSummary:
        examples = {k: DropExample.model_validate(e) for k, e in data["examples"].items()}
        return cls(**{**data, "examples": examples})


@dataclass
class _Tally:
    file: str
    category: str | None
    level: int | None
    bindings: int = 0
    sampled: bool = False
    visited: int = 0
    tasks: int = 0
    drops: Counter[str] = field(default_factory=Counter)
    examples: dict[str, DropExample] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    texts: Counter[str] = field(default_factory=Counter)

    def counts(self) -> TemplateCounts:
        distinct, ratio = variety(self.texts)
        return TemplateCounts(
            file=self.file, category=self.category, level=self.level, bindings=self.bindings,
            sampled=self.sampled,
            visited=self.visited, tasks=self.tasks, drops=dict(sorted(self.drops.items())),
            drop_examples=dict(sorted(self.examples.items())), errors=self.errors,
            instructions=distinct, bigram_ratio=ratio)


def variety(texts: Iterable[str] | Mapping[str, int]) -> tuple[int, float]:
    """How varied instructions are: the number of distinct texts, and distinct word
    bigrams over all word bigrams (rounded to 4 places; 0 without a bigram). `texts`:
    the texts, or each distinct text with how many times it occurs (what a streamed
    suite's manifest keeps: it grows with the distinct texts alone)."""
    counted = texts if isinstance(texts, Mapping) else Counter(texts)
    distinct: set[tuple[str, str]] = set()
    total = 0
    for text, n in counted.items():
        pairs = list(itertools.pairwise(text.lower().rstrip(".!?").split()))
        distinct.update(pairs)
        total += n * len(pairs)
    ratio = round(len(distinct) / total, 4) if total else 0.0
    return len(counted), ratio


class ManifestBuilder:
    """The manifest's counts, added up scene by scene (in the suite's order) from each
    template's summary, so a suite streamed to disk is counted without its records."""

    def __init__(self) -> None:
        self.tallies: dict[str, _Tally] = {}
        self.drops: Counter[str] = Counter()
        self.scenes: list[SceneEntry] = []
        self.categories: Counter[str] = Counter()
        self.levels: Counter[str] = Counter()
        self.tasks = 0

    def add_scene(self, scene: str, sha256: str, ref: ExperienceRef | None,
                  summaries: Iterable[TemplateSummary]) -> None:
        tasks = 0
        for rep in summaries:
            t = self.tallies.setdefault(rep.template, _Tally(rep.path, rep.category, rep.level))
            t.bindings += rep.bindings
            t.sampled |= rep.sampled
            t.visited += rep.visited
            t.tasks += rep.tasks
            t.drops.update(rep.drops)
            for key, example in rep.examples.items():
                t.examples.setdefault(key, example)
            if rep.error:
                t.errors.append(f"{scene}: {rep.error}")
            t.texts.update(rep.texts)
            self.drops.update(rep.drops)
            if rep.tasks:  # every task of a template has the template's category and level
                self.categories[rep.category or "-"] += rep.tasks
                self.levels[str(rep.level) if rep.level is not None else "-"] += rep.tasks
            tasks += rep.tasks
        self.tasks += tasks
        self.scenes.append(SceneEntry(path=scene, sha256=sha256, experience=ref, tasks=tasks))

    def build(self, entries: Sequence[TemplateEntry], options: CompileOptions,
              suite_name: str, suite_sha256: str) -> Manifest:
        files = {e.path: e.sha256 for e in entries}
        domains = domain_files(entries)
        return Manifest(
            fdc_version=__version__, suite=suite_name, suite_sha256=suite_sha256,
            seed=options.seed, max_per_template=options.max_per_template,
            max_atoms=options.max_atoms, scenes=self.scenes,
            templates=[TemplateFile(path=p, sha256=files[p]) for p in sorted(files)],
            domains=[TemplateFile(path=p, sha256=domains[p]) for p in sorted(domains)],
            tasks=self.tasks,
            per_category=dict(sorted(self.categories.items())),
            per_level=dict(sorted(self.levels.items())),
            per_template={k: v.counts() for k, v in sorted(self.tallies.items())},
            drops=dict(sorted(self.drops.items())),
        )


def drop_example(scene: str, outcome: Outcome) -> DropExample:
    """The manifest's record of one dropped binding."""
    d = outcome.reason
    assert d is not None
    return DropExample(scene=scene, binding=outcome.binding, code=d.code.value,
                       message=d.message, entities=list(d.entities),
                       description=d.description or None, rivals=list(d.rivals))


def manifest_beside(path: Path) -> Path:
    """Where the manifest of the suite at `path` goes (`OutputError`: the suite has its
    name)."""
    manifest_path = path.parent / "manifest.json"
    if path.name == manifest_path.name:
        raise OutputError(f"cannot write {path}: the manifest goes beside the suite under "
                          "this name; hint: name the suite otherwise (suite.jsonl)")
    return manifest_path
