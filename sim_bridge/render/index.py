"""`index.json` of a frames directory (format `fdc-frames` 1.0): what `fdc render
experience` writes beside the PNG frames. `fdc schema frames` prints its JSON Schema;
docs/formats/frames.md describes it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from fdc.core.models import FrozenRecord

FRAMES_FORMAT_VERSION = "1.0"



class CameraInfo(FrozenRecord):
    """The camera the frames were rendered with (`fdc.sim_bridge.render.Camera`)."""

    width: int = Field(gt=0, description="Image width, pixels.")
    height: int = Field(gt=0, description="Image height, pixels.")
    hfov_deg: float = Field(gt=0, lt=180, description="Horizontal field of view, degrees.")
    height_m: float = Field(gt=0, description="Optical centre above the floor, metres.")
    tilt_deg: float = Field(ge=-90, le=90, description="Pitch of the optical axis "
                            "(negative: looking down), degrees.")


class FramePose(FrozenRecord):
    """The robot's base at the frame: metres, yaw in radians counter-clockwise from +x."""

    x: float
    y: float
    yaw: float


class FrameEntry(FrozenRecord):
    """One rendered frame of the experience."""

    frame: int = Field(ge=0, description="The frame's index in the experience log.")
    clock_min: float = Field(ge=0, description="Minutes since midnight.")
    time: str = Field(pattern=r"^\d{2}:\d{2}:\d{2}$", description="The clock as HH:MM:SS.")
    pose: FramePose
    held: str | None = Field(default=None, description="The item in the robot's hand.")
    rgb: str = Field(description="RGB PNG, relative to the directory.")
    depth: str = Field(description="16-bit PNG: linear depth in millimetres, 0 = nothing.")
    ids: str = Field(description="16-bit PNG: 0 = nothing (floor, wall, background), "
                     "k + 1 = objects[k].")
    visible: dict[str, int] = Field(
        default_factory=dict,
        description="Objects in view -> pixels they cover, sorted by id.")


class FramesIndex(FrozenRecord):
    """A robot's day rendered from its head camera (fdc frames format 1.0)."""

    kind: Literal["fdc-frames"] = "fdc-frames"
    format_version: Literal["1.0"] = "1.0"
    scene: str = Field(description="The scene file, relative to the directory.")
    scene_sha256: str = Field(description="sha256 of the scene's canonical JSON.")
    experience: str = Field(description="The experience log, relative to the directory.")
    experience_sha256: str = Field(description="sha256 of the log file's bytes.")
    renderer: str = Field(default="", description="The GL renderer that drew the frames "
                          "(llvmpipe and its LLVM version).")
    camera: CameraInfo
    every: int = Field(ge=1, description="Every K-th frame of the log was rendered.")
    objects: list[str] = Field(description="Scene object ids; the ids PNGs index it.")
    frames: list[FrameEntry] = Field(default_factory=list)
    video: str | None = Field(default=None, description="The mp4, when one was written.")

    @model_validator(mode="after")
    def _ordered(self) -> FramesIndex:
        known = set(self.objects)
        last = -1
        for k, f in enumerate(self.frames):
            if f.frame <= last:
                raise ValueError(f"frames[{k}]: frame {f.frame} is not after {last}")
            last = f.frame
            unknown = sorted(set(f.visible) - known)
            if unknown:
                raise ValueError(f"frames[{k}].visible names unknown objects: "
                                 f"{', '.join(unknown[:5])}")
        return self

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"
