"""Small builders for hand-made scenes in tests."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fdc.sim_bridge.geometry import yaw_quaternion
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.schema import Scene

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures"
TEST_ASSETS = FIXTURES / "habitat" / "habitat-sim" / "data" / "test_assets"


def obj(
    ident: str,
    category: str,
    position: tuple[float, float, float],
    size: tuple[float, float, float],
    yaw_deg: float = 0.0,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": ident,
        "category": category,
        "pose": {
            "position": list(position),
            "orientation": list(yaw_quaternion(math.radians(yaw_deg))),
        },
        "size": list(size),
        **extra,
    }


def on_top(
    ident: str,
    category: str,
    xy: tuple[float, float],
    top_z: float,
    size: tuple[float, float, float],
    yaw_deg: float = 0.0,
    **extra: Any,
) -> dict[str, Any]:
    """An item resting on a surface at height `top_z`."""
    return obj(
        ident, category, (xy[0], xy[1], top_z + size[2] / 2), size, yaw_deg, kind="movable", **extra
    )


def room(ident: str, category: str, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    return {"id": ident, "category": category, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


#: A chair whose 0.32 x 0.38 m seat has two receptacles 1 mm apart in height, one a
#: little larger (as Habitat's aabb and mesh receptacles of one seat).
CHAIR = obj("chair", "chair", (2.0, 2.0, 0.45), (0.32, 0.38, 0.9), kind="furniture",
            surfaces=[{"name": "aabb", "z": 0.217, "polygon": [
                [-0.16, -0.19], [0.16, -0.19], [0.16, 0.19], [-0.16, 0.19]]},
                      {"name": "mesh", "z": 0.216, "polygon": [
                [-0.145, -0.175], [0.145, -0.175], [0.145, 0.175], [-0.145, 0.175]]}])

#: A template that asks for any movable item in the hand.
PICK_HELD = """(define (template pick-held)
  (:domain fdc-home)
  (:tags manipulation process)
  (:parameters ?o - movable)
  (:goal (holding ?o))
  (:instruction "Pick up {{ o | ref }}.")
  (:ambiguity reject))
"""


def scene_data(
    objects: list[dict[str, Any]],
    rooms: list[dict[str, Any]] | None = None,
    doors: list[dict[str, Any]] | None = None,
    agent: tuple[float, float] = (0.5, 0.5),
    **extra: Any,
) -> dict[str, Any]:
    """A scene file's content: by default one 4 m x 4 m kitchen, the agent in a corner."""
    return {
        "format_version": "1.0",
        "name": "test",
        "rooms": rooms if rooms is not None else [room("room", "kitchen", 0, 0, 4, 4)],
        "doors": doors or [],
        "objects": objects,
        "agent": {"position": [agent[0], agent[1], 0.0]},
        **extra,
    }


def scene(
    objects: list[dict[str, Any]],
    rooms: list[dict[str, Any]] | None = None,
    doors: list[dict[str, Any]] | None = None,
    agent: tuple[float, float] = (0.5, 0.5),
    **extra: Any,
) -> Scene:
    return Scene.model_validate(scene_data(objects, rooms, doors, agent, **extra))


def write_scene(path: Path, objects: list[dict[str, Any]],
                rooms: list[dict[str, Any]] | None = None, **kw: Any) -> Path:
    """`scene_data` written to `path` as JSON."""
    path.write_text(json.dumps(scene_data(objects, rooms, **kw)))
    return path


def graph(objects: list[dict[str, Any]], **kw: Any) -> SceneGraph:
    return build_scene_graph(scene(objects, **kw))
