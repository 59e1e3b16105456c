"""`LiveRecord`: the base of the live worlds (`EmbeddedWorld`, Habitat's
`HabitatWorldState`). See docs/world.md."""

from __future__ import annotations

from collections.abc import Sequence

from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Snapshot


class LiveRecord:
    """What a live world (the embedded one, Habitat's) answers from its current state as a
    `SnapshotState` (`state`: support, line of sight), and the record it keeps: clock
    steps taken, the distance walked and the snapshots."""

    _step: int
    _walked_m: float
    _snapshots: list[Snapshot]

    @property
    def state(self) -> SnapshotState:  # pragma: no cover - each world defines it
        raise NotImplementedError

    def support_of(self, object_id: str) -> str | None:
        return self.state.support_of(object_id)

    def visible(self, object_id: str, pose: AgentPose | None = None,
                fov_rad: float | None = None, max_range_m: float | None = None) -> bool:
        return self.state.visible(object_id, pose, fov_rad, max_range_m)

    def visible_many(self, object_ids: Sequence[str], poses: Sequence[AgentPose],
                     fov_rad: float | None = None, max_range_m: float | None = None
                     ) -> list[bool]:
        return self.state.visible_many(object_ids, poses, fov_rad, max_range_m)

    def visible_objects(self, pose: AgentPose | None = None, fov_rad: float | None = None,
                        max_range_m: float | None = None) -> list[str]:
        return self.state.visible_objects(pose, fov_rad, max_range_m)

    @property
    def step(self) -> int:
        """Clock steps taken (recorded) so far."""
        return self._step

    @property
    def path_length_m(self) -> float:
        return self._walked_m

    @property
    def snapshots(self) -> tuple[Snapshot, ...]:
        return tuple(self._snapshots)
