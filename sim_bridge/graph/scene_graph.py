"""The receptacle-aware scene graph: `build_scene_graph(scene)` and the `SceneGraph` API.

`build_scene_graph` reads as the pipeline it runs, one timed pass per line:
floor plan, bodies, surfaces, support tree, navigation, regions, standing points.
The `SceneGraph` it returns is read-only: entity lookups (by id, category, attributes,
room), the support tree, surfaces and their regions, standing points, geodesic distances
and shortest paths, visibility, and placement queries.
See docs/scene-graph.md.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.core.errors import InputError
from fdc.core.limits import current, hint
from fdc.core.problems import Diagnostic, error, render_text
from fdc.sim_bridge.graph.bodies import Bodies, compute_bodies
from fdc.sim_bridge.graph.navigation import (
    NavConfig,
    Navigation,
    StandingPoint,
    grid_shape,
    path_length,
    standing_points,
)
from fdc.sim_bridge.graph.placement import (
    Placement,
    PlacementConfig,
    place_around,
    place_beside,
    place_between,
    place_in_cell,
    place_inside,
    place_on,
)
from fdc.sim_bridge.graph.regions import (
    Direction,
    Region,
    RegionConfig,
    Side,
    anchor_regions,
    grid_cells,
)
from fdc.sim_bridge.graph.rooms import Layout, build_layout
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.graph.support import (
    Support,
    SupportConfig,
    build_support,
    footprint_overlaps,
)
from fdc.sim_bridge.graph.surfaces import Surface, SurfaceConfig, carriers, derive_surfaces
from fdc.sim_bridge.graph.visibility import line_of_sight, visible_objects
from fdc.sim_bridge.scene.load import load_scene
from fdc.sim_bridge.scene.schema import Kind, ObjectSpec, Scene

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.routes import Walker

Point = tuple[float, float] | tuple[float, float, float]
#: Room for rounding where a bound decides `SceneGraph.geodesic_within` (the bound and the
#: path's length are summed in other orders): far more than it, far less than a grid cell.
_ROUNDING_M = 1e-9


@dataclass(frozen=True)
class BuildConfig:
    surfaces: SurfaceConfig = field(default_factory=SurfaceConfig)
    support: SupportConfig = field(default_factory=SupportConfig)
    regions: RegionConfig = field(default_factory=RegionConfig)
    navigation: NavConfig = field(default_factory=NavConfig)
    placement: PlacementConfig = field(default_factory=PlacementConfig)


@dataclass(frozen=True, eq=False)
class ObjectInfo:
    """An object as the graph sees it."""

    id: str
    category: str
    kind: Kind
    attributes: Mapping[str, str]
    position: tuple[float, float, float]
    yaw_rad: float
    size: tuple[float, float, float]
    bottom_z: float
    top_z: float
    footprint: Any  # shapely polygon
    room: str | None
    parent_surface: str | None  # the surface it rests on (None: the floor)
    depth: int  # 1: on the floor, 2: on furniture, ...
    surfaces: tuple[str, ...]  # its own surfaces (lowest first)
    spec: ObjectSpec

    @property
    def is_movable(self) -> bool:
        return self.kind is Kind.MOVABLE

    @property
    def name(self) -> str:
        return self.spec.name or self.category.replace("_", " ")


@dataclass(frozen=True, eq=False)
class RoomInfo:
    id: str
    category: str
    name: str
    polygon: Any
    floor_z: float
    height_m: float
    objects: tuple[str, ...]


Entity = ObjectInfo | RoomInfo | Surface


class SceneGraph:
    """A built scene: look-ups, geometry and queries. Build it with `build_scene_graph`."""

    def __init__(
        self,
        scene: Scene,
        config: BuildConfig,
        layout: Layout,
        bodies: Bodies,
        surfaces: list[Surface],
        support: Support,
        nav: Navigation,
        cells: dict[str, list[Region]],
        anchor_region_map: dict[str, list[Region]],
        standing: list[StandingPoint],
        findings: list[Diagnostic],
        layer_obstacles: tuple[Any, Any, Any],
        timings: dict[str, float],
    ) -> None:
        import shapely

        self.scene = scene
        self.config = config
        self.layout = layout
        self.bodies = bodies
        self.nav = nav
        self.findings = findings
        self.timings = timings
        self._support = support
        self._surfaces = {s.id: s for s in surfaces}
        self._surface_list = surfaces
        self._cells = cells
        self._anchor_regions = anchor_region_map
        self._standing = standing
        self._layer_geoms, self._layer_z, self._layer_owner = layer_obstacles
        self._layer_tree = shapely.STRtree(self._layer_geoms)
        idx = bodies.index()
        by_owner: dict[str, list[str]] = defaultdict(list)
        for s in surfaces:
            by_owner[s.object_id].append(s.id)
        self._objects: dict[str, ObjectInfo] = {}
        for i, o in enumerate(scene.objects):
            p = support.parent[i]
            r = support.rooms[i]
            self._objects[o.id] = ObjectInfo(
                id=o.id,
                category=o.category,
                kind=support.kinds[i],
                attributes=dict(o.attributes),
                position=tuple(float(x) for x in bodies.positions[i]),  # type: ignore[arg-type]
                yaw_rad=float(bodies.yaws[i]),
                size=tuple(float(x) for x in bodies.sizes[i]),  # type: ignore[arg-type]
                bottom_z=float(bodies.bottoms[i]),
                top_z=float(bodies.tops[i]),
                footprint=bodies.footprints[i],
                room=layout.room_ids[r] if r >= 0 else None,
                parent_surface=surfaces[p].id if p >= 0 else None,
                depth=support.depth[i],
                surfaces=tuple(sorted(by_owner.get(o.id, []),
                                      key=lambda sid: (self._surfaces[sid].z, sid))),
                spec=o,
            )
        self._index = idx
        self._children: dict[str, list[str]] = defaultdict(list)
        for ident, info in self._objects.items():
            if info.parent_surface is not None:
                self._children[info.parent_surface].append(ident)
        for v in self._children.values():
            v.sort()
        # What rests on something, for the obstacles reaching over another surface.
        resting = sorted(i for i, o in self._objects.items() if o.parent_surface is not None)
        self._resting_ids = np.array(resting, dtype=object)
        self._resting_z = np.array([(self._objects[i].bottom_z, self._objects[i].top_z)
                                    for i in resting], dtype=np.float64).reshape(-1, 2)
        self._resting_tree = shapely.STRtree([self._objects[i].footprint for i in resting])
        room_objects: dict[str, list[str]] = defaultdict(list)
        for ident, info in self._objects.items():
            if info.room is not None:
                room_objects[info.room].append(ident)
        self._rooms: dict[str, RoomInfo] = {}
        specs = {r.id: r for r in scene.rooms}
        for k, rid in enumerate(layout.room_ids):
            spec = specs[rid]
            self._rooms[rid] = RoomInfo(
                id=rid, category=spec.category, name=spec.name or spec.category.replace("_", " "),
                polygon=layout.room_polygons[k], floor_z=spec.floor_z, height_m=spec.height_m,
                objects=tuple(sorted(room_objects.get(rid, []))),
            )
        self._by_category: dict[str, list[str]] = defaultdict(list)
        for ident in sorted(self._objects):
            self._by_category[self._objects[ident].category].append(ident)
        self._standing_by_surface: dict[str, list[StandingPoint]] = defaultdict(list)
        for sp in standing:
            self._standing_by_surface[sp.surface_id].append(sp)

    # ----- entities -------------------------------------------------------------------
    def entity(self, ident: str) -> Entity:
        """An object, room or surface by id (KeyError if none)."""
        if ident in self._objects:
            return self._objects[ident]
        if ident in self._rooms:
            return self._rooms[ident]
        if ident in self._surfaces:
            return self._surfaces[ident]
        raise KeyError(ident)

    def has(self, ident: str) -> bool:
        return ident in self._objects or ident in self._rooms or ident in self._surfaces

    def object(self, ident: str) -> ObjectInfo:
        return self._objects[ident]

    def room(self, ident: str) -> RoomInfo:
        return self._rooms[ident]

    def surface(self, ident: str) -> Surface:
        return self._surfaces[ident]

    def objects(
        self,
        category: str | None = None,
        kind: Kind | None = None,
        room: str | None = None,
        attributes: Mapping[str, str] | None = None,
        on: str | None = None,
    ) -> list[ObjectInfo]:
        """Objects matching every given filter, sorted by id. `on` is a surface id or an
        object id (any of its surfaces)."""
        ids = self._by_category.get(category, []) if category is not None else \
            sorted(self._objects)
        out = []
        surf_ids = None
        if on is not None:
            surf_ids = {on} if on in self._surfaces else set(self._objects[on].surfaces) \
                if on in self._objects else set()
        for ident in ids:
            o = self._objects[ident]
            if kind is not None and o.kind is not kind:
                continue
            if room is not None and o.room != room:
                continue
            if attributes and any(o.attributes.get(k) != v for k, v in attributes.items()):
                continue
            if surf_ids is not None and o.parent_surface not in surf_ids:
                continue
            out.append(o)
        return out

    def by_category(self, category: str) -> list[ObjectInfo]:
        return self.objects(category=category)

    def categories(self) -> list[str]:
        return sorted(self._by_category)

    def rooms(self, category: str | None = None) -> list[RoomInfo]:
        return [r for r in self._rooms.values() if category is None or r.category == category]

    def surfaces(self, object_id: str | None = None) -> list[Surface]:
        if object_id is None:
            return list(self._surface_list)
        return [self._surfaces[s] for s in self._objects[object_id].surfaces]

    def surfaces_of(self, object_id: str) -> list[Surface]:
        return self.surfaces(object_id)

    def containers_of(self, ident: str) -> list[Surface]:
        """Container floors: of an object, or the one named `object|container`."""
        if ident in self._surfaces:
            s = self._surfaces[ident]
            return [s] if s.container is not None else []
        if ident in self._objects:
            return [s for s in self.surfaces(ident) if s.container is not None]
        return []

    # ----- support tree ---------------------------------------------------------------
    def parent_surface(self, item_id: str) -> Surface | None:
        p = self._objects[item_id].parent_surface
        return self._surfaces[p] if p is not None else None

    def carrier(self, item_id: str) -> ObjectInfo | None:
        """The object whose surface carries `item_id` (None: the floor)."""
        s = self.parent_surface(item_id)
        return self._objects[s.object_id] if s is not None else None

    def root_carrier(self, item_id: str) -> ObjectInfo:
        """The piece of furniture at the bottom of the item's support chain."""
        o = self._objects[item_id]
        for _ in range(64):
            c = self.carrier(o.id)
            if c is None:
                return o
            o = c
        return o

    def items_on(self, surface_id: str) -> list[ObjectInfo]:
        return [self._objects[i] for i in self._children.get(surface_id, [])]

    def support_edges(self) -> list[tuple[str, str, str]]:
        """(carrier object, surface, item) for every supported item, sorted."""
        out = []
        for sid, items in self._children.items():
            for i in items:
                out.append((self._surfaces[sid].object_id, sid, i))
        return sorted(out)

    # ----- rooms ----------------------------------------------------------------------
    def room_of(self, what: str | Point) -> RoomInfo | None:
        """The room of an object or surface, or of a point (x, y[, z])."""
        if isinstance(what, str):
            if what in self._objects:
                r = self._objects[what].room
                return self._rooms[r] if r is not None else None
            if what in self._surfaces:
                return self.room_of(self._surfaces[what].object_id)
            if what in self._rooms:
                return self._rooms[what]
            raise KeyError(what)
        z = what[2] if len(what) == 3 else None  # type: ignore[misc]
        k = int(self.layout.rooms_at([what[:2]], z)[0])
        return self._rooms[self.layout.room_ids[k]] if k >= 0 else None

    # ----- regions --------------------------------------------------------------------
    def cells(self, surface_id: str) -> list[Region]:
        """The 3x3 grid of thirds of a surface."""
        return list(self._cells.get(surface_id, []))

    def anchor_regions(self, surface_id: str, anchor: str | None = None,
                       exclude: str | None = None) -> list[Region]:
        """The 8 regions around each anchor on the surface (or around one anchor).
        `exclude` leaves an item out, as when it is the item being moved."""
        if exclude is not None and exclude in self._children.get(surface_id, []):
            regions = self._compute_anchor_regions(surface_id, exclude)
        else:
            regions = self._anchor_regions.get(surface_id, [])
        return [r for r in regions if anchor is None or r.anchor_id == anchor]

    def regions(self, surface_id: str) -> list[Region]:
        """ManiTaskGen's destinations: the 3x3 cells of an empty surface, else the 8
        regions around each item on it."""
        if self._children.get(surface_id):
            return self.anchor_regions(surface_id)
        return self.cells(surface_id)

    def _compute_anchor_regions(self, surface_id: str, exclude: str | None) -> list[Region]:
        s = self._surfaces[surface_id]
        ids = [i for i in self._children.get(surface_id, []) if i != exclude]
        fps = np.array([self._objects[i].footprint for i in ids], dtype=object)
        return anchor_regions(s, ids, fps, self._fixed_near(s, 0.1, self._carriers(s)),
                              self.config.regions)

    def _fixed_near(self, s: Surface, height_m: float, carriers: Collection[str] = ()) -> Any:
        """Walls and fixed objects crossing the layer [z, z + height] over the surface,
        but its owner and `carriers` (what the owner rests on, at any depth: the
        bookshelf under a book on its shelf is no obstacle to what goes on the book)."""
        hits = self._layer_tree.query(s.polygon, predicate="intersects")
        hits = np.sort(hits)
        zlo, zhi = self._layer_z[hits, 0], self._layer_z[hits, 1]
        own = self._layer_owner[hits]
        ok = (zlo < s.z + height_m) & (zhi > s.z + 0.005) & (own != s.object_id)
        if carriers:
            ok &= ~np.isin(own, list(carriers))
        return self._layer_geoms[hits[ok]]

    def _carriers(self, s: Surface) -> list[str]:
        """The objects under a surface: its owner, what the owner rests on, and so on."""
        return carriers(s, self._resting_on)

    def _resting_on(self, obj: str) -> Surface | None:
        """The surface an object stands on in the scene, if it is known."""
        o = self._objects.get(obj)
        p = o.parent_surface if o is not None else None
        return self._surfaces[p] if p is not None else None

    def obstacles_on(self, surface_id: str, exclude: str | None = None,
                     height_m: float = 0.1) -> Any:
        """What an item placed on the surface must not touch: the items on it (but
        `exclude`), walls and fixed objects crossing its layer, and the items resting
        elsewhere (another receptacle overlapping this one, a shelf below) that reach
        into the layer [z, z + height] above it."""
        s = self._surfaces[surface_id]
        own = self._children.get(surface_id, [])
        items = [self._objects[i].footprint for i in own if i != exclude]
        hits = np.sort(self._resting_tree.query(s.polygon, predicate="intersects"))
        zs = self._resting_z[hits]
        hits = hits[(zs[:, 0] < s.z + max(height_m, 0.01)) & (zs[:, 1] > s.z + 0.005)]
        carriers = self._carriers(s)
        skip = {*own, exclude, *carriers}
        items += [self._objects[i].footprint for i in self._resting_ids[hits] if i not in skip]
        return np.concatenate([np.array(items, dtype=object),
                               np.asarray(self._fixed_near(s, max(height_m, 0.01), carriers),
                                          dtype=object)])

    # ----- navigation -----------------------------------------------------------------
    def standing_points(self, ident: str | None = None, reachable_only: bool = False
                        ) -> list[StandingPoint]:
        """Standing points of a surface, of an object's surfaces (an item: its carrier's
        surface), or all of them."""
        if ident is None:
            pts = list(self._standing)
        elif ident in self._surfaces:
            s = self._surfaces[ident]
            pts = list(self._standing_by_surface.get(ident, []))
            if not pts and s.object_id in self._objects:
                parent = self._objects[s.object_id].parent_surface
                if parent is not None:
                    return self.standing_points(parent, reachable_only)
        elif ident in self._objects:
            o = self._objects[ident]
            if o.surfaces and any(self._standing_by_surface.get(x) for x in o.surfaces):
                pts = [p for x in o.surfaces for p in self._standing_by_surface.get(x, [])]
            elif o.parent_surface is not None:
                return self.standing_points(o.parent_surface, reachable_only)
            else:
                pts = []
        else:
            raise KeyError(ident)
        return [p for p in pts if p.reachable or not reachable_only]

    def _endpoints(self, what: str | Point) -> list[tuple[float, float]]:
        """Points a path to `what` may end at."""
        if not isinstance(what, str):
            return [(float(what[0]), float(what[1]))]
        if what in self._rooms:
            r = self._rooms[what]
            import shapely

            inside = shapely.contains_xy(r.polygon, self.nav.nodes_xy[:, 0],
                                         self.nav.nodes_xy[:, 1])
            pts = [tuple(map(float, p)) for p in self.nav.nodes_xy[inside]]
            if pts:
                return pts  # type: ignore[return-value]
            c = r.polygon.representative_point()
            return [(c.x, c.y)]
        sps = [sp for sp in self._standing if sp.id == what]
        if sps:
            return [sps[0].position]
        pts = [p.position for p in self.standing_points(what) if p.reachable]
        if pts:
            return pts
        e = self.entity(what)
        if isinstance(e, ObjectInfo):
            return [(e.position[0], e.position[1])]
        if isinstance(e, Surface):
            return [e.origin]
        return []  # pragma: no cover

    def shortest_path(self, a: str | Point, b: str | Point) -> list[tuple[float, float]] | None:
        """A taut collision-free path of (x, y) points from a to b (entity ids or points;
        an object or surface is reached at its nearest standing point, a room at its
        nearest free cell), or None if b cannot be reached from a."""
        pa, pb = self._endpoints(a), self._endpoints(b)
        if not pa or not pb:
            return None
        if len(pa) == 1 and len(pb) == 1:
            return self.nav.path_between(pa[0], pb[0])
        na = self.nav.nearest_nodes(np.array(pa))
        nb = self.nav.nearest_nodes(np.array(pb))
        off_a = np.hypot(*(self.nav.nodes_xy[na] - np.array(pa)).T)
        off_b = np.hypot(*(self.nav.nodes_xy[nb] - np.array(pb)).T)
        # Multi-source search from a; the best b-end includes its offset.
        src_off: dict[int, float] = {}
        for n, o in zip(na.tolist(), off_a.tolist(), strict=True):
            src_off[n] = min(src_off.get(n, math.inf), o)
        lengths = self.walker.search(dict.fromkeys(src_off, 0.0))
        best, best_k = math.inf, -1
        for k, (n, o) in enumerate(zip(nb.tolist(), off_b.tolist(), strict=True)):
            if n >= 0 and lengths[n] + o < best:
                best, best_k = float(lengths[n] + o), k
        if best_k < 0:
            return None
        first = self._first_node(list(src_off), int(nb[best_k]))
        start = min((k for k in range(len(pa)) if int(na[k]) == first), key=lambda k: off_a[k])
        return self.nav.path_between(pa[start], pb[best_k])

    @cached_property
    def walker(self) -> Walker:
        """The route searches on this graph's navigation grid (memoised: shared)."""
        return Walker(self.nav)

    def _first_node(self, sources: list[int], target: int) -> int:
        """The source the shortest path to `target` starts from (networkx's
        `multi_source_dijkstra`, whose choice among sources equally near only its own
        search repeats: it runs only then)."""
        if len(sources) == 1:
            return sources[0]
        reach = [float(self.walker.search({m: 0.0})[target]) for m in sources]
        nearest = [m for m, d in zip(sources, reach, strict=True) if d == min(reach)]
        if len(nearest) == 1:
            return nearest[0]
        import networkx as nx

        _, nodes = nx.multi_source_dijkstra(self.nav.graph, set(sources), target=target)
        return int(nodes[0])

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        """Length (metres) of `shortest_path(a, b)`; infinity when unreachable."""
        path = self.shortest_path(a, b)
        return math.inf if path is None else path_length(path)

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        """Whether `geodesic_distance(a, b)` is at most `limit_m`. Between two points the
        path is not pulled taut when its bounds decide: it is never shorter than the
        straight segment, nor longer than the grid walk it is pulled from (each end's
        offset to its node plus the grid's shortest distance between the nodes, searched
        no farther than the limit)."""
        pa, pb = self._endpoints(a), self._endpoints(b)
        if len(pa) == 1 and len(pb) == 1:
            bound = self.grid_walk_within(pa[0], pb[0], limit_m)
            if bound is not None:
                return bound
        return self.geodesic_distance(a, b) <= limit_m

    def grid_walk_within(self, a: tuple[float, float], b: tuple[float, float],
                         limit_m: float) -> bool | None:
        """The bounds `geodesic_within` tries first between two points, without pulling
        a path taut: False when the straight segment is longer than `limit_m` or no walk
        joins them, True when the grid walk (each end's offset to its node plus the
        grid's shortest distance between the nodes) is no longer, None when neither
        bound decides. Cheap: a search no farther than the limit."""
        (ax, ay), (bx, by) = a, b
        if math.hypot(bx - ax, by - ay) > limit_m + _ROUNDING_M:
            return False
        na, nb = self.nav.nearest_node((ax, ay)), self.nav.nearest_node((bx, by))
        if not self.nav.connected(na, nb):
            return False
        xy = self.nav.nodes_xy
        walk = (math.hypot(xy[na, 0] - ax, xy[na, 1] - ay)
                + float(self.walker.near(nb, limit_m)[na])
                + math.hypot(bx - xy[nb, 0], by - xy[nb, 1]))
        return True if walk <= limit_m - _ROUNDING_M else None

    def reachable(self, what: str | Point) -> bool:
        """Whether the agent can get from its start to `what`."""
        start = self.scene.agent.position
        return self.shortest_path((start[0], start[1]), what) is not None

    # ----- visibility -----------------------------------------------------------------
    def visible_objects(self, position: Point, yaw_rad: float, fov_rad: float | None = None,
                        max_range_m: float = 6.0, eye_z: float | None = None) -> list[str]:
        """Ids of the objects in view (`fdc.sim_bridge.graph.visibility.visible_objects`);
        `fov_rad`: the horizontal field of view, None: the camera's
        (`fdc.sim_bridge.graph.frustum`)."""
        return visible_objects(self, position, yaw_rad, fov_rad, max_range_m, eye_z)

    def line_of_sight(self, position: Point, target: str, eye_z: float | None = None) -> bool:
        return line_of_sight(self, position, target, eye_z)

    # ----- placement ------------------------------------------------------------------
    def place_on(self, item: str, surface_id: str) -> Placement:
        return place_on(self, item, surface_id, self.config.placement)

    def place_in_cell(self, item: str, surface_id: str, cell: Direction | str) -> Placement:
        return place_in_cell(self, item, surface_id, Direction(cell), self.config.placement)

    def place_around(self, item: str, anchor: str) -> Placement:
        return place_around(self, item, anchor, self.config.placement)

    def place_beside(self, item: str, anchor: str, direction: Direction | str,
                     viewer_side: Side | str | None = None) -> Placement:
        side = Side(viewer_side) if viewer_side is not None else None
        return place_beside(self, item, anchor, Direction(direction), side,
                            self.config.placement)

    def place_between(self, item: str, first: str, second: str) -> Placement:
        return place_between(self, item, first, second, self.config.placement)

    def place_inside(self, item: str, container: str) -> Placement:
        return place_inside(self, item, container, self.config.placement)

    # ----- reports --------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Counts for `fdc scene inspect`."""
        kinds: dict[str, int] = defaultdict(int)
        for o in self._objects.values():
            kinds[o.kind.value] += 1
        regions = sum(len(v) for v in self._anchor_regions.values())
        empty_cells = sum(len(self._cells[s]) for s in self._cells if not self._children.get(s))
        return {
            "scene": self.scene.name,
            "rooms": len(self._rooms),
            "doors": len(self.scene.doors),
            "objects": len(self._objects),
            "kinds": dict(sorted(kinds.items())),
            "categories": len(self._by_category),
            "surfaces": len(self._surface_list),
            "containers": sum(1 for s in self._surface_list if s.container is not None),
            "occupied_surfaces": sum(1 for s in self._surfaces if self._children.get(s)),
            "anchor_regions": regions,
            "empty_surface_cells": empty_cells,
            "standing_points": len(self._standing),
            "reachable_standing_points": sum(1 for p in self._standing if p.reachable),
            "nav_nodes": self.nav.node_count,
            "nav_edges": self.nav.graph.number_of_edges(),
            "max_depth": max((o.depth for o in self._objects.values()), default=0),
            "warnings": sum(1 for f in self.findings if not f.is_error),
        }


