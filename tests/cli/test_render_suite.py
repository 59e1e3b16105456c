"""`fdc render suite`: each experience of a suite's memory tasks rendered once and each
manipulation task's first view, the index mapping every task to them, a rerun rendering
nothing, and the same bytes for one job, two jobs and a real dask cluster of two workers
(the cluster fixture of test_compile_executors)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from fdc.compiler.suite import parse_suite
from fdc.compiler.suite_frames import SuiteFrames
from fdc.sim_bridge.render import FramesIndex
from tests.cli.helpers import REPO
from tests.cli.test_compile_executors import cluster, fdc  # noqa: F401 (a fixture)
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)

TEMPLATES = REPO / "tests" / "golden" / "templates"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tiny generated scenes, one simulated day each, one task per template."""
    folder = tmp_path_factory.mktemp("suite")
    code, out = fdc("scene", "generate", "--count", "2", "--seed", "3", "--rooms", "2",
                    "--objects", "16", "-o", folder / "scenes")
    assert code == 0, out
    code, out = fdc("compile", folder / "scenes", "-T", TEMPLATES, "--experiences", "1",
                    "--max-per-template", "1", "--interactions", "2",
                    "-o", folder / "suite.jsonl")
    assert code == 0, out
    return folder / "suite.jsonl"


def render(suite: Path, out: Path, *more: str) -> str:
    code, text = fdc("render", "suite", suite, "-o", out, "--every", "40",
                     "--size", "64x48", *more)
    assert code == 0, text
    return text


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def rendered(text: str) -> tuple[int, int]:
    found = re.search(r"(\d+) experience\(s\) \(\d+\s+frames\) and (\d+) view\(s\) rendered",
                      " ".join(text.split()))
    assert found is not None, text
    return int(found.group(1)), int(found.group(2))


