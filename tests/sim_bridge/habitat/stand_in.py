"""A stand-in for a running habitat-lab `RearrangeSim`, for testing `HabitatWorldState`
where habitat-sim does not install.

It is NOT habitat-sim: no physics, no rendering, no Recast navmesh. It exposes the same
attributes and methods `HabitatWorldState` reads, with the same names, frames (Y-up,
front -Z) and conventions, and holds the state a test puts in it:
- object managers (`get_library_has_handle`, `get_object_by_handle`, `get_object_by_id`)
  of objects with `handle`, `object_id`, `translation`, `rotation` (`scalar`, `vector`),
  `aabb` (`min`, `max`: the box in the object's own frame) and, for
  articulated objects, `joint_positions`, `joint_position_limits` and the link queries;
- agent data (`get_agent_data(i)`) with an articulated agent (`base_pos`, `base_rot`) and
  a grasp manager (`snap_idx`, `snap_to_obj`, `desnap`);
- a pathfinder over a navigable polygon on one floor: `snap_point` (NaN when nothing is
  within reach) and `find_path` on a `ShortestPath` (exact shortest paths in the polygon,
  through its corners);
- a semantic scene whose regions are read from a real `*.semantic_config.json`
  (`region_annotations`: poly loop, floor height, extrusion height; `contains`);
- what habitat-lab's `PddlDomain.bind_to_instance` reads (`handle_to_object_id`,
  `get_targets`, `art_objs`, `get_all_markers`, `num_articulated_agents`,
  `receptacles`).

`rearrange_sim_from_dataset` instances a real fixture scene the way habitat-sim does
(handles `<template short name>_:NNNN` numbered per template, in instance order).
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.ops import nearest_points

from fdc.sim_bridge.habitat.dataset import load_dataset
from fdc.sim_bridge.habitat.urdf import read_urdf

NAN3 = (math.nan, math.nan, math.nan)


@dataclass
class Range3D:
    min: tuple[float, float, float]
    max: tuple[float, float, float]


@dataclass
class Quaternion:
    """magnum's: a scalar and a vector part."""

    scalar: float = 1.0
    vector: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @classmethod
    def rotation(cls, angle_rad: float, axis: tuple[float, float, float]) -> Quaternion:
        s = math.sin(angle_rad / 2)
        return cls(math.cos(angle_rad / 2), (axis[0] * s, axis[1] * s, axis[2] * s))


@dataclass
class RigidObject:
    handle: str
    object_id: int
    translation: tuple[float, float, float]
    aabb: Range3D
    rotation: Quaternion = field(default_factory=Quaternion)


@dataclass
class Link:
    name: str
    num_joint_pos: int  # 1 for revolute and prismatic joints, 0 for fixed ones
    joint_pos_offset: int


@dataclass
class ArticulatedObject(RigidObject):
    links: list[Link] = field(default_factory=list)
    joint_positions: list[float] = field(default_factory=list)
    joint_position_limits: tuple[list[float], list[float]] = ([], [])

    def get_link_ids(self) -> list[int]:
        return list(range(len(self.links)))

    def get_link_name(self, link_id: int) -> str:
        return self.links[link_id].name

    def get_link_num_joint_pos(self, link_id: int) -> int:
        return self.links[link_id].num_joint_pos

    def get_link_joint_pos_offset(self, link_id: int) -> int:
        return self.links[link_id].joint_pos_offset

    def set_joint(self, link_name: str, value: float) -> None:
        (link,) = [x for x in self.links if x.name == link_name]
        self.joint_positions[link.joint_pos_offset] = value


class ObjectManager:
    def __init__(self) -> None:
        self._by_handle: dict[str, RigidObject] = {}

    def add(self, obj: RigidObject) -> RigidObject:
        self._by_handle[obj.handle] = obj
        return obj

    def get_library_has_handle(self, handle: str) -> bool:
        return handle in self._by_handle

    def get_object_by_handle(self, handle: str) -> Any:
        return self._by_handle.get(handle)

    def get_object_by_id(self, object_id: int) -> Any:
        return next((o for o in self._by_handle.values() if o.object_id == object_id), None)

    def get_object_handles(self) -> list[str]:
        return list(self._by_handle)


@dataclass
class ArticulatedAgent:
    base_pos: tuple[float, float, float]
    base_rot: float = 0.0


@dataclass
class GraspManager:
    snap_idx: int | None = None

    def snap_to_obj(self, snap_obj_id: int) -> None:
        self.snap_idx = snap_obj_id

    def desnap(self) -> None:
        self.snap_idx = None


