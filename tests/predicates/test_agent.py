"""Agent checkers: holding, at object (distance, angle, visibility), at receptacle,
in room; the relaxed modes drop exactly one check each."""

from __future__ import annotations

import math

import pytest

from fdc.predicates.builtin import default_registry, evaluate, value
from fdc.predicates.registry import Mode
from tests.predicates.scenes import ctx, home, state

REG = default_registry()


def test_holding_and_hand_empty() -> None:
    st = state()
    assert evaluate("hand-empty", [], ctx(st))
    assert not evaluate("holding", ["mug"], ctx(st))
    held = st.holding("mug")
    assert evaluate("holding", ["mug"], ctx(held))
    assert not evaluate("holding", ["book"], ctx(held))
    assert not evaluate("hand-empty", [], ctx(held))


def test_robot_at_object_distance_is_walked_not_straight() -> None:
    st = state()
    d = home().geodesic_distance((st.agent.x, st.agent.y), (2.0, 2.0))
    assert d >= math.hypot(2.0 - st.agent.x, 0.0) - 1e-9
    assert evaluate(
        "robot-at-object", ["mug"], ctx(st).with_thresholds({"object_distance_m": d + 0.01}, REG)
    )
    assert not evaluate(
        "robot-at-object", ["mug"], ctx(st).with_thresholds({"object_distance_m": d - 0.01}, REG)
    )


def test_robot_at_object_default_is_two_metres() -> None:
    # In the living room, 3 m from the door: too far from the mug whatever the heading.
    far = state().at(6.6, 2.0, 180.0).seeing(["mug"])
    assert not evaluate("robot-at-object", ["mug"], ctx(far))
    assert evaluate("robot-at-object", ["mug"], ctx(far), mode=Mode.NO_DISTANCE)


@pytest.mark.parametrize(
    ("yaw_deg", "expected"), [(44.0, True), (46.0, False), (-44.0, True), (-46.0, False)]
)
def test_robot_at_object_facing_angle(yaw_deg: float, expected: bool) -> None:
    st = state().at(1.05, 2.0, yaw_deg).seeing(["mug"])
    assert evaluate("robot-at-object", ["mug"], ctx(st)) is expected
    # No relaxed mode drops the angle check.
    for mode in (Mode.NO_VISIBILITY, Mode.NO_DISTANCE):
        assert evaluate("robot-at-object", ["mug"], ctx(st), mode=mode) is expected


def test_robot_at_object_visibility_and_its_relaxed_mode() -> None:
    blind = state().seeing([])
    assert not evaluate("robot-at-object", ["mug"], ctx(blind))
    assert evaluate("robot-at-object", ["mug"], ctx(blind), mode=Mode.DTG_SR)
    assert evaluate("robot-at-object", ["mug"], ctx(blind, mode=Mode.NO_VISIBILITY))
    # Line of sight computed: nothing hides the mug from the table's rear.
    assert evaluate("robot-at-object", ["mug"], ctx(state()))


def test_relaxed_distance_keeps_visibility() -> None:
    st = state().seeing([])
    c = ctx(st).with_thresholds({"object_distance_m": 0.1}, REG)
    assert not evaluate("robot-at-object", ["mug"], c, mode=Mode.SC_SR)
    assert evaluate("robot-at-object", ["mug"], c, mode=Mode.SC_SR | Mode.DTG_SR)


@pytest.mark.parametrize(("dx", "expected"), [(0.0, True), (0.09, True), (0.11, False)])
def test_robot_at_receptacle_nearest_standing_point(dx: float, expected: bool) -> None:
    st = state().at(1.05 - dx, 2.0, 0.0)
    assert evaluate("robot-at-receptacle", ["table|top"], ctx(st)) is expected
    assert evaluate("robot-at-receptacle", ["table|top"], ctx(st), mode=Mode.NO_DISTANCE)


@pytest.mark.parametrize(("yaw_deg", "expected"), [(89.0, True), (91.0, False)])
def test_robot_at_receptacle_angle(yaw_deg: float, expected: bool) -> None:
    st = state().at(1.05, 2.0, yaw_deg).seeing(["table"])
    assert evaluate("robot-at-receptacle", ["table|top"], ctx(st)) is expected


def test_robot_at_receptacle_visibility() -> None:
    blind = state().seeing([])
    assert not evaluate("robot-at-receptacle", ["table|top"], ctx(blind))
    assert evaluate("robot-at-receptacle", ["table|top"], ctx(blind), mode=Mode.NO_VISIBILITY)
    # An item resting on the surface in view is enough.
    assert evaluate("robot-at-receptacle", ["table|top"], ctx(state().seeing(["book"])))
    assert not evaluate("robot-at-receptacle", ["cabinet|top"], ctx(state()))


def test_robot_in_room() -> None:
    st = state()
    assert evaluate("robot-in-room", ["kitchen"], ctx(st))
    assert not evaluate("robot-in-room", ["living"], ctx(st))
    assert evaluate("robot-in-room", ["living"], ctx(st.at(7.0, 2.0)))


def test_total_cost_is_undefined_on_a_state() -> None:
    assert value("total-cost", [], ctx()) is None


@pytest.mark.parametrize("mode", [Mode.STRICT, Mode.NO_VISIBILITY, Mode.NO_DISTANCE])
def test_over_poses_answers_as_each_pose_alone(mode: Mode) -> None:
    # The goal frames ask every frame of a log in one call: a row a pose, each the
    # answer of the robot standing there.
    spots = [(1.05, 2.0, 0.0), (1.05, 2.0, 46.0), (0.95, 2.0, 0.0), (6.6, 2.0, 180.0),
             (1.2, 1.5, 30.0), (2.5, 2.0, 180.0)]
    base = state()
    poses = [base.at(*p).agent for p in spots]
    for name, args in (("robot-at-object", [["mug"], ["book"]]),
                       ("robot-at-receptacle", [["table|top"]])):
        got = REG.evaluate_at_poses(name, args, ctx(base, mode=mode), poses)
        want = [[evaluate(name, a, ctx(base.at(*p), mode=mode)) for p in spots] for a in args]
        assert got.tolist() == want, name
