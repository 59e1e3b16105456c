"""The support tree: which surface carries each object, depths, kinds, rooms; and the
warnings of physically odd scenes (interpenetration, floating items, items outside rooms).
See docs/scene-graph.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fdc.core.limits import current, hint
from fdc.core.problems import Diagnostic, error, warning
from fdc.sim_bridge.graph.bodies import Bodies
from fdc.sim_bridge.graph.rooms import Layout
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind, Scene

_CHUNK = 256  # objects per tree query while counting overlaps (bounds its memory)


def footprint_overlaps(scene: Scene, bodies: Bodies
                       ) -> tuple[tuple[np.ndarray, np.ndarray], Diagnostic | None]:
    """The pairs (a < b) of objects whose footprints intersect, the building shell left
    out, counted a chunk at a time so that a scene of objects piled on one spot costs at
    most the limit `footprint_overlaps` pairs; past it, an error naming the most crowded
    object instead of the pairs."""
    import shapely

    n = bodies.count
    shell = np.array([o.kind is Kind.STAGE and o.obstacle is False for o in scene.objects],
                     dtype=bool)
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if n < 2:
        return empty, None
    tree = shapely.STRtree(bodies.footprints)
    parts_a: list[np.ndarray] = []
    parts_b: list[np.ndarray] = []
    total = 0
    most = current().footprint_overlaps
    for start in range(0, n, _CHUNK):
        a, b = tree.query(bodies.footprints[start: start + _CHUNK], predicate="intersects")
        a = a + start
        real = (a != b) & ~shell[a] & ~shell[b]
        keep = real & (a < b)
        total += int(keep.sum())
        if total > most:
            crowd = np.bincount(a[real])
            worst = int(crowd.argmax())
            o = scene.objects[worst]
            return empty, error(
                "G041", f"more than {most:,} pairs of objects overlap, the limit "
                f"`footprint_overlaps` (`{o.id}` alone overlaps {int(crowd[worst]):,} "
                "others)", f"objects[{worst}].pose.position", [o.id],
                hint="objects are piled on one spot; spread them out, or "
                + hint("footprint_overlaps"))
        parts_a.append(a[keep])
        parts_b.append(b[keep])
    return (np.concatenate(parts_a), np.concatenate(parts_b)), None


@dataclass(frozen=True)
class SupportConfig:
    max_gap_m: float = 0.05  # the object's bottom within this of the surface
    min_overlap: float = 0.4  # footprint overlap above this fraction of the smaller area
    penetration_area_m2: float = 1e-3  # footprints overlapping more than this ...
    penetration_height_m: float = 0.01  # ... over more than this height interpenetrate


@dataclass(frozen=True, eq=False)
class Support:
    parent: list[int]  # per object: index of its supporting surface, -1: the floor / none
    depth: list[int]  # 1: on the floor; 2: on furniture; ...; 0: floating or stage shell
    kinds: list[Kind]
    rooms: list[int]  # per object: room index in the layout, -1: none
    findings: list[Diagnostic]


def build_support(
    scene: Scene,
    bodies: Bodies,
    surfaces: list[Surface],
    layout: Layout,
    floor_levels: np.ndarray,
    config: SupportConfig,
    overlaps: tuple[np.ndarray, np.ndarray],
) -> Support:
    """The support tree; `overlaps` are the object pairs whose footprints intersect
    (`footprint_overlaps`)."""
    import shapely

    n = bodies.count
    findings: list[Diagnostic] = []
    parent = np.full(n, -1, dtype=np.int64)
    idx = bodies.index()
    shell = np.array([o.kind is Kind.STAGE and o.obstacle is False for o in scene.objects],
                     dtype=bool)
    if surfaces and n:
        spolys = np.array([s.polygon for s in surfaces], dtype=object)
        sz = np.array([s.z for s in surfaces])
        sowner = np.array([idx[s.object_id] for s in surfaces])
        parent = match_supports(bodies.footprints, bodies.bottoms, spolys, sz, sowner, config,
                                ~shell)
    owner_of = [idx[s.object_id] for s in surfaces]
    # Depths along parent chains; a chain that loops is cut.
    depth = np.zeros(n, dtype=np.int64)
    on_floor = (parent < 0) & (np.abs(bodies.bottoms - floor_levels) <= config.max_gap_m) & ~shell
    fixed_kind = np.array(
        [o.kind in (Kind.FURNITURE, Kind.ARTICULATED, Kind.STAGE) for o in scene.objects],
        dtype=bool,
    )
    depth[on_floor | ((parent < 0) & fixed_kind & ~shell)] = 1
    state = np.where(on_floor | shell | (parent < 0), 2, 0)  # 2: done
    for i in range(n):
        chain = []
        j = i
        while state[j] == 0:
            state[j] = 1
            chain.append(j)
            j = owner_of[parent[j]]
        if state[j] == 1:  # a loop: cut it
            for k in chain:
                parent[k] = -1
                depth[k] = 0
                state[k] = 2
            continue
        base = depth[j]
        for k in reversed(chain):
            base = base + 1 if base > 0 else 0
            depth[k] = base
            state[k] = 2
    kinds = [
        o.kind or (Kind.FURNITURE if depth[i] == 1 else Kind.MOVABLE)
        for i, o in enumerate(scene.objects)
    ]
    centres = shapely.get_coordinates(shapely.centroid(bodies.footprints)).reshape(-1, 2)
    rooms = layout.rooms_at(centres, (bodies.bottoms + bodies.tops) / 2)
    # Objects whose carrier is in a room share it (an item on a table by the wall).
    carrier = np.array([*owner_of, -1], dtype=np.int64)[parent]
    lost = (rooms < 0) & (carrier >= 0)
    rooms[lost] = rooms[carrier[lost]]
    for i, o in enumerate(scene.objects):
        if shell[i]:
            continue
        if parent[i] < 0 and not on_floor[i] and kinds[i] is not Kind.STAGE:
            gap = float(bodies.bottoms[i] - floor_levels[i])
            findings.append(
                warning("W102", f"`{o.id}` floats: its bottom is {gap:+.3f} m from the floor "
                        "and it rests on no surface", f"objects[{i}].pose.position", [o.id])
            )
        if layout.room_ids and rooms[i] < 0:
            findings.append(
                warning("W103", f"`{o.id}` is outside every room", f"objects[{i}].pose.position",
                        [o.id])
            )
        if o.room is not None and rooms[i] >= 0 and layout.room_ids[rooms[i]] != o.room:
            findings.append(
                warning("W104", f"`{o.id}` is declared in room `{o.room}` but stands in "
                        f"`{layout.room_ids[rooms[i]]}`", f"objects[{i}].room", [o.id])
            )
    findings.extend(_interpenetrations(scene, bodies, surfaces, parent, kinds, overlaps,
                                       config))
    return Support(parent.tolist(), depth.tolist(), kinds, rooms.tolist(), findings)


def match_supports(
    footprints: Any,
    bottoms: np.ndarray,
    surface_polygons: Any,
    surface_z: np.ndarray,
    surface_owner: np.ndarray,
    config: SupportConfig,
    candidates: np.ndarray | None = None,
) -> np.ndarray:
    """Per object, the index of the surface it rests on (-1: none): its bottom within
    `max_gap_m` of the surface and its footprint overlapping the surface polygon by more
    than `min_overlap` of the smaller area; the nearest height wins, then the larger
    overlap, then the lower surface index. `surface_owner[s]` is the index of the object
    carrying surface s (-1: none of these objects), so nothing rests on itself, nor on
    an object whose bottom is above its own (the floor of a box put inside a box on
    the floor lies within `max_gap_m` above the outer box's bottom: the outer box does
    not rest on it); `candidates` masks the objects to match (default: all)."""
    import shapely

    n = len(footprints)
    parent = np.full(n, -1, dtype=np.int64)
    if n == 0 or len(surface_polygons) == 0:
        return parent
    tree = shapely.STRtree(surface_polygons)
    oi, si = tree.query(footprints, predicate="intersects")
    gap = bottoms[oi] - surface_z[si]
    owner = surface_owner[si]
    below = np.ones(len(si), dtype=bool)
    known = owner >= 0
    below[known] = bottoms[owner[known]] <= bottoms[oi[known]] + 1e-6
    ok = (np.abs(gap) <= config.max_gap_m) & (owner != oi) & below
    if candidates is not None:
        ok &= candidates[oi]
    oi, si, gap = oi[ok], si[ok], gap[ok]
    if len(oi):
        inter = shapely.area(shapely.intersection(footprints[oi], surface_polygons[si]))
        smaller = np.minimum(shapely.area(footprints[oi]), shapely.area(surface_polygons[si]))
        ok = inter > config.min_overlap * smaller
        oi, si, gap, inter = oi[ok], si[ok], gap[ok], inter[ok]
    if len(oi):
        # Best per object: smallest |gap|, then largest overlap, then surface order.
        order = np.lexsort((si, -inter, np.round(np.abs(gap), 4), oi))
        oi, si = oi[order], si[order]
        first = np.r_[True, oi[1:] != oi[:-1]]
        parent[oi[first]] = si[first]
    return parent


def _interpenetrations(
    scene: Scene,
    bodies: Bodies,
    surfaces: list[Surface],
    parent: np.ndarray,
    kinds: list[Kind],
    overlaps: tuple[np.ndarray, np.ndarray],
    config: SupportConfig,
) -> list[Diagnostic]:
    import shapely

    a, b = overlaps
    if not len(a):
        return []
    idx = bodies.index()
    owner = np.array([idx[s.object_id] for s in surfaces] + [-1])
    carrier = owner[parent]  # the object under each object, -1: none
    zover = np.minimum(bodies.tops[a], bodies.tops[b]) - np.maximum(bodies.bottoms[a],
                                                                     bodies.bottoms[b])
    keep = zover > config.penetration_height_m
    a, b = a[keep], b[keep]
    if not len(a):
        return []
    area = shapely.area(shapely.intersection(bodies.footprints[a], bodies.footprints[b]))
    keep = area > config.penetration_area_m2
    a, b, area = a[keep], b[keep], area[keep]
    out = []
    for i, j, ar in zip(a.tolist(), b.tolist(), area.tolist(), strict=True):
        if _is_ancestor(carrier, i, j) or _is_ancestor(carrier, j, i):
            continue
        fixed = kinds[i] is not Kind.MOVABLE and kinds[j] is not Kind.MOVABLE
        oi, oj = scene.objects[i].id, scene.objects[j].id
        code, what = ("W101", "furniture") if fixed else ("W105", "objects")
        out.append(
            warning(code, f"{what} `{oi}` and `{oj}` interpenetrate ({ar:.3f} m² of footprint)",
                    f"objects[{i}]", [oi, oj])
        )
    listed = current().interpenetration_warnings
    if len(out) > listed:
        more = len(out) - listed
        out = out[:listed]
        out.append(warning("W106", f"{more:,} more pairs of objects interpenetrate (not "
                           "listed: the limit `interpenetration_warnings`)", "objects",
                           hint=hint("interpenetration_warnings")))
    return out


def _is_ancestor(carrier: np.ndarray, anc: int, i: int) -> bool:
    seen = 0
    j = int(carrier[i])
    while j >= 0 and seen < 64:
        if j == anc:
            return True
        j = int(carrier[j])
        seen += 1
    return False
