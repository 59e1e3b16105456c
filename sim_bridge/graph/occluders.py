"""What hides things from the camera besides the objects' boxes and the walls: the same
pieces the renderer draws (`fdc.sim_bridge.render.build`), as footprints with a height
range, for the geometric line of sight (`fdc.sim_bridge.graph.visibility`).

- **Shell panels.** Furniture with containers, or with shelves below its top (a
  bookcase), is drawn as a shell open at the front (+x): its two sides and its back are
  panels (`SHELL_PANEL_M` thick). Its box does not hide what it carries (the sight line
  exempts a target's carriers), its panels do: an item on a bookcase's shelf is not seen
  through the bookcase's side.
- **Doors.** A part that closes a container is a slab; when the container is open it is
  swung (or slid) to its open joint value (`part_motion`: the rule the renderer draws it
  by), and hides what is behind it, even what is inside its own object.
- **The held item** (`hand_box`): drawn in front of the robot at `HAND_OFFSET_M`, turned
  with it; it hides what lies behind it in the lower middle of the image.

An object's own panels and doors never hide it (the camera counts their pixels as its),
nor do those of what rests on it.
See docs/scene-graph.md.
"""

from __future__ import annotations

import contextlib
import math
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.geometry import quaternion_to_matrix
from fdc.sim_bridge.scene.schema import ObjectSpec, PartSpec

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.view import SceneView

#: Where the held item is drawn, in the robot's frame: forward, left, height (metres).
HAND_OFFSET_M = (0.55, -0.1, 0.9)
#: The thickness of a shell's side and back panels as the line of sight sees them.
SHELL_PANEL_M = 0.02
#: The thickness of a shelf board drawn below an inner surface (metres).
SHELF_BOARD_M = 0.02


def inner_shelves(obj: ObjectSpec) -> list[float]:
    """The local heights of an object's surfaces below its top (a bookcase's shelves)."""
    top = obj.size[2] / 2
    return sorted(s.z for s in obj.surfaces or [] if s.z < top - SHELF_BOARD_M)


def is_body(obj: ObjectSpec, part: PartSpec) -> bool:
    """The link that holds the containers (a part with no joint or a fixed one, of an
    object with containers)."""
    if part.joint is not None and part.joint.type.value != "fixed":
        return False
    return bool(obj.containers)


def shell_box(obj: ObjectSpec) -> tuple[tuple[float, float, float],
                                         tuple[float, float, float]] | None:
    """The local centre and size of the shell open at +x the renderer draws for an object
    without a mesh (containers, or shelves below its top), or None (a solid box, a
    mesh, or imported URDF links)."""
    if obj.mesh is not None or "urdf" in obj.source:
        return None
    if obj.parts:
        body = next((p for p in obj.parts if is_body(obj, p)), None)
        if body is not None:
            return tuple(body.center), tuple(body.size)
        return ((0.0, 0.0, 0.0), tuple(obj.size)) if obj.containers else None
    if obj.containers or inner_shelves(obj):
        return (0.0, 0.0, 0.0), tuple(obj.size)
    return None


def part_motion(part: PartSpec, is_open: bool) -> np.ndarray:
    """A door's or drawer's 4x4 motion in its object's frame: at joint value 0 when its
    container is closed, at its recorded value (its upper limit when that is 0) when
    open; a door turns about the edge of its box that swings it outward, a drawer slides
    along its axis."""
    joint = part.joint
    if joint is None or not is_open:
        return np.eye(4)
    value = joint.position if joint.position != 0 else joint.upper
    if value == 0:
        return np.eye(4)
    axis = np.asarray(joint.axis, dtype=np.float64)
    axis /= max(float(np.linalg.norm(axis)), 1e-12)
    m = np.eye(4)
    if joint.type.value == "prismatic":
        m[:3, 3] = axis * value
        return m
    q = (math.cos(value / 2), *(axis * math.sin(value / 2)))
    r = quaternion_to_matrix(tuple(float(v) for v in q))
    c = np.asarray(part.center, dtype=np.float64)
    h = np.asarray(part.size, dtype=np.float64) / 2
    best, best_d = c, -1.0
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                corner = c + h * (sx, sy, sz)
                hinge = corner - axis * float(np.dot(corner - c, axis))
                moved = r @ (c - hinge) + hinge
                d = float(np.linalg.norm(moved[:2]))
                if d > best_d + 1e-9:
                    best, best_d = hinge, d
    m[:3, :3] = r
    m[:3, 3] = best - r @ best
    return m


