"""The small hand-made home the predicate tests run in (built once).

kitchen (0..6 x 0..4) | door at (6, 2) | living room (6..10 x 0..4)
- table: 1.2 x 0.8 x 0.75 at (2, 2), front = +x; its top `table|top` at z 0.75
  items on it: mug (2.0, 2.0), book (2.3, 2.0), apple (1.7, 2.25), tray (2.0, 1.7) with
  a cup on the tray
- cabinet (articulated, 0.5 x 0.8 x 0.9) at (5.5, 1.0) with a closed container
  `cabinet|inside` (floor z 0.05) and its top `cabinet|top`
- sofa (living room) and a basket (movable container) on the living-room floor
"""

from __future__ import annotations

import functools

from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from tests.predicates.stand_in import StandInState
from tests.sim_bridge.helpers import obj, on_top, room, scene

TOP = 0.75


@functools.cache
def home() -> SceneGraph:
    objects = [
        obj(
            "table",
            "table",
            (2.0, 2.0, 0.375),
            (1.2, 0.8, 0.75),
            kind="furniture",
            attributes={"color": "brown", "material": "wood"},
        ),
        on_top(
            "mug",
            "mug",
            (2.0, 2.0),
            TOP,
            (0.1, 0.1, 0.1),
            attributes={"color": "red", "material": "ceramic", "shape": "cylinder"},
        ),
        on_top(
            "book",
            "book",
            (2.3, 2.0),
            TOP,
            (0.1, 0.2, 0.03),
            attributes={"color": "blue, white", "material": "paper"},
        ),
        on_top(
            "apple", "apple", (1.7, 2.25), TOP, (0.08, 0.08, 0.08), attributes={"color": "green"}
        ),
        on_top("tray", "tray", (2.0, 1.7), TOP, (0.3, 0.2, 0.02), attributes={"material": "glass"}),
        on_top("cup", "cup", (2.0, 1.7), TOP + 0.02, (0.06, 0.06, 0.08)),
        obj(
            "cabinet",
            "cabinet",
            (5.5, 1.0, 0.45),
            (0.5, 0.8, 0.9),
            180.0,
            kind="articulated",
            containers=[
                {
                    "name": "inside",
                    "center": [0, 0, 0],
                    "size": [0.4, 0.7, 0.8],
                    "open": False,
                    "part": "door",
                }
            ],
        ),
        obj("sofa", "sofa", (8.5, 3.4, 0.225), (0.9, 2.0, 0.45), -90.0, kind="furniture"),
        obj("basket", "basket", (8.0, 1.0, 0.1), (0.3, 0.3, 0.2), kind="movable"),
    ]
    rooms = [room("kitchen", "kitchen", 0, 0, 6, 4), room("living", "living_room", 6, 0, 10, 4)]
    doors = [{"id": "door", "rooms": ["kitchen", "living"], "position": [6.0, 2.0]}]
    return build_scene_graph(scene(objects, rooms=rooms, doors=doors, agent=(0.8, 2.0)))


def state(x: float = 1.05, y: float = 2.0, yaw_deg: float = 0.0) -> StandInState:
    """The agent at the table's rear standing point, facing the table (+x)."""
    return StandInState.of(home(), x, y, yaw_deg)


def ctx(st: StandInState | None = None, **kw: object) -> Context:
    return Context(graph=home(), state=st if st is not None else state(), **kw)  # type: ignore[arg-type]
