"""The checkers read a recorded snapshot (`SnapshotState`) as they read the stand-in."""

from __future__ import annotations

import pytest

from fdc.predicates.builtin import evaluate
from fdc.predicates.registry import Context
from tests.predicates.scenes import home

snapshot = pytest.importorskip("fdc.sim_bridge.world.snapshot")
state_mod = pytest.importorskip("fdc.sim_bridge.world.state")


def snap(**kw: object) -> Context:
    s = state_mod.Snapshot(
        step=0, time_min=600.0, agent=state_mod.AgentPose(x=1.05, y=2.0, yaw_rad=0.0), **kw
    )
    return Context(graph=home(), state=snapshot.SnapshotState(home(), s))


def test_checkers_on_a_snapshot() -> None:
    c = snap()
    assert evaluate("on", ["mug", "table|top"], c)
    assert evaluate("robot-at-receptacle", ["table|top"], c)
    assert evaluate("at-side", ["book", "mug", "rear"], c)
    assert not evaluate("is-open", ["cabinet"], c)
    moved = snap(
        objects={"mug": state_mod.ObjectPose(position=(5.5, 1.0, 0.1), size=(0.1, 0.1, 0.1))},
        open={"cabinet|inside": True},
    )
    assert evaluate("inside", ["mug", "cabinet|inside"], moved)
    assert not evaluate("on", ["mug", "table|top"], moved)
    assert evaluate("is-open", ["cabinet"], moved)
    held = snap(held="mug")
    assert evaluate("holding", ["mug"], held)
    assert not evaluate("on", ["mug", "table|top"], held)


def test_object_states_come_from_the_snapshot_else_the_scene() -> None:
    # the hand-made home lists no states: dirty, empty and off unless recorded
    assert not evaluate("is-clean", ["mug"], snap())
    assert evaluate("is-dirty", ["mug"], snap())
    recorded = snap(states={"mug": {"is_clean": True}, "cup": {"is_filled": True}})
    assert evaluate("is-clean", ["mug"], recorded)
    assert not evaluate("is-dirty", ["mug"], recorded)
    assert evaluate("is-filled", ["cup"], recorded)
    assert not evaluate("is-clean", ["cup"], recorded)  # not recorded: the scene's word
    assert evaluate("is-powered-off", ["mug"], recorded)


def test_states_are_written_only_when_recorded() -> None:
    plain = snap().state.snapshot  # type: ignore[attr-defined]
    assert "states" not in plain.model_dump_json()
    line = state_mod.Snapshot(step=0, time_min=600.0, agent=plain.agent,
                              states={"mug": {"is_clean": True}}).model_dump_json()
    assert state_mod.Snapshot.model_validate_json(line).states == {"mug": {"is_clean": True}}
