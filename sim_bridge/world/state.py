"""World state: what predicate checkers may read, whichever simulator produced it.

`WorldState` is a protocol. Backends implement it: the embedded kinematic world
(`fdc.sim_bridge.world.embedded`), recorded snapshots (`SnapshotState`, from a trajectory JSONL
file, so a run from any simulator is verified offline), and live Habitat
(`fdc.sim_bridge.habitat`, optional). Checkers read the static `SceneGraph` for what does
not move (furniture, surfaces, rooms, the navigation graph) and the `WorldState` for what
does (the agent, the held item, item poses, open parts, the clock).

Conventions as in `scene.json`: metres, radians, Z-up, quaternions [w, x, y, z]; the
agent's yaw is measured counter-clockwise from +x; clock times are minutes since
midnight.
See docs/world.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import Field, model_validator

from fdc.core.models import FrozenRecord
from fdc.sim_bridge.scene.schema import Quaternion, Size3, Vec3

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import Point, SceneGraph

TRAJECTORY_FORMAT_VERSION = "1.0"



class AgentPose(FrozenRecord):
    """The robot's base: position on the floor and heading."""

    x: float
    y: float
    z: float = 0.0
    yaw_rad: float = Field(description="Heading, counter-clockwise from +x.")
    head_tilt_deg: float | None = Field(
        default=None, ge=-89, le=89,
        description="The head camera's pitch (negative: down) when the robot looks at "
                    "something (the item it picks or places); None: the camera's default "
                    "tilt (`fdc.sim_bridge.graph.frustum.TILT_DEG`).")


class ObjectPose(FrozenRecord):
    """An object's oriented box: centre, orientation [w, x, y, z], full extents."""

    position: Vec3
    orientation: Quaternion = (1.0, 0.0, 0.0, 0.0)
    size: Size3


class Snapshot(FrozenRecord):
    """The world after one step: one line of a trajectory file."""

    step: int = Field(ge=0)
    time_min: float = Field(description="Simulated clock: minutes since midnight.")
    action: str | None = Field(
        default=None,
        description="The action that led to this state (`navigate kitchen|counter`, "
        "`pick mug_1`, `stop`); None for the first snapshot.",
    )
    agent: AgentPose
    held: str | None = None
    objects: dict[str, ObjectPose] = Field(
        default_factory=dict,
        description="Poses of the objects that can move (movable and articulated ones).",
    )
    open: dict[str, bool] = Field(
        default_factory=dict, description="Open state of containers and articulated parts."
    )
    path_length_m: float = Field(default=0.0, ge=0, description="Distance walked so far.")
    states: dict[str, dict[str, bool]] = Field(
        default_factory=dict,
        exclude_if=lambda v: not v,  # written only when a simulator records some
        description="Object states a simulator tracks, by object id and state name "
        "(`is_clean`, `is_filled`, `is_powered_on`); an object or state left out has the "
        "scene's value.",
    )


class Clock(FrozenRecord):
    """The simulated day: `steps_per_day` steps spread over [start_min, end_min]
    (FindingDory: 06:00-22:00 over 4,000 steps, 0.24 minutes a step)."""

    start_min: float = Field(default=360.0, ge=0, le=1440, description="Minutes at step 0.")
    end_min: float = Field(default=1320.0, ge=0, le=1440, description="Minutes at the last step.")
    steps_per_day: int = Field(default=4000, gt=0)

    @model_validator(mode="after")
    def _ends_after_start(self) -> Clock:
        if self.end_min <= self.start_min:
            raise ValueError("the day must end after it starts (end_min > start_min)")
        return self

    @property
    def minutes_per_step(self) -> float:
        return (self.end_min - self.start_min) / self.steps_per_day

    def time_at(self, step: int) -> float:
        """Minutes since midnight after `step` steps."""
        return self.start_min + step * self.minutes_per_step


class TrajectoryHeader(FrozenRecord):
    """The first line of a trajectory file."""

    format_version: str = TRAJECTORY_FORMAT_VERSION
    kind: str = "fdc-trajectory"
    scene: str = Field(description="The scene file the trajectory ran in.")
    scene_sha256: str | None = None
    source: str = Field(default="fdc-embedded", description="The simulator that produced it.")
    clock: Clock | None = Field(default=None, description="The clock the run used.")
    seed: int | None = Field(default=None, description="The seed of the run, if any.")


@runtime_checkable
class WorldState(Protocol):
    """What a checker may ask of the world at one moment."""

    @property
    def graph(self) -> SceneGraph:
        """The static scene graph the world runs in."""
        ...

    def agent_pose(self) -> AgentPose: ...

    def held_object(self) -> str | None: ...

    def object_ids(self) -> Sequence[str]:
        """Ids of the objects whose pose the state tracks (movable and articulated)."""
        ...

    def object_pose(self, object_id: str) -> ObjectPose: ...

    def is_open(self, object_id: str) -> bool:
        """A container's or articulated part's open state (True when it has none)."""
        ...

    def time_min(self) -> float: ...

    def support_of(self, object_id: str) -> str | None:
        """The surface id an item rests on now (None: the floor, held, or in the air)."""
        ...

    def room_of(self, what: str | Point) -> str | None:
        """The room id of an object (now) or of a point."""
        ...

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        """Walking distance in metres between points or entities (inf: unreachable)."""
        ...

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        """`geodesic_distance(a, b) <= limit_m`, which a backend may decide without
        measuring the walk."""
        ...

    def visible(
        self, object_id: str, pose: AgentPose | None = None, fov_rad: float | None = None,
        max_range_m: float | None = None,
    ) -> bool:
        """Whether the object is in view from `pose` (default: the agent's)."""
        ...

    def visible_many(
        self, object_ids: Sequence[str], poses: Sequence[AgentPose],
        fov_rad: float | None = None, max_range_m: float | None = None,
    ) -> list[bool]:
        """`visible` for each object from the pose beside it (a backend may test the
        sight lines together)."""
        ...
