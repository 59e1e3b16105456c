"""The experience log model and the history checkers and arg-extreme helpers."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from fdc.predicates.builtin import default_registry, evaluate, value
from fdc.predicates.checkers import memory as mem
from fdc.predicates.checkers.memory import closest, farthest, longest_duration, shortest_duration
from fdc.predicates.registry import Context, EvaluationError
from fdc.schemas import MODELS, schema_json
from fdc.sim_bridge.world import experience as xp
from fdc.sim_bridge.world.experience import Experience, ExperienceRecorder
from fdc.sim_bridge.world.state import AgentPose
from tests.predicates.scenes import home

REG = default_registry()

ROOMS = ["kitchen", "kitchen", "living", "living", "kitchen", "kitchen", "kitchen", "kitchen"]
CLOCK = [600, 601, 603, 604, 606, 607, 609, 615]


def log() -> Experience:
    """mug: table -> sofa (3 min); apple: table -> cabinet top (1 min); book: table ->
    table (6 min). Kitchen 12 min, living room 3 min."""
    rec = ExperienceRecorder(scene="home.json", seed=1)
    pose = AgentPose(x=1.05, y=2.0, yaw_rad=0.0)
    for k, (room, t) in enumerate(zip(ROOMS, CLOCK, strict=True)):
        held = {2: "mug", 3: None, 5: None, 7: None}.get(k)
        rec.frame(
            t,
            pose,
            action=None if k == 0 else "step",
            held=held,
            room=room,
            visible_objects=["mug", "book"],
        )
        if k == 1:
            rec.pick("mug", "table|top")
        elif k == 3:
            rec.place("mug", "sofa|top", (8.5, 3.4, 0.5))
        elif k == 4:
            rec.pick("apple", "table|top")
        elif k == 5:
            rec.place("apple", "cabinet|top", (5.5, 1.0, 0.94))
        elif k == 6:
            rec.pick("book", "table|top")
        elif k == 7:
            rec.place("book", "table|top", (2.3, 2.0, 0.765))
    return rec.finish()


def c(**kw: object) -> Context:
    return Context(graph=home(), experience=log(), **kw)  # type: ignore[arg-type]


def test_history_predicates() -> None:
    cc = c()
    assert evaluate("interacted", ["mug"], cc)
    assert not evaluate("interacted", ["cup"], cc)
    assert evaluate("picked-from", ["mug", "table|top"], cc)
    assert not evaluate("picked-from", ["mug", "sofa|top"], cc)
    assert evaluate("placed-on", ["mug", "sofa|top"], cc)
    assert not evaluate("placed-on", ["apple", "table|top"], cc)
    assert evaluate("next-interaction", ["mug", "apple"], cc)
    assert evaluate("next-interaction", ["apple", "book"], cc)
    assert not evaluate("next-interaction", ["apple", "mug"], cc)
    assert not evaluate("next-interaction", ["mug", "book"], cc)
    assert evaluate("visited", ["living"], cc)
    assert evaluate("initial-room", ["kitchen"], cc)
    assert not evaluate("initial-room", ["living"], cc)
    assert evaluate("final-room", ["kitchen"], cc)


def test_history_functions() -> None:
    cc = c()
    assert [value("interaction-order", [o], cc) for o in ("mug", "apple", "book", "cup")] == [
        1.0,
        2.0,
        3.0,
        None,
    ]
    assert value("interaction-start", ["mug"], cc) == 601
    assert value("interaction-end", ["mug"], cc) == 604
    assert value("interaction-duration", ["book"], cc) == 6
    assert value("interaction-duration", ["cup"], cc) is None
    assert value("time-in-room", ["kitchen"], cc) == 12
    assert value("time-in-room", ["living"], cc) == 3
    assert value("visit-order", ["living"], cc) == 2
    d = value("distance-from-start", ["mug"], cc)
    assert d is not None and d > 7.0  # on the sofa now, through the door
    near = value("distance-from-start", ["book"], cc)
    assert near is not None and near < d


def test_history_needs_a_log() -> None:
    with pytest.raises(EvaluationError, match="experience log"):
        evaluate("interacted", ["mug"], Context(graph=home()))


def test_arg_extremes_report_ties() -> None:
    cc = c()
    items = ["mug", "apple", "book", "cup"]
    assert longest_duration(cc, items).unique == "book"
    assert shortest_duration(cc, items).unique == "apple"
    wide = longest_duration(cc, items, tie_duration_min=3.0)
    assert wide.best == ("book", "mug") and wide.tied and wide.unique is None
    assert "cup" in wide.undefined
    via_ctx = longest_duration(cc.with_thresholds({"tie_duration_min": 3.0}, REG), items)
    assert via_ctx.best == ("book", "mug")
    assert farthest(cc, items[:3]).unique == "mug"
    assert closest(cc, items[:3]).unique == "book"
    tie = closest(cc, ["book", "apple"], tie_distance_m=100.0)
    assert tie.tied and tie.best[0] == "book"


def test_derived_facts() -> None:
    x = log()
    assert xp.interacted_objects(x) == ("mug", "apple", "book")
    assert xp.interacting_at(x, 602.5) == ("mug",)
    assert xp.visited_rooms(x) == ("kitchen", "living")
    assert xp.final_positions(x)["apple"] == (5.5, 1.0, 0.94)


def test_the_log_validates_its_structure() -> None:
    good = json.loads(log().to_json())
    bad = json.loads(log().to_json())
    bad["frames"][2]["index"] = 5
    with pytest.raises(ValidationError, match="numbered from 0"):
        Experience.model_validate(bad)
    bad = json.loads(log().to_json())
    bad["interactions"][0]["place_frame"] = 0
    with pytest.raises(ValidationError, match="before the pick"):
        Experience.model_validate(bad)
    bad = json.loads(log().to_json())
    bad["interactions"].reverse()
    with pytest.raises(ValidationError, match="out of order"):
        Experience.model_validate(bad)
    assert Experience.model_validate(good) == log()
    with pytest.raises(ValueError, match="never picked"):
        ExperienceRecorder(scene="s").place("mug", None)


def test_the_schema_is_exported() -> None:
    assert MODELS["experience"] == "fdc.sim_bridge.world.experience:Experience"
    schema = json.loads(schema_json("experience"))
    assert {"frames", "interactions", "format_version"} <= set(schema["properties"])


def test_what_was_seen_and_when() -> None:
    cc = c()
    assert evaluate("seen", ["mug"], cc)
    assert not evaluate("seen", ["apple"], cc)
    # the mug is held 601-604, the apple 606-607, the book 609-615
    assert evaluate("interacting-at", ["mug", "602"], cc)
    assert evaluate("interacting-at", ["mug", "10:03"], cc)
    assert not evaluate("interacting-at", ["apple", "602"], cc)
    assert evaluate("interacting-at", ["apple", "606.0"], cc)
    # 10:05 and 10:08 fall between two interactions: nothing was held
    assert not any(evaluate("interacting-at", [o, t], cc)
                   for o in ("mug", "apple", "book") for t in ("605", "608"))
    with pytest.raises(EvaluationError, match="no clock time"):
        evaluate("interacting-at", ["mug", "noon"], cc)
    assert mem.clock_time_values(log()) == ("603", "607", "612")  # midpoints, half up


def test_where_items_started_and_ended() -> None:
    cc = c()
    assert evaluate("started-in-room", ["mug", "kitchen"], cc)
    assert not evaluate("started-in-room", ["mug", "living"], cc)
    assert evaluate("ended-in-room", ["mug", "living"], cc)  # put on the sofa
    assert evaluate("ended-in-room", ["apple", "kitchen"], cc)
    assert evaluate("ended-in-room", ["cup", "kitchen"], cc)  # never moved
    assert evaluate("ended-in-room", ["basket", "living"], cc)
    with pytest.raises(EvaluationError, match="unknown entity"):
        evaluate("started-in-room", ["ghost", "kitchen"], cc)
    # an item still held at the end is where the robot is; without a recorded position,
    # where the robot let go of it
    rec = ExperienceRecorder(scene="home.json")
    pose = AgentPose(x=1.05, y=2.0, yaw_rad=0.0)
    rec.frame(600, pose, room="kitchen")
    rec.pick("apple", "table|top")
    rec.frame(601, pose, room="living")
    rec.place("apple", None)
    rec.pick("mug", "table|top")
    held = Context(graph=home(), experience=rec.finish())
    assert evaluate("ended-in-room", ["apple", "living"], held)
    assert evaluate("ended-in-room", ["mug", "living"], held)
    assert not evaluate("ended-in-room", ["mug", "kitchen"], held)


def test_durations_in_whole_minutes() -> None:
    cc = c()
    assert evaluate("took-minutes", ["mug", "3"], cc)
    assert evaluate("took-minutes", ["apple", "1"], cc)
    assert not evaluate("took-minutes", ["apple", "2"], cc)
    assert evaluate("took-minutes", ["book", "6"], cc)
    assert not evaluate("took-minutes", ["cup", "1"], cc)  # never moved
    with pytest.raises(EvaluationError, match="whole number"):
        evaluate("took-minutes", ["mug", "2.5"], cc)
    assert mem.minutes_values(log()) == ("1", "3", "6")
    # rounded as the `duration` filter writes them: 89 s is 1 minute, 90 s is 2
    assert [mem.whole_minutes(m) for m in (89 / 60, 1.5, 0.4, None)] == [1, 2, 0, None]


def test_the_order_surfaces_were_used_in() -> None:
    cc = c()
    assert value("pick-order", ["table|top"], cc) == 1
    assert value("pick-order", ["sofa|top"], cc) is None
    assert [value("place-order", [s], cc) for s in ("sofa|top", "cabinet|top", "table|top")] == [
        1.0,
        2.0,
        3.0,
    ]
    assert value("place-order", ["cabinet|inside"], cc) is None


def test_distances_to_surfaces() -> None:
    cc = c()
    table = value("distance-from-start", ["table|top"], cc)
    sofa = value("distance-from-start", ["sofa|top"], cc)
    assert table is not None and sofa is not None and table < 1.0 < 7.0 < sofa
