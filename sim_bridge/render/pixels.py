"""The pixel rule: whether the camera sees an object in a rendered frame, FindingDory's
semantic-sensor rule, and the comparison of the memory tasks' geometric valid frames with
it (`pixel_frames`, used by `fdc audit`'s `pixels` check).

A target is seen in a frame when its id covers at least `MIN_PIXELS` pixels and at least
`MIN_SHARE` of the image (FindingDory's coverage threshold: 0.1%, 307 pixels at
640x480; the numbers live in `fdc.sim_bridge.graph.frustum`, whose `large_enough`
applies them to the line of sight).
The id buffer holds the nearest surface at each pixel, so what is counted is unoccluded.
A furniture surface (a receptacle) is seen when its furniture, or the items resting on it,
together cover that much (the checkers' rule: a surface is in view when its furniture or
an item on it is).
See docs/rendering.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fdc.sim_bridge.graph.frustum import MIN_PIXELS, MIN_SHARE, min_pixels
from fdc.sim_bridge.render.camera import Camera
from fdc.sim_bridge.render.renderer import Renderer
from fdc.sim_bridge.world.experience import snapshot_at

__all__ = ["MIN_PIXELS", "MIN_SHARE", "FrameRenders", "min_pixels", "robot_camera", "seen",
           "target_pixels"]

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.render.camera import Camera
    from fdc.sim_bridge.render.renderer import Renderer
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import Snapshot


def seen(pixels: int, width: int, height: int) -> bool:
    """The pixel rule: `pixels` of an object's id in a `width` x `height` frame make it
    seen (at least `MIN_PIXELS` and at least `MIN_SHARE` of the image)."""
    return pixels >= min_pixels(width, height)


def target_pixels(visible: Mapping[str, int], ids: Iterable[str]) -> int:
    """The pixels the objects `ids` (one target: an item, or a surface's furniture and
    what rests on it) cover together, from a frame's `visible` counts."""
    return sum(visible.get(i, 0) for i in dict.fromkeys(ids))


@dataclass
class FrameRenders:
    """The frames of one experience as the camera saw them, rendered on demand and kept:
    per frame, the pixels each object covers (`RenderedFrame.visible`). Opens one
    renderer (an EGL context) on first use; `close` releases it."""

    graph: SceneGraph
    log: Experience
    camera: Camera
    base_dir: Path | None = None
    _renderer: Renderer | None = None
    _initial: Snapshot | None = None
    _counts: dict[int, dict[str, int]] | None = None

    def visible(self, frame: int) -> dict[str, int]:
        from fdc.sim_bridge.world.embedded import EmbeddedWorld

        if self._counts is None:
            self._counts = {}
        found = self._counts.get(frame)
        if found is None:
            if self._renderer is None:
                self._renderer = Renderer(self.graph.scene, self.camera,
                                          base_dir=self.base_dir)
                self._initial = EmbeddedWorld(self.graph).snapshot()
            assert self._initial is not None
            found = self._counts[frame] = dict(
                self._renderer.render(snapshot_at(self._initial, self.log, frame)).visible)
        return found

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.release()
            self._renderer = None


def robot_camera(graph: SceneGraph) -> Camera:
    """The default camera at the scene's agent eye height (the geometric eye's)."""
    return Camera(height_m=float(graph.scene.agent.eye_height_m))
