"""JSONL reading: every bad line located, nothing raised."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from fdc.core.jsonl import parse_jsonl
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
