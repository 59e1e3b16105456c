"""JSONL files: one JSON value a line, each validated as a pydantic model; a bad line is
reported, located by its number and the JSON path of each fault, never raised."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from fdc.core.jsonpath import json_path
from fdc.core.problems import Diagnostic, error

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class JsonlLine(Generic[M]):
    """One non-blank line of a JSONL file: its number (from 1), the JSON value, and the
    model it validates to (None when it did not: `problems` say why, located)."""

    line: int
    raw: Any
    value: M | None
    problems: tuple[Diagnostic, ...]


def parse_jsonl(text: str, model: type[M], code: str) -> Iterator[JsonlLine[M]]:
    """Each non-blank line of `text` read as JSON and validated as `model`; a line that
    is not JSON or does not validate comes with every problem it has (each an error with
    `code`), never raises."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            not_json = error(code, f"not JSON: {e.msg} (column {e.colno})", line=n)
            yield JsonlLine(n, None, None, (not_json,))
            continue
        try:
            yield JsonlLine(n, raw, model.model_validate(raw), ())
        except ValidationError as e:
            yield JsonlLine(n, raw, None, tuple(error(code, err["msg"], json_path(err["loc"]),
                                                      line=n) for err in e.errors()))
