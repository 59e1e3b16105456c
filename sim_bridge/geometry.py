"""Vectorised geometry: quaternions [w, x, y, z], oriented boxes, footprints, 2D frames.

Every function takes arrays of many things at once; none loops over boxes in Python.
Frames: a 2D frame is (origin x, origin y, yaw); frame coordinates are (u, v) with u
along the heading (the front) and v to its left.
See docs/scene-graph.md.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

# The 8 corners of the unit box [-1, 1]^3, bottom four first.
_CORNERS = np.array(
    [
        [-1, -1, -1],
        [1, -1, -1],
        [1, 1, -1],
        [-1, 1, -1],
        [-1, -1, 1],
        [1, -1, 1],
        [1, 1, 1],
        [-1, 1, 1],
    ],
    dtype=np.float64,
)


def quaternions_to_matrices(q: npt.ArrayLike) -> Array:
    """(n, 4) quaternions [w, x, y, z] -> (n, 3, 3) rotation matrices (normalised first)."""
    qa = np.asarray(q, dtype=np.float64).reshape(-1, 4)
    qa = qa / np.linalg.norm(qa, axis=1, keepdims=True)
    w, x, y, z = qa.T
    m = np.empty((len(qa), 3, 3))
    m[:, 0, 0] = 1 - 2 * (y * y + z * z)
    m[:, 0, 1] = 2 * (x * y - w * z)
    m[:, 0, 2] = 2 * (x * z + w * y)
    m[:, 1, 0] = 2 * (x * y + w * z)
    m[:, 1, 1] = 1 - 2 * (x * x + z * z)
    m[:, 1, 2] = 2 * (y * z - w * x)
    m[:, 2, 0] = 2 * (x * z - w * y)
    m[:, 2, 1] = 2 * (y * z + w * x)
    m[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def quaternion_to_matrix(q: Sequence[float]) -> Array:
    return quaternions_to_matrices(q)[0]


def rotation(q: Sequence[float]) -> Array:
    """The rotation matrix of one quaternion [w, x, y, z], read-only: the one
    `quaternions_to_matrices` gives, kept by the quaternion's exact bits (a world's
    objects keep a few orientations, and a checker asks for one at a time)."""
    return _rotation(struct.pack("4d", *q))


@lru_cache(maxsize=1 << 14)
def _rotation(bits: bytes) -> Array:
    m = quaternions_to_matrices(np.frombuffer(bits, dtype=np.float64))[0]
    m.setflags(write=False)
    return m


def matrix_to_quaternion(m: npt.ArrayLike) -> tuple[float, float, float, float]:
    """A rotation matrix -> the unit quaternion [w, x, y, z] with w >= 0."""
    r = np.asarray(m, dtype=np.float64)
    t = np.trace(r)
    if t > 0:
        s = np.sqrt(t + 1.0) * 2
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = np.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        q = [(r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif r[1, 1] > r[2, 2]:
        s = np.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s]
    else:
        s = np.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s]
    qa = np.asarray(q) / np.linalg.norm(q)
    if qa[0] < 0:
        qa = -qa
    return (float(qa[0]), float(qa[1]), float(qa[2]), float(qa[3]))


def yaw_quaternion(yaw_rad: float) -> tuple[float, float, float, float]:
    """The rotation by `yaw_rad` about +Z as [w, x, y, z]."""
    return (float(np.cos(yaw_rad / 2)), 0.0, 0.0, float(np.sin(yaw_rad / 2)))


def yaws(matrices: Array) -> Array:
    """Heading (rad) of each rotation: the angle of its local +x axis projected on XY.

    A box standing on its side has no horizontal +x; then its +y or its +z decides."""
    m = matrices.reshape(-1, 3, 3)
    x = m[:, :2, 0]
    alt = np.where(np.abs(m[:, 2, 1:2]) < 0.9, m[:, :2, 1], m[:, :2, 2])
    alt_yaw = np.arctan2(alt[:, 1], alt[:, 0]) - np.pi / 2
    flat = np.hypot(x[:, 0], x[:, 1]) < 1e-6
    return np.where(flat, alt_yaw, np.arctan2(x[:, 1], x[:, 0]))


def tilts(matrices: Array) -> Array:
    """Angle (rad) between each local +z and world +z."""
    return np.arccos(np.clip(matrices.reshape(-1, 3, 3)[:, 2, 2], -1.0, 1.0))


def box_corners(positions: Array, matrices: Array, sizes: Array) -> Array:
    """(n, 8, 3) world corners of oriented boxes (bottom four first, in local terms)."""
    half = np.asarray(sizes, dtype=np.float64).reshape(-1, 1, 3) / 2
    local = _CORNERS[None, :, :] * half
    return np.einsum("nij,nkj->nki", matrices, local) + np.asarray(positions).reshape(-1, 1, 3)


def wrap_angle(a: npt.ArrayLike) -> Any:
    """Angles wrapped to (-pi, pi]."""
    return -((-np.asarray(a) + np.pi) % (2 * np.pi) - np.pi)


def rect_coords(cx: Array, cy: Array, hx: Array, hy: Array, yaw: Array) -> Array:
    """(n, 4, 2) corners of rectangles centred at (cx, cy), half sizes (hx, hy), heading yaw;
    counter-clockwise from the rear-right corner."""
    c, s = np.cos(yaw), np.sin(yaw)
    lu = np.array([-1.0, 1.0, 1.0, -1.0])
    lv = np.array([-1.0, -1.0, 1.0, 1.0])
    u = lu[None, :] * np.asarray(hx).reshape(-1, 1)
    v = lv[None, :] * np.asarray(hy).reshape(-1, 1)
    c = np.asarray(c).reshape(-1, 1)
    s = np.asarray(s).reshape(-1, 1)
    x = np.asarray(cx).reshape(-1, 1) + c * u - s * v
    y = np.asarray(cy).reshape(-1, 1) + s * u + c * v
    return np.stack([x, y], axis=-1)


def rects(cx: npt.ArrayLike, cy: npt.ArrayLike, hx: npt.ArrayLike, hy: npt.ArrayLike,
          yaw: npt.ArrayLike) -> Any:
    """Shapely polygons of oriented rectangles (an object array)."""
    import shapely

    args = np.broadcast_arrays(*[np.atleast_1d(np.asarray(a, dtype=np.float64))
                                 for a in (cx, cy, hx, hy, yaw)])
    if args[0].size == 0:
        return np.empty(0, dtype=object)
    return shapely.polygons(rect_coords(*args))


def to_frame(xy: npt.ArrayLike, origin: Sequence[float], yaw: float) -> Array:
    """World (x, y) points -> (u, v) in the frame at `origin` with heading `yaw`."""
    p = np.asarray(xy, dtype=np.float64).reshape(-1, 2) - np.asarray(origin[:2])
    c, s = np.cos(yaw), np.sin(yaw)
    return np.stack([c * p[:, 0] + s * p[:, 1], -s * p[:, 0] + c * p[:, 1]], axis=1)


def from_frame(uv: npt.ArrayLike, origin: Sequence[float], yaw: float) -> Array:
    """(u, v) frame points -> world (x, y)."""
    p = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    c, s = np.cos(yaw), np.sin(yaw)
    return np.stack(
        [origin[0] + c * p[:, 0] - s * p[:, 1], origin[1] + s * p[:, 0] + c * p[:, 1]], axis=1
    )


def geometry_to_frame(geom: Any, origin: Sequence[float], yaw: float) -> Any:
    """A shapely geometry moved into a frame (vectorised over its coordinates)."""
    import shapely

    return shapely.transform(geom, lambda xy: to_frame(xy, origin, yaw))


def geometry_from_frame(geom: Any, origin: Sequence[float], yaw: float) -> Any:
    import shapely

    return shapely.transform(geom, lambda uv: from_frame(uv, origin, yaw))


def frame_bounds(geoms: Any, origin: Sequence[float], yaw: float) -> Array:
    """(n, 4) bounds (u0, v0, u1, v1) of geometries expressed in a frame."""
    import shapely

    moved = geometry_to_frame(np.asarray(geoms, dtype=object), origin, yaw)
    return np.asarray(shapely.bounds(moved), dtype=np.float64).reshape(-1, 4)