@dataclass
class AgentData:
    articulated_agent: ArticulatedAgent
    grasp_mgr: GraspManager


@dataclass
class ShortestPath:
    requested_start: Any = NAN3
    requested_end: Any = NAN3
    points: list[tuple[float, float, float]] = field(default_factory=list)
    geodesic_distance: float = math.inf


class PathFinder:
    """A navmesh stand-in: `navigable` is a polygon of Habitat (x, z) points on the floor
    at height `floor_y`; `snap_point` reaches `snap_radius_m` around a point."""

    def __init__(self, navigable: Any, floor_y: float, snap_radius_m: float = 1.5) -> None:
        self.navigable = shapely.make_valid(navigable)
        shapely.prepare(self.navigable)
        self.floor_y = floor_y
        self.snap_radius_m = snap_radius_m

    def snap_point(self, point: Any) -> tuple[float, float, float]:
        p = shapely.Point(float(point[0]), float(point[2]))
        if shapely.covers(self.navigable, p):
            return (p.x, self.floor_y, p.y)
        near = nearest_points(self.navigable, p)[0]
        if near.distance(p) > self.snap_radius_m:
            return NAN3
        return (near.x, self.floor_y, near.y)

    def find_path(self, path: ShortestPath) -> bool:
        import networkx as nx

        a = (float(path.requested_start[0]), float(path.requested_start[2]))
        b = (float(path.requested_end[0]), float(path.requested_end[2]))
        path.points, path.geodesic_distance = [], math.inf
        if not all(math.isfinite(c) for c in (*a, *b)):
            return False
        if not (shapely.covers(self.navigable, shapely.Point(a))
                and shapely.covers(self.navigable, shapely.Point(b))):
            return False
        # Shortest paths in a polygon run through its corners: a visibility graph.
        corners = [tuple(c) for c in shapely.get_coordinates(shapely.boundary(self.navigable))]
        nodes = list(dict.fromkeys([a, b, *corners]))
        graph = nx.Graph()
        graph.add_nodes_from(nodes)
        for p, q in itertools.combinations(nodes, 2):
            if shapely.covered_by(shapely.LineString([p, q]), self.navigable):
                graph.add_edge(p, q, weight=math.dist(p, q))
        try:
            length, route = nx.single_source_dijkstra(graph, a, b)
        except nx.NetworkXNoPath:
            return False
        path.geodesic_distance = float(length)
        path.points = [(x, self.floor_y, z) for x, z in route]
        return True


@dataclass
class SemanticCategory:
    label: str

    def name(self) -> str:
        return self.label


@dataclass
class SemanticRegion:
    id: str
    category: SemanticCategory
    poly_loop_points: list[tuple[float, float]]  # (x, z)
    floor_height: float
    extrusion_height: float

    def contains(self, point: Any) -> bool:
        x, y, z = (float(c) for c in point)
        if not self.floor_height <= y <= self.floor_height + self.extrusion_height:
            return False
        return bool(shapely.covers(shapely.Polygon(self.poly_loop_points), shapely.Point(x, z)))


@dataclass
class SemanticScene:
    regions: list[SemanticRegion]


