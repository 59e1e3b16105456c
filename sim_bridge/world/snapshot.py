"""`SnapshotState`: a `WorldState` over one recorded `Snapshot` and the static scene
graph. It answers the fluent questions with the objects where the snapshot says they
are now, through the `PosedGraph` of that snapshot. See docs/world.md."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from fdc.sim_bridge.graph.frustum import DEFAULT_FRUSTUM, large_enough
from fdc.sim_bridge.graph.occluders import scene_occluders
from fdc.sim_bridge.graph.scene_graph import ObjectInfo, Point
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.graph.visibility import (
    doors_seen,
    eye_point,
    held_hands,
    sight_lines,
    visible_objects,
)
from fdc.sim_bridge.world.posed import PosedGraph
from fdc.sim_bridge.world.shared import active_share
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot
from fdc.sim_bridge.world.statics import open_keys, scene_statics

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: Horizontal field of view and range of `visible` when the caller gives none: the
#: camera's (`fdc.sim_bridge.graph.frustum`, whose tilt and vertical field of view
#: `visible` also applies).
DEFAULT_FOV_RAD = DEFAULT_FRUSTUM.hfov_rad
DEFAULT_VIEW_RANGE_M = 6.0


def _tilt(pose: AgentPose) -> float:
    """A pose's head tilt, NaN for the camera's default (`in_frustum`'s convention)."""
    return math.nan if pose.head_tilt_deg is None else pose.head_tilt_deg


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
            share = active_share()  # a caller's share of posed graphs (`world.shared`)
            self._posed = share.posed(self._graph, s) if share is not None else \
                PosedGraph(self._graph, s.objects, s.held, s.open, s.agent)
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

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        return self._graph.geodesic_within(self._target(a), self._target(b), limit_m)

    def _target(self, what: str | Point) -> str | Point:
        if isinstance(what, str) and what in scene_statics(self._graph).tracked_index:
            return self.posed.nav_target(what)
        if isinstance(what, str) and self._graph.has(what) and \
                isinstance(self._graph.entity(what), Surface):
            return self.posed.nav_target(what)
        return what

    def visible(self, object_id: str, pose: AgentPose | None = None,
                fov_rad: float | None = None, max_range_m: float | None = None) -> bool:
        pose = pose or self.snapshot.agent
        return self.visible_many([object_id], [pose], fov_rad, max_range_m)[0]

    def visible_many(self, object_ids: Sequence[str], poses: Sequence[AgentPose],
                     fov_rad: float | None = None, max_range_m: float | None = None
                     ) -> list[bool]:
        """`visible` for each object from the pose beside it: the held item always;
        else within range, in the camera's frustum (`in_frustum`), large enough to be
        seen (`large_enough`), with a clear line of sight (the lines tested in one pass;
        the held item, in the hand, in the way)."""
        frustum = DEFAULT_FRUSTUM.with_hfov_rad(fov_rad)
        rng = DEFAULT_VIEW_RANGE_M if max_range_m is None else max_range_m
        out = [False] * len(object_ids)
        near: list[int] = []
        for j, (object_id, pose) in enumerate(zip(object_ids, poses, strict=True)):
            if object_id == self.snapshot.held:
                out[j] = True
                continue
            o = self.posed.object(object_id)
            if math.hypot(o.position[0] - pose.x, o.position[1] - pose.y) <= rng:
                near.append(j)
        lines: list[int] = []
        if near:
            bodies = self.posed.bodies
            row = {ident: k for k, ident in enumerate(bodies.ids)}
            at = np.array([row[object_ids[j]] for j in near])
            eyes = np.array([eye_point(self.posed, (poses[j].x, poses[j].y, poses[j].z), None)
                             for j in near], dtype=np.float64)
            framed = large_enough(frustum, eyes, [poses[j].yaw_rad for j in near],
                                  bodies.positions[at], bodies.matrices[at], bodies.sizes[at],
                                  [_tilt(poses[j]) for j in near])
            lines = [j for j, ok in zip(near, framed.tolist(), strict=True) if ok]
        if lines:
            eyes = np.array([eye_point(self.posed, (poses[j].x, poses[j].y, poses[j].z), None)
                             for j in lines], dtype=np.float64)
            hands = held_hands(self.posed, self.snapshot.held, [poses[j].x for j in lines],
                               [poses[j].y for j in lines], [poses[j].z for j in lines],
                               [poses[j].yaw_rad for j in lines])
            seen = sight_lines(self.posed, eyes, [object_ids[j] for j in lines], hands)
            for j, ok in zip(lines, seen.tolist(), strict=True):
                out[j] = bool(ok)
        # An open door is part of its object: seen when the door is (even with the box
        # out of view or hidden).
        rest = [j for j in near if not out[j]]
        if rest and len(scene_occluders(self.posed).door_owners):
            eyes = np.array([eye_point(self.posed, (poses[j].x, poses[j].y, poses[j].z), None)
                             for j in rest], dtype=np.float64)
            hands = held_hands(self.posed, self.snapshot.held, [poses[j].x for j in rest],
                               [poses[j].y for j in rest], [poses[j].z for j in rest],
                               [poses[j].yaw_rad for j in rest])
            seen = doors_seen(self.posed, eyes, np.array([poses[j].yaw_rad for j in rest]),
                              np.array([_tilt(poses[j]) for j in rest]),
                              [object_ids[j] for j in rest], frustum, hands)
            for j, ok in zip(rest, seen.tolist(), strict=True):
                out[j] = bool(ok)
        return out

    def visible_objects(self, pose: AgentPose | None = None, fov_rad: float | None = None,
                        max_range_m: float | None = None) -> list[str]:
        """Ids of every object in view (one vectorised pass), sorted."""
        pose = pose or self.snapshot.agent
        out = visible_objects(
            self.posed, (pose.x, pose.y, pose.z), pose.yaw_rad,
            fov_rad, DEFAULT_VIEW_RANGE_M if max_range_m is None else max_range_m,
            tilt_deg=pose.head_tilt_deg, held=self.snapshot.held)
        held = self.snapshot.held
        return sorted({*out, held}) if held is not None else out
