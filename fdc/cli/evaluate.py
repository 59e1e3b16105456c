"""`fdc evaluate`: score predictions on a task suite (FindingDory's memory metrics,
ManiTaskGen's success rate and points), with a JSON report, tables, plots and feedback.

Finding what scoring needs: a task's scene is the file its record names (relative to the
suite's folder, else to the working folder), or one given with `--scene` (matched to
the suite's scenes by their sha256 in the manifest beside the suite, else by file name;
one `--scene` for a one-scene suite is that scene). A memory task's experience log is
found by its sha256 (the record's `experience`) among the `--history` logs, else through
the manifest: the log file it names, or, for a simulated log, the same simulation run
again (seed and interaction count from the manifest) and checked against the hash.

Exit codes: 0 ok, 1 some prediction was malformed (every problem located; the rest is
scored), 2 bad input (a suite, predictions file, scene or log that cannot be read or
found, or that does not match the suite).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, read_suite_or_exit, stderr

if TYPE_CHECKING:
    from fdc.compiler.manifest import Manifest
    from fdc.compiler.suite import TaskRecord
    from fdc.evaluation.memory import MemoryWorld
    from fdc.evaluation.report import Finding
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience


#: Findings of one kind printed on the terminal before the rest are counted.
_SHOWN_PER_CODE = 5


def _fail(message: str) -> typer.Exit:
    stderr().print(message, markup=False)
    return typer.Exit(EXIT_USAGE)


class _Sources:
    """Scenes and experience logs, resolved before scoring (any failure exits 2)."""

    def __init__(self, suite: Path, scenes: list[Path], histories: list[Path],
                 manifest: Manifest | None) -> None:
        self.suite = suite
        self.given_scenes = scenes
        self.manifest = manifest
        self._graphs: dict[Path, SceneGraph] = {}
        self._scene_of: dict[str, Path] = {}
        self._logs: dict[str, Experience] = {}
        self._worlds: dict[tuple[str, str], MemoryWorld] = {}
        for h in histories:
            self._add_log(h)

    # ----- Sources -----------------------------------------------------------------
    def graph(self, task: TaskRecord) -> SceneGraph:
        return self._graphs[self._scene_of[task.scene or ""]]

    def world(self, task: TaskRecord) -> MemoryWorld:
        from fdc.evaluation.memory import MemoryWorld

        key = (task.scene or "", task.experience or "")
        found = self._worlds.get(key)
        if found is None:
            found = self._worlds[key] = MemoryWorld(self.graph(task), self._logs[key[1]])
        return found

    # ----- resolving ---------------------------------------------------------------
    def resolve(self, graph_tasks: list[TaskRecord], log_tasks: list[TaskRecord]) -> None:
        names = sorted({t.scene or "" for t in graph_tasks})
        if "" in names:
            task = next(t for t in graph_tasks if not t.scene)
            if len(self.given_scenes) != 1:
                raise _fail(f"error: task `{task.id}` names no scene; give it with --scene")
        self._match_scenes(names)
        for t in log_tasks:
            self._find_log(t)

    def _load(self, path: Path) -> SceneGraph:
        from fdc.cli.scene import _load_graph

        key = path.resolve()
        found = self._graphs.get(key)
        if found is None:
            if not path.is_file():
                raise _fail(f"{path}: error: no such scene file")
            found = self._graphs[key] = _load_graph(path)
        return found

    def _scene_sha(self, name: str) -> str | None:
        if self.manifest is None:
            return None
        return next((s.sha256 for s in self.manifest.scenes if s.path == name), None)

    def _match_scenes(self, names: list[str]) -> None:
        from fdc.core.hashing import scene_sha256

        given = self.given_scenes
        if given and len(given) == 1 and len(names) == 1:
            chosen = {names[0]: given[0]}
        elif given:
            shas = {p: scene_sha256(self._load(p).scene) for p in given}
            chosen = {}
            for name in names:
                want = self._scene_sha(name)
                hits = [p for p in given if (shas[p] == want if want is not None
                                             else p.name == Path(name).name)]
                if not hits:
                    raise _fail(f"error: no --scene matches the suite's scene `{name}` "
                                f"({'by its sha256 in the manifest' if want else 'by name'})")
                chosen[name] = hits[0]
        else:
            chosen = {}
            for name in names:
                beside = self.suite.parent / name
                path = beside if beside.is_file() else Path(name)
                if not path.is_file():
                    raise _fail(f"error: cannot find the scene `{name}` the suite names "
                                f"(looked beside {self.suite} and in the working folder); "
                                "give it with --scene")
                chosen[name] = path
        for name, path in chosen.items():
            graph = self._load(path)
            want = self._scene_sha(name)
            if want is not None and scene_sha256(graph.scene) != want:
                raise _fail(f"{path}: error: not the scene the suite was compiled on (the "
                            f"manifest gives `{name}` the sha256 {want[:12]}...)")
            self._scene_of[name] = path.resolve()

    def _add_log(self, path: Path) -> str:
        from fdc.compiler.prepare import load_experience
        from fdc.core.errors import InputError
        from fdc.sim_bridge.world.experience import Experience

        try:
            log, sha = load_experience(str(path))
        except InputError as e:
            raise _fail(f"error: {e}") from None
        assert isinstance(log, Experience)
        self._logs.setdefault(str(sha), log)
        return str(sha)

    def _find_log(self, task: TaskRecord) -> None:
        from fdc.core.hashing import scene_sha256, sha256_text

        sha = task.experience
        hint = "give the log with --history"
        if sha is None:
            raise _fail(f"error: memory task `{task.id}` names no experience log: it "
                        "cannot be judged at history frames")
        if sha not in self._logs and self.manifest is not None:
            entry = next((s for s in self.manifest.scenes
                          if s.experience is not None and s.experience.sha256 == sha), None)
            ref = entry.experience if entry is not None else None
            if entry is not None and ref is not None and ref.path is not None:
                beside = self.suite.parent / ref.path
                got = self._add_log(beside if beside.is_file() else Path(ref.path))
                if got != sha:
                    raise _fail(f"error: the log {ref.path} the manifest names has changed "
                                f"since the suite was compiled; {hint}")
            elif entry is not None and ref is not None and ref.simulated:
                from fdc.sim_bridge.world.simulate import SimulationError, simulate_experience

                graph = self.graph(task)
                try:
                    log = simulate_experience(
                        graph, interactions=ref.interactions, seed=ref.seed or 0,
                        scene=Path(entry.path).name, scene_sha256=scene_sha256(graph.scene))
                except SimulationError as e:
                    raise _fail(f"error: the simulated experience cannot be run again: "
                                f"{e}; {hint}") from None
                if sha256_text(log.to_json()) != sha:
                    raise _fail(f"error: simulating the experience again (seed {ref.seed}, "
                                f"{ref.interactions} interactions) does not give the log "
                                f"of task `{task.id}`; {hint}")
                self._logs[sha] = log
        log = self._logs.get(sha)
        if log is None:
            raise _fail(f"error: no experience log with sha256 {sha[:12]}... (task "
                        f"`{task.id}`); {hint}")
        graph = self.graph(task)
        if log.scene_sha256 is not None and log.scene_sha256 != scene_sha256(graph.scene):
            raise _fail(f"error: the experience log of task `{task.id}` was recorded in "
                        f"another scene than {self._scene_of[task.scene or '']}")
        if not log.frames:
            raise _fail(f"error: the experience log of task `{task.id}` has no frames")


def _manifest(suite: Path) -> Manifest | None:
    """The manifest beside the suite, when it describes this suite."""
    from pydantic import ValidationError

    from fdc.compiler.manifest import Manifest
    from fdc.core.hashing import sha256_text

    path = suite.parent / "manifest.json"
    if not path.is_file():
        return None
    try:
        manifest = Manifest.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        stderr().print(f"{path}: warning: not an fdc manifest; ignored", markup=False)
        return None
    if manifest.suite_sha256 != sha256_text(suite.read_bytes()):
        stderr().print(f"{path}: warning: describes another suite than {suite}; ignored",
                        markup=False)
        return None
    return manifest


def _print_finding(f: Finding, predictions: Path) -> None:
    where = f"{predictions}:{f.line}" if f.line is not None else str(predictions)
    path = f" at {f.where}" if f.where else ""
    task = f" (task {f.task_id})" if f.task_id else ""
    err = stderr()
    err.print(f"{where}{path}: {f.severity}[{f.code}]: {f.message}{task}", markup=False)
    if f.hint:
        err.print(f"  = hint: {f.hint}", markup=False)


def _write(path: Path, data: str | bytes) -> None:
    from fdc.core.files import write_atomic

    try:
        write_atomic(path, data)
    except OSError as e:
        raise _fail(f"{path}: error: cannot write the file: {e.strerror or e}") from None


def evaluate_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    predictions: Annotated[
        Path, typer.Option("--predictions", "-p", help="The predictions (JSONL, one task a line).")
    ],
    history: Annotated[
        list[Path] | None,
        typer.Option("--history", help="An experience log memory tasks are about "
                     "(repeatable; default: found through the manifest beside the suite)."),
    ] = None,
    scene: Annotated[
        list[Path] | None,
        typer.Option("--scene", help="A scene file (repeatable; default: the ones the "
                     "suite names)."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the JSON report here.")
    ] = None,
    plots: Annotated[
        Path | None, typer.Option("--plots", help="Write PNG bar charts into this folder.")
    ] = None,
    feedback: Annotated[
        Path | None,
        typer.Option("--feedback", help="Write each manipulation task's stage and reflection "
                     "note here (JSONL)."),
    ] = None,
) -> None:
    """Score predictions on a suite: HL-SR, HL-SPL, DTG-SR, SC-SR (and LL-SR, LL-SPL with
    trajectories) for memory tasks, success rate and points for manipulation tasks."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from fdc.agents.predictions import read_predictions
    from fdc.core.hashing import sha256_text
    from fdc.evaluation.memory import frames_expected
    from fdc.evaluation.report import build_report, is_memory, tables

    err = stderr()
    records = read_suite_or_exit(suite, err)
    suite_bytes = suite.read_bytes()
    try:
        preds, bad_lines = read_predictions(predictions)
        pred_bytes = predictions.read_bytes()
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise _fail(f"{predictions}: error: cannot read the predictions: {why}") from None
    sources = _Sources(suite, list(scene or []), list(history or []), _manifest(suite))
    by_id = {r.id: r for r in records}
    predicted = [(by_id[p.task_id], p) for _, p in preds if p.task_id in by_id]
    graph_tasks = [t for t, p in predicted if p.frames is not None or p.trajectory is not None
                   or p.actions is not None]
    log_tasks = [t for t, p in predicted if is_memory(t) and p.frames is not None and
                 p.actions is None and frames_expected(t) > 0]
    sources.resolve(graph_tasks, log_tasks)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        bar = progress.add_task("scoring", total=len(records))
        evaluation = build_report(
            records, preds, bad_lines, sources, suite=str(suite),
            suite_sha256=sha256_text(suite_bytes), predictions_file=str(predictions),
            predictions_sha256=sha256_text(pred_bytes), trajectory_root=predictions.parent,
            on_task=lambda t: progress.update(bar, advance=1, description=f"scoring {t.id}"))
    report = evaluation.report
    out = Console(highlight=False)
    for table in tables(report):
        out.print(table)
    shown: dict[str, int] = {}
    for f in report.findings:
        shown[f.code] = shown.get(f.code, 0) + 1
        if shown[f.code] <= _SHOWN_PER_CODE:
            _print_finding(f, predictions)
    for code, n in shown.items():
        if n > _SHOWN_PER_CODE:
            err.print(f"... {n - _SHOWN_PER_CODE} more `{code}` finding(s)"
                      + ("; the report (-o) lists them all" if output is None else
                         f"; {output} lists them all"), markup=False)
    if output is not None:
        _write(output, report.model_dump_json(indent=2) + "\n")
    if plots is not None:
        from fdc.evaluation.plots import plot_reports

        for name, data in plot_reports(report).items():
            _write(plots / name, data)
    if feedback is not None:
        _write(feedback, "".join(r.model_dump_json() + "\n" for r in evaluation.feedback))
    err.print(f"scored {report.tasks} task(s), {report.predicted} predicted: "
              f"{report.errors} error(s), {report.warnings} warning(s)")
    raise typer.Exit(EXIT_FINDINGS if report.errors else EXIT_OK)
