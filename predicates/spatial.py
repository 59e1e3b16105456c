"""Fluent spatial relations between items, surfaces and rooms, on the current state.

All batched: each checker takes one column of ids per parameter and answers every atom
in one numpy pass. Positions are the items' current poses (`WorldState.object_pose`);
surfaces, rooms and standing points are the scene graph's. Relations follow the scene
graph's regions (`docs/scene-graph.md`): cells are thirds of the surface's box in its own
frame, judged by the item's centre; the 8 sides of an anchor are relative to the viewer's
side of the surface.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.regions import STEP, Direction, Side, surface_direction

from .poses import (
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
from .registry import (
    Articulated,
    Cells,
    Context,
    EvaluationError,
    Movables,
    ReceptaclesOrContainers,
    Rooms,
    Surfaces,
    fluent,
)

Bools = npt.NDArray[np.bool_]
EPS = 1e-9


def _not_own(table: SurfaceTable, rows: np.ndarray, o: Sequence[str]) -> Bools:
    """The surface is not the item's own top: a thin item (a plate) sits within
    `on_below_m` of its own top, and resting on oneself means nothing."""
    return np.array([table.carrier[r] != x for r, x in zip(rows.tolist(), o, strict=True)],
                    dtype=bool)


@fluent
def on(ctx: Context, o: Movables, s: Surfaces, *, on_top_m: float = 0.15,
       on_below_m: float = 0.02) -> Bools:
    """The item rests on the surface: not held, its centre over the surface's outline,
    its bottom at most `on_top_m` above (and `on_below_m` below) the surface; never on
    its own top."""
    table = surface_table(ctx.graph)
    rows = table.rows(s)
    return on_mask(ctx, items(ctx, o), table, rows, on_top_m, on_below_m) & _not_own(
        table, rows, o)


@fluent
def inside(ctx: Context, o: Movables, c: ReceptaclesOrContainers, *, on_top_m: float = 0.15,
           on_below_m: float = 0.02, inside_margin_m: float = 0.02) -> Bools:
    """The item is in a receptacle (a surface inside furniture: it rests on it) or in a
    container item (its centre inside the container's current box, grown by
    `inside_margin_m`)."""
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
        out[k] = fits & ~it.held & ~same
    return out


@fluent
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
    hit = np.all((nb[:, :2] < hi - 1e-6) & (nb[:, 2:] > lo + 1e-6), axis=1)
    np.logical_or.at(blocked, atoms, hit)
    return blocked


def _zone_steps(centre: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(n, 2) the direction (su, sv) of each centre from its anchor's box."""
    su = np.where(centre[:, 0] > box[:, 2], 1, np.where(centre[:, 0] < box[:, 0], -1, 0))
    sv = np.where(centre[:, 1] > box[:, 3], 1, np.where(centre[:, 1] < box[:, 1], -1, 0))
    return np.stack([su, sv], axis=1)


@fluent
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


__all__ = ["around", "at_side", "between", "in_cell", "in_room", "inside", "is_open", "on"]
