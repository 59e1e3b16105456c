"""Emit: the suite's last stage. Builds the `Manifest` of a compiled suite and writes
`suite.jsonl` and `manifest.json` beside it, both or neither.

The manifest says what went in (fdc's version, the hashes of every scene, experience and
template file, the seed and options), what came out (tasks per template, category and
level) and every binding dropped, by reason (`Drop.key`), with the first binding met
for each reason as its example (`DropExample`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fdc.core.errors import OutputError
from fdc.core.files import Outputs
from fdc.core.hashing import sha256_text

from .compile import CompileOptions, Outcome, SuiteResult, TemplateEntry
from .manifest import (
    DropExample,
    ExperienceRef,
    Manifest,
    SceneEntry,
    TemplateCounts,
    TemplateFile,
)
from .suite import TaskRecord, suite_lines


def emit_suite(path: Path, result: SuiteResult, refs: Sequence[ExperienceRef | None],
               entries: Sequence[TemplateEntry], options: CompileOptions
               ) -> tuple[Manifest, Path]:
    """Write the suite at `path` and its manifest beside it: the manifest and its path."""
    text = suite_text(result.records)
    manifest = build_manifest(result, refs, entries, options, path.name, text)
    return manifest, write_suite(path, text, manifest)


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
    texts: list[str] = field(default_factory=list)

    def counts(self) -> TemplateCounts:
        distinct, ratio = variety(self.texts)
        return TemplateCounts(
            file=self.file, category=self.category, level=self.level, bindings=self.bindings,
            sampled=self.sampled,
            visited=self.visited, tasks=self.tasks, drops=dict(sorted(self.drops.items())),
            drop_examples=dict(sorted(self.examples.items())), errors=self.errors,
            instructions=distinct, bigram_ratio=ratio)


def variety(texts: Sequence[str]) -> tuple[int, float]:
    """How varied instructions are: the number of distinct texts, and distinct word
    bigrams over all word bigrams (rounded to 4 places; 0 without a bigram)."""
    bigrams: list[tuple[str, str]] = []
    for text in texts:
        words = text.lower().rstrip(".!?").split()
        bigrams.extend(itertools.pairwise(words))
    ratio = round(len(set(bigrams)) / len(bigrams), 4) if bigrams else 0.0
    return len(set(texts)), ratio


def build_manifest(result: SuiteResult, refs: Sequence[ExperienceRef | None],
                   entries: Sequence[TemplateEntry], options: CompileOptions,
                   suite_name: str, suite_text: str) -> Manifest:
    from fdc.core.version import __version__

    tallies: dict[str, _Tally] = {}
    drops: Counter[str] = Counter()
    for scene in result.scenes:
        for rep in scene.reports:
            t = tallies.setdefault(rep.template, _Tally(rep.path, rep.category, rep.level))
            t.bindings += rep.bindings
            t.sampled |= rep.sampled
            t.visited += rep.visited
            t.tasks += rep.tasks
            t.drops.update(rep.drops)
            for key, outcome in rep.examples.items():
                if key not in t.examples:
                    t.examples[key] = drop_example(scene.scene, outcome)
            if rep.error:
                t.errors.append(f"{scene.scene}: {rep.error}")
            drops.update(rep.drops)
    for r in result.records:
        if r.template in tallies:
            tallies[r.template].texts.extend(r.instructions)
    categories = Counter(r.category or "-" for r in result.records)
    levels = Counter(str(r.level) if r.level is not None else "-" for r in result.records)
    files = {e.path: e.sha256 for e in entries}
    return Manifest(
        fdc_version=__version__, suite=suite_name, suite_sha256=sha256_text(suite_text),
        seed=options.seed, max_per_template=options.max_per_template,
        max_atoms=options.max_atoms,
        scenes=[SceneEntry(path=s.scene, sha256=s.scene_sha256, experience=ref,
                           tasks=len(s.records))
                for s, ref in zip(result.scenes, refs, strict=True)],
        templates=[TemplateFile(path=p, sha256=files[p]) for p in sorted(files)],
        tasks=len(result.records),
        per_category=dict(sorted(categories.items())),
        per_level=dict(sorted(levels.items())),
        per_template={k: v.counts() for k, v in sorted(tallies.items())},
        drops=dict(sorted(drops.items())),
    )


def drop_example(scene: str, outcome: Outcome) -> DropExample:
    """The manifest's record of one dropped binding."""
    d = outcome.reason
    assert d is not None
    return DropExample(scene=scene, binding=outcome.binding, code=d.code.value,
                       message=d.message, entities=list(d.entities),
                       description=d.description or None, rivals=list(d.rivals))


def suite_text(records: Sequence[TaskRecord]) -> str:
    return "".join(suite_lines(list(records)))


def write_suite(path: Path, text: str, manifest: Manifest) -> Path:
    """Write the suite and `manifest.json` beside it, both or neither (`OutputError`:
    they cannot be written); return the manifest's path."""
    manifest_path = path.parent / "manifest.json"
    if path.name == manifest_path.name:
        raise OutputError(f"cannot write {path}: the manifest goes beside the suite under "
                          "this name; hint: name the suite otherwise (suite.jsonl)")
    with Outputs() as out:
        out.write(path, text)
        out.write(manifest_path, manifest.to_json())
    return manifest_path
