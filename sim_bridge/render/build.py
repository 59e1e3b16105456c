"""A scene as triangles for the renderer: rooms (floors, ceilings, walls, door lintels),
objects as their meshes (textures kept) or as boxes in their category's colour, and the
parts of articulated objects, each piece in its object's local frame.

A piece holds vertices (positions, normals, colours 0-1, texture coordinates) and its
triangles: an index array for meshes (shared vertices: llvmpipe shades each vertex
once), three vertices a triangle otherwise; and, when textured, the texture's pixels
with rows flipped (trimesh's UVs put v=0 at the image's bottom row, OpenGL's first
uploaded row is v=0).
See docs/rendering.md.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fdc.core.errors import FdcError
from fdc.sim_bridge.geometry import quaternion_to_matrix
from fdc.sim_bridge.graph.occluders import SHELF_BOARD_M, inner_shelves, is_body
from fdc.sim_bridge.graph.rooms import build_layout
from fdc.sim_bridge.scene.schema import Kind, ObjectSpec, PartSpec, Scene, WallMode

#: Door openings keep a lintel above this height (metres over the floor).
DOOR_HEIGHT_M = 2.05

#: Colours named by scene attributes (`"color": "grey"`), linear RGB 0-1.
NAMED_COLOURS: dict[str, tuple[float, float, float]] = {
    "black": (0.08, 0.08, 0.08), "white": (0.92, 0.92, 0.9), "grey": (0.55, 0.55, 0.55),
    "gray": (0.55, 0.55, 0.55), "silver": (0.75, 0.76, 0.78), "red": (0.8, 0.15, 0.12),
    "green": (0.2, 0.6, 0.25), "blue": (0.18, 0.35, 0.8), "yellow": (0.92, 0.8, 0.15),
    "orange": (0.95, 0.5, 0.1), "brown": (0.45, 0.28, 0.15), "pink": (0.95, 0.55, 0.7),
    "purple": (0.5, 0.25, 0.65), "beige": (0.85, 0.78, 0.62), "gold": (0.85, 0.68, 0.2),
    "wooden": (0.6, 0.42, 0.25), "wood": (0.6, 0.42, 0.25), "cream": (0.95, 0.9, 0.75),
    "navy": (0.1, 0.15, 0.4), "teal": (0.1, 0.5, 0.5), "transparent": (0.75, 0.85, 0.9),
}
FLOOR = (0.62, 0.55, 0.47)
CEILING = (0.93, 0.93, 0.92)
WALL = (0.86, 0.84, 0.80)
INSIDE = (0.35, 0.35, 0.36)  # the inner faces of containers


@dataclass
class Piece:
    """Triangles of one object in its local frame (or the world, for the rooms)."""

    positions: np.ndarray  # (n, 3) float32 (three per triangle when `indices` is None)
    normals: np.ndarray  # (n, 3) float32
    colours: np.ndarray  # (n, 3) float32
    uvs: np.ndarray | None = None  # (n, 2) float32
    texture: np.ndarray | None = None  # (h, w, 4) uint8, rows flipped for OpenGL
    two_sided: bool = False
    indices: np.ndarray | None = None  # (t, 3) int: the triangles' vertices

    def triangles(self) -> np.ndarray:
        """(t, 3) vertex indices of the triangles."""
        if self.indices is not None:
            return self.indices
        return np.arange(len(self.positions), dtype=np.int64).reshape(-1, 3)


@dataclass
class PartPiece:
    """A link of an articulated object: its box and how it turns or slides open."""

    spec: PartSpec
    piece: Piece
    containers: tuple[str, ...]  # container surface ids it closes


@dataclass
class ObjectGeometry:
    """What the renderer draws for one object."""

    object_id: str
    index: int  # its index in the renderer's object list
    tracked: bool  # movable or articulated: its pose comes from the state
    pieces: list[Piece] = field(default_factory=list)
    parts: list[PartPiece] = field(default_factory=list)
    source_parts: bool = False  # imported (URDF) parts: boxes at their recorded pose
    urdf: UrdfModel | None = None  # imported articulated objects: their link meshes


def category_colour(obj: ObjectSpec) -> tuple[float, float, float]:
    """The object's named colour, else one fixed colour per category (from its hash)."""
    named = NAMED_COLOURS.get(obj.attributes.get("color", "").lower()) or \
        NAMED_COLOURS.get(obj.attributes.get("colour", "").lower())
    if named is not None:
        return named
    digest = hashlib.sha256(obj.category.encode()).digest()
    hue = digest[0] / 255.0
    sat = 0.35 + 0.35 * digest[1] / 255.0
    val = 0.55 + 0.35 * digest[2] / 255.0
    return _hsv(hue, sat, val)


