"""The robot's camera as the geometric line of sight sees it: one frustum for the renderer
and for every "in view" judgement.

FindingDory's robot (Hello Robot's Stretch) has a 640x480 head camera with a 43 degree
horizontal field of view. fdc mounts it at the agent's eye height (1.25 m by default)
and tilts it 20 degrees down: the vertical field of view is then about 32.9 degrees
(from -36.5 to -3.5 degrees of elevation), so a table top (0.75 m) is in view from 0.7 m
to beyond 8 m, and what stands on it from about 1 m on. `fdc.sim_bridge.render.camera.Camera`
takes its defaults from here, and `fdc.sim_bridge.graph.visibility` judges "in view" with
the same numbers: the two are one camera.

The rule (`in_frustum`, `box_in_frustum`): an object is in the frustum when some point
of the vertical segment through its centre, or of one of its box's four vertical edges
(each from its bottom to its top), projects into the image of a pinhole camera at the
eye, yawed as the robot and pitched by the tilt (the pose's `head_tilt_deg` when it has
one). Whether that object is then seen (not hidden) is the sight line's business.
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

#: FindingDory's head camera: image size (pixels) and horizontal field of view.
IMAGE_WIDTH = 640
IMAGE_HEIGHT = 480
HFOV_DEG = 43.0
#: The pitch of the optical axis (negative: looking down).
TILT_DEG = -20.0


@dataclass(frozen=True)
class Frustum:
    """A pinhole camera's angular extent: horizontal field of view, aspect, tilt."""

    hfov_deg: float = HFOV_DEG
    width: int = IMAGE_WIDTH
    height: int = IMAGE_HEIGHT
    tilt_deg: float = TILT_DEG

    @property
    def hfov_rad(self) -> float:
        return math.radians(self.hfov_deg)

    @property
    def tan_h(self) -> float:
        """tan of half the horizontal field of view."""
        return math.tan(self.hfov_rad / 2)

    @property
    def tan_v(self) -> float:
        """tan of half the vertical field of view (square pixels)."""
        return self.tan_h * self.height / self.width

    @property
    def vfov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.tan_v))

    def with_hfov_rad(self, fov_rad: float | None) -> Frustum:
        """This frustum with another horizontal field of view (None: unchanged)."""
        if fov_rad is None or math.isclose(fov_rad, self.hfov_rad):
            return self
        return replace(self, hfov_deg=math.degrees(fov_rad))


#: The camera of every "in view" judgement and of the renderer, unless overridden.
DEFAULT_FRUSTUM = Frustum()


def aim_tilt_deg(eye: tuple[float, float, float], point: tuple[float, float, float]) -> float:
    """The head tilt (degrees, within +-89, rounded to 0.01) that centres `point` in the
    image of a camera at `eye`: how the robot looks at what it picks or places."""
    d = math.hypot(point[0] - eye[0], point[1] - eye[1])
    tilt = math.degrees(math.atan2(point[2] - eye[2], d))
    return round(max(-89.0, min(89.0, tilt)), 2)


