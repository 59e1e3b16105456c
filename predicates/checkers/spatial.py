"""Fluent spatial relations between items, surfaces and rooms, on the current state.

All batched: each checker takes one column of ids per parameter and answers every atom
in one numpy pass. Positions are the items' current poses (`WorldState.object_pose`);
surfaces, rooms and standing points are the scene graph's. Relations follow the scene
graph's regions (`docs/scene-graph.md`): cells are thirds of the surface's box in its own
frame, judged by the item's centre; the 8 sides of an anchor are relative to the viewer's
side of the surface. PARTNR's relations (`on-top-of`, `inside-of`, `on-floor`,
`next-to`) take whole objects, furniture or items, as PARTNR names receptacles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import numpy as np
import numpy.typing as npt

from fdc.predicates.checkers.poses import (
    Items,
    SurfaceTable,
    footprint_uv,
    items,
    occupants,
    on_mask,
    room_mask,
    surface_table,
    surface_uv,
    to_graph_frame,
)
from fdc.predicates.meaning import Placement, means
from fdc.predicates.registry import (
    Articulated,
    Cells,
    Context,
    EvaluationError,
    Ids,
    Movables,
    PddlType,
    ReceptaclesOrContainers,
    Rooms,
    Surfaces,
    fluent,
)
from fdc.sim_bridge.geometry import quaternions_to_matrices
from fdc.sim_bridge.graph.feasible import CONTACT_M
from fdc.sim_bridge.graph.placement import Relation
from fdc.sim_bridge.graph.regions import STEP, Direction, Side, surface_direction
from fdc.sim_bridge.scene.schema import Kind

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import ObjectInfo, SceneGraph

Bools = npt.NDArray[np.bool_]
EPS = 1e-9
#: Whole objects, as PARTNR names receptacles: furniture or items.
Things = Annotated[Ids, PddlType("furniture", "movable")]


def _not_own(table: SurfaceTable, rows: np.ndarray, o: Sequence[str]) -> Bools:
    """The surface is not the item's own top: a thin item (a plate) sits within
    `on_below_m` of its own top, and resting on oneself means nothing."""
    return np.array([table.carrier[r] != x for r, x in zip(rows.tolist(), o, strict=True)],
                    dtype=bool)


@fluent
@means(relocates="o", onto="s", placement=Placement(Relation.ON, order=5))
def on(ctx: Context, o: Movables, s: Surfaces, *, on_top_m: float = 0.15,
       on_below_m: float = 0.02) -> Bools:
    """The item rests on the surface: not held, its centre over the surface's outline,
    its bottom at most `on_top_m` above (and `on_below_m` below) the surface, no
    furniture surface between them; never on its own top."""
    table = surface_table(ctx.graph)
    rows = table.rows(s)
    return on_mask(ctx, items(ctx, o), table, rows, on_top_m, on_below_m) & _not_own(
        table, rows, o)


@fluent
@means(relocates="o", onto="c", placement=Placement(Relation.INSIDE, order=4))
def inside(ctx: Context, o: Movables, c: ReceptaclesOrContainers, *, on_top_m: float = 0.15,
           on_below_m: float = 0.02, inside_margin_m: float = 0.02) -> Bools:
    """The item is in a receptacle (a surface inside furniture: it rests on it) or in a
    container item (its centre inside the container's current box, grown by
    `inside_margin_m`; never the item the container stands on)."""
    g = ctx.graph
    table = surface_table(g)
    is_surface = np.array([x in table.index for x in c], dtype=bool)
    out = np.zeros(len(o), dtype=bool)
    if is_surface.any():
        k = np.nonzero(is_surface)[0]
        it = items(ctx, [o[i] for i in k])
        out[k] = on_mask(ctx, it, table, table.rows([c[i] for i in k]), on_top_m, on_below_m)
    if (~is_surface).any():
        k = np.nonzero(~is_surface)[0]
        for i in k:
            if not g.has(c[i]):
                raise EvaluationError(f"unknown container `{c[i]}`")
        it = items(ctx, [o[i] for i in k])
        box = items(ctx, [c[i] for i in k])
        rel = np.einsum("nji,nj->ni", box.matrix, it.centre - box.centre)  # R^T (p - c)
        fits = np.all(np.abs(rel) <= box.size / 2 + inside_margin_m, axis=1)
        same = np.array([o[i] == c[i] for i in k], dtype=bool)
        # what the container stands on is under it, not in it (a thin tray's centre
        # lies within the margin below a box put on it)
        state = ctx.require_state()
        under = np.array([(s := state.support_of(c[i])) is not None and g.has(s)
                          and g.surface(s).object_id == o[i] for i in k], dtype=bool)
        out[k] = fits & ~it.held & ~same & ~under
    return out


@fluent
@means(relocates="o", any_surface=True)
def in_room(ctx: Context, o: Movables, r: Rooms) -> Bools:
    """The item's centre is in the room (outline and height band); a held item is where
    the robot is."""
    state = ctx.require_state()
    it = items(ctx, o)
    xy, z = it.centre[:, :2].copy(), it.centre[:, 2].copy()
    if it.held.any():
        a = state.agent_pose()
        xy[it.held] = (a.x, a.y)
        z[it.held] = a.z
    return room_mask(ctx, xy, z, r)


def _cell_step(name: str) -> tuple[int, int]:
    try:
        return STEP[Direction(name)]
    except ValueError:
        raise EvaluationError(f"`{name}` is not a cell or direction "
                              f"({', '.join(d.value for d in Direction)})") from None


@fluent
@means(relocates="o", onto="s",
       placement=Placement(Relation.IN_CELL, order=3, in_region=True))
def in_cell(ctx: Context, o: Movables, s: Surfaces, c: Cells, *, on_top_m: float = 0.15,
            on_below_m: float = 0.02) -> Bools:
    """The item rests on the surface (never its own top) and its centre lies in the named
    third-by-third cell of the surface's box (named as a viewer facing its front sees
    them; judged by the centre, as ManiTaskGen does; a centre on a cell boundary is in
    both cells)."""
    table = surface_table(ctx.graph)
    rows = table.rows(s)
    it = items(ctx, o)
    ok = on_mask(ctx, it, table, rows, on_top_m, on_below_m) & _not_own(table, rows, o)
    xy, _ = to_graph_frame(ctx, table, rows, it.centre[:, :2])
    uv = surface_uv(table, rows, xy)
    known = {x: _cell_step(x) for x in dict.fromkeys(c)}
    steps = np.array([known[x] for x in c], dtype=np.float64).reshape(-1, 2)
    half = table.half[rows]
    third = half / 3
    lo = np.where(steps > 0, third, np.where(steps < 0, -half, -third))
    hi = np.where(steps > 0, half, np.where(steps < 0, -third, third))
    return ok & np.all((uv >= lo - EPS) & (uv <= hi + EPS), axis=1)


# ----------------------------------------------------------------------------- anchors


def _viewer_sides(ctx: Context, table_rows: np.ndarray) -> list[Side]:
    """The side of each surface the viewer is at: the context's, else the side the
    agent stands at now (the side of the standing point it occupies), from the agent's
    position in the surface's frame."""
    if ctx.viewer_side is not None:
        return [Side(ctx.viewer_side)] * len(table_rows)
    a = ctx.require_state().agent_pose()
    table = surface_table(ctx.graph)
    pts = np.tile([a.x, a.y], (len(table_rows), 1)).astype(np.float64)
    pts, _ = to_graph_frame(ctx, table, table_rows, pts)
    uv = surface_uv(table, table_rows, pts)
    r = uv / np.maximum(table.half[table_rows], 1e-9)
    out = []
    for ru, rv in r.tolist():
        if abs(ru) >= abs(rv):
            out.append(Side.FRONT if ru >= 0 else Side.REAR)
        else:
            out.append(Side.LEFT if rv >= 0 else Side.RIGHT)
    return out


