"""Emit: compile several scenes (in worker processes) into one suite and its manifest.

`compile_suite` compiles each scene with `SceneCompiler` (in parallel when `jobs > 1`),
merges the results in the order the scenes were given (so the output is the same for
any number of workers), and builds the `Manifest`: what went in (fdc's version, the
hashes of every scene, experience and template file, the seed and options), what came
out (tasks per template, category and level) and every binding dropped, by reason.
`write_suite` writes `suite.jsonl` and `manifest.json` atomically.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fdc.core.files import write_atomic
from fdc.core.hashing import sha256_text

from .compile import (
    CompileOptions,
    SceneCompiler,
    SceneResult,
    TemplateEntry,
)
from .suite import TaskRecord, suite_lines

MANIFEST_FORMAT_VERSION = "1.0"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ExperienceRef(_Model):
    """The experience a scene's memory tasks are about."""

    sha256: str
    source: str = Field(description="`fdc-embedded` (simulated) or where a given log came from.")
    simulated: bool
    path: str | None = Field(default=None, description="The log file, when one was given.")
    seed: int | None = None
    frames: int
    interactions: int


class SceneEntry(_Model):
    path: str
    sha256: str = Field(description="sha256 of the scene's canonical JSON.")
    experience: ExperienceRef | None = None
    tasks: int


class TemplateFile(_Model):
    path: str
    sha256: str


class TemplateCounts(_Model):
    """One template over every scene."""

    file: str
    category: str | None = None
    level: int | None = None
    bindings: int = Field(description="Bindings satisfying the constraints, all scenes "
                          "(estimated where `sampled`).")
    sampled: bool = Field(default=False, description="Bindings were drawn by sampling "
                          "on some scene (too many to enumerate).")
    visited: int = Field(description="Bindings examined (fewer under --max-per-template).")
    tasks: int
    drops: dict[str, int] = Field(default_factory=dict, description="Dropped, by reason.")
    errors: list[str] = Field(
        default_factory=list, description="Scenes where the template could not compile."
    )


class Manifest(_Model):
    """What a `suite.jsonl` was compiled from, and what was dropped (format 1.0)."""

    format_version: Literal["1.0"] = "1.0"
    kind: Literal["fdc-manifest"] = "fdc-manifest"
    fdc_version: str
    suite: str = Field(description="The suite file's name.")
    suite_sha256: str
    seed: int
    max_per_template: int | None = None
    max_atoms: int
    scenes: list[SceneEntry]
    templates: list[TemplateFile] = Field(description="Every template file compiled.")
    tasks: int
    per_category: dict[str, int]
    per_level: dict[str, int]
    per_template: dict[str, TemplateCounts]
    drops: dict[str, int] = Field(description="Dropped bindings by reason, all templates.")

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


@dataclass(frozen=True)
class SceneJob:
    """One scene to compile; picklable for worker processes."""

    path: str
    history: str | None = None  # an experience log; None: simulate one (or none)
    simulate: bool = True
    interactions: int = 5


class InputError(Exception):
    """A scene or log that cannot be read (the CLI's exit 2), located."""


@dataclass
class SuiteResult:
    records: list[TaskRecord]
    scenes: list[SceneResult]
    jobs: list[SceneJob]


def load_experience(path: str) -> tuple[object, str]:
    from pydantic import ValidationError

    from fdc.sim_bridge.world.experience import Experience

    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read the experience log: {e.strerror}") from None
    try:
        log = Experience.model_validate_json(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: not an fdc experience log: at {where}: {first['msg']}"
                         ) from None
    return log, sha256_text(data)


