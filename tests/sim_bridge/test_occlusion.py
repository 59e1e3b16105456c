"""What the renderer draws in the way hides things from the geometric line of sight too:
an open door swung in front of a target, the item the robot holds in front of its
camera, a bookcase's side panel; and what is too small for the pixel rule is not in
view for either. Each case is judged by the camera (the pixel rule on a rendered
frame), by the checkers' `visible` (a world state), and by the experiences'
`SightIndex`, which must all say the same."""

from __future__ import annotations

import math
from typing import Any

import pytest

from fdc.sim_bridge.graph.frustum import DEFAULT_FRUSTUM, large_enough, min_pixels
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.graph.visibility import SightIndex
from fdc.sim_bridge.render import Renderer
from fdc.sim_bridge.render.pixels import robot_camera, seen
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import DEFAULT_VIEW_RANGE_M, SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Snapshot
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)
from tests.sim_bridge.helpers import obj, room, scene

#: A cabinet whose open door swings out (+x) along its +y side, a box on the floor
#: behind where the door stands, and an item the robot can hold.
CABINET = obj("cabinet", "cabinet", (2.0, 2.6, 0.4), (0.5, 0.6, 0.8), kind="articulated",
              surfaces=[], containers=[{"name": "inside", "center": [0.0, 0.0, 0.0],
                                        "size": [0.46, 0.56, 0.76], "part": "door",
                                        "open": True}],
              parts=[{"name": "door", "center": [0.26, 0.0, 0.0], "size": [0.02, 0.6, 0.8],
                      "joint": {"type": "revolute", "axis": [0, 0, 1], "lower": 0.0,
                                "upper": 1.9, "position": 1.57}}])
TARGET = obj("target", "box", (2.5, 2.2, 0.1), (0.2, 0.2, 0.2), kind="movable")
TRAY = obj("tray", "tray", (5.0, 5.0, 0.15), (0.3, 0.3, 0.3), kind="movable")
#: Behind the door, looking at the target (-y).
BEHIND_DOOR = AgentPose(x=2.5, y=4.6, z=0.0, yaw_rad=-math.pi / 2)
#: The target ahead and low: the line to it passes where the hand holds an item.
HAND_VIEW = AgentPose(x=0.5, y=2.2, z=0.0, yaw_rad=0.0)


def _graph(*objects: dict[str, Any]) -> SceneGraph:
    return build_scene_graph(scene(list(objects), rooms=[room("room", "kitchen", 0, 0, 6, 6)],
                                   agent=(0.5, 0.5)))


def _judge(g: SceneGraph, pose: AgentPose, target: str, held: str | None = None,
           closed: bool = False) -> tuple[bool, bool, bool, int]:
    """(camera, checkers, experiences' index, the target's pixels) for the robot at
    `pose` holding `held`, the cabinet's door as the scene has it or closed."""
    snap: Snapshot = EmbeddedWorld(g).snapshot().model_copy(update={"agent": pose,
                                                                    "held": held})
    if closed:
        snap = snap.model_copy(update={"open": {"cabinet|inside": False}})
    cam = robot_camera(g)
    with Renderer(g.scene, cam) as r:
        px = r.render(snap).visible.get(target, 0)
    state = SnapshotState(g, snap)
    checkers = state.visible(target, pose)
    # The experiences index the arrangement before the pick, the held item left out.
    before = SnapshotState(g, snap.model_copy(update={"held": None})).posed
    index = target in SightIndex(before).visible_objects(
        [(pose.x, pose.y, pose.z)], [pose.yaw_rad], None, DEFAULT_VIEW_RANGE_M,
        exclude=held)[0]
    return seen(px, cam.width, cam.height), checkers, index, px


def test_an_open_door_hides_what_is_behind_it_from_both_models() -> None:
    g = _graph(CABINET, TARGET)
    assert _judge(g, BEHIND_DOOR, "target")[:3] == (False, False, False)
    # The door closed (in the cabinet's front): the target is seen by all three.
    assert _judge(g, BEHIND_DOOR, "target", closed=True)[:3] == (True, True, True)


def test_an_open_door_is_part_of_its_object() -> None:
    """From behind the door the cabinet's box is out of view, its door is not: the
    camera counts the door's pixels as the cabinet's, and so do the line of sight."""
    g = _graph(CABINET, TARGET)
    camera, checkers, index, px = _judge(g, BEHIND_DOOR, "cabinet")
    assert (camera, checkers, index) == (True, True, True) and px > 1000


def test_the_held_item_hides_what_is_behind_it_from_both_models() -> None:
    g = _graph(TARGET, TRAY)
    assert _judge(g, HAND_VIEW, "target", held="tray")[:3] == (False, False, False)
    assert _judge(g, HAND_VIEW, "target")[:3] == (True, True, True)


