"""`PosedGraph`: the static scene graph seen with the objects where a state says they
are now (items moved, the surfaces of moved items moved with them, containers opened or
closed). The support rule, the room rule, line of sight and the placement queries are
the scene graph's own, run on it (it is a `SceneView`), so a recorded state and the
embedded world answer alike. See docs/world.md."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.sim_bridge.geometry import box_corners, quaternions_to_matrices, tilts, yaws
from fdc.sim_bridge.graph.bodies import Bodies
from fdc.sim_bridge.graph.regions import Region, anchor_regions, grid_cells
from fdc.sim_bridge.graph.scene_graph import ObjectInfo, Point
from fdc.sim_bridge.graph.support import match_supports
from fdc.sim_bridge.graph.surfaces import Surface, carriers
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.state import AgentPose, ObjectPose
from fdc.sim_bridge.world.statics import scene_statics

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import StandingPoint
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: Items tilted more than this offer no surface (as in the scene graph's build).
_MAX_TILT_RAD = math.radians(5.0)


class PosedGraph:
    """The static scene graph seen with the objects where they are now.

    A `SceneView`: it offers the parts of the `SceneGraph` interface that support,
    rooms, visibility and the placement queries read (`object`, `surface`,
    `parent_surface`, `carrier`, `items_on`, `containers_of`, `obstacles_on`,
    `anchor_regions`, `cells`, `bodies`), so those run unchanged on the current state.
    Built once per state, read-only."""

    def __init__(self, graph: SceneGraph, poses: Mapping[str, ObjectPose], held: str | None,
                 open_state: Mapping[str, bool], agent: AgentPose) -> None:
        import shapely

        st = scene_statics(graph)
        self.graph = graph
        self.statics = st
        self.scene = graph.scene
        self.layout = graph.layout
        self.config = graph.config
        self.nav = graph.nav
        self.held = held
        # `place`'s answers on this state, by relation, arguments and configuration: a
        # pure function of a view that does not change (`fdc.sim_bridge.graph.placement`)
        self.placement_memo: dict[Any, Any] = {}
        # `anchor_regions`' answers on this state, by surface and the item left out
        self._anchor_memo: dict[tuple[str, str | None], list[Region]] = {}
        self.agent = agent
        t = len(st.tracked)
        pos = st.positions0.copy()
        quat = st.quats0.copy()
        size = np.zeros((t, 3))
        for k, ident in enumerate(st.tracked):
            p = poses.get(ident) or st.initial_poses[ident]
            pos[k] = p.position
            quat[k] = p.orientation
            size[k] = p.size
        b = graph.bodies
        rows = st.body_index
        mats = quaternions_to_matrices(quat) if t else np.zeros((0, 3, 3))
        corners = box_corners(pos, mats, size) if t else np.zeros((0, 8, 3))
        fps = shapely.convex_hull(shapely.multipoints(corners[:, :, :2])) if t else \
            np.empty(0, dtype=object)
        held_k = st.tracked_index.get(held, -1) if held is not None else -1
        if held_k >= 0:  # in the hand: on nothing, in nobody's way
            fps[held_k] = shapely.Polygon()
        positions, matrices, footprints = b.positions.copy(), b.matrices.copy(), b.footprints.copy()
        bottoms, tops, sizes = b.bottoms.copy(), b.tops.copy(), b.sizes.copy()
        yaw_all, tilt_all = b.yaws.copy(), b.tilts.copy()
        if t:
            positions[rows], matrices[rows], footprints[rows] = pos, mats, fps
            bottoms[rows] = corners[:, :, 2].min(axis=1)
            tops[rows] = corners[:, :, 2].max(axis=1)
            sizes[rows] = size
            yaw_all[rows], tilt_all[rows] = yaws(mats), tilts(mats)
        self.bodies = dataclasses.replace(
            b, positions=positions, matrices=matrices, sizes=sizes, yaws=yaw_all,
            tilts=tilt_all, bottoms=bottoms, tops=tops, footprints=footprints)
        self._b: Bodies = self.bodies
        moved = ~(np.all(np.abs(pos - st.positions0) <= 1e-9, axis=1)
                  & np.all(np.abs(quat - st.quats0) <= 1e-9, axis=1)) if t else \
            np.zeros(0, dtype=bool)
        if held_k >= 0:
            moved[held_k] = True
        # Surfaces: those of moved items move with them (a rigid motion in the plane);
        # those of the held item or of a tipped-over item carry nothing.
        surfaces: dict[str, Surface] = {}
        active: list[Surface] = []
        for s in graph.surfaces():
            k = st.tracked_index.get(s.object_id, -1)
            if k >= 0 and moved[k]:
                s = _move_surface(s, st.positions0[k], float(st.yaws0[k]), pos[k],
                                  float(yaw_all[rows[k]]))
            if s.container is not None:
                is_open = open_state.get(s.id, st.initial_open[s.id])
                if is_open != s.is_open:
                    s = dataclasses.replace(s, is_open=is_open)
            surfaces[s.id] = s
            if k >= 0 and (k == held_k or tilt_all[rows[k]] > _MAX_TILT_RAD):
                continue
            active.append(s)
        self._surfaces = surfaces
        # The support rule of the scene graph, on the current poses.
        parent: dict[str, str | None] = {}
        if t:
            spolys = np.array([s.polygon for s in active], dtype=object)
            sz = np.array([s.z for s in active], dtype=np.float64)
            sowner = np.array([st.tracked_index.get(s.object_id, -1) for s in active],
                              dtype=np.int64)
            cand = np.ones(t, dtype=bool)
            if held_k >= 0:
                cand[held_k] = False
            found = match_supports(fps, bottoms[rows], spolys, sz, sowner,
                                   graph.config.support, cand)
            for k, ident in enumerate(st.tracked):
                parent[ident] = active[found[k]].id if found[k] >= 0 else None
        self._parent = parent
        children: dict[str, list[str]] = defaultdict(list)
        for o in graph.objects():
            under = parent.get(o.id, o.parent_surface)
            if under is not None:
                children[under].append(o.id)
        self._children = children
        self._rooms = self._current_rooms(fps, bottoms[rows], tops[rows], held_k)
        self._fps, self._zs = fps, np.stack([bottoms[rows], tops[rows]], axis=1) if t else \
            np.zeros((0, 2))
        self._info: dict[str, ObjectInfo] = {}

    def _current_rooms(self, fps: Any, bottoms: np.ndarray, tops: np.ndarray, held_k: int
                       ) -> dict[str, str | None]:
        import shapely

        st = self.statics
        ids = self.layout.room_ids
        out: dict[str, str | None] = {}
        if not st.tracked:
            return out
        solid = ~shapely.is_empty(fps)
        centres = np.zeros((len(fps), 2))
        centres[solid] = shapely.get_coordinates(shapely.centroid(fps[solid])).reshape(-1, 2)
        z = (bottoms + tops) / 2
        if held_k >= 0:  # in the hand: where the agent is
            centres[held_k] = (self.agent.x, self.agent.y)
        if held_k >= 0:
            z[held_k] = self.agent.z + 0.1
        k_room = self.layout.rooms_at(centres, z)
        for k, ident in enumerate(st.tracked):
            out[ident] = ids[k_room[k]] if k_room[k] >= 0 else None
        # An item outside every room takes its carrier's (an item on a table by the wall).
        for _ in range(8):
            changed = False
            for ident, r in out.items():
                if r is None:
                    c = self.carrier_id(ident)
                    if c is not None:
                        cr = out[c] if c in out else self.graph.object(c).room
                        if cr is not None:
                            out[ident] = cr
                            changed = True
            if not changed:
                break
        return out

    # ----- the SceneGraph interface, current ------------------------------------------
    def has(self, ident: str) -> bool:
        return self.graph.has(ident)

    def object(self, ident: str) -> ObjectInfo:
        got = self._info.get(ident)
        if got is not None:
            return got
        info = self.graph.object(ident)
        if ident in self._parent:
            i = int(self.statics.body_index[self.statics.tracked_index[ident]])
            b = self._b
            info = dataclasses.replace(
                info,
                position=(float(b.positions[i, 0]), float(b.positions[i, 1]),
                          float(b.positions[i, 2])),
                yaw_rad=float(b.yaws[i]),
                size=(float(b.sizes[i, 0]), float(b.sizes[i, 1]), float(b.sizes[i, 2])),
                bottom_z=float(b.bottoms[i]),
                top_z=float(b.tops[i]),
                footprint=b.footprints[i],
                room=self._rooms.get(ident),
                parent_surface=self._parent[ident],
            )
        self._info[ident] = info
        return info

    def objects(self) -> list[ObjectInfo]:
        return [self.object(o.id) for o in self.graph.objects()]

    def surface(self, ident: str) -> Surface:
        return self._surfaces[ident]

    def surfaces(self, object_id: str | None = None) -> list[Surface]:
        if object_id is None:
            return list(self._surfaces.values())
        return [self._surfaces[s] for s in self.graph.object(object_id).surfaces]

    def parent_surface(self, item_id: str) -> Surface | None:
        p = self._parent[item_id] if item_id in self._parent else \
            self.graph.object(item_id).parent_surface
        return self._surfaces[p] if p is not None else None

    def support_of(self, item_id: str) -> str | None:
        s = self.parent_surface(item_id)
        return s.id if s is not None else None

    def carrier_id(self, item_id: str) -> str | None:
        s = self.parent_surface(item_id)
        return s.object_id if s is not None else None

    def carrier(self, item_id: str) -> ObjectInfo | None:
        c = self.carrier_id(item_id)
        return self.object(c) if c is not None else None

    def items_on(self, surface_id: str) -> list[ObjectInfo]:
        return [self.object(i) for i in sorted(self._children.get(surface_id, []))]

    def items_carried_by(self, object_id: str) -> list[str]:
        """Ids of the items resting on any surface of `object_id`, sorted."""
        return sorted(i for s in self.graph.object(object_id).surfaces
                      for i in self._children.get(s, []))

    def containers_of(self, ident: str) -> list[Surface]:
        return [self._surfaces[c.id] for c in self.graph.containers_of(ident)]

    def room_of_object(self, ident: str) -> str | None:
        if ident in self._rooms:
            return self._rooms[ident]
        return self.graph.object(ident).room

    def enclosing_container(self, ident: str) -> Surface | None:
        """The closed container the object is in, at any depth (None: not hidden)."""
        p = self.parent_surface(ident)
        for _ in range(64):
            if p is None:
                return None
            if p.container is not None and not p.is_open:
                return p
            p = self.parent_surface(p.object_id)
        return None

    def obstacles_on(self, surface_id: str, exclude: str | None = None,
                     height_m: float = 0.1) -> Any:
        """What an item placed on the surface must not touch now: the items on it (but
        `exclude`), walls and fixed objects crossing its layer, and the items resting
        elsewhere (another receptacle overlapping this one, a shelf below) that reach
        into the layer [z, z + height] above it, so no two items ever share space."""
        s = self._surfaces[surface_id]
        own = self._children.get(surface_id, [])
        items = [self.object(i).footprint for i in own if i != exclude and i != self.held]
        carriers = self._carriers(s, {*own, exclude, self.held})
        skip = {*own, exclude, self.held, *carriers}
        # walls and fixed objects: the graph's layer query, but what carries the surface
        fixed = self.graph._fixed_near(s, max(height_m, 0.01), carriers)
        items += self._items_in_layer(s.polygon, s.z, height_m, skip)
        return np.concatenate([np.array(items, dtype=object), np.asarray(fixed, dtype=object)])

    def _items_in_layer(self, region: Any, z: float, height_m: float,
                        skip: Collection[str | None]) -> list[Any]:
        """The footprints of the items (but those in `skip`) that cross the layer
        [z, z + height] over `region` now."""
        import shapely

        layer = (self._zs[:, 0] < z + max(height_m, 0.01)) & (self._zs[:, 1] > z + 0.005) \
            if len(self._zs) else np.zeros(0, dtype=bool)
        near = [k for k in np.nonzero(layer)[0] if self.statics.tracked[k] not in skip]
        if not near:
            return []
        fps = self._fps[near]
        return list(fps[shapely.intersects(fps, region)])

    def floor_obstacles(self, region: Any, floor_z: float, height_m: float,
                        exclude: str | None = None) -> Any:
        """What an item put down on the floor inside `region` must not touch now: walls,
        fixed objects and items (but `exclude` and the held one) crossing the layer
        [floor_z, floor_z + height] over the region (what stands on the floor and what
        overhangs it low enough: a table's top above a low item is no obstacle)."""
        hits = np.sort(self.graph._layer_tree.query(region, predicate="intersects"))
        lz = self.graph._layer_z[hits]
        fixed = self.graph._layer_geoms[hits[(lz[:, 0] < floor_z + max(height_m, 0.01))
                                             & (lz[:, 1] > floor_z + 0.005)]]
        items = self._items_in_layer(region, floor_z, height_m, (exclude, self.held))
        return np.concatenate([np.array(items, dtype=object), np.asarray(fixed, dtype=object)])

    def _carriers(self, s: Surface, skip: Collection[str | None] = ()) -> list[str]:
        """The objects under surface `s` now: its owner, what the owner rests on, and so
        on (stopping at one of `skip`)."""
        return carriers(s, lambda o: self.parent_surface(o)
                        if o in self.statics.tracked_index else None, skip)

    def cells(self, surface_id: str) -> list[Region]:
        return grid_cells(self._surfaces[surface_id], self.config.regions)

    def anchor_regions(self, surface_id: str, anchor: str | None = None,
                       exclude: str | None = None) -> list[Region]:
        regions = self._anchor_memo.get((surface_id, exclude))
        if regions is None:
            s = self._surfaces[surface_id]
            ids = sorted(i for i in self._children.get(surface_id, [])
                         if i != exclude and i != self.held)
            fps = np.array([self.object(i).footprint for i in ids], dtype=object)
            regions = self._anchor_memo[surface_id, exclude] = anchor_regions(
                s, ids, fps, self.graph._fixed_near(s, 0.1, self._carriers(s)),
                self.config.regions)
        return [r for r in regions if anchor is None or r.anchor_id == anchor]

    # ----- navigation with current poses -----------------------------------------------
    def nav_target(self, what: str | Point) -> str | Point:
        """What the navigation graph should walk to for `what` now: a movable item is
        reached at the standing points of the furniture at the bottom of its current
        support chain (the agent's position when held; its own position when it rests
        on nothing with standing points)."""
        if not isinstance(what, str):
            return what
        st = self.statics
        if what in self._surfaces:
            return self._surface_target(self._surfaces[what])
        if what in st.tracked_index and self.graph.object(what).kind is Kind.MOVABLE:
            if what == self.held:
                return (self.agent.x, self.agent.y)
            s = self.parent_surface(what)
            if s is None:
                o = self.object(what)
                return (o.position[0], o.position[1])
            return self._surface_target(s)
        return what

    def _surface_target(self, s: Surface) -> str | Point:
        for _ in range(64):
            if s.id in self.statics.with_standing:
                return s.id
            owner = s.object_id
            if owner not in self.statics.tracked_index:
                return s.id  # furniture: the graph knows its way there
            p = self.parent_surface(owner)
            if p is None:
                o = self.object(owner)
                return (o.position[0], o.position[1])
            s = p
        return s.id  # pragma: no cover - support chains are short

    def standing_points_for(self, what: str) -> tuple[list[StandingPoint], Point | None]:
        """The standing points that serve `what` now (an item: its support chain's), or,
        when there are none, the point to be near instead."""
        target = self.nav_target(what)
        if not isinstance(target, str):
            return [], target
        pts = self.graph.standing_points(target)
        if pts:
            return pts, None
        e = self.graph.entity(target)
        if isinstance(e, Surface):
            return [], e.origin
        if isinstance(e, ObjectInfo):
            o = self.object(e.id)
            return [], (o.position[0], o.position[1])
        return [], None


def _move_surface(s: Surface, p0: np.ndarray, yaw0: float, p1: np.ndarray, yaw1: float
                  ) -> Surface:
    import shapely

    d = yaw1 - yaw0
    c, sn = math.cos(d), math.sin(d)

    def move(xy: np.ndarray) -> np.ndarray:
        q = np.asarray(xy, dtype=np.float64) - p0[:2]
        return np.stack([p1[0] + c * q[:, 0] - sn * q[:, 1],
                         p1[1] + sn * q[:, 0] + c * q[:, 1]], axis=1)

    origin = move(np.array([s.origin]))[0]
    return dataclasses.replace(
        s, polygon=shapely.transform(s.polygon, move), z=s.z + float(p1[2] - p0[2]),
        yaw_rad=s.yaw_rad + d, origin=(float(origin[0]), float(origin[1])))
