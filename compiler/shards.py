"""The compile driver, the only one (of `fdc compile`, the examples, the benchmarks and
the scripts; `fdc explain` runs one template's passes): a compile split by (scene,
experience) into shards, each shard's result kept in a cache under a key that hashes
everything it depends on, and the merge of the shards into one suite. `compile_sharded`
with no cache and no executor compiles in this process into a `MemoryCache`;
`fdc compile` gives a `FolderCache` and an executor (`compiler.executors`).

A shard is one `SceneJob` (a scene and one of its days). Its key hashes fdc's version
and code (`code_digest`: the package's source and data files, so a cache written before
fdc changed is never read after), the cache's format, the scene file by content (its
file name, its bytes and the bytes of every mesh file it names: an imported Habitat
scene's), the day's experience (a given log's bytes, or the simulation's seed,
interactions and day), whether the experience is
simulated at all, the id scope, the options and the limits in effect. Each template of
the shard is cached on its own, under a key hashing the shard's key and the template (its
name, file name, its own definition's text and place, instruction variants and domain;
the built-in templates are left out of `code_digest`): a changed template, the library's
too, recompiles its own tasks alone, and an interrupted compile resumes at the shards that did
not finish.

No key holds a path as typed: the same scene, log or template given by another spelling
of its path (relative, absolute, through `..`, from another working folder) hits the
cache. What a task record or the manifest names by path (a record's `scene` and
`template_file`, a drop example's scene, a given log's path) is written as the entry was
compiled (`shard.json` keeps the scene's and the log's spelling, a template's summary its
file's) and respelled at the merge as this compile gives it, so the output's bytes are
those of a fresh compile with that spelling.

A `FolderCache` is a folder: one folder per shard key holding `shard.json` (the scene's
canonical sha256, its experience's manifest entry, and the spelling of the scene's and
the log's paths it was compiled with) and one `TEMPLATE_KEY.jsonl` per
template (a header line: the summary for the manifest, the number of records and the
sha256 of their text; then the template's task records, as the suite holds them). Every
file is written atomically, and `shard.json` last, so a shard is in the cache whole or
not at all. An entry that does not read back whole (edited, truncated, another format)
is damaged: it is compiled again, and the run says which (`ShardCache.damaged`). A
`MemoryCache` holds the same texts in a dictionary, for a compile that keeps nothing.

The merge walks the shards in job order (scene, then day) and, in each, the templates
in name order, whatever order the shards finished in: it streams the record lines to the
suite file while it adds up the manifest (`emit.ManifestBuilder`), so memory does not
grow with the suite, and the bytes are the same for any cache, any executor and any
number of workers.

Scenes compile independently and merge in the order given; a scene file whose content
an earlier one has is compiled again with an id scope (`twin_scopes`), so task ids stay
unique. A scene with several experiences (days: `--history` logs, `--experiences K`) is
one shard per day, in day order. Day 1 compiles every template; a later day its memory
templates alone (`job_entries`), whose task ids hold the day's experience, so they
differ from day to day and the ids of day 1 are those of a one-day compile. Two days of
one scene with the same experience would make the same tasks: an input error
(`check_days`).
See docs/scale.md.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from fdc.core.errors import InputError
from fdc.core.files import Outputs, write_atomic
from fdc.core.hashing import sha256_text
from fdc.core.inputs import InputFileError, InputKind, read_input_bytes
from fdc.core.limits import Limits, current, set_current
from fdc.core.version import __version__
from fdc.predicates.builtin import default_registry

from .emit import ManifestBuilder, TemplateSummary, manifest_beside
from .manifest import ExperienceRef, Manifest
from .options import CompileOptions
from .pipeline import compile_templates
from .prepare import SceneJob, day_seed, prepare_scene
from .suite import TaskRecord, parse_suite, suite_lines
from .templates import TemplateEntry, is_memory_template
from .timings import Pass, Timings

#: Bump when what a cache entry holds, or how a key is made, changes.
CACHE_FORMAT = 5

#: fdc's packages whose files `code_digest` hashes (each one's folder, as installed).
CODE_PACKAGES = ("fdc", "core", "domain", "sim_bridge", "predicates", "instructions",
                 "compiler", "agents", "interop", "evaluation")
#: The files of fdc's code and data that a compile reads: its source, its grammar, the
#: built-in domain and templates.
CODE_SUFFIXES = frozenset({".py", ".lark", ".pddl", ".j2"})


# --------------------------------------------------------------------------- keys


def _digest(parts: object) -> str:
    return str(sha256_text(json.dumps(parts, sort_keys=True, default=str)))


def _file_sha(path: str, kind: InputKind) -> str:
    """The sha256 of an input file's bytes, read within its kind's size limit
    (`InputError`, naming the file, when it cannot be read)."""
    try:
        return str(sha256_text(read_input_bytes(path, kind)))
    except InputFileError as e:
        raise InputError(f"{path}: cannot read the {kind.value} file: {e}") from None


def scene_digest(path: str) -> dict[str, Any]:
    """What a shard depends on of a scene file, whatever the spelling of its path: its file
    name, the sha256 of its bytes, and each mesh file it names (relative to its folder,
    where the loader reads it) with the sha256 of the mesh's bytes (None: missing, the
    box is used; unreadable: why)."""
    try:
        data = read_input_bytes(path, InputKind.SCENE)
    except InputFileError as e:
        raise InputError(f"{path}: cannot read the {InputKind.SCENE.value} file: {e}"
                         ) from None
    return {"name": Path(path).name, "sha256": sha256_text(data),
            "meshes": _meshes(Path(path).parent, data)}


def _meshes(folder: Path, data: bytes) -> list[tuple[str, str | None]]:
    """Each distinct `objects[].mesh.path` of a scene's JSON, sorted, with the sha256 of
    the file it leads to from `folder`."""
    try:
        scene = json.loads(data)
    except ValueError:  # the loader says what is wrong
        return []
    objects = scene.get("objects") if isinstance(scene, dict) else None
    named = sorted({o["mesh"]["path"] for o in objects or [] if isinstance(o, dict)
                    and isinstance(o.get("mesh"), dict)
                    and isinstance(o["mesh"].get("path"), str)})
    out: list[tuple[str, str | None]] = []
    for name in named:
        mesh = folder / name
        if not mesh.is_file():
            out.append((name, None))
            continue
        try:
            out.append((name, _file_sha(str(mesh), InputKind.MESH)))
        except InputError as e:
            out.append((name, f"unreadable: {e}"))
    return out


def code_files() -> list[tuple[str, Path]]:
    """fdc's own code and data files (`CODE_PACKAGES`, `CODE_SUFFIXES`), each with its
    name inside the package, in name order."""
    out: list[tuple[str, Path]] = []
    for package in CODE_PACKAGES:
        spec = importlib.util.find_spec("fdc" if package == "fdc" else f"fdc.{package}")
        if spec is None or spec.origin is None:
            continue
        base = Path(spec.origin).parent  # the folder of its __init__.py, wherever it is
        out.extend((f"{package}/{f.relative_to(base).as_posix()}", f)
                   for f in base.rglob("*")
                   if f.suffix in CODE_SUFFIXES and "__pycache__" not in f.parts
                   and f.is_file())
    return sorted(out)


#: The built-in template library's files, inside fdc's code (`code_files`): not in
#: `code_digest`, a template's results are keyed by its own text (`template_digest`).
LIBRARY = "domain/templates/"


@functools.cache
def code_digest() -> str:
    """The sha256 of fdc's own code and data (`code_files`: names and bytes) but the
    built-in templates (`LIBRARY`), computed once a process: a shard's key holds it, so a
    cache written by other code (a checker changed, a pass fixed) is compiled again
    rather than read, and a library template edited recompiles its own tasks alone
    (`template_digest`). About 20 ms."""
    parts = []
    for name, path in code_files():
        if not name.startswith(LIBRARY):
            parts.append(name)
            parts.append(sha256_text(path.read_bytes()))
    return str(sha256_text("\0".join(parts)))


def shard_key(job: SceneJob, options: CompileOptions, needs_experience: bool,
              limits: Limits, files: dict[str, dict[str, Any]] | None = None) -> str:
    """The key of one shard: everything its scene, experience and start states depend on,
    by content, not by the spelling of a path (`files`: the `scene_digest` of scene
    files already read, by path)."""
    files = {} if files is None else files
    if job.path not in files:
        files[job.path] = scene_digest(job.path)
    return _digest({
        "fdc": __version__, "code": code_digest(), "format": CACHE_FORMAT,
        "scene": files[job.path],
        "history": None if job.history is None else Path(job.history).name,
        "history_sha256": (_file_sha(job.history, InputKind.EXPERIENCE)
                           if job.history is not None else None),
        "simulate": job.simulate, "interactions": job.interactions, "day": job.day,
        "experience_seed": day_seed(options.seed, job.day),
        "needs_experience": needs_experience, "id_scope": job.id_scope,
        "options": [options.seed, options.max_per_template, options.max_atoms,
                    options.bind_limit],
        "witness": None if options.witness is None else
        f"{options.witness.__module__}.{options.witness.__qualname__}",
        "limits": repr(limits),
    })


def template_digest(entry: TemplateEntry, domain_sha: str) -> str:
    """What a template's results depend on of the template: its name, file name, its own
    definition's text and where it starts in its file (line and column: its errors name
    them), not the file's other templates; its instruction variants and domain file."""
    return _digest([entry.name, Path(entry.path).name, own_text(entry), list(entry.texts),
                    domain_sha])


