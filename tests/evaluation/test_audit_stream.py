"""`fdc audit` streamed (issue 38): `AuditStream`'s pieces are the whole report's bytes
(`build_report` then `model_dump_json(indent=2)` or `junit_xml`), on made-up audits and
on a real audited suite with a disagreement (its reproducer files too), for --jobs 1 and
2; and the client's memory does not grow with the suite (benchmarks/audit_memory.py)."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.cli.audit import _render
from fdc.cli.validate import ReportFormat
from fdc.compiler.reopen import reopen_suite
from fdc.compiler.suite_runs import ResultCache, SuiteSpec
from fdc.evaluation.audit.checks import AuditOptions, TaskAudit
from fdc.evaluation.audit.report import AuditStream, build_report, junit_xml
from fdc.evaluation.audit.reproducers import Invocation, Reproducers
from fdc.evaluation.audit.workers import audit_run
from tests.evaluation.test_audit import _audits, copy_with, records, suite

__all__ = ["suite"]  # the fixture, shared with test_audit

REPO = Path(__file__).resolve().parents[2]
BENCHMARK = REPO / "benchmarks" / "audit_memory.py"


def _commands(a: TaskAudit, check: str) -> list[str]:
    return [f"fdc audit s.jsonl --task {a.record.id}", check]


@pytest.mark.parametrize("audits", [[], _audits(), _audits()[:1]])
def test_the_stream_is_the_whole_reports_bytes(audits: list[TaskAudit]) -> None:
    whole = build_report("s.jsonl", audits, 3, _commands, "out.repro", 0.25)
    heard: list[str] = []
    stream = AuditStream("s.jsonl", lambda: iter(audits), 3, _commands,
                         lambda disagree: "out.repro", 0.25,
                         on_task=lambda a: heard.append(a.record.id))
    assert heard == [a.record.id for a in audits]  # the first reading, a task at a time
    assert "".join(stream.json_chunks()) == whole.model_dump_json(indent=2)
    assert "".join(stream.junit_chunks()) == junit_xml(whole)
    assert stream.header == whole.model_copy(update={"task_results": []})
    assert stream.ok == whole.ok


def test_the_folder_is_named_only_when_a_check_disagrees() -> None:
    def folder(disagree: bool) -> str | None:
        return "r.repro" if disagree else None

    assert AuditStream("s", lambda: _audits(), 0, _commands, folder).header.reproducers \
        == "r.repro"
    assert AuditStream("s", lambda: _audits()[:1], 0, _commands, folder
                       ).header.reproducers is None


@pytest.fixture(scope="module")
def mixed(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two level-1 tasks and a recall task whose target has no valid frame (the
    `frames` check disagrees), with the manifest beside them."""
    r = records(suite)
    frameless = r["recall-category"].model_copy(update={
        "valid_frames": [[]], "flags": ["target-without-valid-frame"]})
    path = copy_with(suite, tmp_path_factory.mktemp("mixed"), frameless)
    with path.open("a") as f:
        for t in ("l1-around", "l1-to-surface"):
            f.write(json.dumps(r[t].model_dump(mode="json")) + "\n")
    return path


def _whole(suite: Path, outs: list[Path | None], tmp: Path
           ) -> list[tuple[dict[str, str], dict[Path, str]]]:
    """Today's whole-report writer on the suite, in this process, for each of `outs`:
    each format's text and the reproducer files, as `fdc audit SUITE [-o OUT]
    --no-pixels` writes them."""
    opened = reopen_suite(suite)
    options = AuditOptions(pixels=False, pixels_off="not asked for (--no-pixels)")
    audits, _ = audit_run(SuiteSpec(str(suite)), opened, opened.lines, options,
                          ResultCache(tmp / "whole.cache"))
    got = []
    for out in outs:
        folder = out.parent / f"{out.stem}.repro" if out is not None else None
        repro = Reproducers(Invocation(suite=str(suite), scene=None, experience=None,
                                       seed=0, chance_bound=options.chance_bound,
                                       timeout_s=60.0, planner=None, folder=folder), opened)
        report = build_report(str(suite), audits, 0, repro.commands,
                              str(folder) if folder is not None else None,
                              options.chance_bound)
        assert not report.ok  # the frameless target: reproducers are written
        got.append(({f.value: _render(report, f, to_file=out is not None)
                     for f in ReportFormat}, repro.files(audits)))
    return got


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_real_audit_streams_the_whole_reports_bytes(mixed: Path, tmp_path: Path,
                                                      jobs: str) -> None:
    out = tmp_path / "report.out"
    (texts, files), (on_stdout, _) = _whole(mixed, [out, None], tmp_path)
    assert files  # the disagreement's one-task suite, at least
    cache = tmp_path / "c"
    for fmt, text in texts.items():
        result = CliRunner().invoke(app, ["audit", str(mixed), "--format", fmt, "-o",
                                          str(out), "--cache", str(cache), "--jobs", jobs,
                                          "--no-pixels"])
        assert result.exit_code == 1, result.stdout + result.stderr
        assert out.read_text() == text, fmt
        folder = out.parent / "report.repro"
        written = {p: p.read_text() for p in folder.rglob("*") if p.is_file()}
        assert written == files
    for fmt in ("json", "junit"):  # on stdout (no reproducers: no folder to put them in)
        result = CliRunner().invoke(app, ["audit", str(mixed), "--format", fmt, "--cache",
                                          str(cache), "--no-pixels"])
        assert result.exit_code == 1 and result.stdout == on_stdout[fmt], fmt


def _benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("audit_memory", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_memory_does_not_grow_with_the_suite(tmp_path: Path) -> None:
    """The suite is streamed and the report written a task at a time: reporting 20,000
    audited tasks takes about the memory of 1,000 (the whole report held, it took
    some 350 MB more)."""
    bench = _benchmark()
    peaks = {}
    for n in (1_000, 20_000):
        suite = bench.lightweight_suite(tmp_path / f"s{n}.jsonl", n)
        got = bench.measure(suite, "json")
        assert got["exit_code"] == 0, got["stderr"]
        assert got["report_mb"] > n / 2_000  # the report was written whole
        peaks[n] = got["peak_rss_mb"]
    assert peaks[20_000] < peaks[1_000] + 30, peaks


def test_the_options_key_is_the_clients(tmp_path: Path) -> None:
    """The benchmark's cache is keyed with the options `fdc audit --no-pixels` uses (else
    it would audit every task, and measure the workers' time instead)."""
    bench = _benchmark()
    suite = bench.lightweight_suite(tmp_path / "s.jsonl", 3)
    bench.synthetic_cache(suite, tmp_path / "c")
    result = CliRunner().invoke(app, ["audit", str(suite), "--cache", str(tmp_path / "c"),
                                      "--no-pixels", "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "3 task(s): 0 checked, 3 reused from the cache" in result.stderr
    assert asdict(AuditOptions()).keys() >= {"pixels", "pixels_off"}
