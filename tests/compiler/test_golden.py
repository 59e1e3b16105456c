"""Golden test: three small scenes and a handful of templates compile to the checked-in
suite and manifest, byte for byte, in one process and in four.

The scenes (tests/golden/scenes): `kitchen.json`, the hand-made kitchen of
tests/compiler/kitchen.py, and `gen-a.json` / `gen-b.json`, written by fdc's own scene
generator (`generate_scene(rooms=3, objects=40, seed=1|2)`). Each memory task is about
an experience fdc simulates for its scene. After a deliberate change, rewrite the
expected files with `FDC_UPDATE_GOLDEN=1 pytest tests/compiler/test_golden.py` and read
the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"
SCENES = ["tests/golden/scenes/kitchen.json", "tests/golden/scenes/gen-a.json",
          "tests/golden/scenes/gen-b.json"]


def compile_golden(out: Path, jobs: int) -> tuple[bytes, bytes]:
    args = ["compile", *SCENES, "--templates", "tests/golden/templates", "--seed", "7",
            "--max-per-template", "3", "--interactions", "3", "--jobs", str(jobs),
            "-o", str(out / "suite.jsonl")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return (out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes()


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    old = Path.cwd()
    os.chdir(REPO)  # records name the scenes and templates relative to the working folder
    try:
        return compile_golden(tmp_path_factory.mktemp("serial"), 1)
    finally:
        os.chdir(old)


@pytest.mark.slow
def test_the_suite_and_manifest_match_the_checked_in_ones(serial: tuple[bytes, bytes]) -> None:
    suite, manifest = serial
    if os.environ.get("FDC_UPDATE_GOLDEN"):
        (GOLDEN / "suite.jsonl").write_bytes(suite)
        (GOLDEN / "manifest.json").write_bytes(manifest)
    assert suite == (GOLDEN / "suite.jsonl").read_bytes()
    assert manifest == (GOLDEN / "manifest.json").read_bytes()


@pytest.mark.slow
def test_four_workers_write_the_same_bytes(serial: tuple[bytes, bytes], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert compile_golden(tmp_path, 4) == serial


@pytest.mark.slow
def test_a_second_run_writes_the_same_bytes(serial: tuple[bytes, bytes], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert compile_golden(tmp_path, 1) == serial


def test_the_golden_suite_covers_every_kind_of_task() -> None:
    from fdc.compiler.suite import read_suite

    records, problems = read_suite(GOLDEN / "suite.jsonl")
    assert not problems
    assert {r.template for r in records} >= {
        "golden-first-object", "golden-after", "golden-revisit", "golden-to-surface",
        "golden-pick-widen", "golden-two-on-one"}
    assert {r.scene for r in records} == set(SCENES)
    memory = [r for r in records if "memory" in r.tags]
    assert memory and all(r.valid_frames is not None and r.experience for r in memory)