def in_frustum(frustum: Frustum, eyes: npt.ArrayLike, yaws_rad: npt.ArrayLike,
               centres_xy: npt.ArrayLike, bottoms: npt.ArrayLike, tops: npt.ArrayLike,
               tilts_deg: npt.ArrayLike | None = None) -> np.ndarray:
    """Row by row: whether some point of the vertical segment at `centres_xy` from
    `bottoms` to `tops` projects into the image of the camera at `eyes` (x, y, z) facing
    `yaws_rad` (counter-clockwise from +x), tilted by `tilts_deg` (a row's NaN, or None
    for all: the frustum's tilt). Vectorised.

    In camera coordinates a point at height z of the segment has a lateral offset that
    does not depend on z and a depth and a vertical offset linear in z, so the image's
    four edges (and "in front") are four linear bounds on z; the segment is in view when
    they leave some of [bottom, top]."""
    e = np.asarray(eyes, dtype=np.float64).reshape(-1, 3)
    yaw = np.asarray(yaws_rad, dtype=np.float64).reshape(-1)
    c = np.asarray(centres_xy, dtype=np.float64).reshape(-1, 2)
    z0 = np.asarray(bottoms, dtype=np.float64).reshape(-1) - e[:, 2]
    z1 = np.asarray(tops, dtype=np.float64).reshape(-1) - e[:, 2]
    if not len(e):
        return np.zeros(0, dtype=bool)
    t = np.full(len(e), math.radians(frustum.tilt_deg))
    if tilts_deg is not None:
        given = np.asarray(tilts_deg, dtype=np.float64).reshape(-1)
        t = np.where(np.isnan(given), t, np.radians(given))
    ct, st = np.cos(t), np.sin(t)
    th, tv = frustum.tan_h, frustum.tan_v
    cy, sy = np.cos(yaw), np.sin(yaw)
    dx, dy = c[:, 0] - e[:, 0], c[:, 1] - e[:, 1]
    ahead = dx * cy + dy * sy            # horizontal distance along the heading
    lateral = np.abs(dx * sy - dy * cy)  # |x| in the camera: independent of z
    # depth(z) = ahead*ct + z*st; up(z) = -ahead*st + z*ct. Bounds alpha + beta*z >= 0:
    alpha = np.stack([th * ahead * ct - lateral,          # |x| <= tan_h * depth
                      tv * ahead * ct + ahead * st,       # up <= tan_v * depth
                      tv * ahead * ct - ahead * st,       # -up <= tan_v * depth
                      ahead * ct - 1e-9], axis=1)          # in front
    beta = np.stack([th * st, tv * st - ct, tv * st + ct, st], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = -alpha / beta
    lo = np.max(np.where(beta > 0, root, -np.inf), axis=1)
    hi = np.min(np.where(beta < 0, root, np.inf), axis=1)
    never = np.any((beta == 0) & (alpha < 0), axis=1)
    lo, hi = np.maximum(lo, z0), np.minimum(hi, z1)
    out: np.ndarray = (lo <= hi) & ~never
    return out


def footprint_columns(footprints: npt.ArrayLike) -> np.ndarray:
    """(n, 5, 2): per footprint (shapely geometry), the centre and the four corners of
    its oriented envelope (the box's vertical edges, seen from above)."""
    import shapely

    fp = np.asarray(footprints, dtype=object).reshape(-1)
    out = np.zeros((len(fp), 5, 2))
    if not len(fp):
        return out
    # An empty footprint (the held item's: out of the arrangement) has a NaN centre,
    # which no frustum takes in.
    empty = shapely.is_empty(fp)
    out[empty] = np.nan
    cen = shapely.get_coordinates(shapely.centroid(fp[~empty]))
    out[~empty] = cen[:, None, :]
    env = shapely.oriented_envelope(fp)
    for k, g in enumerate(env.tolist()):
        if g is not None and g.geom_type == "Polygon" and not g.is_empty:
            xy = np.asarray(g.exterior.coords)[:4]
            out[k, 1:1 + len(xy)] = xy
    return out


def box_in_frustum(frustum: Frustum, eyes: npt.ArrayLike, yaws_rad: npt.ArrayLike,
                   columns: np.ndarray, bottoms: npt.ArrayLike, tops: npt.ArrayLike,
                   tilts_deg: npt.ArrayLike | None = None) -> np.ndarray:
    """`in_frustum` for an object's centre and box edges (`footprint_columns`, (n, k, 2)):
    whether any of the k vertical segments lands in the image."""
    n, k = columns.shape[0], columns.shape[1]
    if n == 0:
        return np.zeros(0, dtype=bool)

    def rep(a: npt.ArrayLike | None) -> np.ndarray | None:
        return None if a is None else \
            np.repeat(np.asarray(a, dtype=np.float64).reshape(n, -1), k, axis=0)

    hit = in_frustum(frustum, rep(eyes), rep(yaws_rad), columns.reshape(n * k, 2),
                     rep(bottoms), rep(tops), rep(tilts_deg))  # type: ignore[arg-type]
    out: np.ndarray = hit.reshape(n, k).any(axis=1)
    return out


def max_bearing(frustum: Frustum, tilts_deg: np.ndarray | None = None) -> np.ndarray | float:
    """The largest horizontal angle between the heading and any ray of the frustum (per
    row of `tilts_deg`; NaN or None: the frustum's tilt): a ray (x, y, 1) of the camera
    has bearing atan(|x| / (cos t - y sin t)), and cos t - y sin t is at least
    cos(|t| + atan(tan_v)). Beyond 90 degrees of pitch: pi (no bound)."""
    t = abs(frustum.tilt_deg) if tilts_deg is None else \
        np.abs(np.where(np.isnan(tilts_deg), frustum.tilt_deg, tilts_deg))
    edge = np.radians(t) + math.atan(frustum.tan_v)
    c = np.cos(np.minimum(edge, math.pi / 2))
    out = np.where(c > 1e-6, np.arctan(frustum.tan_h / np.maximum(c, 1e-6)), math.pi)
    return out if tilts_deg is not None else float(out)


#: The pixel rule (FindingDory's semantic-sensor rule): a seen object covers at least
#: `MIN_PIXELS` pixels and at least `MIN_SHARE` of the image (0.1%: 307 at 640x480).
MIN_PIXELS = 50
MIN_SHARE = 0.001
#: The near clipping plane of the silhouette (metres of depth), the renderer's.
NEAR_M = 0.05


def min_pixels(width: int, height: int) -> int:
    """The pixels an object must cover to be seen in a `width` x `height` image."""
    return max(MIN_PIXELS, math.ceil(MIN_SHARE * width * height))


_SIGNS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                  dtype=np.float64)
#: The six faces of a box (corners of `_SIGNS` in order around each), the axis each
#: face is normal to and its side.
_FACES = np.array([[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4],
                   [1, 3, 7, 5]], dtype=np.int64)
