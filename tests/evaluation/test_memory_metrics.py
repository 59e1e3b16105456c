"""FindingDory's memory metrics against values worked out by hand.

The hall: four rooms in a row along x, no walls (a 0-3, m 3-4, b 4-10, c 10-12; y 0-3),
a table in b with a mug on it and a thin screen beside it. Every pose of the hand-made
experiences lies on the row y = 1.55 of navigation-grid centres, so walking distances
are differences of x: the start (where each log ends) is x = 3.55.

Room log (frames: x, room): 0: 0.55 a, 1: 2.55 a, 2: 4.55 b, 3: 6.55 b, 4: 9.55 b,
5: 3.55 m (the end). Room c is never visited.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fdc.compiler.suite import TaskRecord
from fdc.evaluation.memory import (
    MemoryWorld,
    failed_frames,
    frame_problem,
    frames_expected,
    score_frames,
    score_run,
    solvable,
    spl,
    valid_frame_lists,
    walked_m,
)
from fdc.predicates.goal import Goal, GOr, GTargets, Target, atom
from fdc.sim_bridge.graph.routes import Walker
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.world.experience import Experience, ExperienceRecorder
from fdc.sim_bridge.world.state import AgentPose, Snapshot
from tests.sim_bridge.helpers import obj, on_top, room, scene

ROW_Y = 1.55
START = AgentPose(x=3.55, y=ROW_Y, yaw_rad=0.0)
MUG = (8.0, 2.5)
CLEAR = (8.05, ROW_Y, math.pi / 2)  # 0.95 m below the mug, facing it
OCCLUDED = (6.8, ROW_Y, math.atan2(MUG[1] - ROW_Y, MUG[0] - 6.8))  # the screen in between
FAR = (4.55, ROW_Y, math.atan2(MUG[1] - ROW_Y, MUG[0] - 4.55))  # 3.6 m away, in view
AWAY = (9.55, ROW_Y, 0.0)  # 1.9 m away, the mug behind it


def hall() -> SceneGraph:
    objects = [
        obj("table", "table", (8.0, 2.5, 0.375), (0.8, 0.6, 0.75), kind="furniture"),
        on_top("mug_0", "mug", MUG, 0.75, (0.1, 0.1, 0.1)),
        obj("screen", "screen", (7.3, 2.05, 1.0), (0.05, 0.4, 2.0), kind="furniture"),
    ]
    rooms = [room("a", "kitchen", 0, 0, 3, 3), room("m", "hallway", 3, 0, 4, 3),
             room("b", "living_room", 4, 0, 10, 3), room("c", "bedroom", 10, 0, 12, 3)]
    return build_scene_graph(scene(objects, rooms=rooms, agent=(3.55, ROW_Y), walls="none"))


GRAPH = hall()


def room_log() -> Experience:
    rec = ExperienceRecorder(scene="hall")
    for i, (x, r) in enumerate([(0.55, "a"), (2.55, "a"), (4.55, "b"), (6.55, "b"),
                                (9.55, "b"), (3.55, "m")]):
        rec.frame(360.0 + i, AgentPose(x=x, y=ROW_Y, yaw_rad=0.0), room=r)
    return rec.finish()


def mug_log() -> Experience:
    """The robot lifts the mug at frame 1 and puts it back at frame 3: from frame 3 on
    it is at its final place. Frames 4-7 look at it from CLEAR, OCCLUDED, FAR, AWAY."""
    rec = ExperienceRecorder(scene="hall")
    poses = [CLEAR, CLEAR, OCCLUDED, CLEAR, CLEAR, OCCLUDED, FAR, AWAY,
             (START.x, START.y, 0.0)]
    for i, (x, y, yaw) in enumerate(poses):
        rec.frame(360.0 + i, AgentPose(x=x, y=y, yaw_rad=yaw), held="mug_0" if i in (1, 2)
                  else None)
        if i == 1:
            rec.pick("mug_0", "table|top")
        if i == 3:
            rec.place("mug_0", "table|top", position=(MUG[0], MUG[1], 0.8))
    return rec.finish()


ROOMS = MemoryWorld(GRAPH, room_log())
MUGS = MemoryWorld(GRAPH, mug_log())


def task(goal: Goal, valid: list[list[int]], optimal: float | None, ident: str = "t"
         ) -> TaskRecord:
    return TaskRecord(id=ident, template="hand-made", goal=goal, experience="e" * 64,
                      start=START, valid_frames=valid, optimal_path_m=optimal,
                      tags=["memory"])


IN_A, IN_M, IN_B, IN_C = (atom("robot-in-room", r) for r in "ambc")
AT_MUG = atom("robot-at-object", "mug_0")


def both(ordered: bool, second: Goal = IN_B, name: str = "b") -> GTargets:
    return GTargets(ordered=ordered, targets=(Target(entity="a", goal=IN_A),
                                              Target(entity=name, goal=second)))


# ----------------------------------------------------------------------------- SPL itself


@pytest.mark.parametrize(("success", "optimal", "taken", "want"), [
    (True, 2.0, 2.0, 1.0),
    (True, 2.0, 4.0, 0.5),
    (True, 2.0, 1.5, 1.0),  # a walk shorter than L* (a taut path, L* on the grid): capped
    (False, 2.0, 2.0, 0.0),
    (True, 0.0, 0.0, 1.0),  # zero-length optimum, not moved: 0/0 is a perfect score
    (True, 0.0, 3.0, 0.0),  # zero-length optimum, walked anyway
    (True, None, 3.0, 0.0),  # L* undefined (a target without valid frames)
    (True, 2.0, None, 0.0),  # the chosen walk is not walkable
])
def test_spl_by_hand(success: bool, optimal: float | None, taken: float | None,
                     want: float) -> None:
    assert spl(success, optimal, taken) == pytest.approx(want)


lengths = st.floats(min_value=0.0, max_value=1e4, allow_nan=False)


@given(lengths, lengths, lengths)
def test_spl_is_a_fraction_that_never_rewards_a_longer_walk(optimal: float, a: float,
                                                            b: float) -> None:
    short, long = sorted((a, b))
    assert 0.0 <= spl(True, optimal, long) <= spl(True, optimal, short) <= 1.0
    assert spl(True, optimal, optimal) == 1.0
    assert spl(False, optimal, short) == 0.0


# ----------------------------------------------------------------------------- single goal


def test_the_hand_made_optima_are_the_walkers() -> None:
    w = Walker(GRAPH.nav)

    def nodes(*xs: float) -> list[int]:
        return [w.node((x, ROW_Y)) for x in xs]

    start = (START.x, START.y)
    assert w.walk(start, [nodes(4.55, 6.55, 9.55)], "single") == (1.0, True)
    assert w.walk(start, [nodes(0.55, 2.55), nodes(4.55, 6.55, 9.55)], "ordered") == (3.0, True)
    assert w.walk(start, [nodes(0.55, 2.55), nodes(4.55, 6.55, 9.55)], "unordered") == \
        (3.0, True)
    assert w.walk(start, [nodes(0.55, 2.55), []], "ordered") == (None, True)


@pytest.mark.parametrize(("frame", "success", "chosen_m", "hl_spl"), [
    (2, True, 1.0, 1.0),  # the closest valid frame
    (3, True, 3.0, 1 / 3),
    (4, True, 6.0, 1 / 6),
    (1, False, 1.0, 0.0),  # in room a
    (5, False, 0.0, 0.0),  # the start, in room m
])
def test_single_goal_hl_sr_and_spl(frame: int, success: bool, chosen_m: float,
                                   hl_spl: float) -> None:
    t = task(IN_B, [[2, 3, 4]], 1.0)
    s = score_frames(t, [frame], ROOMS)
    assert (s.hl_sr, s.dtg_sr, s.sc_sr) == (success, success, success)
    assert s.chosen_path_m == pytest.approx(chosen_m)
    assert s.hl_spl == pytest.approx(hl_spl, abs=1e-6)
    assert (f"frame {frame}" in s.reason) and (("holds" in s.reason) == success)


@pytest.mark.parametrize(("frame", "hl_spl"), [(1, 1.0), (2, 1.0), (0, 1 / 3), (4, 1 / 6)])
def test_ties_for_the_closest_valid_frame(frame: int, hl_spl: float) -> None:
    # a (frame 1) and b (frame 2) are both 1.0 m from the start: either is optimal.
    t = task(GOr(parts=(IN_A, IN_B)), [[0, 1, 2, 3, 4]], 1.0)
    assert score_frames(t, [frame], ROOMS).hl_spl == pytest.approx(hl_spl, abs=1e-6)


def test_zero_length_optimum() -> None:
    at_start = task(IN_M, [[5]], 0.0)
    s = score_frames(at_start, [5], ROOMS)
    assert s.hl_sr and s.chosen_path_m == 0.0 and s.hl_spl == 1.0
    # a goal that holds at the start and elsewhere: choosing elsewhere succeeds, SPL 0
    either = task(GOr(parts=(IN_M, IN_B)), [[2, 3, 4, 5]], 0.0)
    s = score_frames(either, [3], ROOMS)
    assert s.hl_sr and s.chosen_path_m == 3.0 and s.hl_spl == 0.0


# ----------------------------------------------------------------------------- multi-goal


@pytest.mark.parametrize(("ordered", "frames", "success", "chosen_m", "hl_spl"), [
    (True, [1, 2], True, 3.0, 1.0),  # 3.55 -> 2.55 -> 4.55
    (True, [0, 4], True, 12.0, 0.25),  # 3.55 -> 0.55 -> 9.55
    (True, [2, 1], False, 3.0, 0.0),  # b before a
    (True, [1, 1], False, 1.0, 0.0),  # the second frame reaches nothing new
    (False, [2, 1], True, 3.0, 1.0),  # any order: 3.55 -> 4.55 -> 2.55
    (False, [4, 0], True, 15.0, 0.2),
    (False, [2, 3], False, 3.0, 0.0),  # both in b
])
def test_multi_goal_hl_sr_and_spl(ordered: bool, frames: list[int], success: bool,
                                  chosen_m: float, hl_spl: float) -> None:
    t = task(both(ordered), [[0, 1], [2, 3, 4]], 3.0)
    s = score_frames(t, frames, ROOMS)
    assert s.hl_sr == success
    assert s.chosen_path_m == pytest.approx(chosen_m)
    assert s.hl_spl == pytest.approx(hl_spl, abs=1e-6)


def test_a_failed_ordered_task_says_which_frame_broke_the_order() -> None:
    s = score_frames(task(both(True), [[0, 1], [2, 3, 4]], 3.0), [2, 1], ROOMS)
    assert s.reason == "frame 2 reached `b` before `a`"


@pytest.mark.parametrize("valid", [[[0, 1], []], [[0, 1], [-1]]])
def test_a_target_without_valid_frames_cannot_succeed(valid: list[list[int]]) -> None:
    t = task(both(True, IN_C, "c"), valid, None)
    assert valid_frame_lists(t) == [[0, 1], []] and not solvable(t)
    for frames in ([1, 4], [0, 2], [1, 5]):
        s = score_frames(t, frames, ROOMS)
        assert not s.hl_sr and s.hl_spl == 0.0


# ----------------------------------------------------------------------------- malformed


def test_a_wrong_number_of_frames_is_never_scored() -> None:
    single = task(IN_B, [[2, 3, 4]], 1.0)
    multi = task(both(False), [[0, 1], [2, 3, 4]], 3.0)
    assert frames_expected(single) == 1 and frames_expected(multi) == 2
    assert frame_problem(single, [2, 3], 6) == (
        "wrong-frame-count", "2 frame(s) for a single goal: name exactly 1")
    assert frame_problem(multi, [2], 6) == (
        "wrong-frame-count", "1 frame(s) for 2 targets: name exactly 2")
    assert frame_problem(single, [], 6) is not None  # an empty list is no answer
    assert frame_problem(single, [6], 6) == (
        "frame-out-of-range", "frame(s) 6 outside the history (frames 0 to 5)")
    assert frame_problem(single, [-1], 6) is not None
    assert frame_problem(multi, [1, 2], 6) is None
    with pytest.raises(ValueError, match="name exactly 2"):
        score_frames(multi, [1], ROOMS)
    failed = failed_frames([1], "1 frame(s) for 2 targets: name exactly 2")
    assert not (failed.hl_sr or failed.dtg_sr or failed.sc_sr) and failed.hl_spl == 0.0


# ----------------------------------------------------------------------------- relaxations


@pytest.mark.parametrize(("frame", "hl", "dtg", "sc"), [
    (0, False, False, False),  # before the mug reached its final place (frame 3)
    (4, True, True, True),
    (5, False, True, False),  # hidden behind the screen: only DTG-SR drops visibility
    (6, False, False, True),  # 3.6 m away: only SC-SR drops the distance
    (7, False, False, False),  # facing away: the angle check stays in both
])
def test_dtg_and_sc_relax_one_check_each(frame: int, hl: bool, dtg: bool, sc: bool) -> None:
    t = task(AT_MUG, [[3, 4]], 4.5)
    s = score_frames(t, [frame], MUGS)
    assert (s.hl_sr, s.dtg_sr, s.sc_sr) == (hl, dtg, sc)


def test_task_thresholds_apply() -> None:
    near = task(AT_MUG, [[3, 4]], 4.5).model_copy(update={"thresholds":
                                                          {"object_distance_m": 0.5}})
    assert not score_frames(near, [4], MUGS).hl_sr  # 0.95 m is too far now


def test_hl_sr_agrees_with_the_compilers_valid_frames() -> None:
    """Strict HL-SR at one frame holds exactly at the frames the compiler lists."""
    from fdc.compiler.frames import FrameIndex

    index = FrameIndex(GRAPH, MUGS.after, MUGS.log)
    for goal in (AT_MUG, IN_B, GOr(parts=(IN_A, AT_MUG))):
        index.prepare([a for a in (goal.parts if isinstance(goal, GOr) else (goal,))])
        valid = index.valid_frames(goal)[0]
        t = task(goal, [valid], None)
        got = [f for f in range(MUGS.frame_count) if score_frames(t, [f], MUGS).hl_sr]
        assert got == valid


# ----------------------------------------------------------------------------- low level


def run(*stops: tuple[float, str | None], recorded: list[float] | None = None
        ) -> list[Snapshot]:
    """Snapshots of a walk along the row from the start: (x, action) each."""
    from fdc.compiler.start import start_snapshots

    _, after = start_snapshots(GRAPH, room_log())
    assert after is not None
    out = [after]
    for k, (x, action) in enumerate(stops, 1):
        out.append(after.model_copy(update={
            "step": k, "action": action, "agent": AgentPose(x=x, y=ROW_Y, yaw_rad=0.0),
            "path_length_m": recorded[k - 1] if recorded else 0.0}))
    return out


def test_walked_length_is_the_recorded_distance_or_the_moves() -> None:
    snaps = run((6.55, "navigate"), (4.55, "navigate"), (4.55, "stop"))
    assert walked_m(snaps, 3) == pytest.approx(5.0)  # 3.0 out, 2.0 back; nothing recorded
    assert walked_m(snaps, 1) == pytest.approx(3.0)
    coarse = run((4.55, "stop"), recorded=[2.5])  # the recorder walked a detour
    assert walked_m(coarse, 1) == pytest.approx(2.5)


@pytest.mark.parametrize(("stops", "success", "walked", "ll_spl"), [
    ([(4.55, "navigate"), (4.55, "stop")], True, 1.0, 1.0),
    ([(6.55, "navigate"), (4.55, "navigate"), (4.55, "stop")], True, 5.0, 0.2),
    ([(2.55, "stop")], False, 1.0, 0.0),
    ([(6.55, "navigate")], True, 3.0, 1 / 3),  # no stop: judged at the last snapshot
])
def test_ll_sr_and_spl_single_goal(stops: list[tuple[float, str]], success: bool,
                                   walked: float, ll_spl: float) -> None:
    s = score_run(task(IN_B, [[2, 3, 4]], 1.0), run(*stops), GRAPH, "run.jsonl")
    assert s.ll_sr == success
    assert s.walked_m == pytest.approx(walked)
    assert s.ll_spl == pytest.approx(ll_spl, abs=1e-6)


def test_ll_multi_goal_legs_in_order() -> None:
    t = task(both(True), [[0, 1], [2, 3, 4]], 3.0)
    good = score_run(t, run((2.55, "stop"), (4.55, "navigate"), (4.55, "stop")), GRAPH, "r")
    assert good.ll_sr and good.walked_m == pytest.approx(3.0) and good.ll_spl == 1.0
    wrong = score_run(t, run((4.55, "stop"), (2.55, "stop")), GRAPH, "r")
    assert not wrong.ll_sr and wrong.ll_spl == 0.0 and "before" in wrong.reason
