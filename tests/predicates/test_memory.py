"""The experience log model and the history checkers and arg-extreme helpers."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from fdc.predicates.memory import closest, farthest, longest_duration, shortest_duration
from fdc.predicates.registry import Context, EvaluationError, evaluate, value
from fdc.schemas import MODELS, schema_json
from fdc.sim_bridge import experience as xp
from fdc.sim_bridge.experience import Experience, ExperienceRecorder
from fdc.sim_bridge.state import AgentPose

from .scenes import home

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
    via_ctx = longest_duration(cc.with_thresholds({"tie_duration_min": 3.0}), items)
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
    assert MODELS["experience"] == "fdc.sim_bridge.experience:Experience"
    schema = json.loads(schema_json("experience"))
    assert {"frames", "interactions", "format_version"} <= set(schema["properties"])
