"""Live Habitat: `HabitatWorldState`, fdc's `WorldState` over a running habitat-lab
simulator (a `RearrangeSim`), and the recording of its snapshots as an fdc trajectory.

What it reads, all through the simulator's own interfaces:
- object poses and boxes: the rigid and articulated object managers
  (`get_object_by_handle`; `translation`, `rotation`, and `aabb`, the object's box in
  its own frame, as habitat-lab's `sim_utilities.get_bb_for_object_id` reads it);
- the agent: the articulated agent's `base_pos` (on the floor) and `base_rot` (the angle
  about Habitat's up axis, from the agent's forward +x);
- the held object: the grasp manager's `snap_idx` (a rigid object id);
- open and closed parts: an articulated link's joint position against its limits, as
  habitat-lab's `link_is_open` judges it (open from 40 % of the range up);
- walking distances and paths: the navmesh pathfinder (`snap_point`, `find_path` on a
  `habitat_sim.ShortestPath`);
- rooms: the semantic scene's regions (`region.contains(point)`).

What it derives from those readings exactly as a recorded trajectory would (so a live
check and `fdc verify` on the recording agree): the support of an item and line of
sight, by a `SnapshotState` over the current reading.

Frames: Habitat is Y-up (front -Z), fdc Z-up; the importer's conversions are used both
ways. Names: fdc ids of imported scenes are the importer's (`HabitatNames`): an object's
id is its Habitat instance handle (`<template>_:NNNN`, kept in the scene as
`source.handle`), a receptacle surface is `<handle>|<receptacle name>` (`stage|<name>` on
the stage), a room is the region's name.

habitat-sim and habitat-lab are imported by nobody here: the simulator is passed in, and
`habitat_sim.ShortestPath` is imported on the first path query (`fdc[habitat]` extra).
See docs/habitat.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.core.errors import FdcError
from fdc.core.hashing import scene_sha256
from fdc.sim_bridge.geometry import Array, quaternion_to_matrix
from fdc.sim_bridge.graph.scene_graph import ObjectInfo, Point
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.habitat.importer import (
    C,
    yup_to_zup_point,
    yup_to_zup_quaternion,
    zup_to_yup_point,
)
from fdc.sim_bridge.scene.schema import Kind, Scene
from fdc.sim_bridge.world.live_record import LiveRecord
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Clock, ObjectPose, Snapshot, TrajectoryHeader
from fdc.sim_bridge.world.statics import open_keys, scene_statics
from fdc.sim_bridge.world.trajectory import write_trajectory

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: habitat-lab's `link_is_open` default: a link is open from this fraction of its range.
OPEN_THRESHOLD = 0.4
#: The stage's name in receptacle names (`stage|<receptacle>`), as the importer writes it.
STAGE = "stage"


class HabitatStateError(FdcError, LookupError):
    """The simulator and the fdc scene disagree (an object of the scene is not in the
    simulator); the message names both ids."""


# ----- names -------------------------------------------------------------------------
@dataclass(frozen=True)
class HabitatNames:
    """fdc ids and Habitat names of one scene, both ways.

    Built from the scene the importer wrote (`of_scene`): an object's Habitat handle is
    its `source.handle`; a surface the importer made from a receptacle (an explicit
    surface of an imported object, or of the stage) is the receptacle's unique name
    `<handle>|<name>`; a room is the region whose name it keeps (`RoomSpec.name`; the
    k-th region of a repeated name is the k-th room of that name). A name the scene does
    not know maps to itself: the objects an episode adds have no fdc id but their handle.
    """

    handles: Mapping[str, str]  # fdc object id -> Habitat instance handle
    objects: Mapping[str, str]  # Habitat instance handle -> fdc object id
    receptacles: Mapping[str, str]  # fdc surface id -> Habitat receptacle unique name
    surfaces: Mapping[str, str]  # Habitat receptacle unique name -> fdc surface id
    regions: Mapping[str, tuple[str, ...]]  # Habitat region id -> fdc room ids, in order

    @classmethod
    def of_scene(cls, scene: Scene) -> HabitatNames:
        handles: dict[str, str] = {}
        receptacles: dict[str, str] = {}
        for o in scene.objects:
            handle = STAGE if o.kind is Kind.STAGE else o.source.get("handle")
            if handle is None:
                continue
            if o.kind is not Kind.STAGE:
                handles[o.id] = handle
            for s in o.surfaces or []:  # explicit surfaces: the importer's receptacles
                receptacles[f"{o.id}|{s.name}"] = f"{handle}|{s.name}"
        regions: dict[str, list[str]] = {}
        for r in scene.rooms:
            regions.setdefault(r.name or r.id, []).append(r.id)
        return cls(handles=handles, objects={h: i for i, h in handles.items()},
                   receptacles=receptacles, surfaces={h: i for i, h in receptacles.items()},
                   regions={k: tuple(v) for k, v in regions.items()})

    def handle(self, object_id: str) -> str:
        """The Habitat instance handle of an fdc object."""
        return self.handles.get(object_id, object_id)

    def object_id(self, handle: str) -> str:
        """The fdc id of a Habitat instance handle."""
        return self.objects.get(handle, handle)

    def receptacle(self, surface_id: str) -> str:
        """The Habitat receptacle unique name of an fdc surface."""
        return self.receptacles.get(surface_id, surface_id)

    def surface_id(self, receptacle: str) -> str:
        """The fdc surface id of a Habitat receptacle unique name."""
        return self.surfaces.get(receptacle, receptacle)

    def room_id(self, region_id: str, occurrence: int = 0) -> str:
        """The fdc room of a Habitat semantic region (the `occurrence`-th of its name)."""
        rooms = self.regions.get(region_id, ())
        return rooms[occurrence] if occurrence < len(rooms) else region_id


# ----- reading the simulator ---------------------------------------------------------
def _vec(v: Any) -> Array:
    """A magnum Vector3 (or any 3-sequence) as a float array."""
    return np.array([float(v[0]), float(v[1]), float(v[2])], dtype=np.float64)


def object_box(obj: Any) -> ObjectPose:
    """A managed rigid or articulated object's oriented box in fdc's frame: its local box
    (`aabb`, Y-up) placed by `translation` and `rotation`."""
    q = obj.rotation
    wxyz = (float(q.scalar), *(float(c) for c in _vec(q.vector)))
    bb = obj.aabb
    lo, hi = _vec(bb.min), _vec(bb.max)
    centre = _vec(obj.translation) + quaternion_to_matrix(wxyz) @ ((lo + hi) / 2)
    size = np.abs(C) @ (hi - lo)
    # `+ 0.0` turns the conversion's negated zeros into zeros (stable JSON).
    return ObjectPose(position=tuple(float(c) + 0.0 for c in yup_to_zup_point(centre)),
                      orientation=tuple(c + 0.0 for c in yup_to_zup_quaternion(wxyz)),
                      size=tuple(max(float(c), 1e-6) for c in size))


def link_open_states(ao: Any, threshold: float = OPEN_THRESHOLD) -> dict[str, bool]:
    """Open state of each link of an articulated object that has one limited degree of
    freedom (revolute or prismatic): open when its joint position is at least
    `threshold` of the way from the lower limit (closed) to the upper one (open)."""
    positions = list(ao.joint_positions)
    lower, upper = (list(x) for x in ao.joint_position_limits)
    out: dict[str, bool] = {}
    for link in ao.get_link_ids():
        if ao.get_link_num_joint_pos(link) != 1:
            continue
        k = ao.get_link_joint_pos_offset(link)
        lo, hi = float(lower[k]), float(upper[k])
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 1e-9:
            continue
        out[str(ao.get_link_name(link))] = (float(positions[k]) - lo) / (hi - lo) >= threshold
    return out


# ----- the world state ---------------------------------------------------------------
class HabitatWorldState(LiveRecord):
    """A `WorldState` over a running habitat-lab `RearrangeSim` and the fdc scene graph
    of the same scene (imported with `fdc.sim_bridge.habitat.import_habitat`).

    Every query reads the simulator as it is now. `record(action)` appends the current
    state to the trajectory (one clock step per call by default) and `write(path)` saves
    it for `fdc verify`. `agent` / `grasp` default to agent `agent_index`'s articulated
    agent and grasp manager (`sim.get_agent_data(i)`); `shortest_path` makes the path
    query object (default `habitat_sim.ShortestPath`)."""

    def __init__(self, sim: Any, graph: SceneGraph, *, names: HabitatNames | None = None,
                 agent_index: int = 0, agent: Any = None, grasp: Any = None,
                 clock: Clock | None = None, open_threshold: float = OPEN_THRESHOLD,
                 shortest_path: Callable[[], Any] | None = None,
                 source: str = "habitat-lab") -> None:
        self.sim = sim
        self._graph = graph
        self.names = names if names is not None else HabitatNames.of_scene(graph.scene)
        if agent is None or grasp is None:
            data = sim.get_agent_data(agent_index)
            agent = data.articulated_agent if agent is None else agent
            grasp = data.grasp_mgr if grasp is None else grasp
        self.agent = agent
        self.grasp = grasp
        self.clock = clock or Clock()
        self.open_threshold = open_threshold
        self.source = source
        self._shortest_path = shortest_path
        self._step = 0
        self._walked_m = 0.0
        a = self.agent_pose()
        self._last_xy = (a.x, a.y)
        self._snapshots: list[Snapshot] = [self.snapshot(None)]
        self._state: tuple[tuple[Any, ...], SnapshotState] | None = None

    # ----- names and managers ----------------------------------------------------------
    @property
    def graph(self) -> SceneGraph:
        return self._graph

    def _managed(self, object_id: str) -> Any:
        """The simulator's object for an fdc object (None: not in the simulator)."""
        kind = self._graph.object(object_id).kind  # KeyError for an unknown id
        if kind is Kind.STAGE:
            return None
        mgr = (self.sim.get_articulated_object_manager() if kind is Kind.ARTICULATED
               else self.sim.get_rigid_object_manager())
        handle = self.names.handle(object_id)
        if not mgr.get_library_has_handle(handle):
            return None
        return mgr.get_object_by_handle(handle)

    def _require(self, object_id: str) -> Any:
        obj = self._managed(object_id)
        if obj is None:
            raise HabitatStateError(
                f"`{object_id}` (Habitat handle `{self.names.handle(object_id)}`) is not in "
                "the simulator: is the scene graph imported from the scene the simulator "
                "runs?")
        return obj

    # ----- direct readings -------------------------------------------------------------
    def agent_pose(self) -> AgentPose:
        x, y, z = yup_to_zup_point(_vec(self.agent.base_pos))
        return AgentPose(x=float(x), y=float(y), z=float(z),
                         yaw_rad=float(math.remainder(float(self.agent.base_rot), math.tau)))

    def held_object(self) -> str | None:
        idx = self.grasp.snap_idx
        if idx is None:
            return None
        obj = self.sim.get_rigid_object_manager().get_object_by_id(idx)
        if obj is None:
            raise HabitatStateError(f"the grasp manager holds rigid object {idx}, which the "
                                    "simulator does not have")
        return self.names.object_id(str(obj.handle))

    def object_ids(self) -> Sequence[str]:
        return scene_statics(self._graph).tracked

    def object_pose(self, object_id: str) -> ObjectPose:
        st = scene_statics(self._graph)
        if object_id in st.tracked_index:
            return object_box(self._require(object_id))
        obj = self._managed(object_id)
        if obj is not None:
            return object_box(obj)
        o = self._graph.object(object_id)  # the stage: where the scene put it
        return ObjectPose(position=o.spec.pose.position, orientation=o.spec.pose.orientation,
                          size=o.spec.size)

    def link_states(self, object_id: str) -> dict[str, bool]:
        """Open state of each limited one-joint link of an articulated object, by name."""
        if self._graph.object(object_id).kind is not Kind.ARTICULATED:
            return {}
        return link_open_states(self._require(object_id), self.open_threshold)

    def is_open(self, object_id: str) -> bool:
        """A container (`fridge|lower`: its part's link), a part (`fridge_:0000|top_door`:
        that link) or an object (any of its containers, else any of its links). True when
        there is nothing to open."""
        g = self._graph
        keys = open_keys(g, object_id)
        if keys:
            return any(self._container_open(k) for k in keys)
        owner, _, part = object_id.partition("|")
        if part and g.has(owner) and isinstance(g.entity(owner), ObjectInfo):
            links = self.link_states(owner)
            if part in links:
                return links[part]
            if any(p.name == part for p in g.object(owner).spec.parts):
                return True  # a part with no limited joint: nothing to open
        if not g.has(object_id):
            raise KeyError(object_id)
        links = self.link_states(object_id) if isinstance(g.entity(object_id), ObjectInfo) \
            else {}
        return any(links.values()) if links else True

    def _container_open(self, key: str) -> bool:
        st = scene_statics(self._graph)
        owner, part = st.containers[key]
        if part is not None:
            links = self.link_states(owner)
            if part in links:
                return links[part]
        return st.initial_open[key]

    def time_min(self) -> float:
        return self.clock.time_at(self._step)

    # ----- rooms: the semantic regions ------------------------------------------------
    def region_of(self, point: Sequence[float]) -> str | None:
        """The fdc room of an fdc point (x, y, z): the first semantic region containing it
        (None: none does)."""
        p = tuple(float(c) for c in zup_to_yup_point(point))
        seen: dict[str, int] = {}
        for region in self.sim.semantic_scene.regions:
            rid = str(region.id)
            k = seen.get(rid, 0)
            seen[rid] = k + 1
            if region.contains(p):
                return self.names.room_id(rid, k)
        return None

    def room_of(self, what: str | Point) -> str | None:
        g = self._graph
        if not isinstance(what, str):
            z = float(what[2]) if len(what) == 3 else self.agent_pose().z
            return self.region_of((float(what[0]), float(what[1]), z))
        if g.has(what) and not isinstance(g.entity(what), ObjectInfo):
            if isinstance(g.entity(what), Surface):
                return self.room_of(g.surface(what).object_id)
            return what  # a room
        if what == self.held_object():
            a = self.agent_pose()
            return self.region_of((a.x, a.y, a.z + 0.1))
        p = self.object_pose(what)
        found = self.region_of(p.position)
        # Outside every region (an item on a table by the wall): the recorded state's
        # rule, which takes the room of what carries it.
        return found if found is not None else self.state.room_of(what)

    # ----- walking: the navmesh pathfinder --------------------------------------------
    def _nav_point(self, what: str | Point) -> Array:
        """A Habitat point on the navmesh for an fdc point or entity (an item: below its
        centre; a surface: its centre; a room: a point inside its outline), on the
        floor the agent stands on unless a height is given."""
        g = self._graph
        floor = self.agent_pose().z
        if isinstance(what, str):
            if g.has(what) and isinstance(g.entity(what), Surface):
                x, y = self.state.posed.surface(what).origin
            elif g.has(what) and not isinstance(g.entity(what), ObjectInfo):
                room = g.room(what)
                rp = room.polygon.representative_point()
                x, y, floor = rp.x, rp.y, room.floor_z
            elif what == self.held_object():
                a = self.agent_pose()
                x, y = a.x, a.y
            else:
                x, y, _ = self.object_pose(what).position
            point: tuple[float, ...] = (x, y, floor)
        else:
            point = (float(what[0]), float(what[1]),
                     float(what[2]) if len(what) == 3 else floor)
        snapped = _vec(self.sim.pathfinder.snap_point(
            np.asarray(zup_to_yup_point(point), dtype=np.float32)))
        return snapped

    def _path(self, a: str | Point, b: str | Point) -> tuple[float, list[Array]] | None:
        start, end = self._nav_point(a), self._nav_point(b)
        if not (np.all(np.isfinite(start)) and np.all(np.isfinite(end))):
            return None  # off the navmesh
        make = self._shortest_path
        if make is None:
            import habitat_sim  # optional (`fdc[habitat]`): not installed without it

            make = habitat_sim.ShortestPath
        path = make()
        path.requested_start = start.astype(np.float32)
        path.requested_end = end.astype(np.float32)
        if not self.sim.pathfinder.find_path(path):
            return None
        distance = float(path.geodesic_distance)
        if not math.isfinite(distance):
            return None
        return distance, [_vec(p) for p in path.points]

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        """Walking distance (metres) on the navmesh between points or entities (inf:
        unreachable, or off the navmesh)."""
        found = self._path(a, b)
        return math.inf if found is None else found[0]

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        return self.geodesic_distance(a, b) <= limit_m

    def shortest_path(self, a: str | Point, b: str | Point
                      ) -> list[tuple[float, float]] | None:
        """The navmesh's shortest path as fdc (x, y) points (None: unreachable)."""
        found = self._path(a, b)
        if found is None:
            return None
        return [(float(p[0]), float(p[1])) for p in (yup_to_zup_point(q) for q in found[1])]

    # ----- what the recorded state derives ---------------------------------------------
    @property
    def state(self) -> SnapshotState:
        """The current reading as a `SnapshotState` (kept while the reading is unchanged):
        what support and line of sight are judged on."""
        snap = self.snapshot(None)
        key = (snap.agent, snap.held, snap.objects, snap.open)
        if self._state is None or self._state[0] != key:
            self._state = (key, SnapshotState(self._graph, snap))
        return self._state[1]

    # ----- recording -------------------------------------------------------------------
    def update(self) -> float:
        """Add the distance the base moved (on the floor) since the last update; call it
        after every simulator step when recording less often. Returns the total walked."""
        a = self.agent_pose()
        self._walked_m += math.hypot(a.x - self._last_xy[0], a.y - self._last_xy[1])
        self._last_xy = (a.x, a.y)
        return self._walked_m

    def snapshot(self, action: str | None = None) -> Snapshot:
        """The simulator now, as one trajectory line (at the current clock step)."""
        objects = {i: self.object_pose(i) for i in scene_statics(self._graph).tracked}
        open_state: dict[str, bool] = {}
        for key, (owner, part) in scene_statics(self._graph).containers.items():
            if part is not None and part in self.link_states(owner):
                open_state[key] = self._container_open(key)
        return Snapshot(step=self._step, time_min=self.time_min(), action=action,
                        agent=self.agent_pose(), held=self.held_object(), objects=objects,
                        open=open_state, path_length_m=self._walked_m)

    def record(self, action: str, steps: int = 1) -> Snapshot:
        """Advance the clock by `steps` and append the current state, reached by `action`
        (`stop` when the agent declares arrival: `fdc verify` judges goals there)."""
        if steps < 1:
            raise ValueError(f"a recorded action takes at least one clock step, not {steps}")
        self.update()
        self._step += steps
        snap = self.snapshot(action)
        self._snapshots.append(snap)
        return snap

    def header(self, scene: str | None = None) -> TrajectoryHeader:
        return TrajectoryHeader(scene=scene or self._graph.scene.name,
                                scene_sha256=scene_sha256(self._graph.scene), source=self.source,
                                clock=self.clock)

    def write(self, path: str | Path, scene: str | None = None) -> None:
        """Write the trajectory so far (`scene`: the scene file's name, relative to the
        trajectory or the working folder, for `fdc verify`)."""
        write_trajectory(path, self.header(scene), self._snapshots)


__all__ = ["OPEN_THRESHOLD", "HabitatNames", "HabitatStateError", "HabitatWorldState",
           "link_open_states", "object_box"]