def own_text(entry: TemplateEntry) -> list[Any]:
    """A template's own definition: its text and the line and column it starts at in
    its file (the file's sha256 when the template has no place in it)."""
    start, end = entry.template.span
    if start < 0:
        return [entry.sha256]
    text = entry.source.text
    line = text.count("\n", 0, start)
    return [text[start:end], line, start - text.rfind("\n", 0, start)]


def template_key(shard: str, template: str) -> str:
    """The key of one template's result in one shard (`template`: its digest)."""
    return _digest([shard, template])


def domain_sha(entry: TemplateEntry) -> str:
    """The sha256 of the template's domain file (of its printed form, if it has none)."""
    try:
        return _file_sha(entry.domain.path, InputKind.TEMPLATE)
    except (OSError, InputError):
        return str(sha256_text(repr(entry.domain.domain)))


# --------------------------------------------------------------------------- work


@dataclass(frozen=True)
class Shard:
    """One (scene, day) of the compile, with its key and its templates' keys (name order)."""

    index: int  # the job's place in the suite's order
    job: SceneJob
    key: str
    templates: tuple[tuple[str, str], ...]  # (template name, template key)
    needs_experience: bool


@dataclass(frozen=True)
class ShardTask:
    """What a worker compiles: a shard's templates missing from the cache. Picklable."""

    shard: Shard
    entries: tuple[TemplateEntry, ...]
    options: CompileOptions
    limits: Limits


