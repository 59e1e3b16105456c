"""Reopening a compiled suite (`fdc.compiler.reopen`): its templates, scenes and
experiences found as the manifest beside it says, each checked against the hashes the
suite was compiled with; files given in their place; every failure a `ReopenError` with
its code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.reopen import ReopenedSuite, ReopenError, reopen_suite
from fdc.compiler.suite import TaskRecord
from fdc.core.hashing import scene_sha256
from fdc.sim_bridge.graph.scene_graph import SceneLoadError

REPO = Path(__file__).resolve().parents[2]
RECALL = REPO / "domain" / "templates" / "memory" / "object-recall.pddl"
LEVEL_1 = REPO / "domain" / "templates" / "manipulation" / "level-1.pddl"


def run(*args: str | Path) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two scenes, a log, and two suites on the first: `logged/` (compiled with the log)
    and `simulated/` (its experience simulated); scene and log named by absolute path."""
    d = tmp_path_factory.mktemp("reopen")
    for name, seed in (("scene.json", "2"), ("other.json", "5")):
        run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", seed,
            "-o", d / name)
    run("experience", "generate", d / "scene.json", "-n", "2", "-o", d / "log.json")
    for sub, how in (("logged", ["--history", d / "log.json"]),
                     ("simulated", ["--interactions", "2"])):
        (d / sub).mkdir()
        run("compile", d / "scene.json", "-T", RECALL, "-T", LEVEL_1, *how,
            "--max-per-template", "2", "-o", d / sub / "suite.jsonl")
    return d


def memory(suite: ReopenedSuite) -> TaskRecord:
    return next(r for r in suite.records if r.experience is not None)


def manipulation(suite: ReopenedSuite) -> TaskRecord:
    return next(r for r in suite.records if r.experience is None)


def copy_suite(folder: Path, to: Path, sub: str = "logged") -> Path:
    to.mkdir(parents=True, exist_ok=True)
    for name in ("suite.jsonl", "manifest.json"):
        shutil.copy(folder / sub / name, to / name)
    return to / "suite.jsonl"


def rewrite(suite: Path, **fields: object) -> None:
    lines = [json.loads(x) for x in suite.read_text().splitlines()]
    suite.write_text("".join(json.dumps({**x, **fields}) + "\n" for x in lines))


def test_templates_scenes_and_experiences_are_found(folder: Path) -> None:
    suite = reopen_suite(folder / "logged" / "suite.jsonl")
    assert not suite.problems and [n for n, _ in suite.lines] == list(
        range(1, len(suite.records) + 1))
    for record in suite.records:
        entry, why = suite.template(record)
        assert entry is not None and entry.name == record.template, why
    task = memory(suite)
    assert suite.scene_path(task) == folder / "scene.json"
    graph = suite.graph(task)
    assert suite.graph(manipulation(suite)) is graph  # built once per file
    assert suite.compiled_sha256(task) == scene_sha256(graph.scene)
    suite.check_scene(task)
    log = suite.experience(task)
    assert log.frames and len(log.interactions) == 2
    compiler = suite.compiler(task)
    assert compiler.experience_sha256 == task.experience and "after" in compiler.states
    suite.load(suite.records, [task])


def test_a_simulated_experience_is_simulated_again(folder: Path) -> None:
    suite = reopen_suite(folder / "simulated" / "suite.jsonl")
    task = memory(suite)
    assert suite.experience(task).source == "fdc-embedded"
    assert suite.compiler(task).experience_sha256 == task.experience


def test_an_unknown_template_says_why(folder: Path, tmp_path: Path) -> None:
    path = copy_suite(folder, tmp_path)
    rewrite(path, template="no-such-template")
    suite = reopen_suite(path)
    assert suite.template(suite.records[0]) == (
        None, "no template `no-such-template` in the built-in library")
    rewrite(path, template_file=str(tmp_path / "missing.pddl"))
    suite = reopen_suite(path)
    with pytest.raises(ReopenError) as e:
        suite.template(suite.records[0])
    assert e.value.code == "template-file"


def test_a_changed_scene_is_reported(folder: Path) -> None:
    suite = reopen_suite(folder / "logged" / "suite.jsonl", scenes=[folder / "other.json"])
    task = manipulation(suite)
    assert suite.scene_path(task) == folder / "other.json"
    with pytest.raises(ReopenError) as e:
        suite.check_scene(task)
    assert e.value.code == "scene-changed" and e.value.file == str(folder / "other.json")
    assert "not the scene the suite was compiled on" in str(e.value)
    with pytest.raises(ReopenError) as e:  # the log was recorded in the other scene
        suite.experience(memory(suite))
    assert e.value.code == "experience-scene"


