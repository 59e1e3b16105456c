"""Task suites: `suite.jsonl` holds one `TaskRecord` a line.

A task record carries everything needed to run and judge one task without the template
or the compiler: its ground goal (structured, and as PDDL), its instruction variants, the
entities the goal targets, and its provenance. `read_suite` reads a file and reports
every bad line with its number and JSON path; it never raises on bad input.

A task id names files (`fdc export pddl` writes `<id>.pddl`, `fdc run-baseline` a
trajectory `<id>.jsonl`), so every reader holds it to one rule, `TaskId`: 1 to 128
letters, digits, `.`, `_` or `-`, the first a letter or digit.
See docs/formats/task.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from fdc.core.inputs import InputKind, input_lines, read_input_text
from fdc.core.jsonl import JsonlLine, gc_paused, parse_jsonl, parse_jsonl_lines
from fdc.core.problems import Diagnostic, error
from fdc.predicates.goal import Goal
from fdc.sim_bridge.world.state import AgentPose

SUITE_FORMAT_VERSION = "1.0"

TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
_TASK_ID = re.compile(TASK_ID_PATTERN)


def check_task_id(value: str) -> str:
    """`value` when it is a task id; a validation error saying the rule otherwise."""
    if _TASK_ID.fullmatch(value):
        return value
    shown = json.dumps(value[:60] + ("..." if len(value) > 60 else ""), ensure_ascii=True)
    raise PydanticCustomError(
        "task_id", "{shown} is not a task id: use 1 to 128 letters, digits, `.`, `_` or "
        "`-`, the first a letter or digit (ids name files: no `/`, no leading `.`)",
        {"shown": shown})


def id_prefix(name: str) -> str:
    """`name` made fit to begin a task id: characters the rule refuses become `_`, those
    that may not start an id are dropped, and it is cut to 100 characters ("task" when
    nothing is left)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip("._-")[:100]
    return safe or "task"


TaskId = Annotated[str, AfterValidator(check_task_id),
                   Field(json_schema_extra={"pattern": TASK_ID_PATTERN})]


class TaskRecord(BaseModel):
    """One compiled task: a line of `suite.jsonl`."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    format_version: str = SUITE_FORMAT_VERSION
    id: TaskId = Field(description="Stable: a hash of template, bindings, scene.")
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


#: The tags of a memory-manipulation task's record (`fdc compile` adds those its
#: template lacks).
MEMORY_MANIPULATION_TAGS = ("memory", "manipulation")


def is_memory_manipulation(record: TaskRecord) -> bool:
    """A task about the experience that is done by acting: it starts where the
    experience ends (`experience` set) and is tagged `manipulation`. It has no goal
    frames; it is planned, acted out and scored as a manipulation task from the world
    the experience left behind."""
    return record.experience is not None and "manipulation" in record.tags


def parse_suite(text: str) -> tuple[list[TaskRecord], list[Diagnostic]]:
    """The records of a suite's text, and every problem found (line numbers from 1)."""
    numbered, problems = parse_numbered_suite(text)
    return [r for _, r in numbered], problems


def parse_numbered_suite(text: str, texts: list[str] | None = None
                         ) -> tuple[list[tuple[int, TaskRecord]], list[Diagnostic]]:
    """`parse_suite`, each record with its line number (from 1); `texts`, when given,
    gets each record's line as the file holds it (stripped)."""
    records: list[tuple[int, TaskRecord]] = []
    problems: list[Diagnostic] = []
    seen: dict[str, int] = {}
    with gc_paused():
        for got in parse_jsonl(text, TaskRecord, "schema"):
            record = got.value
            if record is None:
                problems.extend(got.problems)
                continue
            if record.id in seen:
                problems.append(error("schema", f"task id `{record.id}` repeats line "
                                      f"{seen[record.id]}", "id", line=got.line))
                continue
            seen[record.id] = got.line
            records.append((got.line, record))
            if texts is not None:
                texts.append(got.text.strip())
    return records, problems


def stream_suite(path: str | Path) -> Iterator[JsonlLine[TaskRecord]]:
    """A suite file's lines one at a time, as `parse_numbered_suite` reads them: each
    line's record, or the problems of a line that holds none (a task id that repeats an
    earlier line's is one). Only the ids seen so far are kept, whatever the file's size.
    A file that cannot be opened raises `InputFileError` here; bytes that are not UTF-8
    raise it from the iteration, where they start."""
    return _checked_ids(parse_jsonl_lines(input_lines(path, InputKind.SUITE), TaskRecord,
                                          "schema"))


def _checked_ids(lines: Iterator[JsonlLine[TaskRecord]]) -> Iterator[JsonlLine[TaskRecord]]:
    seen: dict[str, int] = {}
    for got in lines:
        record = got.value
        if record is not None and record.id in seen:
            repeat = error("schema", f"task id `{record.id}` repeats line {seen[record.id]}",
                           "id", line=got.line)
            yield JsonlLine(got.line, got.text, None, (repeat,))
            continue
        if record is not None:
            seen[record.id] = got.line
        yield got


def read_suite(path: str | Path) -> tuple[list[TaskRecord], list[Diagnostic]]:
    """`parse_suite` of a file (an unreadable file raises `InputFileError`)."""
    return parse_suite(read_input_text(path, InputKind.SUITE))


def suite_lines(records: list[TaskRecord]) -> Iterator[str]:
    """Canonical JSON lines (sorted keys): byte-identical for equal records."""
    for r in records:
        yield json.dumps(r.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n"
