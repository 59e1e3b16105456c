"""The room visitation templates of the memory library ask only for rooms the robot's
memory can show: every task's targets have valid frames, and no binding drops because
its goal holds at no frame (`room-not-visited`, a room the robot never entered, did on
every experience). `room-last-first-visited`, which replaced it, asks for the last room
the robot entered for the first time, and a random frame rarely shows it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from fdc.agents.baselines import random_frames_chance
from fdc.compiler.drops import DropCode
from fdc.compiler.options import CompileOptions
from fdc.compiler.pipeline import compile_template
from fdc.compiler.prepare import SceneJob, prepare_scene
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.templates import load_entries
from fdc.sim_bridge.world.experience import final_room, visit_order

ROOT = Path(__file__).resolve().parents[2]
APARTMENT = str(ROOT / "examples" / "scenes" / "apartment.json")
ROOMS = ROOT / "domain" / "templates" / "memory" / "room-visitation.pddl"


@pytest.fixture(scope="module")
def apartment() -> SceneCompiler:
    compiler, _ = prepare_scene(SceneJob(APARTMENT), CompileOptions(seed=0, max_per_template=None))
    return compiler


@pytest.mark.slow
def test_no_room_visitation_binding_lacks_a_valid_frame(apartment: SceneCompiler) -> None:
    entries, check = load_entries([str(ROOMS)])
    assert not check.errors
    assert len(entries) == 7  # FindingDory's category, with fdc's two more
    for entry in entries:
        report = compile_template(apartment, entry, explain=True)
        assert report.error is None, report.error
        for outcome in report.outcomes:
            reason = outcome.reason
            assert reason is None or reason.code is not DropCode.NO_VALID_FRAME, \
                (entry.name, outcome.binding)
        for record in report.records:
            assert record.valid_frames and all(record.valid_frames), record.id


@pytest.mark.slow
def test_the_last_new_room_is_a_task_a_random_frame_rarely_answers(
        apartment: SceneCompiler) -> None:
    log = apartment.experience
    assert log is not None
    order = visit_order(log)
    last = max(order, key=order.__getitem__)
    assert order[last] > 2 and last != final_room(log)  # the apartment's day has one
    entries, _ = load_entries([str(ROOMS)])
    entry = next(e for e in entries if e.name == "room-last-first-visited")
    [record] = compile_template(apartment, entry).records
    assert record.targets == [last]
    assert record.valid_frames == [[f.index for f in log.frames if f.room == last]]
    chance = random_frames_chance(record, len(log.frames))
    assert chance is not None and chance < Fraction(1, 2)
