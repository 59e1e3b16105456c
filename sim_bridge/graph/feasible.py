"""Placements the embedded world can never make: is an item on a surface out of the question?

In the embedded world an item moves only by `place`, whose placement queries
(`placement.find_spot`) put it upright, turned 0 or 90 degrees to the surface it goes on,
its footprint within that surface and its height under the room above it
(`placement.headroom_m`, less `HEADROOM_MARGIN_M`). An item on another item (a bowl on a
plate) stands within that item's top, which stands within the surface: stacking never
widens a surface nor raises its ceiling. So, for an item to rest on surface S with its
centre over S (the `on`, `in-cell` and `inside`-a-receptacle checkers' rule), three
things are necessary, each its own rule (and S is not the item's own: `OWN_TOP`):

- `TOO_TALL`: the item is no taller than the room above S;
- `TOO_LARGE`: the item's footprint, turned 0 or 90 degrees, fits within S's outline;
- `CELL`: for `in-cell`, some centre of such a footprint lies in the named cell (the
  checker's closed third-by-third box of S).

The rules are only applied where the argument holds: nothing is judged when another
furniture surface overlapping S could hold the item low enough to count as on S (the
checkers' `on_below_m` / `on_top_m` band), or when an item's top that S carries at the
start overhangs S or is turned by other than a multiple of 90 degrees to it (an item on
it would not be bound by S's outline and frame). Each rule is exact geometry: the
centres where a footprint fits are the outline eroded by the footprint (the outline
minus every edge swept by the box), computed with a box a little smaller than the
item so that only a real impossibility is reported.

Several items on one surface (`pack`) stand on it or on one another, as deep as the
checkers' band lets an item count as on the surface (`layers`; one where nothing can
be stacked); those at one depth stand side by side, kept the placement gap apart: in a
row when no two fit side by side across it (`PACKING`), and never on more area than
the surface offers (`CROWDED`). Items `around` one anchor on a surface too narrow for
two of them side by side stand in its row, one at each end of it and one each side of it
where there is room (`around_room`: `AROUND`).

A container item (`box_0`) counts an item inside when the item's centre is in its box
(grown by the checker's margin): the item rests on one of its floors, or stands beside
it or on its lid close enough. Beside it, another item keeps the placement gap from it;
on the lid, its centre is half its height up. `inside_object` judges the floors by the
rules above when neither other way can count.
See docs/scene-graph.md.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.sim_bridge.geometry import geometry_from_frame, geometry_to_frame, to_frame
from fdc.sim_bridge.graph.placement import FIT_SLACK_M, HEADROOM_MARGIN_M
from fdc.sim_bridge.graph.regions import STEP, Direction
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import ObjectInfo, SceneGraph

#: Slack of the geometric tests: a footprint this much smaller still counts as fitting
#: (twice the placements' own slack, `FIT_SLACK_M`).
SLACK_M = 2 * FIT_SLACK_M
#: The checkers' closed cell boundaries (`predicates.spatial.in_cell`).
CELL_EPS = 1e-9
#: How far a neighbour may reach into the strip between an anchor and an item and still
#: only touch it, not stand between them (the `around`, `at-side` checkers): ten times
#: the placement's micrometre of slack (regions are merged with it, so a packed item may
#: overlap the next region by that much) plus the micrometre to which states are written.
CONTACT_M = 1e-5


class Infeasible(StrEnum):
    """Why no placement of the embedded world can make an atom true."""

    TOO_TALL = "an item taller than the room above its surface"
    TOO_LARGE = "an item larger than its surface"
    CELL = "an item whose centre cannot lie in its cell while it stands on the surface"
    PACKING = "items that cannot stand side by side on their surface"
    CROWDED = "items whose footprints together take more room than their surface has"
    STACKED = "items that fit in their cell only one on another, which no plan makes"
    AROUND = ("more items around an anchor than a surface this narrow has room for next "
              "to it")
    OWN_TOP = "an item on a surface of its own (its top, or a floor inside it)"
    UNREACHABLE = ("an item to move, or a surface or anchor to put it by, that the robot "
                   "cannot walk to from where it starts")


def item_height_m(info: ObjectInfo) -> float:
    """The item's height as placed (upright), or as it stands now when that is lower."""
    return min(float(info.size[2]), float(info.top_z - info.bottom_z))


