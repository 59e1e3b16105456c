"""Egocentric frames on the CPU: a scene state seen from the robot's head camera (RGB,
linear depth, per-pixel object ids), rendered with moderngl on a headless EGL context
(Mesa's llvmpipe), and a robot's day written as an `fdc-frames` directory.

moderngl is imported when the first renderer is made, never at `import fdc`.
See docs/rendering.md.
"""

from fdc.sim_bridge.render.camera import Camera
from fdc.sim_bridge.render.context import RenderUnavailable
from fdc.sim_bridge.render.frames import render_experience
from fdc.sim_bridge.render.index import FramesIndex
from fdc.sim_bridge.render.renderer import RenderedFrame, Renderer
from fdc.sim_bridge.render.views import ViewError, view_at

__all__ = ["Camera", "FramesIndex", "RenderUnavailable", "RenderedFrame", "Renderer",
           "ViewError", "render_experience", "view_at"]
