"""Image observations of `ManipulationEnv`: the view from where the robot stands, rendered
on the CPU, and `show_receptacle`'s regions drawn and labelled on it. Skipped, with the
reason, on a machine without EGL."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from PIL import Image, ImageDraw

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import ManipulationEnv
from fdc.agents.images import label_anchor, project_outline, region_colour, region_label
from fdc.compiler.suite import TaskRecord
from fdc.predicates.goal import atom, to_pddl
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.render import Camera, view_at
from fdc.sim_bridge.world.embedded import side_of
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)

SCENES = Path(__file__).resolve().parents[2] / "examples" / "scenes"
ON = atom("on", "soap_0", "side_table|top")
#: Small images keep the tests fast; the labels are still legible at this size.
CAMERA = Camera(width=320, height=240)
#: An empty surface of the apartment: its regions are its 9 cells, one colour each.
EMPTY = "sofa|top"


def task() -> TaskRecord:
    return TaskRecord(id="t1", template="hand-made", level=1, goal=ON, goal_pddl=to_pddl(ON),
                      instructions=["Put the soap on the side table."], tags=["manipulation"])


def act(name: str, target: str | None = None) -> AgentAction:
    return AgentAction(action=ActionName(name), target=target)


def env_of(apartment_graph: SceneGraph, observation: str = "image") -> ManipulationEnv:
    return ManipulationEnv(apartment_graph, [task()], observation=observation,  # type: ignore[arg-type]
                           camera=CAMERA, base_dir=SCENES)


PLAN = [act("go_to", "side_table|top"), act("change_view"), act("go_to", EMPTY),
        act("show_receptacle", EMPTY), act("go_to", "dining_table|top")]


def test_image_observations_have_the_space_shape_and_dtype(apartment_graph: SceneGraph) -> None:
    env = env_of(apartment_graph)
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"image"}
    box = space.spaces["image"]
    assert isinstance(box, spaces.Box) and box.shape == (240, 320, 3) and box.dtype == np.uint8
    obs, _ = env.reset(options={"task": task()})
    assert set(obs) == {"image"} and obs["image"].shape == (240, 320, 3)
    assert obs["image"].dtype == np.uint8 and space.contains(obs)
    renderer = env.renderer()
    for a in PLAN:
        obs, *_ = env.step(a)
        assert space.contains(obs)
    assert env.renderer() is renderer  # made once, reused
    env.close()


def test_both_gives_the_text_observation_unchanged(apartment_graph: SceneGraph) -> None:
    text, both = ManipulationEnv(apartment_graph, [task()]), env_of(apartment_graph, "both")
    assert isinstance(text.observation_space, spaces.Text)
    assert isinstance(both.observation_space, spaces.Dict)
    assert set(both.observation_space.spaces) == {"text", "image"}
    a, _ = text.reset(options={"task": task()})
    b, _ = both.reset(options={"task": task()})
    assert isinstance(a, str) and a == b["text"]
    for action in PLAN:
        a, ra, *_ = text.step(action)
        b, rb, *_ = both.step(action)
        assert isinstance(a, str) and a == b["text"] and ra == rb
    both.close()


def test_images_are_deterministic_and_show_where_the_robot_stands(
        apartment_graph: SceneGraph) -> None:
    first, second = env_of(apartment_graph), env_of(apartment_graph)
    seen: list[np.ndarray] = []
    for env in (first, second):
        images = [env.reset(options={"task": task()})[0]["image"]]
        images += [env.step(a)[0]["image"] for a in PLAN]
        seen.append(np.stack(images))
    assert np.array_equal(seen[0], seen[1])
    # each step changes the view: a new surface, another side, the regions drawn
    for k in range(len(PLAN)):
        assert not np.array_equal(seen[0][k], seen[0][k + 1]), PLAN[k]
    # after go_to: from the robot's pose, the camera aimed by view_at at the side it is at
    env = env_of(apartment_graph)
    env.reset(options={"task": task()})
    image = env.step(act("go_to", "side_table|top"))[0]["image"]
    pose = env.world.agent_pose()
    side = side_of(env.world.state.posed.surface("side_table|top"), pose).value
    _, cam = view_at(apartment_graph, "side_table|top", side, CAMERA)
    assert cam.tilt_deg != CAMERA.tilt_deg
    expected = env.renderer().render(env.world.snapshot(), pose, cam)
    assert np.array_equal(image, expected.rgb)
    assert "side_table" in expected.visible
    first.close()
    second.close()
    env.close()


def _interior(outline: list[tuple[float, float]], shape: tuple[int, int]) -> np.ndarray:
    """The pixels inside a projected outline, 2 pixels in from it (the outline not
    counted)."""
    mask = Image.new("L", (shape[1], shape[0]), 0)
    ImageDraw.Draw(mask).polygon(outline, fill=1)
    m = np.asarray(mask).astype(bool)
    for _ in range(2):
        m = m & np.roll(m, 1, 0) & np.roll(m, -1, 0) & np.roll(m, 1, 1) & np.roll(m, -1, 1)
    return m


def test_show_receptacle_draws_and_labels_its_regions(apartment_graph: SceneGraph) -> None:
    env = env_of(apartment_graph, "both")
    env.reset(options={"task": task()})
    plain = env.step(act("go_to", EMPTY))[0]["image"]
    obs = env.step(act("show_receptacle", EMPTY))[0]
    image, text = obs["image"], obs["text"]
    regions = env.regions(EMPTY)
    assert len(regions) == 9 and all(r.anchor_id is None for r in regions)
    pose, cam, sid, shown = env.view()
    assert sid == EMPTY and shown
    z = env.world.state.posed.surface(EMPTY).z
    h, w = image.shape[:2]
    checked = 0
    for k, r in enumerate(regions):
        # the label the text observation places by
        assert f"  {EMPTY}#{region_label(r)}:" in text
        outline = project_outline(r, z, pose, cam)
        anchor = label_anchor(r, z, pose, cam)
        assert outline is not None and anchor is not None
        if not (30 <= anchor[0] <= w - 30 and 10 <= anchor[1] <= h - 10):
            continue  # the robot stands at one end of the sofa: its far cells are out of view
        checked += 1
        inside = _interior(outline, image.shape[:2])
        colour = np.all(image == np.array(region_colour(k), np.uint8), axis=-1)
        assert (colour & inside).sum() >= 20, r.id  # its label's box, inside its outline
        assert not (np.all(plain == np.array(region_colour(k), np.uint8), axis=-1)
                    & inside).any()  # not there before
    assert checked >= 3
    # the regions stay drawn while the robot stays; leaving takes them away
    again = env.step(act("change_view"))[0]["image"]
    assert env.view()[3]
    env.step(act("go_to", "side_table|top"))
    assert not env.view()[3]
    assert not np.array_equal(again, image)
    env.close()


def test_gymnasiums_env_checker_passes_with_images(apartment_graph: SceneGraph) -> None:
    env = ManipulationEnv(apartment_graph, [task()], budget=3, observation="both",
                          camera=Camera(width=64, height=48), base_dir=SCENES)
    check_env(env, skip_render_check=True)
    env.close()


def test_an_unknown_observation_mode_is_refused(apartment_graph: SceneGraph) -> None:
    with pytest.raises(ValueError, match="'text', 'image' or 'both'"):
        ManipulationEnv(apartment_graph, observation="video")  # type: ignore[arg-type]


def test_show_lens_widens_to_take_in_the_receptacle_and_no_further() -> None:
    import shapely

    from fdc.agents.env import SHOW_HFOV_DEG, show_lens
    from fdc.sim_bridge.world.state import AgentPose

    class _Top:  # a surface as show_lens reads it: its world polygon
        def __init__(self, x0: float, y0: float, x1: float, y1: float) -> None:
            self.polygon = shapely.box(x0, y0, x1, y1)

    facing_x = AgentPose(x=0.0, y=0.0, yaw_rad=0.0)
    # 0.4 m wide, 2 m ahead: 11.4 degrees with the margin, within the head camera's 43
    assert show_lens(_Top(2.0, -0.2, 2.4, 0.2), facing_x, 43.0) == 43.0  # type: ignore[arg-type]
    # a 2 m sofa 0.8 m ahead: about 103 degrees needed; widened in steps of 10, capped
    assert show_lens(_Top(0.8, -1.0, 1.2, 1.0), facing_x, 43.0) == SHOW_HFOV_DEG  # type: ignore[arg-type]
    # 1 m wide, 1 m ahead: 2 * atan(0.5 / 1) = 53 degrees, 61 with the margin: 63
    assert show_lens(_Top(1.0, -0.5, 1.0001, 0.5), facing_x, 43.0) == 63.0  # type: ignore[arg-type]
