"""pydantic's error locations as JSON paths."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ValidationError

from fdc.core.jsonpath import json_path


def test_keys_and_indices() -> None:
    assert json_path(("objects", 3, "pose", "position", 2)) == "objects[3].pose.position[2]"
    assert json_path((0, "id")) == "[0].id"
    assert json_path(("open", "counter|top")) == "open.counter|top"
    assert json_path(()) == ""
    assert json_path(iter(["a", "b"])) == "a.b"


def _positive(x: float) -> float:
    if x <= 0:
        raise ValueError("must be positive")
    return x


class _Item(BaseModel):
    size: list[Annotated[float, AfterValidator(_positive)] | str]


def test_validator_names_are_no_part_of_the_path() -> None:
    try:
        _Item.model_validate({"size": [1.0, -2.0]})
    except ValidationError as e:
        (loc,) = [err["loc"] for err in e.errors() if err["type"] == "value_error"]
    assert str(loc[-1]).startswith("function-after")
    assert json_path(loc) == "size[1]"
