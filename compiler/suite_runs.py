"""The driver of `fdc validate` and `fdc audit`: a suite's tasks checked in batches on the
compile's executors (`compiler.executors`: this process, local worker processes, or a
dask cluster), each task's result kept in a cache under a key that hashes everything it
depends on, and the results read back in the suite's order.

A task's key hashes the check (`validate`, `audit`), its options and the limits in
effect (`fdc --limit`), fdc's version and code (`shards.code_digest`: fdc's files but
the built-in templates, so a result written by other code is never read), the format of
this cache, the record (its canonical line), its template (`template_text`: its own
definition's text, not its file's other templates, its variants and its domain file),
its scene file by content (`shards.scene_digest`: the file's bytes and its meshes'),
the manifest's entry for the record's scene and experience (the scene's sha256 and the
experience's reference, not the task counts, which change with every template), the
bytes of a given experience log (the manifest's, or `fdc audit --experience`) and the
manifest's seed (a simulated experience's). A rerun after one template changed (and the
suite was compiled again) checks that template's tasks alone, in the built-in library
too: the other tasks' records, templates, scenes and experiences are the same bytes, so
their results are read back.

A `ResultCache` is a folder, `ROOT/CHECK/KEY[:2]/KEY.json`, one file per task written
atomically as its batch finishes (`core.files.write_atomic`): a run interrupted (Ctrl-C,
a lost worker, a cluster gone) keeps every task finished, and the next run checks the
others. An entry that does not read back (edited, truncated) is checked again. Without a
folder, it is a dictionary (a run that keeps nothing).

The tasks to check go out in batches of one world each (a scene and the experience its
tasks start after; at most `BATCH_MAX` tasks, fewer when that keeps every worker busy),
a few batches in flight per worker (the local pool's bound; on a dask cluster `WINDOW`
batches, the next sent as one finishes); a worker opens the suite's inputs once
(`opened_suite`: the manifest, scenes and experiences, not the records, which come in its
batches) and keeps what it built of each world. A task's result depends on the task alone, and the
results are read back in the suite's order whatever order the batches finished in, so the
report's bytes are the same for any executor, any number of workers and any mix of fresh
and cached results.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from fdc.core.errors import FdcError, InputError
from fdc.core.files import write_atomic
from fdc.core.inputs import InputFileError
from fdc.core.limits import Limits, current, set_current
from fdc.core.problems import Diagnostic
from fdc.core.streams import json_list_chunks, junit_chunks

from .reopen import ReopenedSuite, ReopenError, imported, reopen_inputs, reopen_suite
from .shards import _digest, _file_sha, code_digest, domain_sha, scene_digest
from .suite import TaskRecord, stream_suite, suite_lines
from .templates import TemplateEntry
from .validate import (
    LineReport,
    TaskReport,
    ValidateOptions,
    ValidationReport,
    bad_lines,
    junit_case,
    junit_cases,
    junit_xml,
    validate_lines,
)

#: Bump when what a result file holds, or how a key is made, changes.
RESULTS_FORMAT = 2
#: At most this many tasks a batch (a batch is a world's tasks, cut in pieces so that
#: every worker has work until the end).
BATCH_MAX = 8
#: Batches on a dask cluster at once, the next sent as one finishes (a sliding window;
#: the local pool keeps two per worker).
WINDOW = 256
#: Tasks to check given to `prepare` at once (`run_checks`).
PREPARE = 1024
#: How many workers the batches are cut for on a dask cluster (its size is not known).
DASK_WORKERS = 8

Line = tuple[int, TaskRecord]


# --------------------------------------------------------------------------- workers


@dataclass(frozen=True)
class SuiteSpec:
    """How a worker opens the suite the main process opened (the same files given).
    `memory_scenes` (set by `run_checks`: `ReopenedSuite.memory_scenes`): the worker
    opens the suite's inputs alone (`reopen.reopen_inputs`), its records come in its
    batches; None: it reads the whole suite."""

    path: str
    scenes: tuple[str, ...] = ()
    experiences: tuple[str, ...] = ()
    memory_scenes: tuple[str, ...] | None = None


#: The suite this process opened last (a worker's, or the main process's own).
_SUITES: dict[SuiteSpec, ReopenedSuite] = {}


def remember(spec: SuiteSpec, opened: ReopenedSuite) -> None:
    """The suite `spec` names is `opened` (the batches run in this process use it)."""
    _SUITES.clear()
    _SUITES[spec] = opened


def opened_suite(spec: SuiteSpec) -> ReopenedSuite:
    """The suite `spec` names, opened once a process."""
    found = _SUITES.get(spec)
    if found is None:
        found = reopen_suite(Path(spec.path), scenes=spec.scenes,
                             experiences=spec.experiences) if spec.memory_scenes is None \
            else reopen_inputs(spec.path, spec.memory_scenes, scenes=spec.scenes,
                               experiences=spec.experiences)
        remember(spec, found)
    return found


@dataclass(frozen=True)
class Failure:
    """An input error a worker met (its message): the run stops with it, as a run in
    one process would."""

    message: str


class Worker(Protocol):
    """A module-level function that checks a batch of a suite's records (with their
    lines) and gives each one's result as text, in order, or the `Failure` that stopped
    it."""

    def __call__(self, spec: SuiteSpec, lines: list[Line], options: Any, /
                 ) -> list[str] | Failure: ...


class Executor(Protocol):
    """What `run_checks` needs of an executor (`executors.LocalExecutor`, `DaskExecutor`)."""

    def map(self, fn: Callable[..., Any], calls: Iterable[tuple[Any, ...]],
            names: Iterable[str] | None = None, what: str = "task",
            window: int | None = None) -> Iterator[tuple[int, Any]]: ...


# --------------------------------------------------------------------------- keys

def template_text(entry: TemplateEntry) -> str:
    """What a task's result depends on of its template: its name, file name, its own
    definition's text (not the rest of its file), instruction variants and domain file."""
    span = entry.template.span
    own = entry.source.text[span.start:span.end] if span.start >= 0 else entry.sha256
    return _digest([entry.name, Path(entry.path).name, own, list(entry.texts),
                    domain_sha(entry)])


