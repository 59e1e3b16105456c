"""Line of sight in the top-down world: which objects an eye at a pose can see.

A sight line from the eye to an object's centre is blocked by a wall, or by an object
(other than the target and the furniture carrying it) whose top is above the line where
the line passes over it. Closed containers hide what they hold. Vectorised: all sight
lines are tested against an STRtree of occluders in one query.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .scene import Kind

if TYPE_CHECKING:
    from .graph import Point, SceneGraph


def _eye(g: SceneGraph, position: Point, eye_z: float | None) -> tuple[float, float, float]:
    if eye_z is None:
        eye_z = (position[2] if len(position) == 3 else 0.0) + g.scene.agent.eye_height_m  # type: ignore[misc]
    return float(position[0]), float(position[1]), float(eye_z)


def _hidden_in_closed(g: SceneGraph, ident: str) -> bool:
    p = g.object(ident).parent_surface
    for _ in range(64):
        if p is None:
            return False
        s = g.surface(p)
        if s.container is not None and not s.is_open:
            return True
        p = g.object(s.object_id).parent_surface
    return False


def _visible_mask(g: SceneGraph, eye: tuple[float, float, float], targets: list[str]
                  ) -> np.ndarray:
    import shapely

    if not targets:
        return np.zeros(0, dtype=bool)
    objs = [g.object(t) for t in targets]
    tx = np.array([o.position[0] for o in objs])
    ty = np.array([o.position[1] for o in objs])
    tz = np.array([(o.bottom_z + o.top_z) / 2 for o in objs])
    lines = shapely.linestrings(
        np.stack([np.stack([np.full(len(objs), eye[0]), np.full(len(objs), eye[1])], axis=1),
                  np.stack([tx, ty], axis=1)], axis=1))
    ids = g.bodies.ids
    occ = g.bodies.footprints
    tree = shapely.STRtree(occ)
    li, oi = tree.query(lines, predicate="intersects")
    blocked = np.zeros(len(objs), dtype=bool)
    if len(li):
        # Height of the sight line where it passes nearest the occluder's centre.
        c = shapely.get_coordinates(shapely.centroid(occ[oi]))
        dx, dy = tx[li] - eye[0], ty[li] - eye[1]
        denom = np.maximum(dx * dx + dy * dy, 1e-12)
        s = np.clip(((c[:, 0] - eye[0]) * dx + (c[:, 1] - eye[1]) * dy) / denom, 0, 1)
        h = eye[2] + s * (tz[li] - eye[2])
        tops = g.bodies.tops[oi]
        carriers = [_carrier_chain(g, targets[k]) for k in range(len(targets))]
        for a, b, top, hh in zip(li.tolist(), oi.tolist(), tops.tolist(), h.tolist(),
                                 strict=True):
            if blocked[a] or ids[b] == targets[a] or ids[b] in carriers[a]:
                continue
            o = g.object(ids[b])
            if o.kind is Kind.STAGE and o.spec.obstacle is False:
                continue
            if top > hh:
                blocked[a] = True
    walls = g.layout.walls
    if not walls.is_empty:
        blocked |= shapely.intersects(lines, walls)
    hidden = np.array([_hidden_in_closed(g, t) for t in targets], dtype=bool)
    return ~blocked & ~hidden


def _carrier_chain(g: SceneGraph, ident: str) -> set[str]:
    out: set[str] = set()
    c = g.carrier(ident)
    while c is not None and c.id not in out:
        out.add(c.id)
        c = g.carrier(c.id)
    return out


def line_of_sight(g: SceneGraph, position: Point, target: str, eye_z: float | None = None
                  ) -> bool:
    """Whether an eye at `position` sees the centre of object `target`."""
    return bool(_visible_mask(g, _eye(g, position, eye_z), [target])[0])


def visible_objects(g: SceneGraph, position: Point, yaw_rad: float, fov_rad: float,
                    max_range_m: float, eye_z: float | None = None) -> list[str]:
    """Ids of objects within range and field of view with a clear line of sight."""
    eye = _eye(g, position, eye_z)
    p = g.bodies.positions
    if len(p) == 0:
        return []
    d = np.hypot(p[:, 0] - eye[0], p[:, 1] - eye[1])
    ang = np.arctan2(p[:, 1] - eye[1], p[:, 0] - eye[0]) - yaw_rad
    ang = (ang + math.pi) % (2 * math.pi) - math.pi
    shell = np.array([o.kind is Kind.STAGE and o.obstacle is False for o in g.scene.objects])
    cand = np.nonzero((d <= max_range_m) & (np.abs(ang) <= fov_rad / 2) & ~shell)[0]
    ids = [g.bodies.ids[i] for i in cand]
    mask = _visible_mask(g, eye, ids)
    return sorted(i for i, m in zip(ids, mask, strict=True) if m)