def _box_corners(m: np.ndarray, center: Any, size: Any) -> np.ndarray:
    """(8, 3) corners of the local box (`center`, `size`) moved by the 4x4 matrix `m`."""
    h = np.asarray(size, dtype=np.float64) / 2
    signs = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                     dtype=np.float64)
    local = np.asarray(center, dtype=np.float64) + signs * h
    out: np.ndarray = local @ m[:3, :3].T + m[:3, 3]
    return out


@dataclass(frozen=True, eq=False)
class Occluders:
    """The extra pieces that hide things (module doc): footprints, height ranges and
    the index (in `bodies.ids`) of the object each belongs to."""

    footprints: np.ndarray  # (k,) shapely polygons
    bottoms: np.ndarray
    tops: np.ndarray
    owners: np.ndarray  # (k,) int
    tree: Any  # shapely STRtree of the footprints
    #: The open doors as boxes (centre, rotation, extents) and their objects' indices:
    #: a door is part of its object, which is seen when its door is.
    door_positions: np.ndarray  # (d, 3)
    door_matrices: np.ndarray  # (d, 3, 3)
    door_sizes: np.ndarray  # (d, 3)
    door_owners: np.ndarray  # (d,) int

    @property
    def count(self) -> int:
        return len(self.owners)


_CACHE: weakref.WeakKeyDictionary[Any, Occluders] = weakref.WeakKeyDictionary()


def scene_occluders(g: SceneView) -> Occluders:
    """The shell panels and open doors of the objects as `g` has them posed (the held
    item's are nowhere: it is out of the arrangement). Kept per view."""
    try:
        found = _CACHE.get(g)
    except TypeError:
        found = None
    if found is not None:
        return found
    out = _build(g)
    with contextlib.suppress(TypeError):  # a view that cannot be weakly referenced
        _CACHE[g] = out
    return out


@dataclass(frozen=True, eq=False)
class _Pieces:
    """A scene's panels and doors in their objects' frames (doors at their open pose),
    made once per scene: a view only moves them with its objects' poses."""

    owners: np.ndarray  # (r,) index in the scene's objects (= the bodies' order)
    local: np.ndarray  # (r, 8, 3) corners in the object's frame
    closes: tuple[tuple[str, ...], ...]  # a door's containers; () for a panel
    centre: np.ndarray  # (r, 3) a door's centre in the object's frame
    rotation: np.ndarray  # (r, 3, 3) a door's rotation in the object's frame
    size: np.ndarray  # (r, 3)


#: Per scene (by identity: a scene is not hashable), its pieces and a weak reference
#: that tells a scene since freed from one at the same address.
_PIECES: dict[int, tuple[weakref.ref[Any], _Pieces]] = {}


def _pieces(scene: Any) -> _Pieces:
    entry = _PIECES.get(id(scene))
    if entry is not None and entry[0]() is scene:
        return entry[1]
    owners: list[int] = []
    local: list[np.ndarray] = []
    closes: list[tuple[str, ...]] = []
    centre: list[np.ndarray] = []
    rotation: list[np.ndarray] = []
    size: list[tuple[float, float, float]] = []
    eye = np.eye(4)
    for k, spec in enumerate(scene.objects):
        if not (spec.parts or spec.containers or spec.surfaces):
            continue
        shell = shell_box(spec)
        if shell is not None:
            (cx, cy, cz), (sx, sy, sz) = shell
            t = min(SHELL_PANEL_M, sx / 4, sy / 4)
            for c, sz3 in (((cx, cy + sy / 2 - t / 2, cz), (sx, t, sz)),
                           ((cx, cy - sy / 2 + t / 2, cz), (sx, t, sz)),
                           ((cx - sx / 2 + t / 2, cy, cz), (t, sy, sz))):
                owners.append(k)
                local.append(_box_corners(eye, c, sz3))
                closes.append(())
                centre.append(np.asarray(c, dtype=np.float64))
                rotation.append(np.eye(3))
                size.append(sz3)
        if "urdf" in spec.source:
            continue
        for part in spec.parts:
            shut = tuple(f"{spec.id}|{c.name}" for c in spec.containers if c.part == part.name)
            if not shut or part.joint is None:
                continue
            dm = part_motion(part, True)
            owners.append(k)
            local.append(_box_corners(dm, part.center, part.size))
            closes.append(shut)
            centre.append(dm[:3, :3] @ np.asarray(part.center, dtype=np.float64) + dm[:3, 3])
            rotation.append(dm[:3, :3])
            size.append(tuple(part.size))  # type: ignore[arg-type]
    out = _Pieces(np.asarray(owners, dtype=np.int64),
                  np.asarray(local, dtype=np.float64).reshape(-1, 8, 3), tuple(closes),
                  np.asarray(centre, dtype=np.float64).reshape(-1, 3),
                  np.asarray(rotation, dtype=np.float64).reshape(-1, 3, 3),
                  np.asarray(size, dtype=np.float64).reshape(-1, 3))
    if len(_PIECES) > 64:
        _PIECES.clear()
    _PIECES[id(scene)] = (weakref.ref(scene), out)
    return out


