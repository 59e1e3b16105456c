"""The image observations of `ManipulationEnv`: the view from where the robot stands, and
a receptacle's placement regions drawn on it, as ManiTaskGen shows its VLM the regions of
the platform it stands at (outlined on the image, each labelled with the id it is
placed in by).

A region is a polygon on the surface (world x, y at the surface's height): its vertices
are projected with the camera's matrices (`Camera.pixel`), its outline drawn in its
colour, and its label (the region's id without the `<surface>#` prefix the text
observation's header names) drawn in a box of the same colour at a point inside it.
Outlines and labels are drawn over everything (a region hidden by an item on it is
still shown). Drawn with Pillow, which the renderer already uses.
See docs/agents.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.regions import Region
    from fdc.sim_bridge.render.camera import Camera
    from fdc.sim_bridge.world.state import AgentPose

#: The colours of the regions, in the order they are listed (repeating after 20):
#: saturated, far from each other and from the renderer's shaded category colours.
REGION_COLOURS: tuple[tuple[int, int, int], ...] = (
    (230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48),
    (145, 30, 180), (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212),
    (0, 128, 128), (220, 190, 255), (170, 110, 40), (255, 250, 200), (128, 0, 0),
    (170, 255, 195), (128, 128, 0), (255, 215, 180), (0, 0, 128), (255, 255, 255),
)
#: How far above the surface the outlines are drawn (metres): on its top, not in it.
LIFT_M = 0.005


def region_colour(k: int) -> tuple[int, int, int]:
    """The colour of the k-th region listed."""
    return REGION_COLOURS[k % len(REGION_COLOURS)]


def region_label(region: Region) -> str:
    """What a region is labelled with on the image: its id, the surface's prefix cut."""
    prefix = f"{region.surface_id}#"
    return region.id[len(prefix):] if region.id.startswith(prefix) else region.id


def project_outline(region: Region, z: float, pose: AgentPose, camera: Camera
                    ) -> list[tuple[float, float]] | None:
    """The region's outline in the image, (column, row) per vertex of its polygon at
    height `z`; None when a vertex is behind the camera (not drawn)."""
    points: list[tuple[float, float]] = []
    for x, y in list(region.polygon.exterior.coords)[:-1]:
        p = camera.pixel(pose, (float(x), float(y), z + LIFT_M))
        if p is None:
            return None
        points.append((p[0], p[1]))
    return points


def label_anchor(region: Region, z: float, pose: AgentPose, camera: Camera
                 ) -> tuple[float, float] | None:
    """Where a region's label is centred: a point inside its polygon, projected."""
    inside = region.polygon.representative_point()
    p = camera.pixel(pose, (float(inside.x), float(inside.y), z + LIFT_M))
    return None if p is None else (p[0], p[1])


def draw_regions(rgb: np.ndarray, regions: Sequence[Region], z: float, pose: AgentPose,
                 camera: Camera) -> np.ndarray:
    """The image with each region's outline and label drawn in its colour (outlines
    first, then the labels over them)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.fromarray(rgb)
    draw = ImageDraw.Draw(img)
    width = max(1, rgb.shape[0] // 240)
    for k, r in enumerate(regions):
        outline = project_outline(r, z, pose, camera)
        if outline is not None and len(outline) >= 2:
            draw.line([*outline, outline[0]], fill=region_colour(k), width=width)
    size = max(8, rgb.shape[0] // 40)
    try:
        font: Any = ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow without FreeType
        font = ImageFont.load_default()
    pad = max(1, size // 5)
    for k, r in enumerate(regions):
        at = label_anchor(r, z, pose, camera)
        if at is None:
            continue
        text = region_label(r)
        box = draw.textbbox((0, 0), text, font=font)
        w, h = box[2] - box[0] + 2 * pad, box[3] - box[1] + 2 * pad
        x0, y0 = round(at[0] - w / 2), round(at[1] - h / 2)
        colour = region_colour(k)
        ink = (0, 0, 0) if sum(colour) > 380 else (255, 255, 255)
        draw.rectangle((x0, y0, x0 + w - 1, y0 + h - 1), fill=colour)
        draw.text((x0 + pad - box[0], y0 + pad - box[1]), text, fill=ink, font=font)
    return np.asarray(img)
