"""The checkers read a recorded snapshot (`SnapshotState`) as they read the stand-in."""

from __future__ import annotations

import pytest

from fdc.predicates.registry import Context, evaluate

from .scenes import home

trajectory = pytest.importorskip("fdc.sim_bridge.trajectory")
state_mod = pytest.importorskip("fdc.sim_bridge.state")


def snap(**kw: object) -> Context:
    s = state_mod.Snapshot(
        step=0, time_min=600.0, agent=state_mod.AgentPose(x=1.05, y=2.0, yaw_rad=0.0), **kw
    )
    return Context(graph=home(), state=trajectory.SnapshotState(home(), s))


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
