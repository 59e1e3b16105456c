"""Recorded snapshots: the trajectory JSONL format and `SnapshotState`, a `WorldState`
over one snapshot and the static scene graph.

A trajectory file is one `TrajectoryHeader` line followed by one `Snapshot` line per step
(`docs/formats/trajectory.md`). `read_trajectory` never raises anything but
`TrajectoryError`, whose `problems` name the line and the JSON path of every fault;
`write_trajectory` writes atomically.

`SnapshotState` answers the fluent questions with the objects where the snapshot says
they are now: `PosedGraph` is the scene graph seen with those poses (items moved, the
surfaces of moved items moved with them, containers opened or closed). The support
rule, the room rule, line of sight and the placement queries are the scene graph's own,
run on it, so a recorded state and the embedded world answer alike.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import tempfile
import weakref
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ValidationError

from fdc.core.errors import FdcError
from fdc.core.jsonpath import json_path
from fdc.core.problems import Diagnostic, Severity, error, render_message
from fdc.sim_bridge.geometry import box_corners, quaternions_to_matrices, tilts, yaws
from fdc.sim_bridge.graph.bodies import Bodies
from fdc.sim_bridge.graph.regions import Region, anchor_regions, grid_cells
from fdc.sim_bridge.graph.scene_graph import ObjectInfo, Point
from fdc.sim_bridge.graph.support import match_supports
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.state import (
    TRAJECTORY_FORMAT_VERSION,
    AgentPose,
    ObjectPose,
    Snapshot,
    TrajectoryHeader,
)

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import StandingPoint
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: Field of view and range of `visible` when the caller gives none (the scene graph's).
DEFAULT_FOV_RAD = math.radians(90.0)
DEFAULT_VIEW_RANGE_M = 6.0
#: Items tilted more than this offer no surface (as in the scene graph's build).
_MAX_TILT_RAD = math.radians(5.0)
_MAX_PROBLEMS = 100


# ----- the scene's movable state ------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SceneStatics:
    """What every state of one scene graph shares: the tracked objects and their
    initial poses, the containers that open and close, where standing points are."""

    tracked: tuple[str, ...]  # movable and articulated objects, in scene order
    tracked_index: Mapping[str, int]
    body_index: np.ndarray  # per tracked object: its row in graph.bodies
    initial_poses: Mapping[str, ObjectPose]
    positions0: np.ndarray  # (t, 3)
    quats0: np.ndarray  # (t, 4)
    yaws0: np.ndarray  # (t,)
    containers: Mapping[str, tuple[str, str | None]]  # container surface -> (object, part)
    initial_open: Mapping[str, bool]
    by_object: Mapping[str, tuple[str, ...]]  # object -> its container surface ids
    by_part: Mapping[str, tuple[str, ...]]  # "object|part" -> the containers it closes
    with_standing: frozenset[str]  # surfaces that have standing points of their own
    scene_sha256: str


_STATICS: weakref.WeakKeyDictionary[SceneGraph, SceneStatics] = weakref.WeakKeyDictionary()


def scene_statics(graph: SceneGraph) -> SceneStatics:
    """The per-scene constants of world states (computed once per graph)."""
    got = _STATICS.get(graph)
    if got is not None:
        return got
    tracked = tuple(o.id for o in graph.scene.objects
                    if graph.object(o.id).kind in (Kind.MOVABLE, Kind.ARTICULATED))
    bidx = graph.bodies.index()
    poses = {i: ObjectPose(position=graph.object(i).spec.pose.position,
                           orientation=graph.object(i).spec.pose.orientation,
                           size=graph.object(i).spec.size) for i in tracked}
    containers: dict[str, tuple[str, str | None]] = {}
    initial_open: dict[str, bool] = {}
    by_object: dict[str, list[str]] = defaultdict(list)
    by_part: dict[str, list[str]] = defaultdict(list)
    for s in graph.surfaces():
        if s.container is None:
            continue
        containers[s.id] = (s.object_id, s.part)
        initial_open[s.id] = s.is_open
        by_object[s.object_id].append(s.id)
        if s.part is not None:
            by_part[f"{s.object_id}|{s.part}"].append(s.id)
    body_index = np.array([bidx[i] for i in tracked], dtype=np.int64)
    out = SceneStatics(
        tracked=tracked,
        tracked_index={i: k for k, i in enumerate(tracked)},
        body_index=body_index,
        initial_poses=poses,
        positions0=graph.bodies.positions[body_index].reshape(-1, 3),
        quats0=np.array([poses[i].orientation for i in tracked], dtype=np.float64).reshape(-1, 4),
        yaws0=graph.bodies.yaws[body_index],
        containers=containers,
        initial_open=initial_open,
        by_object={k: tuple(v) for k, v in by_object.items()},
        by_part={k: tuple(v) for k, v in by_part.items()},
        with_standing=frozenset(sp.surface_id for sp in graph.standing_points()),
        scene_sha256=hashlib.sha256(graph.scene.to_json().encode("utf-8")).hexdigest(),
    )
    _STATICS[graph] = out
    return out


def scene_sha256(graph: SceneGraph) -> str:
    """sha256 of the scene's canonical JSON (`Scene.to_json()`): a trajectory header
    records it so a trajectory is not verified in another scene."""
    return scene_statics(graph).scene_sha256


def open_keys(graph: SceneGraph, ident: str) -> tuple[str, ...]:
    """The containers an id names: a container surface (`fridge|lower`), a part
    (`fridge|lower_door`: the containers it closes), or an object (all of its own)."""
    st = scene_statics(graph)
    if ident in st.containers:
        return (ident,)
    if ident in st.by_part:
        return st.by_part[ident]
    return st.by_object.get(ident, ())


# ----- the scene graph with current poses ---------------------------------------------
class PosedGraph:
    """The static scene graph seen with the objects where they are now.

    It offers the parts of the `SceneGraph` interface that support, rooms, visibility
    and the placement queries read (`object`, `surface`, `parent_surface`, `carrier`,
    `items_on`, `containers_of`, `obstacles_on`, `anchor_regions`, `cells`, `bodies`),
    so those run unchanged on the current state. Built once per state, read-only."""

    def __init__(self, graph: SceneGraph, poses: Mapping[str, ObjectPose], held: str | None,
                 open_state: Mapping[str, bool], agent: AgentPose) -> None:
        import shapely

        st = scene_statics(graph)
        self.graph = graph
        self.statics = st
        self.scene = graph.scene
        self.layout = graph.layout
        self.config = graph.config
        self.nav = graph.nav
        self.held = held
        self.agent = agent
        t = len(st.tracked)
        pos = st.positions0.copy()
        quat = st.quats0.copy()
        size = np.zeros((t, 3))
        for k, ident in enumerate(st.tracked):
            p = poses.get(ident) or st.initial_poses[ident]
            pos[k] = p.position
            quat[k] = p.orientation
            size[k] = p.size
        b = graph.bodies
        rows = st.body_index
        mats = quaternions_to_matrices(quat) if t else np.zeros((0, 3, 3))
        corners = box_corners(pos, mats, size) if t else np.zeros((0, 8, 3))
        fps = shapely.convex_hull(shapely.multipoints(corners[:, :, :2])) if t else \
            np.empty(0, dtype=object)
        held_k = st.tracked_index.get(held, -1) if held is not None else -1
        if held_k >= 0:  # in the hand: on nothing, in nobody's way
            fps[held_k] = shapely.Polygon()
        positions, matrices, footprints = b.positions.copy(), b.matrices.copy(), b.footprints.copy()
        bottoms, tops, sizes = b.bottoms.copy(), b.tops.copy(), b.sizes.copy()
        yaw_all, tilt_all = b.yaws.copy(), b.tilts.copy()
        if t:
            positions[rows], matrices[rows], footprints[rows] = pos, mats, fps
            bottoms[rows] = corners[:, :, 2].min(axis=1)
            tops[rows] = corners[:, :, 2].max(axis=1)
            sizes[rows] = size
            yaw_all[rows], tilt_all[rows] = yaws(mats), tilts(mats)
        self.bodies = dataclasses.replace(
            b, positions=positions, matrices=matrices, sizes=sizes, yaws=yaw_all,
            tilts=tilt_all, bottoms=bottoms, tops=tops, footprints=footprints)
        self._b: Bodies = self.bodies
        moved = ~(np.all(np.abs(pos - st.positions0) <= 1e-9, axis=1)
                  & np.all(np.abs(quat - st.quats0) <= 1e-9, axis=1)) if t else \
            np.zeros(0, dtype=bool)
        if held_k >= 0:
            moved[held_k] = True
        # Surfaces: those of moved items move with them (a rigid motion in the plane);
        # those of the held item or of a tipped-over item carry nothing.
        surfaces: dict[str, Surface] = {}
        active: list[Surface] = []
        for s in graph.surfaces():
            k = st.tracked_index.get(s.object_id, -1)
            if k >= 0 and moved[k]:
                s = _move_surface(s, st.positions0[k], float(st.yaws0[k]), pos[k],
                                  float(yaw_all[rows[k]]))
            if s.container is not None:
                is_open = open_state.get(s.id, st.initial_open[s.id])
                if is_open != s.is_open:
                    s = dataclasses.replace(s, is_open=is_open)
            surfaces[s.id] = s
            if k >= 0 and (k == held_k or tilt_all[rows[k]] > _MAX_TILT_RAD):
                continue
            active.append(s)
        self._surfaces = surfaces
        # The support rule of the scene graph, on the current poses.
        parent: dict[str, str | None] = {}
        if t:
            spolys = np.array([s.polygon for s in active], dtype=object)
            sz = np.array([s.z for s in active], dtype=np.float64)
            sowner = np.array([st.tracked_index.get(s.object_id, -1) for s in active],
                              dtype=np.int64)
            cand = np.ones(t, dtype=bool)
            if held_k >= 0:
                cand[held_k] = False
            found = match_supports(fps, bottoms[rows], spolys, sz, sowner,
                                   graph.config.support, cand)
            for k, ident in enumerate(st.tracked):
                parent[ident] = active[found[k]].id if found[k] >= 0 else None
        self._parent = parent
        children: dict[str, list[str]] = defaultdict(list)
        for o in graph.objects():
            under = parent.get(o.id, o.parent_surface)
            if under is not None:
                children[under].append(o.id)
        self._children = children
        self._rooms = self._current_rooms(fps, bottoms[rows], tops[rows], held_k)
        self._info: dict[str, ObjectInfo] = {}

    def _current_rooms(self, fps: Any, bottoms: np.ndarray, tops: np.ndarray, held_k: int
                       ) -> dict[str, str | None]:
        import shapely

        st = self.statics
        ids = self.layout.room_ids
        out: dict[str, str | None] = {}
        if not st.tracked:
            return out
        solid = ~shapely.is_empty(fps)
        centres = np.zeros((len(fps), 2))
        centres[solid] = shapely.get_coordinates(shapely.centroid(fps[solid])).reshape(-1, 2)
        z = (bottoms + tops) / 2
        if held_k >= 0:  # in the hand: where the agent is
            centres[held_k] = (self.agent.x, self.agent.y)
        if held_k >= 0:
            z[held_k] = self.agent.z + 0.1
        k_room = self.layout.rooms_at(centres, z)
        for k, ident in enumerate(st.tracked):
            out[ident] = ids[k_room[k]] if k_room[k] >= 0 else None
        # An item outside every room takes its carrier's (an item on a table by the wall).
        for _ in range(8):
            changed = False
            for ident, r in out.items():
                if r is None:
                    c = self.carrier_id(ident)
                    if c is not None:
                        cr = out[c] if c in out else self.graph.object(c).room
                        if cr is not None:
                            out[ident] = cr
                            changed = True
            if not changed:
                break
        return out

    # ----- the SceneGraph interface, current ------------------------------------------
    def has(self, ident: str) -> bool:
        return self.graph.has(ident)

    def object(self, ident: str) -> ObjectInfo:
        got = self._info.get(ident)
        if got is not None:
            return got
        info = self.graph.object(ident)
        if ident in self._parent:
            i = int(self.statics.body_index[self.statics.tracked_index[ident]])
            b = self._b
            info = dataclasses.replace(
                info,
                position=(float(b.positions[i, 0]), float(b.positions[i, 1]),
                          float(b.positions[i, 2])),
                yaw_rad=float(b.yaws[i]),
                size=(float(b.sizes[i, 0]), float(b.sizes[i, 1]), float(b.sizes[i, 2])),
                bottom_z=float(b.bottoms[i]),
                top_z=float(b.tops[i]),
                footprint=b.footprints[i],
                room=self._rooms.get(ident),
                parent_surface=self._parent[ident],
            )
        self._info[ident] = info
        return info

    def objects(self) -> list[ObjectInfo]:
        return [self.object(o.id) for o in self.graph.objects()]

    def surface(self, ident: str) -> Surface:
        return self._surfaces[ident]

    def surfaces(self, object_id: str | None = None) -> list[Surface]:
        if object_id is None:
            return list(self._surfaces.values())
        return [self._surfaces[s] for s in self.graph.object(object_id).surfaces]

    def parent_surface(self, item_id: str) -> Surface | None:
        p = self._parent[item_id] if item_id in self._parent else \
            self.graph.object(item_id).parent_surface
        return self._surfaces[p] if p is not None else None

    def support_of(self, item_id: str) -> str | None:
        s = self.parent_surface(item_id)
        return s.id if s is not None else None

    def carrier_id(self, item_id: str) -> str | None:
        s = self.parent_surface(item_id)
        return s.object_id if s is not None else None

    def carrier(self, item_id: str) -> ObjectInfo | None:
        c = self.carrier_id(item_id)
        return self.object(c) if c is not None else None

    def items_on(self, surface_id: str) -> list[ObjectInfo]:
        return [self.object(i) for i in sorted(self._children.get(surface_id, []))]

    def items_carried_by(self, object_id: str) -> list[str]:
        """Ids of the items resting on any surface of `object_id`, sorted."""
        return sorted(i for s in self.graph.object(object_id).surfaces
                      for i in self._children.get(s, []))

    def containers_of(self, ident: str) -> list[Surface]:
        return [self._surfaces[c.id] for c in self.graph.containers_of(ident)]

    def room_of_object(self, ident: str) -> str | None:
        if ident in self._rooms:
            return self._rooms[ident]
        return self.graph.object(ident).room

    def enclosing_container(self, ident: str) -> Surface | None:
        """The closed container the object is in, at any depth (None: not hidden)."""
        p = self.parent_surface(ident)
        for _ in range(64):
            if p is None:
                return None
            if p.container is not None and not p.is_open:
                return p
            p = self.parent_surface(p.object_id)
        return None

    def obstacles_on(self, surface_id: str, exclude: str | None = None,
                     height_m: float = 0.1) -> Any:
        """What an item placed on the surface must not touch now: the items on it (but
        `exclude`), walls and fixed objects crossing its layer."""
        s = self._surfaces[surface_id]
        items = [self.object(i).footprint for i in self._children.get(surface_id, [])
                 if i != exclude and i != self.held]
        fixed = self.graph._fixed_near(s, max(height_m, 0.01))  # the graph's layer query
        return np.concatenate([np.array(items, dtype=object), np.asarray(fixed, dtype=object)])

    def cells(self, surface_id: str) -> list[Region]:
        return grid_cells(self._surfaces[surface_id], self.config.regions)

    def anchor_regions(self, surface_id: str, anchor: str | None = None,
                       exclude: str | None = None) -> list[Region]:
        s = self._surfaces[surface_id]
        ids = sorted(i for i in self._children.get(surface_id, [])
                     if i != exclude and i != self.held)
        fps = np.array([self.object(i).footprint for i in ids], dtype=object)
        regions = anchor_regions(s, ids, fps, self.graph._fixed_near(s, 0.1),
                                 self.config.regions)
        return [r for r in regions if anchor is None or r.anchor_id == anchor]

    # ----- navigation with current poses -----------------------------------------------
    def nav_target(self, what: str | Point) -> str | Point:
        """What the navigation graph should walk to for `what` now: a movable item is
        reached at the standing points of the furniture at the bottom of its current
        support chain (the agent's position when held; its own position when it rests
        on nothing with standing points)."""
        if not isinstance(what, str):
            return what
        st = self.statics
        if what in self._surfaces:
            return self._surface_target(self._surfaces[what])
        if what in st.tracked_index and self.graph.object(what).kind is Kind.MOVABLE:
            if what == self.held:
                return (self.agent.x, self.agent.y)
            s = self.parent_surface(what)
            if s is None:
                o = self.object(what)
                return (o.position[0], o.position[1])
            return self._surface_target(s)
        return what

    def _surface_target(self, s: Surface) -> str | Point:
        for _ in range(64):
            if s.id in self.statics.with_standing:
                return s.id
            owner = s.object_id
            if owner not in self.statics.tracked_index:
                return s.id  # furniture: the graph knows its way there
            p = self.parent_surface(owner)
            if p is None:
                o = self.object(owner)
                return (o.position[0], o.position[1])
            s = p
        return s.id  # pragma: no cover - support chains are short

    def standing_points_for(self, what: str) -> tuple[list[StandingPoint], Point | None]:
        """The standing points that serve `what` now (an item: its support chain's), or,
        when there are none, the point to be near instead."""
        target = self.nav_target(what)
        if not isinstance(target, str):
            return [], target
        pts = self.graph.standing_points(target)
        if pts:
            return pts, None
        e = self.graph.entity(target)
        if isinstance(e, Surface):
            return [], e.origin
        if isinstance(e, ObjectInfo):
            o = self.object(e.id)
            return [], (o.position[0], o.position[1])
        return [], None


def _move_surface(s: Surface, p0: np.ndarray, yaw0: float, p1: np.ndarray, yaw1: float
                  ) -> Surface:
    import shapely

    d = yaw1 - yaw0
    c, sn = math.cos(d), math.sin(d)

    def move(xy: np.ndarray) -> np.ndarray:
        q = np.asarray(xy, dtype=np.float64) - p0[:2]
        return np.stack([p1[0] + c * q[:, 0] - sn * q[:, 1],
                         p1[1] + sn * q[:, 0] + c * q[:, 1]], axis=1)

    origin = move(np.array([s.origin]))[0]
    return dataclasses.replace(
        s, polygon=shapely.transform(s.polygon, move), z=s.z + float(p1[2] - p0[2]),
        yaw_rad=s.yaw_rad + d, origin=(float(origin[0]), float(origin[1])))


# ----- the WorldState of one snapshot -------------------------------------------------
class SnapshotState:
    """A `WorldState` over one recorded `Snapshot` and the static `SceneGraph`.

    Objects the snapshot leaves out are where the scene put them; containers it leaves
    out keep their initial open state. Derived facts (support, rooms, the posed graph)
    are computed on first use and kept."""

    def __init__(self, graph: SceneGraph, snapshot: Snapshot) -> None:
        self._graph = graph
        self.snapshot = snapshot
        self._posed: PosedGraph | None = None

    def object_state(self, object_id: str, name: str) -> bool | None:
        """A recorded object state (`Snapshot.states`); None: not recorded, the scene's
        value holds."""
        return self.snapshot.states.get(object_id, {}).get(name)

    @property
    def graph(self) -> SceneGraph:
        return self._graph

    @property
    def posed(self) -> PosedGraph:
        """The scene graph with this snapshot's poses."""
        if self._posed is None:
            s = self.snapshot
            self._posed = PosedGraph(self._graph, s.objects, s.held, s.open, s.agent)
        return self._posed

    def agent_pose(self) -> AgentPose:
        return self.snapshot.agent

    def at_pose(self, agent: AgentPose, step: int | None = None) -> SnapshotState:
        """The same world with the robot at `agent` (hand empty), sharing the posed graph:
        for judging goals at many poses of one world, as memory tasks' goal frames do."""
        snap = self.snapshot.model_copy(update={
            "agent": agent, "held": None, "step": self.snapshot.step if step is None else step})
        out = SnapshotState(self._graph, snap)
        if self.snapshot.held is None:
            out._posed = self._posed if self._posed is not None else self.posed
        return out

    def held_object(self) -> str | None:
        return self.snapshot.held

    def object_ids(self) -> Sequence[str]:
        return scene_statics(self._graph).tracked

    def object_pose(self, object_id: str) -> ObjectPose:
        got = self.snapshot.objects.get(object_id)
        if got is not None:
            return got
        st = scene_statics(self._graph)
        if object_id in st.initial_poses:
            return st.initial_poses[object_id]
        o = self._graph.object(object_id)  # KeyError for an unknown id
        return ObjectPose(position=o.spec.pose.position, orientation=o.spec.pose.orientation,
                          size=o.spec.size)

    def is_open(self, object_id: str) -> bool:
        keys = open_keys(self._graph, object_id)
        if not keys:
            if not self._graph.has(object_id):
                raise KeyError(object_id)
            return True
        init = scene_statics(self._graph).initial_open
        return any(self.snapshot.open.get(k, init[k]) for k in keys)

    def time_min(self) -> float:
        return self.snapshot.time_min

    def path_length_m(self) -> float:
        return self.snapshot.path_length_m

    def support_of(self, object_id: str) -> str | None:
        if object_id == self.snapshot.held:
            return None
        return self.posed.support_of(object_id)

    def supports(self) -> dict[str, str | None]:
        """`support_of` for every tracked object at once."""
        p = self.posed
        return {i: (None if i == self.snapshot.held else p.support_of(i))
                for i in scene_statics(self._graph).tracked}

    def room_of(self, what: str | Point) -> str | None:
        g = self._graph
        if not isinstance(what, str):
            r = g.room_of(what)
            return r.id if r is not None else None
        if what in scene_statics(g).tracked_index:
            if what == self.snapshot.held:
                return self.room_of((self.snapshot.agent.x, self.snapshot.agent.y))
            return self.posed.room_of_object(what)
        if g.has(what) and not isinstance(g.entity(what), ObjectInfo):
            if isinstance(g.entity(what), Surface):
                return self.room_of(g.surface(what).object_id)
            return what  # a room
        r = g.room_of(what)
        return r.id if r is not None else None

    def shortest_path(self, a: str | Point, b: str | Point
                      ) -> list[tuple[float, float]] | None:
        """The graph's shortest path between points or entities where they are now."""
        return self._graph.shortest_path(self._target(a), self._target(b))

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        return self._graph.geodesic_distance(self._target(a), self._target(b))

    def _target(self, what: str | Point) -> str | Point:
        if isinstance(what, str) and what in scene_statics(self._graph).tracked_index:
            return self.posed.nav_target(what)
        if isinstance(what, str) and self._graph.has(what) and \
                isinstance(self._graph.entity(what), Surface):
            return self.posed.nav_target(what)
        return what

    def visible(self, object_id: str, pose: AgentPose | None = None,
                fov_rad: float | None = None, max_range_m: float | None = None) -> bool:
        from fdc.sim_bridge.graph.visibility import line_of_sight

        if object_id == self.snapshot.held:
            return True
        pose = pose or self.snapshot.agent
        fov = DEFAULT_FOV_RAD if fov_rad is None else fov_rad
        rng = DEFAULT_VIEW_RANGE_M if max_range_m is None else max_range_m
        o = self.posed.object(object_id)
        dx, dy = o.position[0] - pose.x, o.position[1] - pose.y
        if math.hypot(dx, dy) > rng:
            return False
        ang = (math.atan2(dy, dx) - pose.yaw_rad + math.pi) % (2 * math.pi) - math.pi
        if abs(ang) > fov / 2:
            return False
        return line_of_sight(self.posed, (pose.x, pose.y, pose.z), object_id)  # type: ignore[arg-type]

    def visible_objects(self, pose: AgentPose | None = None, fov_rad: float | None = None,
                        max_range_m: float | None = None) -> list[str]:
        """Ids of every object in view (one vectorised pass), sorted."""
        from fdc.sim_bridge.graph.visibility import visible_objects

        pose = pose or self.snapshot.agent
        out = visible_objects(
            self.posed, (pose.x, pose.y, pose.z), pose.yaw_rad,  # type: ignore[arg-type]
            DEFAULT_FOV_RAD if fov_rad is None else fov_rad,
            DEFAULT_VIEW_RANGE_M if max_range_m is None else max_range_m)
        held = self.snapshot.held
        return sorted({*out, held}) if held is not None else out


# ----- the JSONL file ------------------------------------------------------------------
class TrajectoryError(FdcError, ValueError):
    """A trajectory that cannot be read; `problems` lists every fault found, each with its
    line (None: the file as a whole) and the JSON path of the value within that line."""

    def __init__(self, problems: Iterable[Diagnostic], file: str = "") -> None:
        self.problems = list(problems)
        self.file = file
        super().__init__("\n".join(render_message(p.in_file(file)) for p in self.problems))


def write_trajectory(path: str | Path, header: TrajectoryHeader,
                     snapshots: Iterable[Snapshot]) -> None:
    """Write a trajectory file atomically (a temporary file beside it, then a rename)."""
    p = Path(path)
    lines = [header.model_dump_json()] + [s.model_dump_json() for s in snapshots]
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_trajectory(path: str | Path) -> tuple[TrajectoryHeader, list[Snapshot]]:
    """Read and validate a trajectory file; raises `TrajectoryError` (only) on faults."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TrajectoryError([error("T000", f"cannot read the file: {e}")],
                              str(p)) from None
    return parse_trajectory(text, str(p))


def parse_trajectory(text: str, file: str = "") -> tuple[TrajectoryHeader, list[Snapshot]]:
    """Validate trajectory text (see `read_trajectory`)."""
    problems: list[Diagnostic] = []
    rows = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if not rows:
        raise TrajectoryError([error("T004", "empty file: expected a header line and one "
                                     "snapshot per line", line=1)], file)
    n0, first = rows[0]
    raw = _json_line(first, n0, problems)
    header: TrajectoryHeader | None = None
    if raw is not None:
        if isinstance(raw, dict) and raw.get("kind", "fdc-trajectory") != "fdc-trajectory":
            problems.append(error("T003", f"not a trajectory header: kind is "
                                  f"{raw.get('kind')!r}, not 'fdc-trajectory'", "kind", line=n0))
        elif isinstance(raw, dict) and "format_version" in raw and \
                raw["format_version"] != TRAJECTORY_FORMAT_VERSION:
            problems.append(error(
                "T003", f"unsupported format_version {raw['format_version']!r}; this fdc "
                f"reads {TRAJECTORY_FORMAT_VERSION!r}", "format_version", line=n0))
            raise TrajectoryError(problems, file)
        else:
            header = _validate(TrajectoryHeader, raw, n0, problems)  # type: ignore[assignment]
    snapshots: list[Snapshot] = []
    prev: tuple[int, Snapshot] | None = None
    for n, line in rows[1:]:
        if len(problems) >= _MAX_PROBLEMS:
            problems.append(Diagnostic(Severity.NOTE, "T099",
                                       "too many problems; stopped reading", line=n))
            break
        raw = _json_line(line, n, problems)
        if raw is None:
            continue
        snap = _validate(Snapshot, raw, n, problems)
        if snap is None:
            continue
        assert isinstance(snap, Snapshot)
        if prev is not None:
            pn, ps = prev
            if snap.step <= ps.step:
                problems.append(error(
                    "T011", f"step {snap.step} does not follow step {ps.step} (line {pn}): "
                    "steps must increase", "step", line=n))
            if snap.time_min < ps.time_min:
                problems.append(error(
                    "T011", f"the clock goes back from {ps.time_min} (line {pn}) to "
                    f"{snap.time_min}", "time_min", line=n))
            if snap.path_length_m < ps.path_length_m - 1e-9:
                problems.append(error(
                    "T011", f"the distance walked shrinks from {ps.path_length_m} "
                    f"(line {pn}) to {snap.path_length_m}", "path_length_m", line=n))
        prev = (n, snap)
        snapshots.append(snap)
    if not problems and not snapshots:
        problems.append(error("T004", "no snapshot follows the header", line=n0))
    if problems or header is None:
        raise TrajectoryError(problems, file)
    return header, snapshots


def _non_finite(name: str) -> float:
    # Kept as a float so the model rejects it with the JSON path of the value.
    return float(name.replace("Infinity", "inf"))


def _json_line(line: str, n: int, problems: list[Diagnostic]) -> Any:
    try:
        return json.loads(line, parse_constant=_non_finite)
    except json.JSONDecodeError as e:
        problems.append(error("T001", f"not valid JSON: {e.msg} (column {e.colno})", line=n))
        return None


def _validate(model: type[BaseModel], raw: Any, n: int, problems: list[Diagnostic]
              ) -> BaseModel | None:
    if not isinstance(raw, dict):
        problems.append(error("T002", f"expected a JSON object, found {type(raw).__name__}",
                              line=n))
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        for err in e.errors():
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            if err.get("type") == "finite_number":
                msg = "NaN and infinite numbers are not allowed"
            problems.append(error("T010", msg, json_path(err.get("loc", ())), line=n))
        return None


def scene_problems(graph: SceneGraph, header: TrajectoryHeader, snapshots: Sequence[Snapshot]
                   ) -> list[Diagnostic]:
    """Faults of a (valid) trajectory against the scene it claims: another scene's hash,
    unknown or fixed objects, unknown containers. Lines count the header as line 1."""
    st = scene_statics(graph)
    out: list[Diagnostic] = []
    if header.scene_sha256 is not None and header.scene_sha256 != st.scene_sha256:
        out.append(error("T020", "the trajectory was recorded in another scene (its sha256 "
                         f"is {st.scene_sha256})", "scene_sha256", line=1))
    for k, s in enumerate(snapshots):
        line = k + 2
        for ident in s.objects:
            if ident not in st.tracked_index:
                what = "is fixed" if graph.has(ident) else "is not in the scene"
                out.append(error("T020", f"object `{ident}` {what}",
                                 json_path(("objects", ident)), [ident], line=line))
        if s.held is not None and (s.held not in st.tracked_index or
                                   graph.object(s.held).kind is not Kind.MOVABLE):
            out.append(error("T020", f"`{s.held}` is not a movable object of the scene", "held",
                             [s.held], line=line))
        for key in s.open:
            if key not in st.containers:
                out.append(error("T020", f"`{key}` is not a container of the scene",
                                 json_path(("open", key)), [key], line=line))
        if len(out) >= _MAX_PROBLEMS:
            break
    return out


# ----- a live world's derived queries and its record -----------------------------------
class LiveRecord:
    """What a live world (the embedded one, Habitat's) answers from its current state as a
    `SnapshotState` (`state`: support, line of sight), and the record it keeps: clock
    steps taken, the distance walked and the snapshots."""

    _step: int
    _walked_m: float
    _snapshots: list[Snapshot]

    @property
    def state(self) -> SnapshotState:  # pragma: no cover - each world defines it
        raise NotImplementedError

    def support_of(self, object_id: str) -> str | None:
        return self.state.support_of(object_id)

    def visible(self, object_id: str, pose: AgentPose | None = None,
                fov_rad: float | None = None, max_range_m: float | None = None) -> bool:
        return self.state.visible(object_id, pose, fov_rad, max_range_m)

    def visible_objects(self, pose: AgentPose | None = None, fov_rad: float | None = None,
                        max_range_m: float | None = None) -> list[str]:
        return self.state.visible_objects(pose, fov_rad, max_range_m)

    @property
    def step(self) -> int:
        """Clock steps taken (recorded) so far."""
        return self._step

    @property
    def path_length_m(self) -> float:
        return self._walked_m

    @property
    def snapshots(self) -> tuple[Snapshot, ...]:
        return tuple(self._snapshots)
