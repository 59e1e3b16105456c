"""The experience log: what the robot did and saw before it is given a memory task.

A log is a list of frames (one per simulation step: clock, agent pose, action, held
object, what was in view, the room) and a list of interactions (one per pick-and-place:
the object, where it came from and went, the frames and clock minutes of the pick and
the place). History predicates (`interacted`, `picked-from`, `interaction-order`,
`time-in-room`, ...) read it through the helper functions below; they are folded at
compile time, so a log is a public format: versioned, validated, with a JSON Schema
(`fdc schema experience`).

An agent fills a log step by step with `ExperienceRecorder`: `frame(...)` after every
step, `pick(...)` and `place(...)` when it grasps and releases an object, `finish()` to
get the validated, frozen `Experience`.

Conventions: clock times are minutes since midnight (FindingDory's day runs 06:00-22:00);
poses as in `fdc.sim_bridge.world.state` (metres, yaw counter-clockwise from +x).
See docs/world.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from pydantic import Field, model_validator

from fdc.core.models import FrozenRecord
from fdc.sim_bridge.scene.schema import Quaternion, Vec3
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot

EXPERIENCE_FORMAT_VERSION = "1.0"



class Frame(FrozenRecord):
    """The robot after one step of the experience."""

    index: int = Field(ge=0, description="Position in the log, from 0.")
    clock_min: float = Field(ge=0, description="Minutes since midnight.")
    agent: AgentPose
    action: str | None = Field(
        default=None, description="The action that led here (`pick mug_1`); None at first."
    )
    held: str | None = Field(default=None, description="The object in the gripper.")
    visible_objects: tuple[str, ...] = Field(default=(), description="Object ids in view.")
    visible_surfaces: tuple[str, ...] = Field(default=(), description="Surface ids in view.")
    room: str | None = Field(default=None, description="The room the agent's base is in.")


class Interaction(FrozenRecord):
    """One pick-and-place: the object left `picked_from` and was put on `placed_on`."""

    object: str
    picked_from: str | None = Field(description="The surface the object was picked from.")
    placed_on: str | None = Field(
        default=None, description="The surface it was placed on (None: never put down)."
    )
    pick_frame: int = Field(ge=0, description="The frame of the pick.")
    place_frame: int | None = Field(default=None, ge=0, description="The frame of the place.")
    start_min: float = Field(ge=0, description="Clock minutes when the pick began.")
    end_min: float | None = Field(default=None, ge=0, description="When the place ended.")
    placed_position: Vec3 | None = Field(
        default=None, description="Where the object's centre ended up (world, metres)."
    )
    placed_orientation: Quaternion | None = Field(
        default=None, description="Its orientation there, [w, x, y, z] (None: not recorded)."
    )

    @model_validator(mode="after")
    def _ordered(self) -> Interaction:
        if (self.place_frame is None) != (self.end_min is None):
            raise ValueError("place_frame and end_min are given together or not at all")
        if self.place_frame is not None and self.place_frame < self.pick_frame:
            raise ValueError("the place frame comes before the pick frame")
        if self.end_min is not None and self.end_min < self.start_min:
            raise ValueError("the interaction ends before it starts")
        return self

    @property
    def duration_min(self) -> float | None:
        return None if self.end_min is None else self.end_min - self.start_min


class Experience(FrozenRecord):
    """A robot's experience log (fdc experience format 1.0)."""

    format_version: Literal["1.0"] = "1.0"
    kind: Literal["fdc-experience"] = "fdc-experience"
    scene: str = Field(description="The scene file the experience happened in.")
    scene_sha256: str | None = None
    seed: int | None = Field(default=None, description="The seed that generated it.")
    source: str = Field(default="fdc-embedded", description="The simulator that produced it.")
    frames: tuple[Frame, ...] = ()
    interactions: tuple[Interaction, ...] = Field(
        default=(), description="Sorted by pick frame."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Experience:
        for k, f in enumerate(self.frames):
            if f.index != k:
                raise ValueError(f"frames[{k}] has index {f.index}; frames are numbered from 0")
            if k and f.clock_min < self.frames[k - 1].clock_min:
                raise ValueError(f"frames[{k}]: the clock goes backwards")
        n = len(self.frames)
        last_pick = -1
        for k, it in enumerate(self.interactions):
            for what, i in (("pick_frame", it.pick_frame), ("place_frame", it.place_frame)):
                if i is not None and i >= n:
                    raise ValueError(f"interactions[{k}].{what} = {i}: the log has {n} frames")
            if it.pick_frame < last_pick:
                raise ValueError(f"interactions[{k}] is out of order (sorted by pick frame)")
            last_pick = it.pick_frame
        return self

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"


# ----------------------------------------------------------------------- history facts


def interactions_of(log: Experience, object_id: str) -> tuple[Interaction, ...]:
    return tuple(i for i in log.interactions if i.object == object_id)


def interacted_objects(log: Experience) -> tuple[str, ...]:
    """Objects in the order they were first picked."""
    return tuple(dict.fromkeys(i.object for i in log.interactions))


def interaction_order(log: Experience) -> Mapping[str, int]:
    """Object -> ordinal of its first interaction (1 for the first object picked)."""
    return MappingProxyType({o: k + 1 for k, o in enumerate(interacted_objects(log))})


def interaction_sequence(log: Experience) -> tuple[str, ...]:
    """The object of every interaction in order (an object may appear several times)."""
    return tuple(i.object for i in log.interactions)


def interaction_start(log: Experience, object_id: str) -> float | None:
    """Clock minutes when the first pick of the object began."""
    its = interactions_of(log, object_id)
    return its[0].start_min if its else None


def interaction_end(log: Experience, object_id: str) -> float | None:
    """Clock minutes when the last place of the object ended (None: never put down)."""
    its = interactions_of(log, object_id)
    return its[-1].end_min if its else None


def interaction_duration(log: Experience, object_id: str) -> float | None:
    """Minutes the object spent being moved, summed over its interactions (None when it
    was never interacted with or is still held)."""
    its = interactions_of(log, object_id)
    if not its or any(i.end_min is None for i in its):
        return None
    return sum(i.end_min - i.start_min for i in its if i.end_min is not None)


def interacting_at(log: Experience, clock_min: float) -> tuple[str, ...]:
    """Objects whose interaction interval [start, end] contains the clock time."""
    return tuple(dict.fromkeys(
        i.object for i in log.interactions
        if i.start_min <= clock_min and (i.end_min is None or clock_min <= i.end_min)))


def visited_rooms(log: Experience) -> tuple[str, ...]:
    """Rooms in the order of the first visit."""
    return tuple(dict.fromkeys(f.room for f in log.frames if f.room is not None))


def visit_order(log: Experience) -> Mapping[str, int]:
    """Room -> ordinal of its first visit (1 for the first room)."""
    return MappingProxyType({r: k + 1 for k, r in enumerate(visited_rooms(log))})


def initial_room(log: Experience) -> str | None:
    return next((f.room for f in log.frames if f.room is not None), None)


def final_room(log: Experience) -> str | None:
    return next((f.room for f in reversed(log.frames) if f.room is not None), None)


def time_in_rooms(log: Experience) -> Mapping[str, float]:
    """Room -> minutes spent there: each frame's room is charged the clock time until the
    next frame (the last frame ends the log and is charged nothing)."""
    out: dict[str, float] = {}
    for a, b in zip(log.frames, log.frames[1:], strict=False):
        if a.room is not None:
            out[a.room] = out.get(a.room, 0.0) + (b.clock_min - a.clock_min)
    for r in visited_rooms(log):
        out.setdefault(r, 0.0)
    return MappingProxyType(out)


def final_agent_pose(log: Experience) -> AgentPose | None:
    """Where the robot stood when the log ended: where a memory task starts."""
    return log.frames[-1].agent if log.frames else None


def final_positions(log: Experience) -> Mapping[str, tuple[float, float, float]]:
    """Where each interacted object ended up (when the log recorded it)."""
    out: dict[str, tuple[float, float, float]] = {}
    for i in log.interactions:
        if i.placed_position is not None:
            out[i.object] = i.placed_position
    return MappingProxyType(out)


def snapshot_at(initial: Snapshot, log: Experience, frame: int) -> Snapshot:
    """The world as it was at `frame` of the log, from the scene's `initial` snapshot:
    each item where its last place up to that frame put it (turned as it was placed;
    an item placed without an orientation keeps the one it had), the robot at the
    frame's pose holding what the frame says it held, containers as they were at the
    start (an experience opens and closes nothing). Step, clock and action are the
    frame's."""
    if not 0 <= frame < len(log.frames):
        raise IndexError(f"frame {frame} is not in the log ({len(log.frames)} frames)")
    f = log.frames[frame]
    objects = dict(initial.objects)
    for it in log.interactions:  # sorted by pick frame: later places win
        if it.place_frame is None or it.place_frame > frame or it.placed_position is None:
            continue
        old = objects.get(it.object)
        if old is None:
            continue
        objects[it.object] = ObjectPose(
            position=it.placed_position, size=old.size,
            orientation=it.placed_orientation if it.placed_orientation is not None
            else old.orientation)
    return initial.model_copy(update={
        "objects": objects, "agent": f.agent, "held": f.held, "time_min": f.clock_min,
        "step": frame, "action": f.action})


# ----------------------------------------------------------------------- recording


@dataclass
class ExperienceRecorder:
    """Builds a log while an agent acts: one `frame` per step, `pick` and `place` when
    the gripper closes and opens. `finish` validates and freezes it."""

    scene: str
    seed: int | None = None
    source: str = "fdc-embedded"
    scene_sha256: str | None = None
    _frames: list[Frame] = field(default_factory=list)
    _interactions: list[dict[str, object]] = field(default_factory=list)
    _open: dict[str, int] = field(default_factory=dict)  # object -> index in _interactions

    def frame(self, clock_min: float, agent: AgentPose, action: str | None = None,
              held: str | None = None, visible_objects: Sequence[str] = (),
              visible_surfaces: Sequence[str] = (), room: str | None = None) -> Frame:
        f = Frame(index=len(self._frames), clock_min=clock_min, agent=agent, action=action,
                  held=held, visible_objects=tuple(sorted(visible_objects)),
                  visible_surfaces=tuple(sorted(visible_surfaces)), room=room)
        self._frames.append(f)
        return f

    def pick(self, object_id: str, surface_id: str | None, start_min: float | None = None
             ) -> None:
        """The object leaves `surface_id` at the last recorded frame."""
        if not self._frames:
            raise ValueError("record a frame before the pick")
        if object_id in self._open:
            raise ValueError(f"`{object_id}` is already held")
        last = self._frames[-1]
        self._open[object_id] = len(self._interactions)
        self._interactions.append({
            "object": object_id, "picked_from": surface_id, "pick_frame": last.index,
            "start_min": last.clock_min if start_min is None else start_min,
        })

    def place(self, object_id: str, surface_id: str | None,
              position: tuple[float, float, float] | None = None,
              end_min: float | None = None,
              orientation: tuple[float, float, float, float] | None = None) -> None:
        """The object is put on `surface_id` at the last recorded frame (its centre at
        `position`, turned by `orientation`)."""
        if object_id not in self._open:
            raise ValueError(f"`{object_id}` is placed but was never picked")
        last = self._frames[-1]
        rec = self._interactions[self._open.pop(object_id)]
        rec.update(placed_on=surface_id, place_frame=last.index,
                   end_min=last.clock_min if end_min is None else end_min,
                   placed_position=position, placed_orientation=orientation)

    def finish(self) -> Experience:
        return Experience.model_validate({
            "scene": self.scene, "scene_sha256": self.scene_sha256, "seed": self.seed,
            "source": self.source, "frames": self._frames,
            "interactions": [Interaction.model_validate(r) for r in self._interactions],
        })