@contextmanager
def _timed(timings: dict[str, float], name: str) -> Iterator[None]:
    t = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t


def build_scene_graph(scene: Scene, base_dir: Path | None = None,
                      config: BuildConfig | None = None) -> SceneGraph:
    """Build the graph of a validated scene. `base_dir` is where mesh paths start.
    Raises `SceneLoadError` (located findings, no file named) for a scene past a limit
    (objects piled on one spot, a floor too large for the navigation grid) or with a mesh
    that cannot be read."""
    import shapely

    config = config or BuildConfig()
    t: dict[str, float] = {}
    with _timed(t, "layout"):
        layout = build_layout(scene)
    with _timed(t, "bodies"):
        bodies = compute_bodies(scene)
        centres = shapely.get_coordinates(shapely.centroid(bodies.footprints)).reshape(-1, 2)
        floor_levels = layout.floor_levels(centres)
        overlaps, crowded = footprint_overlaps(scene, bodies)
        if crowded is not None:
            raise SceneLoadError("", [crowded])
    with _timed(t, "surfaces"):
        surfaces, f_surf = derive_surfaces(scene, bodies, floor_levels, base_dir,
                                           config.surfaces)
        if any(f.is_error for f in f_surf):
            raise SceneLoadError("", f_surf)
    with _timed(t, "support"):
        support = build_support(scene, bodies, surfaces, layout, floor_levels, config.support,
                                overlaps)
    with _timed(t, "navigation"):
        nav, blocked, fixed_idx = _navigation(scene, layout, bodies, support, config.navigation)
    with _timed(t, "regions"):
        layer = _layer_obstacles(scene, layout, bodies, support)
        cells, anchor_map = _regions(surfaces, support, bodies, layer, config.regions)
    with _timed(t, "standing"):
        idx = bodies.index()
        fixed_owner = {s.id for s in surfaces
                       if support.depth[idx[s.object_id]] == 1
                       or support.kinds[idx[s.object_id]] is Kind.STAGE}
        stand_surfaces = [s for s in surfaces if s.id in fixed_owner]
        carrier_fp = {s.object_id: bodies.footprints[idx[s.object_id]] for s in stand_surfaces}
        standing = standing_points(stand_surfaces, carrier_fp, blocked, layout.floor, nav,
                                   config.navigation)
    del fixed_idx
    graph = SceneGraph(scene, config, layout, bodies, surfaces, support, nav, cells, anchor_map,
                       standing, f_surf + support.findings, layer, t)
    return graph


