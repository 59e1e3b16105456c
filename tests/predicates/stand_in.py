"""A test stand-in for `WorldState`: explicit poses over a scene graph, nothing simulated.

Poses start as the scene graph's; tests move things with `moved`, `holding`, `at`. The
support of a moved item is what the test says it is (as a simulator would report it).
Visibility is the graph's line of sight from the agent's current pose (static occluders),
or an explicit set when a test wants to decide it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from fdc.sim_bridge.geometry import wrap_angle, yaw_quaternion
from fdc.sim_bridge.graph.scene_graph import Point, SceneGraph
from fdc.sim_bridge.world.state import AgentPose, ObjectPose


@dataclass(frozen=True)
class StandInState:
    graph: SceneGraph
    agent: AgentPose
    poses: dict[str, ObjectPose]
    supports: dict[str, str | None]
    held: str | None = None
    opened: dict[str, bool] = field(default_factory=dict)
    clock_min: float = 600.0
    visible_ids: frozenset[str] | None = None

    @classmethod
    def of(cls, g: SceneGraph, x: float, y: float, yaw_deg: float = 0.0) -> StandInState:
        poses, supports = {}, {}
        for o in g.objects():
            if o.kind.value in ("movable", "articulated"):
                poses[o.id] = ObjectPose(
                    position=o.position, orientation=yaw_quaternion(o.yaw_rad), size=o.size
                )
                supports[o.id] = o.parent_surface
        opened = {s.id: s.is_open for s in g.surfaces() if s.container is not None}
        return cls(
            g, AgentPose(x=x, y=y, yaw_rad=math.radians(yaw_deg)), poses, supports, opened=opened
        )

    # ----- test edits -----------------------------------------------------------------
    def at(self, x: float, y: float, yaw_deg: float = 0.0) -> StandInState:
        return dataclasses.replace(self, agent=AgentPose(x=x, y=y, yaw_rad=math.radians(yaw_deg)))

    def moved(
        self, ident: str, xyz: Sequence[float], surface: str | None, yaw_deg: float | None = None
    ) -> StandInState:
        old = self.poses[ident]
        q = old.orientation if yaw_deg is None else yaw_quaternion(math.radians(yaw_deg))
        poses = {**self.poses, ident: ObjectPose(position=tuple(xyz), orientation=q, size=old.size)}
        return dataclasses.replace(self, poses=poses, supports={**self.supports, ident: surface})

    def holding(self, ident: str | None) -> StandInState:
        supports = dict(self.supports)
        if ident is not None:
            supports[ident] = None
        return dataclasses.replace(self, held=ident, supports=supports)

    def seeing(self, ids: Sequence[str] | None) -> StandInState:
        return dataclasses.replace(self, visible_ids=None if ids is None else frozenset(ids))

    def with_open(self, ident: str, value: bool) -> StandInState:
        return dataclasses.replace(self, opened={**self.opened, ident: value})

    # ----- WorldState -----------------------------------------------------------------
    def agent_pose(self) -> AgentPose:
        return self.agent

    def held_object(self) -> str | None:
        return self.held

    def object_ids(self) -> Sequence[str]:
        return sorted(self.poses)

    def object_pose(self, object_id: str) -> ObjectPose:
        return self.poses[object_id]

    def is_open(self, object_id: str) -> bool:
        return self.opened.get(object_id, True)

    def time_min(self) -> float:
        return self.clock_min

    def support_of(self, object_id: str) -> str | None:
        return self.supports.get(object_id)

    def room_of(self, what: str | Point) -> str | None:
        if isinstance(what, str):
            p = self.poses[what].position
            what = (p[0], p[1], p[2])
        r = self.graph.room_of(what)
        return None if r is None else r.id

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        return self.graph.geodesic_distance(a, b)

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        return self.graph.geodesic_within(a, b, limit_m)

    def visible(
        self,
        object_id: str,
        pose: AgentPose | None = None,
        fov_rad: float | None = None,
        max_range_m: float | None = None,
    ) -> bool:
        if self.visible_ids is not None:
            return object_id in self.visible_ids
        p = pose or self.agent
        target = (
            self.poses[object_id].position
            if object_id in self.poses
            else self.graph.object(object_id).position
        )
        d = math.hypot(target[0] - p.x, target[1] - p.y)
        ang = abs(float(wrap_angle(math.atan2(target[1] - p.y, target[0] - p.x) - p.yaw_rad)))
        if max_range_m is not None and d > max_range_m:
            return False
        if fov_rad is not None and ang > fov_rad / 2:
            return False
        return self.graph.line_of_sight((p.x, p.y), object_id)

    def visible_many(
        self,
        object_ids: Sequence[str],
        poses: Sequence[AgentPose],
        fov_rad: float | None = None,
        max_range_m: float | None = None,
    ) -> list[bool]:
        return [self.visible(x, p, fov_rad, max_range_m)
                for x, p in zip(object_ids, poses, strict=True)]
