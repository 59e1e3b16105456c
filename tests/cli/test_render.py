"""`fdc render view` and `fdc render experience`: the frames directory (its index valid,
its PNGs what the index says), the same bytes on two runs, nothing written when
interrupted, and exit 2 with what to install on a machine without EGL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fdc.cli import app
from fdc.sim_bridge.render import FramesIndex
from fdc.sim_bridge.render import context as render_context
from tests.cli.helpers import REPO, runner
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)

APARTMENT = REPO / "examples" / "scenes" / "apartment.json"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("log") / "day.json"
    r = runner.invoke(app, ["experience", "generate", str(APARTMENT), "-o", str(path),
                            "-n", "2", "--seed", "1"])
    assert r.exit_code == 0, r.output
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_render_experience_writes_a_valid_frames_directory_twice_the_same(
        log: Path, tmp_path: Path) -> None:
    from fdc.sim_bridge.render.frames import read_depth_png, read_ids_png
    from fdc.sim_bridge.world.experience import Experience

    xp = Experience.model_validate_json(log.read_text())
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        r = runner.invoke(app, ["render", "experience", str(log), "--scene", str(APARTMENT),
                                "-o", str(out), "--every", "40", "--size", "320x240",
                                "--video"])
        assert r.exit_code == 0, r.output
        outs.append(out)
    a, b = (_files(o) for o in outs)
    assert a == b  # byte-identical, index and video included
    assert "video.mp4" in a and len(a["video.mp4"]) > 1000
    index = FramesIndex.model_validate_json((outs[0] / "index.json").read_text())
    assert (index.kind, index.format_version, index.every) == ("fdc-frames", "1.0", 40)
    assert (index.camera.width, index.camera.height) == (320, 240)
    assert (outs[0] / index.scene).resolve() == APARTMENT.resolve()
    assert (outs[0] / index.experience).resolve() == log.resolve()
    n = len(xp.frames)
    assert [f.frame for f in index.frames] == sorted({*range(0, n, 40), n - 1})
    assert "llvmpipe" in index.renderer and index.video == "video.mp4"
    schema = json.loads(runner.invoke(app, ["schema", "frames"]).stdout)
    assert set(json.loads((outs[0] / "index.json").read_text())) <= set(schema["properties"])
    # the PNGs say what the index says
    seen_any = False
    for f in index.frames:
        ids = read_ids_png(outs[0] / f.ids)
        depth = read_depth_png(outs[0] / f.depth)
        assert ids.shape == (240, 320) and depth.shape == (240, 320)
        counts = np.bincount(ids.ravel() + 1, minlength=len(index.objects) + 1)[1:]
        assert {index.objects[k]: int(c) for k, c in enumerate(counts) if c} == f.visible
        assert f.held == xp.frames[f.frame].held
        assert (depth[ids >= 0] > 0).all()
        seen_any = seen_any or bool(f.visible)
    assert seen_any


def test_render_experience_interrupted_writes_nothing(log: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from fdc.sim_bridge.render.renderer import Renderer

    real = Renderer.render
    calls = {"n": 0}

    def interrupted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Renderer, "render", interrupted)
    out = tmp_path / "frames"
    r = runner.invoke(app, ["render", "experience", str(log), "--scene", str(APARTMENT),
                            "-o", str(out), "--every", "50", "--size", "64x48"])
    assert r.exit_code == 130, r.output
    assert list(tmp_path.iterdir()) == []  # no target, no temporary folder


def test_render_experience_refuses_a_folder_of_other_files(log: Path, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    r = runner.invoke(app, ["render", "experience", str(log), "--scene", str(APARTMENT),
                            "-o", str(tmp_path), "--every", "500", "--size", "64x48"])
    assert r.exit_code == 2
    assert "not empty" in r.output
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_render_view_writes_the_view_at_a_surface(tmp_path: Path) -> None:
    out = tmp_path / "table.png"
    r = runner.invoke(app, ["render", "view", str(APARTMENT), "--at", "dining_table",
                            "--side", "rear", "-o", str(out), "--size", "160x120"])
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "dining_table" in r.output


def test_render_view_unknown_surface_and_bad_size(tmp_path: Path) -> None:
    r = runner.invoke(app, ["render", "view", str(APARTMENT), "--at", "dining_tabel",
                            "-o", str(tmp_path / "x.png")])
    assert r.exit_code == 2
    assert "no surface or object `dining_tabel`" in r.output
    r = runner.invoke(app, ["render", "view", str(APARTMENT), "--at", "dining_table",
                            "--size", "big"])
    assert r.exit_code == 2
    assert "WIDTHxHEIGHT" in r.output
    assert not list(tmp_path.iterdir())


def test_no_egl_exits_2_naming_the_packages(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from fdc.sim_bridge.render import renderer

    def unavailable() -> None:
        monkeypatch.setattr(render_context, "mesa_vendor_file", lambda: None)
        return render_context.make_context()

    monkeypatch.setattr(renderer, "gl_context", unavailable)
    r = runner.invoke(app, ["render", "view", str(APARTMENT), "--at", "dining_table",
                            "-o", str(tmp_path / "x.png")])
    assert r.exit_code == 2
    assert "apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri" in r.output
    assert "Traceback" not in r.output
    assert not list(tmp_path.iterdir())
