"""The two-room scene the snapshot and trajectory tests share, and snapshots of it."""

from __future__ import annotations

from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot
from tests.sim_bridge.helpers import graph, obj, on_top, room

MUG = (0.1, 0.1, 0.12)


def two_rooms() -> SceneGraph:
    """Two rooms: a (x 0-4) with a counter (top x 3.15-3.75, y 0.5-1.5, z 0.9) and a
    mug on it; b (x 4-8) with a 2 m tall wardrobe at x 5.5-6.5, y 1.5-2.5."""
    return graph(
        [
            obj("counter", "counter", (3.45, 1.0, 0.45), (0.6, 1.0, 0.9), kind="furniture"),
            on_top("mug", "mug", (3.45, 1.0), 0.9, MUG),
            obj("wardrobe", "wardrobe", (6.0, 2.0, 1.0), (1.0, 1.0, 2.0), kind="furniture"),
            on_top("cup", "cup", (7.5, 2.0), 0.0, (0.08, 0.08, 0.1)),
        ],
        rooms=[room("a", "kitchen", 0, 0, 4, 4), room("b", "bedroom", 4, 0, 8, 4)],
        doors=[{"id": "door", "rooms": ["a", "b"], "position": [4.0, 3.2]}],
    )


def snapshot(
    mug_xyz: tuple[float, float, float],
    agent: AgentPose | None = None,
    held: str | None = None,
    step: int = 0,
) -> Snapshot:
    return Snapshot(
        step=step,
        time_min=360.0 + step,
        agent=agent or AgentPose(x=1, y=1, yaw_rad=0),
        held=held,
        objects={"mug": ObjectPose(position=mug_xyz, size=MUG)},
    )