class TaskKeys:
    """The key of each task of an opened suite for one check and its options (module
    doc); files are read and hashed once each."""

    def __init__(self, opened: ReopenedSuite, check: str, options: object) -> None:
        from fdc.core.version import __version__

        self.opened = opened
        manifest = opened.read_manifest()
        self.base = _digest({
            "fdc": __version__, "code": code_digest(), "format": RESULTS_FORMAT,
            "check": check, "options": options, "limits": repr(current()),
            "seed": manifest.seed if manifest is not None else None,
            "experiences": [self._file(str(p), "experience") for p in opened.experiences],
        })
        self._files: dict[tuple[str, str], Any] = {}
        self._templates: dict[tuple[str | None, str], str] = {}

    def _file(self, path: str, kind: str) -> Any:
        from fdc.core.inputs import InputKind

        try:
            if kind == "scene":
                return scene_digest(path)
            return _file_sha(path, InputKind.EXPERIENCE)
        except InputError as e:
            return f"unreadable: {e}"

    def _memo(self, path: Path, kind: str) -> Any:
        key = (str(path.resolve()), kind)
        if key not in self._files:
            self._files[key] = self._file(str(path), kind) if path.is_file() else None
        return self._files[key]

    def _template(self, record: TaskRecord) -> str:
        key = (record.template_file, record.template)
        if key not in self._templates:
            entry, why = self.opened.template(record)
            self._templates[key] = why if entry is None else template_text(entry)
        return self._templates[key]

    def key(self, record: TaskRecord) -> str:
        opened = self.opened
        try:
            scene: Any = self._memo(opened.scene_path(record), "scene")
        except ReopenError as e:
            scene = f"{e.code}: {e}"
        entry = opened.scene_entry(record)
        ref = entry.experience if entry is not None else None
        log = None
        if ref is not None and ref.path is not None and not ref.simulated:
            named = Path(ref.path)
            beside = opened.path.parent / ref.path
            log = self._memo(beside if not named.is_file() and beside.is_file() else named,
                             "experience")
        return _digest({
            "base": self.base, "record": "".join(suite_lines([record])),
            "template": None if imported(record) is not None else self._template(record),
            "scene": scene, "log": log,
            "entry": None if entry is None else
            entry.model_dump(mode="json", exclude={"tasks"}),
        })

    def world(self, record: TaskRecord) -> Hashable:
        """What the batches are cut by: the record's scene and experience, as the
        manifest names them (cheap: nothing is loaded)."""
        try:
            scene = str(self.opened.scene_path(record))
        except ReopenError:
            scene = ""
        entry = self.opened.scene_entry(record)
        return scene, entry.experience.sha256 if entry is not None and \
            entry.experience is not None else None


# --------------------------------------------------------------------------- the cache


