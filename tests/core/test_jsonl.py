"""JSON and JSONL reading: every bad line located, nothing raised; JSON past the limits
json_depth and number_digits a located error."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from fdc.core.jsonl import JsonLimitError, loads, parse_jsonl
from fdc.core.problems import Severity, render_line


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    n: int = 0


def test_good_lines_validate_with_their_numbers() -> None:
    got = list(parse_jsonl('{"id": "a"}\n\n  \n{"id": "b", "n": 2}\n', _Row, "bad-line"))
    assert [(g.line, g.value) for g in got] == [(1, _Row(id="a")), (4, _Row(id="b", n=2))]
    assert got[1].raw == {"id": "b", "n": 2} and got[1].problems == ()


def test_bad_lines_come_with_every_problem_located() -> None:
    text = '{"id": "a"\n{"n": "x", "extra": 1}\n[1]\n'
    got = list(parse_jsonl(text, _Row, "schema"))
    assert [g.value for g in got] == [None, None, None]
    assert got[1].raw == {"n": "x", "extra": 1}
    rendered = [[render_line(p) for p in g.problems] for g in got]
    assert rendered[0] == ["line 1: not JSON: Expecting ',' delimiter (column 11)"]
    assert rendered[1] == [
        "line 2 at id: Field required",
        "line 2 at n: Input should be a valid integer, unable to parse string as an integer",
        "line 2 at extra: Extra inputs are not permitted",
    ]
    assert len(rendered[2]) == 1 and rendered[2][0].startswith("line 3: Input should be")
    every = [p for g in got for p in g.problems]
    assert {(p.code, p.severity) for p in every} == {("schema", Severity.ERROR)}


# ----- loads: JSON within the limits json_depth and number_digits ---------------------


def test_nesting_past_the_limit_is_located_before_python_recurses() -> None:
    with pytest.raises(JsonLimitError) as e:
        loads('{"objects": [{"pose": ' + "[" * 100_000)
    assert (e.value.lineno, e.value.colno) == (1, 120)  # the 101st opening
    assert e.value.msg.startswith("nested deeper than 100 levels at `objects[0].pose[0][0]")
    assert "the limit `json_depth`; raise the limit with `fdc --limit json_depth=N" in e.value.msg
    assert loads("[" * 100 + "]" * 100) is not None  # at the limit is fine


def test_numbers_past_the_limit_are_located_before_int_conversion() -> None:
    text = '{"a": [1, 2],\n "b": {"c": ' + "9" * 5000 + "}}"
    with pytest.raises(JsonLimitError) as e:
        loads(text)
    assert (e.value.lineno, e.value.colno, e.value.msg.split(",")[0]) == (
        2, 13, "a number of 5000 characters at `b.c`")
    assert loads("1" * 100) == int("1" * 100)
    with pytest.raises(JsonLimitError):
        loads("0." + "1" * 200)


def test_non_finite_numbers_are_read_as_floats_for_the_model_to_reject() -> None:
    assert [str(v) for v in loads("[NaN, Infinity, -Infinity]")] == ["nan", "inf", "-inf"]


def test_jsonl_lines_past_the_limits_are_bad_lines() -> None:
    [got] = list(parse_jsonl('{"id": ' + "[" * 5000 + "\n", _Row, "schema"))
    assert got.value is None
    assert render_line(got.problems[0]).startswith("line 1: not JSON: nested deeper than 100")


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) |
                    st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=20),
       st.integers(0, 3000), st.sampled_from(["[", '{"k": ', '[{"a": 1}, ']),
       st.integers(1, 6000))
def test_hostile_json_parses_or_is_a_located_limit_error(value: object, depth: int,
                                                         opener: str, digits: int) -> None:
    """Any JSON, wrapped `depth` deep, with a number of `digits` digits: a value or a
    `JsonLimitError` with a line and column, never RecursionError or ValueError."""
    closer = {"[": "]", '{"k": ': "}", '[{"a": 1}, ': "]"}[opener]
    text = opener * depth + json.dumps([value, int("7" * digits) if digits < 4000 else 0])
    text = text.replace(" 0]", " " + "7" * digits + "]") + closer * depth
    try:
        loads(text)
    except JsonLimitError as e:
        assert e.lineno >= 1 and e.colno >= 1
        assert "json_depth" in e.msg or "number_digits" in e.msg
    else:
        assert depth < 100 and digits <= 100


def _walk_depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_walk_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_walk_depth, value), default=0)
    return 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ax\n'),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner, max_size=3), max_leaves=20)


@given(_JSON)
def test_the_depth_read_from_text_is_the_depth_of_the_value(value: object) -> None:
    """`loads` finds how deep a text nests from its characters (strings and escapes
    left out): the same depth as a walk of the parsed value."""
    from fdc.core.jsonl import _deeper_than

    depth = _walk_depth(value)
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        assert [_deeper_than(text, d) for d in range(depth + 2)] == \
            [d < depth for d in range(depth + 2)]


def test_a_deep_text_is_judged_without_a_pass_per_level() -> None:
    """Past the limit the passes stop: a text nested 10,000 deep is judged at once."""
    from fdc.core.jsonl import _deeper_than

    text = "[" * 10_000 + "]" * 10_000
    assert _deeper_than(text, 100) and not _deeper_than("[" * 5 + "]" * 5, 5)


def test_what_a_region_read_is_kept_out_of_the_collectors_walks() -> None:
    """`gc_kept`: the collector paused while reading, what was read frozen (the collector
    running again for the rest), all as it was at the end, an error too."""
    import gc

    from fdc.core.jsonl import gc_kept

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(KeyError), gc_kept() as keep:
        read = [[k] for k in range(1000)]
        assert not gc.isenabled()
        keep()
        assert gc.isenabled() and gc.get_freeze_count() >= len(read)
        raise KeyError("an error inside")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with gc_kept():
        assert not gc.isenabled()
    assert gc.isenabled()