def _centres(g: SceneGraph, surface: Surface, half_u: float, half_v: float) -> Any:
    """`centres`, computed once per graph, surface and box."""
    cache = _index(g).centres
    key = (surface.id, half_u, half_v)
    found = cache.get(key)
    if found is None:
        found = cache[key] = centres(surface, half_u, half_v)
    return found


def centres(surface: Surface, half_u: float, half_v: float) -> Any:
    """The (u, v) centres, in the surface's frame, of a box of half-extents
    (`half_u`, `half_v`) along the surface's axes whose footprint lies within its outline
    (the outline eroded by the box; empty when the box does not fit)."""
    import shapely

    poly = shapely.transform(surface.polygon,
                             lambda xy: to_frame(xy, surface.origin, surface.yaw_rad))
    hu, hv = max(half_u - SLACK_M, 0.0), max(half_v - SLACK_M, 0.0)
    box = np.array([(-hu, -hv), (hu, -hv), (hu, hv), (-hu, hv)])
    rings = [poly.exterior, *poly.interiors] if poly.geom_type == "Polygon" else \
        [r for p in poly.geoms for r in (p.exterior, *p.interiors)]
    swept = []
    for ring in rings:
        pts = np.asarray(ring.coords)
        for a, b in itertools.pairwise(pts):
            corners = np.concatenate([a + box, b + box])
            swept.append(shapely.convex_hull(shapely.multipoints(corners)))
    if not swept:
        return shapely.Polygon()
    return shapely.difference(poly, shapely.union_all(np.array(swept, dtype=object)))


def cell_box(surface: Surface, cell: Direction) -> Any:
    """The named cell as the `in-cell` checker judges it: a closed third-by-third box of
    the surface's box, in its frame."""
    import shapely

    hu, hv = surface.half_extents
    bounds = []
    for step, half in zip(STEP[Direction(cell)], (hu, hv), strict=True):
        third = half / 3
        lo = third if step > 0 else (-half if step < 0 else -third)
        hi = half if step > 0 else (-third if step < 0 else third)
        bounds += [lo - CELL_EPS, hi + CELL_EPS]
    return shapely.box(bounds[0], bounds[2], bounds[1], bounds[3])


@dataclass(frozen=True)
class _Index:
    """A graph's surfaces for the guards: furniture's and items', each with a tree, and
    every pair of distinct furniture surfaces whose outlines overlap."""

    furniture: list[Surface]
    furniture_tree: Any
    items: list[Surface]
    items_tree: Any
    overlaps: list[tuple[int, int]]
    # answers already found: a goal over many items and surfaces asks the same again
    centres: dict[tuple[str, float, float], Any] = field(default_factory=dict)
    support: dict[tuple[str, float, float, float, bool], bool] = field(default_factory=dict)


_INDEXES: weakref.WeakKeyDictionary[SceneGraph, _Index] = weakref.WeakKeyDictionary()


def _index(g: SceneGraph) -> _Index:
    found = _INDEXES.get(g)
    if found is None:
        import shapely

        furniture: list[Surface] = []
        items: list[Surface] = []
        for s in g.surfaces():
            (items if g.object(s.object_id).kind is Kind.MOVABLE else furniture).append(s)
        fp = np.asarray([s.polygon for s in furniture], dtype=object)
        tree = shapely.STRtree(fp)
        a, b = tree.query(fp, predicate="intersects")
        keep = (a != b) & (shapely.area(shapely.intersection(fp[a], fp[b])) > 0) \
            if len(a) else np.zeros(0, dtype=bool)
        found = _INDEXES[g] = _Index(
            furniture, tree, items,
            shapely.STRtree(np.asarray([s.polygon for s in items], dtype=object)),
            [(int(x), int(y)) for x, y in zip(a[keep], b[keep], strict=True)])
    return found