def _anchor_frame(ctx: Context, o: list[str], a: list[str], on_top_m: float,
                  on_below_m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              list[str | None]]:
    """For each (item, anchor): both rest on the anchor's surface (mask), the rows of
    that surface, the item's centre (u, v) and the anchor's box (u0, v0, u1, v1) there."""
    state = ctx.require_state()
    table = surface_table(ctx.graph)
    surf = [state.support_of(x) for x in a]
    has = np.array([x is not None and x in table.index for x in surf], dtype=bool)
    rows = np.array([table.index[x] if h and x is not None else 0
                     for x, h in zip(surf, has, strict=True)], dtype=np.int64)
    it, an = items(ctx, o), items(ctx, a)
    ok = has & (np.asarray(o, dtype=object) != np.asarray(a, dtype=object))
    if ok.any():
        ok &= on_mask(ctx, it, table, rows, on_top_m, on_below_m)
        ok &= on_mask(ctx, an, table, rows, on_top_m, on_below_m)
    xy, _ = to_graph_frame(ctx, table, rows, it.centre[:, :2])
    centre = surface_uv(table, rows, xy)
    box = footprint_uv(ctx, an, table, rows)
    return ok, rows, centre, box, surf


def _blocked(ctx: Context, o: list[str], a: list[str], surf: list[str | None],
             rows: np.ndarray, steps: np.ndarray, centre: np.ndarray, box: np.ndarray,
             ok: np.ndarray, on_top_m: float, on_below_m: float) -> np.ndarray:
    """Whether another item on the surface intrudes into the box between the anchor and
    the item's centre (the anchor's region in that direction is cut back before it)."""
    blocked = np.zeros(len(o), dtype=bool)
    live = np.nonzero(ok)[0]
    if not len(live):
        return blocked
    occ = occupants(ctx, sorted({surf[i] for i in live if surf[i] is not None}), on_top_m,
                    on_below_m)
    pair_atom: list[int] = []
    pair_id: list[str] = []
    for i in live.tolist():
        for n in occ.get(surf[i] or "", []):
            if n != o[i] and n != a[i]:
                pair_atom.append(i)
                pair_id.append(n)
    if not pair_atom:
        return blocked
    table = surface_table(ctx.graph)
    atoms = np.array(pair_atom, dtype=np.int64)
    nb = footprint_uv(ctx, items(ctx, pair_id), table, rows[atoms])
    st, c, b = steps[atoms], centre[atoms], box[atoms]
    lo = np.where(st > 0, b[:, 2:], np.where(st < 0, c, b[:, :2]))
    hi = np.where(st > 0, c, np.where(st < 0, b[:, :2], b[:, 2:]))
    hit = np.all((nb[:, :2] < hi - CONTACT_M) & (nb[:, 2:] > lo + CONTACT_M), axis=1)
    np.logical_or.at(blocked, atoms, hit)
    return blocked


