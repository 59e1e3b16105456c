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
