"""One camera for pixels and geometry: the frustum the line of sight uses is the renderer's
(`in_frustum` against `Camera.pixel`), the pixel rule's thresholds, and an object the
geometric rule sees is drawn where the camera looks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fdc.sim_bridge.graph.frustum import DEFAULT_FRUSTUM, HFOV_DEG, Frustum, in_frustum
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.render import Camera, Renderer, RenderUnavailable
from fdc.sim_bridge.render import context as render_context
from fdc.sim_bridge.render.pixels import MIN_PIXELS, min_pixels, seen, target_pixels
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import DEFAULT_FOV_RAD
from fdc.sim_bridge.world.state import AgentPose
from tests.sim_bridge.helpers import graph, obj, on_top, room


def test_the_camera_and_the_line_of_sight_share_one_frustum() -> None:
    cam = Camera()
    assert cam.hfov_deg == HFOV_DEG == 43.0 and (cam.width, cam.height) == (640, 480)
    assert cam.frustum == DEFAULT_FRUSTUM
    assert pytest.approx(math.radians(43.0)) == DEFAULT_FOV_RAD
    assert cam.vfov_deg == pytest.approx(32.92, abs=0.01)


def test_in_frustum_is_the_cameras_projection() -> None:
    """A segment is in the frustum exactly when one of its points lands in the image."""
    rng = np.random.default_rng(7)
    for cam in (Camera(), Camera(hfov_deg=69.0, tilt_deg=0.0), Camera(tilt_deg=-45.0)):
        n = 300
        yaw = rng.uniform(-math.pi, math.pi, n)
        xy = rng.uniform(-4, 4, (n, 2))
        bottom = rng.uniform(0, 2, n)
        top = bottom + rng.uniform(0, 1, n)
        got = in_frustum(cam.frustum, np.tile([0.0, 0.0, cam.height_m], (n, 1)), yaw, xy,
                         bottom, top)
        for k in range(n):
            pose = AgentPose(x=0.0, y=0.0, yaw_rad=float(yaw[k]))
            want = False
            for z in np.linspace(bottom[k], top[k], 200):
                p = cam.pixel(pose, (float(xy[k, 0]), float(xy[k, 1]), float(z)))
                if p is not None and 0 <= p[0] <= cam.width and 0 <= p[1] <= cam.height:
                    want = True
                    break
            # Sampling misses a segment that only grazes the image: allow that one way.
            assert got[k] == want or (got[k] and not want), (cam, k)


def test_the_frustum_has_a_vertical_range() -> None:
    f = Frustum()
    eye = [[0.0, 0.0, 1.25]]
    # A can on the floor 0.6 m ahead is below the view; 2 m ahead it is in it.
    assert not in_frustum(f, eye, [0.0], [[0.6, 0.0]], [0.0], [0.12])[0]
    assert in_frustum(f, eye, [0.0], [[2.0, 0.0]], [0.0], [0.12])[0]
    # Beside the heading by more than half the field of view: out.
    a = math.radians(25)
    assert not in_frustum(f, eye, [0.0], [[2 * math.cos(a), 2 * math.sin(a)]], [0.7], [0.9])[0]


def test_the_pixel_rule_thresholds() -> None:
    assert min_pixels(640, 480) == 308  # 0.1% of 307,200, rounded up
    assert not seen(307, 640, 480) and seen(308, 640, 480)
    assert min_pixels(64, 48) == MIN_PIXELS  # small images: the floor of 50
    assert target_pixels({"a": 10, "b": 5, "c": 1}, ["a", "b", "a", "z"]) == 15


@pytest.fixture(scope="module")
def _egl() -> None:
    try:
        render_context.gl_context()
    except RenderUnavailable as e:
        pytest.skip(f"no EGL rendering on this machine: {e}")


def test_what_the_geometry_sees_the_camera_sees(_egl: None) -> None:
    """A mug on a table ahead: in view by both rules; turned away, or standing over it
    (the mug below the frame), in view by neither."""
    g = graph([obj("table", "table", (3.0, 2.0, 0.375), (0.8, 0.8, 0.75), kind="furniture"),
               on_top("mug", "mug", (3.0, 2.0), 0.75, (0.1, 0.1, 0.12))], agent=(0.5, 2.0))
    snap = EmbeddedWorld(g).snapshot()
    cam = Camera(height_m=float(g.scene.agent.eye_height_m))
    with Renderer(g.scene, cam) as r:
        for pose, expect in ((AgentPose(x=1.0, y=2.0, yaw_rad=0.0), True),
                             (AgentPose(x=1.0, y=2.0, yaw_rad=math.pi / 2), False),
                             (AgentPose(x=2.8, y=2.0, yaw_rad=0.0), False)):
            geo = "mug" in g.visible_objects((pose.x, pose.y, 0.0), pose.yaw_rad)
            px = r.render(snap.model_copy(update={"agent": pose})).visible.get("mug", 0)
            assert geo == expect
            assert seen(px, cam.width, cam.height) == expect, (pose, px)


def _shelf_scene():
    """A 1.8 m bookcase whose front faces +x (a shelf at 0.4 m, its top at 1.8 m), a mug
    on the shelf and a pen on its top; `FRONT` stands 1.6 m in front of it."""
    shelves = [{"name": "shelf_0", "z": -0.5}, {"name": "top", "z": 0.9}]
    return graph([obj("case", "bookshelf", (0.5, 2.0, 0.9), (0.35, 0.9, 1.8),
                      kind="furniture", surfaces=shelves),
                  on_top("mug", "mug", (0.5, 2.0), 0.4, (0.1, 0.1, 0.12)),
                  on_top("pen", "pen", (0.5, 2.0), 1.8, (0.15, 0.02, 0.02))],
                 rooms=[room("room", "living_room", -1.0, 0.0, 5.0, 4.0)], agent=(2.3, 2.0))


FRONT = AgentPose(x=2.3, y=2.0, yaw_rad=math.pi)


def test_a_shelf_above_the_eye_hides_what_lies_on_it() -> None:
    """Looking up at a 1.8 m top from 1.25 m, its board hides the pen (the camera tilted
    up to look there); the mug on the lower shelf is seen from the front."""
    from fdc.sim_bridge.world.snapshot import SnapshotState

    g = _shelf_scene()
    s = SnapshotState(g, EmbeddedWorld(g).snapshot())
    assert not s.visible("pen", FRONT.model_copy(update={"head_tilt_deg": 10.0}))
    assert s.visible("mug", FRONT)


def test_a_shelf_unit_is_open_at_the_front_in_the_frames(_egl: None) -> None:
    g = _shelf_scene()
    snap = EmbeddedWorld(g).snapshot()
    cam = Camera(height_m=float(g.scene.agent.eye_height_m))
    with Renderer(g.scene, cam) as r:
        f = r.render(snap.model_copy(update={"agent": FRONT}))
        assert seen(f.visible.get("mug", 0), cam.width, cam.height)
        # From behind the bookcase the mug is hidden by its back.
        back = r.render(snap.model_copy(update={"agent": AgentPose(x=-0.9, y=2.0,
                                                                   yaw_rad=0.0)}))
        assert back.visible.get("mug", 0) == 0


def test_the_robot_looks_at_what_it_picks_and_places(apartment_graph: SceneGraph) -> None:
    """Every pick and place frame of a simulated day carries the head tilt that centres
    the item, and navigating to such a frame's pose ends with the head tilted so."""

    from fdc.sim_bridge.world.simulate import simulate_experience

    g = apartment_graph
    log = simulate_experience(g, interactions=2, seed=0)
    acting = [f for f in log.frames if f.action and f.action.split()[0] in ("pick", "place")]
    assert len(acting) == 4
    assert all(f.agent.head_tilt_deg is not None for f in acting)
    w = EmbeddedWorld(g)
    assert w.navigate(acting[-1].agent).ok
    assert w.agent_pose().head_tilt_deg == acting[-1].agent.head_tilt_deg
    w.navigate((g.scene.agent.position[0], g.scene.agent.position[1]))
    assert w.agent_pose().head_tilt_deg is None
