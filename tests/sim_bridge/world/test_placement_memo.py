"""`place` keeps its answers on a posed graph (built once per state, read-only): the
oracle's preview and the world's placement ask it once; a view that may change (the
scene graph) keeps none."""

from __future__ import annotations

from typing import Any

import pytest

from fdc.sim_bridge.graph import placement
from fdc.sim_bridge.graph.placement import Relation, place
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld


def test_a_posed_graph_answers_a_placement_once(
        apartment_graph: SceneGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    posed = EmbeddedWorld(apartment_graph).state.posed
    surface = posed.support_of("mug_0")
    assert surface is not None
    calls: list[tuple[Any, ...]] = []
    real = placement._place

    def counted(view: Any, rel: Relation, args: Any, config: Any) -> Any:
        calls.append((rel, tuple(args)))
        return real(view, rel, args, config)

    monkeypatch.setattr(placement, "_place", counted)
    first = place(posed, Relation.ON, ("mug_0", surface))
    again = place(posed, "on", ["mug_0", surface])
    assert again is first and len(calls) == 1
    cell = place(posed, Relation.IN_CELL, ("mug_0", surface, "front-left"))
    assert cell is not first and len(calls) == 2
    # another state, the same arrangement: its own answers, equal to the memo's
    fresh = EmbeddedWorld(apartment_graph).state.posed
    assert place(fresh, Relation.ON, ("mug_0", surface)) == first and len(calls) == 3
    # the scene graph keeps no answers
    place(apartment_graph, Relation.ON, ("mug_0", surface))
    place(apartment_graph, Relation.ON, ("mug_0", surface))
    assert len(calls) == 5
