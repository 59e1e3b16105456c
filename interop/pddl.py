"""`fdc export pddl`: a compiled suite as PDDL files, one problem per task, over the
planning abstraction `fdc validate --solve` certifies with."""

from __future__ import annotations

from pathlib import Path

from fdc.compiler.planning import PlanningError, PlanningWorld, pddl_name, write_pddl
from fdc.compiler.suite import read_suite
from fdc.compiler.validate import SceneView, Templates, read_manifest, scene_view
from fdc.core.errors import FdcError, InputError
from fdc.core.files import write_atomic
from fdc.core.problems import render_line


class ExportError(FdcError):
    """The suite or a scene cannot be read (the CLI's exit 2)."""


def export_suite(suite: str | Path, folder: str | Path, scene: str | None = None
                 ) -> tuple[int, int]:
    """Write `domain.pddl` and one `<task id>.pddl` per task (a sequence, multi-goal or
    split goal adds checkpoint actions: its domain is `<task id>.domain.pddl`). A task
    starts in its scene's initial state; a memory task where the experience it is about
    leaves the world, rebuilt from the manifest beside the suite (without one, it is
    skipped). Returns (problems written, memory tasks skipped)."""
    try:
        records, problems = read_suite(suite)
    except OSError as e:
        raise ExportError(f"{suite}: cannot read the suite: {e.strerror}") from None
    if problems:
        raise ExportError(f"{suite}: {render_line(problems[0])} (`fdc validate` lists every "
                          "problem)")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    templates = Templates()
    try:
        manifest = read_manifest(Path(suite))
    except InputError as e:
        raise ExportError(str(e)) from None
    memory_scenes = {scene or r.scene for r in records if r.experience is not None}
    views: dict[str, SceneView] = {}
    worlds: dict[tuple[str, str, str], PlanningWorld] = {}
    shared: str | None = None
    written = skipped = 0
    for r in records:
        path = scene or r.scene
        if path is None:
            raise ExportError(f"task `{r.id}` names no scene; give one with --scene")
        try:
            entry, why = templates.find(r)
            view = views.get(path)
            if view is None:
                view = views[path] = scene_view(path, r.scene, manifest,
                                                path in memory_scenes)
        except InputError as e:
            raise ExportError(str(e)) from None
        if entry is None:
            raise ExportError(f"task `{r.id}`: {why}")
        start = "initial" if r.experience is None else "after"
        if start not in view.compiler.states:
            skipped += 1
            continue
        if r.experience is not None and r.experience != view.compiler.experience_sha256:
            raise ExportError(f"task `{r.id}`: the experience rebuilt from the manifest is "
                              "not the one the task is about (sha256 differs)")
        key = (path, entry.domain.domain.name, start)
        world = worlds.get(key)
        if world is None:
            world = worlds[key] = PlanningWorld(view.compiler.facts(entry.domain),
                                                view.compiler.states[start], view.registry)
        try:
            pp = world.build(r.id, r.goal, reduce=False)
        except PlanningError as e:
            raise ExportError(f"task `{r.id}`: {e}") from None
        if pp.checkpoints:
            pp.problem.name = pddl_name(r.id)
            domain, problem = write_pddl(pp)
            write_atomic(out / f"{r.id}.domain.pddl", domain)
        else:
            pp.problem.name = entry.domain.domain.name
            domain, problem = write_pddl(pp)
            if shared is None:
                shared = domain
                write_atomic(out / "domain.pddl", domain)
            elif domain != shared:
                raise ExportError(f"task `{r.id}` needs a domain other than domain.pddl")
        write_atomic(out / f"{r.id}.pddl", problem)
        written += 1
    return written, skipped
