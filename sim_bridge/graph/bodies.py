"""The objects of a scene as arrays: poses, boxes, footprints, heights (one pass, no loops
over boxes in Python). See docs/scene-graph.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fdc.sim_bridge.geometry import Array, box_corners, quaternions_to_matrices, tilts, yaws
from fdc.sim_bridge.scene.schema import Kind, Scene


@dataclass(frozen=True, eq=False)
class Bodies:
    """Column arrays over `scene.objects` (same order)."""

    ids: list[str]
    positions: Array  # (n, 3)
    matrices: Array  # (n, 3, 3)
    sizes: Array  # (n, 3)
    yaws: Array  # (n,) heading of local +x
    tilts: Array  # (n,) angle of local +z from world +z
    bottoms: Array  # (n,) lowest corner z
    tops: Array  # (n,) highest corner z
    footprints: Any  # (n,) shapely polygons: convex hull of the projected box
    declared_kinds: list[Kind | None]

    @property
    def count(self) -> int:
        return len(self.ids)

    def index(self) -> dict[str, int]:
        return {ident: i for i, ident in enumerate(self.ids)}


def compute_bodies(scene: Scene) -> Bodies:
    import shapely

    objs = scene.objects
    n = len(objs)
    if n == 0:
        empty = np.zeros((0,))
        return Bodies([], np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)), empty, empty,
                      empty, empty, np.empty((0,), dtype=object), [])
    pos = np.array([o.pose.position for o in objs], dtype=np.float64)
    quat = np.array([o.pose.orientation for o in objs], dtype=np.float64)
    size = np.array([o.size for o in objs], dtype=np.float64)
    mats = quaternions_to_matrices(quat)
    corners = box_corners(pos, mats, size)
    hulls = shapely.convex_hull(shapely.multipoints(corners[:, :, :2]))
    return Bodies(
        ids=[o.id for o in objs],
        positions=pos,
        matrices=mats,
        sizes=size,
        yaws=yaws(mats),
        tilts=tilts(mats),
        bottoms=corners[:, :, 2].min(axis=1),
        tops=corners[:, :, 2].max(axis=1),
        footprints=hulls,
        declared_kinds=[o.kind for o in objs],
    )
