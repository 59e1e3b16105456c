"""JSON and JSONL input: `loads`, JSON parsing bounded by fdc's limits, and JSONL files, one
JSON value a line, each validated as a pydantic model; a bad line is reported, located by
its number and the JSON path of each fault, never raised.

`loads` is `json.loads` for third-party text: nesting deeper than the limit `json_depth`
and numbers longer than `number_digits` are `JsonLimitError`s (a `json.JSONDecodeError`,
so every reader reports them as it reports bad JSON) located by line, column and JSON
path, before Python's recursion or integer-conversion limits can raise. NaN and the
infinities are read as floats, so that the model that does not allow them rejects them
with their JSON path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from fdc.core.errors import FdcError
from fdc.core.jsonpath import json_path
from fdc.core.limits import current, hint
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
            raw = loads(line)
        except json.JSONDecodeError as e:
            not_json = error(code, f"not JSON: {e.msg} (column {e.colno})", line=n)
            yield JsonlLine(n, None, None, (not_json,))
            continue
        try:
            yield JsonlLine(n, raw, model.model_validate(raw), ())
        except ValidationError as e:
            yield JsonlLine(n, raw, None, tuple(error(code, err["msg"], json_path(err["loc"]),
                                                      line=n) for err in e.errors()))


class JsonLimitError(FdcError, json.JSONDecodeError):
    """JSON text past one of fdc's limits; `msg` names the limit, the JSON path and how
    to raise it, `lineno` and `colno` say where."""


class _TooLong(FdcError):
    """A number past `number_digits`, raised from inside the parser and then located."""


def loads(text: str | bytes) -> Any:
    """`text` parsed as JSON within the limits `json_depth` and `number_digits`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    limits = current()
    try:
        value = json.loads(text, parse_int=_bounded(int, limits.number_digits),
                           parse_float=_bounded(float, limits.number_digits),
                           parse_constant=float)
    except _TooLong:
        raise _located(text, "number_digits") from None
    except RecursionError:
        raise _located(text, "json_depth") from None
    if _depth_over(value, limits.json_depth):
        raise _located(text, "json_depth") from None
    return value


def _bounded(kind: Callable[[str], Any], digits: int) -> Callable[[str], Any]:
    def parse(literal: str) -> Any:
        if len(literal) > digits:
            raise _TooLong
        return kind(literal)
    return parse


def _depth_over(value: Any, limit: int) -> bool:
    """Whether `value` nests arrays and objects more than `limit` deep (no recursion)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]|-?[0-9][0-9.eE+\-]*')


def _located(text: str, limit: str) -> JsonLimitError:
    """The error for the first place in `text` past `limit` (`json_depth`: an array or
    object opened too deep; `number_digits`: a number too long), with its JSON path."""
    limits = current()
    # Each open container: [its path key so far (index or key), expecting a key].
    stack: list[list[Any]] = []
    for m in _TOKEN.finditer(text):
        token = m.group()
        first = token[0]
        if first in "[{":
            if limit == "json_depth" and len(stack) >= limits.json_depth:
                where = _path(stack)
                return JsonLimitError(
                    f"nested deeper than {limits.json_depth} levels"
                    f"{f' at `{where}`' if where else ''}, the limit `json_depth`; "
                    + hint("json_depth"), text, m.start())
            stack.append([0, False] if first == "[" else [None, True])
        elif first in "]}":
            if stack:
                stack.pop()
        elif first == ",":
            if stack and isinstance(stack[-1][0], int):
                stack[-1][0] += 1
            elif stack:
                stack[-1][1] = True
        elif first == '"':
            if stack and stack[-1][1]:
                stack[-1][0], stack[-1][1] = json.loads(token), False
        elif first != ":" and limit == "number_digits" and len(token) > limits.number_digits:
            where = _path(stack)
            return JsonLimitError(
                f"a number of {len(token)} characters{f' at `{where}`' if where else ''}, "
                f"longer than the limit `number_digits` ({limits.number_digits}); "
                + hint("number_digits"), text, m.start())
    what = "nested too deeply" if limit == "json_depth" else "a number too long"
    return JsonLimitError(f"{what} for the JSON parser; " + hint(limit), text, 0)


def _path(stack: list[list[Any]]) -> str:
    """The JSON path of the innermost open container's current entry, its middle elided
    when long (a path 100 levels deep is read by its ends)."""
    path = json_path(entry[0] for entry in stack if entry[0] is not None)
    return path if len(path) <= 80 else f"{path[:40]}…{path[-36:]}"
