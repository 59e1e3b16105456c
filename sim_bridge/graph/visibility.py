"""Line of sight in the top-down world: which objects an eye at a pose can see.

An object is in view when it is in the camera's frustum (`fdc.sim_bridge.graph.frustum`:
some point of its box's vertical edges, or of the vertical segment through its centre,
lands in the image) and the sight line from the eye to its centre is clear. A sight line
is blocked by a wall, or by an object (other than the target, the furniture carrying it
and the items resting on it) whose vertical extent spans the line's height where the
line passes over it: an item on a high shelf does not hide what is below it, nor an item
low down what the line passes above. Closed containers hide what they hold. Vectorised:
all sight lines are tested against an STRtree of occluders in one query.
See docs/scene-graph.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.graph.frustum import (
    DEFAULT_FRUSTUM,
    Frustum,
    footprint_columns,
    large_enough,
    max_bearing,
)
from fdc.sim_bridge.graph.occluders import hand_box, scene_occluders
from fdc.sim_bridge.scene.schema import Kind

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import Point
    from fdc.sim_bridge.graph.view import SceneView


def eye_point(g: SceneView, position: Point, eye_z: float | None) -> tuple[float, float, float]:
    """The eye of an agent standing at `position`: `eye_z`, else the agent's eye height
    above the position's z (0 when it has none)."""
    if eye_z is None:
        eye_z = (position[2] if len(position) == 3 else 0.0) + g.scene.agent.eye_height_m  # type: ignore[misc]
    return float(position[0]), float(position[1]), float(eye_z)


def _hidden_in_closed(g: SceneView, ident: str) -> bool:
    p = g.object(ident).parent_surface
    for _ in range(64):
        if p is None:
            return False
        s = g.surface(p)
        if s.container is not None and not s.is_open:
            return True
        p = g.object(s.object_id).parent_surface
    return False


def _visible_mask(g: SceneView, eye: tuple[float, float, float], targets: list[str]
                  ) -> np.ndarray:
    return sight_lines(g, np.tile(np.asarray(eye, dtype=np.float64), (len(targets), 1)),
                       targets)


#: Sight lines per object: to its centre, then (when that one is blocked) to the four
#: points halfway from its centre to the corners of its footprint, at mid-height; then,
#: for an object whose top is below the eye, to the same five points on its top (what
#: the camera sees of a towel over a box's rim). An object is seen when one of them is
#: clear (a lamp beside a clock hides part of it). Points `SIGHT_COLUMNS` on are the top's.
SIGHT_POINTS = 10
SIGHT_COLUMNS = 5
SIGHT_INSET = 0.5


def _sight_z(mid: np.ndarray, top: np.ndarray, eye_z: np.ndarray, point: int) -> np.ndarray:
    """The height of sight point `point` of objects of these mid-heights and tops, seen
    from eyes at `eye_z` (the top's points only below the eye; else mid-height)."""
    if point < SIGHT_COLUMNS:
        return mid
    out: np.ndarray = np.where(top < eye_z, top, mid)
    return out


#: The held item of each sight line, where the robot holds one: `hand_box`'s arrays
#: (centre x, y, yaw, half extents, bottom, top), a row a line.
Hands = tuple[np.ndarray, ...]


def held_hands(g: SceneView, held: str | None, xs: Sequence[float], ys: Sequence[float],
               zs: Sequence[float], yaws: Sequence[float]) -> Hands | None:
    """The held item in the hand of robots at (x, y, z) (their base) facing `yaws`, as
    sight lines see it (`hand_box`); None when the hand is empty."""
    if held is None:
        return None
    b = g.bodies
    out: Hands = hand_box(xs, ys, zs, yaws, np.asarray(b.sizes[b.index()[held]]))
    return out


