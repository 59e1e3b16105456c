"""`scene.json`: the pydantic models of fdc's scene format (version 1.0).

Conventions, fixed by the format and stated in every file by its header fields:
- units are metres and radians; the world is right-handed and **Z-up**;
- quaternions are **[w, x, y, z]** (scalar first), unit length;
- an object's `pose` is the pose of its local frame, whose origin is the centre of the
  object's oriented box `size` (full extents along local x, y, z); local +x is the
  object's **front**, +y its **left**, +z up;
- explicit surfaces, containers and parts are given in that local frame.

The models validate types and values (finite numbers, positive sizes, unit quaternions);
`fdc.sim_bridge.scene.load` adds the checks that span the file (duplicate ids, references).
See docs/formats/scene.md.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from fdc.core.models import FrozenRecord

FORMAT_VERSION = "1.0"

_ID_RE = re.compile(r"^[A-Za-z0-9_.:|/@#\-]+$")
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def _check_id(value: str) -> str:
    if not _ID_RE.match(value):
        raise ValueError("ids use letters, digits and _ . : | / @ # - only (no spaces)")
    return value


def _check_unit_quaternion(q: tuple[float, float, float, float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > 1e-3:
        raise ValueError(f"the quaternion [w, x, y, z] must have unit length (it has {norm:.4f})")
    return q


def _check_non_zero(v: float) -> float:
    if v == 0:
        raise ValueError("a scale factor must not be 0 (negative mirrors)")
    return v


def _check_attributes(attrs: dict[str, str]) -> dict[str, str]:
    for key in attrs:
        if not _KEY_RE.match(key):
            raise ValueError(f"attribute name `{key}` must be lower_snake_case")
    return attrs


def _check_polygon(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    if len(points) < 3:
        raise ValueError("a polygon needs at least 3 points")
    area2 = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        area2 += x0 * y1 - x1 * y0
    if abs(area2) < 1e-9:
        raise ValueError("the polygon has zero area")
    return points


Finite = Annotated[float, Field(allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Vec2 = tuple[Finite, Finite]
Vec3 = tuple[Finite, Finite, Finite]
Size3 = tuple[Positive, Positive, Positive]
NonZero = Annotated[float, Field(allow_inf_nan=False), AfterValidator(_check_non_zero)]
Scale3 = tuple[NonZero, NonZero, NonZero]
Quaternion = Annotated[
    tuple[Finite, Finite, Finite, Finite], AfterValidator(_check_unit_quaternion)
]
Id = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_check_id)]
Polygon2 = Annotated[list[Vec2], AfterValidator(_check_polygon)]
Attributes = Annotated[dict[str, str], AfterValidator(_check_attributes)]



class Kind(StrEnum):
    """What an object is for the scene graph."""

    FURNITURE = "furniture"  # stands on the floor, offers surfaces; not picked up
    MOVABLE = "movable"  # can be picked and placed
    ARTICULATED = "articulated"  # furniture with moving parts (doors, drawers)
    STAGE = "stage"  # part of the building (walls, columns, counters built in, the shell)


class Pose(FrozenRecord):
    """Position (metres) and orientation (unit quaternion [w, x, y, z]) in the world."""

    position: Vec3
    orientation: Quaternion = (1.0, 0.0, 0.0, 0.0)


class MeshRef(FrozenRecord):
    """A triangle mesh for the object; file coordinates map to the object's local frame
    by `local = offset + rotate(rotation, scale * v)`."""

    path: str = Field(min_length=1, description="Relative to the scene file's folder.")
    scale: Scale3 = Field(default=(1.0, 1.0, 1.0), description=(
        "Per axis, not zero; a negative factor mirrors the mesh along that axis."))
    rotation: Quaternion = (1.0, 0.0, 0.0, 0.0)
    offset: Vec3 = (0.0, 0.0, 0.0)


class SurfaceSpec(FrozenRecord):
    """An explicit support surface (a table top, a shelf) in the object's local frame."""

    name: Id
    z: Finite = Field(description="Local height of the surface (metres above the box centre).")
    polygon: Polygon2 | None = Field(
        default=None, description="Local (x, y) outline; default: the box's footprint."
    )
    clearance_m: Positive | None = Field(
        default=None, description="Free height above the surface; default: computed."
    )


class ContainerSpec(FrozenRecord):
    """A space inside the object (a cabinet, a fridge compartment, a drawer)."""

    name: Id
    center: Vec3 = Field(description="Local centre of the inner box.")
    size: Size3 = Field(description="Inner box extents (x, y, z).")
    part: Id | None = Field(
        default=None, description="The part (door, drawer) that opens and closes it."
    )
    open: bool = Field(default=False, description="Whether items can be put in now.")


