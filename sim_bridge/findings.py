"""Findings: what loading, importing and building a scene report instead of raising.

A finding names the JSON path of the offending value (for input errors) and the ids of
the objects involved (for physically odd scenes), so a person can go straight to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Finding(BaseModel):
    """One problem with a scene or an import."""

    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str
    message: str
    #: JSON path of the value concerned, e.g. `objects[3].pose.position[2]` ("" if none).
    path: str = ""
    #: Ids of the objects (or rooms, surfaces) the finding is about.
    objects: tuple[str, ...] = ()
    #: The file the finding is about ("" for the scene being processed).
    file: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def render(self) -> str:
        """`file: path: severity[CODE]: message` on one line."""
        where = ": ".join(p for p in (self.file, self.path) if p)
        head = f"{where}: " if where else ""
        return f"{head}{self.severity.value}[{self.code}]: {self.message}"


def error(code: str, message: str, path: str = "", objects: Iterable[str] = ()) -> Finding:
    return Finding(
        severity=Severity.ERROR, code=code, message=message, path=path, objects=tuple(objects)
    )


def warning(code: str, message: str, path: str = "", objects: Iterable[str] = ()) -> Finding:
    return Finding(
        severity=Severity.WARNING, code=code, message=message, path=path, objects=tuple(objects)
    )


def json_path(loc: Iterable[int | str]) -> str:
    """pydantic's `loc` tuple as a JSON path: ("objects", 3, "id") -> `objects[3].id`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.is_error for f in findings)