def _hsv(h: float, s: float, v: float) -> tuple[float, float, float]:
    i = int(h * 6) % 6
    f = h * 6 - math.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]


_UNIT_FACES = (  # (normal axis, sign): the six faces of a unit cube
    (0, 1), (0, -1), (1, 1), (1, -1), (2, 1), (2, -1))


def box_piece(center: Any, size: Any, colour: tuple[float, float, float],
              skip: tuple[tuple[int, int], ...] = (), inside: bool = False) -> Piece:
    """An axis-aligned box (in the piece's frame) as 12 triangles; `skip` leaves faces
    out (an open front); `inside` turns the normals in (a container's walls)."""
    c = np.asarray(center, dtype=np.float64)
    h = np.asarray(size, dtype=np.float64) / 2
    pos: list[np.ndarray] = []
    nor: list[np.ndarray] = []
    for axis, sign in _UNIT_FACES:
        if (axis, sign) in skip:
            continue
        u, v = [a for a in range(3) if a != axis]
        quad = np.zeros((4, 3))
        quad[:, axis] = sign
        quad[:, u] = (-1, 1, 1, -1)
        quad[:, v] = (-1, -1, 1, 1)
        n = np.zeros(3)
        n[axis] = sign
        tri = quad[[0, 1, 2, 0, 2, 3]]
        if np.dot(np.cross(tri[1] - tri[0], tri[2] - tri[0]), n) < 0:
            tri = tri[[0, 2, 1, 3, 5, 4]]
        pos.append(c + tri * h)
        nor.append(np.repeat((-n if inside else n)[None], 6, axis=0))
    p = np.concatenate(pos).astype(np.float32)
    return Piece(p, np.concatenate(nor).astype(np.float32),
                 np.tile(np.asarray(colour, dtype=np.float32), (len(p), 1)), two_sided=inside)


def rooms_pieces(scene: Scene) -> tuple[Piece, Piece]:
    """The building in world coordinates: walls (door openings cut, lintels above
    them), and floors and ceilings. Two pieces, so that the renderer can draw the walls
    before the floors (what a wall hides is then skipped by the depth test)."""
    import shapely

    walls: list[Piece] = []
    flats: list[Piece] = []
    if scene.rooms:
        layout = build_layout(scene)
        for room in sorted(scene.rooms, key=lambda r: r.id):
            tris = _triangulate(shapely.make_valid(shapely.Polygon(room.polygon)))
            if len(tris):
                flats.append(_flat(tris, room.floor_z, up=True, colour=FLOOR))
                flats.append(_flat(tris, room.floor_z + room.height_m, up=False,
                                   colour=CEILING))
        if scene.walls is WallMode.FROM_ROOMS:
            z0 = min(r.floor_z for r in scene.rooms)
            z1 = max(r.floor_z + r.height_m for r in scene.rooms)
            for wall in layout.wall_pieces:
                walls.append(_prism(wall, z0, z1, WALL))
            for door in layout.doors:
                if z1 - z0 > DOOR_HEIGHT_M:
                    walls.append(_prism(door, z0 + DOOR_HEIGHT_M, z1, WALL))
    return merge(walls), merge(flats)


def _triangulate(poly: Any) -> np.ndarray:
    """(t, 3, 2) triangles covering a polygon (constrained Delaunay)."""
    import shapely

    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(poly))
    if not len(tris):
        return np.zeros((0, 3, 2))
    return np.array([np.asarray(t.exterior.coords)[:3] for t in tris], dtype=np.float64)


