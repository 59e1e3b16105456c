"""`fdc run-baseline NAME suite.jsonl -o preds.jsonl`: a baseline agent's predictions.

Exit codes: 0 every task predicted, 1 the oracle failed some tasks (listed with the
reason), 2 usage or input error (a suite, scene or experience log that cannot be read).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, read_suite_or_exit, stderr

if TYPE_CHECKING:
    from fdc.agents.baselines import SceneContext
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience



def run_baseline_command(
    name: Annotated[str, typer.Argument(help="The baseline: random or oracle.")],
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The predictions file.")],
    seed: Annotated[int, typer.Option(help="Seed of the random baseline.")] = 0,
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file (default: the one each task names, found from the "
                     "working folder or beside the suite)."),
    ] = None,
    experience: Annotated[
        Path | None,
        typer.Option(help="The experience log of the memory tasks (default: the manifest "
                     "beside the suite says which; a simulated one is simulated again)."),
    ] = None,
) -> None:
    """Predict every task of a suite with a baseline agent: frames for memory tasks (the
    oracle also walks to them, recorded beside the predictions), action traces for
    manipulation tasks."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from fdc.agents.baselines import BASELINES, run_baseline
    from fdc.core.files import write_atomic

    err = stderr()
    if name not in BASELINES:
        err.print(f"error: unknown baseline `{name}`; known: {', '.join(BASELINES)}")
        raise typer.Exit(EXIT_USAGE)
    records = read_suite_or_exit(suite, err)
    scenes = _Scenes(suite, scene, experience)
    for r in records:  # load everything first: input errors before any work
        scenes(r)
    trajectories = output.parent / f"{output.stem}.trajectories" if name == "oracle" else None
    lines: list[str] = []
    failures: list[tuple[str, str]] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        bar = progress.add_task(f"{name} baseline", total=len(records))
        for result in run_baseline(name, records, scenes, seed=seed, trajectories=trajectories,
                                   predictions_dir=output.parent):
            lines.append(json.dumps(result.prediction.model_dump(mode="json", exclude_none=True),
                                    sort_keys=True) + "\n")
            if result.failure:
                failures.append((result.prediction.task_id, result.failure))
            progress.update(bar, advance=1)
    write_atomic(output, "".join(lines))
    for task_id, why in failures:
        err.print(f"{task_id}: not solved: {why}", markup=False)
    err.print(f"wrote {len(lines)} prediction(s) to {output}"
              + (f"; {len(failures)} task(s) not solved" if failures else ""))
    raise typer.Exit(EXIT_FINDINGS if failures else EXIT_OK)


class _Scenes:
    """Each task's scene graph and experience, loaded once per scene file."""

    def __init__(self, suite: Path, scene: Path | None, experience: Path | None) -> None:
        self.suite = suite
        self.scene = scene
        self.experience = experience
        self._graphs: dict[str, tuple[SceneGraph, Path]] = {}
        self._logs: dict[str, Experience | None] = {}
        self._manifest: dict[str, object] | None = None

    def __call__(self, task: TaskRecord) -> SceneContext:
        from fdc.agents.baselines import SceneContext

        key = task.scene or ""
        if key not in self._graphs:
            self._graphs[key] = self._load_graph(key)
        graph, path = self._graphs[key]
        log = None
        if task.experience is not None:
            if key not in self._logs:
                self._logs[key] = self._load_log(key, graph, path, task.experience)
            log = self._logs[key]
        return SceneContext(graph=graph, experience=log, scene_name=path.name)

    def _path(self, named: str) -> Path:
        if self.scene is not None:
            return self.scene
        if not named:
            stderr().print(f"{self.suite}: error: a task names no scene; hint: pass --scene")
            raise typer.Exit(EXIT_USAGE)
        for p in (Path(named), self.suite.parent / named):
            if p.exists():
                return p
        stderr().print(f"{self.suite}: error: scene `{named}` not found from the working "
                        "folder or beside the suite; hint: pass --scene")
        raise typer.Exit(EXIT_USAGE)

    def _load_graph(self, named: str) -> tuple[SceneGraph, Path]:
        from fdc.cli.scene import _load_graph

        path = self._path(named)
        return _load_graph(path), path

    def _load_log(self, named: str, graph: SceneGraph, path: Path, sha: str
                  ) -> Experience:
        from fdc.compiler.prepare import load_experience
        from fdc.core.errors import InputError
        from fdc.core.hashing import sha256_text
        from fdc.sim_bridge.world.experience import Experience

        err = stderr()
        if self.experience is not None:
            try:
                raw, found = load_experience(str(self.experience))
            except InputError as e:
                err.print(f"error: {e}")
                raise typer.Exit(EXIT_USAGE) from None
            assert isinstance(raw, Experience)
            if found != sha:
                err.print(f"{self.experience}: error: this log (sha256 {found[:12]}) is not "
                          f"the one the suite's memory tasks are about ({sha[:12]})")
                raise typer.Exit(EXIT_USAGE)
            return raw
        ref = self._manifest_ref(named)
        if ref.get("path"):
            given = Path(str(ref["path"]))
            beside = self.suite.parent / given
            try:
                raw, found = load_experience(str(beside if beside.exists() else given))
            except InputError as e:
                err.print(f"error: {e}; hint: pass --experience")
                raise typer.Exit(EXIT_USAGE) from None
            assert isinstance(raw, Experience)
            log = raw
        else:
            from fdc.core.hashing import scene_sha256
            from fdc.sim_bridge.world.simulate import simulate_experience

            log = simulate_experience(graph, interactions=int(str(ref.get("interactions", 5))),
                                      seed=int(str(ref.get("seed") or 0)), scene=path.name,
                                      scene_sha256=scene_sha256(graph.scene))
            found = sha256_text(log.to_json())
        if found != sha:
            err.print(f"error: the experience of `{named}` (sha256 {found[:12]}) is not the "
                      f"one the suite's memory tasks are about ({sha[:12]}); hint: pass "
                      "--experience")
            raise typer.Exit(EXIT_USAGE)
        return log

    def _manifest_ref(self, named: str) -> dict[str, object]:
        err = stderr()
        if self._manifest is None:
            path = self.suite.parent / "manifest.json"
            try:
                self._manifest = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                err.print(f"error: no readable manifest beside {self.suite} to find the "
                          "experience of its memory tasks; hint: pass --experience")
                raise typer.Exit(EXIT_USAGE) from None
        scenes = self._manifest.get("scenes", []) if isinstance(self._manifest, dict) else []
        for entry in scenes if isinstance(scenes, list) else []:
            if isinstance(entry, dict) and entry.get("path") == named and \
                    isinstance(entry.get("experience"), dict):
                return dict(entry["experience"])
        err.print(f"error: the manifest beside {self.suite} names no experience for scene "
                  f"`{named}`; hint: pass --experience")
        raise typer.Exit(EXIT_USAGE)
