"""`fdc export habitat`: a suite's tasks as habitat-lab RearrangeDataset-v0 episodes and
multi-task PDDL (YAML), for scenes imported with `fdc import habitat`.

A thin layer over `fdc.interop.habitat.episodes` and `.pddl_yaml`: it reads the
suite, loads each scene once, gives the writers fdc's domain as plain data, and names
every task a format cannot express. Exit codes: 0 every task written in both formats,
1 some task named (the rest still written), 2 usage or input error.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, read_suite_or_exit, stderr

if TYPE_CHECKING:
    from fdc.compiler.check import DomainInfo
    from fdc.compiler.suite import TaskRecord
    from fdc.interop.habitat.episodes import EpisodeBuilder
    from fdc.interop.habitat.pddl_yaml import PddlDomainSpec

DOMAIN = "fdc-home"


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


@dataclass(frozen=True)
class Unwritten:
    """A task one format cannot express, and why."""

    task: str
    format: str  # "episode" or "pddl"
    reason: str


@dataclass
class _Scene:
    """One scene's writers (None, with the reason, when it is not a Habitat scene)."""

    builder: EpisodeBuilder | None
    types: dict[str, str] = field(default_factory=dict)
    reason: str = ""


def export_habitat_command(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The folder to write to.")],
    dataset: Annotated[
        Path | None,
        typer.Option(help="The scene dataset config the scenes were imported from "
                     "(default: found beside the scenes' assets)."),
    ] = None,
    data_root: Annotated[
        Path,
        typer.Option(help="The folder habitat-lab runs in: episodes name the dataset "
                     "config and scene instance relative to it."),
    ] = Path("."),
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
) -> None:
    """Write process tasks as RearrangeDataset-v0 episodes and every task's goal as
    habitat-lab's PDDL (YAML domain and problems); name each task a format cannot express."""
    from rich.progress import Progress

    from fdc.core.files import write_atomic
    from fdc.interop.habitat.episodes import (
        EpisodeTask,
        dataset_document,
        gzip_json,
    )
    from fdc.interop.habitat.pddl_yaml import (
        NotExpressible,
        domain_document,
        dump_yaml,
        problem_document,
    )

    err = stderr()
    records = read_suite_or_exit(suite, err)
    info = _domain()
    spec = domain_spec(info)
    scenes: dict[str, _Scene] = {}
    episodes: list[dict[str, Any]] = []
    files: dict[Path, str] = {}
    unwritten: list[Unwritten] = []
    with Progress(console=err, transient=True) as progress:
        bar = progress.add_task("exporting", total=len(records))
        for r in records:
            key = r.scene or ""
            if key not in scenes:
                scenes[key] = _load(suite, r, dataset, data_root, info)
            sc = scenes[key]
            if sc.builder is None:
                unwritten.append(Unwritten(r.id, "episode", sc.reason))
            else:
                try:
                    episodes.append(sc.builder.episode(EpisodeTask(
                        id=r.id, goal=r.goal, tags=r.tags, start=r.start,
                        instruction=r.instructions[0] if r.instructions else "",
                        thresholds=r.thresholds)))
                except NotExpressible as e:
                    unwritten.append(Unwritten(r.id, "episode", str(e)))
            try:
                doc = problem_document(r.goal, sc.types, spec)
                header = f"fdc task {r.id} ({r.template})"
                if r.instructions:
                    header += f": {r.instructions[0]}"
                files[output / "pddl" / "problems" / f"{r.id}.yaml"] = dump_yaml(doc, header)
            except NotExpressible as e:
                unwritten.append(Unwritten(r.id, "pddl", str(e)))
            progress.advance(bar)
    write_atomic(output / "pddl" / "domain.yaml",
                 dump_yaml(domain_document(spec), f"fdc's `{DOMAIN}` domain for habitat-lab"))
    for path, text in files.items():
        write_atomic(path, text)
    write_atomic(output / "episodes.json.gz", gzip_json(dataset_document(episodes)))
    _report(output, len(records), len(episodes), len(files), unwritten, output_format)
    raise typer.Exit(EXIT_FINDINGS if unwritten else EXIT_OK)