def _flat(tris: np.ndarray, z: float, up: bool, colour: tuple[float, float, float]) -> Piece:
    t = tris.copy()
    # counter-clockwise seen from the side the face looks to
    cross = ((t[:, 1, 0] - t[:, 0, 0]) * (t[:, 2, 1] - t[:, 0, 1])
             - (t[:, 1, 1] - t[:, 0, 1]) * (t[:, 2, 0] - t[:, 0, 0]))
    flip = (cross < 0) if up else (cross > 0)
    t[flip] = t[flip][:, [0, 2, 1]]
    p = np.concatenate([t.reshape(-1, 2), np.full((t.shape[0] * 3, 1), z)], axis=1)
    n = np.tile([0.0, 0.0, 1.0 if up else -1.0], (len(p), 1))
    return Piece(p.astype(np.float32), n.astype(np.float32),
                 np.tile(np.asarray(colour, dtype=np.float32), (len(p), 1)))


def _prism(poly: Any, z0: float, z1: float, colour: tuple[float, float, float]) -> Piece:
    """A polygon extruded from z0 to z1: its walls and its top and bottom."""
    import shapely

    pieces = []
    for part in shapely.get_parts(poly):
        if part.geom_type != "Polygon" or part.area <= 1e-9:
            continue
        part = shapely.geometry.polygon.orient(part, 1.0)
        rings = [np.asarray(part.exterior.coords)] + \
            [np.asarray(r.coords)[::-1] for r in part.interiors]
        pos, nor = [], []
        for ring in rings:
            a, b = ring[:-1], ring[1:]
            d = b - a
            length = np.hypot(d[:, 0], d[:, 1])
            keep = length > 1e-9
            a, b, d, length = a[keep], b[keep], d[keep], length[keep]
            n = np.stack([d[:, 1] / length, -d[:, 0] / length, np.zeros(len(d))], axis=1)
            lo = lambda p: np.concatenate([p, np.full((len(p), 1), z0)], axis=1)  # noqa: E731
            hi = lambda p: np.concatenate([p, np.full((len(p), 1), z1)], axis=1)  # noqa: E731
            quad = np.stack([lo(a), lo(b), hi(b), lo(a), hi(b), hi(a)], axis=1)
            pos.append(quad.reshape(-1, 3))
            nor.append(np.repeat(n, 6, axis=0))
        p = np.concatenate(pos)
        pieces.append(Piece(p.astype(np.float32), np.concatenate(nor).astype(np.float32),
                            np.tile(np.asarray(colour, dtype=np.float32), (len(p), 1))))
        tris = _triangulate(part)
        if len(tris):
            pieces.append(_flat(tris, z1, True, colour))
            pieces.append(_flat(tris, z0, False, colour))
    return merge(pieces)


def merge(pieces: list[Piece]) -> Piece:
    """Untextured pieces as one."""
    plain = [p for p in pieces if p.texture is None]
    if not plain:
        return Piece(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32),
                     np.zeros((0, 3), np.float32))
    if all(p.indices is None for p in plain):
        return Piece(np.concatenate([p.positions for p in plain]),
                     np.concatenate([p.normals for p in plain]),
                     np.concatenate([p.colours for p in plain]),
                     two_sided=any(p.two_sided for p in plain))
    offsets = np.cumsum([0] + [len(p.positions) for p in plain])[:-1]
    return Piece(np.concatenate([p.positions for p in plain]),
                 np.concatenate([p.normals for p in plain]),
                 np.concatenate([p.colours for p in plain]),
                 two_sided=any(p.two_sided for p in plain),
                 indices=np.concatenate([p.triangles() + o for p, o in
                                         zip(plain, offsets, strict=True)]))


