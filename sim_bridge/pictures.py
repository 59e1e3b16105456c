"""Pictures of a scene graph: a top-down map (PNG or SVG, matplotlib), the support tree
(SVG, written directly so it is byte-for-byte deterministic), and an experience log's
walk and interaction timeline on the map (PNG or SVG).

A map of a task draws the world in the state the task starts in (`map_world`; the state
from `fdc.compiler.start.task_start_state`): a memory task's items where the experience
left them and the robot where the log ends, not where the scene put them.
See docs/scene-graph.md."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from xml.sax.saxutils import escape

import numpy as np

from fdc.sim_bridge.scene.schema import Kind

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.regions import Region
    from fdc.sim_bridge.graph.scene_graph import ObjectInfo, SceneGraph
    from fdc.sim_bridge.graph.surfaces import Surface
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot

ROOM_COLOURS = ["#f3efe0", "#e3eef6", "#eaf3e3", "#f6e8e8", "#efe6f4", "#f4f1d8", "#e0f0ee"]
NAMED_COLOURS = {
    "red": "#d62728", "blue": "#1f77b4", "green": "#2ca02c", "yellow": "#e6c619",
    "white": "#f8f8f8", "black": "#222222", "grey": "#8c8c8c", "gray": "#8c8c8c",
    "brown": "#8c564b", "pink": "#e377c2", "silver": "#c0c0c0", "clear": "#d9f2fa",
    "orange": "#ff7f0e", "purple": "#9467bd",
}


def _outline(ax: Any, geom: Any, **kw: Any) -> None:
    """Fill polygons, holes included (a room inside its walls stays empty)."""
    import shapely
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as MplPath

    for part in shapely.get_parts(geom):
        if part.geom_type != "Polygon" or part.is_empty:
            continue
        rings = [np.asarray(part.exterior.coords)] + [np.asarray(r.coords)
                                                      for r in part.interiors]
        verts = np.concatenate(rings)
        codes = np.concatenate([[MplPath.MOVETO] + [MplPath.LINETO] * (len(r) - 2)
                                + [MplPath.CLOSEPOLY] for r in rings])
        ax.add_patch(PathPatch(MplPath(verts, codes), **kw))


class MapView(Protocol):
    """What a map reads of the objects and surfaces: the scene graph (the scene's initial
    state) or the graph posed in another state (`PosedGraph`)."""

    def object(self, ident: str) -> ObjectInfo: ...
    def objects(self) -> list[ObjectInfo]: ...
    def surfaces(self, object_id: str | None = None) -> list[Surface]: ...
    def anchor_regions(self, surface_id: str, anchor: str | None = None,
                       exclude: str | None = None) -> list[Region]: ...


@dataclass(frozen=True)
class MapWorld:
    """What a map draws of the world in one state: its objects and surfaces where they
    stand (`view`; a held item's footprint is empty) and the robot's pose (x, y, yaw)."""

    view: MapView
    agent: tuple[float, float, float]


def map_world(g: SceneGraph, state: Snapshot | None = None) -> MapWorld:
    """The world of `g` in `state` as a map draws it (None: the scene's initial state)."""
    if state is None:
        a = g.scene.agent
        return MapWorld(g, (float(a.position[0]), float(a.position[1]), float(a.yaw_rad)))
    from fdc.sim_bridge.world.snapshot import SnapshotState

    return MapWorld(SnapshotState(g, state).posed,
                    (state.agent.x, state.agent.y, state.agent.yaw_rad))


def render_map(g: SceneGraph, *, dpi: int = 150, fmt: str = "png",
               show_regions: bool = True, show_nav: bool = True,
               highlight: Mapping[str, str] | None = None, title: str | None = None,
               state: Snapshot | None = None) -> bytes:
    """A top-down map: rooms, walls, doors, the free floor (navigation grid) and graph,
    furniture, surfaces, items (in their colour), regions, standing points, the agent;
    furniture and items labelled where a label fits without overlapping another
    (`place_labels`). `highlight`: entity id (an object, or a surface `object|part`) ->
    its role in a task (`target`, `distractor`, `bound`, see `entity_roles`), drawn in
    the role's colour and labelled by id before anything else. `state`: the state the
    map shows the objects and the robot in (`map_world`; default the scene's initial
    state)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    xs, ys = [], []
    for r in g.rooms():
        b = r.polygon.bounds
        xs += [b[0], b[2]]
        ys += [b[1], b[3]]
    for o in g.objects():
        if o.kind is Kind.STAGE and o.spec.obstacle is False:
            continue
        b = o.footprint.bounds
        xs += [b[0], b[2]]
        ys += [b[1], b[3]]
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x0, x1, y0, y1 = min(xs) - 0.5, max(xs) + 0.5, min(ys) - 0.5, max(ys) + 0.5
    width_in = 12.0
    plot_w = width_in - 2.6  # the legend takes the rest
    height_in = max(4.0, min(30.0, plot_w * (y1 - y0) / max(x1 - x0, 1e-6))) + 0.9
    fig, ax = plt.subplots(figsize=(width_in, height_in))
    ax.set_aspect("equal")
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    cats = sorted({r.category for r in g.rooms()})
    for r in g.rooms():
        colour = ROOM_COLOURS[cats.index(r.category) % len(ROOM_COLOURS)]
        _outline(ax, r.polygon, facecolor=colour, edgecolor="none", zorder=0)
    nav = g.nav
    if show_nav and nav.node_count:
        free = ~nav.occupancy
        img = np.where(free, 1.0, np.nan)
        ny, nx_ = img.shape
        ox, oy = nav.origin
        res = nav.resolution_m
        ax.imshow(img, origin="lower", extent=(ox, ox + nx_ * res, oy, oy + ny * res),
                  cmap="Greens", vmin=0, vmax=4, alpha=0.35, zorder=1, interpolation="nearest")
        # The graph itself, thinned to every 4th node each way so it stays readable.
        idx = nav.index
        step = 4
        sub = idx[::step, ::step]
        pts = nav.nodes_xy[sub[sub >= 0]]
        ax.scatter(pts[:, 0], pts[:, 1], s=0.6, c="#5a8f5a", zorder=1, linewidths=0)
        pairs = []
        for dy, dx in ((0, 1), (1, 0)):
            a = sub[: sub.shape[0] - dy, : sub.shape[1] - dx]
            b = sub[dy:, dx:]
            ok = (a >= 0) & (b >= 0)
            pairs.append(np.stack([a[ok], b[ok]], axis=1))
        pair = np.concatenate(pairs)
        if len(pair):
            import shapely
            from matplotlib.collections import LineCollection

            segs = np.stack([nav.nodes_xy[pair[:, 0]], nav.nodes_xy[pair[:, 1]]], axis=1)
            keep = shapely.covered_by(shapely.linestrings(segs), nav.free)
            ax.add_collection(LineCollection(list(segs[keep]), colors="#8fbf8f",
                                             linewidths=0.3, zorder=1))
    _outline(ax, g.layout.walls, facecolor="#444444", edgecolor="none", zorder=3)
    roles = {k.split("|")[0]: v for k, v in (highlight or {}).items()}
    world = map_world(g, state)
    view = world.view
    for o in view.objects():
        if o.is_movable or (o.kind is Kind.STAGE and o.spec.obstacle is False):
            continue
        face = "#c8a878" if o.kind is not Kind.ARTICULATED else "#b89bc8"
        role = roles.get(o.id)
        _outline(ax, o.footprint, facecolor=face, zorder=4,
                 edgecolor=ROLE_COLOURS[role] if role else "#6b5537",
                 linewidth=2.2 if role else 0.8)
    for s in view.surfaces():
        if view.object(s.object_id).is_movable:
            continue
        style = dict(facecolor="none", edgecolor="#2b6cb0" if s.container is None else "#805ad5",
                     linewidth=0.6, linestyle="--" if s.container is None else ":", zorder=5)
        _outline(ax, s.polygon, **style)
    if show_regions:
        for s in view.surfaces():
            for reg in view.anchor_regions(s.id):
                _outline(ax, reg.polygon, facecolor="#63b3ed", edgecolor="#2b6cb0",
                         linewidth=0.2, alpha=0.18, zorder=6)
    for o in view.objects():
        if o.kind is not Kind.MOVABLE:
            continue
        colour = NAMED_COLOURS.get(o.attributes.get("color", ""), "#ed8936")
        role = roles.get(o.id)
        _outline(ax, o.footprint, facecolor=colour, zorder=7,
                 edgecolor=ROLE_COLOURS[role] if role else "#1a1a1a",
                 linewidth=2.0 if role else 0.5)
    sp = g.standing_points()
    if sp:
        p = np.array([q.position for q in sp])
        reach = np.array([q.reachable for q in sp])
        u = np.cos([q.yaw_rad for q in sp]) * 0.12
        v = np.sin([q.yaw_rad for q in sp]) * 0.12
        for mask, colour in ((reach, "#2f855a"), (~reach, "#c53030")):
            if mask.any():
                ax.quiver(p[mask, 0], p[mask, 1], u[mask], v[mask], color=colour,
                          angles="xy", scale_units="xy", scale=1, width=0.002, zorder=8)
                ax.scatter(p[mask, 0], p[mask, 1], s=6, c=colour, zorder=8)
    for d in g.layout.doors:
        c = d.centroid
        ax.plot([c.x], [c.y], marker="s", ms=3, color="#c05621", zorder=9)
    ax_, ay_, yaw = world.agent
    ax.plot([ax_], [ay_], marker="*", ms=14, color="#e53e3e",
            markeredgecolor="black", zorder=10)
    ax.annotate("", xy=(ax_ + 0.5 * math.cos(yaw), ay_ + 0.5 * math.sin(yaw)),
                xytext=(ax_, ay_),
                arrowprops=dict(arrowstyle="->", color="#e53e3e"), zorder=10)
    labels = [Label(*_label_point(g, r.polygon), r.name, movable=False,
                    style={"fontsize": 11, "color": "#4a4a4a", "alpha": 0.55,
                           "fontweight": "bold", "zorder": 2}) for r in g.rooms()]
    labels += _object_labels(view, roles)
    handles_roles = [Patch(facecolor="none", edgecolor=ROLE_COLOURS[r], linewidth=2, label=r)
                     for r in ROLE_COLOURS if r in roles.values()]
    handles = [
        Patch(facecolor="#c8a878", edgecolor="#6b5537", label="furniture"),
        Patch(facecolor="#b89bc8", edgecolor="#6b5537", label="articulated"),
        Patch(facecolor="none", edgecolor="#2b6cb0", linestyle="--", label="surface"),
        Patch(facecolor="none", edgecolor="#805ad5", linestyle=":", label="container"),
        Patch(facecolor="#63b3ed", alpha=0.3, label="regions around items"),
        Patch(facecolor="#ed8936", edgecolor="#1a1a1a", label="item (its colour)"),
        Line2D([], [], color="#2f855a", marker="o", ls="", ms=4, label="standing point"),
        Line2D([], [], color="#c53030", marker="o", ls="", ms=4, label="unreachable stand"),
        Patch(facecolor="#9ad09a", alpha=0.5, label="free floor (nav grid)"),
        Line2D([], [], color="#c05621", marker="s", ls="", ms=4, label="door"),
        Line2D([], [], color="#e53e3e", marker="*", ls="", ms=10, label="agent start"),
        *handles_roles,
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
              frameon=False)
    summary = g.summary()
    ax.set_title(title or f"{g.scene.name}: {summary['rooms']} rooms, {summary['objects']} "
                 f"objects, {summary['surfaces']} surfaces, {summary['standing_points']} "
                 "standing points", fontsize=10)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.tick_params(labelsize=7)
    place_labels(fig, ax, labels)
    return figure_bytes(fig, fmt, dpi)


#: The colour of each role an entity can have in one task.
ROLE_COLOURS = {"target": "#e53e3e", "distractor": "#dd6b20", "bound": "#3182ce"}


def entity_roles(g: SceneGraph, targets: Sequence[str], bound: Sequence[str]
                 ) -> dict[str, str]:
    """Each entity's role in one task: its `targets`; the other entities it `bound`;
    the distractors, items of a target's category that are neither."""
    base = {t.split("|")[0] for t in targets}
    known = {o.id: o for o in g.objects()}
    categories = {known[t].category for t in base if t in known}
    roles = {o.id: "distractor" for o in g.objects(kind=Kind.MOVABLE)
             if o.category in categories}
    roles.update({b.split("|")[0]: "bound" for b in bound})
    roles.update({t: "target" for t in base})
    return roles


@dataclass(frozen=True)
class Label:
    """A text at a point of the map; `movable`: it may move off the point (with a
    leader line) to a spot where it overlaps nothing placed before; `beside`: it never
    covers the point (an item stays visible under its label)."""

    x: float
    y: float
    text: str
    style: dict[str, Any] = field(default_factory=dict)
    movable: bool = True
    beside: bool = False


#: Where a label may go, in points from its point: on it, then around it, farther out.
_SPOTS = [(0.0, 0.0)] + [(r * math.cos(k * math.pi / 4), r * math.sin(k * math.pi / 4))
                         for r in (9.0, 16.0, 24.0) for k in (2, 6, 0, 4, 1, 3, 5, 7)]


def _object_labels(g: MapView, roles: Mapping[str, str]) -> list[Label]:
    """The objects' labels, those with a role first (by id, in its colour), then
    furniture, then items (by name)."""
    from matplotlib.patheffects import withStroke

    first: list[Label] = []
    rest: list[Label] = []
    if len(g.objects()) > 400 and not roles:
        return []
    for o in sorted(g.objects(), key=lambda o: o.is_movable):
        if (o.kind is Kind.STAGE and o.spec.obstacle is False) or o.footprint.is_empty:
            continue  # a held item is in the hand, not on the map
        c = o.footprint.centroid
        role = roles.get(o.id)
        if role:
            first.append(Label(c.x, c.y, f"{o.id} ({role})", {
                "fontsize": 7, "color": ROLE_COLOURS[role], "fontweight": "bold", "zorder": 12,
                "path_effects": [withStroke(linewidth=2.5, foreground="white")]},
                beside=True))
        elif len(g.objects()) <= 400:
            rest.append(Label(c.x, c.y, o.name, {
                "fontsize": 5.5 if not o.is_movable else 5, "zorder": 9,
                "color": "#2d2d2d" if not o.is_movable else "#5a3d1e"}, beside=o.is_movable))
    return first + rest


def place_labels(fig: Any, ax: Any, labels: Sequence[Label]) -> int:
    """Draw each label at the first spot (`_SPOTS`) where it overlaps no label drawn
    before and stays inside the axes, a leader line to its point when moved; a label
    that fits nowhere is left out. Returns how many were drawn."""
    from matplotlib.text import Text

    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    placed: list[Any] = []
    for lab in labels:
        for dx, dy in _SPOTS[lab.beside:] if lab.movable else _SPOTS[:1]:
            arrow = {"arrowstyle": "-", "color": "#888888", "lw": 0.4, "shrinkA": 0,
                     "shrinkB": 0} if (dx, dy) != (0.0, 0.0) else None
            t = ax.annotate(lab.text, (lab.x, lab.y), xytext=(dx, dy),
                            textcoords="offset points", ha="center", va="center",
                            arrowprops=arrow, annotation_clip=False, **lab.style)
            t.set_in_layout(False)
            t.update_positions(renderer)  # the text's own box, without the leader
            box = Text.get_window_extent(t, renderer).padded(1.0)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 \
                and box.y1 <= frame.y1
            if inside and not any(box.overlaps(b) for b in placed):
                placed.append(box)
                break
            t.remove()
    return len(placed)


def figure_bytes(fig: Any, fmt: str, dpi: int) -> bytes:
    """A laid-out figure as PNG or SVG bytes, without dates or versions in the file (so
    the same picture gives the same bytes), and closed."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    metadata: dict[str, Any] = {"Software": None} if fmt == "png" else {"Date": None}
    fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
    plt.close(fig)
    return buf.getvalue()


def _label_point(g: SceneGraph, polygon: Any) -> tuple[float, float]:
    """The free floor point of a room farthest from walls and furniture."""
    import shapely

    nodes = g.nav.nodes_xy
    inside = shapely.contains_xy(polygon, nodes[:, 0], nodes[:, 1]) if len(nodes) else []
    if len(nodes) == 0 or not np.any(inside):
        p = polygon.representative_point()
        return (p.x, p.y)
    cand = nodes[inside]
    d = shapely.distance(shapely.points(cand), g.nav.blocked)
    k = int(np.argmax(np.round(d, 3)))
    return (float(cand[k, 0]), float(cand[k, 1]))


def _label_angle(yaw: float, size: tuple[float, float, float]) -> float:
    # Write along the long side of the footprint, never upside down.
    along = yaw if size[0] >= size[1] else yaw + math.pi / 2
    deg = math.degrees(along) % 180
    return deg - 180 if deg > 90 else deg


def support_tree_rows(g: SceneGraph) -> list[tuple[int, str, str]]:
    """The support tree as an outline, one row per node (depth, text, colour): rooms,
    the furniture standing in them, their surfaces and containers, and what rests on
    each (recursively). The SVG and PNG pictures and `fdc scene render --tree` draw it."""
    rows: list[tuple[int, str, str]] = []  # depth, text, colour

    def item_rows(surface_id: str, depth: int) -> None:
        for o in g.items_on(surface_id):
            attrs = ", ".join(f"{k}={v}" for k, v in sorted(o.attributes.items()))
            rows.append((depth, f"{o.id} ({o.category}{'; ' + attrs if attrs else ''})",
                         "#c05621"))
            for s in g.surfaces(o.id):
                if g.items_on(s.id):
                    rows.append((depth + 1, f"{s.id}", "#2b6cb0"))
                    item_rows(s.id, depth + 2)

    def furniture_rows(o_id: str, depth: int) -> None:
        o = g.object(o_id)
        rows.append((depth, f"{o.id} ({o.category}, {o.kind.value})", "#6b4f2a"))
        for s in g.surfaces(o.id):
            label = "container" if s.container else "surface"
            state = "" if s.container is None else (" open" if s.is_open else " closed")
            rows.append((depth + 1, f"{s.id} [{label}{state}, z={s.z:.2f} m, "
                         f"{s.area_m2:.2f} m², clearance {min(s.clearance_m, 99):.2f} m]",
                         "#2b6cb0" if s.container is None else "#805ad5"))
            item_rows(s.id, depth + 2)

    roots = [o for o in g.objects() if o.parent_surface is None]
    rows.append((0, f"scene {g.scene.name}", "#1a202c"))
    for r in g.rooms():
        rows.append((1, f"room {r.id} ({r.category})", "#2f855a"))
        for o in roots:
            if o.room == r.id:
                furniture_rows(o.id, 2)
    loose = [o for o in roots if o.room is None]
    if loose:
        rows.append((1, "outside every room", "#c53030"))
        for o in loose:
            furniture_rows(o.id, 2)
    return rows


def render_support_tree(g: SceneGraph, *, fmt: str = "svg", dpi: int = 150) -> str | bytes:
    """The support tree as an indented outline with connectors: SVG text, or PNG bytes
    (`fmt="png"`)."""
    rows = support_tree_rows(g)
    if fmt == "png":
        return _support_tree_png(rows, dpi)
    line_h, indent, char_w = 16, 18, 6.6
    width = int(max(indent * d + char_w * len(t) for d, t, _ in rows) + 40)
    height = line_h * len(rows) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    parents: list[int] = []
    for k, (depth, text, colour) in enumerate(rows):
        y = 16 + k * line_h
        x = 10 + depth * indent
        while len(parents) > depth:
            parents.pop()
        if depth > 0 and parents:
            py = 16 + parents[-1] * line_h
            px = 10 + (depth - 1) * indent + 4
            out.append(f'<path d="M{px},{py + 3} V{y - 4} H{x - 2}" stroke="#a0aec0" '
                       'fill="none"/>')
        parents.append(k)
        out.append(f'<text x="{x}" y="{y}" fill="{colour}">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _support_tree_png(rows: list[tuple[int, str, str]], dpi: int) -> bytes:
    """The outline drawn by matplotlib: one line of monospace text per row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    line_in, indent_in, char_in = 0.2, 0.25, 0.085
    width = max(indent_in * d + char_in * len(t) for d, t, _ in rows) + 0.4
    height = line_in * len(rows) + 0.3
    fig = plt.figure(figsize=(width, height), dpi=dpi)
    fig.patch.set_facecolor("white")
    parents: list[int] = []
    for k, (depth, text, colour) in enumerate(rows):
        y = 1 - (0.2 + (k + 0.5) * line_in) / height
        x = (0.15 + depth * indent_in) / width
        while len(parents) > depth:
            parents.pop()
        if depth > 0 and parents:
            py = 1 - (0.2 + (parents[-1] + 0.5) * line_in) / height
            px = (0.15 + (depth - 1) * indent_in + 0.05) / width
            fig.add_artist(matplotlib.lines.Line2D(
                [px, px, x - 0.03 / width], [py - 0.06 / height, y, y], color="#a0aec0",
                linewidth=0.8))
        parents.append(k)
        fig.text(x, y, text, color=colour, family="monospace", fontsize=8, va="center")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _clock(minutes: float) -> str:
    m = round(minutes)
    return f"{m // 60:02d}:{m % 60:02d}"


def render_experience(g: SceneGraph, log: Experience, *, fmt: str = "png", dpi: int = 120
                      ) -> bytes:
    """The walk on the scene map (coloured by the clock), each interaction's pick (circle)
    and place (square) numbered, and below it the interaction timeline. Deterministic:
    no dates in the metadata, a fixed SVG hash salt."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    rooms = g.rooms()
    xs: list[float] = []
    ys: list[float] = []
    for r in rooms:
        b = r.polygon.bounds
        xs += [b[0], b[2]]
        ys += [b[1], b[3]]
    walk = np.array([(f.agent.x, f.agent.y) for f in log.frames]).reshape(-1, 2)
    xs += walk[:, 0].tolist()
    ys += walk[:, 1].tolist()
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x0, x1, y0, y1 = min(xs) - 0.5, max(xs) + 0.5, min(ys) - 0.5, max(ys) + 0.5
    width_in = 10.0
    map_h = max(3.0, min(14.0, width_in * (y1 - y0) / max(x1 - x0, 1e-6)))
    its = log.interactions
    clocks = np.array([f.clock_min for f in log.frames])
    lo = min(360.0, float(clocks.min())) if len(clocks) else 360.0
    hi = max(1320.0, float(clocks.max())) if len(clocks) else 1320.0
    line_h = 1.0 + 0.28 * max(len(its), 1)
    with plt.rc_context({"svg.hashsalt": "fdc-experience", "svg.fonttype": "path"}):
        fig, (ax, tl) = plt.subplots(
            2, 1, figsize=(width_in, map_h + line_h),
            gridspec_kw={"height_ratios": [map_h, line_h]})
        ax.set_aspect("equal")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        cats = sorted({r.category for r in rooms})
        for r in rooms:
            fill = ROOM_COLOURS[cats.index(r.category) % len(ROOM_COLOURS)]
            _outline(ax, r.polygon, facecolor=fill, edgecolor="none", zorder=0)
            c = r.polygon.representative_point()
            ax.text(c.x, c.y, r.name, ha="center", va="center", fontsize=8, color="#4a4a4a",
                    alpha=0.7, zorder=4)
        _outline(ax, g.layout.walls, facecolor="#444444", edgecolor="none", zorder=2)
        for o in g.objects():
            if o.is_movable or (o.kind is Kind.STAGE and o.spec.obstacle is False):
                continue
            _outline(ax, o.footprint, facecolor="#d9c3a0", edgecolor="#8a6d45", linewidth=0.5,
                     zorder=3)
        sx, sy = g.scene.agent.position[0], g.scene.agent.position[1]
        if len(walk) > 1:
            segs = np.stack([walk[:-1], walk[1:]], axis=1)
            lc = LineCollection(list(segs), cmap="viridis", linewidths=1.4, zorder=5)
            lc.set_array((clocks[:-1] + clocks[1:]) / 2)
            lc.set_clim(lo, hi)
            ax.add_collection(lc)
        if len(walk):
            sx, sy = float(walk[0, 0]), float(walk[0, 1])
        ax.plot([sx], [sy], marker="*", ms=13, color="#e53e3e", markeredgecolor="black",
                zorder=8, ls="")
        palette = plt.get_cmap("tab10")
        where: dict[str, tuple[float, float]] = {}
        for k, it in enumerate(its, 1):
            colour = palette((k - 1) % 10)
            if it.object in where:
                p0 = where[it.object]
            else:
                pos = g.object(it.object).position
                p0 = (pos[0], pos[1])
            ax.plot([p0[0]], [p0[1]], marker="o", ms=11, color=colour, markeredgecolor="black",
                    zorder=7, ls="")
            ax.text(p0[0], p0[1], str(k), ha="center", va="center", fontsize=7, color="white",
                    fontweight="bold", zorder=9)
            if it.placed_position is not None:
                p1 = (it.placed_position[0], it.placed_position[1])
                where[it.object] = p1
                ax.annotate("", xy=p1, xytext=p0, zorder=6,
                            arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.0,
                                        "linestyle": "--"})
                ax.plot([p1[0]], [p1[1]], marker="s", ms=11, color=colour,
                        markeredgecolor="black", zorder=7, ls="")
                ax.text(p1[0], p1[1], str(k), ha="center", va="center", fontsize=7,
                        color="white", fontweight="bold", zorder=9)
        ax.set_title(f"{g.scene.name}: {len(its)} interactions, {len(log.frames)} frames "
                     "(walk coloured by the clock; ● pick, ■ place)", fontsize=9)
        ax.set_xlabel("x (m)", fontsize=8)
        ax.set_ylabel("y (m)", fontsize=8)
        ax.tick_params(labelsize=7)
        # The timeline: one bar per interaction, over a strip of the walk's colours.
        strip = np.linspace(lo, hi, 256)[None, :]
        n = max(len(its), 1)
        tl.imshow(strip, extent=(lo, hi, n - 0.35, n + 0.05), aspect="auto",
                  cmap="viridis", vmin=lo, vmax=hi, zorder=0)
        labels = []
        names = [g.object(it.object).name for it in its]
        for k, it in enumerate(its, 1):
            end_min = it.end_min if it.end_min is not None else log.frames[-1].clock_min
            tl.barh(k - 1, max(end_min - it.start_min, 1.0), left=it.start_min, height=0.6,
                    color=palette((k - 1) % 10), edgecolor="black", linewidth=0.5, zorder=2)
            # An item is named by its id where two items moved share a name.
            name = names[k - 1] if names.count(names[k - 1]) == 1 else it.object
            labels.append(f"{k}. {name} ({_clock(it.start_min)}-{_clock(end_min)})")
        tl.set_yticks(range(len(its)), labels, fontsize=7)
        tl.set_ylim(n + 0.05, -0.6)
        tl.set_xlim(lo, hi)
        ticks = list(range(math.ceil(lo / 120) * 120, int(hi) + 1, 120))
        tl.set_xticks(ticks, [_clock(t) for t in ticks], fontsize=7)
        tl.set_xlabel("clock", fontsize=8)
        tl.grid(axis="x", color="#cccccc", linewidth=0.5, zorder=1)
        data = figure_bytes(fig, fmt, dpi)
    return data