class SceneLoadError(InputError):
    """A scene file that cannot be read or does not validate; every finding, located."""

    def __init__(self, path: str | Path, findings: list[Diagnostic]) -> None:
        errors = "; ".join(render_text(f) for f in findings if f.is_error)
        super().__init__(f"{path}: {errors or 'the scene does not load'}")
        self.path = path
        self.findings = findings

    def __reduce__(self) -> tuple[type[SceneLoadError], tuple[str | Path, list[Diagnostic]]]:
        """Pickled with its arguments: it crosses from a compile worker to the CLI."""
        return type(self), (self.path, self.findings)


def load_scene_graph(path: str | Path, mesh_roots: Sequence[Path] = ()) -> SceneGraph:
    """Read, validate and build a scene file (meshes may also lie in `mesh_roots`). The
    graph's findings begin with the file's (its warnings); a file with errors raises
    `SceneLoadError`."""
    loaded = load_scene(path, mesh_roots)
    if loaded.scene is None or any(f.is_error for f in loaded.findings):
        raise SceneLoadError(path, loaded.findings)
    try:
        graph = build_scene_graph(loaded.scene, base_dir=Path(path).parent)
    except SceneLoadError as e:
        raise SceneLoadError(path, [*loaded.findings, *e.findings]) from None
    graph.findings[:0] = loaded.findings
    return graph