def _build(g: SceneView) -> Occluders:
    import shapely

    b = g.bodies
    p = _pieces(g.scene)
    keep = np.ones(len(p.owners), dtype=bool)
    if len(p.owners):
        # The held item's pieces are nowhere (its footprint is empty); a door is where
        # it is only when one of its containers is open.
        empty = shapely.is_empty(np.asarray(b.footprints, dtype=object)[p.owners])
        keep &= ~empty
        for r, shut in enumerate(p.closes):
            if shut and keep[r]:
                keep[r] = any(_is_open(g, c) for c in shut)
    rows = np.flatnonzero(keep)
    owners = p.owners[rows]
    mats = np.asarray(b.matrices, dtype=np.float64)[owners]
    pos = np.asarray(b.positions, dtype=np.float64)[owners]
    c = np.einsum("nij,nkj->nki", mats, p.local[rows]) + pos[:, None, :]
    if len(rows):
        fps = shapely.convex_hull(shapely.multipoints(c[:, :, :2]))
        bottoms, tops = c[:, :, 2].min(axis=1), c[:, :, 2].max(axis=1)
    else:
        fps = np.empty(0, dtype=object)
        bottoms = tops = np.zeros(0)
    door = np.array([bool(p.closes[r]) for r in rows], dtype=bool)
    d = rows[door]
    return Occluders(
        np.asarray(fps, dtype=object).reshape(-1), bottoms, tops, owners,
        shapely.STRtree(fps),
        np.einsum("nij,nj->ni", mats[door], p.centre[d]) + pos[door],
        np.einsum("nij,njk->nik", mats[door], p.rotation[d]), p.size[d], owners[door])


def _is_open(g: SceneView, container: str) -> bool:
    try:
        return bool(g.surface(container).is_open)
    except KeyError:
        return False


def hand_box(xs: npt.ArrayLike, ys: npt.ArrayLike, zs: npt.ArrayLike, yaws: npt.ArrayLike,
             size: npt.ArrayLike) -> tuple[np.ndarray, ...]:
    """Where the held item of box `size` is, for robots at (x, y, z) facing `yaws` (the
    renderer's `hand_matrix`: at `HAND_OFFSET_M` in the robot's frame, its axes along the
    robot's): per robot its centre (x, y), its yaw, its half extents along its own x
    and y, its bottom and its top (seven arrays)."""
    x = np.asarray(xs, dtype=np.float64).reshape(-1)
    y = np.asarray(ys, dtype=np.float64).reshape(-1)
    z = np.asarray(zs, dtype=np.float64).reshape(-1)
    yaw = np.asarray(yaws, dtype=np.float64).reshape(-1)
    s = np.asarray(size, dtype=np.float64).reshape(3)
    fx, fy, fz = HAND_OFFSET_M
    c, sn = np.cos(yaw), np.sin(yaw)
    one = np.ones(len(x))
    return (x + c * fx - sn * fy, y + sn * fx + c * fy, yaw, one * s[0] / 2, one * s[1] / 2,
            z + fz - s[2] / 2, z + fz + s[2] / 2)
