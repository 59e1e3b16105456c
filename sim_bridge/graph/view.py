"""`SceneView`: what the placement queries, line of sight, the regions listed for a
surface and the route search read of a scene graph.

The static `SceneGraph` is one; `PosedGraph` (`fdc.sim_bridge.world.posed`: the graph
with the objects where a state says they are now) is another. Typed with the protocol,
those queries run unchanged on the scene as built and on any state of it.
See docs/scene-graph.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.bodies import Bodies
    from fdc.sim_bridge.graph.navigation import Navigation
    from fdc.sim_bridge.graph.regions import Region
    from fdc.sim_bridge.graph.rooms import Layout
    from fdc.sim_bridge.graph.scene_graph import BuildConfig, ObjectInfo
    from fdc.sim_bridge.graph.surfaces import Surface
    from fdc.sim_bridge.scene.schema import Scene


@runtime_checkable
class SceneView(Protocol):
    """A scene graph's read interface, as the objects stand in one state."""

    @property
    def scene(self) -> Scene: ...

    @property
    def config(self) -> BuildConfig: ...

    @property
    def layout(self) -> Layout: ...

    @property
    def nav(self) -> Navigation: ...

    @property
    def bodies(self) -> Bodies:
        """Column arrays of every object's box, where it stands."""
        ...

    def has(self, ident: str) -> bool: ...

    def object(self, ident: str) -> ObjectInfo: ...

    def surface(self, ident: str) -> Surface: ...

    def surfaces(self, object_id: str | None = None) -> list[Surface]: ...

    def parent_surface(self, item_id: str) -> Surface | None:
        """The surface the item rests on (None: the floor)."""
        ...

    def carrier(self, item_id: str) -> ObjectInfo | None:
        """The object whose surface carries the item (None: the floor)."""
        ...

    def items_on(self, surface_id: str) -> list[ObjectInfo]: ...

    def containers_of(self, ident: str) -> list[Surface]:
        """Container floors: of an object, or the one named `object|container`."""
        ...

    def obstacles_on(self, surface_id: str, exclude: str | None = None,
                     height_m: float = 0.1) -> Any:
        """What an item placed on the surface must not touch (shapely geometries)."""
        ...

    def cells(self, surface_id: str) -> list[Region]:
        """The 3x3 grid of thirds of a surface."""
        ...

    def anchor_regions(self, surface_id: str, anchor: str | None = None,
                       exclude: str | None = None) -> list[Region]:
        """The 8 regions around each item on the surface (or around `anchor`),
        `exclude` left out."""
        ...
