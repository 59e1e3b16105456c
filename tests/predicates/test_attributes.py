"""Static checkers: category with the type hierarchy, attributes, surfaces, rooms."""

from __future__ import annotations

import pytest

from fdc.predicates.builtin import evaluate
from fdc.predicates.registry import Context, EvaluationError
from tests.predicates.scenes import home

TYPES = {
    "mug": ("tableware",),
    "tableware": ("movable",),
    "apple": ("fruit",),
    "fruit": ("food",),
    "food": ("movable",),
}


def c(**kw: object) -> Context:
    return Context(graph=home(), **kw)  # type: ignore[arg-type]


def test_category_follows_the_type_hierarchy() -> None:
    assert evaluate("is-category", ["mug", "mug"], c())
    assert not evaluate("is-category", ["mug", "tableware"], c())  # no hierarchy given
    typed = c(type_parents=TYPES)
    assert evaluate("is-category", ["mug", "tableware"], typed)
    assert evaluate("is-category", ["apple", "food"], typed)
    assert not evaluate("is-category", ["mug", "food"], typed)


def test_category_of_is_the_own_category_only() -> None:
    typed = c(type_parents=TYPES)
    assert evaluate("category-of", ["mug", "mug"], typed)
    assert not evaluate("category-of", ["mug", "tableware"], typed)  # an ancestor
    assert evaluate("is-category", ["mug", "tableware"], typed)
    assert evaluate("category-of", ["apple", "apple"], c())
    assert not evaluate("category-of", ["apple", "mug"], c())


def test_static_checkers_need_no_state() -> None:
    assert evaluate("has-color", ["mug", "red"], c())


@pytest.mark.parametrize(
    ("pred", "args", "expected"),
    [
        ("category-of", ["book", "book"], True),
        ("has-color", ["mug", "red"], True),
        ("has-color", ["mug", "blue"], False),
        ("has-color", ["book", "white"], True),  # "blue, white" lists two
        ("has-color", ["book", "blue"], True),
        ("has-material", ["mug", "ceramic"], True),
        ("has-material", ["mug", "metal"], False),
        ("has-material", ["tray", "glass-material"], True),
        ("has-shape", ["mug", "cylinder"], True),
        ("has-shape", ["mug", "sphere"], False),
        ("has-shape", ["apple", "sphere"], False),  # no shape attribute
        ("surface-of", ["table|top", "table"], True),
        ("surface-of", ["cabinet|inside", "cabinet"], True),
        ("surface-of", ["table|top", "cabinet"], False),
        ("initially-on", ["mug", "table|top"], True),
        ("initially-on", ["cup", "tray|top"], True),
        ("initially-on", ["cup", "table|top"], False),  # it stands on the tray
        ("initially-on", ["tray", "table|top"], True),
        ("initially-on", ["tray", "tray|top"], False),
        ("initially-on", ["mug", "cabinet|top"], False),
        ("furniture-in-room", ["table", "kitchen"], True),
        ("furniture-in-room", ["sofa", "kitchen"], False),
        ("furniture-in-room", ["sofa", "living"], True),
    ],
)
def test_attribute_facts(pred: str, args: list[str], expected: bool) -> None:
    assert evaluate(pred, args, c()) is expected


def test_unknown_entities_are_errors() -> None:
    with pytest.raises(EvaluationError, match="unknown"):
        evaluate("has-color", ["ghost", "red"], c())
    with pytest.raises(EvaluationError, match="unknown"):
        evaluate("initially-on", ["mug", "attic|top"], c())
    with pytest.raises(EvaluationError, match="unknown room"):
        evaluate("furniture-in-room", ["table", "attic"], c())


def test_an_item_top_belongs_to_its_item() -> None:
    assert evaluate("top-of", ["tray|top", "tray"], c())
    assert not evaluate("top-of", ["tray|top", "cup"], c())
    assert evaluate("top-of", ["basket|top", "basket"], c())


def test_a_low_top_is_within_on_top_m_of_its_items_bottom() -> None:
    # the tray's top is 0.02 m above its bottom, the basket's 0.2 m: a cup on the tray
    # is `on` the table too (within on_top_m = 0.15), one on the basket is not on the floor
    assert evaluate("low-top", ["tray|top"], c())
    assert not evaluate("low-top", ["basket|top"], c())
    assert evaluate("low-top", ["basket|top"], c(thresholds={"on_top_m": 0.25}))


def test_a_top_at_the_bands_very_edge_is_low_whatever_the_float_noise() -> None:
    """The apartment's box_2 is 0.15000000000000002 m tall under the 0.15 m
    band; `low-top` said a box on it was not on the shelf below while the `on` checker,
    on the world's pose, said it was, and the oracle's plan was no certificate
    (`out-all-on-surface-07ebd478c493`). Both allow the geometric rules' slack."""
    g = home()
    s = g.surface("basket|top")
    height = s.z - g.object(s.object_id).bottom_z
    assert evaluate("low-top", ["basket|top"], c(thresholds={"on_top_m": height - 1e-9}))
    assert not evaluate("low-top", ["basket|top"], c(thresholds={"on_top_m": height - 1e-5}))
