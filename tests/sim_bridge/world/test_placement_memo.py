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


def test_a_posed_graph_answers_anchor_regions_once(
        apartment_graph: SceneGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    from fdc.sim_bridge.world import posed as posed_module

    posed = EmbeddedWorld(apartment_graph).state.posed
    surface = posed.support_of("mug_0")
    assert surface is not None
    calls: list[str] = []
    real = posed_module.anchor_regions

    def counted(s: Any, *rest: Any) -> Any:
        calls.append(s.id)
        return real(s, *rest)

    monkeypatch.setattr(posed_module, "anchor_regions", counted)
    first = posed.anchor_regions(surface)
    first.clear()  # the caller's own list: the memo keeps its own
    again = posed.anchor_regions(surface)
    mine = posed.anchor_regions(surface, anchor="mug_0")
    assert again and len(calls) == 1
    assert mine == [r for r in again if r.anchor_id == "mug_0"] and mine
    posed.anchor_regions(surface, exclude="mug_0")  # another question: answered afresh
    assert len(calls) == 2
    fresh = EmbeddedWorld(apartment_graph).state.posed.anchor_regions(surface)
    assert [(r.id, r.polygon.wkb) for r in fresh] == [(r.id, r.polygon.wkb) for r in again]


def test_a_kept_rotation_is_the_computed_one_bit_for_bit() -> None:
    import numpy as np

    from fdc.sim_bridge.geometry import quaternions_to_matrices, rotation

    for q in [(1.0, 0.0, 0.0, 0.0), (1.0, -0.0, 0.0, -0.0), (0.7071, 0.0, 0.0, 0.7071),
              (0.3, 0.1, -0.5, 0.2)]:
        m = rotation(q)
        assert m.tobytes() == quaternions_to_matrices([q])[0].tobytes()
        assert rotation(q) is m and not m.flags.writeable
    # -0.0 is kept apart from 0.0 (the bits differ, so may the matrix's zeros' signs)
    assert rotation((1.0, -0.0, 0.0, -0.0)) is not rotation((1.0, 0.0, 0.0, 0.0))
    assert np.array_equal(rotation((1.0, -0.0, 0.0, -0.0)), np.eye(3))
