"""The limits: each named, documented, settable as NAME=VALUE, and reset by tests."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest

from fdc.core.limits import LimitError, Limits, current, limit_names, set_current
from tests.cli.helpers import REPO


def test_every_limit_has_a_docstring_and_a_row_in_docs_limits() -> None:
    source = (REPO / "core" / "limits.py").read_text()
    table = (REPO / "docs" / "limits.md").read_text()
    for f in fields(Limits):
        assert re.search(rf"    {f.name}: \w+ = .*\n    \"\"\"", source), f.name
        assert f"| `{f.name}` |" in table, f.name


def test_settings_parse_names_values_and_suffixes() -> None:
    limits = Limits().with_setting("scene_bytes=2M").with_setting("json-depth = 7")
    assert (limits.scene_bytes, limits.json_depth) == (2 * 1024 * 1024, 7)
    assert Limits().with_setting("render_seconds=0.5").render_seconds == 0.5


@pytest.mark.parametrize(("setting", "message", "hint"), [
    ("scene_byte=3", "unknown limit `scene_byte`", "did you mean `scene_bytes`?"),
    ("scene_bytes", "--limit wants NAME=VALUE, not `scene_bytes`", "e.g. `fdc --limit"),
    ("json_depth=-1", "limit `json_depth` wants a positive integer, not `-1`", ""),
    ("json_depth=1.5", "limit `json_depth` wants a positive integer, not `1.5`", ""),
    ("render_seconds=inf", "limit `render_seconds` wants a positive number of seconds, "
     "not `inf`", ""),
    ("scene_bytes=xM", "limit `scene_bytes` wants a positive integer (K, M, G suffixes "
     "allowed), not `x`", ""),
])
def test_bad_settings_name_the_fault(setting: str, message: str, hint: str) -> None:
    with pytest.raises(LimitError) as e:
        Limits().with_setting(setting)
    assert e.value.message == message
    assert e.value.hint.startswith(hint)


def test_set_current_returns_the_limits_it_replaces() -> None:
    tight = Limits(json_depth=3)
    previous = set_current(tight)
    try:
        assert current() is tight and previous == Limits()
    finally:
        set_current(previous)
    assert current() == Limits()
    assert limit_names()[0] == "scene_bytes"