_FACE_AXES = np.array([0, 0, 1, 1, 2, 2], dtype=np.int64)
_FACE_SIGNS = np.array([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
#: The twelve edges of a box, as pairs of `_SIGNS` rows (corners differing in one sign).
_EDGES = np.array([(i, j) for i in range(8) for j in range(i + 1, 8)
                   if int(np.abs(_SIGNS[i] - _SIGNS[j]).sum()) == 2], dtype=np.int64)


def large_enough(frustum: Frustum, eyes: npt.ArrayLike, yaws_rad: npt.ArrayLike,
                 positions: npt.ArrayLike, matrices: npt.ArrayLike, sizes: npt.ArrayLike,
                 tilts_deg: npt.ArrayLike | None = None) -> np.ndarray:
    """Row by row: whether the box (centre `positions`, rotation `matrices`, extents
    `sizes`) covers at least `min_pixels` of the image when nothing hides it: the area of
    its silhouette within the image's rectangle, the silhouette being the convex hull of
    its corners projected by the pinhole camera at `eyes` (yawed and tilted as
    `in_frustum`), the box first clipped by the near plane (`NEAR_M`) where it reaches
    behind the camera. Exact for a box: it also finds a face crossing the view between
    vertical edges out of it (a cabinet right in front), and it implies `box_in_frustum`.
    Vectorised: the hull is computed (shapely) only where bounds leave the answer open
    (a convex polygon touching its bounding box's four sides covers at least half of
    it)."""

    e = np.asarray(eyes, dtype=np.float64).reshape(-1, 3)
    n = len(e)
    out = np.zeros(n, dtype=bool)
    if not n:
        return out
    yaw = np.asarray(yaws_rad, dtype=np.float64).reshape(-1)
    t = np.full(n, math.radians(frustum.tilt_deg))
    if tilts_deg is not None:
        given = np.asarray(tilts_deg, dtype=np.float64).reshape(-1)
        t = np.where(np.isnan(given), t, np.radians(given))
    ct, st, cy, sy = np.cos(t), np.sin(t), np.cos(yaw), np.sin(yaw)
    fwd = np.stack([ct * cy, ct * sy, st], axis=1)
    right = np.stack([sy, -cy, np.zeros(n)], axis=1)
    up = np.stack([-st * cy, -st * sy, ct], axis=1)
    size = np.asarray(sizes, dtype=np.float64).reshape(-1, 3)
    centre = np.asarray(positions, dtype=np.float64).reshape(-1, 3) - e
    mats = np.asarray(matrices, dtype=np.float64).reshape(-1, 3, 3)
    # First the box's bounding sphere (radius r): out of the frustum (beyond one of its
    # four sides, or behind the near plane), or too small: within the image a solid
    # angle covers at most f^2 / cos^3 of the corner ray's angle pixels per steradian.
    r = np.linalg.norm(size, axis=1) / 2
    ah, av = math.atan(frustum.tan_h), math.atan(frustum.tan_v)
    zc = np.einsum("nj,nj->n", centre, fwd)
    xc = np.abs(np.einsum("nj,nj->n", centre, right))
    yc = np.abs(np.einsum("nj,nj->n", centre, up))
    f = frustum.width / 2 / frustum.tan_h
    dist = np.linalg.norm(centre, axis=1)
    with np.errstate(invalid="ignore"):
        solid = 2 * math.pi * (1 - np.sqrt(np.maximum(1 - (r / np.maximum(dist, 1e-9)) ** 2, 0)))
    corner = math.cos(math.atan(math.hypot(frustum.tan_h, frustum.tan_v)))
    need = min_pixels(frustum.width, frustum.height)
    maybe = (xc * math.cos(ah) - zc * math.sin(ah) <= r) & \
        (yc * math.cos(av) - zc * math.sin(av) <= r) & (zc >= NEAR_M - r) & \
        ((dist <= r) | (solid * f * f / corner ** 3 >= need))
    at = np.flatnonzero(maybe)
    if len(at) < n:
        if len(at):
            out[at] = large_enough(frustum, e[at], yaw[at], (centre + e)[at], mats[at],
                                   size[at], np.degrees(t[at]))
        return out
    half = size[:, None, :] / 2 * _SIGNS
    rel = np.einsum("nij,nkj->nki", mats, half) + centre[:, None, :]  # corners from the eye
    depth = np.einsum("nkj,nj->nk", rel, fwd)
    front = depth >= NEAR_M
    ahead = front.all(axis=1)
    d = np.maximum(depth, NEAR_M)
    u = frustum.width / 2 + f * np.einsum("nkj,nj->nk", rel, right) / d
    v = frustum.height / 2 - f * np.einsum("nkj,nj->nk", rel, up) / d
    # The silhouette of a box is the union of its faces turned to the eye, which do not
    # overlap in the image: the sum of their projected areas (shoelace), exact for a box
    # wholly ahead and in the image. A face partly out of the image counts its area
    # times the share of its bounding box in the image (exact for a face seen as an
    # upright rectangle; an estimate otherwise); a face reaching behind the camera is
    # first clipped by the near plane.
    at = np.flatnonzero(front.any(axis=1))
    if not len(at):
        return out
    fu, fv = u[at][:, _FACES], v[at][:, _FACES]  # (m, 6, 4)
    ok = np.ones((len(at), 6), dtype=bool)
    cr = np.flatnonzero(~ahead[at])
    if len(cr):
        xs, ys, ok[cr] = _near_clipped(frustum, rel[at[cr]], depth[at[cr]], fwd[at[cr]],
                                       right[at[cr]], up[at[cr]])
        fu = np.repeat(fu, 2, axis=2)
        fv = np.repeat(fv, 2, axis=2)
        fu[cr], fv[cr] = xs, ys
    quad = 0.5 * np.abs((fu * np.roll(fv, -1, axis=2) - np.roll(fu, -1, axis=2) * fv).sum(axis=2))
    b0, b1, c0, c1 = fu.min(axis=2), fu.max(axis=2), fv.min(axis=2), fv.max(axis=2)
    box = (b1 - b0) * (c1 - c0)
    inbox = np.maximum(np.minimum(b1, frustum.width) - np.maximum(b0, 0), 0) * \
        np.maximum(np.minimum(c1, frustum.height) - np.maximum(c0, 0), 0)
    share = np.where(box > 0, inbox / np.maximum(box, 1e-12), 0.0)
    normals = mats[at][:, :, _FACE_AXES].transpose(0, 2, 1) * _FACE_SIGNS[None, :, None]
    facing = (np.einsum("nfj,nfj->nf", rel[at][:, _FACES].mean(axis=2), normals) < 0) & ok
    area = np.where(facing, quad * share, 0.0).sum(axis=1)
    # Near the threshold and partly out of the image, exactly: each face clipped by the
    # image's four sides (bounds: a face covers at most min(area, its bounding box in the
    # image), at least its area less what of its bounding box is out of the image).
    upper = np.where(facing, np.minimum(quad, inbox), 0.0).sum(axis=1)
    lower = np.where(facing, np.maximum(quad - (box - inbox), 0.0), 0.0).sum(axis=1)
    # (A face reaching behind the camera projects far out: always exactly.)
    close = np.flatnonzero((lower < need) & (upper >= need) & (
        ((area >= need / 4) & (area < 4 * need)) | ~ahead[at]))
    if len(close):
        x, y = fu[close], fv[close]
        for a, b, c in ((1.0, 0.0, 0.0), (-1.0, 0.0, float(frustum.width)),
                        (0.0, 1.0, 0.0), (0.0, -1.0, float(frustum.height))):
            x, y = _clip(x, y, a, b, c)
        exact = 0.5 * np.abs((x * np.roll(y, -1, axis=2) - np.roll(x, -1, axis=2) * y
                              ).sum(axis=2))
        area[close] = np.where(facing[close], exact, 0.0).sum(axis=1)
    # No face turned to the eye: the eye is inside the box, which fills the view.
    out[at] = (area >= need) | ~facing.any(axis=1)
    return out


def _clip(x: np.ndarray, y: np.ndarray, a: float, b: float, c: float
          ) -> tuple[np.ndarray, np.ndarray]:
    """Convex polygons (vertices along the last axis, repeats allowed) clipped by the
    half-plane a x + b y + c >= 0 (Sutherland-Hodgman: twice the slots, a vertex and an
    edge's crossing each, an empty slot filled with the one before; a polygon wholly
    outside becomes one point, of no area)."""
    g = a * x + b * y + c
    g1 = np.roll(g, -1, axis=-1)
    x1, y1 = np.roll(x, -1, axis=-1), np.roll(y, -1, axis=-1)
    cross = g * g1 < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(cross, g / (g - g1), 0.0)
    k = x.shape[-1]
    sx = np.stack([x, x + w * (x1 - x)], axis=-1).reshape(*x.shape[:-1], 2 * k)
    sy = np.stack([y, y + w * (y1 - y)], axis=-1).reshape(*y.shape[:-1], 2 * k)
    valid = np.stack([g >= 0, cross], axis=-1).reshape(*g.shape[:-1], 2 * k)
    idx = np.where(valid, np.arange(2 * k), -1)
    last = np.maximum.accumulate(idx, axis=-1)
    last = np.maximum(np.where(last < 0, idx.max(axis=-1, keepdims=True), last), 0)
    none = ~valid.any(axis=-1, keepdims=True)
    sx = np.where(none, 0.0, np.take_along_axis(sx, last, axis=-1))
    sy = np.where(none, 0.0, np.take_along_axis(sy, last, axis=-1))
    return sx, sy


def _near_clipped(frustum: Frustum, rel: np.ndarray, depth: np.ndarray, fwd: np.ndarray,
                  right: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """The faces of boxes reaching behind the camera (corners `rel` from the eye, their
    `depth`) clipped by the near plane and projected: (m, 6, 8) image coordinates (a
    vertex and an edge's crossing per slot, an empty slot filled with the one before:
    a repeated point adds no area) and whether each face keeps any part."""
    n = len(rel)
    f = frustum.width / 2 / frustum.tan_h
    fp, fd = rel[:, _FACES], depth[:, _FACES]
    p1, d1 = np.roll(fp, -1, axis=2), np.roll(fd, -1, axis=2)
    cross = (fd - NEAR_M) * (d1 - NEAR_M) < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(cross, (NEAR_M - fd) / (d1 - fd), 0.0)
    slots = np.stack([fp, fp + w[..., None] * (p1 - fp)], axis=3).reshape(n, 6, 8, 3)
    valid = np.stack([fd >= NEAR_M, cross], axis=3).reshape(n, 6, 8)
    k = np.where(valid, np.arange(8), -1)
    last = np.maximum.accumulate(k, axis=2)
    last = np.maximum(np.where(last < 0, k.max(axis=2, keepdims=True), last), 0)
    slots = np.take_along_axis(slots, last[..., None], axis=2)
    sd = np.maximum(np.einsum("nfkj,nj->nfk", slots, fwd), NEAR_M)
    x = frustum.width / 2 + f * np.einsum("nfkj,nj->nfk", slots, right) / sd
    y = frustum.height / 2 - f * np.einsum("nfkj,nj->nfk", slots, up) / sd
    return x, y, valid.any(axis=2)
