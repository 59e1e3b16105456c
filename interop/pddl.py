"""`fdc export pddl`: a compiled suite as PDDL files, one problem per task, over the
planning abstraction `fdc validate --solve` certifies with."""

from __future__ import annotations

from pathlib import Path

from fdc.compiler.compile import SceneCompiler, TemplateEntry
from fdc.compiler.planning import PlanningError, PlanningWorld, pddl_name, write_pddl
from fdc.compiler.reopen import ReopenedSuite, ReopenError, imported, reopen_suite
from fdc.compiler.suite import TaskRecord
from fdc.core.errors import FdcError
from fdc.core.files import FileNames, Outputs
from fdc.core.problems import render_line
from fdc.sim_bridge.graph.scene_graph import SceneLoadError


class ExportError(FdcError):
    """The suite or a scene cannot be read (the CLI's exit 2)."""


def export_suite(suite: str | Path, folder: str | Path, scene: str | None = None
                 ) -> tuple[int, int, list[tuple[str, str]]]:
    """Write `domain.pddl` and one `<task id>.pddl` per task (a sequence, multi-goal or
    split goal adds checkpoint actions: its domain is `<task id>.domain.pddl`). A task
    starts in its scene's initial state; a memory task where the experience it is about
    leaves the world, rebuilt from the manifest beside the suite (without one, it is
    skipped). A task imported from another format (`fdc import partnr`) has no template
    domain to plan in: it is not written, and named with why. Returns (problems written,
    memory tasks skipped, (task id, why) of the tasks not written). Every file is written at the
    end, or none (`OutputError`: the folder cannot be written, or two ids name the same file)."""
    try:
        opened = reopen_suite(suite, scenes=[scene] if scene else [])
    except ReopenError as e:
        raise ExportError(str(e)) from None
    if opened.problems:
        raise ExportError(f"{suite}: {render_line(opened.problems[0])} (`fdc validate` lists "
                          "every problem)")
    try:
        opened.read_manifest()
    except ReopenError as e:
        raise ExportError(str(e)) from None
    with Outputs() as out:
        out.folder(Path(folder))
        return _write_problems(opened, out, FileNames(Path(folder), "domain.pddl"))


def _write_problems(opened: ReopenedSuite, out: Outputs, names: FileNames
                    ) -> tuple[int, int]:
    worlds: dict[tuple[str, str, str], PlanningWorld] = {}
    shared: str | None = None
    written = skipped = 0
    refused: list[tuple[str, str]] = []
    for r in opened.records:
        source = imported(r)
        if source is not None:
            refused.append((r.id, f"imported from {source}: no template domain to plan in "
                            f"(`fdc export {source.lower()}` writes it back)"))
            continue
        entry, compiler = _inputs(opened, r)
        start = "initial" if r.experience is None else "after"
        if start not in compiler.states:
            skipped += 1
            continue
        if r.experience is not None and r.experience != compiler.experience_sha256:
            raise ExportError(f"task `{r.id}`: the experience rebuilt from the manifest is "
                              "not the one the task is about (sha256 differs)")
        key = (compiler.scene, entry.domain.domain.name, start)
        world = worlds.get(key)
        if world is None:
            world = worlds[key] = PlanningWorld(compiler.facts(entry.domain),
                                                compiler.states[start], compiler.registry)
        try:
            pp = world.build(r.id, r.goal, reduce=False)
        except PlanningError as e:
            raise ExportError(f"task `{r.id}`: {e}") from None
        if pp.checkpoints:
            pp.problem.name = pddl_name(r.id)
            domain, problem = write_pddl(pp)
            out.write(names.path(r.id, ".domain.pddl"), domain)
        else:
            pp.problem.name = entry.domain.domain.name
            domain, problem = write_pddl(pp)
            if shared is None:
                shared = domain
                out.write(names.folder / "domain.pddl", domain)
            elif domain != shared:
                raise ExportError(f"task `{r.id}` needs a domain other than domain.pddl")
        out.write(names.path(r.id, ".pddl"), problem)
        written += 1
    return written, skipped, refused


def _inputs(opened: ReopenedSuite, record: TaskRecord) -> tuple[TemplateEntry, SceneCompiler]:
    """The record's template and a compiler on its scene (`ExportError`: what is missing)."""
    try:
        opened.scene_path(record)
        entry, why = opened.template(record)
        compiler = opened.compiler(record)
    except ReopenError as e:
        hint = "; give one with --scene" if e.code == "no-scene" else ""
        raise ExportError(f"{e}{hint}") from None
    except SceneLoadError as e:
        raise ExportError(str(e)) from None
    if entry is None:
        raise ExportError(f"task `{record.id}`: {why}")
    return entry, compiler
