"""RearrangeDataset-v0 episodes from fdc's process tasks on scenes imported from Habitat.

An episode names the scene (`scene_id`, `scene_dataset_config`), the rigid objects it
adds (`rigid_objs`: object config and 4x4 row-major transformation, Habitat's Y-up
frame), the pose each target object must reach (`targets`, labelled `any_targets|i` in
`info.object_labels`), the receptacles the targets start on and go to
(`target_receptacles`, `goal_receptacles`: `[parent object handle, link index]`, as
habitat-lab's generator records a receptacle: None for the stage, the link of an
articulated object's receptacle by its ao_config's `parent_link`), every rigid
object's starting receptacle (`name_to_receptacle`) and the robot's start pose.

Frames. The importer turned Habitat's Y-up poses into fdc's Z-up ones (`importer.C`);
this module inverts it. A Habitat rigid object's transformation places its centre of
mass (the config's `COM`, else the centre of its mesh box) and turns it by R; fdc's pose
places the mesh box centre and turns it by C R C^T. The mesh reference's `offset` is
minus the box centre in fdc's local axes, so the centre of mass sits at
`d = offset + C (align (COM * scale))` from the box centre (0 without a `COM`), and the
transformation's translation is `C^T (position + R_fdc d)`.

A target pose is found by fdc's placement queries (one per moved item, anchors first,
on the world as the earlier placements left it) and kept only when the whole goal then
holds by fdc's own checkers. Goals an episode cannot state (a disjunction, a negation,
the robot's state, an order of steps) raise `NotExpressible` with the reason.
See docs/habitat.md.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, assert_never

import numpy as np

from fdc.predicates.algebra import NotExpressible
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    GOr,
    GTargets,
    GThen,
    to_pddl,
)
from fdc.predicates.registry import Context
from fdc.sim_bridge.geometry import Array, quaternion_to_matrix
from fdc.sim_bridge.graph.placement import Placement, place
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.habitat.dataset import Dataset, short_name
from fdc.sim_bridge.habitat.importer import (
    C,
    asset_alignment,
    zup_to_yup_point,
    zup_to_yup_quaternion,
)
from fdc.sim_bridge.scene.schema import Kind, ObjectSpec, Scene
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import ObjectPose

if TYPE_CHECKING:
    from fdc.predicates.goal import GAtom, Goal
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.posed import PosedGraph
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import AgentPose, Snapshot



def start_rotation(yaw_rad: float) -> list[float]:
    """The episode's `start_rotation` ([x, y, z, w]) for an fdc heading: a Habitat agent
    looks along -Z, which is fdc's +y (heading pi/2), so it turns by `yaw - pi/2` about Y."""
    half = (yaw_rad - math.pi / 2) / 2
    w, x, y, z = zup_to_yup_quaternion((math.cos(half), 0.0, 0.0, math.sin(half)))
    return [_clean(x), _clean(y), _clean(z), _clean(w)]


def _clean(v: float) -> float:
    return round(float(v), 9) + 0.0  # no -0.0, no 1e-17 noise


@dataclass(frozen=True)
class RigidObject:
    """A movable object of the scene as an episode's rigid object."""

    fdc_id: str
    handle: str  # `<template short name>_:NNNN`, as habitat-lab names added objects
    config: str  # the object config's file name (or the template handle of an inline one)
    com_offset: tuple[float, float, float]  # box centre -> centre of mass, fdc local axes

    def matrix(self, position: Sequence[float], orientation: Sequence[float]
               ) -> list[list[float]]:
        """The Habitat transformation (4x4, row-major) of an fdc pose."""
        rz = quaternion_to_matrix(orientation)
        t = zup_to_yup_point(np.asarray(position, dtype=np.float64)
                             + rz @ np.asarray(self.com_offset))
        m = np.eye(4)
        m[:3, :3] = C.T @ rz @ C
        m[:3, 3] = t
        return [[_clean(v) for v in row] for row in m]

    def pose(self, matrix: Sequence[Sequence[float]]) -> tuple[Array, Array]:
        """The fdc pose (box centre, rotation matrix) of a Habitat transformation."""
        m = np.asarray(matrix, dtype=np.float64)
        rz = C @ m[:3, :3] @ C.T
        return C @ m[:3, 3] - rz @ np.asarray(self.com_offset), rz