def test_a_changed_log_is_reported(folder: Path, tmp_path: Path) -> None:
    path = copy_suite(folder, tmp_path)
    changed = json.loads((folder / "log.json").read_text())
    changed["frames"] = changed["frames"][:-1]
    (tmp_path / "log.json").write_text(json.dumps(changed))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["scenes"][0]["experience"]["path"] = str(tmp_path / "log.json")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    suite = reopen_suite(path)
    with pytest.raises(ReopenError) as e:
        suite.experience(memory(suite))
    assert e.value.code == "experience-changed"
    assert e.value.details["found"] != memory(suite).experience
    # the compiler holds the manifest's log: whether it is a task's is the caller's call
    assert suite.compiler(memory(suite)).experience_sha256 != memory(suite).experience


def test_given_files_take_the_place_of_the_suites(folder: Path, tmp_path: Path) -> None:
    path = copy_suite(folder, tmp_path)
    (tmp_path / "manifest.json").unlink()
    bare = reopen_suite(path)
    assert bare.read_manifest() is None
    with pytest.raises(ReopenError) as e:
        bare.experience(memory(bare))
    assert e.value.code == "not-in-manifest" and not e.value.details["manifest"]
    assert "after" not in bare.compiler(memory(bare)).states  # nothing to rebuild it from
    given = reopen_suite(path, experiences=[folder / "log.json"])
    assert given.experience(memory(given)).frames
    # several scenes given: matched by name without a manifest
    both = reopen_suite(path, scenes=[folder / "other.json", folder / "scene.json"])
    assert both.scene_path(memory(both)) == folder / "scene.json"


def test_several_scenes_are_matched_by_the_manifests_sha256(folder: Path, tmp_path: Path
                                                             ) -> None:
    renamed = tmp_path / "renamed.json"
    shutil.copy(folder / "scene.json", renamed)
    suite = reopen_suite(folder / "logged" / "suite.jsonl",
                         scenes=[folder / "other.json", renamed])
    assert suite.scene_path(memory(suite)) == renamed
    wrong = reopen_suite(folder / "logged" / "suite.jsonl",
                         scenes=[folder / "other.json", folder / "other.json"])
    with pytest.raises(ReopenError) as e:
        wrong.scene_path(memory(wrong))
    assert e.value.code == "no-scene-match" and e.value.details["how"] == \
        "by its sha256 in the manifest"


def test_a_record_names_its_scene_from_the_working_folder_else_beside_the_suite(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_suite(folder, tmp_path / "out")
    rewrite(path, scene="scene.json")
    monkeypatch.chdir(tmp_path)
    suite = reopen_suite(path)
    with pytest.raises(ReopenError) as e:
        suite.load(suite.records, [])
    assert e.value.code == "scene-not-found"
    with pytest.raises(SceneLoadError):  # loading a file that is not there says why
        suite.graph(suite.records[0])
    shutil.copy(folder / "scene.json", tmp_path / "out" / "scene.json")
    assert reopen_suite(path).scene_path(suite.records[0]) == tmp_path / "out" / "scene.json"
    shutil.copy(folder / "other.json", tmp_path / "scene.json")
    assert reopen_suite(path).scene_path(suite.records[0]) == Path("scene.json")


def test_unreadable_inputs_are_reopen_errors(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(ReopenError) as e:
        reopen_suite(tmp_path / "missing.jsonl")
    assert e.value.code == "suite"
    (tmp_path / "binary.jsonl").write_bytes(b"\xff\xfe")
    with pytest.raises(ReopenError) as e:
        reopen_suite(tmp_path / "binary.jsonl")
    assert str(e.value) == (f"{tmp_path / 'binary.jsonl'}: cannot read the suite: not UTF-8 "
                            "text: byte 0xff at line 1, column 1")
    path = copy_suite(folder, tmp_path / "bad")
    (tmp_path / "bad" / "manifest.json").write_text("{oops")
    with pytest.raises(ReopenError) as e:
        reopen_suite(path).read_manifest()
    assert e.value.code == "manifest"
    lenient = reopen_suite(path)
    assert lenient.read_manifest_leniently() == "not an fdc manifest; ignored"
    assert lenient.read_manifest() is None
    rewrite(path, scene=None)
    suite = reopen_suite(path)
    with pytest.raises(ReopenError) as e:
        suite.scene_path(suite.records[0])
    assert e.value.code == "no-scene"