def _overlapping(tree: Any, surfaces: list[Surface], polygon: Any) -> list[Surface]:
    """The surfaces whose outlines overlap `polygon` (not only touch it)."""
    import shapely

    hits = sorted(int(k) for k in tree.query(polygon, predicate="intersects"))
    return [surfaces[k] for k in hits
            if shapely.intersection(surfaces[k].polygon, polygon).area > 0]


def _other_support(g: SceneGraph, height: float, surface: Surface, on_top_m: float,
                   on_below_m: float, but_twins: bool = False) -> bool:
    """Whether something other than the surface (and the items it carries) could hold
    the item so that it counts as on the surface: a furniture surface overlapping it in
    the checkers' height band, with room for the item (for the floor of a container
    item, wherever the container stands), its `twins` left out when `but_twins`; or an
    item's top that the surface carries at the start overhanging it or turned to it by
    other than a right angle."""
    idx = _index(g)
    key = (surface.id, height, on_top_m, on_below_m, but_twins)
    found = idx.support.get(key)
    if found is None:
        found = idx.support[key] = _find_support(g, idx, height, surface, on_top_m,
                                                 on_below_m, but_twins)
    return found


def twins(g: SceneGraph, surface: Surface, on_below_m: float) -> list[Surface]:
    """The other furniture surfaces overlapping a furniture surface at its height (within
    `on_below_m`) and turned as it is or half a turn (a chair's two receptacles, 1 mm
    apart): an item on one of them counts as on the surface where its centre is over
    it, and the world keeps items on them apart from those on the surface as from one
    another (`SceneView.obstacles_on`)."""
    if g.object(surface.object_id).kind is Kind.MOVABLE:
        return []
    idx = _index(g)
    out = []
    for s in _overlapping(idx.furniture_tree, idx.furniture, surface.polygon):
        turn = (s.yaw_rad - surface.yaw_rad) % math.pi
        if s.id != surface.id and abs(s.z - surface.z) <= on_below_m + SLACK_M and \
                min(turn, math.pi - turn) <= 1e-6:
            out.append(s)
    return out


def _find_support(g: SceneGraph, idx: _Index, height: float, surface: Surface,
                  on_top_m: float, on_below_m: float, but_twins: bool) -> bool:
    import shapely

    owner = g.object(surface.object_id)
    for s in _overlapping(idx.items_tree, idx.items, surface.polygon):
        if s.id == surface.id or s.z > surface.z + on_top_m:
            continue
        turn = (s.yaw_rad - surface.yaw_rad) % (math.pi / 2)
        square = min(turn, math.pi / 2 - turn) <= 1e-6
        if not (square and shapely.covered_by(s.polygon, surface.polygon.buffer(SLACK_M))):
            return True

    def in_band(s: Surface, z_lo: float, z_hi: float) -> bool:
        # the item's bottom on `s` (or on items there) against the band of "on"
        lo, hi = s.z, s.z + s.clearance_m - HEADROOM_MARGIN_M - height
        return lo <= z_hi + on_top_m and hi >= z_lo - on_below_m - SLACK_M

    if owner.kind is not Kind.MOVABLE:
        skip = {s.id for s in twins(g, surface, on_below_m)} if but_twins else set()
        return any(in_band(s, surface.z, surface.z) for s in _overlapping(
            idx.furniture_tree, idx.furniture, surface.polygon)
            if s.id != surface.id and s.id not in skip)
    # it moves with its item: over any furniture surface, raised by what is below it
    lift = surface.z - owner.bottom_z
    above = item_height_m(owner) - lift  # the container's walls above its floor
    for k1, k2 in idx.overlaps:
        base, other = idx.furniture[k1], idx.furniture[k2]
        z_lo, z_hi = base.z + lift, base.z + base.clearance_m - HEADROOM_MARGIN_M - above
        if z_hi >= z_lo and in_band(other, z_lo, z_hi):
            return True
    return False