def transform(piece: Piece, m: np.ndarray) -> Piece:
    """The piece moved by the 4x4 matrix `m` (normals by its rotation)."""
    r = m[:3, :3]
    p = piece.positions.astype(np.float64) @ r.T + m[:3, 3]
    inv_t = np.linalg.inv(r).T
    n = piece.normals.astype(np.float64) @ inv_t.T
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    uvs, colours, indices = piece.uvs, piece.colours, piece.indices
    if np.linalg.det(r) < 0:  # a mirror turns the triangles over
        if indices is not None:
            indices = indices[:, [0, 2, 1]]
        else:
            def turn(a: np.ndarray) -> np.ndarray:
                k = a.shape[1]
                return a.reshape(-1, 3, k)[:, [0, 2, 1]].reshape(-1, k)
            p, n, colours = turn(p), turn(n), turn(colours)
            uvs = turn(uvs) if uvs is not None else None
    return Piece(p.astype(np.float32), n.astype(np.float32), colours, uvs, piece.texture,
                 piece.two_sided, indices)


def pose_matrix(position: Any, orientation: Any, scale: Any = (1.0, 1.0, 1.0)) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quaternion_to_matrix(tuple(orientation)) * np.asarray(scale, dtype=np.float64)
    m[:3, 3] = position
    return m


def object_geometry(obj: ObjectSpec, index: int, base_dir: Path | None,
                    meshes: dict[str, list[Piece]]) -> ObjectGeometry:
    """The pieces of one object in its local frame: its mesh where it has one that can
    be read, else its box (hollow, open at the front, where it holds containers)."""
    kind = obj.kind or Kind.FURNITURE
    tracked = kind in (Kind.MOVABLE, Kind.ARTICULATED)
    out = ObjectGeometry(obj.id, index, tracked, source_parts="urdf" in obj.source)
    colour = category_colour(obj)
    mesh = None
    if obj.mesh is not None and base_dir is not None:
        path = base_dir / obj.mesh.path
        key = str(path)
        if key not in meshes:
            meshes[key] = mesh_pieces(path, colour)
        raw = meshes[key]
        if raw:
            m = pose_matrix(obj.mesh.offset, obj.mesh.rotation, obj.mesh.scale)
            mesh = [transform(p, m) for p in raw]
    if mesh:
        out.pieces = mesh
    elif obj.parts:
        # an articulated object is its links; when none of them is its body (a cabinet
        # whose only part is its door), the body is the object's box
        if not any(is_body(obj, p) for p in obj.parts) and "urdf" not in obj.source:
            out.pieces = [_cabinet(obj, colour)] if obj.containers else \
                [box_piece((0, 0, 0), obj.size, colour)]
    elif obj.containers:
        out.pieces = [_cabinet(obj, colour)]
    elif inner_shelves(obj):
        out.pieces = [_shelf_unit(obj, colour)]
    else:
        out.pieces = [box_piece((0, 0, 0), obj.size, colour)]
    for part in obj.parts:
        closes = tuple(f"{obj.id}|{c.name}" for c in obj.containers if c.part == part.name)
        if closes and not out.source_parts:
            # a door: a shaded slab, a little darker than the body
            shade = tuple(0.85 * c for c in colour)
            piece = box_piece(part.center, part.size, (shade[0], shade[1], shade[2]))
        else:
            piece = _cabinet(obj, colour, part) if is_body(obj, part) else \
                box_piece(part.center, part.size, colour)
        out.parts.append(PartPiece(part, piece, closes))
    if out.source_parts:
        out.urdf = urdf_model(obj, base_dir, meshes, out.parts)
    return out


def _cabinet(obj: ObjectSpec, colour: tuple[float, float, float],
             part: PartSpec | None = None) -> Piece:
    """A box with containers: its outer shell open at the front (+x) and each
    container's inner walls, so an open door shows the inside."""
    center = (0.0, 0.0, 0.0) if part is None else part.center
    size = obj.size if part is None else part.size
    outer = box_piece(center, size, colour, skip=((0, 1),))
    inner = [box_piece(c.center, c.size, INSIDE, skip=((0, 1),), inside=True)
             for c in obj.containers]
    # the front rim between the containers: a thin frame left where no container opens
    return merge([outer, *inner])