class JointType(StrEnum):
    FIXED = "fixed"
    REVOLUTE = "revolute"
    PRISMATIC = "prismatic"
    CONTINUOUS = "continuous"


class JointSpec(FrozenRecord):
    type: JointType
    parent: Id | None = Field(default=None, description="Parent part name; none: the body.")
    axis: Vec3 = (0.0, 0.0, 1.0)
    lower: Finite = 0.0
    upper: Finite = 0.0
    position: Finite = Field(default=0.0, description="Current joint value (rad or m).")


class PartSpec(FrozenRecord):
    """A link of an articulated object, as a box in the object's local frame."""

    name: Id
    center: Vec3
    size: Size3
    joint: JointSpec | None = None


class ObjectSpec(FrozenRecord):
    id: Id
    category: str = Field(min_length=1)
    kind: Kind | None = Field(
        default=None, description="Default: furniture if it stands on the floor, else movable."
    )
    name: str | None = Field(default=None, description="Display name.")
    pose: Pose
    size: Size3 = Field(description="Full extents of the oriented box along local x, y, z.")
    attributes: Attributes = Field(
        default_factory=dict, description="colour, material, shape, function, print, state ..."
    )
    room: Id | None = Field(default=None, description="Expected room (checked).")
    mesh: MeshRef | None = None
    surfaces: list[SurfaceSpec] | None = Field(
        default=None,
        description="Explicit support surfaces; null: derived from the mesh or the box; "
        "[]: none.",
    )
    containers: list[ContainerSpec] = Field(default_factory=list)
    parts: list[PartSpec] = Field(default_factory=list)
    obstacle: bool | None = Field(
        default=None,
        description="Blocks the robot; default: true for furniture, articulated and stage.",
    )
    source: dict[str, str] = Field(
        default_factory=dict, description="Provenance (e.g. Habitat template and handle)."
    )


class RoomSpec(FrozenRecord):
    id: Id
    category: str = Field(min_length=1)
    name: str | None = None
    polygon: Polygon2 = Field(description="Floor outline (x, y), metres.")
    floor_z: Finite = 0.0
    height_m: Positive = 2.6


class DoorSpec(FrozenRecord):
    """An opening in the wall between two rooms (or a room and the outside: one room)."""

    id: Id
    rooms: list[Id] = Field(min_length=1, max_length=2)
    position: Vec2
    width_m: Positive = 0.9


class WallMode(StrEnum):
    FROM_ROOMS = "from_rooms"  # room outlines are walls, except at doors
    NONE = "none"  # no walls (imported scenes: the walls are in the stage mesh)


class AgentSpec(FrozenRecord):
    position: Vec3
    yaw_rad: Finite = 0.0
    radius_m: Positive = 0.25
    eye_height_m: Positive = 1.25


class RecipeSpec(FrozenRecord):
    """A substance made during a task (BEHAVIOR's transition rules: cooked rice, melted
    butter, lemonade): `output` is made in an item that holds every input substance
    (`contains`) and an item of each input category inside it, set down on a heat source
    that is on (`kind` "heat"), or stirred with a mixing tool held (`kind` "mix"). Read by
    the embedded world's `make` rule (`fdc.sim_bridge.world.transitions`), the planning
    domain's statics and the oracle."""

    output: str = Field(min_length=1, description="The substance made (PDDL spelling).")
    substances: list[str] = Field(default_factory=list, description="Input substances.")
    items: list[str] = Field(default_factory=list, description="Input item categories.")
    kind: Literal["heat", "mix"] = "heat"


class Scene(FrozenRecord):
    """A scene: rooms, doors, objects and the agent (fdc scene format 1.0)."""

    format_version: Literal["1.0"]
    name: str = Field(min_length=1)
    units: Literal["m"] = "m"
    up_axis: Literal["z"] = "z"
    quaternion_order: Literal["wxyz"] = "wxyz"
    walls: WallMode = WallMode.FROM_ROOMS
    wall_thickness_m: Positive = 0.1
    rooms: list[RoomSpec] = Field(default_factory=list)
    doors: list[DoorSpec] = Field(default_factory=list)
    objects: list[ObjectSpec] = Field(default_factory=list)
    agent: AgentSpec
    source: dict[str, str] = Field(default_factory=dict)
    recipes: list[RecipeSpec] | None = Field(
        default=None, description="Substances made during a task, from what (null: none).")

    def to_json(self) -> str:
        """Canonical text: 2-space indentation, fields in model order, a final newline."""
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"