class ResultCache:
    """Each task's result under its key: files in `root` (`ROOT/CHECK/KEY[:2]/KEY.json`,
    written atomically), or a dictionary when `root` is None. An entry holds its key, so
    one that does not read back as written is checked again (`damaged`)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.files: dict[tuple[str, str], str] = {}
        self.damaged: dict[str, str] = {}

    def _path(self, check: str, key: str) -> Path:
        assert self.root is not None
        return self.root / check / key[:2] / f"{key}.json"

    def get(self, check: str, key: str) -> str | None:
        """The result kept under `key`, or None (missing or damaged)."""
        if self.root is None:
            return self.files.get((check, key))
        path = self._path(check, key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != key or \
                    not isinstance(data.get("result"), str):
                raise ValueError("not the entry written under this key")
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            self.damaged[str(path)] = str(e).splitlines()[0] if str(e) else type(e).__name__
            return None
        result: str = data["result"]
        return result

    def put(self, check: str, key: str, result: str) -> None:
        if self.root is None:
            self.files[check, key] = result
            return
        write_atomic(self._path(check, key),
                     json.dumps({"key": key, "result": result}, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- a run


#: A suite's records with their lines, read again from the start at each call (the
#: suite streamed from its file, or a list).
Lines = Callable[[], Iterable[Line]]


@dataclass
class CheckRun:
    """What a run checked and what it read back from the cache; each task's key is made
    again as its result is read (`results`: the suite is read again, not kept)."""

    check: str
    cache: ResultCache
    lines: Lines
    keys: TaskKeys
    tasks: int = 0
    checked: int = 0
    reused: int = 0

    def summary(self) -> str:
        """`118 tasks: 2 checked, 116 reused from the cache`."""
        return f"{self.tasks} task(s): {self.checked} checked, {self.reused} reused " \
            "from the cache"

    def results(self) -> Iterator[tuple[Line, str]]:
        """Each task (its line and record) with its result, in the suite's order."""
        for line in self.lines():
            key = self.keys.key(line[1])
            found = self.cache.get(self.check, key)
            if found is None:
                raise InputError(f"the result of a task (key {key[:12]}...) left the cache "
                                 "during the run; run again, or with --no-cache")
            yield line, found


def batch_spec(spec: SuiteSpec, opened: ReopenedSuite) -> SuiteSpec:
    """`spec` for workers given their batches' records alone (`SuiteSpec.memory_scenes`)."""
    return replace(spec, memory_scenes=tuple(sorted(str(p) for p in opened.memory_scenes())))


def run_batch(worker: Worker, spec: SuiteSpec, lines: list[Line], options: Any,
              limits: Limits) -> list[str] | Failure:
    """`worker` on a batch, under the limits of the main process (any process)."""
    set_current(limits)
    return worker(spec, lines, options)


def batch_size(tasks: int, jobs: int) -> int:
    """At most `BATCH_MAX`, and small enough that each of `jobs` workers gets about four
    batches of `tasks`."""
    return max(1, min(BATCH_MAX, math.ceil(tasks / (4 * jobs))))


def batches(keys: Sequence[Hashable], jobs: int) -> list[list[int]]:
    """The indices of `keys` (each task's world) in batches of one world each
    (`batch_size` long at most); in the order of each world's first task."""
    groups: dict[Hashable, list[int]] = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, []).append(k)
    size = batch_size(len(keys), jobs)
    return [g[i:i + size] for g in groups.values() for i in range(0, len(g), size)]


@dataclass
class _Batch:
    lines: list[Line]
    keys: list[str]


class _Batches:
    """The batches of the tasks to check, made as the suite is read (`run_checks`): a
    world's batch goes out when full, the rest at the end; `len` is known beforehand
    (each world's count, from the first reading). What waits is at most a batch per
    world; what was sent is kept until its results come back (`done`)."""

    def __init__(self, todo: Iterable[tuple[Line, str]], worlds: dict[Hashable, int],
                 size: int, world: Callable[[TaskRecord], Hashable], make: Callable[
                     [list[Line]], tuple[Any, ...]]) -> None:
        self.todo, self.size, self.world, self.make = todo, size, world, make
        self.count = sum(math.ceil(n / size) for n in worlds.values())
        self.sent: dict[int, _Batch] = {}
        self.names: list[str] = []

    def __len__(self) -> int:
        return self.count

    def _out(self, batch: _Batch) -> tuple[Any, ...]:
        self.sent[len(self.names)] = batch
        self.names.append(f"the batch of tasks {batch.lines[0][1].id} to "
                          f"{batch.lines[-1][1].id}")
        return self.make(batch.lines)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        waiting: dict[Hashable, _Batch] = {}
        for line, key in self.todo:
            batch = waiting.setdefault(self.world(line[1]), _Batch([], []))
            batch.lines.append(line)
            batch.keys.append(key)
            if len(batch.lines) == self.size:
                del waiting[self.world(line[1])]
                yield self._out(batch)
        for batch in waiting.values():
            yield self._out(batch)