@dataclass(frozen=True)
class ShardOutput:
    """What a worker gives back: the scene's meta and, per template compiled, its key
    and its cache file's text. Small: one shard's records."""

    key: str
    scene_sha256: str
    experience: dict[str, Any] | None
    templates: tuple[tuple[str, str], ...]  # (template key, text)
    tasks: int
    timings: Timings = field(default_factory=Timings)
    #: The spelling of the scene's and the log's paths the shard was compiled with.
    scene: str = ""
    history: str | None = None


def run_shard(task: ShardTask) -> ShardOutput:
    """Prepare the shard's scene and compile the task's templates (any process)."""
    set_current(task.limits)
    timings = Timings()
    compiler, ref = prepare_scene(task.shard.job, task.options, timings,
                                  needs_experience=task.shard.needs_experience)
    keys = dict(task.shard.templates)
    texts: list[tuple[str, str]] = []
    tasks = 0
    for report in compile_templates(compiler, task.entries, timings=timings).reports:
        summary = TemplateSummary.of(report, compiler.scene)
        records = "".join(suite_lines(report.records))
        header = {"summary": summary.to_json(), "records": report.tasks,
                  "sha256": sha256_text(records)}
        texts.append((keys[report.template],
                      json.dumps(header, sort_keys=True, ensure_ascii=False) + "\n" + records))
        tasks += report.tasks
    return ShardOutput(task.shard.key, compiler.scene_sha256,
                       ref.model_dump(mode="json") if ref is not None else None,
                       tuple(texts), tasks, timings, task.shard.job.path,
                       task.shard.job.history)


class Executor(Protocol):
    """Runs shard tasks (`run_shard`) and yields each output as it finishes, in any order;
    closing the iterator cancels what has not finished."""

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]: ...


# --------------------------------------------------------------------------- cache


