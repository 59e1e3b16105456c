"""What the browser draws of a scene and of an experience: plain data, rounded to the
centimetre and the tenth of a minute, so that the same scene gives the same bytes.

A scene map holds its bounds, the rooms (name, outline), the walls, the furniture and
the items (id, name, category, outline; items their colour too), in the scene's initial
state. The browser draws it as SVG, highlights a task's targets and distractors by id
and labels items on hover.
An experience holds its frame count, each frame's clock time (the timeline places frames
by it), its interactions (object, frames, clock) and `start`, the world it left behind,
where its tasks start (`fdc.compiler.start.task_start_state`): the outline of each item
it moved and the robot's place. The browser draws a task about the experience with those
items where the experience left them. See docs/browse.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot


def _r(x: float) -> float:
    return round(float(x), 2) + 0.0  # + 0.0: never -0.0


def rings(geom: Any) -> list[list[float]]:
    """Every ring (outer and holes) of a polygon or multipolygon, as flat x, y lists."""
    import shapely

    out: list[list[float]] = []
    for part in shapely.get_parts(geom):
        if part.geom_type != "Polygon" or part.is_empty:
            continue
        for ring in (part.exterior, *part.interiors):
            coords = list(ring.coords)[:-1]
            out.append([_r(v) for xy in coords for v in xy[:2]])
    return out


def scene_map(g: SceneGraph, state: Snapshot | None = None) -> dict[str, Any]:
    """The map of one scene (see the module), in `state` (None: the scene's initial
    state; a held item has no outline)."""
    from fdc.sim_bridge.pictures import NAMED_COLOURS, map_world
    from fdc.sim_bridge.scene.schema import Kind

    world = map_world(g, state)
    furniture = []
    items = []
    for o in world.view.objects():
        if o.kind is Kind.STAGE and o.spec.obstacle is False:
            continue
        shape: dict[str, Any] = {"id": o.id, "name": o.name, "category": o.category,
                                 "rings": rings(o.footprint)}
        if o.is_movable:
            shape["colour"] = NAMED_COLOURS.get(o.attributes.get("color", ""), "#ed8936")
            items.append(shape)
        else:
            furniture.append(shape)
    rooms = [{"id": r.id, "name": r.name, "category": r.category, "rings": rings(r.polygon)}
             for r in g.rooms()]
    flat = [v for shape in rooms + furniture + items for ring in shape["rings"] for v in ring]
    xs, ys = flat[0::2] or [0.0, 1.0], flat[1::2] or [0.0, 1.0]
    return {"name": g.scene.name, "bounds": [min(xs), min(ys), max(xs), max(ys)],
            "rooms": rooms, "walls": rings(g.layout.walls), "furniture": furniture,
            "items": items, "agent": [_r(world.agent[0]), _r(world.agent[1])]}


def start_of(scene: dict[str, Any], start: dict[str, Any]) -> dict[str, Any]:
    """What differs between a scene's map and its map in the state an experience left
    behind (`start`): each item whose outline moved (id -> rings) and the robot's place."""
    before = {o["id"]: o["rings"] for o in scene["items"]}
    return {"items": {o["id"]: o["rings"] for o in start["items"]
                      if before.get(o["id"]) != o["rings"]},
            "agent": start["agent"]}


def experience_timeline(log: Experience) -> dict[str, Any]:
    """An experience log as the browser's timeline draws it."""
    frames = log.frames
    return {
        "frames": len(frames),
        "clock": [round(frames[0].clock_min, 1), round(frames[-1].clock_min, 1)]
        if frames else [0.0, 0.0],
        "times": [round(f.clock_min, 1) for f in frames],
        "interactions": [
            {"object": it.object, "pick": it.pick_frame, "place": it.place_frame,
             "from": it.picked_from, "to": it.placed_on,
             "start_min": round(it.start_min, 1),
             "end_min": None if it.end_min is None else round(it.end_min, 1)}
            for it in log.interactions],
    }
