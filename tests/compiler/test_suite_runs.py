"""The keys of `compiler.suite_runs`: a task's result is reused exactly when nothing it
depends on changed (the record, its scene, its template, the options, fdc's code), not
when another task or the order of the suite changed; the cache's entries and the
worker's failures.

The golden suite (37 tasks on three scenes, with its manifest) is reopened from a copy
in a temporary folder; nothing is validated here, so these tests are quick."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fdc.compiler import suite_runs
from fdc.compiler.reopen import reopen_suite
from fdc.compiler.suite_runs import Failure, ResultCache, TaskKeys, run_checks

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


@pytest.fixture
def golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the golden suite, its scenes and templates, the working folder its
    records name them from."""
    shutil.copytree(GOLDEN, tmp_path / "tests" / "golden")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "tests" / "golden" / "suite.jsonl"


def keys(suite: Path, options: object = None) -> dict[str, str]:
    opened = reopen_suite(suite)
    k = TaskKeys(opened, "validate", options)
    return {r.id: k.key(r) for r in opened.records}


def test_a_key_changes_with_what_the_task_depends_on_alone(golden: Path) -> None:
    before = keys(golden)
    assert len(set(before.values())) == len(before) == 37
    # the order of the suite and the other tasks do not count
    lines = golden.read_text().splitlines(keepends=True)
    golden.write_text("".join(reversed(lines[5:])))
    moved = keys(golden)
    assert len(moved) == 32 and moved == {i: k for i, k in before.items() if i in moved}
    golden.write_text("".join(lines))
    # a scene's bytes: its tasks alone
    scene = golden.parent / "scenes" / "gen-a.json"
    scene.write_text(json.dumps(json.loads(scene.read_text()), indent=1))
    after = keys(golden)
    records = [json.loads(x) for x in lines]
    on_a = {r["id"] for r in records if r["scene"].endswith("gen-a.json")}
    assert on_a and {i for i in before if before[i] != after[i]} == on_a
    # the options: every task
    assert all(keys(golden, {"solve": True})[i] != after[i] for i in after)


def test_a_key_changes_with_fdcs_code(golden: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = keys(golden)
    monkeypatch.setattr(suite_runs, "code_digest", lambda: "other code")
    after = keys(golden)
    assert all(before[i] != after[i] for i in before)


def test_a_key_changes_with_its_own_template_alone(golden: Path) -> None:
    """One file holds every golden template: a comment changes no key, an edit of one
    template its tasks' keys alone."""
    before = keys(golden)
    templates = golden.parent / "templates" / "golden.pddl"
    text = templates.read_text()
    templates.write_text(text + "\n; a comment\n")
    assert keys(golden) == before
    templates.write_text(text.replace('"Move {{ o | ref }}', '"Carry {{ o | ref }}'))
    after = keys(golden)
    records = [json.loads(x) for x in golden.read_text().splitlines()]
    mine = {r["id"] for r in records if r["template"] == "golden-to-surface"}
    assert mine and {i for i in before if before[i] != after[i]} == mine


def failing(spec: object, lines: list[object], options: object) -> list[str] | Failure:
    return Failure("tests/golden/scenes/gen-a.json: not a scene (the test's failure)")


def test_a_workers_failure_is_an_input_error_and_nothing_is_kept(golden: Path,
                                                                 tmp_path: Path) -> None:
    from fdc.core.errors import InputError

    opened = reopen_suite(golden)
    cache = ResultCache(tmp_path / "cache")
    spec = suite_runs.SuiteSpec(str(golden))
    with pytest.raises(InputError, match="not a scene"):
        run_checks("validate", opened, spec, lambda: opened.lines, None, None, failing,
                   cache)
    assert not (tmp_path / "cache").exists()


def test_a_result_that_does_not_read_back_is_missing(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.put("audit", "ab" * 32, '{"x": 1}')
    assert cache.get("audit", "ab" * 32) == '{"x": 1}'
    path = tmp_path / "audit" / "ab" / f"{'ab' * 32}.json"
    path.write_text(path.read_text().replace("abab", "cdcd", 1))  # another key's entry
    assert cache.get("audit", "ab" * 32) is None and str(path) in cache.damaged


def test_a_worker_gets_its_batch_alone_and_checks_as_the_whole_suite(golden: Path) -> None:
    """A worker opens the suite's inputs, not its records (memory that does not grow with
    the suite): a batch's reports are those of the whole suite opened, a process task on
    a scene with memory tasks included (its compiler gets the manifest's experience)."""
    from fdc.compiler.validate import ValidateOptions, validate_lines

    opened = reopen_suite(golden)
    kitchen = [(n, r) for n, r in opened.lines if r.scene and r.scene.endswith("kitchen.json")]
    batch = [next(x for x in kitchen if x[1].experience is None),
             next(x for x in kitchen if x[1].experience is not None)]
    spec = suite_runs.batch_spec(suite_runs.SuiteSpec(str(golden)), opened)
    assert spec.memory_scenes and any(s.endswith("kitchen.json") for s in spec.memory_scenes)
    suite_runs._SUITES.clear()  # as in a fresh worker process
    worker = suite_runs.opened_suite(spec)
    assert worker is not opened and worker.lines == []
    assert worker.world_key(batch[0][1]) == opened.world_key(batch[0][1])
    assert worker.world_key(batch[0][1])[1] is not None
    options = ValidateOptions()
    got = suite_runs.validate_batch(spec, batch, options)
    assert got == [r.model_dump_json(exclude={"line"})
                   for r in validate_lines(reopen_suite(golden), batch, options)]


def test_the_streamed_report_is_the_whole_one(golden: Path) -> None:
    """`validate_run` reads the suite a line at a time and writes the report a task at a
    time: the bytes of `validate_suite`'s whole report, JSON and JUnit, a bad line and a
    repeated id included, and with no task at all."""
    from fdc.compiler.suite_runs import validate_run
    from fdc.compiler.validate import ValidateOptions, junit_xml, validate_suite

    lines = golden.read_text().splitlines(keepends=True)
    golden.write_text("".join([*lines[:3], "not json\n", *lines[3:7], *lines[:1]]))
    for text in (None, "{}\n"):
        if text is not None:
            golden.write_text(text)
        for strict in (False, True):
            options = ValidateOptions(strict=strict)
            whole = validate_suite(golden, options)
            streamed, run = validate_run(golden, options, ResultCache(None))
            assert "".join(streamed.json_chunks()) == whole.model_dump_json(indent=2)
            assert "".join(streamed.junit_chunks()) == junit_xml(whole)
            assert streamed.header.ok == whole.ok and run.tasks == whole.tasks
    assert whole.tasks == 0 and whole.bad_lines


@pytest.mark.slow
def test_memory_does_not_grow_with_the_suite(tmp_path: Path) -> None:
    """`fdc validate` streams the suite and its report: 6,000 lightweight tasks take
    about the memory of 600 (benchmarks/validate_memory.py: 2,000 and 20,000 tasks
    peaked at 83.3 and 86.4 MB)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "validate_memory", REPO / "benchmarks" / "validate_memory.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    peaks = {}
    for n in (600, 6_000):
        got = bench.measure(bench.lightweight_suite(tmp_path / f"suite-{n}.jsonl", n))
        assert got["exit_code"] == 0, got  # warnings alone: no scene
        peaks[n] = got["peak_rss_mb"]
    assert peaks[6_000] - peaks[600] < 8, peaks
