"""Scene preparation, the pipeline's first stage: a scene file (and an experience log, or
none) becomes a `SceneCompiler`.

Three steps, each timed: **scene** loads `scene.json` and builds its graph; **experience**
reads the given log, or simulates one (seeded with the compile seed plus the day's rank,
so the same inputs give the same log) when some template is a memory template, or takes
none; **start states** computes the states tasks start in. A scene where no experience can be
simulated (nothing the robot can move) compiles without one: its memory templates are
skipped, with the reason (`SceneCompiler.no_experience`).
The experience's manifest entry (`ExperienceRef`) is made here too, where it is known
whether the log was given or simulated.
See docs/architecture.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from fdc.core.errors import InputError
from fdc.core.hashing import scene_sha256, sha256_text
from fdc.core.inputs import InputFileError, InputKind, read_input_bytes, read_input_text
from fdc.core.jsonl import loads
from fdc.core.problems import render_text
from fdc.sim_bridge.scene.load import LoadResult, load_scene, parse_scene
from fdc.sim_bridge.world.experience import Experience

from .manifest import ExperienceRef
from .options import CompileOptions
from .scene_compiler import SceneCompiler
from .timings import Pass, Timings

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience


@dataclass(frozen=True)
class SceneJob:
    """One scene and one of its experiences (a day) to compile; picklable for worker
    processes. Day 1 compiles every template; a later day of the same scene only the
    memory templates (the others do not read the experience: their tasks would repeat
    day 1's)."""

    path: str
    history: str | None = None  # an experience log; None: simulate one (or none)
    simulate: bool = True
    interactions: int = 5
    #: Which of the scene's experiences (from 1); a simulated day d has the seed
    #: `seed + d - 1`, so day 1 is the experience a one-day compile simulates.
    day: int = 1
    #: A scene whose content an earlier job has too (`compiler.pipeline.twin_scopes`).
    id_scope: str | None = None


def prepare_scene(job: SceneJob, options: CompileOptions, timings: Timings | None = None,
                  needs_experience: bool = True) -> tuple[SceneCompiler, ExperienceRef | None]:
    """Load and build one scene and its experience (given, or simulated when
    `needs_experience`): its compiler."""
    from fdc.sim_bridge.world.simulate import SimulationError

    timings = Timings() if timings is None else timings
    graph, sha = timings.run(Pass.SCENE, load_graph, job.path)
    no_experience = None
    try:
        log, ref = timings.run(Pass.EXPERIENCE, experience, job, graph, sha,
                               day_seed(options.seed, job.day), needs_experience)
    except SimulationError as e:
        log, ref, no_experience = None, None, f"no experience could be simulated: {e}"
    compiler = timings.run(Pass.START_STATES, SceneCompiler, graph, job.path, sha, log,
                           ref.sha256 if ref else None, options, job.id_scope,
                           no_experience)
    return compiler, ref


def day_seed(seed: int, day: int) -> int:
    """The seed the experience of day `day` (from 1) is simulated with."""
    return seed + day - 1


#: The graph last built in this process, by (path, sha256 of the file's bytes).
_LAST_GRAPH: dict[tuple[str, str], tuple[SceneGraph, str]] = {}


def load_graph(path: str) -> tuple[SceneGraph, str]:
    """The scene's graph and its sha256 (of the canonical JSON). The graph last built is
    kept while its file's text stays the same, so the days of a scene that a process
    compiles one after another share it (a graph never changes once built: what it
    memoises, routes and distances, is derived from it alone). The file is read once,
    within the input limits, whether the graph is kept or built."""
    try:
        text = read_input_text(path, InputKind.SCENE)
    except InputFileError:  # the loader says what is wrong
        return _build_graph(path, load_scene(path))
    key = (path, sha256_text(text))
    found = _LAST_GRAPH.get(key)
    if found is None:
        _LAST_GRAPH.clear()
        loaded = parse_scene(text, base_dir=Path(path).parent)
        found = _LAST_GRAPH[key] = _build_graph(path, loaded)
    return found


def _build_graph(path: str, loaded: LoadResult) -> tuple[SceneGraph, str]:
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError, build_scene_graph

    errors = [f for f in loaded.findings if f.is_error]
    if loaded.scene is None or errors:
        detail = "; ".join(render_text(f) for f in errors) or "the scene does not load"
        raise InputError(f"{path}: {detail}")
    try:
        graph = build_scene_graph(loaded.scene, base_dir=Path(path).parent)
    except SceneLoadError as e:  # a limit, an unreadable mesh: now with the file's name
        raise SceneLoadError(path, e.findings) from None
    return graph, scene_sha256(graph.scene)


def experience(job: SceneJob, graph: SceneGraph, sha: str, seed: int, needed: bool = True
               ) -> tuple[Experience | None, ExperienceRef | None]:
    """The job's experience log (given, simulated when `needed`, or none) and its manifest
    entry. Raises `SimulationError` when one is needed and the scene cannot give it."""
    if job.history is not None:
        log, log_sha = load_experience(job.history)
        return log, ExperienceRef(sha256=log_sha, source=log.source, simulated=False,
                                  path=job.history, seed=log.seed, frames=len(log.frames),
                                  interactions=len(log.interactions))
    if not job.simulate or not needed:
        return None, None
    from fdc.sim_bridge.world.simulate import simulate_experience

    log = simulate_experience(graph, interactions=job.interactions, seed=seed,
                              scene=Path(job.path).name, scene_sha256=sha)
    return log, ExperienceRef(sha256=sha256_text(log.to_json()), source=log.source,
                              simulated=True, seed=log.seed, frames=len(log.frames),
                              interactions=len(log.interactions))


def load_experience(path: str) -> tuple[Experience, str]:
    """An experience log and the sha256 of its bytes."""
    try:
        data = read_input_bytes(path, InputKind.EXPERIENCE)
        log = Experience.model_validate(loads(data))
    except InputFileError as e:
        raise InputError(f"{path}: cannot read the experience log: {e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not an fdc experience log: not valid JSON: {e}") from None
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: not an fdc experience log: at {where}: {first['msg']}"
                         ) from None
    return log, sha256_text(data)
