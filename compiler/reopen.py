"""Reopen a compiled suite: its records and, for each record, the template, scene,
experience and compiler it was compiled with. `fdc validate`, the PDDL and Habitat
exports, `fdc evaluate` and the baselines all find a suite's inputs this one way.

- The manifest is `manifest.json` beside the suite (none: the suite alone).
- A record's scene: the scene given for every task; among several given, the one whose
  sha256 the manifest records for the record's scene (else the one of the same file
  name); else the file the record names, from the working folder (a record names its
  files as `fdc compile` was given them), else beside the suite. Whether it is the scene
  the suite was compiled on (the manifest's sha256) is asked for: `check_scene`.
- A memory task's experience: among the logs given, the one with the task's sha256, else
  the one the manifest names for the task's scene: its log file (found as a scene is) or
  its simulation run again (the manifest's seed and interaction count), checked against
  the task's sha256. Either is checked against the task's scene and its frames. A scene
  compiled with several experiences (days) has a manifest entry per day: a memory task's
  is the one with the task's sha256, any other task's the scene's first.
- A record's template: the built-in library, or the file the record names (from the
  working folder), each file checked once. A record an importer wrote (`imported`:
  `fdc import partnr` writes template `partnr`) has none: its `template_file` names the
  file it was imported from, which is not read.
- A record's compiler: a `SceneCompiler` on its scene, with the experience the manifest
  names for the record's entry when the suite has memory tasks there (`world_key`).

What cannot be found or read raises `ReopenError`, a scene file that does not load
`SceneLoadError`; `load` finds and checks everything some records need before any work.
See docs/architecture.md.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from fdc.core.errors import InputError
from fdc.core.hashing import scene_sha256, sha256_text
from fdc.core.inputs import InputFileError, InputKind, read_input_bytes, read_input_text
from fdc.core.jsonl import loads
from fdc.core.problems import Diagnostic
from fdc.sim_bridge.world.experience import Experience

from .manifest import ExperienceRef, Manifest, SceneEntry
from .options import CompileOptions
from .prepare import load_experience
from .scene_compiler import SceneCompiler
from .start import task_start_state
from .suite import TaskRecord, parse_numbered_suite
from .templates import TemplateEntry, load_entries

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot


#: The template names importers give their records (with the same category), and the
#: format each was imported from: such a record has no template.
IMPORTED = {"partnr": "PARTNR"}


def imported(record: TaskRecord) -> str | None:
    """The format a record was imported from (`PARTNR`), or None: compiled by fdc."""
    found = IMPORTED.get(record.template)
    return found if found is not None and record.category == record.template else None


class ReopenError(InputError):
    """A suite's input that cannot be found or read, or is not the one the suite was
    compiled with (the CLI's exit 2). `code` says which, `file` the file concerned;
    `details` holds the names and hashes a caller may word its own message with."""

    def __init__(self, code: str, message: str, file: str | None = None,
                 **details: str) -> None:
        super().__init__(f"{file}: {message}" if file else message)
        self.code = code
        self.message = message
        self.file = file
        self.details = details


def reopen_suite(suite: str | Path, *, scenes: Sequence[str | Path] = (),
                 experiences: Sequence[str | Path] = (), keep_text: bool = False
                 ) -> ReopenedSuite:
    """Read a suite's records; its scenes, experiences and templates are found on demand.
    `scenes`, `experiences`: files given in place of the ones the suite names;
    `keep_text`: keep each record's line as the file holds it (`ReopenedSuite.texts`)."""
    path = Path(suite)
    try:
        text = read_input_text(path, InputKind.SUITE)
    except InputFileError as e:
        code = "suite-encoding" if e.reason.startswith("not UTF-8") else "suite"
        raise ReopenError(code, f"cannot read the suite: {e}", str(suite)) from None
    texts: list[str] | None = [] if keep_text else None
    lines, problems = parse_numbered_suite(text, texts)
    opened = ReopenedSuite(path, lines, problems, [Path(s) for s in scenes],
                           [Path(e) for e in experiences])
    opened.texts = texts
    return opened


def reopen_inputs(suite: str | Path, memory_scenes: Sequence[str | Path], *,
                  scenes: Sequence[str | Path] = (), experiences: Sequence[str | Path] = ()
                  ) -> ReopenedSuite:
    """A suite's inputs without its records, the suite file not read: a worker given a
    batch of records the main process read (`compiler.suite_runs`), whose memory does not
    grow with the suite. `memory_scenes`: the whole suite's
    (`ReopenedSuite.memory_scenes`), what a record's compiler depends on beyond the
    record."""
    opened = ReopenedSuite(Path(suite), [], [], [Path(s) for s in scenes],
                           [Path(e) for e in experiences])
    opened._memory = {Path(p) for p in memory_scenes}
    return opened


def _manifest_beside(suite: Path) -> Manifest | None:
    """The manifest beside the suite, if there is one."""
    path = suite.parent / "manifest.json"
    if not path.is_file():
        return None
    try:
        return Manifest.model_validate(loads(read_input_text(path, InputKind.MANIFEST)))
    except InputFileError as e:
        raise ReopenError("manifest", f"cannot read the manifest: {e}", str(path)) from None
    except (ValidationError, json.JSONDecodeError) as e:
        raise ReopenError("manifest", f"not an fdc manifest: {e}", str(path)) from None


def _day(days: Sequence[SceneEntry], record: TaskRecord) -> SceneEntry:
    """Among one scene's entries (a day each), the one of the record's experience, else
    the first."""
    return next((s for s in days if s.experience is not None and record.experience
                 is not None and s.experience.sha256 == record.experience), days[0])


def _locate(suite: Path, named: str) -> Path:
    """A file a suite or its manifest names: from the working folder, else beside the
    suite (as named when neither exists)."""
    given = Path(named)
    beside = suite.parent / named
    return beside if not given.is_file() and beside.is_file() else given


class ReopenedSuite:
    """A compiled suite's records and, found once each, their inputs."""

    def __init__(self, path: Path, lines: list[tuple[int, TaskRecord]],
                 problems: list[Diagnostic], scenes: list[Path],
                 experiences: list[Path]) -> None:
        self.path = path
        self.lines = lines  # each record with its line number (from 1)
        self.problems = problems  # the lines that are not task records
        self.texts: list[str] | None = None  # with `keep_text`: each record's line
        self.scenes = scenes
        self.experiences = experiences
        self._manifest: Manifest | None = None
        self._manifest_read = False
        self._templates: dict[str, dict[str, TemplateEntry]] = {}
        self._graphs: dict[Path, SceneGraph] = {}
        self._shas: dict[Path, str] = {}
        self._matched: dict[str, Path] = {}
        self._given: dict[str, Experience] | None = None
        self._scene_logs: dict[tuple[Path, str], tuple[Experience, str]] = {}
        self._compilers: dict[tuple[Path, str | None], SceneCompiler] = {}
        self._memory: set[Path] | None = None
        self._starts: dict[tuple[Path, str | None], Snapshot] = {}
        #: What a check keeps of this suite's worlds between its batches in this process
        #: (`fdc validate`: each world's `validate.SceneWorlds`), gone with the suite.
        self.kept: dict[Hashable, Any] = {}

    @property
    def records(self) -> list[TaskRecord]:
        return [r for _, r in self.lines]

    # ----- the manifest -------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.path.parent / "manifest.json"

    def read_manifest(self) -> Manifest | None:
        """The manifest beside the suite, read once (`ReopenError` when it is not one)."""
        if not self._manifest_read:
            self._manifest = _manifest_beside(self.path)
            self._manifest_read = True
        return self._manifest

    def read_manifest_leniently(self) -> str | None:
        """Read the manifest, leaving it aside when it is not one or describes another
        suite: then why (a warning)."""
        note = None
        try:
            manifest = _manifest_beside(self.path)
        except ReopenError:
            manifest, note = None, "not an fdc manifest; ignored"
        if manifest is not None and manifest.suite_sha256 != sha256_text(
                read_input_bytes(self.path, InputKind.SUITE)):
            manifest, note = None, f"describes another suite than {self.path}; ignored"
        self._manifest, self._manifest_read = manifest, True
        return note

    def _entry(self, record: TaskRecord, *, sole: bool) -> SceneEntry | None:
        """The manifest's entry for the record's scene (of its experience, among a scene's
        days): by the name the record gives, else by the file given for it; with `sole`,
        else a one-scene manifest's entry."""
        manifest = self.read_manifest()
        if manifest is None:
            return None
        given = [str(self.scenes[0])] if len(self.scenes) == 1 else []
        for name in [record.scene, *given]:
            days = [s for s in manifest.scenes if name and s.path == name]
            if days:
                return _day(days, record)
        one_scene = len({s.path for s in manifest.scenes}) == 1
        return _day(manifest.scenes, record) if sole and one_scene else None

    def scene_entry(self, record: TaskRecord) -> SceneEntry | None:
        """The manifest's entry for the record's scene and experience (None: no manifest,
        or it has none), as the record's compiler and experience are found by."""
        return self._entry(record, sole=True)

    # ----- templates ----------------------------------------------------------------

    def template(self, record: TaskRecord) -> tuple[TemplateEntry | None, str]:
        """The record's template, or None and why not (an imported record has none)."""
        source = imported(record)
        if source is not None:
            return None, f"task `{record.id}` was imported from {source}: it has no template"
        file = record.template_file
        builtin = file is None or file.startswith("fdc:")
        key = "fdc:" if builtin else str(file)
        found = self._templates.get(key)
        if found is None:
            if not builtin and not Path(key).is_file():
                raise ReopenError("template-file", f"the template file of task `{record.id}` "
                                  "does not exist (run from the folder the suite was "
                                  "compiled in)", key)
            entries, result = load_entries(None if builtin else [key, *self._domain_files()])
            if result.errors or result.usage_error:
                raise ReopenError("templates", f"the templates do not check (`fdc check {key}`)",
                                  key)
            found = self._templates[key] = {e.name: e for e in entries}
        entry = found.get(record.template)
        if entry is None:
            where = "the built-in library" if builtin else key
            return None, f"no template `{record.template}` in {where}"
        return entry, ""

    def _domain_files(self) -> list[str]:
        """The domain files the manifest lists (templates of `fdc import bddl` have theirs
        in a file of its own), each checked to be the one compiled with."""
        manifest = self.read_manifest()
        out = []
        for d in manifest.domains if manifest is not None else []:
            if not Path(d.path).is_file():
                raise ReopenError("domain-file", "a domain file the manifest lists does not "
                                  "exist (run from the folder the suite was compiled in)",
                                  d.path)
            if sha256_text(read_input_bytes(d.path, InputKind.TEMPLATE)) != d.sha256:
                raise ReopenError("domain-file", "the domain file has changed since the "
                                  "suite was compiled (its sha256 differs from the "
                                  "manifest's)", d.path)
            out.append(d.path)
        return out

    # ----- scenes -------------------------------------------------------------------

    def scene_path(self, record: TaskRecord) -> Path:
        """The record's scene file (it may not exist: loading it says so)."""
        if len(self.scenes) == 1:
            return self.scenes[0]
        if not record.scene:
            raise ReopenError("no-scene", f"task `{record.id}` names no scene")
        if self.scenes:
            return self._match(record.scene)
        return _locate(self.path, record.scene)

    def scene_file(self, record: TaskRecord) -> Path:
        """`scene_path`, or `ReopenError` when the scene the record names is found nowhere
        (a file given is not checked here: loading it says what is wrong)."""
        path = self.scene_path(record)
        if not self.scenes and not path.is_file():
            raise ReopenError("scene-not-found", f"cannot find the scene `{record.scene}` the "
                              f"suite names (looked beside {self.path} and in the working "
                              "folder)")
        return path

    def _match(self, name: str) -> Path:
        """Among the scenes given, the suite's scene `name`: by the sha256 the manifest
        records for it, else by its file name."""
        found = self._matched.get(name)
        if found is None:
            manifest = self.read_manifest()
            entry = next((s for s in manifest.scenes if s.path == name), None) \
                if manifest is not None else None
            if entry is not None:
                hits = [p for p in self.scenes if self._sha(p) == entry.sha256]
            else:
                hits = [p for p in self.scenes if p.name == Path(name).name]
            if not hits:
                how = "by its sha256 in the manifest" if entry is not None else "by name"
                raise ReopenError("no-scene-match", f"no given scene matches the suite's "
                                  f"scene `{name}` ({how})", scene=name, how=how)
            found = self._matched[name] = hits[0]
        return found

    def graph(self, record: TaskRecord) -> SceneGraph:
        """The record's scene graph, built once per file."""
        return self._graph(self.scene_path(record))

    def _graph(self, path: Path) -> SceneGraph:
        from fdc.sim_bridge.graph.scene_graph import load_scene_graph

        key = path.resolve()
        found = self._graphs.get(key)
        if found is None:
            try:
                found = self._graphs[key] = load_scene_graph(path)
            except OSError as e:
                raise ReopenError("scene-unreadable", f"cannot read the scene: {e.strerror}",
                                  str(path)) from None
        return found

    def _sha(self, path: Path) -> str:
        key = path.resolve()
        found = self._shas.get(key)
        if found is None:
            found = self._shas[key] = scene_sha256(self._graph(path).scene)
        return found

    def compiled_sha256(self, record: TaskRecord) -> str | None:
        """The sha256 the manifest records for the record's scene (None: none recorded)."""
        entry = self._entry(record, sole=False)
        return entry.sha256 if entry is not None else None

    def check_scene(self, record: TaskRecord) -> None:
        """`ReopenError` when the record's scene is not the one the manifest says the suite
        was compiled on."""
        entry = self._entry(record, sole=False)
        path = self.scene_path(record)
        if entry is not None and entry.sha256 != self._sha(path):
            raise ReopenError("scene-changed", "not the scene the suite was compiled on (the "
                              f"manifest gives `{entry.path}` the sha256 "
                              f"{entry.sha256[:12]}...)", str(path))

    # ----- experiences --------------------------------------------------------------

    def given_experiences(self) -> dict[str, Experience]:
        """The experience logs given, by sha256."""
        if self._given is None:
            logs: dict[str, Experience] = {}
            for path in self.experiences:
                try:
                    raw, sha = load_experience(str(path))
                except InputError as e:
                    raise ReopenError("experience-unreadable", str(e), given=str(path)
                                      ) from None
                assert isinstance(raw, Experience)
                logs.setdefault(sha, raw)
            self._given = logs
        return self._given

    def _manifest_log(self, record: TaskRecord) -> tuple[Experience, str] | None:
        """The experience the manifest names for the record's scene (None: it names
        none), read or simulated once per scene, with its sha256."""
        entry = self._entry(record, sole=True)
        ref = entry.experience if entry is not None else None
        if entry is None or ref is None or (ref.path is None and not ref.simulated):
            return None
        path = self.scene_path(record)
        found = self._scene_logs.get((path, ref.sha256))
        if found is None:
            found = self._scene_logs[path, ref.sha256] = self._rebuild(entry, ref, path)
        return found

    def _rebuild(self, entry: SceneEntry, ref: ExperienceRef, scene: Path
                 ) -> tuple[Experience, str]:
        if not ref.simulated:
            assert ref.path is not None
            try:
                raw, sha = load_experience(str(_locate(self.path, ref.path)))
            except InputError as e:
                raise ReopenError("experience-unreadable", str(e), manifest=ref.path) from None
            assert isinstance(raw, Experience)
            return raw, sha
        from fdc.sim_bridge.world.simulate import SimulationError, simulate_experience

        manifest = self.read_manifest()
        seed = ref.seed if ref.seed is not None else manifest.seed if manifest else 0
        try:
            log = simulate_experience(self._graph(scene), interactions=ref.interactions,
                                      seed=seed, scene=Path(entry.path).name,
                                      scene_sha256=self._sha(scene))
        except SimulationError as e:
            raise ReopenError("simulation", f"the simulated experience cannot be run again: "
                              f"{e}") from None
        return log, sha256_text(log.to_json())

    def experience(self, record: TaskRecord) -> Experience:
        """The experience a memory task is about, checked against its sha256, its scene and
        its frames."""
        sha = record.experience
        if sha is None:
            raise ReopenError("no-experience", f"memory task `{record.id}` names no experience "
                              "log: it cannot be judged at history frames")
        log = self.given_experiences().get(sha)
        if log is None:
            log = self._manifest_experience(record, sha)
        path = self.scene_path(record)
        if log.scene_sha256 is not None and log.scene_sha256 != self._sha(path):
            raise ReopenError("experience-scene", f"the experience log of task `{record.id}` "
                              f"was recorded in another scene than {path.resolve()}")
        if not log.frames:
            raise ReopenError("experience-empty", f"the experience log of task `{record.id}` "
                              "has no frames")
        return log

    def _manifest_experience(self, record: TaskRecord, sha: str) -> Experience:
        """The experience the manifest names for the record's scene, when it is the
        task's."""
        entry = self._entry(record, sole=True)
        ref = entry.experience if entry is not None else None
        rebuilt = self._manifest_log(record) if ref is not None and ref.sha256 == sha else None
        if ref is None or rebuilt is None:
            raise ReopenError("not-in-manifest", f"no experience log with sha256 {sha[:12]}... "
                              f"(task `{record.id}`)", found=ref.sha256 if ref is not None else "",
                              manifest="" if self.read_manifest() is None else "read")
        log, found = rebuilt
        if found == sha:
            return log
        if ref.path is not None:
            raise ReopenError("experience-changed", f"the log {ref.path} the manifest names has "
                              "changed since the suite was compiled", found=found)
        raise ReopenError("simulation-differs", "simulating the experience again (seed "
                          f"{ref.seed}, {ref.interactions} interactions) does not give the log "
                          f"of task `{record.id}`", found=found)

    def start_state(self, record: TaskRecord) -> Snapshot:
        """The state the record's task starts in (`compile.task_start_state`): the
        world its experience left behind for a task about one, else the scene's initial
        state. One per scene and experience; what pictures of the task draw."""
        key = (self.scene_path(record), record.experience)
        found = self._starts.get(key)
        if found is None:
            log = self.experience(record) if record.experience is not None else None
            found = self._starts[key] = task_start_state(self.graph(record), record, log)
        return found

    # ----- everything at once -------------------------------------------------------

    def load(self, graph_records: Sequence[TaskRecord],
             experience_records: Sequence[TaskRecord]) -> None:
        """Find, load and check what these records need (their scenes, the experiences of
        the second), so that every input error comes before any work."""
        self.given_experiences()
        unnamed = next((r for r in graph_records if not r.scene), None)
        if unnamed is not None and len(self.scenes) != 1:
            raise ReopenError("no-scene", f"task `{unnamed.id}` names no scene")
        for path in self.scenes:
            if not path.is_file():
                raise ReopenError("scene-missing", "no such scene file", str(path))
        first: dict[str, TaskRecord] = {}
        for r in graph_records:
            first.setdefault(r.scene or "", r)
        for name in sorted(first):
            self.scene_file(first[name])
        for name in sorted(first):
            self.graph(first[name])
            self.check_scene(first[name])
        for r in experience_records:
            self.experience(r)

    # ----- compilers ----------------------------------------------------------------

    def compiler(self, record: TaskRecord) -> SceneCompiler:
        """A compiler on the record's scene, with the experience the manifest names for the
        record's entry when the suite has memory tasks there (whether it is a task's own is
        the caller's to compare: `SceneCompiler.experience_sha256`); one per `world_key`."""
        key = self.world_key(record)
        found = self._compilers.get(key)
        if found is None:
            path, _ = key
            rebuilt = self._memory_log(record)
            log, sha = rebuilt if rebuilt is not None else (None, None)
            manifest = self.read_manifest()
            seed = manifest.seed if manifest is not None else 0
            found = self._compilers[key] = SceneCompiler(
                self._graph(path), str(path), self._sha(path), log, sha,
                CompileOptions(seed=seed))
        return found

    def world_key(self, record: TaskRecord) -> tuple[Path, str | None]:
        """What tells the record's compiler from another: its scene file and the sha256 of
        the experience it gets (None: none). Records of one key share a compiler."""
        rebuilt = self._memory_log(record)
        return self.scene_path(record), rebuilt[1] if rebuilt is not None else None

    def _memory_log(self, record: TaskRecord) -> tuple[Experience, str] | None:
        """The manifest's experience for the record's entry, when the suite has memory
        tasks on its scene."""
        path = self.scene_path(record)
        return self._manifest_log(record) if path in self.memory_scenes() else None

    def memory_scenes(self) -> set[Path]:
        """The scene files the suite has memory tasks on (found once): a compiler on one
        gets the manifest's experience (`world_key`)."""
        if self._memory is None:
            self._memory = {self.scene_path(r) for r in self.records
                            if r.experience is not None and (r.scene or len(self.scenes) == 1)}
        return self._memory