def sight_lines(g: SceneView, eyes: np.ndarray, targets: Sequence[str],
                hands: Hands | None = None) -> np.ndarray:
    """Whether each eye (rows x, y, z) sees the object beside it: a sight line to one of
    its sight points (`SIGHT_POINTS`) clear (`_sight_lines`; `hands`: the item each
    robot holds, in the way too), and no closed container hides it."""
    if not len(targets):
        return np.zeros(0, dtype=bool)
    objs = {t: g.object(t) for t in dict.fromkeys(targets)}
    at = {ident: k for k, ident in enumerate(g.bodies.ids)}
    cols = footprint_columns(np.asarray(g.bodies.footprints, dtype=object)[
        [at[t] for t in targets]])
    seen = np.zeros(len(targets), dtype=bool)
    mid = _mid_z(g, targets)
    top = np.array([objs[t].top_z for t in targets], dtype=np.float64)
    for point in range(SIGHT_POINTS):
        todo = np.flatnonzero(~seen)
        if not len(todo):
            break
        centre = cols[todo, 0]
        xy = centre + SIGHT_INSET * (cols[todo, point % SIGHT_COLUMNS] - centre)
        tz = _sight_z(mid[todo], top[todo], eyes[todo, 2], point)
        seen[todo] = _sight_lines(g, eyes[todo], [targets[k] for k in todo], xy, tz)
        if hands is not None:
            seen[todo] &= ~_hand_blocked(eyes[todo], xy, tz,
                                         tuple(h[todo] for h in hands))  # type: ignore[arg-type]
    hidden = {t: _hidden_in_closed(g, t) for t in objs}
    return seen & ~np.array([hidden[t] for t in targets], dtype=bool)


def _sight_lines(g: SceneView, eyes: np.ndarray, targets: Sequence[str], xy: np.ndarray,
                 tz: np.ndarray | None = None) -> np.ndarray:
    """Whether the sight line from each eye (rows x, y, z) to the point `xy` (at height
    `tz`, default the object's mid-height) of the object beside it is clear: it crosses
    no wall, and no object (but the target, what carries it and what rests on it) whose
    box spans the line's height where it passes nearest the object's centre, nor a shell
    panel or open door (`occluders`) but the target's own. One pass for all the lines."""
    import shapely

    if not len(targets):
        return np.zeros(0, dtype=bool)
    ex, ey, ez = eyes[:, 0], eyes[:, 1], eyes[:, 2]
    objs = {t: g.object(t) for t in dict.fromkeys(targets)}
    tx, ty = xy[:, 0], xy[:, 1]
    if tz is None:
        tz = np.array([(objs[t].bottom_z + objs[t].top_z) / 2 for t in targets])
    lines = shapely.linestrings(
        np.stack([np.stack([ex, ey], axis=1), np.stack([tx, ty], axis=1)], axis=1))
    ids = g.bodies.ids
    occ = g.bodies.footprints
    tree = shapely.STRtree(occ)
    li, oi = tree.query(lines, predicate="intersects")
    blocked = np.zeros(len(targets), dtype=bool)
    if len(li):
        # Height of the sight line where it passes nearest the occluder's centre.
        c = shapely.get_coordinates(shapely.centroid(occ[oi]))
        dx, dy = tx[li] - ex[li], ty[li] - ey[li]
        denom = np.maximum(dx * dx + dy * dy, 1e-12)
        s = np.clip(((c[:, 0] - ex[li]) * dx + (c[:, 1] - ey[li]) * dy) / denom, 0, 1)
        h = ez[li] + s * (tz[li] - ez[li])
        tops, bottoms = g.bodies.tops[oi], g.bodies.bottoms[oi]
        carriers = {t: _carrier_chain(g, t) for t in objs}
        for a, b, top, bottom, hh in zip(li.tolist(), oi.tolist(), tops.tolist(),
                                         bottoms.tolist(), h.tolist(), strict=True):
            if blocked[a] or ids[b] == targets[a] or ids[b] in carriers[targets[a]]:
                continue
            if targets[a] in _carrier_chain(g, ids[b]):  # rests on the target
                continue
            o = g.object(ids[b])
            if o.kind is Kind.STAGE and o.spec.obstacle is False:
                continue
            if bottom < hh < top:
                blocked[a] = True
    open_ = np.flatnonzero(~blocked)
    if len(open_):
        occ = scene_occluders(g)
        row = g.bodies.index()
        ti = np.array([row[t] for t in targets], dtype=np.int64)
        li, oi = occ.tree.query(lines[open_])
        li = open_[li]
        if len(li):
            c = shapely.get_coordinates(shapely.centroid(occ.footprints[oi]))
            h = _pass_height(ex[li], ey[li], ez[li], tx[li], ty[li], tz[li], c[:, 0], c[:, 1])
            owner = occ.owners[oi]
            maybe = (owner != ti[li]) & (occ.bottoms[oi] < h) & (h < occ.tops[oi])
            for a, b, k in zip(li[maybe].tolist(), oi[maybe].tolist(), owner[maybe].tolist(),
                               strict=True):
                if blocked[a] or targets[a] in _carrier_chain(g, ids[k]):
                    continue
                blocked[a] = bool(shapely.intersects(lines[a], occ.footprints[b]))
    walls = g.layout.walls
    if not walls.is_empty:
        blocked |= shapely.intersects(lines, walls)
    up = [k for k, t in enumerate(targets) if objs[t].bottom_z > ez[k] + 1e-6
          and g.carrier(t) is not None]
    if up:
        fps = g.bodies.footprints
        at = {ident: k for k, ident in enumerate(ids)}
        carriers_up = [g.carrier(targets[k]) for k in up]
        idx = np.array(up)
        blocked[idx] |= _under_board(
            lines[idx], eyes[idx], np.array([objs[targets[k]].bottom_z for k in up]), tz[idx],
            np.asarray(fps, dtype=object)[[at[c.id] for c in carriers_up if c is not None]],
            np.ones(len(up), dtype=bool))
    out: np.ndarray = ~blocked
    return out


