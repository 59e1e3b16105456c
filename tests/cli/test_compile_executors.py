"""`fdc compile --executor local|dask`: the same bytes from every executor, a worker lost
mid-run, and a client interrupted and run again (its finished shards reused).

The dask tests start a real scheduler and two workers on 127.0.0.1 (`dask scheduler`,
`dask worker`: the `fdc[dask]` extra, which scripts/test.sh installs) and compile six
tiny generated scenes with two experiences each, one task per template."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import REPO, runner

TEMPLATES = REPO / "tests" / "golden" / "templates"
PYTHON = sys.executable


def fdc(*args: str | Path) -> tuple[int, str]:
    from fdc.cli import app

    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six tiny generated scenes (one to two rooms)."""
    folder = tmp_path_factory.mktemp("family") / "scenes"
    code, out = fdc("scene", "generate", "--count", "6", "--seed", "5", "--rooms", "2",
                    "--objects", "20", "-o", folder)
    assert code == 0, out
    return folder


def compile_args(family: Path, out: Path, *more: str | Path) -> list[str]:
    return [str(a) for a in ("compile", family, "-T", TEMPLATES, "--experiences", "2",
                             "--max-per-template", "1", "--interactions", "3", *more,
                             "-o", out / "suite.jsonl")]


def outputs(out: Path) -> tuple[bytes, bytes]:
    return (out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes()


@pytest.fixture(scope="module")
def serial(family: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """`--executor local --jobs 1`: the bytes every other run must give."""
    out = tmp_path_factory.mktemp("serial")
    code, text = fdc(*compile_args(family, out, "--executor", "local", "--jobs", "1"))
    assert code == 0, text
    return outputs(out)


def start(args: list[str], **options: object) -> subprocess.Popen[str]:
    """A process of its own session (so it and its children are stopped together), with
    Ctrl-C handled even when this run ignores it (a shell's background job does, and a
    process inherits that, so the interrupt tests would see the compile run to its end)."""
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=REPO, preexec_fn=_interruptible,
                            **options)  # type: ignore[call-overload]


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(process: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
    try:
        process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def first_shard(cache: Path, process: subprocess.Popen[str], timeout_s: float = 120) -> None:
    """Wait until the run has finished a shard (and not the whole run)."""
    deadline = time.monotonic() + timeout_s
    while not list(cache.glob("*/*/shard.json")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no shard finished"
        time.sleep(0.02)


def counts(output: str) -> tuple[int, int]:
    found = re.search(r"(\d+) task\(s\) compiled in \d+ shard\(s\), (\d+) reused", output)
    assert found is not None, output
    return int(found.group(1)), int(found.group(2))


# --------------------------------------------------------------------------- options


def test_executor_options_that_disagree_exit_2(family: Path, tmp_path: Path) -> None:
    code, out = fdc(*compile_args(family, tmp_path, "--executor", "dask"))
    assert code == 2 and "--executor dask needs --scheduler" in out
    code, out = fdc(*compile_args(family, tmp_path, "--scheduler", "tcp://127.0.0.1:1"))
    assert code == 2 and "--scheduler is for --executor dask" in out
    code, out = fdc(*compile_args(family, tmp_path, "--executor", "dask", "--scheduler",
                                  "tcp://127.0.0.1:1", "--jobs", "2"))
    assert code == 2 and "--jobs is for --executor local" in out
    assert not (tmp_path / "suite.jsonl").exists()


# --------------------------------------------------------------------------- local


@pytest.mark.slow
def test_local_workers_interrupted_keep_finished_shards_and_resume(
        family: Path, serial: tuple[bytes, bytes], tmp_path: Path) -> None:
    client = start([PYTHON, "-m", "fdc", *compile_args(family, tmp_path, "--jobs", "2")])
    first_shard(tmp_path / "suite.cache", client)
    client.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = client.communicate(timeout=60)
    assert client.returncode == 130, err
    assert "interrupted: no suite written" in err and "Traceback" not in err
    assert not (tmp_path / "suite.jsonl").exists()
    code, out = fdc(*compile_args(family, tmp_path, "--jobs", "2"))
    assert code == 0, out
    assert counts(out)[1] > 0  # the shards finished before the interrupt, reused
    assert outputs(tmp_path) == serial


# --------------------------------------------------------------------------- dask


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, list[subprocess.Popen[str]]]]:
    """A dask scheduler and two one-thread workers on 127.0.0.1: its address and the
    workers' processes."""
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install 'fdc[dask]'; "
                    "scripts/test.sh installs it)")
    address = f"tcp://127.0.0.1:{free_port()}"
    scheduler = start([PYTHON, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                       "--port", address.rsplit(":", 1)[1], "--no-dashboard"])
    workers = [start([PYTHON, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                      "--no-dashboard", "--memory-limit", "0", "--name", f"w{k}"])
               for k in range(2)]
    try:
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for p in [*workers, scheduler]:
            stop(p)


@pytest.mark.slow
def test_dask_gives_the_bytes_of_local_even_when_a_worker_dies_or_the_client_stops(
        family: Path, serial: tuple[bytes, bytes], cluster: tuple[str, list[Any]],
        tmp_path: Path) -> None:
    address, workers = cluster
    dask = ("--executor", "dask", "--scheduler", address)
    # a whole run on two workers
    code, out = fdc(*compile_args(family, tmp_path / "a", *dask))
    assert code == 0, out
    assert outputs(tmp_path / "a") == serial
    # the client interrupted after its first shard, then run again
    client = start([PYTHON, "-m", "fdc", *compile_args(family, tmp_path / "b", *dask)])
    first_shard(tmp_path / "b" / "suite.cache", client)
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=60)
    assert client.returncode == 130 and "Traceback" not in err, err
    code, out = fdc(*compile_args(family, tmp_path / "b", *dask))
    assert code == 0, out
    compiled, reused = counts(out)
    assert reused > 0 and compiled > 0
    assert outputs(tmp_path / "b") == serial
    # one worker killed mid-run (the nanny and its worker): the other finishes
    client = start([PYTHON, "-m", "fdc", *compile_args(family, tmp_path / "c", *dask)])
    first_shard(tmp_path / "c" / "suite.cache", client)
    assert len(list((tmp_path / "c" / "suite.cache").glob("*/*/shard.json"))) < 12
    stop(workers[0], signal.SIGKILL)
    _, err = client.communicate(timeout=300)
    assert client.returncode == 0, err
    assert outputs(tmp_path / "c") == serial