def run_checks(check: str, opened: ReopenedSuite, spec: SuiteSpec, lines: Lines,
               options: Any, key_options: object, worker: Worker, cache: ResultCache,
               executor: Executor | None = None, jobs: int = 1, *,
               prepare: Callable[[Sequence[Line]], None] | None = None,
               on_planned: Callable[[int, int], None] | None = None,
               on_task: Callable[[str], None] | None = None) -> CheckRun:
    """Check each of `lines` the cache lacks with `worker` (on `executor`; None: in this
    process), keeping each result as its batch finishes; `prepare` hears the lines to
    check first (to raise an input error before any work; in parts of `PREPARE`),
    `on_planned` how many tasks are checked and reused, `on_task` each task done.
    `key_options`: what of `options` the results depend on. Read the results with
    `CheckRun.results`. The suite is read twice here (the tasks to check, then their
    batches), and what is held is bounded by the batches waiting and in flight, not by
    the suite."""
    keys = TaskKeys(opened, check, key_options)
    run = CheckRun(check, cache, lines, keys)
    worlds: dict[Hashable, int] = {}
    part: list[Line] = []
    for line in lines():
        run.tasks += 1
        if cache.get(check, keys.key(line[1])) is not None:
            run.reused += 1
            continue
        world = keys.world(line[1])
        worlds[world] = worlds.get(world, 0) + 1
        part.append(line)
        if prepare is not None and len(part) == PREPARE:
            prepare(part)
        if len(part) == PREPARE:
            part = []
    if prepare is not None and part:
        prepare(part)
    missing = run.tasks - run.reused
    if on_planned is not None:
        on_planned(missing, run.reused)
    if not missing:
        return run
    dask = executor is not None and type(executor).__name__ == "DaskExecutor"
    limits = current()
    spec = batch_spec(spec, opened)

    def todo() -> Iterator[tuple[Line, str]]:
        for line in lines():
            key = keys.key(line[1])
            if cache.get(check, key) is None:
                yield line, key

    calls = _Batches(todo(), worlds, batch_size(missing, DASK_WORKERS if dask else jobs),
                     keys.world, lambda batch: (worker, spec, batch, options, limits))
    remember(spec, opened)  # a batch run in this process reads the suite opened here
    outputs: Iterator[tuple[int, list[str] | Failure]] = \
        executor.map(run_batch, calls, _names(calls), "batch", window=WINDOW) \
        if executor is not None else iter(enumerate(run_batch(*c) for c in calls))
    try:
        for b, out in outputs:
            if isinstance(out, Failure):
                raise InputError(out.message)
            batch = calls.sent.pop(b)
            for (_, record), key, text in zip(batch.lines, batch.keys, out, strict=True):
                cache.put(check, key, text)
                run.checked += 1
                if on_task is not None:
                    on_task(record.id)
    except BrokenProcessPool as e:  # a local worker killed (out of memory, say)
        kept = f"the {run.checked} task(s) finished are kept in {cache.root}: run " \
            "again to resume" if cache.root is not None else "nothing was kept"
        raise InputError(f"a worker process was lost ({e}); {kept}") from None
    finally:
        close = getattr(outputs, "close", None)
        if close is not None:
            close()
    return run


def _names(batches: _Batches) -> Iterator[str]:
    """The name of each batch, read after its call (made as the call is)."""
    for k in itertools.count():
        yield batches.names[k]


# --------------------------------------------------------------------------- validate


def validate_batch(spec: SuiteSpec, lines: list[Line], options: ValidateOptions
                   ) -> list[str] | Failure:
    """A worker's reports of a batch of records (`validate.validate_lines`), each as
    JSON without its line (the line is the suite's, set when read back)."""
    try:
        reports = validate_lines(opened_suite(spec), lines, options)
    except FdcError as e:  # ReopenError, SceneLoadError: input errors, said by the client
        return Failure(str(e))
    return [r.model_dump_json(exclude={"line"}) for r in reports]


def validate_options_key(options: ValidateOptions) -> dict[str, Any]:
    """What a task's report depends on of the options (not `strict`: the report's
    verdict, not a task's findings)."""
    oracle = options.oracle
    return {"scene": options.scene, "solve": options.solve, "timeout_s": options.timeout_s,
            "planner": options.planner,
            "oracle": None if oracle is None else f"{oracle.__module__}.{oracle.__qualname__}"}


