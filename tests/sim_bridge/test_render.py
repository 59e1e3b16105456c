"""The CPU renderer (`fdc.sim_bridge.render`): exact ids and depth, the same bytes on every
run, the world of an experience at a frame (moved items, the held item), and a clear
error on a machine without EGL. Skipped, with the reason, where EGL cannot be had."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fdc.sim_bridge.render import Camera, Renderer, RenderUnavailable
from fdc.sim_bridge.render import context as render_context
from fdc.sim_bridge.render.camera import parse_size
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.experience import Experience, ExperienceRecorder, snapshot_at
from fdc.sim_bridge.world.state import AgentPose
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)
from tests.sim_bridge.helpers import TEST_ASSETS, graph, obj, on_top, room, scene

REPO = Path(__file__).resolve().parents[2]


#: A camera looking level along +x from (0.5, 2), 1.25 m up.
LEVEL = Camera(tilt_deg=0.0)
EYE = AgentPose(x=0.5, y=2.0, yaw_rad=0.0)


def _crate_scene(distance_m: float = 1.8):
    crate = obj("crate", "crate", (EYE.x + distance_m + 0.2, 2.0, 1.25), (0.4, 0.4, 0.4),
                kind="furniture")
    return scene([crate], rooms=[room("room", "kitchen", 0, 0, 6, 4)])


def test_an_object_in_front_covers_its_pixels_with_its_id_at_its_depth() -> None:
    s = _crate_scene(1.8)
    with Renderer(s, LEVEL) as r:
        f = r.render(None, EYE)
    k = r.object_ids.index("crate")
    h, w = f.ids.shape
    centre = (h // 2, w // 2)
    assert f.ids[centre] == k
    assert abs(float(f.depth[centre]) - 1.8) < 0.01  # linear depth: along the optical axis
    # the 0.4 m face 1.8 m away covers its projected square
    focal = (w / 2) / math.tan(math.radians(LEVEL.hfov_deg) / 2)
    side_px = 0.4 / 1.8 * focal
    assert f.visible["crate"] == pytest.approx(side_px * side_px, rel=0.03)
    assert int((f.ids == k).sum()) == f.visible["crate"]
    # the walls and floor carry no id, and depth is positive wherever anything is
    assert (f.ids[f.ids != k] == -1).all()
    assert (f.depth > 0).all()
    assert f.rgb.dtype == np.uint8 and f.rgb.shape == (480, 640, 3)
    assert f.depth.dtype == np.float32 and f.ids.dtype == np.int32


def test_camera_pixel_matches_the_rendered_depth() -> None:
    s = _crate_scene(2.5)
    with Renderer(s, LEVEL) as r:
        f = r.render(None, EYE)
    col, row, depth = LEVEL.pixel(EYE, (EYE.x + 2.5, 2.1, 1.3))  # a point on the face
    assert abs(float(f.depth[int(row), int(col)]) - depth) < 0.01


def test_a_view_with_another_tilt_is_that_cameras_view() -> None:
    """`render(state, pose, camera)`: one renderer draws what a renderer made with that
    camera draws (what `view_at` aims); another size or field of view is refused."""
    s = _crate_scene(1.8)
    down = LEVEL.model_copy(update={"tilt_deg": -35.0, "height_m": 1.1})
    with Renderer(s, LEVEL) as r, Renderer(s, down) as other:
        tilted = r.render(None, EYE, down)
        assert np.array_equal(tilted.rgb, other.render(None, EYE).rgb)
        assert np.array_equal(tilted.ids, other.render(None, EYE).ids)
        assert not np.array_equal(tilted.rgb, r.render(None, EYE).rgb)
        with pytest.raises(ValueError, match="the renderer draws 640x480"):
            r.render(None, EYE, LEVEL.model_copy(update={"width": 320}))


def test_two_renders_are_byte_identical() -> None:
    from fdc.sim_bridge.scene.load import load_scene

    s = load_scene(REPO / "examples" / "scenes" / "apartment.json").scene
    assert s is not None
    pose = AgentPose(x=7.0, y=2.0, yaw_rad=0.3)
    with Renderer(s) as a:
        fa = a.render(None, pose)
    with Renderer(s) as b:
        b.render(None, AgentPose(x=3.0, y=3.0, yaw_rad=2.0))  # another view in between
        fb = b.render(None, pose)
    assert fa.rgb.tobytes() == fb.rgb.tobytes()
    assert fa.depth.tobytes() == fb.depth.tobytes()
    assert fa.ids.tobytes() == fb.ids.tobytes()
    assert len(fa.visible) > 3


def _two_tables():
    """Two tables 2 m apart, a mug on the first; the robot's log moves it to the second."""
    a = obj("table_a", "table", (2.5, 1.0, 0.375), (0.8, 0.8, 0.75), kind="furniture")
    b = obj("table_b", "table", (2.5, 3.0, 0.375), (0.8, 0.8, 0.75), kind="furniture")
    mug = on_top("mug", "mug", (2.5, 1.0), 0.75, (0.2, 0.2, 0.2))
    return graph([a, b, mug], rooms=[room("room", "kitchen", 0, 0, 5, 4)])