def rigid_objects(graph: SceneGraph, dataset: Dataset) -> list[RigidObject]:
    """The scene's movable objects that came from Habitat object instances, in order."""
    out: list[RigidObject] = []
    counts: dict[str, int] = {}
    for o in graph.scene.objects:
        template = o.source.get("template")
        if (graph.object(o.id).kind is not Kind.MOVABLE or not o.source.get("handle")
                or template is None):
            continue
        t = dataset.lookup("objects", template)
        if t is None or o.mesh is None:
            continue
        base = short_name(template)
        n = counts.get(base, 0)
        counts[base] = n + 1
        config = t.source.name if t.source is not None and t.source.suffix == ".json" \
            else template
        out.append(RigidObject(o.id, f"{base}_:{n:04d}", config, _com_offset(o, t.attributes)))
    return out


def _com_offset(o: ObjectSpec, attributes: Mapping[str, Any]) -> tuple[float, float, float]:
    assert o.mesh is not None
    offset = np.asarray(o.mesh.offset, dtype=np.float64)
    if "COM" not in attributes:
        return (0.0, 0.0, 0.0)  # the centre of mass is the box centre
    align = asset_alignment(attributes.get("up", [0, 1, 0]), attributes.get("front", [0, 0, -1]))
    com = align @ (np.asarray(attributes["COM"], dtype=np.float64)
                   * np.asarray(o.mesh.scale, dtype=np.float64))
    d = offset + C @ com
    return (float(d[0]), float(d[1]), float(d[2]))


@dataclass(frozen=True)
class EpisodeTask:
    """What an episode needs of a task record."""

    id: str
    goal: Goal
    tags: Sequence[str]
    start: AgentPose | None
    instruction: str
    thresholds: Mapping[str, float]


