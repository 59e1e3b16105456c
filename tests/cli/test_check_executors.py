"""`fdc validate` and `fdc audit` on the compile's executors, cached per task
(`compiler.suite_runs`): the same report from one process, two worker processes and a
dask cluster (even when a worker dies mid-run), a rerun after one template changed
checks that template's tasks alone, and an interrupted run resumes.

The suite: four templates of the golden test (two memory, two process), each in its own
file, compiled on a tiny generated scene, one task per template. The dask tests start a
real scheduler and two workers on 127.0.0.1, as `fdc compile`'s do."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fdc.compiler.validate import ValidationReport, junit_xml
from tests.cli.helpers import REPO
from tests.cli.test_compile_executors import (  # noqa: F401 (a fixture)
    PYTHON,
    cluster,
    fdc,
    start,
    stop,
)

GOLDEN = REPO / "tests" / "golden" / "templates" / "golden.pddl"
TEMPLATES = ("golden-first-object", "golden-after", "golden-to-surface", "golden-pick-widen")


def split_templates(folder: Path) -> Path:
    """The golden templates of `TEMPLATES`, one file each, in `folder`."""
    folder.mkdir(parents=True)
    parts = re.split(r"\n(?=\(define \(template )", GOLDEN.read_text())
    for part in parts[1:]:
        name = re.match(r"\(define \(template ([\w-]+)\)", part)
        assert name is not None
        if name.group(1) in TEMPLATES:
            (folder / f"{name.group(1)}.pddl").write_text(part.strip() + "\n")
    return folder


def compile_suite(scene: Path, templates: Path, out: Path) -> Path:
    code, text = fdc("compile", scene, "-T", templates, "--max-per-template", "1",
                     "--interactions", "3", "--no-cache", "-o", out / "suite.jsonl")
    assert code == 0, text
    return out / "suite.jsonl"


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scene") / "scenes"
    code, out = fdc("scene", "generate", "--count", "1", "--seed", "5", "--rooms", "2",
                    "--objects", "20", "-o", folder)
    assert code == 0, out
    return folder / "scene-000.json"


@pytest.fixture(scope="module")
def suite(scene: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("suite")
    return compile_suite(scene, split_templates(base / "templates"), base / "out")


def validate_args(suite: Path, *more: str | Path) -> list[str]:
    return [str(a) for a in ("validate", suite, "--solve", "--format", "json", *more)]


def audit_args(suite: Path, report: Path, *more: str | Path) -> list[str]:
    return [str(a) for a in ("audit", suite, "--no-pixels", "--format", "json", "-o", report,
                             *more)]


def counts(output: str) -> tuple[int, int, int]:
    found = re.search(r"(\d+) task\(s\): (\d+) checked, (\d+) reused from the cache", output)
    assert found is not None, output
    return int(found.group(1)), int(found.group(2)), int(found.group(3))


@pytest.fixture(scope="module")
def serial(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, bytes]:
    """One process, no cache: the validation report's and the audit report's bytes every
    other run must give (the reports hold nothing measured)."""
    out = tmp_path_factory.mktemp("serial")
    code, text = fdc(*validate_args(suite, "--no-cache"))
    assert code == 0, text
    validation = validation_of(text)
    code, text = fdc(*audit_args(suite, out / "audit.json", "--no-cache"))
    assert code == 0, text
    return validation, (out / "audit.json").read_bytes()


def validation_of(output: str) -> str:
    """The JSON report's text out of the CLI's output (the summary lines follow it)."""
    return output[output.index("{"):output.rindex("}") + 1]


# --------------------------------------------------------------------------- local


@pytest.mark.slow
def test_two_processes_and_the_cache_give_the_reports_of_one(
        suite: Path, serial: tuple[str, bytes], tmp_path: Path) -> None:
    validation, audit = serial
    cache = ("--cache", tmp_path / "cache")
    code, out = fdc(*validate_args(suite, "--jobs", "2", *cache))
    assert code == 0, out
    assert validation_of(out) == validation and counts(out) == (4, 4, 0)
    code, out = fdc(*audit_args(suite, tmp_path / "a.json", "--jobs", "2", *cache))
    assert code == 0, out
    assert (tmp_path / "a.json").read_bytes() == audit and counts(out) == (4, 4, 0)
    # again: every result from the cache, the same reports
    code, out = fdc(*validate_args(suite, *cache))
    assert validation_of(out) == validation and counts(out) == (4, 0, 4)
    code, out = fdc(*validate_args(suite, *cache, "--jobs", "2", "--format", "junit"))
    assert out[out.index("<?xml"):out.index("</testsuites>") + 14] == \
        junit_xml(ValidationReport.model_validate_json(validation))
    code, out = fdc(*audit_args(suite, tmp_path / "b.json", *cache))
    assert (tmp_path / "b.json").read_bytes() == audit and counts(out) == (4, 0, 4)


@pytest.mark.slow
def test_a_changed_template_rechecks_its_tasks_alone(scene: Path, tmp_path: Path) -> None:
    templates = split_templates(tmp_path / "templates")
    suite = compile_suite(scene, templates, tmp_path / "out")
    code, out = fdc(*validate_args(suite))  # the default cache: beside the suite
    assert code == 0 and counts(out) == (4, 4, 0), out
    assert (tmp_path / "out" / "suite.cache" / "validate").is_dir()
    code, out = fdc(*audit_args(suite, tmp_path / "a.json"))
    assert code == 0 and counts(out) == (4, 4, 0), out
    changed = templates / "golden-to-surface.pddl"
    changed.write_text(changed.read_text().replace('"Move {{ o | ref }}',
                                                   '"Carry {{ o | ref }}'))
    suite = compile_suite(scene, templates, tmp_path / "out")
    mine = [json.loads(line) for line in suite.read_text().splitlines()]
    assert sum(r["template"] == "golden-to-surface" for r in mine) == 1
    code, out = fdc(*validate_args(suite))
    assert code == 0, out
    assert counts(out) == (4, 1, 3)
    code, out = fdc(*audit_args(suite, tmp_path / "b.json"))
    assert code == 0, out
    assert counts(out) == (4, 1, 3)
    # the whole report is the one a run without the cache makes
    code, fresh = fdc(*audit_args(suite, tmp_path / "c.json", "--no-cache"))
    assert code == 0, fresh
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()


@pytest.mark.slow
def test_a_damaged_entry_is_checked_again(suite: Path, tmp_path: Path) -> None:
    cache = ("--cache", tmp_path / "cache")
    code, out = fdc(*validate_args(suite, *cache))
    assert code == 0, out
    first = validation_of(out)
    entry = sorted((tmp_path / "cache" / "validate").glob("*/*.json"))[0]
    entry.write_text(entry.read_text()[:20])  # cut short
    code, out = fdc(*validate_args(suite, *cache))
    assert code == 0, out
    assert counts(out) == (4, 1, 3) and "1 damaged cache entry checked again" in out
    assert validation_of(out) == first


def results(cache: Path, check: str) -> int:
    return len(list((cache / check).glob("*/*.json")))


def first_result(cache: Path, check: str, process: Any, timeout_s: float = 300) -> None:
    """Wait until the run has kept a task's result (and not finished)."""
    deadline = time.monotonic() + timeout_s
    while not results(cache, check):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no task finished"
        time.sleep(0.02)