def rest_on(g: SceneGraph, item: str, surface_id: str, cell: Direction | None = None, *,
            on_top_m: float = 0.15, on_below_m: float = 0.02) -> Infeasible | None:
    """Why `item` can never rest on `surface_id` (its centre in `cell`, if given) in the
    embedded world, or None when it may (or when the rules cannot tell: see the module
    doc). `on_top_m` / `on_below_m`: the checkers' height band of "on"."""
    import shapely

    info = g.object(item)
    s = g.surface(surface_id)
    if s.object_id == item:  # the checkers never count an item on itself
        return Infeasible.OWN_TOP
    height = item_height_m(info)
    if _other_support(g, height, s, on_top_m, on_below_m):
        return None
    if height > s.clearance_m - HEADROOM_MARGIN_M:
        return Infeasible.TOO_TALL
    sx, sy = float(info.size[0]) / 2, float(info.size[1]) / 2
    fits = [c for c in (_centres(g, s, sx, sy), _centres(g, s, sy, sx)) if not c.is_empty]
    if not fits:
        return Infeasible.TOO_LARGE
    if cell is not None:
        box = cell_box(s, Direction(cell))
        if not any(shapely.intersects(c, box) for c in fits):
            return Infeasible.CELL
    return None


def _side_by_side(g: SceneGraph, height: float, margin_m: float) -> bool:
    """Whether two furniture surfaces come within `margin_m` of each other with heights
    at which an item of `height` on one could have its centre level with a container
    on the other: the placement gap then does not keep the item out of the container's
    grown box."""
    idx = _index(g)
    tops = idx.furniture
    polys = np.asarray([s.polygon for s in tops], dtype=object)
    pairs = idx.furniture_tree.query(polys, predicate="dwithin", distance=margin_m)
    for i, j in zip(*pairs, strict=True):
        if i == j:
            continue
        box, it = tops[i], tops[j]  # the container stands on `box`, the item on `it`
        lo, hi = it.z + height / 2, it.z + it.clearance_m - height / 2
        if lo <= box.z + box.clearance_m + margin_m and hi >= box.z - margin_m:
            return True
    return False


def inside_object(g: SceneGraph, item: str, container: str, *, on_top_m: float = 0.15,
                  on_below_m: float = 0.02, inside_margin_m: float = 0.02
                  ) -> Infeasible | None:
    """Why `item` can never be inside the container item `container` (its centre in the
    container's box grown by `inside_margin_m`, the `inside` checker's rule for an
    object) in the embedded world, or None. Judged only for a movable container, whose
    floors lie in its footprint, and an item that can count neither from beside it
    (other items on its surface keep `gap_m` from it, and no two furniture surfaces come
    that close at a height where the item's centre could be level with it) nor from its
    lid (its centre half its height up): then it must rest on a floor, and each floor is
    judged by `rest_on`."""
    info = g.object(item)
    box = g.object(container)
    floors = g.containers_of(container)
    if box.kind is not Kind.MOVABLE or not floors:
        return None
    gap = g.config.placement.gap_m
    height = item_height_m(info)
    if min(float(info.size[0]), float(info.size[1])) / 2 + gap <= inside_margin_m or \
            height / 2 <= inside_margin_m or _side_by_side(g, height, inside_margin_m):
        return None
    found = [rest_on(g, item, f.id, on_top_m=on_top_m, on_below_m=on_below_m) for f in floors]
    if any(r is None for r in found):
        return None
    return found[0]


def stacking_blocked(g: SceneGraph, surface_id: str) -> bool:
    """Whether nothing can ever stand on an item on the surface: its furniture's body
    (an obstacle to every surface but its own, `SceneGraph.obstacles_on`) covers it and
    rises to the top of the room over it, as a shelf's bookcase does. An item's top
    there is lower than that by more than the headroom margin (`headroom_m` leaves no
    room on the top of an item that fills the room), so the body crosses every layer an
    item could be put in on it."""
    import shapely

    s = g.surface(surface_id)
    owner = g.object(s.object_id)
    if owner.kind is Kind.MOVABLE:
        return False
    return bool(owner.bottom_z < s.z and owner.top_z >= s.z + s.clearance_m
                and shapely.covers(owner.footprint, s.polygon))


