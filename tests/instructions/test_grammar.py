"""The grammar of instructions: articles, number, pronouns, prepositions by what the
target is, typography, and the warnings `fdc check` gives for each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.instructions.filters import all_the, it, off, on
from fdc.instructions.render import EntityText, Renderer, polish

SHELF = EntityText("top of the shelf", "shelf|top", "the top of the shelf")
DRAWER = EntityText("lower compartment of the fridge", "fridge|lower",
                    "the lower compartment of the fridge", inside=True)
APPLE = EntityText("apple", "apple_0", "the apple")


def test_preposition_by_what_the_target_is() -> None:
    assert on(SHELF) == "on the top of the shelf"
    assert on(DRAWER) == "in the lower compartment of the fridge"
    assert off(SHELF) == "off the top of the shelf"
    assert off(DRAWER) == "out of the lower compartment of the fridge"


def test_article_by_sound() -> None:
    out = Renderer().render("Go to {{ o | a }}.", {"o": APPLE})
    assert out == "Go to an apple."
    assert APPLE.indefinite == "an apple"


@pytest.mark.parametrize(("n", "expected"), [(1, "the mug"), (2, "both mugs"),
                                             (5, "all the mugs")])
def test_number_by_the_size_of_the_set(n: int, expected: str) -> None:
    assert all_the("mug", n) == expected
    assert Renderer().render("Clear {{ c | all_the(n) }} off it.",
                             {"c": "mug", "n": n}) == f"Clear {expected} off it."


def test_pronoun_filter() -> None:
    assert it(APPLE) == "it"
    assert it(APPLE, 3) == "them"
    text = "Open {{ f | ref }}, then close {{ f | it }}."
    assert Renderer().render(text, {"f": DRAWER}) == \
        "Open the lower compartment of the fridge, then close it."


@pytest.mark.parametrize(("raw", "expected"), [
    ("put  the mug on the desk .", "Put the mug on the desk."),
    ("go ,, now.", "Go, now."),
    ("stop,.", "Stop."),
    ("wait... then go..", "Wait... then go."),
    ("at 07:05 , go", "At 07:05, go"),
])
def test_typography(raw: str, expected: str) -> None:
    assert polish(raw) == expected


def _check(tmp_path: Path, instruction: str, params: str = "?o - movable ?k - category"
           ) -> list[str]:
    from fdc.compiler.check import check_paths

    path = tmp_path / "t.pddl"
    path.write_text(f'(define (template t)\n  (:domain fdc-home)\n  (:parameters {params})\n'
                    f'  (:goal (holding ?o))\n  (:instruction "{instruction}"))\n')
    return [d.code for d in check_paths([str(path)]).diagnostics]


def test_check_warns_on_an_article_before_a_placeholder(tmp_path: Path) -> None:
    assert _check(tmp_path, "Go to a {{ o }} that is {{ k }}.") == ["J608"]
    assert _check(tmp_path, "Go to an {{ k }} thing, {{ o | ref }}.") == ["J608"]
    assert _check(tmp_path, "Go to {{ o | a }}, a {{ k | a }} one.") == []


def test_check_warns_on_the_plural_of_one_entity(tmp_path: Path) -> None:
    assert _check(tmp_path, "Go to the {{ o | plural }}, {{ k }}.") == ["J609"]
    assert _check(tmp_path, "Go to the {{ k | plural }}, {{ o | ref }}.") == []
    assert _check(tmp_path, "Go to {{ k | all_the(2) }}, {{ o | ref }}.") == []


def test_check_still_refuses_unknown_filters(tmp_path: Path) -> None:
    assert _check(tmp_path, "Go to {{ o | reff }}, {{ k }}.") == ["J603"]


BOOK = EntityText("book on the nightstand", "book_0", "the book on the nightstand",
                  relation="on the nightstand", relation_kind="on",
                  clause="the book that is on the nightstand")
BOX = EntityText("box on the bed", "box_0", "the box on the bed", inside=True,
                 relation="on the bed", relation_kind="on",
                 clause="the box that is on the bed")
COUNTER = EntityText("counter next to the fridge", "counter_1",
                     "the counter next to the fridge", relation="next to the fridge",
                     relation_kind="near", clause="the counter that is next to the fridge")


def test_split_sentence_for_an_object_taken_from_somewhere() -> None:
    out = Renderer().render("Put {{ o | ref }} {{ c | on }}.", {"o": BOOK, "c": BOX})
    assert out == "Take the book from the nightstand and put it in the box that is on the bed."


def test_relative_clause_next_to_another_place() -> None:
    r = Renderer()
    assert r.render("Put the pen on the left side of {{ o | ref }}.", {"o": BOOK}) == \
        "Put the pen on the left side of the book that is on the nightstand."
    assert r.render("Put both {{ c | ref }} and {{ o | ref }} next to the lamp.",
                    {"o": BOOK, "c": COUNTER}) == \
        "Put both the counter next to the fridge and the book that is on the " \
        "nightstand, next to the lamp."


def test_one_relation_alone_stays_short() -> None:
    assert Renderer().render("Go to {{ o | ref }}.", {"o": BOOK}) == \
        "Go to the book on the nightstand."


def test_every_library_template_has_three_variants() -> None:
    from fdc.compiler.templates import load_entries

    entries, _ = load_entries(None)
    assert [e.template.name for e in entries if len(set(e.texts)) < 3] == []


def test_variety_counts_texts_and_distinct_bigrams() -> None:
    from fdc.compiler.emit import variety

    assert variety([]) == (0, 0.0)
    assert variety(["Go to the mug.", "Go to the mug."]) == (1, 0.5)
    assert variety(["Go to the mug.", "Fetch the red cup."]) == (2, 1.0)
    # a streamed suite's manifest keeps each distinct text with its count: same figures
    texts = ["Go to the mug.", "Go to the mug.", "Fetch the red cup.", "Go to the cup."]
    assert variety({"Go to the mug.": 2, "Fetch the red cup.": 1, "Go to the cup.": 1}) \
        == variety(texts)