def _is_obstacle(o: ObjectSpec, kind: Kind) -> bool:
    if o.obstacle is not None:
        return o.obstacle
    return kind is not Kind.MOVABLE


def _navigation(scene: Scene, layout: Layout, bodies: Bodies, support: Support,
                config: NavConfig) -> tuple[Navigation, Any, Any]:
    import shapely

    fixed = np.array([_is_obstacle(o, k) for o, k in zip(scene.objects, support.kinds,
                                                          strict=True)], dtype=bool)
    fixed_idx = np.nonzero(fixed)[0] if len(fixed) else np.zeros(0, dtype=np.int64)
    parts = [bodies.footprints[fixed_idx]] if len(fixed_idx) else []
    wall_parts = layout.wall_pieces
    blocked = np.concatenate([*parts, np.asarray(wall_parts, dtype=object)]) \
        if parts or len(wall_parts) else np.empty(0, dtype=object)
    if layout.floor is not None:
        floor = layout.floor
    else:
        a = scene.agent.position
        extra = [shapely.Point(a[0], a[1]).buffer(0.5)]
        floor = shapely.envelope(shapely.union_all(list(bodies.footprints) + extra)).buffer(1.0)
    blocked_union = shapely.union_all(blocked) if len(blocked) else shapely.GeometryCollection()
    free = shapely.difference(floor, blocked_union)
    b = floor.bounds
    cols, rows = grid_shape(b, config.resolution_m)
    most = current().nav_cells
    if cols * rows > most:
        raise SceneLoadError("", [error(
            "G040", f"the floor spans {b[2] - b[0]:,.0f} m x {b[3] - b[1]:,.0f} m: "
            f"{cols * rows:,} navigation cells of {config.resolution_m} m, more than "
            f"{most:,}, the limit `nav_cells`", _widest(scene, layout),
            hint="a house is tens of metres across: check the units and the agent's "
            "position, or " + hint("nav_cells"))])
    robot_free = shapely.buffer(free, -scene.agent.radius_m)
    nav = Navigation(robot_free, blocked_union, (b[0], b[1], b[2], b[3]), config.resolution_m,
                     (scene.agent.position[0], scene.agent.position[1]))
    return nav, blocked, fixed_idx