def _zone_steps(centre: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(n, 2) the direction (su, sv) of each centre from its anchor's box."""
    su = np.where(centre[:, 0] > box[:, 2], 1, np.where(centre[:, 0] < box[:, 0], -1, 0))
    sv = np.where(centre[:, 1] > box[:, 3], 1, np.where(centre[:, 1] < box[:, 1], -1, 0))
    return np.stack([su, sv], axis=1)


@fluent
@means(relocates="o", anchors=["a"], viewer_relative=True,
       placement=Placement(Relation.DIRECTION, order=1, in_region=True))
def at_side(ctx: Context, o: Movables, a: Movables, d: Cells, *, on_top_m: float = 0.15,
            on_below_m: float = 0.02) -> Bools:
    """The item rests on the anchor's surface in the anchor's region in direction `d`
    (`front` ... `rear-right`, in the words of the viewer: `front` is towards the viewer,
    `left` is the viewer's left): its centre beyond the anchor's box on that side, with
    no other item between them (ManiTaskGen's regions, cut back at the first neighbour).
    `center` is no side: false."""
    o, a = list(o), list(a)
    ok, rows, centre, box, surf = _anchor_frame(ctx, o, a, on_top_m, on_below_m)
    sides = _viewer_sides(ctx, rows)
    want = np.zeros((len(o), 2), dtype=np.int64)
    for i, (name, side) in enumerate(zip(d, sides, strict=True)):
        _cell_step(name)
        want[i] = STEP[surface_direction(Direction(name), side)]
    ok &= np.any(want != 0, axis=1)
    ok &= np.all(_zone_steps(centre, box) == want, axis=1)
    return ok & ~_blocked(ctx, o, a, surf, rows, want, centre, box, ok, on_top_m, on_below_m)


@fluent
@means(relocates="o", anchors=["a"],
       placement=Placement(Relation.AROUND, order=2, in_region=True))
def around(ctx: Context, o: Movables, a: Movables, *, on_top_m: float = 0.15,
           on_below_m: float = 0.02) -> Bools:
    """The item is in one of the anchor's 8 regions: on the same surface, its centre
    outside the anchor's box, with no other item between them. Not vacuous: an item on
    another surface, over the anchor, or behind a neighbour is not around it."""
    o, a = list(o), list(a)
    ok, rows, centre, box, surf = _anchor_frame(ctx, o, a, on_top_m, on_below_m)
    steps = _zone_steps(centre, box)
    ok &= np.any(steps != 0, axis=1)
    return ok & ~_blocked(ctx, o, a, surf, rows, steps, centre, box, ok, on_top_m, on_below_m)


@fluent
@means(relocates="o", anchors=["a", "b"],
       placement=Placement(Relation.BETWEEN, order=0, in_region=True))
def between(ctx: Context, o: Movables, a: Movables, b: Movables, *, on_top_m: float = 0.15,
            on_below_m: float = 0.02) -> Bools:
    """All three rest on one surface and the item's centre lies in the strip joining the
    anchors' centres (as wide as the narrower anchor across it), outside both anchors'
    boxes: the placement query's `between`."""
    o, a, b = list(o), list(a), list(b)
    ok_a, rows, _, _, _ = _anchor_frame(ctx, o, a, on_top_m, on_below_m)
    table = surface_table(ctx.graph)
    it_b = items(ctx, b)
    ok = ok_a & on_mask(ctx, it_b, table, rows, on_top_m, on_below_m)
    ok &= (np.asarray(b, dtype=object) != np.asarray(a, dtype=object))
    ok &= (np.asarray(b, dtype=object) != np.asarray(o, dtype=object))
    it, it_a = items(ctx, o), items(ctx, a)
    ca, cb, p = it_a.centre[:, :2], it_b.centre[:, :2], it.centre[:, :2]
    axis = cb - ca
    length = np.hypot(axis[:, 0], axis[:, 1])
    unit = axis / np.maximum(length, 1e-12)[:, None]
    normal = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
    t = ((p - ca) * unit).sum(axis=1)
    w = ((p - ca) * normal).sum(axis=1)

    def width(x: Items) -> np.ndarray:
        corners = x.corners_xy()
        across = (corners * normal[:, None, :]).sum(axis=2)
        return np.asarray(across.max(axis=1) - across.min(axis=1))

    half_w = np.minimum(width(it_a), width(it_b)) / 2
    ok &= (length > 1e-9) & (t > 0) & (t < length) & (np.abs(w) <= half_w + EPS)
    for anchor in (it_a, it_b):
        rel = np.einsum("nji,nj->ni", anchor.matrix, it.centre - anchor.centre)[:, :2]
        ok &= ~np.all(np.abs(rel) < anchor.size[:, :2] / 2, axis=1)
    return ok


@fluent
def is_open(ctx: Context, f: Articulated) -> bool:
    """Some door or drawer of the furniture is open: one of its containers (keyed by
    container surface id, `cabinet|inside`), or the furniture itself when it has none."""
    state = ctx.require_state()
    floors = ctx.graph.containers_of(f)
    if not ctx.graph.has(f):
        raise EvaluationError(f"unknown furniture `{f}`")
    if not floors:
        return bool(state.is_open(f))
    return any(bool(state.is_open(s.id)) for s in floors)


# ----------------------------------------------------------------------------- one-atom forms


def _surfaces_under(ctx: Context, ids: Sequence[str], rows: np.ndarray, on_top_m: float,
                    on_below_m: float) -> dict[str, set[int]]:
    """The surfaces (table rows, among `rows`) each item is `on` now, never its own top."""
    out: dict[str, set[int]] = {i: set() for i in dict.fromkeys(ids)}
    if not out or not len(rows):
        return out
    table = surface_table(ctx.graph)
    who = [i for i in out for _ in range(len(rows))]
    pair_rows = np.tile(rows, len(out))
    ok = on_mask(ctx, items(ctx, who), table, pair_rows, on_top_m, on_below_m) & \
        _not_own(table, pair_rows, who)
    for k in np.nonzero(ok)[0].tolist():
        out[who[k]].add(int(pair_rows[k]))
    return out


@fluent
@means(relocates="o", any_surface=True)
def on_furniture(ctx: Context, o: Movables, *, on_top_m: float = 0.15,
                 on_below_m: float = 0.02) -> Bools:
    """The item rests on a surface of a piece of furniture (`on` it, with its
    thresholds): one atom for the `exists` over every furniture surface."""
    table = surface_table(ctx.graph)
    rows = np.nonzero(~table.carrier_movable)[0]
    under = _surfaces_under(ctx, o, rows, on_top_m, on_below_m)
    return np.fromiter((bool(under[x]) for x in o), dtype=bool, count=len(o))


@fluent
@means(relocates="a")
def same_surface(ctx: Context, a: Movables, b: Movables, *, on_top_m: float = 0.15,
                 on_below_m: float = 0.02) -> Bools:
    """Two different items rest on one surface: some surface both are `on` (one atom for
    the `exists` over every surface)."""
    rows = np.arange(len(surface_table(ctx.graph).ids), dtype=np.int64)
    under = _surfaces_under(ctx, [*a, *b], rows, on_top_m, on_below_m)
    return np.fromiter((x != y and bool(under[x] & under[y]) for x, y in zip(a, b, strict=True)),
                       dtype=bool, count=len(a))


# ----------------------------------------------------------------------------- whole objects


def _object(g: SceneGraph, ident: str) -> ObjectInfo:
    try:
        return g.object(ident)
    except KeyError:
        raise EvaluationError(f"unknown object `{ident}`") from None


def boxes(ctx: Context, ids: Sequence[str]) -> Items:
    """Current oriented boxes of any objects: the state's pose for the objects it tracks,
    the scene's for fixed furniture."""
    state = ctx.require_state()
    tracked = set(state.object_ids())
    moving = [i for i in ids if i in tracked]
    out = items(ctx, moving) if moving else None
    g = ctx.graph
    centre = np.empty((len(ids), 3))
    matrix = np.empty((len(ids), 3, 3))
    size = np.empty((len(ids), 3))
    held = np.zeros(len(ids), dtype=bool)
    fixed: list[int] = []
    quat: list[tuple[float, float, float, float]] = []
    k = 0
    for n, ident in enumerate(ids):
        if ident in tracked:
            assert out is not None
            centre[n], matrix[n], size[n], held[n] = (out.centre[k], out.matrix[k], out.size[k],
                                                      out.held[k])
            k += 1
            continue
        spec = _object(g, ident).spec
        centre[n], size[n] = spec.pose.position, spec.size
        fixed.append(n)
        quat.append(tuple(spec.pose.orientation))
    if fixed:
        matrix[fixed] = quaternions_to_matrices(np.array(quat, dtype=np.float64))
    half_z = (np.abs(matrix[:, 2, :]) * size).sum(axis=1) / 2
    return Items(ids=ids, centre=centre, matrix=matrix, size=size, bottom=centre[:, 2] - half_z,
                 held=held)


def _support_chains(ctx: Context, ids: Sequence[str], on_top_m: float, on_below_m: float
                    ) -> dict[str, list[str]]:
    """Each item followed by the items it is stacked on, down its support chain: the
    surface the state says it rests on, when a movable item carries it and the geometry
    confirms the resting (`on`'s rule)."""
    state = ctx.require_state()
    table = surface_table(ctx.graph)
    chains = {i: [i] for i in dict.fromkeys(ids)}
    live = list(chains)
    while live:
        links: list[tuple[str, str, str, str]] = []  # (item, top of its chain, surface, carrier)
        for i in live:
            top = chains[i][-1]
            s = state.support_of(top)
            if s is None or s not in table.index:
                continue
            r = table.index[s]
            carrier = table.carrier[r]
            if table.carrier_movable[r] and carrier not in chains[i]:
                links.append((i, top, s, carrier))
        if not links:
            break
        ok = on_mask(ctx, items(ctx, [x[1] for x in links]), table,
                     table.rows([x[2] for x in links]), on_top_m, on_below_m)
        live = []
        for (i, _, _, carrier), good in zip(links, ok.tolist(), strict=True):
            if good:
                chains[i].append(carrier)
                live.append(i)
    return chains


@fluent
@means(relocates="o", any_surface=True)
def on_top_of(ctx: Context, o: Movables, x: Things, *, on_top_m: float = 0.15,
              on_below_m: float = 0.02) -> Bools:
    """The item rests on one of the object's surfaces that is not a container floor (a
    table's top, an open shelf), directly or on items stacked there (a cup on a plate on
    the table is on top of the table); never on itself; a held item is on nothing."""
    o, x = list(o), list(x)
    table = surface_table(ctx.graph)
    tops = {h: [table.index[s.id] for s in ctx.graph.surfaces(_object(ctx.graph, h).id)
                if s.container is None] for h in dict.fromkeys(x)}
    chains = _support_chains(ctx, o, on_top_m, on_below_m)
    atom: list[int] = []
    who: list[str] = []
    row: list[int] = []
    for i, (item, h) in enumerate(zip(o, x, strict=True)):
        if item == h:
            continue
        for c in chains[item]:
            if c == h:  # the chain reached the object: the item below was asked already
                break
            atom += [i] * len(tops[h])
            who += [c] * len(tops[h])
            row += tops[h]
    out = np.zeros(len(o), dtype=bool)
    if atom:
        ok = on_mask(ctx, items(ctx, who), table, np.array(row, dtype=np.int64), on_top_m,
                     on_below_m)
        np.logical_or.at(out, np.array(atom, dtype=np.int64), ok)
    return out


@fluent
@means(relocates="o", any_surface=True)
def inside_of(ctx: Context, o: Movables, x: Things, *, on_top_m: float = 0.15,
              on_below_m: float = 0.02, inside_margin_m: float = 0.02) -> Bools:
    """The item is in the object: on the floor of one of its containers (a cabinet's shelf
    behind a door, a drawer), or, for a movable container without container floors (a
    basket), inside its current box as `inside` judges it."""
    o, x = list(o), list(x)
    g = ctx.graph
    table = surface_table(g)
    floors: dict[str, list[int]] = {}
    by_box: dict[str, bool] = {}
    for h in dict.fromkeys(x):
        info = _object(g, h)
        floors[h] = [table.index[s.id] for s in g.containers_of(h)]
        by_box[h] = not floors[h] and info.kind is Kind.MOVABLE
    out = np.zeros(len(o), dtype=bool)
    atom: list[int] = []
    who: list[str] = []
    row: list[int] = []
    for i, (item, h) in enumerate(zip(o, x, strict=True)):
        if item != h:
            atom += [i] * len(floors[h])
            who += [item] * len(floors[h])
            row += floors[h]
    if atom:
        ok = on_mask(ctx, items(ctx, who), table, np.array(row, dtype=np.int64), on_top_m,
                     on_below_m)
        np.logical_or.at(out, np.array(atom, dtype=np.int64), ok)
    k = [i for i, h in enumerate(x) if by_box[h]]
    if k:
        out[k] = inside(ctx, [o[i] for i in k], [x[i] for i in k], on_top_m=on_top_m,
                        on_below_m=on_below_m, inside_margin_m=inside_margin_m)
    return out


@fluent
def on_floor(ctx: Context, o: Movables, *, floor_gap_m: float = 0.05) -> Bools:
    """The item lies on the floor: not held, its bottom at most `floor_gap_m` above (or
    below) the floor of the room its centre is in; outside every room it is not."""
    it = items(ctx, o)
    layout = ctx.graph.layout
    k = layout.rooms_at(it.centre[:, :2])
    inside_room = k >= 0
    floor = layout.floor_z[k[inside_room]]
    near = np.zeros(len(k), dtype=bool)
    near[inside_room] = np.abs(it.bottom[inside_room] - floor) <= floor_gap_m + EPS
    return np.asarray(near & ~it.held, dtype=bool)


def _reach(box: Items, unit: np.ndarray) -> np.ndarray:
    """How far each box reaches from its centre along a world direction: the direction in
    the box's own frame, scaled by its half sizes."""
    local = np.einsum("nji,nj->ni", box.matrix, unit)  # R^T u
    return np.asarray(np.linalg.norm(local * box.size / 2, axis=1))


def regularised_distance(a: Items, b: Items) -> np.ndarray:
    """Habitat's `size_regularized_bb_distance(flatten_axis=1)` in fdc's Z-up frame: the
    horizontal distance between the box centres, less each box's half-extent along that
    line (the unit direction scaled by the half sizes in the box's own frame). Boxes with
    one centre (seen from above) are 0 apart."""
    d = np.zeros((len(a.ids), 3))
    d[:, :2] = b.centre[:, :2] - a.centre[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    apart = length > 1e-12
    unit = np.zeros_like(d)
    unit[apart] = d[apart] / length[apart, None]
    return np.asarray(length - _reach(a, unit) - _reach(b, -unit))


@fluent
@means(relocates="a", any_surface=True)
def next_to(ctx: Context, a: Things, b: Things, *, next_to_m: float = 0.5,
            next_to_vertical_m: float = 0.1) -> Bools:
    """The two objects stand next to each other, as Habitat's `obj_next_to` judges it:
    their boxes overlap in height (with `next_to_vertical_m` of slack) and the
    size-regularised horizontal distance between their centres is at most `next_to_m`.
    An object is not next to itself. An item on a surface of the other object (a piece
    of furniture's top or shelf, an item's top) is next to it: its centre lies over
    the other's box, its bottom within its height."""
    a, b = list(a), list(b)
    ba, bb = boxes(ctx, a), boxes(ctx, b)
    top_a = 2 * ba.centre[:, 2] - ba.bottom
    top_b = 2 * bb.centre[:, 2] - bb.bottom
    level = (ba.bottom <= top_b + next_to_vertical_m + EPS) & \
        (bb.bottom <= top_a + next_to_vertical_m + EPS)
    near = regularised_distance(ba, bb) <= next_to_m + EPS
    same = np.asarray(a, dtype=object) == np.asarray(b, dtype=object)
    return np.asarray(level & near & ~same, dtype=bool)


__all__ = ["around", "at_side", "between", "boxes", "in_cell", "in_room", "inside", "inside_of",
           "is_open", "next_to", "on", "on_floor", "on_furniture", "on_top_of",
           "regularised_distance", "same_surface"]