def regions_from_config(path: Path) -> list[SemanticRegion]:
    """The regions habitat-sim reads from a `*.semantic_config.json`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for r in data.get("region_annotations", []):
        loop = np.asarray(r["poly_loop"], dtype=np.float64).reshape(-1, 3)
        out.append(SemanticRegion(
            id=str(r["name"]), category=SemanticCategory(str(r["label"])),
            poly_loop_points=[(float(x), float(z)) for x, _, z in loop],
            floor_height=float(r["floor_height"]), extrusion_height=float(r["extrusion_height"])))
    return out


class RearrangeSimStandIn:
    """The parts of a `RearrangeSim` that `HabitatWorldState` reads."""

    def __init__(self, pathfinder: PathFinder, regions: list[SemanticRegion],
                 base_pos: tuple[float, float, float], base_rot: float = 0.0) -> None:
        self.rigid = ObjectManager()
        self.articulated = ObjectManager()
        self.pathfinder = pathfinder
        self.semantic_scene = SemanticScene(regions)
        self.agent_data = AgentData(ArticulatedAgent(base_pos, base_rot), GraspManager())
        self._ids = itertools.count()
        self._counts: Counter[str] = Counter()

    # ----- what habitat-lab's `PddlDomain.bind_to_instance` reads ----------------------
    num_articulated_agents = 1

    @property
    def handle_to_object_id(self) -> dict[str, int]:
        """The rigid objects' handles and their index in the episode's objects."""
        return {h: i for i, h in enumerate(self.rigid.get_object_handles())}

    def get_targets(self) -> tuple[np.ndarray, np.ndarray]:
        """The episode's target objects and positions (none: fdc's goals are its own)."""
        return np.zeros(0, dtype=np.int64), np.zeros((0, 3))

    @property
    def art_objs(self) -> list[Any]:
        return [self.articulated.get_object_by_handle(h)
                for h in self.articulated.get_object_handles()]

    def get_all_markers(self) -> dict[str, Any]:
        return {}

    @property
    def receptacles(self) -> dict[str, Any]:
        """Habitat's receptacles by unique name (the stand-in parses none)."""
        return {}

    def get_rigid_object_manager(self) -> ObjectManager:
        return self.rigid

    def get_articulated_object_manager(self) -> ObjectManager:
        return self.articulated

    def get_agent_data(self, agent_idx: int | None) -> AgentData:
        if agent_idx not in (None, 0):
            raise IndexError(f"the stand-in has one agent, not agent {agent_idx}")
        return self.agent_data

    @property
    def articulated_agent(self) -> ArticulatedAgent:
        return self.agent_data.articulated_agent

    @property
    def grasp_mgr(self) -> GraspManager:
        return self.agent_data.grasp_mgr

    def new_handle(self, template_short_name: str) -> str:
        """habitat-sim's instance handle: the template's short name, `_:`, a per-template
        number in instancing order."""
        n = self._counts[template_short_name]
        self._counts[template_short_name] += 1
        return f"{template_short_name}_:{n:04d}"

    def add_rigid(self, short_name: str, translation: tuple[float, float, float],
                  bb: Range3D, rotation: Quaternion | None = None) -> RigidObject:
        obj = RigidObject(self.new_handle(short_name), next(self._ids), translation,
                          bb, rotation or Quaternion())
        return self.rigid.add(obj)

    def add_articulated(self, short_name: str, urdf: Path,
                        translation: tuple[float, float, float], bb: Range3D,
                        rotation: Quaternion | None = None) -> ArticulatedObject:
        """An articulated object from its URDF: one link per non-root link, in URDF order
        (habitat-sim's order with `maintain_link_order`), one joint position per revolute
        or prismatic joint, limits from the URDF."""
        robot = read_urdf(urdf)
        joints = {j.child: j for j in robot.joints}
        links, lower, upper = [], [], []
        for name in robot.links:
            if name == robot.root:
                continue
            j = joints[name]
            moving = j.type in ("revolute", "prismatic")
            links.append(Link(name, 1 if moving else 0, len(lower)))
            if moving:
                lower.append(j.lower)
                upper.append(j.upper)
        ao = ArticulatedObject(self.new_handle(short_name), next(self._ids), translation,
                               bb, rotation or Quaternion(), links,
                               [0.0] * len(lower), (lower, upper))
        return self.articulated.add(ao)


def rearrange_sim_from_dataset(config: Path, scene_name: str, semantic: Path,
                               pathfinder: PathFinder, base_pos: tuple[float, float, float]
                               ) -> RearrangeSimStandIn:
    """A stand-in holding a real fixture scene's rigid objects as habitat-sim instances
    them (asset-local origins; boxes from the render meshes' bounds, scaled), and the
    regions of its semantic config (`semantic`)."""
    import trimesh

    ds, findings = load_dataset(config)
    assert ds is not None, findings
    inst_t = ds.lookup("scene_instances", scene_name)
    assert inst_t is not None
    inst = inst_t.attributes
    sim = RearrangeSimStandIn(pathfinder, regions_from_config(semantic), base_pos)
    for o in inst.get("object_instances", []):
        t = ds.lookup("objects", o["template_name"])
        assert t is not None
        origin = str(o.get("translation_origin", inst.get("translation_origin", ""))).lower()
        assert origin == "asset_local", "the stand-in instances asset-local objects only"
        mesh = trimesh.load(str(t.base_dir / t.attributes["render_asset"]), force="mesh",
                            process=False)
        scale = np.asarray(t.attributes.get("scale", [1, 1, 1]), dtype=np.float64)
        lo, hi = np.asarray(mesh.bounds) * scale
        sim.add_rigid(t.short_name, tuple(float(c) for c in o.get("translation", [0, 0, 0])),
                      Range3D(tuple(lo.tolist()), tuple(hi.tolist())))
    return sim
