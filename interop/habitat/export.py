"""A compiled suite as habitat-lab files: process tasks as RearrangeDataset-v0 episodes,
every task's goal as multi-task PDDL (a YAML domain and one problem per task), for scenes
imported with `fdc import habitat`.

`export_suite` reads each scene of the reopened suite once, gives the writers
(`episodes`, `pddl_yaml`) fdc's domain as plain data, writes every file at the end or
none (`fdc.core.files.Outputs`; problem files named by `FileNames`), and names each task a
format cannot express.
See docs/formats/habitat-export.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fdc.compiler.reopen import imported
from fdc.compiler.scene_facts import SceneFacts
from fdc.core.errors import FdcError
from fdc.core.files import FileNames, Outputs
from fdc.core.problems import render_text
from fdc.interop.habitat.episodes import (
    EpisodeBuilder,
    EpisodeTask,
    dataset_document,
    find_dataset,
    gzip_json,
)
from fdc.interop.habitat.pddl_yaml import (
    NotExpressible,
    PddlDomainSpec,
    domain_document,
    dump_yaml,
    problem_document,
)
from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Kind
from fdc.sim_bridge.habitat.dataset import load_dataset

if TYPE_CHECKING:
    from fdc.compiler.check import DomainInfo
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord

DOMAIN = "fdc-home"


class HabitatExportError(FdcError):
    """A scene's dataset config that cannot be found or read (the CLI's exit 2)."""


@dataclass(frozen=True)
class Unwritten:
    """A task one format cannot express, and why."""

    task: str
    format: str  # "episode" or "pddl"
    reason: str


@dataclass(frozen=True)
class SceneUnwritten:
    """A scene whose tasks no episode can express (it is not a Habitat scene), said once:
    its reason and how many tasks it holds."""

    scene: str
    format: str  # "episode"
    reason: str
    tasks: int


@dataclass(frozen=True)
class HabitatExport:
    """What `export_suite` wrote."""

    tasks: int
    episodes: int
    problems: int
    unwritten: list[Unwritten]
    scenes_unwritten: list[SceneUnwritten] = field(default_factory=list)


@dataclass
class _Scene:
    """One scene's writers (None, with the reason, when it is not a Habitat scene)."""

    builder: EpisodeBuilder | None
    types: dict[str, str] = field(default_factory=dict)
    reason: str = ""


def export_suite(suite: ReopenedSuite, output: Path, dataset: Path | None, data_root: Path,
                 on_task: Callable[[], None] | None = None) -> HabitatExport:
    """Write `episodes.json.gz` and `pddl/` (domain and problems) under `output`.
    `dataset`: the scene dataset config the scenes were imported from (default: found
    beside the scenes' assets); `data_root`: the folder habitat-lab runs in. A scene that
    does not load raises `SceneLoadError`, a dataset that cannot be read
    `HabitatExportError`, and so does a suite none of whose scenes is a Habitat scene
    (nothing is written: the reason is said once). The tasks of a scene that is not a
    Habitat scene, in a suite with one that is, are named once for the scene
    (`SceneUnwritten`): no episode, their PDDL still written."""
    info = fdc_domain()
    spec = domain_spec(info)
    scenes: dict[str, _Scene] = {}
    for r in suite.records:
        key = r.scene or ""
        if key not in scenes:
            scenes[key] = _scene(suite, r, dataset, data_root, info)
    if scenes and all(sc.builder is None for sc in scenes.values()):
        reasons = list(dict.fromkeys(sc.reason for sc in scenes.values()))
        raise HabitatExportError(
            f"{suite.path}: error: no episode can be written, nothing was: "
            f"{'; '.join(reasons)}; hint: `fdc export habitat` writes the tasks of scenes "
            "imported with `fdc import habitat` (`fdc export pddl` writes any suite)")
    episodes: list[dict[str, Any]] = []
    files: dict[Path, str] = {}
    names = FileNames(output / "pddl" / "problems")
    unwritten: list[Unwritten] = []
    counts = {key: 0 for key, sc in scenes.items() if sc.builder is None}
    for r in suite.records:
        key = r.scene or ""
        sc = scenes[key]
        if sc.builder is None:
            counts[key] += 1
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
            files[names.path(r.id, ".yaml")] = dump_yaml(doc, header)
        except NotExpressible as e:
            unwritten.append(Unwritten(r.id, "pddl", str(e)))
        if on_task is not None:
            on_task()
    with Outputs() as out:
        out.write(output / "pddl" / "domain.yaml", dump_yaml(
            domain_document(spec), f"fdc's `{DOMAIN}` domain for habitat-lab"))
        for path, text in files.items():
            out.write(path, text)
        out.write(output / "episodes.json.gz", gzip_json(dataset_document(episodes)))
    return HabitatExport(len(suite.records), len(episodes), len(files), unwritten, [
        SceneUnwritten(key, "episode", scenes[key].reason, n) for key, n in counts.items()])


def fdc_domain() -> DomainInfo:
    """fdc's built-in domain, checked."""
    from fdc.compiler.check import check_paths

    return check_paths([], builtin=True).domains[DOMAIN]


def domain_spec(info: DomainInfo) -> PddlDomainSpec:
    """fdc's domain as the YAML domain declares it: types with one parent, constants,
    and the fluent predicates (an `either` argument takes the types' closest common
    ancestor, habitat-lab having no union types)."""
    registry = default_registry()
    parents = {t: ps[0] for t, ps in sorted(info.parents.items()) if ps}

    def common(types: tuple[str, ...]) -> str:
        if not types:
            return "object"
        chains = [info.hierarchy.lineage(t) for t in types]
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


def _scene(suite: ReopenedSuite, record: TaskRecord, dataset: Path | None, data_root: Path,
           info: DomainInfo) -> _Scene:
    """The writers of the record's scene."""
    if not record.scene:
        return _Scene(None, reason="the task names no scene")
    path = suite.scene_path(record)
    source = imported(record)
    if source is not None and not path.is_file():
        return _Scene(None, reason=f"imported from {source}: its scene `{record.scene}` is a "
                      "Habitat scene id, not an fdc scene file")
    graph = suite.graph(record)
    scene = graph.scene
    types = {e: ts[0] for e, ts in SceneFacts(graph, info).types.items()}
    if scene.source.get("importer") != "habitat":
        return _Scene(None, types, f"scene `{path}` was not imported from Habitat "
                      "(`fdc import habitat`)")
    config = dataset or find_dataset(scene, path.parent)
    if config is None:
        raise HabitatExportError(
            f"{path}: error: cannot find the dataset config "
            f"`{scene.source.get('dataset', '?')}` the scene was imported from; "
            "hint: pass --dataset")
    ds, findings = load_dataset(config)
    if ds is None:
        raise HabitatExportError("\n".join(f"{config}: {render_text(f)}" for f in findings))
    handle = scene.source.get("scene_instance", "")
    instance = ds.lookup("scene_instances", handle)
    if instance is None or instance.source is None:
        raise HabitatExportError(f"{config}: error: no scene instance `{handle}` (the one "
                                 f"{path} was imported from); hint: pass the --dataset it "
                                 "came from")
    return _Scene(EpisodeBuilder(graph, ds, instance.source, data_root), types)