def _widest(scene: Scene, layout: Layout) -> str:
    """The JSON path of what stretches the floor most: the largest room, else the agent
    (a floor without rooms is the objects' box grown to take in the agent) when it lies
    outside the objects' box, else the objects."""
    if layout.floor is not None:
        def area(r: Any) -> float:
            xs, ys = [p[0] for p in r.polygon], [p[1] for p in r.polygon]
            return (max(xs) - min(xs)) * (max(ys) - min(ys))
        k = max(range(len(scene.rooms)), key=lambda i: area(scene.rooms[i]))
        return f"rooms[{k}].polygon"
    a = scene.agent.position
    pos = [o.pose.position for o in scene.objects]
    if not pos or not (min(p[0] for p in pos) <= a[0] <= max(p[0] for p in pos)
                       and min(p[1] for p in pos) <= a[1] <= max(p[1] for p in pos)):
        return "agent.position"
    return "objects"


def _layer_obstacles(scene: Scene, layout: Layout, bodies: Bodies, support: Support
                     ) -> tuple[Any, Any, Any]:
    """Shapes that cut regions and block placements, with their height spans and owners:
    fixed objects (not movable, not the stage shell) and wall pieces."""

    geoms: list[Any] = []
    z: list[tuple[float, float]] = []
    owner: list[str] = []
    for i, o in enumerate(scene.objects):
        if support.kinds[i] is Kind.MOVABLE or (o.kind is Kind.STAGE and o.obstacle is False):
            continue
        geoms.append(bodies.footprints[i])
        z.append((float(bodies.bottoms[i]), float(bodies.tops[i])))
        owner.append(o.id)
    if len(layout.wall_pieces):
        for w in layout.wall_pieces:
            geoms.append(w)
            z.append((-math.inf, math.inf))
            owner.append("")
    return (np.array(geoms, dtype=object), np.array(z, dtype=np.float64).reshape(-1, 2),
            np.array(owner, dtype=object))