def _log(g) -> Experience:
    look = AgentPose(x=0.5, y=2.0, yaw_rad=0.0)
    rec = ExperienceRecorder(scene="test.json")
    rec.frame(360.0, look)
    rec.frame(361.0, AgentPose(x=1.6, y=1.0, yaw_rad=0.0), action="pick mug", held="mug")
    rec.pick("mug", "table_a|top")
    rec.frame(362.0, AgentPose(x=1.6, y=3.0, yaw_rad=0.0), held="mug")
    rec.frame(363.0, AgentPose(x=1.6, y=3.0, yaw_rad=0.0), action="place mug table_b|top")
    rec.place("mug", "table_b|top", position=(2.5, 3.0, 0.85))
    rec.frame(364.0, look)
    return rec.finish()


def _id_at(f, cam: Camera, pose: AgentPose, point: tuple[float, float, float]) -> int:
    got = cam.pixel(pose, point)
    assert got is not None
    col, row, _ = got
    return int(f.ids[int(row), int(col)])


def test_a_moved_item_is_where_the_log_left_it_at_a_later_frame() -> None:
    g = _two_tables()
    log = _log(g)
    initial = EmbeddedWorld(g).snapshot()
    cam = Camera(hfov_deg=69.0, tilt_deg=-20.0)  # wide: both tables in one frame
    look = log.frames[0].agent
    with Renderer(g.scene, cam) as r:
        k = r.object_ids.index("mug")
        first = r.render(snapshot_at(initial, log, 0))
        last = r.render(snapshot_at(initial, log, 4))
    on_a, on_b = (2.5, 1.0, 0.85), (2.5, 3.0, 0.85)
    assert _id_at(first, cam, look, on_a) == k
    assert _id_at(first, cam, look, on_b) != k
    assert _id_at(last, cam, look, on_b) == k
    assert _id_at(last, cam, look, on_a) != k
    assert first.visible["mug"] > 0 and last.visible["mug"] > 0


def test_the_held_item_is_drawn_in_the_hand() -> None:
    from fdc.sim_bridge.render.renderer import HAND_OFFSET_M

    g = _two_tables()
    log = _log(g)
    initial = EmbeddedWorld(g).snapshot()
    state = snapshot_at(initial, log, 2)
    assert state.held == "mug"
    cam = Camera()
    with Renderer(g.scene, cam) as r:
        f = r.render(state)
        k = r.object_ids.index("mug")
    pose = state.agent
    fx, fy, z = HAND_OFFSET_M
    c, s = math.cos(pose.yaw_rad), math.sin(pose.yaw_rad)
    hand = (pose.x + c * fx - s * fy, pose.y + s * fx + c * fy, z)
    assert _id_at(f, cam, pose, hand) == k
    assert f.visible["mug"] > 500  # near the camera: large


def test_snapshot_at_replays_places_up_to_the_frame() -> None:
    g = _two_tables()
    log = _log(g)
    initial = EmbeddedWorld(g).snapshot()
    before, during, after = (snapshot_at(initial, log, k) for k in (0, 2, 3))
    assert before.objects["mug"].position == initial.objects["mug"].position
    assert during.held == "mug" and during.objects["mug"] == initial.objects["mug"]
    assert after.held is None and after.objects["mug"].position == (2.5, 3.0, 0.85)
    assert (after.step, after.time_min, after.agent) == (3, 363.0, log.frames[3].agent)
    with pytest.raises(IndexError):
        snapshot_at(initial, log, 5)


