"""Support surfaces (platforms): from explicit specs, from meshes, from boxes; containers'
floors; and the clearance above each surface.

A surface is horizontal: a world height `z` and a world (x, y) polygon. Its frame is the
heading of the object that carries it (items inherit it), centred on the heading-aligned
box of the polygon, so "front" means the object's front.
See docs/scene-graph.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fdc.core.errors import FdcError
from fdc.core.inputs import InputFileError
from fdc.core.problems import Diagnostic, error, warning
from fdc.sim_bridge.geometry import (
    Array,
    frame_bounds,
    from_frame,
    quaternion_to_matrix,
    rects,
    to_frame,
)
from fdc.sim_bridge.graph.bodies import Bodies
from fdc.sim_bridge.meshes import load_mesh_file
from fdc.sim_bridge.scene.schema import Kind, ObjectSpec, Scene


@dataclass(frozen=True)
class SurfaceConfig:
    """Constants of platform detection (ManiTaskGen's, made parameters)."""

    seed_angle_deg: float = 20.0  # faces this close to up start a platform
    grow_angle_deg: float = 40.0  # neighbours this close to up may join it
    dihedral_deg: float = 20.0  # ... if they bend by less than this
    min_area_m2: float = 0.0025  # smaller platforms are dropped
    min_relative_area: float = 0.2  # ... as are those under 0.2 x the object's largest
    convexity: float = 0.8  # area / hull area below this: split into a grid
    split_cell_m: float = 0.3
    max_tilt_deg: float = 5.0  # boxes tilted more than this offer no top
    movable_min_area_m2: float = 0.02  # a movable item's top is a surface if this big
    min_clearance_m: float = 0.03
    ceiling_overlap: float = 0.5  # a surface above limits clearance if it covers this much
    merge_gap_m: float = 0.02  # platforms this close in height, overlapping so, are one


@dataclass(frozen=True, eq=False)
class Surface:
    id: str  # "<object id>|<name>", as Habitat names receptacles
    object_id: str
    name: str
    source: str  # "box" | "explicit" | "mesh" | "container"
    z: float
    polygon: Any  # shapely Polygon, world (x, y)
    yaw_rad: float
    origin: tuple[float, float]  # centre of the heading-aligned box of the polygon
    half_extents: tuple[float, float]  # (along the heading, across)
    clearance_m: float
    container: str | None = None  # the container's name when this is its floor
    is_open: bool = True
    part: str | None = None  # the part that closes the container

    @property
    def area_m2(self) -> float:
        return float(self.polygon.area)

    @property
    def frame(self) -> tuple[tuple[float, float], float]:
        return self.origin, self.yaw_rad


def carriers(s: Surface, parent: Callable[[str], Surface | None],
             skip: Collection[str | None] = ()) -> list[str]:
    """The objects under surface `s`: its owner, what the owner rests on (`parent`: the
    surface an object stands on), and so on, stopping at one of `skip`."""
    out: list[str] = []
    under: Surface | None = s
    while under is not None and under.object_id not in skip and under.object_id not in out:
        out.append(under.object_id)
        under = parent(under.object_id)
    return out


@dataclass
class _Raw:
    object_index: int
    name: str
    source: str
    z: float
    polygon: Any
    clearance: float | None = None
    container: str | None = None
    is_open: bool = True
    part: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def derive_surfaces(
    scene: Scene,
    bodies: Bodies,
    floor_levels: Array,
    base_dir: Path | None,
    config: SurfaceConfig,
) -> tuple[list[Surface], list[Diagnostic]]:
    """All surfaces of all objects, with clearances. `floor_levels[i]` is the floor height
    under object i (used to tell furniture from items when a kind is not declared)."""
    import shapely

    findings: list[Diagnostic] = []
    raws: list[_Raw] = []
    max_tilt = math.radians(config.max_tilt_deg)
    on_floor = bodies.bottoms - floor_levels <= 0.05
    box_top_candidates: list[int] = []
    for i, obj in enumerate(scene.objects):
        kind = obj.kind or (Kind.FURNITURE if on_floor[i] else Kind.MOVABLE)
        flat = bool(bodies.tilts[i] <= max_tilt)
        if obj.surfaces is not None:
            if obj.surfaces and not flat:
                findings.append(_tilted(obj, i))
            elif obj.surfaces:
                raws.extend(_explicit(obj, i, bodies))
        elif obj.mesh is not None and base_dir is not None and (base_dir / obj.mesh.path).exists():
            try:
                raws.extend(_from_mesh(obj, i, bodies, base_dir, config))
            except (MeshError, ValueError, OSError, IndexError, KeyError) as e:
                findings.append(
                    error("G030", f"cannot read the mesh `{obj.mesh.path}` of `{obj.id}`: {e}",
                          f"objects[{i}].mesh.path", [obj.id],
                          hint="give a readable mesh (.glb, .obj, .ply ...) or remove "
                          "`mesh` to use the box")
                )
        elif kind is not Kind.STAGE or obj.obstacle is not False:
            if not flat:
                if kind is not Kind.MOVABLE:
                    findings.append(_tilted(obj, i))
                continue
            if kind is Kind.MOVABLE and bodies.footprints[i].area < config.movable_min_area_m2:
                continue
            box_top_candidates.append(i)
        if obj.containers:
            if not flat:
                findings.append(_tilted(obj, i))
            else:
                raws.extend(_containers(obj, i, bodies))
    for i in box_top_candidates:
        raws.append(_Raw(i, "top", "box", float(bodies.tops[i]), bodies.footprints[i]))
    raws = [r for r in raws if r.polygon.area >= config.min_area_m2 * 0.999]
    clear = _clearances(scene, bodies, raws, floor_levels, config)
    out: list[Surface] = []
    for r, c in zip(raws, clear, strict=True):
        if c < config.min_clearance_m:
            continue
        i = r.object_index
        yaw = float(bodies.yaws[i])
        u0, v0, u1, v1 = frame_bounds([r.polygon], (0.0, 0.0), yaw)[0]
        centre = from_frame([[(u0 + u1) / 2, (v0 + v1) / 2]], (0.0, 0.0), yaw)[0]
        out.append(
            Surface(
                id=f"{bodies.ids[i]}|{r.name}",
                object_id=bodies.ids[i],
                name=r.name,
                source=r.source,
                z=r.z,
                polygon=shapely.normalize(r.polygon),
                yaw_rad=yaw,
                origin=(float(centre[0]), float(centre[1])),
                half_extents=(float(u1 - u0) / 2, float(v1 - v0) / 2),
                clearance_m=float(c),
                container=r.container,
                is_open=r.is_open,
                part=r.part,
            )
        )
    return out, findings


def _tilted(obj: ObjectSpec, i: int) -> Diagnostic:
    return warning(
        "G031",
        f"`{obj.id}` is tilted; its surfaces and containers are ignored",
        f"objects[{i}].pose.orientation",
        [obj.id],
    )


def _to_world(local: Array, bodies: Bodies, i: int) -> Array:
    return local @ bodies.matrices[i].T + bodies.positions[i]


def _explicit(obj: ObjectSpec, i: int, bodies: Bodies) -> list[_Raw]:
    import shapely

    out = []
    hx, hy = bodies.sizes[i][0] / 2, bodies.sizes[i][1] / 2
    for s in obj.surfaces or []:
        pts = s.polygon or [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
        local = np.array([[x, y, s.z] for x, y in pts], dtype=np.float64)
        world = _to_world(local, bodies, i)
        poly = shapely.make_valid(shapely.Polygon(world[:, :2]))
        out.append(_Raw(i, s.name, "explicit", float(world[:, 2].mean()), poly, s.clearance_m))
    return out


def _containers(obj: ObjectSpec, i: int, bodies: Bodies) -> list[_Raw]:
    import shapely

    out = []
    for c in obj.containers:
        cx, cy, cz = c.center
        sx, sy, sz = c.size
        local = np.array(
            [[cx + dx * sx / 2, cy + dy * sy / 2, cz - sz / 2]
             for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        )
        world = _to_world(local, bodies, i)
        out.append(
            _Raw(i, c.name, "container", float(world[:, 2].mean()),
                 shapely.Polygon(world[:, :2]), float(sz), c.name, c.open, c.part)
        )
    return out


class MeshError(FdcError, ValueError):
    """A mesh file that cannot be read as triangles (the message says why)."""


def load_mesh_world(obj: ObjectSpec, i: int, bodies: Bodies, base_dir: Path) -> Any:
    """The object's mesh as one trimesh in world coordinates."""
    import trimesh

    assert obj.mesh is not None
    try:
        loaded = load_mesh_file(base_dir / obj.mesh.path, force="mesh", process=False)
        vertices = np.asarray(loaded.vertices, dtype=np.float64).reshape(-1, 3)
        faces = np.asarray(loaded.faces, dtype=np.int64).reshape(-1, 3)
    except InputFileError as e:
        raise MeshError(str(e)) from None
    except Exception as e:  # a hostile file makes the loader raise anything
        raise MeshError(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) from None
    if not len(vertices) or not len(faces):
        raise MeshError("it holds no triangle")
    if not np.isfinite(vertices).all():
        raise MeshError("it has NaN or infinite vertex coordinates")
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise MeshError("a face names a vertex the mesh does not have")
    scale = np.asarray(obj.mesh.scale, dtype=np.float64)
    v = vertices * scale
    v = v @ quaternion_to_matrix(obj.mesh.rotation).T + np.asarray(obj.mesh.offset)
    if np.prod(np.sign(scale)) < 0:  # a mirror turns the faces inside out: rewind them
        faces = faces[:, ::-1]
    return trimesh.Trimesh(_to_world(v, bodies, i), faces, process=True)


def _from_mesh(
    obj: ObjectSpec, i: int, bodies: Bodies, base_dir: Path, config: SurfaceConfig
) -> list[_Raw]:
    mesh = load_mesh_world(obj, i, bodies, base_dir)
    return [
        _Raw(i, f"platform_{k}", "mesh", z, poly)
        for k, (z, poly) in enumerate(mesh_platforms(mesh.vertices, mesh.faces, config,
                                                     float(bodies.yaws[i])))
    ]


def component_labels(n: int, edges: Array) -> Array:
    """Connected-component labels (the smallest node of each component) of n nodes
    joined by `edges` (m, 2): union by hooking roots onto smaller roots, with full path
    compression, all in numpy (a few rounds, whatever the graph's diameter)."""
    parent = np.arange(n)
    if len(edges) == 0:
        return parent
    a, b = edges[:, 0], edges[:, 1]
    while True:
        ra, rb = parent[a], parent[b]
        diff = ra != rb
        if not diff.any():
            return parent
        hi = np.maximum(ra, rb)[diff]
        lo = np.minimum(ra, rb)[diff]
        order = np.lexsort((lo, hi))
        hi, lo = hi[order], lo[order]
        first = np.r_[True, hi[1:] != hi[:-1]]
        hi, lo = hi[first], lo[first]
        parent[hi] = np.minimum(parent[hi], lo)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped


def mesh_platforms(
    vertices: Array, faces: Array, config: SurfaceConfig, yaw_rad: float = 0.0
) -> list[tuple[float, Any]]:
    """Horizontal platforms of a world-frame triangle mesh: [(height, polygon)], lowest first.

    Upward faces (within `seed_angle_deg` of +Z) seed a platform; it grows over
    neighbours within `grow_angle_deg` of up that bend by less than `dihedral_deg`; small
    platforms are dropped; a concave one is cut into a grid of cells in the object's
    heading frame."""
    import shapely
    import trimesh

    mesh = trimesh.Trimesh(np.asarray(vertices), np.asarray(faces), process=True)
    if len(mesh.faces) == 0:
        return []
    up = mesh.face_normals[:, 2]
    seed = up > math.cos(math.radians(config.seed_angle_deg))
    grow = up > math.cos(math.radians(config.grow_angle_deg))
    adj = np.asarray(mesh.face_adjacency, dtype=np.int64).reshape(-1, 2)
    angles = np.asarray(mesh.face_adjacency_angles).reshape(-1)
    keep = grow[adj[:, 0]] & grow[adj[:, 1]] & (angles < math.radians(config.dihedral_deg))
    labels = component_labels(len(mesh.faces), adj[keep])
    grown = grow & np.isin(labels, np.unique(labels[seed]))
    idx = np.nonzero(grown)[0]
    if len(idx) == 0:
        return []
    tri = mesh.triangles[idx]  # (k, 3, 3)
    area3 = mesh.area_faces[idx]
    lab = labels[idx]
    order = np.argsort(lab, kind="stable")
    lab, tri, area3 = lab[order], tri[order], area3[order]
    starts = np.r_[0, np.nonzero(np.diff(lab))[0] + 1]
    ends = np.r_[starts[1:], len(lab)]
    polys2d = shapely.polygons(tri[:, :, :2])
    polys2d = shapely.make_valid(polys2d)
    found: list[tuple[float, Any]] = []
    for s, e in zip(starts, ends, strict=True):
        w = area3[s:e]
        if w.sum() <= 0:
            continue
        z = float(np.average(tri[s:e, :, 2].mean(axis=1), weights=w))
        poly = shapely.union_all(polys2d[s:e], grid_size=1e-6)
        poly = _largest_polygonal(poly)
        if poly is not None and poly.area >= config.min_area_m2:
            found.append((z, poly))
    if not found:
        return []
    found = _merge_layers(found, config)
    largest = max(p.area for _, p in found)
    found = [(z, p) for z, p in found if p.area >= config.min_relative_area * largest]
    out: list[tuple[float, Any]] = []
    for z, p in found:
        if p.area < config.convexity * p.convex_hull.area:
            out.extend((z, piece) for piece in split_concave(p, yaw_rad, config))
        else:
            out.append((z, p))
    out.sort(key=lambda zp: (round(zp[0], 6), zp[1].centroid.x, zp[1].centroid.y))
    return out


def _merge_layers(found: list[tuple[float, Any]], config: SurfaceConfig
                  ) -> list[tuple[float, Any]]:
    """Platforms within `merge_gap_m` of one another in height whose outlines overlap by
    more than `ceiling_overlap` of the smaller one are one surface modelled twice (a
    double-sided face, a thin slab's top over the top it covers): each such group is
    one platform, the union of their outlines at the highest of their heights. Two
    surfaces there would each count what stands on the other as on it (the checkers'
    height band) and no model could keep an item on one and off the other."""
    import shapely

    out: list[tuple[float, Any]] = []
    for z, p in sorted(found, key=lambda zp: (zp[0], zp[1].centroid.x, zp[1].centroid.y)):
        for k, (kz, kp) in enumerate(out):
            if z - kz <= config.merge_gap_m and shapely.intersection(kp, p).area > \
                    config.ceiling_overlap * min(kp.area, p.area):
                out[k] = (z, _largest_polygonal(shapely.union(kp, p, grid_size=1e-6)))
                break
        else:
            out.append((z, p))
    return out


def _largest_polygonal(geom: Any) -> Any:
    import shapely

    parts = [g for g in shapely.get_parts(geom) if g.geom_type == "Polygon"]
    if not parts:
        return None
    return shapely.union_all(parts) if len(parts) > 1 else parts[0]


def split_concave(poly: Any, yaw_rad: float, config: SurfaceConfig) -> list[Any]:
    """Cut a concave platform into grid cells of about `split_cell_m` in its heading frame."""
    import shapely

    u0, v0, u1, v1 = frame_bounds([poly], (0.0, 0.0), yaw_rad)[0]
    corners = to_frame(shapely.get_coordinates(poly), (0.0, 0.0), yaw_rad)
    us = _cuts(u0, u1, corners[:, 0], config.split_cell_m)
    vs = _cuts(v0, v1, corners[:, 1], config.split_cell_m)
    if len(us) < 2 or len(vs) < 2:
        return [poly]
    gu0, gv0 = np.meshgrid(us[:-1], vs[:-1], indexing="ij")
    gu1, gv1 = np.meshgrid(us[1:], vs[1:], indexing="ij")
    cu, cv = ((gu0 + gu1) / 2).ravel(), ((gv0 + gv1) / 2).ravel()
    centres = from_frame(np.stack([cu, cv], axis=1), (0.0, 0.0), yaw_rad)
    cells = rects(centres[:, 0], centres[:, 1], ((gu1 - gu0) / 2).ravel(),
                  ((gv1 - gv0) / 2).ravel(), yaw_rad)
    pieces = shapely.intersection(cells, poly)
    pieces = [_largest_polygonal(p) for p in pieces]
    return [p for p in pieces if p is not None and p.area >= config.min_area_m2]


def _cuts(lo: float, hi: float, corners: Array, cell: float) -> Array:
    """Cut positions from lo to hi: the outline's corner coordinates, then more so no
    piece is longer than `cell`; cuts closer than 1 cm merge."""
    base = np.unique(np.clip(np.r_[lo, corners, hi], lo, hi))
    keep = np.r_[True, np.diff(base) > 0.01]
    base = base[keep]
    base[-1] = hi
    out = [base[0]]
    for a, b in itertools.pairwise(base):
        n = max(1, math.ceil((b - a) / cell - 1e-9))
        out.extend(a + (b - a) * (np.arange(1, n + 1) / n))
    return np.asarray(out)


def _clearances(
    scene: Scene, bodies: Bodies, raws: list[_Raw], floor_levels: Array, config: SurfaceConfig
) -> Array:
    """Free height above each surface: to the nearest thing above that covers more than
    `ceiling_overlap` of it (a shelf, a cabinet's bottom, the object's own top), else the
    ceiling of the room (or infinity when there is none)."""
    import shapely

    n = len(raws)
    if n == 0:
        return np.zeros((0,))
    movable = np.array(
        [o.kind is Kind.MOVABLE or (o.kind is None and b - f > 0.05)
         for o, b, f in zip(scene.objects, bodies.bottoms, floor_levels, strict=True)],
        dtype=bool,
    ) if bodies.count else np.zeros((0,), dtype=bool)
    z = np.array([r.z for r in raws])
    owner = np.array([r.object_index for r in raws])
    polys = np.array([r.polygon for r in raws], dtype=object)
    height = np.array([scene.rooms[0].height_m if scene.rooms else math.inf] * n)
    if scene.rooms:
        ceilings = np.array([r.floor_z + r.height_m for r in scene.rooms])
        room_polys = np.array([shapely.Polygon(r.polygon) for r in scene.rooms], dtype=object)
        tree = shapely.STRtree(room_polys)
        cent = shapely.centroid(polys)
        si, ri = tree.query(cent, predicate="within")
        height = np.full(n, math.inf)
        np.minimum.at(height, si, ceilings[ri] - z[si])
        height = np.where(np.isinf(height), np.max(ceilings) - z, height)
    clearance = np.where(np.isnan(np.array([r.clearance or np.nan for r in raws])),
                         height, np.array([r.clearance or 0.0 for r in raws]))
    # What lies above: surfaces of fixed objects, bottoms of fixed objects, own tops.
    fixed = ~movable
    cz = [z[fixed[owner]]]
    cpoly = [polys[fixed[owner]]]
    cown = [np.full(int(fixed[owner].sum()), -1)]
    fb = np.nonzero(fixed)[0]
    cz.append(bodies.bottoms[fb])
    cpoly.append(bodies.footprints[fb])
    cown.append(np.full(len(fb), -1))
    cz.append(bodies.tops)
    cpoly.append(bodies.footprints)
    cown.append(np.arange(bodies.count))  # an object's top covers only its own surfaces
    cz_a = np.concatenate(cz)
    cpoly_a = np.concatenate(cpoly)
    cown_a = np.concatenate(cown)
    tree = shapely.STRtree(cpoly_a)
    si, ci = tree.query(polys, predicate="intersects")
    # An object's own box top is a ceiling only for shelves given inside the box.
    inside_box = np.array([r.source == "explicit" for r in raws])
    sel = (cz_a[ci] > z[si] + 0.01) & (
        (cown_a[ci] < 0) | ((cown_a[ci] == owner[si]) & inside_box[si]))
    si, ci = si[sel], ci[sel]
    if len(si):
        area = shapely.area(shapely.intersection(polys[si], cpoly_a[ci]))
        covers = area > config.ceiling_overlap * shapely.area(polys[si])
        si, ci = si[covers], ci[covers]
        gap = np.full(n, math.inf)
        np.minimum.at(gap, si, cz_a[ci] - z[si])
        explicit = np.array([r.clearance is not None for r in raws])
        clearance = np.where(explicit, clearance, np.minimum(clearance, gap))
    return clearance
