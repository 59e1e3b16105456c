"""`fdc export pddl`: a compiled suite as PDDL files, one problem per task, over the
planning abstraction `fdc validate --solve` certifies with. See docs/formats/pddl-export.md."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from fdc.compiler.planning import PlanningError, PlanningWorld, pddl_name, write_pddl
from fdc.compiler.reopen import ReopenedSuite, ReopenError, imported, reopen_suite
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.suite import TaskRecord
from fdc.compiler.templates import TemplateEntry
from fdc.core.errors import FdcError
from fdc.core.files import FileNames, Outputs
from fdc.core.problems import render_line
from fdc.predicates.goal import GAnd
from fdc.sim_bridge.graph.scene_graph import SceneLoadError


class ExportError(FdcError):
    """The suite or a scene cannot be read, or no task of it can be written (the CLI's
    exit 2)."""


@dataclass(frozen=True)
class PddlExport:
    """What `export_suite` wrote."""

    written: int
    skipped: int  # memory tasks: no manifest names the experience they start after
    own_domains: int  # problems whose domain is their own (`TASK_ID.domain.pddl`)
    refused: list[tuple[str, str]]  # (task id, why) of the tasks not written


def export_suite(suite: str | Path, folder: str | Path, scene: str | None = None
                 ) -> PddlExport:
    """Write `domain.pddl`, one `<task id>.pddl` per task, and `index.json` (each
    problem's files and PDDL names). A task whose problem needs more than `domain.pddl`
    declares (a sequence, multi-goal or split goal adds checkpoint actions; a negative
    `in-cell` a fluent; another scene's or template domain's actions) gets its own
    domain, `<task id>.domain.pddl`. A task starts in its scene's initial state; a memory
    task where the experience it is about leaves the world, rebuilt from the manifest
    beside the suite (without one, it is skipped). A task imported from another format
    (`fdc import partnr`) has no template domain to plan in: it is not written, and named
    with why; when no task of the suite can be written, that is an `ExportError` (said
    once) and nothing is written. Every file is written at the end, or none (`OutputError`:
    the folder cannot be written, or two ids name the same file)."""
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
        return _write_problems(opened, out, FileNames(Path(folder), DOMAIN_FILE, INDEX_FILE))


DOMAIN_FILE = "domain.pddl"
INDEX_FILE = "index.json"


def _write_problems(opened: ReopenedSuite, out: Outputs, names: FileNames) -> PddlExport:
    worlds: dict[tuple[str, str, str], PlanningWorld] = {}
    shared: str | None = None  # domain.pddl: the first world's domain for a plain goal
    skipped: list[str] = []
    refused: list[tuple[str, str]] = []
    problems: list[dict[str, str]] = []
    for r in opened.records:
        source = imported(r)
        if source is not None:
            refused.append((r.id, f"imported from {source}: no template domain to plan in "
                            f"(`fdc export {source.lower()}` writes it back)"))
            continue
        entry, compiler = _inputs(opened, r)
        start = "initial" if r.experience is None else "after"
        if start not in compiler.states:
            skipped.append(r.id)
            continue
        if r.experience is not None and r.experience != compiler.experience_sha256:
            raise ExportError(f"task `{r.id}`: the experience rebuilt from the manifest is "
                              "not the one the task is about (sha256 differs)")
        domain_name = entry.domain.domain.name
        key = (compiler.scene, domain_name, start)
        world = worlds.get(key)
        if world is None:
            world = worlds[key] = PlanningWorld(compiler.facts(entry.domain),
                                                compiler.states[start], compiler.registry)
        if shared is None:
            shared = _plain_domain(world, domain_name)
            out.write(names.folder / DOMAIN_FILE, shared)
        try:
            pp = world.build(r.id, r.goal, reduce=False)
        except PlanningError as e:
            raise ExportError(f"task `{r.id}`: {e}") from None
        problem_name = pddl_name(r.id)
        domain, problem = write_pddl(pp, domain_name, problem_name)
        domain_file = DOMAIN_FILE
        if domain != shared:  # its own, under its own name
            own = f"{domain_name}-{problem_name}"
            domain, problem = _renamed(domain, problem, domain_name, own)
            domain_file = names.path(r.id, ".domain.pddl").name
            out.write(names.folder / domain_file, domain)
        problem_file = names.path(r.id, ".pddl")
        out.write(problem_file, problem)
        problems.append({"task": r.id, "problem": problem_file.name, "domain": domain_file,
                         "name": problem_name})
    if refused and not problems and not skipped:  # said once, nothing written
        reasons = "; ".join(dict.fromkeys(why for _, why in refused))
        raise ExportError(f"no task of the suite can be written as PDDL, nothing was: "
                          f"{reasons}")
    index = {
        "format": "fdc-pddl-export", "version": 1,
        "domain": DOMAIN_FILE if shared is not None else None,
        "problems": problems,
        "skipped": [{"task": t, "reason": SKIPPED} for t in skipped],
        "not_expressible": [{"task": t, "reason": why} for t, why in refused],
    }
    out.write(names.folder / INDEX_FILE,
              json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    own_domains = sum(p["domain"] != DOMAIN_FILE for p in problems)
    return PddlExport(len(problems), len(skipped), own_domains, refused)


SKIPPED = "a memory task, and no manifest beside the suite names the experience it starts after"


def _plain_domain(world: PlanningWorld, name: str) -> str:
    """The domain of a task with a plain goal (no checkpoints, no fluent of its own):
    the one `domain.pddl` holds."""
    return write_pddl(world.build("domain", GAnd(parts=()), reduce=False), name)[0]


def _renamed(domain: str, problem: str, old: str, new: str) -> tuple[str, str]:
    """The texts `write_pddl` wrote for domain name `old`, the domain named `new`."""
    head_d, head_p = f"(define (domain {old})\n", f" (:domain {old})\n"
    first, _, rest = problem.partition("\n")
    assert domain.startswith(head_d) and rest.startswith(head_p), "write_pddl's heads"
    return (f"(define (domain {new})\n{domain[len(head_d):]}",
            f"{first}\n (:domain {new})\n{rest[len(head_p):]}")


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