def test_a_bookcase_side_hides_its_shelves_from_both_models() -> None:
    """A bookcase open at its front (+x): a book on a lower shelf is seen from the
    front, not through the bookcase's side."""
    case = obj("bookcase", "bookcase", (3.0, 3.0, 0.9), (0.4, 0.9, 1.8), kind="furniture",
               surfaces=[{"name": "low", "z": -0.5, "polygon": [
                   [-0.18, -0.43], [0.18, -0.43], [0.18, 0.43], [-0.18, 0.43]]},
                         {"name": "top", "z": 0.9, "polygon": [
                   [-0.2, -0.45], [0.2, -0.45], [0.2, 0.45], [-0.2, 0.45]]}])
    book = obj("book", "book", (3.0, 3.0, 0.5), (0.2, 0.3, 0.2), kind="movable")
    g = _graph(case, book)
    assert g.carrier("book") is not None and g.carrier("book").id == "bookcase"
    front = AgentPose(x=4.8, y=3.0, z=0.0, yaw_rad=math.pi)
    side = AgentPose(x=3.0, y=4.8, z=0.0, yaw_rad=-math.pi / 2)
    assert _judge(g, front, "book")[:3] == (True, True, True)
    assert _judge(g, side, "book")[:3] == (False, False, False)


@pytest.mark.parametrize("distance", [2.0, 4.5])
def test_the_size_rule_is_the_pixel_rule(distance: float) -> None:
    """A 5 cm cube in plain view: seen at 2 m (its silhouette covers >= 307 px), not at
    4.5 m (within the checkers' range), by the camera and by `large_enough` alike."""
    tiny = obj("tiny", "die", (0.5 + distance, 3.0, 0.75), (0.05, 0.05, 0.05),
               kind="movable")
    g = _graph(tiny)
    pose = AgentPose(x=0.5, y=3.0, z=0.0, yaw_rad=0.0)
    cam = robot_camera(g)
    camera, checkers, index, px = _judge(g, pose, "tiny")
    big = bool(large_enough(DEFAULT_FRUSTUM, [(0.5, 3.0, cam.height_m)], [0.0],
                            [(0.5 + distance, 3.0, 0.75)], [[[1, 0, 0], [0, 1, 0], [0, 0, 1]]],
                            [(0.05, 0.05, 0.05)])[0])
    assert (camera, checkers, index, big) == ((distance < 3,) * 4)
    assert (px >= min_pixels(cam.width, cam.height)) == (distance < 3)


def test_large_enough_is_the_silhouettes_area_where_the_box_is_in_the_image() -> None:
    """Boxes wholly ahead and in the image: `large_enough` says what the area of the
    convex hull of their projected corners (shapely) says; partly out of it, near the
    threshold, the faces are clipped exactly too."""
    import numpy as np
    import shapely

    from fdc.sim_bridge.geometry import quaternions_to_matrices
    from fdc.sim_bridge.graph import frustum as fr

    rng = np.random.default_rng(1)
    n = 3000
    eyes = np.c_[np.zeros((n, 2)), np.full(n, 1.25)]
    yaws = rng.uniform(-0.6, 0.6, n)
    pos = np.c_[rng.uniform(-1, 6, n), rng.uniform(-3, 3, n), rng.uniform(0, 2, n)]
    sizes = rng.uniform(0.02, 1.5, (n, 3)) ** 1.5
    mats = quaternions_to_matrices(rng.normal(size=(n, 4)))
    tilts = rng.uniform(-40, 0, n)
    got = fr.large_enough(fr.DEFAULT_FRUSTUM, eyes, yaws, pos, mats, sizes, tilts)
    cam = fr.DEFAULT_FRUSTUM
    t = np.radians(tilts)
    fwd = np.stack([np.cos(t) * np.cos(yaws), np.cos(t) * np.sin(yaws), np.sin(t)], 1)
    right = np.stack([np.sin(yaws), -np.cos(yaws), 0 * yaws], 1)
    up = np.stack([-np.sin(t) * np.cos(yaws), -np.sin(t) * np.sin(yaws), np.cos(t)], 1)
    rel = np.einsum("nij,nkj->nki", mats, sizes[:, None, :] / 2 * fr._SIGNS) + pos[:, None] \
        - eyes[:, None]
    depth = np.einsum("nkj,nj->nk", rel, fwd)
    f = cam.width / 2 / cam.tan_h
    u = cam.width / 2 + f * np.einsum("nkj,nj->nk", rel, right) / depth
    v = cam.height / 2 - f * np.einsum("nkj,nj->nk", rel, up) / depth
    ahead = (depth >= fr.NEAR_M).all(axis=1)
    inside = ahead & (u.min(1) >= 0) & (u.max(1) <= cam.width) & (v.min(1) >= 0) & \
        (v.max(1) <= cam.height)
    hull = shapely.area(shapely.convex_hull(shapely.multipoints(np.stack([u, v], 2))))
    want = hull >= fr.min_pixels(cam.width, cam.height)
    assert inside.sum() > 100 and want[inside].any() and not want[inside].all()
    assert (got[inside] == want[inside]).all()