def _under_board(lines: np.ndarray, eyes: np.ndarray, bottoms: np.ndarray, tz: np.ndarray,
                 boards: np.ndarray, has: np.ndarray) -> np.ndarray:
    """Whether each sight line, rising from its eye to a target whose bottom is above
    the eye, meets the footprint of the board the target stands on below the target's
    bottom (so the board hides it)."""
    import shapely

    out = np.zeros(len(lines), dtype=bool)
    for k in np.flatnonzero(has).tolist():
        inter = shapely.intersection(lines[k], boards[k])
        if inter.is_empty:
            continue
        xy = shapely.get_coordinates(inter)
        ex, ey, ez = eyes[k]
        full = float(shapely.length(lines[k]))
        if full <= 1e-9:
            continue
        entry = float(np.hypot(xy[:, 0] - ex, xy[:, 1] - ey).min()) / full
        out[k] = ez + entry * (tz[k] - ez) < bottoms[k] - 1e-6
    return out


def doors_seen(g: SceneView, eyes: np.ndarray, yaws: np.ndarray, tilts: np.ndarray | None,
               targets: Sequence[str], frustum: Frustum, hands: Hands | None = None
               ) -> np.ndarray:
    """Whether each eye (rows x, y, z; facing `yaws`, tilted `tilts`) sees an open door
    of the object beside it (`occluders`: a door is part of its object): the door large
    enough in the image (`large_enough`) and a sight line to its centre clear."""
    occ = scene_occluders(g)
    out = np.zeros(len(targets), dtype=bool)
    if not len(occ.door_owners) or not len(targets):
        return out
    row = g.bodies.index()
    ti = np.array([row[t] for t in targets], dtype=np.int64)
    li, di = np.nonzero(ti[:, None] == occ.door_owners[None, :])
    if not len(li):
        return out
    big = large_enough(frustum, eyes[li], yaws[li], occ.door_positions[di],
                       occ.door_matrices[di], occ.door_sizes[di],
                       None if tilts is None else tilts[li])
    li, di = li[big], di[big]
    if not len(li):
        return out
    clear = _sight_lines(g, eyes[li], [targets[k] for k in li.tolist()],
                         occ.door_positions[di, :2])
    if hands is not None:
        clear &= ~_hand_blocked(eyes[li], occ.door_positions[di, :2],
                                _mid_z(g, [targets[k] for k in li.tolist()]),
                                tuple(h[li] for h in hands))  # type: ignore[arg-type]
    out[li[clear]] = True
    return out


def _pass_height(ex: np.ndarray, ey: np.ndarray, ez: np.ndarray, tx: np.ndarray,
                 ty: np.ndarray, tz: np.ndarray, cx: np.ndarray, cy: np.ndarray
                 ) -> np.ndarray:
    """The height of each sight line (eye to target point) where it passes nearest the
    point (cx, cy)."""
    dx, dy = tx - ex, ty - ey
    denom = np.maximum(dx * dx + dy * dy, 1e-12)
    s = np.clip(((cx - ex) * dx + (cy - ey) * dy) / denom, 0, 1)
    out: np.ndarray = ez + s * (tz - ez)
    return out


def _mid_z(g: SceneView, targets: Sequence[str]) -> np.ndarray:
    return np.array([(g.object(t).bottom_z + g.object(t).top_z) / 2 for t in targets],
                    dtype=np.float64)


