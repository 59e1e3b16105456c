"""Names PARTNR episodes bring in never reach PDDL text unchecked: handles are checked
(located errors), room names are mapped to fdc room ids (`living room` ->
`living_room`), episode ids that would make unsafe task ids are replaced by a safe,
deterministic and distinct id; the names changed are kept so the export writes them
back."""

from __future__ import annotations

import copy
import gzip
import json
import re
from typing import Any

from fdc.interop.partnr.episodes import parse_episodes
from fdc.interop.partnr.tasks import export_records, task_record
from fdc.predicates.goal import GCount, to_pddl
from tests.sim_bridge.helpers import FIXTURES

SAMPLE = FIXTURES / "habitat" / "partnr" / "collaboration_episodes_sample.json.gz"
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def episode(**change: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "episode_id": "7", "scene_id": "s",
        "evaluation_propositions": [
            {"function_name": "is_in_room",
             "args": {"object_handles": ["cup_:0000"], "room_ids": ["living room"]}},
            {"function_name": "is_on_top",
             "args": {"object_handles": ["cup_:0000"], "receptacle_handles": ["table_:0001"]}},
        ]}
    return {**base, **change}


def parse(raw: dict[str, Any]) -> Any:
    dataset, findings = parse_episodes({"episodes": [raw]}, "e.json")
    return dataset, findings


def test_a_handle_that_is_pddl_text_is_a_located_error() -> None:
    raw = episode()
    raw["evaluation_propositions"][1]["args"]["receptacle_handles"] = ["a) (or (holding x"]
    dataset, findings = parse(raw)
    assert dataset is None
    assert [f.where for f in findings] == [
        "episodes[0].evaluation_propositions[1].args.receptacle_handles[0]"]
    assert "is not a Habitat handle" in findings[0].message


def test_a_room_name_with_a_space_becomes_the_room_id() -> None:
    dataset, findings = parse(episode())
    assert findings == []
    record = task_record(dataset.episodes[0], "e.json")
    room = record.goal.propositions[0]
    assert isinstance(room, GCount) and room.others == ("living_room",)
    assert "(one-of living_room)" in record.goal_pddl and "living room" not in record.goal_pddl
    assert record.goal_pddl == to_pddl(record.goal)
    assert record.bindings == {"room:living_room": "living room"}
    back, refused = export_records([record])
    assert refused == []
    props = back.episodes[0].evaluation_propositions
    assert props[0].args.room_ids == ["living room"]  # type: ignore[union-attr]
    assert back.episodes[0].episode_id == "7"


def test_unsafe_episode_ids_give_safe_distinct_ids_and_round_trip() -> None:
    ids = []
    for eid in ("../../x", "/abs/x", "a b", "x" * 300, "..", "../../y"):
        dataset, findings = parse(episode(episode_id=eid))
        assert findings == []
        record = task_record(dataset.episodes[0], "e.json")
        assert SAFE_ID.match(record.id), record.id
        assert "/" not in record.id
        assert task_record(dataset.episodes[0], "e.json").id == record.id  # deterministic
        ids.append(record.id)
        back, _ = export_records([record])
        assert back.episodes[0].episode_id == eid
    assert len(set(ids)) == len(ids)


def test_the_real_sample_keeps_its_ids() -> None:
    data = json.loads(gzip.decompress(SAMPLE.read_bytes()))
    dataset, findings = parse_episodes(data)
    assert findings == [] and dataset is not None
    for ep in dataset.episodes:
        if ep.evaluation_propositions:
            assert task_record(ep, "sample").id == f"partnr-{ep.episode_id}"


def test_an_episode_naming_living_room_is_verified_in_the_imported_scene() -> None:
    """PARTNR's `living room` is the room `fdc import habitat` names `living_room`."""
    from tests.interop.test_partnr_verify import World, judge, sample_episode

    raw = sample_episode(1)  # FIRE_ENGINE_:0000 in the bedroom
    named = copy.deepcopy(raw)
    named["evaluation_propositions"][0]["args"]["room_ids"] = ["living room"]
    imported = copy.deepcopy(raw)
    imported["evaluation_propositions"][0]["args"]["room_ids"] = ["living_room"]
    world = World(imported)  # a scene whose room is `living_room`
    verdict = judge(world, [("FIRE_ENGINE_:0000", "living_room")], raw=named)
    assert verdict.success, verdict.reason