def _shelf_unit(obj: ObjectSpec, colour: tuple[float, float, float]) -> Piece:
    """A box with inner shelves: its outer shell open at the front (+x) and a board
    under each shelf, so what stands on a shelf is seen from the front, as the line of
    sight sees it."""
    sx, sy, sz = obj.size
    outer = box_piece((0.0, 0.0, 0.0), obj.size, colour, skip=((0, 1),))
    inner = box_piece((0.0, 0.0, 0.0), (sx * 0.99, sy * 0.98, sz * 0.98), INSIDE,
                      skip=((0, 1),), inside=True)
    boards = [box_piece((0.0, 0.0, z - SHELF_BOARD_M / 2),
                        (sx * 0.98, sy * 0.98, SHELF_BOARD_M), colour)
              for z in inner_shelves(obj) if z - SHELF_BOARD_M > -sz / 2]
    return merge([outer, inner, *boards])


def mesh_pieces(path: Path, colour: tuple[float, float, float]) -> list[Piece]:
    """A mesh file's triangles in file coordinates, one piece per textured geometry (the
    untextured ones merged); [] when the file cannot be read (the box is drawn)."""
    import trimesh

    from fdc.sim_bridge.meshes import load_mesh_file

    try:
        loaded = load_mesh_file(path, process=False)
    except (FdcError, OSError, ValueError, KeyError, IndexError):
        return []
    items: list[tuple[np.ndarray, Any]] = []
    if isinstance(loaded, trimesh.Scene):
        for node in loaded.graph.nodes_geometry:
            m, name = loaded.graph[node]
            geom = loaded.geometry.get(name)
            if isinstance(geom, trimesh.Trimesh):
                items.append((np.asarray(m, dtype=np.float64), geom))
    elif isinstance(loaded, trimesh.Trimesh):
        items.append((np.eye(4), loaded))
    out: list[Piece] = []
    plain: list[Piece] = []
    for m, geom in items:
        piece = _trimesh_piece(geom, colour)
        if piece is None:
            continue
        piece = transform(piece, m)
        (out if piece.texture is not None else plain).append(piece)
    if plain:
        out.append(merge(plain))
    return out


def _trimesh_piece(geom: Any, colour: tuple[float, float, float]) -> Piece | None:
    faces = np.asarray(geom.faces, dtype=np.int64)
    if not len(faces):
        return None
    v = np.asarray(geom.vertices, dtype=np.float64)
    try:
        normals = np.asarray(geom.vertex_normals, dtype=np.float64)
    except (ValueError, IndexError):
        normals = np.zeros_like(v)
    if normals.shape != v.shape:
        normals = np.zeros_like(v)
    n = len(v)
    cols = np.tile(np.asarray(colour, dtype=np.float32), (n, 1))
    uvs = None
    texture = None
    visual = geom.visual
    kind = getattr(visual, "kind", None)
    if kind == "texture":
        material = getattr(visual, "material", None)
        factor = _base_factor(material)
        image = _base_image(material)
        uv = getattr(visual, "uv", None)
        if image is not None and uv is not None and len(uv) == n:
            texture = np.flipud(np.asarray(image.convert("RGBA"), dtype=np.uint8)).copy()
            uvs = np.asarray(uv, dtype=np.float32)
            cols = np.tile(factor if factor is not None else np.ones(3), (n, 1)
                           ).astype(np.float32)
        elif factor is not None:
            cols = np.tile(factor, (n, 1)).astype(np.float32)
    elif kind in ("vertex", "face"):
        vc = np.asarray(visual.vertex_colors, dtype=np.float32)[:, :3] / 255.0
        if len(vc) == n:
            cols = vc
    return Piece(v.astype(np.float32), normals.astype(np.float32), cols, uvs, texture,
                 indices=faces)


def _base_factor(material: Any) -> np.ndarray | None:
    f = getattr(material, "baseColorFactor", None)
    if f is None:
        f = getattr(material, "main_color", None)
    if f is None:
        return None
    raw = np.asarray(f)
    a = raw.astype(np.float32)[:3]
    return a / 255.0 if raw.dtype.kind in "ui" else a


