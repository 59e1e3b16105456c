"""Where the robot stands to look at a surface: `view_at`, for `fdc render view` (and the
image observations of the agent environment): the surface's standing point (of a side,
when asked), facing it, the camera tilted to the surface's centre. See docs/rendering.md."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fdc.core.errors import InputError
from fdc.sim_bridge.render.camera import Camera
from fdc.sim_bridge.world.state import AgentPose

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: The tilt `view_at` chooses stays within these (degrees): never straight down.
TILT_RANGE_DEG = (-70.0, 10.0)


class ViewError(InputError):
    """No view of what was asked: an unknown surface or side (exit 2)."""


def view_at(graph: SceneGraph, surface: str, side: str | None = None,
            camera: Camera | None = None, tilt: bool = True) -> tuple[AgentPose, Camera]:
    """The robot's pose at `surface` (a surface id, or an object id: its first surface)
    and the camera tilted to look at the surface's centre (unless `tilt` is False)."""
    from fdc.sim_bridge.graph.surfaces import Surface

    cam = camera or Camera()
    ident = surface
    if not graph.has(ident):
        known = sorted(s.id for s in graph.surfaces())
        near = [s for s in known if surface in s][:5]
        raise ViewError(f"no surface or object `{surface}` in the scene"
                        + (f" (did you mean {', '.join(near)}?)" if near else ""))
    entity = graph.entity(ident)
    if not isinstance(entity, Surface) and not graph.surfaces(ident):
        raise ViewError(f"`{surface}` has no surface to stand at")
    every = graph.standing_points(ident)
    points = [p for p in every if side is None or p.side.value == side]
    z0 = float(graph.scene.agent.position[2])
    if points:
        points.sort(key=lambda p: (not p.reachable, p.side.value, p.id))
        p = points[0]
        if not isinstance(entity, Surface):
            entity = graph.surface(p.surface_id)
        pose = AgentPose(x=p.position[0], y=p.position[1], z=z0, yaw_rad=p.yaw_rad)
    elif every:
        sides = sorted({p.side.value for p in every})
        raise ViewError(f"`{surface}` has no standing point at its {side} side (it has: "
                        f"{', '.join(sides)})")
    else:  # no standing point (a fridge): in front of its object, facing it
        if not isinstance(entity, Surface):
            entity = sorted(graph.surfaces(ident), key=lambda s: s.id)[0]
        pose = _in_front(graph, entity.object_id, side or "front", z0)
    if tilt:  # at the surface's centre; at an object's centre when an object was named
        (ox, oy), oz = entity.origin, entity.z
        if not isinstance(graph.entity(ident), Surface):
            ox, oy, oz = graph.object(ident).position
        d = max(math.hypot(ox - pose.x, oy - pose.y), 0.1)
        angle = math.degrees(math.atan2(oz - (z0 + cam.height_m), d))
        lo, hi = TILT_RANGE_DEG
        cam = cam.model_copy(update={"tilt_deg": round(min(max(angle, lo), hi), 3)})
    return pose, cam


#: How far in front of an object without standing points the robot stands (metres from
#: its side).
STAND_OFF_M = 0.9


def _in_front(graph: SceneGraph, object_id: str, side: str, z0: float) -> AgentPose:
    o = graph.object(object_id)
    axis = {"front": (1, 0), "rear": (-1, 0), "left": (0, 1), "right": (0, -1)}[side]
    half = o.size[0] / 2 if axis[0] else o.size[1] / 2
    c, s = math.cos(o.yaw_rad), math.sin(o.yaw_rad)
    dx, dy = c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]
    x = o.position[0] + dx * (half + STAND_OFF_M)
    y = o.position[1] + dy * (half + STAND_OFF_M)
    return AgentPose(x=x, y=y, z=z0, yaw_rad=math.atan2(-dy, -dx))
