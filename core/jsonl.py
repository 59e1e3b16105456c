"""JSON and JSONL input: `loads`, JSON parsing bounded by fdc's limits, and JSONL files, one
JSON value a line, each validated as a pydantic model; a bad line is reported, located by
its number and the JSON path of each fault, never raised.

`loads` is `json.loads` for third-party text: nesting deeper than the limit `json_depth`
and numbers longer than `number_digits` are `JsonLimitError`s (a `json.JSONDecodeError`,
so every reader reports them as it reports bad JSON) located by line, column and JSON
path, before Python's recursion or integer-conversion limits can raise. NaN and the
infinities are read as floats, so that the model that does not allow them rejects them
with their JSON path.
See docs/architecture.md.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
    """One non-blank line of a JSONL file: its number (from 1), its text, and the model
    it validates to (None when it did not: `problems` say why, located)."""

    line: int
    text: str
    value: M | None
    problems: tuple[Diagnostic, ...]

    @property
    def raw(self) -> Any:
        """The line's JSON value (None when it is not JSON within the limits)."""
        try:
            return loads(self.text)
        except json.JSONDecodeError:
            return None


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cycle collector paused: reading a large file builds millions of acyclic
    objects (JSON values, models), and a collection each few thousand of them would
    take most of the time (60% of reading a suite of 100,000 tasks)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def gc_kept() -> Iterator[Callable[[], None]]:
    """A region that reads a large file and then works with what it read: the cycle
    collector is paused (`gc_paused`) until the function yielded is called, which leaves
    every object alive then out of the collector's walks until the region ends, while
    it runs again for what is made afterwards. Without it the first collections after a
    read walk all of it, each full one again (7 of the 25 s of CPU `fdc browse` took on
    a suite of 100,000 tasks)."""
    was = gc.isenabled()
    gc.disable()
    frozen = False

    def keep() -> None:
        nonlocal frozen
        if not frozen:
            gc.freeze()
            frozen = True
            if was:
                gc.enable()

    try:
        yield keep
    finally:
        if frozen:
            gc.unfreeze()
        if was:
            gc.enable()


def parse_jsonl(text: str, model: type[M], code: str) -> Iterator[JsonlLine[M]]:
    """Each non-blank line of `text` read as JSON and validated as `model`; a line that
    is not JSON or does not validate comes with every problem it has (each an error with
    `code`), never raises."""
    return parse_jsonl_lines(text.splitlines(), model, code)


def parse_jsonl_lines(lines: Iterable[str], model: type[M], code: str
                      ) -> Iterator[JsonlLine[M]]:
    """`parse_jsonl` of lines given one at a time (numbered from 1), e.g. a file's
    streamed by `fdc.core.inputs.input_lines`: only the line at hand is held."""
    limits = current()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if _within_limits(line, limits.json_depth, limits.number_digits):
            # The fast path: pydantic parses and validates in one pass. A line it refuses
            # takes the slow path, whose problems are worded as they always were.
            try:
                yield JsonlLine(n, line, model.model_validate_json(line), ())
                continue
            except ValidationError:
                pass
        try:
            raw = loads(line)
        except json.JSONDecodeError as e:
            not_json = error(code, f"not JSON: {e.msg} (column {e.colno})", line=n)
            yield JsonlLine(n, line, None, (not_json,))
            continue
        try:
            yield JsonlLine(n, line, model.model_validate(raw), ())
        except ValidationError as e:
            yield JsonlLine(n, line, None, tuple(error(code, err["msg"],
                                                       json_path(err["loc"]), line=n)
                                                 for err in e.errors()))


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
    # Fast paths, in C: a text without a run of number characters longer than the limit
    # has no number past it, so it is parsed without a Python call per number; its depth
    # is read from its brackets (`_within_limits`).
    bounded = _has_run(text, limits.number_digits + 1)
    try:
        value = json.loads(text, parse_int=_bounded(int, limits.number_digits),
                           parse_float=_bounded(float, limits.number_digits),
                           parse_constant=float) if bounded else \
            json.loads(text, parse_constant=float)
    except _TooLong:
        raise _located(text, "number_digits") from None
    except RecursionError:
        raise _located(text, "json_depth") from None
    if not _shallow(text, limits.json_depth) and _deeper_than(text, limits.json_depth):
        raise _located(text, "json_depth") from None
    return value


def _shallow(text: str, depth: int) -> bool:
    """Too few brackets to nest deeper than `depth`."""
    return text.count("[") + text.count("{") <= depth


def _within_limits(text: str, depth: int, digits: int) -> bool:
    """Whether a JSON text is within `json_depth` and `number_digits` (an invalid text
    may be judged either way: its parser says what is wrong with it)."""
    return not _has_run(text, digits + 1) and (_shallow(text, depth)
                                                 or not _deeper_than(text, depth))


#: JSON number characters to `x`, every other ASCII byte to a space.
_NUMBER_BYTES = bytes(ord("x") if chr(b) in "-+0123456789.eE" else ord(" ")
                      for b in range(256))


def _has_run(text: str, n: int) -> bool:
    """Whether `text` holds `n` JSON number characters in a row (a number past the
    limit does; a string may too, and then only costs the slow path)."""
    return b"x" * n in text.encode("utf-8", "surrogatepass").translate(_NUMBER_BYTES)


#: Every byte but a quote or a bracket (deleted to find how deep a text nests).
_NOT_STRUCTURE = bytes(b for b in range(256) if chr(b) not in '"[]{}')
#: Both kinds of bracket as one, `(` and `)`.
_ONE_BRACKET = bytes.maketrans(b"[]{}", b"()()")


def _deeper_than(text: str, depth: int) -> bool:
    """Whether the arrays and objects of a JSON text nest deeper than `depth` (the text
    is valid JSON): its escapes dropped, then all but quotes and brackets, then its
    strings; then each pass removes every innermost pair of brackets, so the passes
    needed are its depth. All in C: a Python step per bracket took a third of the time
    to read a large suite."""
    if "\\" in text:
        text = text.replace("\\\\", "").replace('\\"', "")
    kept = text.encode("utf-8", "surrogatepass").translate(_ONE_BRACKET, _NOT_STRUCTURE)
    brackets = b"".join(kept.split(b'"')[::2])  # the text between strings
    for _ in range(depth):
        inner = brackets.replace(b"()", b"")
        if len(inner) == len(brackets):  # no pair left (not JSON when some are)
            return False
        brackets = inner
    return bool(brackets)


def _bounded(kind: Callable[[str], Any], digits: int) -> Callable[[str], Any]:
    def parse(literal: str) -> Any:
        if len(literal) > digits:
            raise _TooLong
        return kind(literal)
    return parse


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
