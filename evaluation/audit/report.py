"""The audit report (format 1.0): each task's checks, the agreement matrix per category
and per template, every disagreement with its reproducer commands; as JSON (the
`AuditReport` model, `fdc schema audit-report`) or JUnit XML.

The report holds no time and no path that the run did not name, so the same suite
audited twice gives the same report, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fdc.core.streams import json_list_chunks, junit_chunks
from fdc.core.version import __version__

from .checks import CHECKS, DEFAULT_CHANCE_BOUND, TaskAudit

AUDIT_REPORT_VERSION = "1.0"
#: The matrix's name for tasks without a category.
NO_CATEGORY = "(none)"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckResult(_Model):
    """One check's result on one task."""

    status: Literal["agree", "disagree", "n/a"] = Field(
        description="`agree`: the models agree; `disagree`: they do not; `n/a`: the check "
        "does not apply to this task (the detail says why).")
    detail: str = Field(default="", description="What the check found, in words.")


class TaskResult(_Model):
    id: str
    line: int = Field(description="The record's line in the suite (from 1).")
    template: str
    category: str | None = None
    level: int | None = None
    memory: bool = Field(description="A memory task (it starts where the experience ends).")
    checks: dict[str, CheckResult] = Field(description="Every check, by name, in the "
                                           "order of `AuditReport.checks`.")


class Cell(_Model):
    """How many tasks of a group a check agreed and disagreed on (`n/a` not counted)."""

    agree: int = 0
    disagree: int = 0


class MatrixRow(_Model):
    group: str = Field(description="A category, a template, or `all`.")
    tasks: int
    cells: dict[str, Cell] = Field(description="Per check, by name.")


class Disagreement(_Model):
    """A check on which the models disagree about a task, and how to see it again."""

    task: str
    line: int
    template: str
    category: str | None = None
    check: str
    detail: str
    commands: list[str] = Field(description="The fdc command lines that show it, run from "
                                "the folder `fdc audit` was run in.")


class AuditReport(_Model):
    """The result of `fdc audit` (format 1.0)."""

    format_version: Literal["1.0"] = "1.0"
    kind: Literal["fdc-audit-report"] = "fdc-audit-report"
    fdc_version: str = __version__
    suite: str
    seed: int = Field(description="The random agent's seed.")
    chance_bound: float = Field(description="The largest chance of success a random "
                                "answer to a memory task may have.")
    checks: dict[str, str] = Field(description="Every check, by name, and what it asks.")
    tasks: int
    agreements: int = Field(description="(task, check) pairs on which the models agree.")
    disagreeing: int = Field(description="(task, check) pairs on which they do not.")
    reproducers: str | None = Field(
        default=None, description="The folder of one-task suites the commands use.")
    total: MatrixRow
    by_category: list[MatrixRow]
    by_template: list[MatrixRow]
    disagreements: list[Disagreement]
    task_results: list[TaskResult]

    @property
    def ok(self) -> bool:
        return self.disagreeing == 0


def build_report(suite: str, audits: Sequence[TaskAudit], seed: int,
                 commands: Callable[[TaskAudit, str], list[str]],
                 reproducers: str | None = None,
                 chance_bound: float = DEFAULT_CHANCE_BOUND) -> AuditReport:
    """The report of a run: `commands(audit, check)` gives a disagreement's reproducer."""
    results = [task_result(a) for a in audits]
    found = [Disagreement(task=a.record.id, line=a.line, template=a.record.template,
                          category=a.record.category, check=k, detail=o.detail,
                          commands=commands(a, k))
             for a in audits for k, o in a.outcomes.items() if o.status == "disagree"]
    pairs = [c for r in results for c in r.checks.values()]
    return AuditReport(
        suite=suite, seed=seed, chance_bound=chance_bound, checks=dict(CHECKS),
        tasks=len(results),
        agreements=sum(c.status == "agree" for c in pairs), disagreeing=len(found),
        reproducers=reproducers, total=_row("all", results),
        by_category=_rows(results, lambda r: r.category or NO_CATEGORY),
        by_template=_rows(results, lambda r: r.template),
        disagreements=found, task_results=results)


def task_result(a: TaskAudit) -> TaskResult:
    """A task's audit as the report lists it."""
    return TaskResult(
        id=a.record.id, line=a.line, template=a.record.template, category=a.record.category,
        level=a.record.level, memory=a.memory,
        checks={k: CheckResult(status=o.status, detail=o.detail) for k, o in a.outcomes.items()})


