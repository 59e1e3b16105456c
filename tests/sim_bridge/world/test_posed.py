"""The posed graph's obstacles: what an item put down now must not touch."""

from __future__ import annotations

from fdc.sim_bridge.graph.placement import place
from fdc.sim_bridge.world.posed import PosedGraph
from fdc.sim_bridge.world.state import AgentPose, ObjectPose
from fdc.sim_bridge.world.statics import scene_statics
from tests.sim_bridge.helpers import graph, obj


def test_items_on_overlapping_surfaces_never_share_space() -> None:
    """Two tables whose tops overlap at the same height (as two receptacles of one
    Habitat chair do): a cube put on one is an obstacle on the other (failed before:
    the second cube went into the first one's place)."""
    size = (0.3, 0.3, 0.1)
    g = graph([
        obj("a", "table", (2.0, 2.0, 0.375), (0.5, 0.5, 0.75)),
        obj("b", "table", (2.3, 2.0, 0.375), (0.9, 0.5, 0.75)),
        obj("c1", "box", (-5.0, -5.0, 0.05), size, kind="movable"),
        obj("c2", "box", (-4.0, -5.0, 0.05), size, kind="movable"),
    ])
    poses = dict(scene_statics(g).initial_poses)
    agent = AgentPose(x=0.0, y=0.0, yaw_rad=0.0)
    first = place(PosedGraph(g, poses, None, {}, agent), "on", ("c1", "a|top"))
    assert first.ok and first.pose is not None, first.reason
    poses["c1"] = ObjectPose(position=first.pose.position, orientation=first.pose.orientation,
                             size=size)
    second = place(PosedGraph(g, poses, None, {}, agent), "on", ("c2", "b|top"))
    assert second.ok, second.reason
    assert first.footprint.distance(second.footprint) >= 0.01 - 1e-6