class EpisodeBuilder:
    """Builds the episodes of one scene imported from Habitat."""

    def __init__(self, graph: SceneGraph, dataset: Dataset, scene_instance: Path,
                 data_root: Path) -> None:
        from fdc.sim_bridge.world.embedded import EmbeddedWorld

        self.graph = graph
        self.dataset = dataset
        self.objects = rigid_objects(graph, dataset)
        self.by_id = {r.fdc_id: r for r in self.objects}
        self.initial = EmbeddedWorld(graph).snapshot()
        self.scene_id = _relative(scene_instance, data_root)
        self.dataset_config = _relative(dataset.path, data_root)

    def episode(self, task: EpisodeTask) -> dict[str, Any]:
        """The task as a RearrangeDataset-v0 episode; raises `NotExpressible`."""
        if "process" not in task.tags:
            raise NotExpressible("not a process task: an episode states where objects "
                                 "go, not what the robot remembers or does")
        atoms = _placement_atoms(task.goal)
        final = self._solve(atoms, task.thresholds)
        moved = [r for r in self.objects if _moved(self.initial, final, r.fdc_id)]
        posed_before = self._posed(self.initial)
        posed_after = self._posed(final)
        targets: dict[str, list[list[float]]] = {}
        labels: dict[str, str] = {}
        start_receptacles: list[list[str | int | None]] = []
        goal_receptacles: list[list[str | int | None]] = []
        for i, r in enumerate(moved):
            p = final.objects[r.fdc_id]
            targets[r.handle] = r.matrix(p.position, p.orientation)
            labels[r.handle] = f"any_targets|{i}"
            start_receptacles.append(self._receptacle(posed_before, r.fdc_id))
            goal_receptacles.append(self._receptacle(posed_after, r.fdc_id))
        rigid = []
        name_to_receptacle: dict[str, str] = {}
        for r in self.objects:
            p = self.initial.objects[r.fdc_id]
            rigid.append([r.config, r.matrix(p.position, p.orientation)])
            support = posed_before.support_of(r.fdc_id)
            if support is not None:
                name_to_receptacle[r.handle] = self._handle_of_surface(support)
        agent = task.start or self.initial.agent
        return {
            "episode_id": task.id,
            "scene_id": self.scene_id,
            "scene_dataset_config": self.dataset_config,
            "additional_obj_config_paths": [],
            "start_position": [_clean(v) for v in zup_to_yup_point((agent.x, agent.y, agent.z))],
            "start_rotation": start_rotation(agent.yaw_rad),
            "info": {"object_labels": labels, "fdc_task": task.id,
                     "instruction": task.instruction},
            "ao_states": {},
            "rigid_objs": rigid,
            "targets": targets,
            "markers": [],
            "target_receptacles": start_receptacles,
            "goal_receptacles": goal_receptacles,
            "name_to_receptacle": name_to_receptacle,
        }

    # ----- the goal state --------------------------------------------------------------
    def _solve(self, atoms: list[GAtom], thresholds: Mapping[str, float]) -> Snapshot:
        """A state where every atom holds: each item that must move placed once, by the
        query of its most specific relation (`Registry.placement_order`: an item with
        several atoms is placed by the first, the others checked on the result), the
        items it is placed against first."""
        registry = default_registry()

        def holds(snap: Snapshot, a: GAtom) -> bool:
            ctx = Context(graph=self.graph, state=self._state(snap))
            if thresholds:
                ctx = ctx.with_thresholds(thresholds, registry)
            return bool(registry.evaluate(a.predicate, a.args, ctx))

        wanted: dict[str, list[GAtom]] = {}
        for a in atoms:
            if not holds(self.initial, a):
                wanted.setdefault(a.args[0], []).append(a)
        for item in wanted:
            if item not in self.by_id:
                raise NotExpressible(f"`{item}` must move but is not one of the episode's "
                                     "rigid objects (a movable Habitat object instance)")
        snap = self.initial
        order = registry.placement_order()
        for item in self._order(wanted):
            a = min(wanted[item], key=lambda x: order.index(x.predicate))
            placed = self._place(snap, a)
            if not placed.ok or placed.pose is None:
                raise NotExpressible(f"no pose for `{item}` where {_text(a)} holds: "
                                     f"{placed.reason}")
            old = snap.objects[item]
            objects = {**snap.objects, item: ObjectPose(
                position=placed.pose.position, orientation=placed.pose.orientation,
                size=old.size)}
            snap = snap.model_copy(update={"objects": objects})
        failing = [_text(a) for a in atoms if not holds(snap, a)]
        if failing:
            raise NotExpressible("the placements found leave " + ", ".join(failing)
                                 + " false: no target poses that make the whole goal true")
        return snap

    def _order(self, wanted: Mapping[str, list[GAtom]]) -> list[str]:
        """Items to place, each after the items its relations are anchored to."""
        def anchors(item: str) -> set[str]:
            out: set[str] = set()
            for a in wanted[item]:
                for x in a.args[1:]:
                    owner = self.graph.surface(x).object_id if self._is_surface(x) else x
                    if owner in wanted and owner != item:
                        out.add(owner)
            return out

        order: list[str] = []
        pending = sorted(wanted)
        while pending:
            ready = [x for x in pending if anchors(x) <= set(order)]
            if not ready:
                raise NotExpressible("items are to be placed against each other in a "
                                     f"cycle: {', '.join(pending)}")
            order.extend(ready)
            pending = [x for x in pending if x not in ready]
        return order

    def _place(self, snap: Snapshot, a: GAtom) -> Placement:
        relation = default_registry().placement_relations()[a.predicate]
        return place(self._posed(snap), relation, a.args,
                     self.graph.config.placement)

    # ----- helpers ---------------------------------------------------------------------
    def _state(self, snap: Snapshot) -> SnapshotState:
        return SnapshotState(self.graph, snap)

    def _posed(self, snap: Snapshot) -> PosedGraph:
        return self._state(snap).posed

    def _is_surface(self, ident: str) -> bool:
        return self.graph.has(ident) and isinstance(self.graph.entity(ident), Surface)

    def _handle_of_surface(self, surface_id: str) -> str:
        """Habitat's unique receptacle name `<parent handle>|<name>` of an fdc surface."""
        owner = self.graph.surface(surface_id).object_id
        r = self.by_id.get(owner)
        if r is None or r.handle == owner:
            return surface_id
        return r.handle + surface_id[len(owner):]

    def _receptacle(self, posed: PosedGraph, item: str) -> list[str | int | None]:
        """What the item rests on as habitat-lab records a receptacle: its parent object's
        handle (None: the stage, or nothing) and link (an articulated object's link
        index, None otherwise)."""
        support = posed.support_of(item)
        if support is None:
            return [None, None]
        owner: str = self.graph.surface(support).object_id
        info = self.graph.object(owner)
        spec = info.spec
        if info.kind is Kind.STAGE:
            return [None, None]
        r = self.by_id.get(owner)
        handle = r.handle if r is not None else spec.source.get("handle", owner)
        link = None
        if info.kind is Kind.ARTICULATED:
            link = self._link_index(spec, support[len(owner) + 1:])
        return [handle, link]

    def _link_index(self, spec: ObjectSpec, receptacle: str) -> int | None:
        """habitat-sim's index of the link an articulated object's receptacle is on (its
        ao_config's `parent_link`; links numbered in URDF order, the root not counted);
        None: on the object's root."""
        t = self.dataset.lookup("articulated_objects", spec.source.get("template", ""))
        user_defined = (t.attributes.get("user_defined") if t is not None else None) or {}
        if not isinstance(user_defined, dict):
            return None
        for key, entry in user_defined.items():
            if isinstance(entry, dict) and str(entry.get("name", key)) == receptacle:
                links = [x for x in spec.source.get("links", "").split(",")
                         if x and x != spec.source.get("root_link")]
                link = entry.get("parent_link")
                return links.index(link) if link in links else None
        return None


