"""`fdc run-baseline` finds each task's scene and experience through the reopened suite,
and names the option that gives an input it cannot find (exit 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fdc.cli import app
from tests.cli.helpers import REPO, runner

RECALL = REPO / "domain" / "templates" / "memory" / "object-recall.pddl"


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("baseline")
    assert run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
               "-o", d / "scene.json")[0] == 0
    code, out = run("compile", d / "scene.json", "-T", RECALL, "--interactions", "2",
                    "--max-per-template", "2", "-o", d / "suite.jsonl")
    assert code == 0, out
    return d


def copy(compiled: Path, to: Path, manifest: bool = True, **fields: object) -> Path:
    lines = [json.loads(x) for x in (compiled / "suite.jsonl").read_text().splitlines()]
    suite = to / "suite.jsonl"
    suite.write_text("".join(json.dumps({**x, **fields}) + "\n" for x in lines))
    if manifest:
        shutil.copy(compiled / "manifest.json", to / "manifest.json")
    return suite


def test_the_simulated_experience_is_found_through_the_manifest(compiled: Path,
                                                                 tmp_path: Path) -> None:
    code, out = run("run-baseline", "oracle", compiled / "suite.jsonl", "-o",
                    tmp_path / "preds.jsonl")
    assert code == 0, out
    tasks = (compiled / "suite.jsonl").read_text().splitlines()
    assert len((tmp_path / "preds.jsonl").read_text().splitlines()) == len(tasks)


def test_missing_inputs_name_the_option(compiled: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    suite = copy(compiled, tmp_path, manifest=False)
    code, out = run("run-baseline", "random", suite, "-o", tmp_path / "p.jsonl")
    assert code == 2 and out == (f"error: no readable manifest beside {suite} to find the "
                                 "experience of its memory tasks; hint: pass --experience\n")
    suite = copy(compiled, tmp_path, scene=None)
    code, out = run("run-baseline", "random", suite, "-o", tmp_path / "p.jsonl")
    assert code == 2 and out == f"{suite}: error: a task names no scene; hint: pass --scene\n"
    suite = copy(compiled, tmp_path, scene="scene.json")
    monkeypatch.chdir(tmp_path)
    code, out = run("run-baseline", "random", suite, "-o", tmp_path / "p.jsonl")
    assert code == 2 and out == (f"{suite}: error: scene `scene.json` not found from the "
                                 "working folder or beside the suite; hint: pass --scene\n")
    code, out = run("run-baseline", "random", suite, "-o", tmp_path / "p.jsonl", "--scene",
                    compiled / "scene.json", "--experience", compiled / "scene.json")
    assert code == 2 and "not an fdc experience log" in out


def test_verify_finds_the_scene_of_an_oracle_trajectory_from_another_folder(
        compiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trajectory `run-baseline` writes names its scene relative to itself: `verify`
    finds it from any working folder (it used to look for `scene.json` in the working
    folder alone)."""
    job = tmp_path / "job"
    job.mkdir()
    shutil.copy(compiled / "scene.json", job / "scene.json")
    copy(compiled, job, scene="scene.json")
    monkeypatch.chdir(job)
    code, out = run("run-baseline", "oracle", "suite.jsonl", "-o", "out/preds.jsonl")
    assert code == 0, out
    trajectory = sorted((job / "out" / "preds.trajectories").iterdir())[0]
    header = json.loads(trajectory.read_text().splitlines()[0])
    assert header["scene"] == "../../scene.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out = run("verify", "../job/suite.jsonl", "--trajectory",
                    f"../job/out/preds.trajectories/{trajectory.name}",
                    "--task", trajectory.stem, "--format", "json")
    assert code == 0, out
    assert json.loads(out[out.index("{"):])["succeeded"] == 1


def test_verify_says_where_it_looked_for_the_scene(compiled: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A header naming a bare file name (as headers did) is found beside the suite; one
    found nowhere lists every place looked at and the flag to pass."""
    job = tmp_path / "job"
    (job / "runs").mkdir(parents=True)
    shutil.copy(compiled / "scene.json", job / "scene.json")
    suite = copy(compiled, job, scene="scene.json")
    monkeypatch.chdir(compiled)
    code, out = run("run-baseline", "oracle", suite, "-o", job / "runs" / "p.jsonl")
    assert code == 0, out
    trajectory = sorted((job / "runs" / "p.trajectories").iterdir())[0]
    lines = trajectory.read_text().splitlines()
    header = json.loads(lines[0])
    monkeypatch.chdir(tmp_path)
    for named, found in (("scene.json", True), ("gone/other.json", False)):
        trajectory.write_text("\n".join([json.dumps({**header, "scene": named}),
                                         *lines[1:]]) + "\n")
        code, out = run("verify", suite, "--trajectory", trajectory, "--task", trajectory.stem)
        if found:
            assert code == 0, out
            continue
        assert code == 2
        assert f"cannot find the scene file `{named}` its header names; looked at:" in out
        for place in (trajectory.parent / named, job / named, tmp_path / named,
                      job / "other.json"):
            assert f"\n  {place}\n" in out
        assert out.endswith("hint: pass the scene with --scene PATH\n")