def suite_records(path: Path, problems: list[Diagnostic] | None = None) -> Iterator[Line]:
    """A suite's records with their lines, read from the file a line at a time
    (`suite.stream_suite`); `problems` gets those of the lines that are not records.
    `ReopenError` as `validate.open_for_validation` says it."""
    try:
        for got in stream_suite(path):
            if got.value is None:
                if problems is not None:
                    problems.extend(got.problems)
                continue
            yield got.line, got.value
    except InputFileError as e:
        if e.reason.startswith("not UTF-8"):
            raise ReopenError("suite-encoding", "not a UTF-8 text file", str(path)) from None
        raise ReopenError("suite", f"cannot read the suite: {e}", str(path)) from None


class ValidationStream:
    """A validation report read back from the cache a task at a time: `header` (the
    report without its task reports, the counts over them made by a first reading), the
    task reports (`reports`), and the report's bytes as `ValidationReport`'s
    (`json_chunks`, `junit_chunks`): held in memory is a task's report at a time."""

    def __init__(self, suite: str, options: ValidateOptions, bad: list[LineReport],
                 run: CheckRun) -> None:
        self.run = run
        failing = {"error", "warning"} if options.strict else {"error"}
        every = [f for b in bad for f in b.findings]
        tasks = errors = warnings = certified = planned = 0
        self.failures = sum(f.severity in failing for f in every)
        for r in self.reports():
            tasks += 1
            errors += sum(f.severity == "error" for f in r.findings)
            warnings += sum(f.severity == "warning" for f in r.findings)
            self.failures += sum(f.severity in failing for f in r.findings)
            if r.certificate is not None:
                planned += 1
                certified += r.certificate.status == "solved"
        self.header = ValidationReport(
            suite=suite, solve=options.solve, strict=options.strict, tasks=tasks,
            errors=errors + sum(f.severity == "error" for f in every),
            warnings=warnings + sum(f.severity == "warning" for f in every),
            certified=certified, planned=planned, bad_lines=bad, task_reports=[])

    @property
    def ok(self) -> bool:
        return self.header.ok

    def reports(self) -> Iterator[TaskReport]:
        """Each task's report, in the suite's order."""
        for (line, _), text in self.run.results():
            yield TaskReport.model_validate({**json.loads(text), "line": line})

    def json_chunks(self) -> Iterator[str]:
        """`ValidationReport.model_dump_json(indent=2)` of the whole report, in pieces."""
        yield from json_list_chunks(self.header, "task_reports", self.reports())

    def junit_chunks(self) -> Iterator[str]:
        """`validate.junit_xml` of the whole report, in pieces."""
        import xml.etree.ElementTree as ET

        header = self.header
        if not header.tasks:
            yield junit_xml(header)
            return

        def cases() -> Iterator[ET.Element]:
            for classname, name, findings in junit_cases(header.bad_lines, self.reports()):
                holder = ET.Element("holder")
                junit_case(holder, classname, name, findings, header.strict)
                yield holder[0]

        yield from junit_chunks("fdc validate", header.suite,
                                header.tasks + len(header.bad_lines), self.failures, cases())


def validate_run(suite: str | Path, options: ValidateOptions, cache: ResultCache,
                 executor: Executor | None = None, jobs: int = 1, *,
                 on_planned: Callable[[int, int], None] | None = None,
                 on_task: Callable[[str], None] | None = None
                 ) -> tuple[ValidationStream, CheckRun]:
    """`validate.validate_suite`, its tasks checked in batches (module doc) and cached,
    the suite read from its file a line at a time (several times: never held whole):
    the report (the same bytes as `validate_suite`'s, streamed) and the run."""
    path = Path(suite)
    scenes = [options.scene] if options.scene else []
    problems: list[Diagnostic] = []
    probe = reopen_inputs(path, (), scenes=scenes)
    memory = {probe.scene_path(r) for _, r in suite_records(path, problems)
              if r.experience is not None and (r.scene or len(scenes) == 1)}
    opened = reopen_inputs(path, sorted(memory), scenes=scenes)
    opened.problems = problems
    spec = SuiteSpec(str(suite), tuple(scenes))

    def prepare(todo: Sequence[Line]) -> None:  # what validate_lines raises, before work
        opened.read_manifest()
        for _, r in todo:
            scene = options.scene or r.scene
            if imported(r) is None and scene is not None and \
                    not opened.scene_path(r).is_file():
                raise ReopenError("scene-not-found", "no such scene file (give it with "
                                  "--scene)", scene)

    run = run_checks("validate", opened, spec, lambda: suite_records(path), options,
                     validate_options_key(options), validate_batch, cache, executor, jobs,
                     prepare=prepare, on_planned=on_planned, on_task=on_task)
    return ValidationStream(str(suite), options, bad_lines(opened), run), run
