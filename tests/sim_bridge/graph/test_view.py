"""`SceneView`: the static scene graph and the posed one both offer it, so the placement
queries and line of sight run on either."""

from __future__ import annotations

import pytest

from fdc.sim_bridge.graph.placement import place
from fdc.sim_bridge.graph.view import SceneView
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import ObjectPose
from tests.sim_bridge.helpers import graph, obj, on_top

TABLE = obj("table", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), kind="furniture")
CUBE = (0.1, 0.1, 0.1)


def test_the_scene_graph_and_the_posed_graph_are_scene_views() -> None:
    g = graph([TABLE, on_top("mug", "mug", (2.0, 2.0), 0.75, CUBE)])
    state = EmbeddedWorld(g).state
    assert isinstance(g, SceneView)
    assert isinstance(state.posed, SceneView)
    assert not isinstance(state, SceneView)  # a world state answers other questions


def test_a_query_on_the_posed_graph_reads_the_objects_where_they_are_now() -> None:
    # The mug stands in the corner an item put on the empty table goes to.
    g = graph([TABLE, on_top("mug", "mug", (1.45, 1.65), 0.75, CUBE),
               obj("cube", "box", (-5.0, -5.0, 0.05), CUBE, kind="movable")])
    snap = EmbeddedWorld(g).snapshot()
    away = ObjectPose(position=(-3.0, -3.0, 0.05), size=CUBE)
    posed = SnapshotState(g, snap.model_copy(update={"objects": {**snap.objects,
                                                                 "mug": away}})).posed
    as_built = place(g, "on", ("cube", "table|top"))
    now = place(posed, "on", ("cube", "table|top"))
    assert as_built.ok and now.ok
    assert as_built.pose is not None and now.pose is not None
    # The mug holds the table's corner as built; moved away, it leaves it free.
    assert as_built.pose.position[:2] != pytest.approx((1.45, 1.65), abs=0.01)
    assert now.pose.position[:2] == pytest.approx((1.45, 1.65), abs=0.01)