@pytest.mark.slow
def test_an_interrupted_run_resumes(suite: Path, serial: tuple[str, bytes],
                                    tmp_path: Path) -> None:
    _, audit = serial
    cache = tmp_path / "cache"
    client = start([PYTHON, "-m", "fdc", *audit_args(suite, tmp_path / "a.json", "--jobs",
                                                     "2", "--cache", cache)])
    first_result(cache, "audit", client)
    client.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = client.communicate(timeout=60)
    assert client.returncode == 130, err
    assert "rerun to resume" in err and "Traceback" not in err
    assert not (tmp_path / "a.json").exists()
    kept = results(cache, "audit")
    assert 0 < kept < 4
    code, out = fdc(*audit_args(suite, tmp_path / "a.json", "--jobs", "2", "--cache", cache))
    assert code == 0, out
    assert counts(out) == (4, 4 - kept, kept)
    assert (tmp_path / "a.json").read_bytes() == audit


@pytest.mark.slow
def test_three_jobs_give_the_report_of_one(suite: Path, serial: tuple[str, bytes],
                                           tmp_path: Path) -> None:
    """`--jobs 3`: this process and two workers take batches; the bytes of one process."""
    validation, _ = serial
    code, out = fdc(*validate_args(suite, "--jobs", "3", "--no-cache"))
    assert code == 0, out
    assert validation_of(out) == validation


def _call_where(k: int) -> tuple[int, int]:
    """A call of `in_processes` in the tests: its argument and the process it ran in."""
    return k * k, os.getpid()


def _call_interrupted(k: int, parent: int) -> int:
    """Ctrl-C in the main process on its first call (a worker's calls return)."""
    if os.getpid() == parent:
        raise KeyboardInterrupt
    time.sleep(0.05)
    return k


def test_the_main_process_takes_calls_beside_jobs_minus_one_workers() -> None:
    from fdc.compiler.executors import in_processes

    for jobs in (1, 2, 3):
        got = dict(in_processes(_call_where, [(k,) for k in range(12)], jobs))
        assert sorted(got) == list(range(12))
        assert [got[k][0] for k in range(12)] == [k * k for k in range(12)]
        pids = {pid for _, pid in got.values()}
        assert os.getpid() in pids  # this process took calls
        assert len(pids - {os.getpid()}) <= jobs - 1  # beside at most jobs - 1 workers
    idle = dict(in_processes(_call_where, [(k,) for k in range(6)], 2, here=False))
    assert os.getpid() not in {pid for _, pid in idle.values()}