def _report(output: Path, tasks: int, episodes: int, problems: int,
            unwritten: list[Unwritten], output_format: OutputFormat) -> None:
    if output_format is OutputFormat.json:
        sys.stdout.write(json.dumps({
            "output": str(output), "tasks": tasks, "episodes": episodes, "problems": problems,
            "not_expressible": [u.__dict__ for u in unwritten]}, indent=2) + "\n")
        return
    for u in unwritten:
        sys.stdout.write(f"{u.task}: {u.format}: not expressible: {u.reason}\n")
    stderr().print(f"wrote {episodes} episode(s) to {output / 'episodes.json.gz'} and "
                 f"{problems} PDDL problem(s) to {output / 'pddl'} for {tasks} task(s); "
                 f"{len(unwritten)} not expressible")


def _domain() -> DomainInfo:
    from fdc.compiler.check import check_paths

    return check_paths([], builtin=True).domains[DOMAIN]


def domain_spec(info: DomainInfo) -> PddlDomainSpec:
    """fdc's domain as the YAML domain declares it: types with one parent, constants,
    and the fluent predicates (an `either` argument takes the types' closest common
    ancestor, habitat-lab having no union types)."""
    from fdc.interop.habitat.pddl_yaml import PddlDomainSpec
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.registry import Kind

    registry = default_registry()
    parents = {t: ps[0] for t, ps in sorted(info.parents.items()) if ps}

    def common(types: tuple[str, ...]) -> str:
        if not types:
            return "object"
        chains = [PddlDomainSpec("", parents, {}, {}).ancestors(t) for t in types]
        found: str = next(t for t in chains[0] if all(t in c for c in chains[1:]))
        return found

    predicates = {
        name: tuple((p.name.lstrip("?"), common(p.types)) for p in d.parameters)
        for name, d in sorted(info.predicates.items())
        if name in registry and registry.checker(name).kind is Kind.FLUENT
    }
    constants = {c.name: (c.types[0] if c.types else "object")
                 for c in info.constants.values()}
    return PddlDomainSpec(DOMAIN, parents, constants, predicates)


def _scene_path(suite: Path, named: str) -> Path:
    """A record names its scene as given to `fdc compile`: beside the suite, or from here."""
    beside = suite.parent / named
    return beside if beside.exists() else Path(named)


def _load(suite: Path, record: TaskRecord, dataset: Path | None, data_root: Path,
          info: DomainInfo) -> _Scene:
    """The scene's writers, or exit 2 when the scene or its dataset cannot be read."""
    from fdc.compiler.scene_facts import SceneFacts
    from fdc.core.problems import render_text
    from fdc.interop.habitat.episodes import EpisodeBuilder, find_dataset
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.habitat.dataset import load_dataset
    from fdc.sim_bridge.scene.load import load_scene

    err = stderr()
    if not record.scene:
        return _Scene(None, reason="the task names no scene")
    path = _scene_path(suite, record.scene)
    loaded = load_scene(path)
    errors = [f for f in loaded.findings if f.is_error]
    if loaded.scene is None or errors:
        for f in errors:
            err.print(f"{path}: {render_text(f)}")
        if not errors:
            err.print(f"{path}: error: the scene does not load")
        raise typer.Exit(EXIT_USAGE)
    scene = loaded.scene
    graph = build_scene_graph(scene, base_dir=path.parent)
    types = {e: ts[0] for e, ts in SceneFacts(graph, info).types.items()}
    if scene.source.get("importer") != "habitat":
        return _Scene(None, types, f"scene `{path}` was not imported from Habitat "
                      "(`fdc import habitat`)")
    config = dataset or find_dataset(scene, path.parent)
    if config is None:
        err.print(f"{path}: error: cannot find the dataset config "
                  f"`{scene.source.get('dataset', '?')}` the scene was imported from; "
                  "hint: pass --dataset")
        raise typer.Exit(EXIT_USAGE)
    ds, findings = load_dataset(config)
    if ds is None:
        for f in findings:
            err.print(f"{config}: {render_text(f)}")
        raise typer.Exit(EXIT_USAGE)
    handle = scene.source.get("scene_instance", "")
    instance = ds.lookup("scene_instances", handle)
    if instance is None or instance.source is None:
        err.print(f"{config}: error: no scene instance `{handle}` (the one {path} was "
                  "imported from); hint: pass the --dataset it came from")
        raise typer.Exit(EXIT_USAGE)
    return _Scene(EpisodeBuilder(graph, ds, instance.source, data_root), types)
