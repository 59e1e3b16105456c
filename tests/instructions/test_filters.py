"""fdc's Jinja filters: articles, plurals, ordinals for every n, clock times, durations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fdc.instructions.filters import (
    clock,
    direction,
    duration,
    join_list,
    number_word,
    ordinal,
    ordinal_word,
    plural,
    ref,
    with_article,
)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("apple", "an apple"),
        ("mug", "a mug"),
        ("hour glass", "an hour glass"),
        ("unicorn", "a unicorn"),
        ("umbrella", "an umbrella"),
        ("one-way sign", "a one-way sign"),
        ("European plate", "a European plate"),
        ("LED lamp", "an LED lamp"),
        ("USB stick", "a USB stick"),
    ],
)
def test_articles(word: str, expected: str) -> None:
    assert with_article(word) == expected


@pytest.mark.parametrize(
    ("noun", "n", "expected"),
    [
        ("mug", 2, "mugs"),
        ("mug", 1, "mug"),
        ("box", 3, "boxes"),
        ("glass", 2, "glasses"),
        ("shelf", 2, "shelves"),
        ("knife", 2, "knives"),
        ("berry", 2, "berries"),
        ("toy", 2, "toys"),
        ("person", 2, "people"),
        ("coffee mug", 2, "coffee mugs"),
        ("cup of tea", 2, "cups of tea"),
        ("potato", 2, "potatoes"),
        ("cutlery", 2, "cutlery"),
    ],
)
def test_plurals(noun: str, n: int, expected: str) -> None:
    assert plural(noun, n) == expected


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
        (0, "0th"),
    ],
)
def test_ordinals(n: int, expected: str) -> None:
    assert ordinal(n) == expected


@given(st.integers(min_value=0, max_value=10**6))
def test_ordinal_suffix_rule_for_every_n(n: int) -> None:
    suffix = ordinal(n)[len(str(n)) :]
    if n % 100 in (11, 12, 13):
        assert suffix == "th"
    else:
        assert suffix == {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, "first"),
        (2, "second"),
        (3, "third"),
        (5, "fifth"),
        (8, "eighth"),
        (9, "ninth"),
        (12, "twelfth"),
        (20, "twentieth"),
        (21, "twenty-first"),
        (42, "forty-second"),
        (99, "ninety-ninth"),
        (100, "100th"),
    ],
)
def test_ordinal_words(n: int, expected: str) -> None:
    assert ordinal_word(n) == expected


def test_number_words() -> None:
    assert [number_word(n) for n in (0, 7, 15, 40, 73)] == [
        "zero",
        "seven",
        "fifteen",
        "forty",
        "seventy-three",
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(425, "07:05"), (0, "00:00"), (22 * 60, "22:00"), (6 * 60 + 9.6, "06:10"), ("7:5", "07:05")],
)
def test_clock_is_zero_padded(value: object, expected: str) -> None:
    assert clock(value) == expected


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        (1, "minutes", "1 minute"),
        (5, "minutes", "5 minutes"),
        (65, "minutes", "1 hour 5 minutes"),
        (120, "minutes", "2 hours"),
        (30, "seconds", "30 seconds"),
        (1, "seconds", "1 second"),
        (90, "seconds", "2 minutes"),
    ],
)
def test_durations_carry_their_unit(value: float, unit: str, expected: str) -> None:
    assert duration(value, unit) == expected


def test_lists() -> None:
    assert join_list([]) == ""
    assert join_list(["a"]) == "a"
    assert join_list(["a", "b"]) == "a and b"
    assert join_list(["a", "b", "c"]) == "a, b and c"
    assert join_list(["a", "b", "c"], "or", oxford=True) == "a, b, or c"


def test_directions_are_relative_to_the_viewer() -> None:
    assert direction("left", "front") == "left"
    # Standing at the surface's left side, its left is the near side, its front my right.
    assert direction("left", "left") == "front"
    assert direction("front", "left") == "right"
    assert direction("rear-right", "rear") == "front-left"
    assert direction("front", "front", words=True) == "near side"
    with pytest.raises(ValueError, match="direction needs"):
        direction("up", "front")


def test_ref() -> None:
    assert ref("the red mug") == "the red mug"
    assert ref({"description": "the mug"}) == "the mug"
    with pytest.raises(ValueError, match="ref needs"):
        ref(3)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("8-inch plate", "an 8-inch plate"),
        ("11 mugs", "an 11 mugs"),
        ("18th", "an 18th"),
        ("1,800 cups", "a 1,800 cups"),
        ("110 cups", "a 110 cups"),
        ("x-ray", "an x-ray"),
        ("B-movie", "a B-movie"),
        ("F", "an F"),
        ("u-turn", "a u-turn"),
    ],
)
def test_articles_for_numbers_and_letters(word: str, expected: str) -> None:
    assert with_article(word) == expected


def test_duration_rounds_half_up_and_rejects_negatives() -> None:
    assert duration(59.6, "seconds") == "1 minute"
    assert duration(150, "seconds") == "3 minutes"
    with pytest.raises(ValueError, match="non-negative"):
        duration(-5)