def layers(heights: Sequence[float], on_top_m: float) -> int:
    """How many items of these heights can stand one over another and all count as on
    the surface under the lowest: one on k others stands at least as high as the k
    lowest together, and its bottom must be at most `on_top_m` above the surface."""
    deep, total = 1, 0.0
    for h in sorted(heights)[:-1]:
        total += h
        if total > on_top_m + SLACK_M:
            break
        deep += 1
    return deep


def pack(g: SceneGraph, surface_id: str, wanted: Sequence[tuple[str, Direction | None]], *,
         at_least: int | None = None, on_top_m: float = 0.15, on_below_m: float = 0.02,
         any_twin: bool = False, flat: bool = False) -> Infeasible | None:
    """Why the items of `wanted` (each with the cell its centre must lie in, or None)
    can never all stand on `surface_id` at once (with `at_least`, never that many of
    them: a count), each moved there by a placement, or None. Each item stands on the
    surface or on items there (a cup on a plate on the table is on the table while its
    bottom is in the checkers' band), turned 0 or 90 degrees, within the outline and
    the cell, and keeps the placement gap from the others on the same surface or top.
    Stacked, an item stands within the top of the one below it, so the wanted items
    form columns: one over another at most `layers` deep (the band allows no more), and
    the items at the same depth of the columns stand side by side, kept the gap apart
    (where they stand on different items, those are). An item may also stand on a twin
    of the surface (`twins`), its centre over the surface (over any of them with
    `any_twin`: the items go on one or another): the room is then theirs together.
    Some depth holds a share of them (a `layers`-th, rounded up), and two rules say when
    no such share can stand side by side:

    - `PACKING`: when no two of them can stand side by side along one axis of the
      surface (their centres' spans along it are too short for their widths), they
      stand in a row along the other, which needs the sum of their widths there (the
      two widest at the ends counting half) and the gaps between them;
    - `CROWDED`: each footprint grown by half the gap is clear of the others' and lies
      within the part of the surface its centre's span reaches (grown by as much), so
      the grown footprints' areas sum to no more than that part's.

    Only the items that can rest there alone are candidates for a share (a count's, or
    a depth's), and the narrowest (smallest) of them make the shortest row (least area):
    no choice of them fits when those do not (the room they must fit in is that of all
    the candidates).

    `STACKED`: items that must stand in cells, which fit there only when some stand on
    others (all of them side by side break a rule above). An item on another's top is
    on the surface below in every model of fdc (fdc-home's `low-top`), but whether its
    centre is in the cell depends on where on the top it stands, which the abstraction
    does not know: no plan certifies such a task, so it is not one fdc emits.

    `flat`: the items stand side by side, none on another (one layer): whether they fit
    so (`start_checks.only_stacked` asks it)."""
    import shapely

    need_n = len(wanted) if at_least is None else at_least
    if need_n < 1 or (need_n == 1 and at_least is None):
        return None
    if need_n == 1:  # a count of one: some item must rest there alone
        alone = [rest_on(g, item, surface_id, cell, on_top_m=on_top_m,
                         on_below_m=on_below_m) for item, cell in wanted]
        return None if any(r is None for r in alone) else alone[0]
    depth = 1 if flat or stacking_blocked(g, surface_id) else layers(
        [item_height_m(g.object(item)) for item, _ in wanted], on_top_m)
    share = -(-need_n // depth)  # the items at the most crowded depth of the columns
    cells = any(cell is not None for _, cell in wanted)
    if share < 2 and not cells:
        return None
    s = g.surface(surface_id)
    gap = g.config.placement.gap_m
    local = geometry_to_frame(s.polygon, s.origin, s.yaw_rad)
    # the surfaces an item may stand on to count as on this one, and the room they make
    beside = twins(g, s, on_below_m)
    room = shapely.union_all([local, *(geometry_to_frame(t.polygon, s.origin, s.yaw_rad)
                                       for t in beside)])
    # per item: (u0, v0, u1, v1, half along u, half along v) of each orientation that fits
    shapes: list[list[tuple[float, ...]]] = []
    alone: Infeasible | None = None  # why the first item that cannot rest there alone
    for item, cell in wanted:
        info = g.object(item)
        height = item_height_m(info)
        if _other_support(g, height, s, on_top_m, on_below_m, but_twins=True):
            return None
        one = rest_on(g, item, surface_id, cell, on_top_m=on_top_m, on_below_m=on_below_m)
        if one is not None:
            if at_least is None:
                return one
            alone = alone or one
            continue
        box = cell_box(s, Direction(cell)) if cell is not None else None
        sx, sy = float(info.size[0]) / 2, float(info.size[1]) / 2
        found = []
        for hu, hv in ((sx, sy), (sy, sx)):
            c = _centres(g, s, hu, hv)
            if beside:  # or on a twin, its centre over this surface (or any)
                over = [geometry_to_frame(geometry_from_frame(
                    _centres(g, t, hu, hv), t.origin, t.yaw_rad), s.origin, s.yaw_rad)
                    for t in beside]
                c = shapely.union_all([c, *(o if any_twin else o.intersection(local)
                                            for o in over)])
            if box is not None:
                c = c.intersection(box)
            if not c.is_empty:
                found.append((*c.bounds, hu - SLACK_M, hv - SLACK_M))
        if not found:  # on no twin either (`rest_on` does not judge where twins are)
            if at_least is None:
                return Infeasible.CELL if box is not None else Infeasible.TOO_LARGE
            alone = alone or (Infeasible.CELL if box is not None else Infeasible.TOO_LARGE)
            continue
        shapes.append(found)
    if len(shapes) < need_n:
        return alone
    if share > 1 and _row_too_long(shapes, share, gap):
        return Infeasible.PACKING
    if share > 1 and _crowded(shapes, share, gap, room):
        return Infeasible.CROWDED
    if share < need_n and cells and (
            _row_too_long(shapes, need_n, gap) or _crowded(shapes, need_n, gap, room)):
        return Infeasible.STACKED
    return None


def _row_too_long(shapes: list[list[tuple[float, ...]]], n: int, gap: float) -> bool:
    """`pack`'s `PACKING` rule for `n` of the items of `shapes`."""
    for axis in (0, 1):  # the axis along which no two can stand side by side
        other = 1 - axis
        apart = any(
            max(a[axis + 2] - b[axis], b[axis + 2] - a[axis]) > a[4 + axis] + b[4 + axis] + gap
            for i, j in itertools.combinations(range(len(shapes)), 2)
            for a in shapes[i] for b in shapes[j])
        if apart:
            continue
        widths = sorted(2 * min(o[4 + other] for o in sh) for sh in shapes)[:n]
        need = sum(widths) - (widths[-1] + widths[-2]) / 2 + gap * (n - 1)
        span = max(o[other + 2] for sh in shapes for o in sh) - \
            min(o[other] for sh in shapes for o in sh)
        if span < need - SLACK_M:
            return True
    return False


def _crowded(shapes: list[list[tuple[float, ...]]], n: int, gap: float, local: Any) -> bool:
    """`pack`'s `CROWDED` rule for `n` of the items of `shapes` on the surface outline
    `local` (in its frame). A footprint kept more than `gap` from the others, grown by
    a disc of half of it, is clear of theirs; the room is over-estimated (grown by a
    square, not a disc) and each footprint under-estimated, so only a real shortage
    counts."""
    import shapely

    r = max(gap - SLACK_M, 0.0) / 2

    def grown(hu: float, hv: float) -> float:
        return 4 * hu * hv + 4 * r * (hu + hv) + math.pi * r * r

    areas = sorted(min(grown(o[4], o[5]) for o in sh) for sh in shapes)[:n]
    reach = shapely.union_all([
        shapely.box(o[0] - o[4] - SLACK_M, o[1] - o[5] - SLACK_M, o[2] + o[4] + SLACK_M,
                    o[3] + o[5] + SLACK_M) for sh in shapes for o in sh])
    within = local.buffer(SLACK_M, join_style="mitre")  # the placements' own slack
    room = within.intersection(reach).buffer(r + SLACK_M, join_style="mitre")
    return bool(sum(areas) > room.area + SLACK_M)


def around_room(g: SceneGraph, surface_id: str, anchor: str, items: Sequence[str], *,
                on_below_m: float = 0.02) -> Infeasible | None:
    """`AROUND` when the distinct `items` can never all be `around` `anchor` at once on
    `surface_id`, else None. The checker wants each item on the anchor's surface, its
    centre beyond the anchor's box, and no other item's box reaching into the strip
    between them. An item standing on another stands over it, which then reaches into
    its strip: each item around the anchor stands on the surface itself.

    Along an axis of the surface across which the centres of any two of the items lie
    less than half the narrower one's width apart (a 0.35 m deep shelf, 25 cm plates),
    each item covers, across that axis, every other one's centre: of two items beyond
    the same end of the anchor's box along the other axis, the nearer reaches into the
    farther's strip. So at most one item is around the anchor beyond each end, and of
    those beside it (their centres within its box's extent along the row) at most one
    on each side, and only where the anchor and such an item fit side by side across
    the surface (turned 0 or 90 degrees, as placements are). The argument holds only
    where every one of them stands square to the surface, within its outline: nothing
    is judged where the anchor or an item on the surface at the start is turned
    otherwise, overhangs it, stands on another item over the surface, or where the
    surface has twins."""
    import shapely

    need = len(items)
    if need < 3:
        return None
    s = g.surface(surface_id)
    if twins(g, s, on_below_m):
        return None

    within = s.polygon.buffer(SLACK_M, join_style="mitre")

    def square(info: ObjectInfo) -> bool:
        """Standing on the surface square to it, its footprint its box, within the
        outline (as a placement would put it)."""
        turn = math.remainder(info.yaw_rad - s.yaw_rad, math.pi / 2)
        area = float(info.size[0] * info.size[1])
        return abs(turn) < 1e-6 and abs(info.footprint.area - area) <= 1e-6 * max(area, 1e-9) \
            and bool(shapely.covers(within, info.footprint))

    lo_hi: list[tuple[tuple[float, float], tuple[float, float], float]] = []
    for item in (anchor, *items):
        info = g.object(item)
        if shapely.intersects(info.footprint, s.polygon) and (
                info.parent_surface != surface_id or not square(info)):
            return None
        sx, sy = float(info.size[0]) / 2, float(info.size[1]) / 2
        spans = [c.bounds for hu, hv in ((sx, sy), (sy, sx))
                 if not (c := _centres(g, s, hu, hv)).is_empty]
        if not spans:
            return None  # it fits nowhere there: `rest_on`'s to say
        lo_hi.append(((min(b[0] for b in spans), max(b[2] for b in spans)),
                      (min(b[1] for b in spans), max(b[3] for b in spans)),
                      min(sx, sy) - SLACK_M))
    (_, _, half_a), rest = lo_hi[0], lo_hi[1:]
    u0, v0, u1, v1 = geometry_to_frame(s.polygon, s.origin, s.yaw_rad).bounds
    for axis, across in ((0, u1 - u0), (1, v1 - v0)):
        # across `axis` every item covers every other one's centre
        if any(max(a[axis][1] - b[axis][0], b[axis][1] - a[axis][0])
               >= min(a[2], b[2]) - CONTACT_M
               for a, b in itertools.combinations(rest, 2)):
            continue
        widths = sorted(2 * h for _, _, h in rest)
        room = across - 2 * half_a + SLACK_M  # across the surface, beside the anchor
        beside = 0 if widths[0] > room else (1 if widths[0] + widths[1] > room else 2)
        if need > 2 + beside:
            return Infeasible.AROUND
    return None
