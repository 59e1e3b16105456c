"""JSON paths: where a value sits in a JSON document, written as people read it,
`objects[3].pose.position[2]`. See docs/architecture.md."""

from __future__ import annotations

from collections.abc import Iterable


def json_path(loc: Iterable[int | str]) -> str:
    """A path of keys and indices (pydantic's error `loc`) as a JSON path:
    ("objects", 3, "id") -> `objects[3].id`. The names pydantic gives the validator
    functions it went through (`function-after[...]`) are no part of the document and are
    left out."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not part.startswith("function-"):
            out += f".{part}" if out else part
    return out
