"""Task suites: `suite.jsonl` holds one `TaskRecord` a line.

A task record carries everything needed to run and judge one task without the template
or the compiler: its ground goal (structured, and as PDDL), its instruction variants, the
entities the goal targets, and its provenance. `read_suite` reads a file and reports
every bad line with its number and JSON path; it never raises on bad input.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fdc.predicates.goal import Goal
from fdc.sim_bridge.world.state import AgentPose

SUITE_FORMAT_VERSION = "1.0"


class TaskRecord(BaseModel):
    """One compiled task: a line of `suite.jsonl`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: str = SUITE_FORMAT_VERSION
    id: str = Field(min_length=1, description="Stable: a hash of template, bindings, scene.")
    template: str
    template_file: str | None = None
    template_version: int = 1
    category: str | None = None
    level: int | None = None
    scene: str | None = Field(default=None, description="The scene file the task is for.")
    bindings: dict[str, str] = Field(default_factory=dict, description="Parameter -> entity.")
    goal: Goal
    goal_pddl: str = ""
    instructions: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list, description="The answer set.")
    thresholds: dict[str, float] = Field(
        default_factory=dict, description="Checker thresholds that differ from the defaults."
    )
    tags: list[str] = Field(default_factory=list, description="The template's tags.")
    experience: str | None = Field(
        default=None, description="sha256 of the experience log a memory task is about."
    )
    start: AgentPose | None = Field(
        default=None, description="Where the robot starts (a memory task: where the log ends)."
    )
    valid_frames: list[list[int]] | None = Field(
        default=None,
        description="Memory tasks: the log frames at whose pose the goal holds; one list "
        "(single goal) or one per target, in order (multi-goal).",
    )
    optimal_path_m: float | None = Field(
        default=None,
        description="Memory tasks: the shortest walk from `start` through valid frames "
        "(closest one; legs in order; shortest open tour), for LL-SPL.",
    )
    flags: list[str] = Field(
        default_factory=list, description="Notes for validation (`target-without-valid-frame`)."
    )


@dataclass(frozen=True)
class SuiteProblem:
    """A bad line of a suite file, located."""

    line: int
    where: str  # JSON path inside the line ("" for the line as a whole)
    message: str

    def __str__(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return f"line {self.line}{where}: {self.message}"


def _loc(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class JsonlLine(Generic[M]):
    """One non-blank line of a JSONL file: its number (from 1), the JSON value, and the
    model it validates to (None when it did not: `problems` say why, located)."""

    line: int
    raw: Any
    value: M | None
    problems: tuple[tuple[str, str], ...]  # (JSON path, message)


def parse_jsonl(text: str, model: type[M]) -> Iterator[JsonlLine[M]]:
    """Each non-blank line of `text` read as JSON and validated as `model`; a line that
    is not JSON or does not validate comes with every problem it has, never raises."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            yield JsonlLine(n, None, None, (("", f"not JSON: {e.msg} (column {e.colno})"),))
            continue
        try:
            yield JsonlLine(n, raw, model.model_validate(raw), ())
        except ValidationError as e:
            yield JsonlLine(n, raw, None,
                            tuple((_loc(err["loc"]), err["msg"]) for err in e.errors()))


def parse_suite(text: str) -> tuple[list[TaskRecord], list[SuiteProblem]]:
    """The records of a suite's text, and every problem found (line numbers from 1)."""
    numbered, problems = parse_numbered_suite(text)
    return [r for _, r in numbered], problems


def parse_numbered_suite(text: str
                         ) -> tuple[list[tuple[int, TaskRecord]], list[SuiteProblem]]:
    """`parse_suite`, each record with its line number (from 1)."""
    records: list[tuple[int, TaskRecord]] = []
    problems: list[SuiteProblem] = []
    seen: dict[str, int] = {}
    for got in parse_jsonl(text, TaskRecord):
        record = got.value
        if record is None:
            problems.extend(SuiteProblem(got.line, where, msg) for where, msg in got.problems)
            continue
        if record.id in seen:
            problems.append(SuiteProblem(got.line, "id", f"task id `{record.id}` repeats "
                                         f"line {seen[record.id]}"))
            continue
        seen[record.id] = got.line
        records.append((got.line, record))
    return records, problems


def read_suite(path: str | Path) -> tuple[list[TaskRecord], list[SuiteProblem]]:
    return parse_suite(Path(path).read_text(encoding="utf-8"))


def suite_lines(records: list[TaskRecord]) -> Iterator[str]:
    """Canonical JSON lines (sorted keys): byte-identical for equal records."""
    for r in records:
        yield json.dumps(r.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n"