@pytest.fixture(scope="module")
def serial(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serial") / "frames"
    render(suite, out)
    return out


def test_every_task_has_its_frames_or_view_and_each_experience_is_rendered_once(
        suite: Path, serial: Path) -> None:
    records, _ = parse_suite(suite.read_text())
    index = SuiteFrames.model_validate_json((serial / "suite-frames.json").read_text())
    assert list(index.tasks) == [r.id for r in records]
    memory = [r for r in records if r.experience is not None]
    manipulation = [r for r in records if r.experience is None]
    assert memory and manipulation
    by_experience: dict[str, set[str]] = {}
    for r in memory:
        key = index.tasks[r.id].frames
        assert key is not None
        by_experience.setdefault(r.experience or "", set()).add(key)
        frames = FramesIndex.model_validate_json((serial / key / "index.json").read_text())
        assert frames.experience_sha256 == r.experience
        assert frames.camera.width == 64 and frames.every == 40
        assert all((serial / key / f.rgb).is_file() for f in frames.frames)
    # one frames directory per experience, a different one for each
    assert all(len(keys) == 1 for keys in by_experience.values())
    assert len({next(iter(k)) for k in by_experience.values()}) == len(by_experience)
    for r in manipulation:
        view = index.tasks[r.id].view
        assert view is not None and (serial / view).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keys = [p for p in serial.iterdir() if p.is_dir() and p.name not in ("logs", "views")]
    assert len(keys) == len(by_experience)


def test_a_rerun_renders_nothing_and_writes_the_same_bytes(suite: Path, serial: Path) -> None:
    before = files(serial)
    assert rendered(render(suite, serial)) == (0, 0)
    assert files(serial) == before


def test_two_jobs_give_the_bytes_of_one(suite: Path, serial: Path) -> None:
    out = serial.parent / "two"  # beside it: the indexes' relative paths are the same
    experiences, views = rendered(render(suite, out, "--jobs", "2"))
    assert experiences > 0 and views > 0
    assert files(out) == files(serial)


def test_a_missing_key_alone_is_rendered_again(suite: Path, serial: Path) -> None:
    out = serial.parent / "partial"
    render(suite, out)
    index = SuiteFrames.model_validate_json((out / "suite-frames.json").read_text())
    key = next(t.frames for t in index.tasks.values() if t.frames is not None)
    assert key is not None
    import shutil

    shutil.rmtree(out / key)
    assert rendered(render(suite, out)) == (1, 0)
    assert files(out) == files(serial)


def test_bad_options_and_inputs_exit_2(suite: Path, tmp_path: Path) -> None:
    code, out = fdc("render", "suite", suite, "-o", tmp_path, "--executor", "dask")
    assert code == 2 and "--executor dask needs --scheduler" in out
    code, out = fdc("render", "suite", tmp_path / "nope.jsonl", "-o", tmp_path)
    assert code == 2
    assert not (tmp_path / "suite-frames.json").exists()


def test_dask_gives_the_bytes_of_local(suite: Path, serial: Path,
                                       cluster: tuple[str, list[Any]]) -> None:  # noqa: F811
    address, _ = cluster
    out = serial.parent / "dask"
    experiences, views = rendered(render(suite, out, "--executor", "dask",
                                         "--scheduler", address))
    assert experiences > 0 and views > 0
    assert files(out) == files(serial)


def test_video_is_another_key_with_its_mp4(suite: Path, serial: Path) -> None:
    out = serial.parent / "video"
    render(suite, out, "--video")
    index = SuiteFrames.model_validate_json((out / "suite-frames.json").read_text())
    plain = SuiteFrames.model_validate_json((serial / "suite-frames.json").read_text())
    assert index.video and not plain.video
    keys = {t.frames for t in index.tasks.values() if t.frames is not None}
    assert keys and keys.isdisjoint({t.frames for t in plain.tasks.values()})
    assert all((out / k / "video.mp4").stat().st_size > 0 for k in keys if k)


def test_a_day_rendered_in_pieces_is_the_day_rendered_whole(
        suite: Path, serial: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fdc.compiler.suite_frames as suite_frames

    monkeypatch.setattr(suite_frames, "PIECE_FRAMES", 2)
    out = serial.parent / "pieces"
    render(suite, out, "--jobs", "2", "--video")
    assert not (out / ".pieces").exists()
    index = SuiteFrames.model_validate_json((out / "suite-frames.json").read_text())
    keys = sorted({t.frames for t in index.tasks.values() if t.frames is not None})
    for key in keys:
        frames = FramesIndex.model_validate_json((out / key / "index.json").read_text())
        assert len(frames.frames) > 2  # several pieces
        direct = out / f"direct-{key}"  # beside it: the same relative paths
        code, text = fdc("render", "experience", (out / key / frames.experience).resolve(),
                         "--scene", (out / key / frames.scene).resolve(), "-o", direct,
                         "--every", "40", "--size", "64x48", "--video")
        assert code == 0, text
        assert files(out / key) == files(direct)


def test_the_index_has_a_schema(serial: Path) -> None:
    import json

    from fdc.cli import app
    from tests.cli.helpers import runner

    result = runner.invoke(app, ["schema", "suite-frames"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "SuiteFrames"
    written = json.loads((serial / "suite-frames.json").read_text())
    assert set(written) <= set(schema["properties"])


class _StopsAfter:
    """A local executor interrupted (Ctrl-C) once `n` jobs have finished."""

    def __init__(self, n: int) -> None:
        self.n = n

    def map(self, fn: Any, calls: Any, names: Any = None, what: str = "task") -> Any:
        for k, call in enumerate(calls):
            if k == self.n:
                raise KeyboardInterrupt
            yield k, fn(*call)


def test_an_interrupted_run_keeps_its_finished_pieces_and_resumes(
        suite: Path, serial: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fdc.compiler.suite_frames as suite_frames
    from fdc.compiler.executors import LocalExecutor
    from fdc.compiler.reopen import reopen_suite
    from fdc.sim_bridge.render.camera import Camera

    monkeypatch.setattr(suite_frames, "PIECE_FRAMES", 2)
    out = serial.parent / "interrupted"
    cam = Camera(width=64, height=48)
    data = suite.read_bytes()
    p = suite_frames.plan(reopen_suite(suite), out, 40, cam, data)
    pieces = len(p.frames)
    with pytest.raises(KeyboardInterrupt):
        suite_frames.render_plan(p, out, _StopsAfter(len(p.views) + 1))
    assert not (out / "suite-frames.json").exists()
    assert [d.name for d in out.iterdir() if not d.name.startswith(".")
            and d.name not in ("logs", "views")] == []  # no frames directory yet
    done = list((out / ".pieces").glob("*/*/index.json"))
    assert len(done) == 1
    again = suite_frames.plan(reopen_suite(suite), out, 40, cam, data)
    assert len(again.frames) == pieces - 1 and not again.views
    suite_frames.render_plan(again, out, LocalExecutor(1))
    assert files(out) == files(serial)
