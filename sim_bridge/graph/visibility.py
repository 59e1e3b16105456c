"""Line of sight in the top-down world: which objects an eye at a pose can see.

An object is in view when it is in the camera's frustum (`fdc.sim_bridge.graph.frustum`:
some point of its box's vertical edges, or of the vertical segment through its centre,
lands in the image) and the sight line from the eye to its centre is clear. A sight line
is blocked by a wall, or by an object (other than the target, the furniture carrying it
and the items resting on it) whose vertical extent spans the line's height where the
line passes over it: an item on a high shelf does not hide what is below it, nor an item
low down what the line passes above. Closed containers hide what they hold. Vectorised:
all sight lines are tested against an STRtree of occluders in one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fdc.sim_bridge.graph.frustum import (
    DEFAULT_FRUSTUM,
    Frustum,
    box_in_frustum,
    footprint_columns,
    max_bearing,
)
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
#: points halfway from its centre to the corners of its footprint, at mid-height. An
#: object is seen when one of them is clear (a lamp beside a clock hides part of it).
SIGHT_POINTS = 5
SIGHT_INSET = 0.5


def sight_lines(g: SceneView, eyes: np.ndarray, targets: Sequence[str]) -> np.ndarray:
    """Whether each eye (rows x, y, z) sees the object beside it: a sight line to one of
    its sight points (`SIGHT_POINTS`) clear (`_sight_lines`), and no closed container
    hides it."""
    if not len(targets):
        return np.zeros(0, dtype=bool)
    objs = {t: g.object(t) for t in dict.fromkeys(targets)}
    at = {ident: k for k, ident in enumerate(g.bodies.ids)}
    cols = footprint_columns(np.asarray(g.bodies.footprints, dtype=object)[
        [at[t] for t in targets]])
    seen = np.zeros(len(targets), dtype=bool)
    for point in range(SIGHT_POINTS):
        todo = np.flatnonzero(~seen)
        if not len(todo):
            break
        centre = cols[todo, 0]
        xy = centre + SIGHT_INSET * (cols[todo, point] - centre)
        seen[todo] = _sight_lines(g, eyes[todo], [targets[k] for k in todo], xy)
    hidden = {t: _hidden_in_closed(g, t) for t in objs}
    return seen & ~np.array([hidden[t] for t in targets], dtype=bool)


def _sight_lines(g: SceneView, eyes: np.ndarray, targets: Sequence[str], xy: np.ndarray
                 ) -> np.ndarray:
    """Whether the sight line from each eye (rows x, y, z) to the point `xy` (at the
    object's mid-height) of the object beside it is clear: it crosses no wall, and no
    object (but the target, what carries it and what rests on it) whose box spans the
    line's height where it passes nearest the object's centre. One pass for all the
    lines."""
    import shapely

    if not len(targets):
        return np.zeros(0, dtype=bool)
    ex, ey, ez = eyes[:, 0], eyes[:, 1], eyes[:, 2]
    objs = {t: g.object(t) for t in dict.fromkeys(targets)}
    tx, ty = xy[:, 0], xy[:, 1]
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
                    frustum: Frustum = DEFAULT_FRUSTUM, tilt_deg: float | None = None
                    ) -> list[str]:
    """Ids of objects within range and in the camera's frustum (`in_frustum`; `fov_rad`
    overrides its horizontal field of view) with a clear line of sight."""
    eye = eye_point(g, position, eye_z)
    p = g.bodies.positions
    if len(p) == 0:
        return []
    d = np.hypot(p[:, 0] - eye[0], p[:, 1] - eye[1])
    n = len(p)
    seen = box_in_frustum(frustum.with_hfov_rad(fov_rad), np.tile(np.asarray(eye), (n, 1)),
                          np.full(n, yaw_rad), footprint_columns(g.bodies.footprints),
                          g.bodies.bottoms, g.bodies.tops,
                          None if tilt_deg is None else np.full(n, tilt_deg))
    shell = np.array([o.kind is Kind.STAGE and o.obstacle is False for o in g.scene.objects])
    cand = np.nonzero((d <= max_range_m) & seen & ~shell)[0]
    ids = [g.bodies.ids[i] for i in cand]
    mask = _visible_mask(g, eye, ids)
    return sorted(i for i, m in zip(ids, mask, strict=True) if m)


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
        txy = self._xy[ti] + SIGHT_INSET * (self._columns[ti, point] - self._xy[ti])
        tx, ty, tz = txy[:, 0], txy[:, 1], self._mid_z[ti]
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
        out: np.ndarray = blocked
        return out

    def visible_objects(self, positions: npt.ArrayLike, yaws_rad: npt.ArrayLike,
                        fov_rad: float | None, max_range_m: float, *,
                        exclude: str | None = None, frustum: Frustum = DEFAULT_FRUSTUM,
                        tilts_deg: npt.ArrayLike | None = None) -> list[list[str]]:
        """For each pose (rows of `positions`: x, y, z of the agent's base, and its yaw),
        the sorted ids of the objects in view: in range, in the camera's frustum
        (`in_frustum`; `fov_rad` overrides its horizontal field of view) and with a clear
        line of sight. `tilts_deg`: each pose's head tilt (NaN: the frustum's). The eye
        is `agent.eye_height_m` above the base. `exclude`: an
        object out of the arrangement (the held item): never a target, never in the
        way."""
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
        seen = np.zeros(len(fi), dtype=bool)
        at = np.flatnonzero(near)
        seen[at] = box_in_frustum(cam, np.c_[ex[at], ey[at], ez[fi[at]]], yaw[fi[at]],
                                  self._columns[ti[at]], self._bottoms[ti[at]],
                                  self._tops[ti[at]], None if tilts is None else tilts[at])
        keep = seen
        if exclude is not None and exclude in self._index:
            keep &= ti != self._index[exclude]
        fi, ti = fi[keep], ti[keep]
        if not len(ti):
            return out
        # One sight line per (eye, target): the turns of a walk share their eye.
        eyes, eye_of = np.unique(np.c_[pos[:, :2], ez], axis=0, return_inverse=True)
        eye_of = eye_of.reshape(-1)
        pair = eye_of[fi].astype(np.int64) * self._n + ti
        uniq, back = np.unique(pair, return_inverse=True)
        ue, ut = uniq // self._n, uniq % self._n
        blocked_u = self._blocked(eyes[ue], ut, exclude)
        # Partly hidden: seen when a sight line to one of its sight points is clear.
        for point in range(1, SIGHT_POINTS):
            again = np.flatnonzero(blocked_u & ~self._hidden[ut])
            if not len(again):
                break
            blocked_u[again] = self._blocked(eyes[ue[again]], ut[again], exclude, point)
        blocked = blocked_u[back.reshape(-1)]
        for f, t in zip(fi[~blocked].tolist(), ti[~blocked].tolist(), strict=True):
            out[f].append(self._ids[t])
        for row in out:
            row.sort()
        return out