class AuditStream:
    """`build_report`'s report with its task results read a task at a time: `audits()`
    gives the run's audits again at each call (read back from the cache, say). A first
    reading makes `header` (the report without its task results: the counts, the matrix,
    the disagreements and their commands); `json_chunks` and `junit_chunks` are the bytes
    of the whole report's `model_dump_json(indent=2)` and `junit_xml`, in pieces. Held in
    memory: the header (its disagreements) and a task at a time, not the suite."""

    def __init__(self, suite: str, audits: Callable[[], Iterable[TaskAudit]], seed: int,
                 commands: Callable[[TaskAudit, str], list[str]],
                 reproducers: Callable[[bool], str | None] | str | None = None,
                 chance_bound: float = DEFAULT_CHANCE_BOUND,
                 on_task: Callable[[TaskAudit], None] | None = None) -> None:
        """`reproducers`: the folder, or what it is given whether any check disagrees;
        `on_task` hears each audit of the first reading (to write its reproducers)."""
        self.audits = audits
        total = _Counts()
        categories: dict[str, _Counts] = {}
        templates: dict[str, _Counts] = {}
        found: list[Disagreement] = []
        agreements = 0
        for a in audits():
            if on_task is not None:
                on_task(a)
            statuses = {k: o.status for k, o in a.outcomes.items()}
            for counts in (total, categories.setdefault(a.record.category or NO_CATEGORY,
                                                        _Counts()),
                           templates.setdefault(a.record.template, _Counts())):
                counts.add(statuses)
            agreements += sum(s == "agree" for s in statuses.values())
            found.extend(Disagreement(task=a.record.id, line=a.line,
                                      template=a.record.template,
                                      category=a.record.category, check=k, detail=o.detail,
                                      commands=commands(a, k))
                         for k, o in a.outcomes.items() if o.status == "disagree")
        folder = reproducers(bool(found)) if callable(reproducers) else reproducers
        self.header = AuditReport(
            suite=suite, seed=seed, chance_bound=chance_bound, checks=dict(CHECKS),
            tasks=total.tasks, agreements=agreements, disagreeing=len(found),
            reproducers=folder, total=total.row("all"),
            by_category=[categories[n].row(n) for n in sorted(categories)],
            by_template=[templates[n].row(n) for n in sorted(templates)],
            disagreements=found, task_results=[])

    @property
    def ok(self) -> bool:
        return self.header.ok

    def results(self) -> Iterator[TaskResult]:
        """Each task's result, in the suite's order."""
        for a in self.audits():
            yield task_result(a)

    def json_chunks(self) -> Iterator[str]:
        """`AuditReport.model_dump_json(indent=2)` of the whole report, in pieces."""
        yield from json_list_chunks(self.header, "task_results", self.results())

    def junit_chunks(self) -> Iterator[str]:
        """`junit_xml` of the whole report, in pieces."""
        import xml.etree.ElementTree as ET

        header = self.header
        if not header.tasks:
            yield junit_xml(header)
            return
        by_task = _by_task(header.disagreements)

        def cases() -> Iterator[ET.Element]:
            for t in self.results():
                holder = ET.Element("holder")
                _case(holder, t, by_task)
                yield holder[0]

        yield from junit_chunks("fdc audit", header.suite, header.tasks, header.disagreeing,
                                cases())


class _Counts:
    """A matrix row made a task at a time."""

    def __init__(self) -> None:
        self.tasks = 0
        self.agree = dict.fromkeys(CHECKS, 0)
        self.disagree = dict.fromkeys(CHECKS, 0)

    def add(self, statuses: Mapping[str, str]) -> None:
        self.tasks += 1
        for check in CHECKS:
            self.agree[check] += statuses[check] == "agree"
            self.disagree[check] += statuses[check] == "disagree"

    def row(self, name: str) -> MatrixRow:
        return MatrixRow(group=name, tasks=self.tasks, cells={
            c: Cell(agree=self.agree[c], disagree=self.disagree[c]) for c in CHECKS})


def _rows(results: Iterable[TaskResult], key: Callable[[TaskResult], str]) -> list[MatrixRow]:
    groups: dict[str, list[TaskResult]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r)
    return [_row(name, groups[name]) for name in sorted(groups)]


def _row(name: str, results: Sequence[TaskResult]) -> MatrixRow:
    cells: dict[str, Cell] = {}
    for check in CHECKS:
        statuses = [r.checks[check].status for r in results]
        cells[check] = Cell(agree=statuses.count("agree"), disagree=statuses.count("disagree"))
    return MatrixRow(group=name, tasks=len(results), cells=cells)


def cell_text(cell: Cell) -> str:
    """A matrix cell as text: agreed/applicable, `-` when the check applies to none."""
    total = cell.agree + cell.disagree
    return f"{cell.agree}/{total}" if total else "-"


# --------------------------------------------------------------------------- JUnit


def junit_xml(report: AuditReport) -> str:
    """The report as JUnit XML: a test case per task, a failure per disagreeing check
    (its detail the message, its reproducer commands the text)."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="fdc audit")
    suite = ET.SubElement(root, "testsuite", name=report.suite, tests=str(report.tasks),
                          failures="0", errors="0")
    by_task = _by_task(report.disagreements)
    failures = sum(_case(suite, t, by_task) for t in report.task_results)
    suite.set("failures", str(failures))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _by_task(disagreements: Iterable[Disagreement]) -> dict[str, list[Disagreement]]:
    by_task: dict[str, list[Disagreement]] = {}
    for d in disagreements:
        by_task.setdefault(d.task, []).append(d)
    return by_task


def _case(parent: Any, t: TaskResult, by_task: dict[str, list[Disagreement]]) -> int:
    """A task's test case under `parent`: how many failures it has."""
    import xml.etree.ElementTree as ET

    case = ET.SubElement(parent, "testcase", classname=t.template, name=t.id)
    mine = by_task.get(t.id, [])
    for d in mine:
        node = ET.SubElement(case, "failure", type=d.check, message=d.detail)
        node.text = "\n".join(f"$ {c}" for c in d.commands) or None
    skipped = [k for k, c in t.checks.items() if c.status == "n/a"]
    if skipped:
        ET.SubElement(case, "system-out").text = "not applicable: " + ", ".join(skipped)
    return len(mine)