def _placement_atoms(goal: Goal) -> list[GAtom]:
    """The goal's atoms when it is a conjunction of placement relations; else the reason."""
    if goal.kind == "then":
        raise NotExpressible("a sequence (`then`): an episode's targets have no order")
    if goal.kind == "targets":
        raise NotExpressible("a multi-goal task (`targets`): an episode has no stops")
    out: list[GAtom] = []
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        match g:
            case GAnd():
                stack.extend(reversed(g.parts))
            case GOr():
                raise NotExpressible("a disjunction (`or`): an episode has one target pose "
                                     "per object")
            case GNot():
                raise NotExpressible(f"a negation ({_text(g)}): episode targets are poses to "
                                     "reach, not states to avoid")
            case GAtom():
                if g.predicate in default_registry().about_robot():
                    raise NotExpressible(f"`{g.predicate}` is about the robot: episode "
                                         "targets are object poses")
                placed = default_registry().placement_order()
                if g.predicate not in placed:
                    raise NotExpressible(f"`{g.predicate}` is not a relation a target pose "
                                         f"can stand for (those are {', '.join(placed)})")
                out.append(g)
            case GCount():
                raise NotExpressible(f"a count (`{g.op} {g.number}` of {len(g.items)} "
                                     "items): an episode has one target pose per object")
            case GTargets() | GThen() | GCluster() | GChecklist():
                raise NotExpressible(f"a {type(g).__name__} inside the goal")
            case _:
                assert_never(g)
    return out


def _moved(before: Snapshot, after: Snapshot, ident: str) -> bool:
    return before.objects.get(ident) != after.objects.get(ident)


def _text(g: Goal) -> str:
    return str(to_pddl(g))


def _relative(path: Path, root: Path) -> str:
    return PurePosixPath(Path(os.path.relpath(path.resolve(), root.resolve()))).as_posix()


def dataset_document(episodes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A RearrangeDataset-v0 file: `config` (null, as habitat-lab's own files may have
    it) and the episodes."""
    return {"config": None, "episodes": list(episodes)}


def gzip_json(doc: Mapping[str, Any]) -> bytes:
    """Deterministic `.json.gz` bytes (no file name, no time stamp in the header)."""
    return gzip.compress(json.dumps(doc, ensure_ascii=False).encode("utf-8"), mtime=0)


def find_dataset(scene: Scene, scene_dir: Path) -> Path | None:
    """The dataset config a scene was imported from, when its assets are where the
    importer read them: the scene names the config's file name, and each object's
    template handle is its config's path under the dataset's folder."""
    name = scene.source.get("dataset")
    if not name:
        return None
    for o in scene.objects:
        template = o.source.get("template")
        if o.mesh is None or not template:
            continue
        mesh = (scene_dir / o.mesh.path).resolve()
        depth = len(PurePosixPath(template).parts) - 1
        root = mesh.parent
        for _ in range(depth):
            root = root.parent
        if (root / name).is_file() and (root / template).is_file():
            return root / name
    return None