def prepare_scene(job: SceneJob, options: CompileOptions
                  ) -> tuple[SceneCompiler, ExperienceRef | None]:
    """Load and build one scene and its experience (given or simulated): its compiler."""
    from fdc.core.hashing import scene_sha256
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.load import load_scene
    from fdc.sim_bridge.world.experience import Experience

    loaded = load_scene(job.path)
    errors = [f for f in loaded.findings if f.is_error]
    if loaded.scene is None or errors:
        detail = "; ".join(f.render() for f in errors) or "the scene does not load"
        raise InputError(f"{job.path}: {detail}")
    graph = build_scene_graph(loaded.scene, base_dir=Path(job.path).parent)
    sha = scene_sha256(graph.scene)
    log: Experience | None = None
    ref: ExperienceRef | None = None
    if job.history is not None:
        raw, log_sha = load_experience(job.history)
        assert isinstance(raw, Experience)
        log = raw
        ref = ExperienceRef(sha256=log_sha, source=log.source, simulated=False,
                            path=job.history, seed=log.seed, frames=len(log.frames),
                            interactions=len(log.interactions))
    elif job.simulate:
        from fdc.sim_bridge.world.simulate import simulate_experience

        log = simulate_experience(graph, interactions=job.interactions, seed=options.seed,
                                  scene=Path(job.path).name, scene_sha256=sha)
        ref = ExperienceRef(sha256=sha256_text(log.to_json()), source=log.source,
                            simulated=True, seed=log.seed, frames=len(log.frames),
                            interactions=len(log.interactions))
    return SceneCompiler(graph, job.path, sha, log, ref.sha256 if ref else None, options), ref


def compile_scene(job: SceneJob, entries: Sequence[TemplateEntry], options: CompileOptions,
                  on_template: Callable[[TemplateEntry], None] | None = None
                  ) -> tuple[SceneResult, ExperienceRef | None]:
    """Load, build and compile one scene (in this process)."""
    compiler, ref = prepare_scene(job, options)
    return compiler.compile(entries, on_template), ref


def _worker(job: SceneJob, entries: Sequence[TemplateEntry], options: CompileOptions
            ) -> tuple[SceneResult, ExperienceRef | None]:
    return compile_scene(job, entries, options)


def compile_suite(
    jobs: Sequence[SceneJob],
    entries: Sequence[TemplateEntry],
    options: CompileOptions,
    workers: int = 1,
    on_template: Callable[[TemplateEntry], None] | None = None,
    on_scene: Callable[[SceneJob], None] | None = None,
) -> tuple[SuiteResult, list[ExperienceRef | None]]:
    """Compile every scene; the result is the same for any number of workers."""
    results: list[tuple[SceneResult, ExperienceRef | None] | None] = [None] * len(jobs)
    if workers <= 1 or len(jobs) <= 1:
        for k, job in enumerate(jobs):
            results[k] = compile_scene(job, entries, options, on_template)
            if on_scene is not None:
                on_scene(job)
    else:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
            futures: dict[Future[tuple[SceneResult, ExperienceRef | None]], int] = {
                pool.submit(_worker, job, list(entries), options): k
                for k, job in enumerate(jobs)
            }
            try:
                from concurrent.futures import as_completed

                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    if on_scene is not None:
                        on_scene(jobs[futures[fut]])
            except BaseException:
                for fut in futures:
                    fut.cancel()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    done = [r for r in results if r is not None]
    records = [rec for scene, _ in done for rec in scene.records]
    return SuiteResult(records, [s for s, _ in done], list(jobs)), [e for _, e in done]


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
    errors: list[str] = field(default_factory=list)

    def counts(self) -> TemplateCounts:
        return TemplateCounts(
            file=self.file, category=self.category, level=self.level, bindings=self.bindings,
            sampled=self.sampled,
            visited=self.visited, tasks=self.tasks, drops=dict(sorted(self.drops.items())),
            errors=self.errors)


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
            if rep.error:
                t.errors.append(f"{scene.scene}: {rep.error}")
            drops.update(rep.drops)
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


def suite_text(records: Sequence[TaskRecord]) -> str:
    return "".join(suite_lines(list(records)))


def write_suite(path: Path, text: str, manifest: Manifest) -> Path:
    """Write the suite and `manifest.json` beside it (atomically); return the latter."""
    write_atomic(path, text)
    manifest_path = path.parent / "manifest.json"
    write_atomic(manifest_path, manifest.to_json())
    return manifest_path