def _hand_blocked(eyes: np.ndarray, xy: np.ndarray, tz: np.ndarray, hands: Hands
                  ) -> np.ndarray:
    """Whether the held item (`hands`, a row a line) is in the way of each sight line from
    the eye to the point `xy` at height `tz`: the line's stretch over the item's box (in
    the box's own frame, clipped as Liang and Barsky clip) at heights within the box's
    (the item may be flat: a tray)."""
    cx, cy, yaw, hx, hy, bottom, top = hands
    c, s = np.cos(yaw), np.sin(yaw)

    def local(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dx, dy = px - cx, py - cy
        return c * dx + s * dy, -s * dx + c * dy

    ax, ay = local(eyes[:, 0], eyes[:, 1])
    bx, by = local(xy[:, 0], xy[:, 1])
    s0, s1 = np.zeros(len(eyes)), np.ones(len(eyes))
    ok = np.ones(len(eyes), dtype=bool)
    for a, d, h in ((ax, bx - ax, hx), (ay, by - ay, hy)):
        flat = np.abs(d) < 1e-12
        ok &= ~flat | (np.abs(a) <= h)
        with np.errstate(divide="ignore", invalid="ignore"):
            t0, t1 = (-h - a) / d, (h - a) / d
        lo, hi = np.minimum(t0, t1), np.maximum(t0, t1)
        s0 = np.where(flat, s0, np.maximum(s0, lo))
        s1 = np.where(flat, s1, np.minimum(s1, hi))
    ok &= s0 <= s1
    ez = eyes[:, 2]
    h0, h1 = ez + s0 * (tz - ez), ez + s1 * (tz - ez)
    out: np.ndarray = ok & (np.minimum(h0, h1) < top) & (np.maximum(h0, h1) > bottom)
    return out


def _carrier_chain(g: SceneView, ident: str) -> dict[str, None]:
    """The objects carrying `ident`, nearest first (a dict: ordered, quick to test)."""
    out: dict[str, None] = {}
    c = g.carrier(ident)
    while c is not None and c.id not in out:
        out[c.id] = None
        c = g.carrier(c.id)
    return out


def line_of_sight(g: SceneView, position: Point, target: str, eye_z: float | None = None
                  ) -> bool:
    """Whether an eye at `position` sees the centre of object `target`."""
    return bool(_visible_mask(g, eye_point(g, position, eye_z), [target])[0])


def visible_objects(g: SceneView, position: Point, yaw_rad: float, fov_rad: float | None,
                    max_range_m: float, eye_z: float | None = None, *,
                    frustum: Frustum = DEFAULT_FRUSTUM, tilt_deg: float | None = None,
                    held: str | None = None) -> list[str]:
    """Ids of objects within range and in the camera's frustum (`in_frustum`; `fov_rad`
    overrides its horizontal field of view), large enough to be seen (`large_enough`),
    with a clear line of sight. `held`: the item in the robot's hand (in the way, never
    a target here)."""
    import shapely

    eye = eye_point(g, position, eye_z)
    p = g.bodies.positions
    if len(p) == 0:
        return []
    d = np.hypot(p[:, 0] - eye[0], p[:, 1] - eye[1])
    n = len(p)
    cam = frustum.with_hfov_rad(fov_rad)
    eyes = np.tile(np.asarray(eye), (n, 1))
    tilts = None if tilt_deg is None else np.full(n, tilt_deg)
    shell = np.array([o.kind is Kind.STAGE and o.obstacle is False for o in g.scene.objects])
    # An empty footprint: the held item, out of the arrangement.
    empty = shapely.is_empty(np.asarray(g.bodies.footprints, dtype=object))
    cand = np.nonzero((d <= max_range_m) & ~shell & ~empty)[0]
    if held is not None:
        cand = cand[np.asarray(g.bodies.ids, dtype=object)[cand] != held]
    b = g.bodies
    big = large_enough(cam, eyes[cand], np.full(len(cand), yaw_rad), b.positions[cand],
                       b.matrices[cand], b.sizes[cand], None if tilts is None else tilts[cand])
    cand = cand[big]
    ids = [g.bodies.ids[i] for i in cand]
    z = position[2] if len(position) == 3 else 0.0  # type: ignore[misc]
    hands = held_hands(g, held, [position[0]] * len(ids), [position[1]] * len(ids),
                       [z] * len(ids), [yaw_rad] * len(ids))
    mask = sight_lines(g, np.tile(np.asarray(eye, dtype=np.float64), (len(ids), 1)), ids,
                       hands)
    found = {i for i, m in zip(ids, mask, strict=True) if m}
    # Objects with an open door, seen by it (`doors_seen`).
    owners = np.isin(np.arange(n), scene_occluders(g).door_owners)
    rest = [g.bodies.ids[i] for i in np.nonzero((d <= max_range_m) & ~shell & ~empty & owners)[0]
            if g.bodies.ids[i] not in found and g.bodies.ids[i] != held]
    if rest:
        m = len(rest)
        hands = held_hands(g, held, [position[0]] * m, [position[1]] * m, [z] * m,
                           [yaw_rad] * m)
        seen_d = doors_seen(g, np.tile(np.asarray(eye, dtype=np.float64), (m, 1)),
                            np.full(m, yaw_rad), None if tilt_deg is None else
                            np.full(m, tilt_deg), rest, cam, hands)
        found |= {i for i, ok in zip(rest, seen_d.tolist(), strict=True)
                  if ok and not _hidden_in_closed(g, i)}
    return sorted(found)


class SightIndex:
    """`visible_objects` for many eye poses over one arrangement of the objects.

    What depends only on the arrangement is prepared once: trees of the occluders (wall
    pieces: the walls' union, piece by piece; footprints), a tree of the objects'
    centres for range culling, and, per object as it is first needed, its
    carrier chain and whether a closed container hides it. `visible_objects` then tests
    the sight lines of a whole batch of poses in one vectorised pass, with the rules and
    answers of `visible_objects` above, on any `SceneView`."""

    def __init__(self, g: SceneView) -> None:
        import shapely

        self._g = g
        b = g.bodies
        n = len(b.ids)
        self._ids = list(b.ids)
        self._index = {ident: i for i, ident in enumerate(self._ids)}
        self._xy = np.ascontiguousarray(b.positions[:, :2]) if n else np.zeros((0, 2))
        self._mid_z = (b.bottoms + b.tops) / 2 if n else np.zeros(0)
        self._eye_height_m = float(g.scene.agent.eye_height_m)
        # Targets: the shell as declared is never one; occluders: the shell as resolved.
        self._declared_shell = np.array(
            [o.kind is Kind.STAGE and o.obstacle is False for o in g.scene.objects], dtype=bool)
        # A PosedGraph's kinds are its scene graph's: read them there, unposed.
        static: SceneView = getattr(g, "graph", g)
        resolved = [static.object(i) for i in self._ids]
        occ_shell = np.array([o.kind is Kind.STAGE and o.spec.obstacle is False
                              for o in resolved], dtype=bool)
        walls = np.asarray(g.layout.wall_pieces, dtype=object).reshape(-1)
        self._walls = shapely.STRtree(walls)
        self._footprints = np.asarray(b.footprints, dtype=object).reshape(-1)
        self._tree = shapely.STRtree(self._footprints)
        self._n = n
        self._tops = np.asarray(b.tops, dtype=np.float64)
        self._bottoms = np.asarray(b.bottoms, dtype=np.float64)
        centres = shapely.centroid(self._footprints)
        self._cx = shapely.get_x(centres)
        self._cy = shapely.get_y(centres)
        self._columns = footprint_columns(self._footprints)
        self._radius = np.hypot(*(self._columns[:, 1:] - self._xy[:, None, :]).transpose(
            2, 0, 1)).max(axis=1) if n else np.zeros(0)
        self._exempt = occ_shell
        self._centres = shapely.STRtree(shapely.points(self._xy)) if n else None
        self._matrices = np.asarray(b.matrices, dtype=np.float64)
        self._sizes = np.asarray(b.sizes, dtype=np.float64)
        self._positions = np.asarray(b.positions, dtype=np.float64)
        self._occ = scene_occluders(g)
        # How far an open door reaches from its object's centre (0: no open door).
        self._door_reach = np.zeros(n)
        if len(self._occ.door_owners):
            far = np.linalg.norm(self._occ.door_positions[:, :2] - self._xy[
                self._occ.door_owners], axis=1) + np.linalg.norm(self._occ.door_sizes, axis=1) / 2
            np.maximum.at(self._door_reach, self._occ.door_owners, far)
        occ_c = shapely.centroid(self._occ.footprints)
        self._occ_cx, self._occ_cy = shapely.get_x(occ_c), shapely.get_y(occ_c)
        self._known = np.zeros(n, dtype=bool)
        self._hidden = np.zeros(n, dtype=bool)
        self._chain = np.full((n, 1), -1, dtype=np.int64)

    def _learn(self, targets: np.ndarray) -> None:
        """Carrier chains and hidden flags of the targets not seen before."""
        todo = np.unique(targets[~self._known[targets]])
        if not len(todo):
            return
        chains = []
        for i in todo.tolist():
            ident = self._ids[i]
            chains.append([self._index[c] for c in _carrier_chain(self._g, ident)])
            self._hidden[i] = _hidden_in_closed(self._g, ident)
        width = max(self._chain.shape[1], max(len(c) for c in chains))
        if width > self._chain.shape[1]:
            pad = np.full((self._n, width - self._chain.shape[1]), -1, dtype=np.int64)
            self._chain = np.concatenate([self._chain, pad], axis=1)
        for i, c in zip(todo.tolist(), chains, strict=True):
            self._chain[i, : len(c)] = c
        self._known[todo] = True

    def _blocked(self, eye: np.ndarray, ti: np.ndarray, exclude: str | None,
                 point: int = 0) -> np.ndarray:
        """Whether each sight line, from `eye` (rows x, y, z) to sight point `point` of
        object `ti` (`SIGHT_POINTS`), is blocked (or its target hidden in a closed
        container)."""
        import shapely

        self._learn(ti)
        ex, ey, ez = eye[:, 0], eye[:, 1], eye[:, 2]
        txy = self._xy[ti] + SIGHT_INSET * (self._columns[ti, point % SIGHT_COLUMNS]
                                            - self._xy[ti])
        tx, ty = txy[:, 0], txy[:, 1]
        tz = _sight_z(self._mid_z[ti], self._tops[ti], ez, point)
        lines = shapely.linestrings(np.stack([np.stack([ex, ey], axis=1),
                                              np.stack([tx, ty], axis=1)], axis=1))
        blocked = self._hidden[ti].copy()
        # Above the eye, an item is hidden by the board it stands on when the sight line
        # meets the board's edge below it (looking up at a high shelf's underside).
        up = np.flatnonzero(self._bottoms[ti] > ez + 1e-6)
        if len(up):
            blocked[up] |= _under_board(lines[up], eye[up], self._bottoms[ti[up]],
                                        tz[up], self._footprints[self._chain[ti[up], 0]],
                                        self._chain[ti[up], 0] >= 0)
        # Walls first (they block at any height), then, for the lines still open, the
        # objects whose box overlaps theirs: those whose height spans the line's where the
        # line passes and may be in the way are tested exactly.
        li, _ = self._walls.query(lines, predicate="intersects")
        blocked[li] = True
        open_ = np.flatnonzero(~blocked)
        li, oi = self._tree.query(lines[open_])
        li = open_[li]
        if len(li):
            # Height of the sight line where it passes nearest the occluder's centre.
            dx, dy = tx[li] - ex[li], ty[li] - ey[li]
            denom = np.maximum(dx * dx + dy * dy, 1e-12)
            s = np.clip(((self._cx[oi] - ex[li]) * dx + (self._cy[oi] - ey[li]) * dy) / denom,
                        0, 1)
            h = ez[li] + s * (tz[li] - ez[li])
            skip = (oi == ti[li]) | (self._chain[ti[li]] == oi[:, None]).any(axis=1) | \
                self._exempt[oi]
            if exclude is not None and exclude in self._index:
                skip |= oi == self._index[exclude]
            maybe = ~skip & (self._bottoms[oi] < h) & (h < self._tops[oi])
            li, oi = li[maybe], oi[maybe]
            # What rests on the target (on it, or on its shelves) does not hide it.
            self._learn(oi)
            on_target = (self._chain[oi] == ti[li][:, None]).any(axis=1)
            li, oi = li[~on_target], oi[~on_target]
            hit = shapely.intersects(lines[li], self._footprints[oi])
            blocked[li[hit]] = True
        # Shell panels and open doors (`occluders`): even a carrier's hide what it holds.
        open_ = np.flatnonzero(~blocked)
        if len(open_) and self._occ.count:
            li, oi = self._occ.tree.query(lines[open_])
            li = open_[li]
            if len(li):
                h = _pass_height(ex[li], ey[li], ez[li], tx[li], ty[li], tz[li],
                                 self._occ_cx[oi], self._occ_cy[oi])
                owner = self._occ.owners[oi]
                maybe = (owner != ti[li]) & (self._occ.bottoms[oi] < h) & \
                    (h < self._occ.tops[oi])
                if exclude is not None and exclude in self._index:
                    maybe &= owner != self._index[exclude]
                li, oi, owner = li[maybe], oi[maybe], owner[maybe]
                self._learn(owner)
                on_target = (self._chain[owner] == ti[li][:, None]).any(axis=1)
                li, oi = li[~on_target], oi[~on_target]
                hit = shapely.intersects(lines[li], self._occ.footprints[oi])
                blocked[li[hit]] = True
        out: np.ndarray = blocked
        return out

    def _hand(self, eyes: np.ndarray, ti: np.ndarray, hands: Hands, point: int
              ) -> np.ndarray:
        """Whether the held item (a row a line) is in the way of the sight line from each
        eye to sight point `point` of object `ti`."""
        xy = self._xy[ti] + SIGHT_INSET * (self._columns[ti, point % SIGHT_COLUMNS]
                                           - self._xy[ti])
        return _hand_blocked(eyes, xy, _sight_z(self._mid_z[ti], self._tops[ti], eyes[:, 2],
                                                point), hands)

    def visible_objects(self, positions: npt.ArrayLike, yaws_rad: npt.ArrayLike,
                        fov_rad: float | None, max_range_m: float, *,
                        exclude: str | None = None, frustum: Frustum = DEFAULT_FRUSTUM,
                        tilts_deg: npt.ArrayLike | None = None) -> list[list[str]]:
        """For each pose (rows of `positions`: x, y, z of the agent's base, and its yaw),
        the sorted ids of the objects in view: in range, in the camera's frustum
        (`in_frustum`; `fov_rad` overrides its horizontal field of view) and with a clear
        line of sight. `tilts_deg`: each pose's head tilt (NaN: the frustum's). The eye
        is `agent.eye_height_m` above the base. `exclude`: the held item, out of the
        arrangement: never a target, in the way only where the hand holds it
        (`occluders.hand_box`). Objects too small to cover the pixel rule's share of the
        image are not in view (`large_enough`)."""
        import shapely

        pos = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        yaw = np.asarray(yaws_rad, dtype=np.float64).reshape(-1)
        m = len(pos)
        out: list[list[str]] = [[] for _ in range(m)]
        if m == 0 or self._centres is None:
            return out
        ez = pos[:, 2] + self._eye_height_m
        # Range culling by the tree of centres, then the exact tests of `visible_objects`.
        fi, ti = self._centres.query(shapely.points(pos[:, :2]), predicate="dwithin",
                                     distance=max_range_m + 1e-6)
        order = np.lexsort((ti, fi))
        fi, ti = fi[order], ti[order]
        ex, ey = pos[fi, 0], pos[fi, 1]
        px, py = self._xy[ti, 0], self._xy[ti, 1]
        d = np.hypot(px - ex, py - ey)
        cam = frustum.with_hfov_rad(fov_rad)
        tilts = None if tilts_deg is None else \
            np.asarray(tilts_deg, dtype=np.float64).reshape(-1)[fi]
        # A cheap bound first: no ray of the frustum turns further from the heading than
        # `max_bearing`, and no point of the box further from its centre's bearing than
        # its radius allows; the exact test only for the pairs within it.
        ang = np.abs((np.arctan2(py - ey, px - ex) - yaw[fi] + np.pi) % (2 * np.pi) - np.pi)
        r = self._radius[ti]
        spread = np.where(d > r, np.arcsin(np.minimum(r / np.maximum(d, 1e-9), 1.0)), np.pi)
        near = (d <= max_range_m) & ~self._declared_shell[ti] & \
            (ang <= max_bearing(cam, tilts) + spread)
        # In view: the box's silhouette covers enough of the image (`large_enough`: the
        # pixel rule's share, a face crossing the view between edges out of it found).
        keep = near.copy()
        if exclude is not None and exclude in self._index:
            keep &= ti != self._index[exclude]
        at = np.flatnonzero(keep)
        keep[at] = large_enough(cam, np.c_[ex[at], ey[at], ez[fi[at]]], yaw[fi[at]],
                                self._positions[ti[at]], self._matrices[ti[at]],
                                self._sizes[ti[at]], None if tilts is None else tilts[at])
        # Objects with an open door: their door may be seen when their box is not.
        reach = self._door_reach[ti]
        door = (d <= max_range_m) & ~self._declared_shell[ti] & (reach > 0) & \
            (ang <= max_bearing(cam, tilts) + np.where(
                d > reach, np.arcsin(np.minimum(reach / np.maximum(d, 1e-9), 1.0)), np.pi))
        if exclude is not None and exclude in self._index:
            door &= ti != self._index[exclude]
        door_fi, door_ti = fi[door], ti[door]
        fi, ti = fi[keep], ti[keep]
        if not len(ti):
            return self._doors(out, door_fi, door_ti, pos, yaw, ez, cam, tilts_deg, exclude)
        hands = None
        if exclude is not None and exclude in self._index:
            hands = hand_box(pos[fi, 0], pos[fi, 1], pos[fi, 2], yaw[fi],
                             self._sizes[self._index[exclude]])
        # One sight line per (eye, target): the turns of a walk share their eye.
        eyes, eye_of = np.unique(np.c_[pos[:, :2], ez], axis=0, return_inverse=True)
        eye_of = eye_of.reshape(-1)
        pair = eye_of[fi].astype(np.int64) * self._n + ti
        uniq, back = np.unique(pair, return_inverse=True)
        ue, ut = uniq // self._n, uniq % self._n
        back = back.reshape(-1)
        blocked_u = self._blocked(eyes[ue], ut, exclude)
        if hands is None:
            # Partly hidden: seen when a sight line to one of its sight points is clear.
            for point in range(1, SIGHT_POINTS):
                again = np.flatnonzero(blocked_u & ~self._hidden[ut])
                if not len(again):
                    break
                blocked_u[again] = self._blocked(eyes[ue[again]], ut[again], exclude, point)
            blocked = blocked_u[back]
        else:
            # The held item turns with each pose: its test is per pose, not per eye.
            eye_xyz = np.c_[pos[fi, :2], ez[fi]]
            blocked = blocked_u[back] | self._hand(eye_xyz, ti, hands, 0)
            for point in range(1, SIGHT_POINTS):
                again = np.flatnonzero(blocked & ~self._hidden[ti])
                if not len(again):
                    break
                pairs, inv = np.unique(back[again], return_inverse=True)
                bu = self._blocked(eyes[ue[pairs]], ut[pairs], exclude, point)
                blocked[again] = bu[inv.reshape(-1)] | self._hand(
                    eye_xyz[again], ti[again], tuple(h[again] for h in hands), point)
        for f, t in zip(fi[~blocked].tolist(), ti[~blocked].tolist(), strict=True):
            out[f].append(self._ids[t])
        return self._doors(out, door_fi, door_ti, pos, yaw, ez, cam, tilts_deg, exclude)

    def _doors(self, out: list[list[str]], fi: np.ndarray, ti: np.ndarray, pos: np.ndarray,
               yaw: np.ndarray, ez: np.ndarray, cam: Frustum,
               tilts_deg: npt.ArrayLike | None, exclude: str | None) -> list[list[str]]:
        """`out` with the objects seen by an open door (`doors_seen`) added, of the pairs
        (pose `fi`, object `ti`) not seen yet; each row sorted."""
        if len(fi):
            todo = [k for k, (f, t) in enumerate(zip(fi.tolist(), ti.tolist(), strict=True))
                    if self._ids[t] not in out[f]]
            if todo:
                f_, t_ = fi[todo], ti[todo]
                tilts = None if tilts_deg is None else \
                    np.asarray(tilts_deg, dtype=np.float64).reshape(-1)[f_]
                hands = None if exclude is None or exclude not in self._index else \
                    hand_box(pos[f_, 0], pos[f_, 1], pos[f_, 2], yaw[f_],
                             self._sizes[self._index[exclude]])
                seen = doors_seen(self._g, np.c_[pos[f_, :2], ez[f_]], yaw[f_], tilts,
                                  [self._ids[t] for t in t_.tolist()], cam, hands)
                for f, t in zip(f_[seen].tolist(), t_[seen].tolist(), strict=True):
                    if not self._hidden[t]:
                        out[f].append(self._ids[t])
        for row in out:
            row.sort()
        return out