class ShardCache(ABC):
    """Finished shards and templates, kept by a `FolderCache` or a `MemoryCache`. An
    entry is read back whole before it counts as there: a damaged one (`damaged`: where
    it is and why) is compiled again."""

    def __init__(self) -> None:
        self.damaged: dict[str, str] = {}
        self._checked: dict[str, TemplateSummary] = {}

    # ----- storage: what a kind of cache says of itself

    @abstractmethod
    def _where(self, key: str, name: str) -> str:
        """Where file `name` of shard `key` is kept (for messages)."""

    @abstractmethod
    def _read(self, key: str, name: str) -> bytes:
        """File `name` of shard `key` (`FileNotFoundError`: not kept)."""

    @abstractmethod
    def _write(self, key: str, name: str, text: str) -> None:
        """Keep `text` as file `name` of shard `key` (atomically)."""

    # ----- entries

    def meta(self, key: str) -> dict[str, Any] | None:
        """A shard's `shard.json`, or None when it is missing or damaged."""
        try:
            data = json.loads(self._read(key, "shard.json").decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("scene_sha256"), str) \
                    or not isinstance(data.get("scene"), str):
                raise ValueError("not a shard's record")
            _ref(data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError) as e:  # pydantic's errors are ValueErrors
            self.damaged[self._where(key, "shard.json")] = _why(e)
            return None
        return data

    def has(self, shard: str, template: str) -> bool:
        return self._summary(shard, template) is not None

    def _summary(self, shard: str, template: str) -> TemplateSummary | None:
        """The entry's summary once its records read back whole, else None."""
        where = self._where(shard, f"{template}.jsonl")
        found = self._checked.get(where)
        if found is not None:
            return found
        try:
            header, records = self._read(shard, f"{template}.jsonl").split(b"\n", 1)
            data = json.loads(header)
            summary = TemplateSummary.from_json(data["summary"])
            if records.count(b"\n") != data["records"] or \
                    sha256_text(records) != data["sha256"]:
                raise ValueError("its records are not the ones written")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as e:
            self.damaged[where] = _why(e)
            return None
        self._checked[where] = summary
        return summary

    def store(self, out: ShardOutput) -> None:
        """Keep a worker's output: each template's file, then the shard's."""
        for key, text in out.templates:
            self._write(out.key, f"{key}.jsonl", text)
            self._checked.pop(self._where(out.key, f"{key}.jsonl"), None)
        self._write(out.key, "shard.json", json.dumps(
            {"scene_sha256": out.scene_sha256, "experience": out.experience,
             "scene": out.scene, "history": out.history}, sort_keys=True) + "\n")

    def summary(self, shard: str, template: str) -> TemplateSummary:
        found = self._summary(shard, template)
        if found is None:
            raise InputError(f"{self._where(shard, f'{template}.jsonl')}: the cache entry "
                             "is missing or damaged; run again, or with --no-cache")
        return found

    def template(self, shard: str, template: str) -> tuple[TemplateSummary, Iterator[str]]:
        """One template's summary and its record lines, read as they are needed."""
        return self.summary(shard, template), self._lines(shard, f"{template}.jsonl")

    def _lines(self, key: str, name: str) -> Iterator[str]:
        """The record lines of a template's file (its header skipped)."""
        lines = self._read(key, name).decode("utf-8").splitlines(keepends=True)
        return iter(lines[1:])