def _regions(surfaces: list[Surface], support: Support, bodies: Bodies,
             layer: tuple[Any, Any, Any], config: RegionConfig
             ) -> tuple[dict[str, list[Region]], dict[str, list[Region]]]:
    import shapely

    children: dict[int, list[int]] = defaultdict(list)
    for i, p in enumerate(support.parent):
        if p >= 0:
            children[p].append(i)
    geoms, zspan, owner = layer
    tree = shapely.STRtree(geoms)
    spolys = np.array([s.polygon for s in surfaces], dtype=object)
    si, gi = tree.query(spolys, predicate="intersects") if len(spolys) else (np.zeros(0, int),
                                                                              np.zeros(0, int))
    sz = np.array([s.z for s in surfaces]) if surfaces else np.zeros(0)
    sowner = np.array([s.object_id for s in surfaces], dtype=object)
    ok = (zspan[gi, 0] < sz[si] + 0.1) & (zspan[gi, 1] > sz[si] + 0.005) & (owner[gi] != sowner[si])
    si, gi = si[ok], gi[ok]
    near: dict[int, list[int]] = defaultdict(list)
    for a, b in zip(si.tolist(), gi.tolist(), strict=True):
        near[a].append(b)
    cells: dict[str, list[Region]] = {}
    anchors: dict[str, list[Region]] = {}
    for k, s in enumerate(surfaces):
        cells[s.id] = grid_cells(s, config)
        kids = sorted(children.get(k, []), key=lambda i: bodies.ids[i])
        if kids:
            anchors[s.id] = anchor_regions(
                s, [bodies.ids[i] for i in kids], bodies.footprints[kids],
                geoms[sorted(near.get(k, []))], config)
    return cells, anchors