def test_an_open_door_shows_the_inside() -> None:
    """A cabinet with a door: closed, the camera sees the door; open, the door has
    swung aside and the camera sees into the cabinet (its inner back wall, farther)."""
    cab = obj("cab", "cabinet", (2.0, 2.0, 1.25), (0.6, 0.8, 0.8), yaw_deg=180.0,
              kind="articulated",
              containers=[{"name": "inside", "center": [0, 0, 0], "size": [0.56, 0.76, 0.76],
                           "part": "door", "open": False}],
              parts=[{"name": "door", "center": [0.31, 0, 0], "size": [0.02, 0.8, 0.8],
                      "joint": {"type": "revolute", "axis": [0, 0, 1], "upper": 1.9}}])
    g = graph([cab], rooms=[room("room", "kitchen", 0, 0, 4, 4)])
    initial = EmbeddedWorld(g).snapshot()
    opened = initial.model_copy(update={"open": {**initial.open, "cab|inside": True}})
    with Renderer(g.scene, LEVEL) as r:
        closed = r.render(initial, EYE)
        open_ = r.render(opened, EYE)
    h, w = closed.depth.shape
    front = 2.0 - 0.3 - 0.02 - EYE.x  # the door's outer face
    assert abs(float(closed.depth[h // 2, w // 2]) - front) < 0.02
    assert float(open_.depth[h // 2, w // 2]) > front + 0.4  # the back of the inside
    assert closed.rgb.tobytes() != open_.rgb.tobytes()


def test_no_egl_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_context, "mesa_vendor_file", lambda: None)
    with pytest.raises(RenderUnavailable, match="apt-get install libegl1 libegl-mesa0"):
        render_context.make_context()


def test_a_failing_egl_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import moderngl

    def no_egl(**_: object) -> None:
        raise Exception("libEGL.so: cannot open shared object file")

    monkeypatch.setattr(moderngl, "create_context", no_egl)
    with pytest.raises(RenderUnavailable, match="cannot make a headless EGL context"):
        render_context.make_context()


def test_parse_size() -> None:
    assert parse_size("640x480") == (640, 480)
    for bad in ("640", "axb", "0x10", "640x480x3"):
        with pytest.raises(ValueError, match=r"WIDTHxHEIGHT|between"):
            parse_size(bad)


@pytest.mark.skipif(not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}")
def test_an_imported_fridge_is_drawn_from_its_urdf_meshes(tmp_path: Path) -> None:
    """The ReplicaCAD fridge imported from its URDF: its link meshes, put where the
    importer's box is (the same bounds), and a door that turns when its joint does."""
    import json

    from fdc.sim_bridge.habitat import import_habitat
    from fdc.sim_bridge.render.build import transform

    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "t.scene_instance.json").write_text(json.dumps({
        "articulated_object_instances": [
            {"template_name": "fridge", "fixed_base": True, "translation": [2.0, 0.96, -1.0]}]}))
    cfg = tmp_path / "t.scene_dataset_config.json"
    cfg.write_text(json.dumps({
        "articulated_objects": {"paths": {".urdf": [str(TEST_ASSETS / "urdf/fridge")]}},
        "scene_instances": {"paths": {".json": ["scenes"]}}}))
    imported = import_habitat(cfg, "t", tmp_path)
    assert imported.scene is not None
    s = imported.scene
    with Renderer(s, base_dir=tmp_path) as r:
        model = r._urdf["fridge_:0000"]
        links = model.link_matrices({})
        pts = np.concatenate([transform(p, links[link] @ origin).positions
                              for link, origin, p in model.links])
        fridge = s.objects[0]
        assert (pts.max(axis=0) - pts.min(axis=0)) == pytest.approx(fridge.size, abs=0.01)
        assert (pts.max(axis=0) + pts.min(axis=0)) / 2 == pytest.approx((0, 0, 0), abs=0.01)
        x, y, _ = fridge.pose.position
        look = AgentPose(x=x + 2.5, y=y, yaw_rad=math.pi)  # in front of it (+x), facing it
        closed = r.render(None, look)
        assert closed.visible["fridge_:0000"] > 10_000
    turned = s.model_copy(update={"objects": [fridge.model_copy(update={"parts": [
        p.model_copy(update={"joint": p.joint.model_copy(update={"position": 1.2})})
        if p.name == "top_door" and p.joint is not None else p for p in fridge.parts]})]})
    with Renderer(turned, base_dir=tmp_path) as r:
        opened = r.render(None, look)
    assert opened.ids.tobytes() != closed.ids.tobytes()