class FolderCache(ShardCache):
    """Shards kept in a folder (`fdc compile --cache`): `KEY[:2]/KEY/NAME`, each file
    written atomically, the shard's `shard.json` last; a template's records are streamed
    from their file at the merge."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def _folder(self, key: str) -> Path:
        return self.root / key[:2] / key

    def _where(self, key: str, name: str) -> str:
        return str(self._folder(key) / name)

    def _read(self, key: str, name: str) -> bytes:
        return (self._folder(key) / name).read_bytes()

    def _write(self, key: str, name: str, text: str) -> None:
        write_atomic(self._folder(key) / name, text)

    def _lines(self, key: str, name: str) -> Iterator[str]:
        f = (self._folder(key) / name).open(encoding="utf-8")
        f.readline()

        def lines() -> Iterator[str]:
            with f:
                yield from f

        return lines()


class MemoryCache(ShardCache):
    """Shards kept in this process, for a compile that keeps nothing (the default of
    `compile_sharded`)."""

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[tuple[str, str], bytes] = {}

    def _where(self, key: str, name: str) -> str:
        return f"memory:{key}/{name}"

    def _read(self, key: str, name: str) -> bytes:
        try:
            return self.files[key, name]
        except KeyError:
            raise FileNotFoundError(self._where(key, name)) from None

    def _write(self, key: str, name: str, text: str) -> None:
        self.files[key, name] = text.encode("utf-8")


def _why(e: Exception) -> str:
    """Why a cache entry did not read back, in a line."""
    if isinstance(e, KeyError):
        return f"no field {e}"
    lines = str(e).splitlines()
    return lines[0] if lines else type(e).__name__


# --------------------------------------------------------------------------- a run


@dataclass
class ShardRun:
    """A sharded compile: its shards in the suite's order, the cache that holds them, and
    what it reused."""

    shards: list[Shard]
    cache: ShardCache
    reused_tasks: int = 0
    compiled_tasks: int = 0
    reused_shards: int = 0
    compiled_shards: int = 0
    timings: Timings = field(default_factory=Timings)


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


def plan_shards(jobs: Sequence[SceneJob], entries: Sequence[TemplateEntry],
                options: CompileOptions, limits: Limits | None = None,
                first: int = 0) -> list[Shard]:
    """A shard per job, its key and its templates' keys."""
    limits = current() if limits is None else limits
    registry = default_registry()
    domains: dict[str, str] = {}
    digests: dict[str, str] = {}
    for e in entries:
        if e.domain.path not in domains:
            domains[e.domain.path] = domain_sha(e)
        digests[e.name] = template_digest(e, domains[e.domain.path])
    files: dict[str, dict[str, Any]] = {}  # a scene file's digest, read once for all its days
    out = []
    for k, job in enumerate(jobs, start=first):
        mine = sorted(job_entries(job, entries), key=lambda e: e.name)
        needs = any(is_memory_template(e.template, registry) for e in mine)
        key = shard_key(job, options, needs, limits, files)
        keys = tuple((e.name, template_key(key, digests[e.name])) for e in mine)
        out.append(Shard(k, job, key, keys, needs))
    return out


def compile_sharded(jobs: Sequence[SceneJob], entries: Sequence[TemplateEntry],
                    options: CompileOptions, cache: ShardCache | None = None,
                    executor: Executor | None = None,
                    on_planned: Callable[[int], None] | None = None,
                    on_shard: Callable[[ShardOutput], None] | None = None) -> ShardRun:
    """Compile every shard the cache lacks (`executor`; None: in this process), keeping
    each in `cache` (None: a `MemoryCache`) as it finishes; `on_planned` hears how many
    shards will run, `on_shard` each one finished. A later simulated day is left out
    when no template reads the experience; two days with one experience are an
    `InputError`; twins (scene files of one content) compile again with an id scope."""
    cache = MemoryCache() if cache is None else cache
    registry = default_registry()
    if not any(is_memory_template(e.template, registry) for e in entries):
        jobs = [j for j in jobs if j.day == 1 or j.history is not None]
    check_days(jobs, [_given(j) for j in jobs])  # a log given twice: before any work
    run = ShardRun(plan_shards(jobs, entries, options), cache)
    _run(run.shards, entries, options, cache, executor, run, on_planned, on_shard)
    metas = [cache.meta(s.key) for s in run.shards]
    refs = [_ref(m, s.job) for m, s in zip(metas, run.shards, strict=True)]
    check_days(jobs, refs)
    scopes = twin_scopes(jobs, [m["scene_sha256"] if m else "" for m in metas])
    if scopes:
        twins = [plan_shards([replace(jobs[k], id_scope=scope)], entries, options,
                             first=k)[0] for k, scope in scopes.items()]
        _run(twins, entries, options, cache, executor, run, None, on_shard)
        for twin in twins:
            run.shards[twin.index] = twin
    return run


def _given(job: SceneJob) -> ExperienceRef | None:
    """What `check_days` reads of a given log (its sha256, its path), known before the
    log is loaded."""
    if job.history is None:
        return None
    return ExperienceRef(sha256=_file_sha(job.history, InputKind.EXPERIENCE), source="",
                         simulated=False,
                         path=job.history, frames=0, interactions=0)


def _ref(meta: dict[str, Any] | None, job: SceneJob | None = None) -> ExperienceRef | None:
    """A shard's experience entry, its log's path as `job` gives it (when given)."""
    if meta is None or meta["experience"] is None:
        return None
    ref = ExperienceRef.model_validate(meta["experience"])
    if job is not None and ref.path is not None and ref.path != job.history:
        ref = ref.model_copy(update={"path": job.history})
    return ref


