"""The Habitat config fields fdc reads, as pydantic models: scene instances (the stage,
rigid and articulated object instances), object and stage configs, receptacles and
semantic regions.

Each model checks what the importer's arithmetic needs: finite numbers, rotations that
are quaternions (a zero or NaN one is no rotation), scales that are not zero (a negative
`non_uniform_scale` is a mirror, which HSSD scenes use), `up` and `front` directions that
are neither zero nor parallel. Fields fdc does not read are left alone (Habitat configs
carry many). `validate` turns a pydantic error into located diagnostics: the config
file, the JSON path of the value and a hint, never an exception.
See docs/habitat.md.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from fdc.core.jsonpath import json_path
from fdc.core.problems import Diagnostic, error

Finite = Annotated[float, Field(allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Vec3 = tuple[Finite, Finite, Finite]


def _non_zero(v: float) -> float:
    if v == 0:
        raise ValueError("a scale of 0 flattens the object to nothing")
    return v


def _rotation(q: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    norm = math.sqrt(sum(c * c for c in q))
    if norm < 1e-9:
        raise ValueError("a rotation quaternion [w, x, y, z] of length 0 is no rotation")
    return (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)


def _direction(v: tuple[float, float, float]) -> tuple[float, float, float]:
    if math.sqrt(sum(c * c for c in v)) < 1e-9:
        raise ValueError("a direction of length 0")
    return v


#: A factor of a scale: finite and not zero (negative: mirrored along that axis).
Scale = Annotated[float, Field(allow_inf_nan=False), AfterValidator(_non_zero)]
Scale3 = tuple[Scale, Scale, Scale]
#: A quaternion [w, x, y, z] of any non-zero length, normalised.
Rotation = Annotated[tuple[Finite, Finite, Finite, Finite], AfterValidator(_rotation)]
Direction = Annotated[Vec3, AfterValidator(_direction)]

IDENTITY: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)

#: What a hint says for a value at a path ending with this key.
_HINTS = {
    "rotation": "a rotation is a quaternion [w, x, y, z] of finite numbers, not all zero",
    "non_uniform_scale": "a scale is three finite numbers, none zero (negative mirrors)",
    "uniform_scale": "a scale is a finite number other than zero (negative mirrors)",
    "scale": "a scale is three finite numbers, none zero",
    "translation": "a translation is three finite numbers (metres)",
    "up": "`up` and `front` are non-zero, non-parallel directions [x, y, z]",
    "front": "`up` and `front` are non-zero, non-parallel directions [x, y, z]",
}


class _Config(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class StageInstance(_Config):
    template_name: str = ""
    translation: Vec3 = (0.0, 0.0, 0.0)
    rotation: Rotation = IDENTITY


class ObjectInstance(_Config):
    template_name: str = ""
    translation: Vec3 = (0.0, 0.0, 0.0)
    rotation: Rotation = IDENTITY
    uniform_scale: Scale = 1.0
    non_uniform_scale: Scale3 = (1.0, 1.0, 1.0)
    motion_type: str = ""
    translation_origin: str | None = None


class ArticulatedInstance(_Config):
    template_name: str = ""
    translation: Vec3 = (0.0, 0.0, 0.0)
    rotation: Rotation = IDENTITY
    uniform_scale: Positive = 1.0
    fixed_base: bool = False
    initial_joint_pose: list[Finite] | dict[str, Finite] | None = None


class SceneInstance(_Config):
    """A `*.scene_instance.json`."""

    stage_instance: StageInstance | None = None
    object_instances: list[ObjectInstance] | None = None
    articulated_object_instances: list[ArticulatedInstance] | None = None
    translation_origin: str = "asset_local"
    semantic_scene_instance: str | None = None


class AssetConfig(_Config):
    """What fdc reads of an object or stage config: the asset, its frame and scale."""

    render_asset: str | None = None
    up: Direction = (0.0, 1.0, 0.0)
    front: Direction = (0.0, 0.0, -1.0)
    scale: Scale3 = (1.0, 1.0, 1.0)
    units_to_meters: Positive = 1.0
    com: Vec3 | None = Field(default=None, alias="COM")

    @model_validator(mode="after")
    def _frame(self) -> AssetConfig:
        u, f = self.up, self.front
        cross = (u[1] * f[2] - u[2] * f[1], u[2] * f[0] - u[0] * f[2], u[0] * f[1] - u[1] * f[0])
        if math.sqrt(sum(c * c for c in cross)) < 1e-9:
            raise ValueError(f"`up` {list(u)} and `front` {list(f)} are parallel: they do not "
                             "fix the asset's frame")
        return self


class AabbReceptacle(_Config):
    """A `receptacle_aabb_*` entry: a box (centre, half-extents, rotation)."""

    name: str | None = None
    position: Vec3 = (0.0, 0.0, 0.0)
    scale: tuple[Annotated[float, Field(ge=0, allow_inf_nan=False)], ...] = Field(
        default=(0.0, 0.0, 0.0), min_length=3, max_length=3)
    rotation: Rotation = IDENTITY
    parent_link: str | None = None


class MeshReceptacle(_Config):
    """A `receptacle_mesh_*` entry: a triangle mesh file in the parent's frame."""

    name: str | None = None
    mesh_filepath: str = Field(min_length=1)
    parent_link: str | None = None


class Region(_Config):
    """A semantic config's region annotation."""

    name: str = "region"
    label: str = "room"
    poly_loop: list[Vec3] = Field(default_factory=list)
    floor_height: Finite | None = None
    extrusion_height: Positive = 2.5


M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any, file: str, where: str = "", code: str = "H005"
             ) -> tuple[M | None, list[Diagnostic]]:
    """`data` as `model`, or None and one located error per problem (`where`: the JSON
    path of `data` in its file)."""
    try:
        return model.model_validate(data), []
    except ValidationError as e:
        out = []
        for err in e.errors():
            loc = [p for p in err.get("loc", ()) if not _is_branch(p)]
            path = json_path(([where] if where else []) + loc)
            last = next((p for p in reversed(loc) if isinstance(p, str)), "")
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            value = err.get("input")
            shown = "" if isinstance(value, dict | list) else f" (got {value!r:.60})"
            out.append(error(code, f"invalid value: {msg}{shown}", path, file=file,
                             hint=_HINTS.get(last, "")))
        return None, out


def _is_branch(part: int | str) -> bool:
    """pydantic's names for the branches of a union (`list[...]`, `dict[...]`), no part
    of the document."""
    return isinstance(part, str) and ("[" in part or part in ("float", "int", "str", "bool"))


__all__ = ["AabbReceptacle", "ArticulatedInstance", "AssetConfig", "MeshReceptacle",
           "ObjectInstance", "Region", "SceneInstance", "StageInstance", "validate"]