def test_an_interrupt_in_the_main_process_ends_the_workers() -> None:
    import multiprocessing

    from fdc.compiler.executors import in_processes

    calls = [(k, os.getpid()) for k in range(20)]
    with pytest.raises(KeyboardInterrupt):
        for _ in in_processes(_call_interrupted, calls, 2):
            pass
    deadline = time.monotonic() + 30
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not multiprocessing.active_children()


def spawned_workers(pid: int) -> list[int]:
    """The worker processes a process spawned (`multiprocessing`'s `spawn_main`)."""
    out = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        if b"spawn_main" in cmdline:
            out.append(int(child))
    return out


@pytest.mark.slow
def test_a_local_worker_lost_is_said_and_the_rerun_resumes(
        suite: Path, serial: tuple[str, bytes], tmp_path: Path) -> None:
    """A worker process killed (as the out-of-memory killer would): exit 2 with what
    happened, no traceback, the tasks finished kept; the rerun gives the report."""
    validation, _ = serial
    cache = tmp_path / "cache"
    args = validate_args(suite, "--jobs", "2", "--cache", cache)
    client = start([PYTHON, "-m", "fdc", *args])
    first_result(cache, "validate", client)
    assert results(cache, "validate") < 4
    os.kill(spawned_workers(client.pid)[0], signal.SIGKILL)
    _, err = client.communicate(timeout=120)
    assert client.returncode == 2, err
    assert "a worker process was lost" in err and "run again to resume" in err
    assert "Traceback" not in err
    kept = results(cache, "validate")
    code, out = fdc(*args)
    assert code == 0, out
    assert counts(out) == (4, 4 - kept, kept) and kept > 0
    assert validation_of(out) == validation


# --------------------------------------------------------------------------- dask


@pytest.mark.slow
def test_dask_gives_the_reports_of_one_process_even_when_a_worker_dies(
        suite: Path, serial: tuple[str, bytes],
        cluster: tuple[str, list[Any]],  # noqa: F811 (the fixture imported above)
        tmp_path: Path) -> None:
    validation, audit = serial
    address, workers = cluster
    dask = ("--executor", "dask", "--scheduler", address)
    code, out = fdc(*validate_args(suite, *dask, "--no-cache"))
    assert code == 0, out
    assert validation_of(out) == validation
    code, out = fdc(*audit_args(suite, tmp_path / "a.json", *dask, "--no-cache"))
    assert code == 0, out
    assert (tmp_path / "a.json").read_bytes() == audit
    # one worker killed mid-run (the nanny and its worker): the other finishes
    cache = tmp_path / "cache"
    client = start([PYTHON, "-m", "fdc", *audit_args(suite, tmp_path / "b.json", *dask,
                                                     "--cache", cache)])
    first_result(cache, "audit", client)
    assert results(cache, "audit") < 4
    stop(workers[0], signal.SIGKILL)
    _, err = client.communicate(timeout=600)
    assert client.returncode == 0, err
    assert (tmp_path / "b.json").read_bytes() == audit


def test_dask_keeps_a_sliding_window_of_calls(
        cluster: tuple[str, list[Any]],  # noqa: F811 (the fixture imported above)
        ) -> None:
    """`DaskExecutor.map(window=2)`: at most two calls on the cluster, the next one read
    and sent as one finishes (not the whole list at once, nor a group at a time)."""
    from fdc.compiler.executors import DaskExecutor

    address, _ = cluster
    read: list[int] = []

    def calls() -> Iterator[tuple[int, int]]:
        for k in range(12):
            read.append(k)
            yield k, 2

    outputs = DaskExecutor(address).map(pow, calls(), window=2)
    first = next(outputs)
    assert len(read) <= 3  # the two sent, and the one sent as the first finished
    got = dict([first, *outputs])
    assert got == {k: k ** 2 for k in range(12)} and len(read) == 12


def test_executor_options_that_disagree_exit_2(suite: Path) -> None:
    code, out = fdc("validate", suite, "--executor", "dask")
    assert code == 2 and "--executor dask needs --scheduler" in out
    code, out = fdc("audit", suite, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "--scheduler is for --executor dask" in out


@pytest.mark.parametrize("command", ["validate", "audit"])
def test_an_input_error_in_a_worker_exits_2(suite: Path, tmp_path: Path, command: str) -> None:
    """A scene that does not load, met in a worker process (validate; the audit loads
    every input before any work): the error as one process says it (exit 2, the file
    named), no traceback, nothing kept."""
    bad = tmp_path / "scene.json"
    bad.write_text('{"not": "a scene"}\n')
    records = [json.loads(x) for x in suite.read_text().splitlines()]
    process = [r for r in records if r["experience"] is None]
    assert len(process) >= 2
    (tmp_path / "suite.jsonl").write_text("".join(
        json.dumps({**r, "scene": str(bad)}) + "\n" for r in process))
    code, out = fdc(command, tmp_path / "suite.jsonl", "--jobs", "2", "--no-pixels"
                    if command == "audit" else "--strict")
    assert code == 2, out
    assert f"error: {bad}" in out.replace("\n", "") and "Traceback" not in out
    assert not list((tmp_path / "suite.cache").glob(f"{command}/*/*.json"))