def _run(shards: Sequence[Shard], entries: Sequence[TemplateEntry], options: CompileOptions,
         cache: ShardCache, executor: Executor | None, run: ShardRun,
         on_planned: Callable[[int], None] | None,
         on_shard: Callable[[ShardOutput], None] | None) -> None:
    by_name = {e.name: e for e in entries}
    limits = current()
    tasks = []
    planned: set[str] = set()  # two files of one content, name and experience: one shard
    for shard in shards:
        if shard.key in planned:
            continue
        missing = [name for name, key in shard.templates if not cache.has(shard.key, key)]
        if not missing and cache.meta(shard.key) is not None:
            run.reused_shards += 1
            run.reused_tasks += sum(cache.summary(shard.key, key).tasks
                                    for _, key in shard.templates)
            continue
        reused = [key for name, key in shard.templates if name not in missing]
        run.reused_tasks += sum(cache.summary(shard.key, key).tasks for key in reused)
        tasks.append(ShardTask(shard, tuple(by_name[n] for n in missing), options, limits))
        planned.add(shard.key)
    if on_planned is not None:
        on_planned(len(tasks))
    if not tasks:
        return
    outputs = executor.run(tasks) if executor is not None else map(run_shard, tasks)
    try:
        for out in outputs:
            cache.store(out)
            run.compiled_shards += 1
            run.compiled_tasks += out.tasks
            run.timings.merge(out.timings)
            if on_shard is not None:
                on_shard(out)
    finally:
        close = getattr(outputs, "close", None)
        if close is not None:
            close()


# --------------------------------------------------------------------------- merge


def emit_sharded(path: Path, run: ShardRun, entries: Sequence[TemplateEntry],
                 options: CompileOptions) -> tuple[Manifest, Path]:
    """Write the suite at `path` from the run's cache, shard by shard in the suite's
    order, and the manifest beside it, both or neither: the manifest and its path."""
    manifest_path = manifest_beside(path)
    builder = ManifestBuilder()
    with Outputs() as out:
        digest = out.write_lines(path, merged_lines(run, entries, builder))
        manifest = builder.build(entries, options, path.name, digest)
        out.write(manifest_path, manifest.to_json())
    return manifest, manifest_path


def merged_lines(run: ShardRun, entries: Sequence[TemplateEntry],
                 builder: ManifestBuilder | None = None) -> Iterator[str]:
    """The suite's record lines, from the run's cache in the suite's order (`builder`
    counts the manifest as they go)."""
    files = {e.name: e.path for e in entries}
    return _merged(run.shards, run.cache, ManifestBuilder() if builder is None else builder,
                   files)


def suite_records(run: ShardRun, entries: Sequence[TemplateEntry]) -> list[TaskRecord]:
    """The suite's task records, as `emit_sharded` would write them."""
    records, problems = parse_suite("".join(merged_lines(run, entries)))
    assert not problems, problems  # the lines are the ones the compile wrote
    return records


def _merged(shards: Iterable[Shard], cache: ShardCache, builder: ManifestBuilder,
            files: dict[str, str]) -> Iterator[str]:
    """Every shard's record lines in order, the paths they name respelled as this compile
    gives them (`files`: each template's file by name)."""
    for shard in shards:
        meta = cache.meta(shard.key)
        assert meta is not None, shard.key
        scene = shard.job.path
        summaries = []
        for name, key in shard.templates:
            summary, lines = cache.template(shard.key, key)
            fields = {k: v for k, v in (("scene", scene), ("template_file", files[name]))
                      if v != (meta["scene"] if k == "scene" else summary.path)}
            if fields:
                summary = summary.respelled(scene, files[name])
                lines = respelled(lines, fields)
            summaries.append(summary)
            yield from lines
        builder.add_scene(scene, meta["scene_sha256"], _ref(meta, shard.job), summaries)


def respelled(lines: Iterable[str], fields: dict[str, str]) -> Iterator[str]:
    """Record lines with `fields` set (the paths of a cache entry compiled under another
    spelling), written as `suite.suite_lines` writes a record: the same bytes as a
    compile that had those values."""
    for line in lines:
        data = json.loads(line)
        data.update(fields)
        yield json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n"


def timed_emit(path: Path, run: ShardRun, entries: Sequence[TemplateEntry],
               options: CompileOptions) -> tuple[Manifest, Path]:
    """`emit_sharded`, its time added to the run's `emit` pass."""
    return run.timings.run(Pass.EMIT, emit_sharded, path, run, entries, options)
