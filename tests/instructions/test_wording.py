"""Wording that misleads though every mention resolves (issue 36): the listener's checks
for each kind, the renderer and describer that no longer write it, and a compiled suite
of the library with none of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fdc.instructions.listen import WORDING, wording
from fdc.instructions.render import EntityText, Renderer


def kinds(text: str) -> list[str]:
    return [k for k, _ in wording(text)]


@pytest.mark.parametrize(("kind", "bad", "good"), [
    ("attachment-ambiguity",
     "Place the blue plate on the table somewhere beside the bowl.",
     "Take the blue plate from the table and place it somewhere beside the bowl."),
    ("attachment-ambiguity",
     "Place the vase on the top of the shelf so it sits in the rear right part of the desk.",
     "Place the vase so it sits in the rear right part of the top of the shelf."),
    ("attachment-ambiguity",
     "Put both the plate in the cabinet and the blue mug next to the bottle.",
     "Put the plate next to the bottle, and put the blue mug next to the bottle as well."),
    ("nested-repetition", "Put the mug on the first shelf of the shelf.",
     "Put the mug on the first level of the shelf."),
    ("nested-repetition", "Put the mug on the second shelf of the metal shelf.",
     "Move the glass that is on the top of the cabinet to the top of the desk."),
    ("punctuation-before-destination",
     "Put the clock that is on the nightstand, in the wardrobe, then close it.",
     "Put the clock in the wardrobe that is next to the bed, then close it."),
    ("punctuation-before-destination",
     "Then move the glass that is on the counter, to its right part.",
     "Put the plate on the table that has a mug on it, in any order."),
    ("stranded-preposition",
     "Return to the spot you lifted what you held at 20:26 yesterday from.",
     "Return to the spot where you lifted what you held at 20:26 yesterday."),
    ("stranded-preposition",
     "Return to the spot the pen you moved yesterday was taken from.",
     "Navigate to a receptacle you picked a pen from."),
])
def test_each_kind_is_flagged_and_its_clean_wording_is_not(kind: str, bad: str,
                                                           good: str) -> None:
    assert kind in WORDING
    assert kind in kinds(bad)
    assert kinds(good) == []


@pytest.mark.parametrize("clean", [
    "Move the green apple between the white towel and the box on the bed.",
    "Put the green apple on a table in the hallway.",
    "Fit the bottle in the gap between those two.",
    "Move everything on the first level of the shelf to the compartment of the cabinet.",
    "Go to the room you took the pen from yesterday.",
    "Go to a receptacle you picked something up from or put something down on yesterday.",
    "Revisit all the receptacles you placed objects on yesterday, in the order you placed "
    "them.",
    "Gather all the apples in one place, on the same surface.",
    "Go to where you put down the object you were carrying at 07:56 yesterday.",
])
def test_plain_sentences_are_not_flagged(clean: str) -> None:
    assert kinds(clean) == []


PLATE = EntityText("blue plate on the table", "plate_0", "the blue plate on the table",
                   relation="on the table", relation_kind="on",
                   clause="the blue plate that is on the table")
GLASS = EntityText("glass on the counter", "glass_0", "the glass on the counter",
                   relation="on the counter", relation_kind="on",
                   clause="the glass that is on the counter")
BOWL = EntityText("bowl", "bowl_0", "the bowl")
SOFA = EntityText("sofa", "sofa", "the sofa")
SHELF = EntityText("first level of the shelf in the bathroom", "shelf|shelf_0",
                   "the first level of the shelf in the bathroom", relation="in the bathroom",
                   relation_kind="in", clause="the first level of the shelf that is in the "
                   "bathroom")


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("Place {{ o | ref }} somewhere beside {{ a | ref }}.", {"o": PLATE, "a": BOWL},
     "Take the blue plate from the table and place it somewhere beside the bowl."),
    ("Place {{ o | ref }} so it sits in the left part of {{ s | ref }}.",
     {"o": PLATE, "s": SOFA},
     "Take the blue plate from the table and place it so it sits in the left part of the "
     "sofa."),
    # two splits in one sentence: the first's "it" does not stop the second
    ("Put {{ a | ref }} on the sofa, then move {{ b | ref }} to the right part of the sofa.",
     {"a": PLATE, "b": GLASS},
     "Take the blue plate from the table and put it on the sofa, then take the glass from "
     "the counter and move it to the right part of the sofa."),
    # a direction after a relative clause needs no comma
    ("Move everything on {{ s | ref }} to {{ d | ref }}.", {"s": SHELF, "d": SOFA},
     "Move everything on the first level of the shelf that is in the bathroom to the "
     "sofa."),
])
def test_the_renderer_writes_no_misleading_wording(text: str, values: dict[str, EntityText],
                                                   expected: str) -> None:
    out = Renderer().render(text, values)
    assert out == expected
    assert kinds(out) == []


def test_a_pronoun_for_another_entity_keeps_the_comma_and_the_listener_warns() -> None:
    out = Renderer().render("Put {{ o | ref }} in the wardrobe, then close it.", {"o": PLATE})
    assert out == "Put the blue plate that is on the table, in the wardrobe, then close it."
    assert kinds(out) == ["punctuation-before-destination"]


def test_a_part_named_as_its_furniture_is_named_by_its_level() -> None:
    from tests.instructions.test_ordinals import describer
    from tests.sim_bridge.helpers import obj

    shelves = [{"name": "shelf_0", "z": 0.3}, {"name": "shelf_1", "z": 0.9}]
    d = describer([obj("shelf", "shelf", (9.5, 1.0, 0.9), (0.5, 0.4, 1.8),
                       kind="furniture", surfaces=shelves),
                   obj("rack", "bookshelf", (9.5, 3.0, 0.9), (0.5, 0.4, 1.8),
                       kind="furniture", surfaces=shelves)])
    names = sorted(d.describe(s).definite for s in d.graph.object("shelf").surfaces)
    assert names == ["the first level of the shelf", "the second level of the shelf"]
    others = sorted(d.describe(s).definite for s in d.graph.object("rack").surfaces)
    assert others == ["the first shelf of the bookshelf", "the second shelf of the bookshelf"]
    for s in d.graph.object("shelf").surfaces:
        assert kinds(f"Put the mug on {d.describe(s).definite}.") == []


def test_a_compiled_suite_of_the_library_has_none(tmp_path: Path) -> None:
    """Every library template, one binding each, on a generated scene: no instruction
    with any kind of misleading wording (and the compile prints no warning of it)."""
    from typer.testing import CliRunner

    from fdc.cli import app
    from fdc.sim_bridge.scene.generate import generate_scene

    scene = tmp_path / "scene.json"
    scene.write_text(generate_scene(rooms=4, objects=80, seed=3).to_json(), encoding="utf-8")
    out = tmp_path / "suite.jsonl"
    result = CliRunner().invoke(app, ["compile", str(scene), "--max-per-template", "1",
                                      "--no-cache", "--no-witness", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning[" not in result.output
    found: dict[str, list[str]] = {k: [] for k in WORDING}
    templates = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        templates.add(record["template"])
        for text in record["instructions"]:
            for kind, _ in wording(text):
                found[kind].append(text)
    assert len(templates) > 80
    assert found == {k: [] for k in WORDING}


def test_the_compile_warns_once_a_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    from typer.testing import CliRunner

    from fdc.cli import app

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    template = tmp_path / "t.pddl"
    template.write_text(
        '(define (template stranded)\n  (:domain fdc-home)\n  (:parameters ?o - movable)\n'
        '  (:goal (holding ?o))\n  (:instruction "Pick up {{ o | ref }} and bring it to '
        'the spot you lifted what you held at noon yesterday from."))\n', encoding="utf-8")
    out = tmp_path / "suite.jsonl"
    result = CliRunner().invoke(app, ["compile", "tests/golden/scenes/kitchen.json",
                                      "--templates", str(template), "--max-per-template",
                                      "2", "--no-cache", "-o", str(out)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if "warning[" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning[stranded-preposition]: 2 instruction(s)")
