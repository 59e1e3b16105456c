"""The robot's head camera: intrinsics, where it sits on the robot, and its matrices.

Defaults follow FindingDory's robot, Hello Robot's Stretch: 640x480 frames with a 43
degree horizontal field of view (FindingDory's head camera; 32.9 degrees vertically),
mounted 1.25 m above the floor (fdc's agent eye height, the height the geometric line of
sight uses) and tilted 20 degrees down so that table tops and what stands on them are in
view from about 0.7 m on. Image size, field of view and tilt come from
`fdc.sim_bridge.graph.frustum`, the frustum the geometric line of sight judges "in view"
with: the renderer and the experiences' `visible_objects` are one camera. Every value can
be overridden.

Conventions: the world is Z-up (metres); the robot's yaw is counter-clockwise from +x;
`tilt_deg` is the pitch of the optical axis (negative: looking down). Depth is linear:
the distance along the optical axis, in metres.
See docs/rendering.md.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from fdc.core.models import FrozenRecord
from fdc.sim_bridge.graph.frustum import HFOV_DEG, IMAGE_HEIGHT, IMAGE_WIDTH, TILT_DEG, Frustum
from fdc.sim_bridge.world.state import AgentPose

#: Near and far clipping planes (metres): nothing nearer or farther is drawn.
NEAR_M = 0.05
FAR_M = 50.0


class Camera(FrozenRecord):
    """A pinhole camera on the robot's head (square pixels)."""

    width: int = Field(default=IMAGE_WIDTH, ge=8, le=4096, description="Image width, pixels.")
    height: int = Field(default=IMAGE_HEIGHT, ge=8, le=4096,
                        description="Image height, pixels.")
    hfov_deg: float = Field(default=HFOV_DEG, gt=1, lt=179,
                            description="Horizontal field of view.")
    height_m: float = Field(default=1.25, gt=0, le=5,
                            description="Height of the optical centre above the floor.")
    tilt_deg: float = Field(default=TILT_DEG, ge=-89, le=89,
                            description="Pitch of the optical axis (negative: down).")

    @property
    def frustum(self) -> Frustum:
        """This camera's frustum, as the geometric line of sight uses it."""
        return Frustum(hfov_deg=self.hfov_deg, width=self.width, height=self.height,
                       tilt_deg=self.tilt_deg)

    @property
    def vfov_deg(self) -> float:
        return self.frustum.vfov_deg

    def eye(self, pose: AgentPose) -> np.ndarray:
        return np.array([pose.x, pose.y, pose.z + self.height_m], dtype=np.float64)

    def axes(self, pose: AgentPose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The camera's forward, right and up unit vectors in the world (tilted by the
        pose's `head_tilt_deg` when it has one, else by `tilt_deg`)."""
        yaw = pose.yaw_rad
        tilt = math.radians(self.tilt_deg if pose.head_tilt_deg is None else pose.head_tilt_deg)
        forward = np.array([math.cos(yaw) * math.cos(tilt), math.sin(yaw) * math.cos(tilt),
                            math.sin(tilt)])
        right = np.array([math.sin(yaw), -math.cos(yaw), 0.0])
        up = np.cross(right, forward)
        return forward, right, up

    def view_matrix(self, pose: AgentPose) -> np.ndarray:
        """World to camera (OpenGL: the camera looks down its -z), 4x4."""
        f, r, u = self.axes(pose)
        e = self.eye(pose)
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = r, u, -f
        m[:3, 3] = -m[:3, :3] @ e
        return m

    def projection_matrix(self) -> np.ndarray:
        """Camera to clip space, 4x4 (OpenGL's perspective)."""
        sx = 1.0 / math.tan(math.radians(self.hfov_deg) / 2)
        sy = sx * self.width / self.height
        n, f = NEAR_M, FAR_M
        m = np.zeros((4, 4))
        m[0, 0], m[1, 1] = sx, sy
        m[2, 2], m[2, 3] = -(f + n) / (f - n), -2 * f * n / (f - n)
        m[3, 2] = -1.0
        return m

    def pixel(self, pose: AgentPose, point: tuple[float, float, float]
              ) -> tuple[float, float, float] | None:
        """Where a world point lands: (column, row, depth in metres), rows from the top;
        None when it is behind the camera."""
        p = self.view_matrix(pose) @ np.array([*point, 1.0])
        depth = -p[2]
        if depth <= 0:
            return None
        c = self.projection_matrix() @ p
        x, y = c[0] / c[3], c[1] / c[3]
        return ((x + 1) / 2 * self.width, (1 - y) / 2 * self.height, float(depth))


def parse_size(text: str) -> tuple[int, int]:
    """`640x480` -> (640, 480); ValueError with what was expected."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"`{text}` is not a size: expected WIDTHxHEIGHT, e.g. 640x480")
    w, h = int(parts[0]), int(parts[1])
    if not (8 <= w <= 4096 and 8 <= h <= 4096):
        raise ValueError(f"`{text}`: width and height must be between 8 and 4096 pixels")
    return w, h