def _base_image(material: Any) -> Any:
    img = getattr(material, "baseColorTexture", None)
    if img is None:
        img = getattr(material, "image", None)
    return img


# ----------------------------------------------------------------------- URDF objects

#: Habitat's Y-up to fdc's Z-up: (x, y, z) -> (x, -z, y).
_YUP_TO_ZUP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


@dataclass
class UrdfModel:
    """An imported articulated object drawn from its URDF: each link's visual meshes, and
    what puts a link in the object's local frame at given joint values."""

    robot: Any  # fdc.sim_bridge.habitat.urdf.Robot
    links: list[tuple[str, np.ndarray, Piece]]  # (link, visual origin 4x4, piece)
    scale: float
    centre: np.ndarray  # the importer's centring (local = C @ scale * p - centre)
    parts: dict[str, PartPiece]  # by link name

    def link_matrices(self, open_state: Any) -> dict[str, np.ndarray]:
        """Link (visual frame excluded) -> 4x4 into the object's local frame: joints at
        their recorded values; a link that closes a container at 0 when it is closed and
        at its recorded value (its upper limit when that is 0) when open."""
        positions: dict[str, float] = {}
        for j in self.robot.joints:
            part = self.parts.get(j.child)
            if part is None or part.spec.joint is None:
                continue
            value = part.spec.joint.position
            if part.containers:
                is_open = any(open_state.get(c, False) for c in part.containers)
                value = (value if value != 0 else part.spec.joint.upper) if is_open else 0.0
            positions[j.name] = value
        fk = self.robot.link_transforms(positions)
        base = np.eye(4)
        base[:3, :3] = _YUP_TO_ZUP * self.scale
        base[:3, 3] = -self.centre
        return {link: base @ m for link, m in fk.items()}


def urdf_model(obj: ObjectSpec, base_dir: Path | None, meshes: dict[str, list[Piece]],
               parts: list[PartPiece]) -> UrdfModel | None:
    """The URDF model of an imported articulated object (its `source.urdf`), or None when
    it cannot be read (its part boxes are drawn then)."""
    from fdc.sim_bridge.habitat.urdf import read_urdf

    rel = obj.source.get("urdf")
    if rel is None or base_dir is None:
        return None
    try:
        robot = read_urdf(base_dir / rel)
    except (FdcError, OSError, ValueError):
        return None
    colour = category_colour(obj)
    fk = robot.link_transforms({})  # the importer's bounds are at recorded joints: below
    links: list[tuple[str, np.ndarray, Piece]] = []
    for link in robot.links:
        for vis in robot.visuals.get(link, []):
            if vis.mesh is None:
                continue
            key = str(vis.mesh)
            if key not in meshes:
                meshes[key] = mesh_pieces(vis.mesh, colour)
            s = np.eye(4)
            s[:3, :3] = np.diag(np.asarray(vis.scale, dtype=np.float64))
            for piece in meshes[key]:
                links.append((link, vis.origin, transform(piece, s)))
    if not links:
        return None
    del fk
    by_link = {p.spec.name: p for p in parts}
    model = UrdfModel(robot, links, 1.0, np.zeros(3), by_link)
    # The importer's frame: link points at the recorded joint values, scaled, Z-up,
    # centred on their box; the scale is the one that gives the object's size.
    recorded = {j.name: by_link[j.child].spec.joint.position
                for j in robot.joints
                if j.child in by_link and by_link[j.child].spec.joint is not None}
    fk = robot.link_transforms(recorded)
    pts = [transform(p, fk[link] @ origin).positions.astype(np.float64)
           for link, origin, p in links if link in fk]
    allp = np.concatenate(pts) @ _YUP_TO_ZUP.T
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    extent = float(np.max(hi - lo))
    model.scale = float(max(obj.size) / extent) if extent > 0 else 1.0
    model.centre = (lo + hi) / 2 * model.scale
    return model
