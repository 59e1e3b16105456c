"""Rooms, walls and doors: the floor plan, and which room a point is in. See docs/scene-graph.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.geometry import Array, rects
from fdc.sim_bridge.scene.schema import Scene, WallMode


@dataclass(frozen=True, eq=False)
class Layout:
    room_ids: list[str]
    room_polygons: Any  # (r,) shapely polygons
    floor_z: Array  # (r,)
    ceiling_z: Array  # (r,)
    floor: Any  # union of the rooms (None when the scene has no rooms)
    walls: Any  # wall geometry (may be empty)
    wall_pieces: Any  # (w,) the walls as small pieces (one per room edge, split at doors)
    doors: Any  # (d,) door opening rectangles
    _tree: Any

    def rooms_at(self, xy: npt.ArrayLike, z: npt.ArrayLike | None = None) -> Array:
        """Index of the room containing each point (the first by id order), or -1.
        With `z`, the point must also lie in the room's height band (5 cm below the
        floor allowed)."""
        import shapely

        pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        out = np.full(len(pts), -1, dtype=np.int64)
        if not self.room_ids or len(pts) == 0:
            return out
        pi, ri = self._tree.query(shapely.points(pts), predicate="intersects")
        if z is not None:
            zz = np.broadcast_to(np.asarray(z, dtype=np.float64), (len(pts),))
            ok = (zz[pi] >= self.floor_z[ri] - 0.05) & (zz[pi] <= self.ceiling_z[ri])
            pi, ri = pi[ok], ri[ok]
        order = np.lexsort((ri, pi))
        pi, ri = pi[order], ri[order]
        first = np.r_[True, pi[1:] != pi[:-1]] if len(pi) else np.zeros(0, dtype=bool)
        out[pi[first]] = ri[first]
        return out

    def floor_levels(self, xy: npt.ArrayLike) -> Array:
        """Floor height under each point: its room's, else the lowest floor, else 0."""
        idx = self.rooms_at(xy)
        default = float(self.floor_z.min()) if len(self.floor_z) else 0.0
        return np.where(idx >= 0, self.floor_z[np.maximum(idx, 0)] if len(self.floor_z)
                        else default, default)


def build_layout(scene: Scene) -> Layout:
    import shapely

    rooms = sorted(scene.rooms, key=lambda r: r.id)
    polys = np.array([shapely.make_valid(shapely.Polygon(r.polygon)) for r in rooms],
                     dtype=object)
    floor = shapely.union_all(polys) if len(polys) else None
    t = scene.wall_thickness_m
    door_polys = _door_rects(rooms, list(scene.doors), t)
    if scene.walls is WallMode.FROM_ROOMS and len(polys):
        pieces = _wall_pieces(rooms, t, door_polys)
        walls = shapely.union_all(pieces)
    else:
        pieces = np.empty(0, dtype=object)
        walls = shapely.GeometryCollection()
    return Layout(
        room_ids=[r.id for r in rooms],
        room_polygons=polys,
        floor_z=np.array([r.floor_z for r in rooms], dtype=np.float64),
        ceiling_z=np.array([r.floor_z + r.height_m for r in rooms], dtype=np.float64),
        floor=floor,
        walls=walls,
        wall_pieces=pieces,
        doors=door_polys,
        _tree=shapely.STRtree(polys),
    )


def _wall_pieces(rooms: list[Any], t: float, doors: Any) -> Any:
    """One rectangle per room edge, `t` thick and centred on it, with door openings cut
    out. Small pieces keep spatial indexes and distance queries local."""
    import shapely

    a_list, b_list = [], []
    for r in rooms:
        pts = np.asarray(r.polygon, dtype=np.float64)
        a_list.append(pts)
        b_list.append(np.roll(pts, -1, axis=0))
    a = np.concatenate(a_list)
    b = np.concatenate(b_list)
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-9
    a, b, d, length = a[keep], b[keep], d[keep], length[keep]
    mid = (a + b) / 2
    # Extend each piece by half the thickness so corners close.
    pieces = rects(mid[:, 0], mid[:, 1], length / 2 + t / 2, np.full(len(mid), t / 2),
                   np.arctan2(d[:, 1], d[:, 0]))
    if len(doors):
        tree = shapely.STRtree(doors)
        pi, di = tree.query(pieces, predicate="intersects")
        for i in np.unique(pi):
            cut = shapely.difference(pieces[i], shapely.union_all(doors[di[pi == i]]))
            pieces[i] = cut
    parts = shapely.get_parts(pieces)
    return np.array([p for p in parts if p.area > 1e-9], dtype=object)


def _door_rects(rooms: list[Any], doors: list[Any], t: float) -> Any:
    """Each opening: `width` along the nearest room edge, through the wall's thickness."""
    import shapely

    if not doors or not rooms:
        return np.empty(0, dtype=object)
    a = np.concatenate([np.asarray(r.polygon, dtype=np.float64) for r in rooms])
    b = np.concatenate([np.roll(np.asarray(r.polygon, dtype=np.float64), -1, axis=0)
                        for r in rooms])
    ab = b - a
    denom = np.maximum((ab * ab).sum(axis=1), 1e-12)
    p = np.array([d.position for d in doors], dtype=np.float64)  # (D, 2)
    rel = p[:, None, :] - a[None, :, :]
    s = np.clip((rel * ab[None]).sum(axis=2) / denom[None], 0, 1)
    closest = a[None] + s[..., None] * ab[None]
    dist = np.hypot(*(closest - p[:, None, :]).transpose(2, 0, 1))
    k = np.argmin(dist, axis=1)
    angle = np.arctan2(ab[k, 1], ab[k, 0])
    widths = np.array([d.width_m for d in doors])
    return shapely.normalize(rects(p[:, 0], p[:, 1], widths / 2, np.full(len(doors), t + 0.05),
                                   angle))
