"""Output confinement, writer by writer: whatever a suite's ids or a template's names
say, fdc writes only inside the output the user named; outputs that are not regular
files are refused (exit 2, naming the option); an error or an interrupt leaves nothing
half-written."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from fdc.cli import app
from tests.cli.helpers import REPO, runner
from tests.sim_bridge.helpers import FIXTURES, TEST_ASSETS

GOLDEN = REPO / "tests" / "golden"
LINES = (GOLDEN / "suite.jsonl").read_text().splitlines()
MEMORY, PROCESS = LINES[0:2], LINES[7:9]  # the kitchen's: memory tasks, process tasks
PARTNR = FIXTURES / "habitat" / "partnr" / "collaboration_episodes_sample.json.gz"
DATASET_0 = TEST_ASSETS / "dataset_tests/dataset_0/test_dataset_0.scene_dataset_config.json"


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def flat(output: str) -> str:
    """The output without the boxes and line breaks of typer's usage errors."""
    return " ".join(output.replace("│", " ").split())


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def suite(folder: Path, lines: list[str], *ids: str, manifest: bool = False) -> Path:
    """A suite of golden `lines`, their ids replaced by `ids`."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [json.loads(x) for x in lines]
    for r, ident in zip(records, ids, strict=False):
        r["id"] = ident
    path = folder / "suite.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    if manifest:
        (folder / "manifest.json").write_text((GOLDEN / "manifest.json").read_text())
    return path


@pytest.fixture
def at_repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(REPO)  # the golden suite names its scenes from the repository
    yield


# --------------------------------------------------------------------------- hostile ids

WRITERS = {
    "validate": ["validate", "SUITE"],
    "export pddl": ["export", "pddl", "SUITE", "-o", "OUT"],
    "export habitat": ["export", "habitat", "SUITE", "-o", "OUT"],
    "export partnr": ["export", "partnr", "SUITE", "-o", "OUT/episodes.json.gz"],
    "run-baseline": ["run-baseline", "oracle", "SUITE", "-o", "OUT/preds.jsonl"],
    "export vlm": ["export", "vlm", "SUITE", "-o", "OUT"],
    "run-agent vlm": ["run-agent", "vlm", "SUITE", "--endpoint", "http://127.0.0.1:9",
                      "--model", "m", "-o", "OUT/preds.jsonl"],
    "evaluate": ["evaluate", "SUITE", "-p", "SUITE", "-o", "OUT/report.json"],
    "verify": ["verify", "SUITE", "--trajectory", "SUITE"],
}


@pytest.mark.parametrize("command", list(WRITERS))
@pytest.mark.parametrize("ident", ["../../escaped", "ABS", ".hidden", "a\\b"])
def test_a_hostile_id_is_a_located_error_and_nothing_is_written(
        command: str, ident: str, tmp_path: Path, at_repo: None) -> None:
    ident = str(tmp_path / "abs") if ident == "ABS" else ident
    path = suite(tmp_path / "in", PROCESS, ident)
    out = tmp_path / "deep" / "out"
    args = [str(path) if a == "SUITE" else a.replace("OUT", str(out))
            for a in WRITERS[command]]
    code, output = run(*args)
    # validate reports a bad line as a finding (exit 1), the others cannot go on (exit 2)
    assert code == (1 if command == "validate" else 2), output
    assert ("line 1 at id" in output or f"{path}:1: error[schema] at id" in output), output
    assert "is not a task id" in output
    assert "Traceback" not in output
    # validate keeps each task's result beside the suite, in files named by hashes
    cache = {f for f in files_under(tmp_path) if f.startswith("in/suite.cache")}
    assert all(re.fullmatch(r"[0-9a-f]+(\.json)?|validate|suite\.cache", Path(f).name)
               for f in cache)
    assert files_under(tmp_path) - cache == {"in", "in/suite.jsonl"}


def test_a_hostile_task_id_in_predictions_is_located(tmp_path: Path, at_repo: None) -> None:
    path = suite(tmp_path, PROCESS, "t-1")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"task_id": "../../x", "actions": []}) + "\n")
    code, output = run("evaluate", path, "-p", preds)
    assert code == 1, output
    assert f"{preds}:1 at task_id: error" in output and "is not a task id" in output


# --------------------------------------------------------------------------- ids by case


@pytest.mark.slow
def test_export_pddl_refuses_ids_that_differ_only_in_case(tmp_path: Path,
                                                          at_repo: None) -> None:
    path = suite(tmp_path / "in", PROCESS, "Task-a", "task-a")
    code, output = run("export", "pddl", path, "-o", tmp_path / "out")
    assert code == 2, output
    assert "`task-a` and `Task-a` name the same file when case is ignored" in output
    assert files_under(tmp_path) == {"in", "in/suite.jsonl"}
    path = suite(tmp_path / "in", PROCESS, "Task-a", "task-b")
    code, output = run("export", "pddl", path, "-o", tmp_path / "out")
    assert code == 0, output
    assert files_under(tmp_path / "out") == {"domain.pddl", "index.json", "Task-a.pddl",
                                             "task-b.pddl"}


# --------------------------------------------------------------------------- run-baseline


@pytest.mark.slow
def test_run_baseline_writes_predictions_and_trajectories_together(
        tmp_path: Path, at_repo: None) -> None:
    path = suite(tmp_path, MEMORY, manifest=True)
    code, output = run("run-baseline", "oracle", path, "-o", tmp_path / "p.jsonl")
    assert code == 0, output
    ids = [json.loads(x)["id"] for x in MEMORY]
    assert files_under(tmp_path) == {"suite.jsonl", "manifest.json", "p.jsonl",
                                     "p.trajectories",
                                     *(f"p.trajectories/{i}.jsonl" for i in ids)}


@pytest.mark.slow
def test_run_baseline_interrupted_leaves_no_file(tmp_path: Path, at_repo: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import fdc.agents.baselines as baselines

    real, calls = baselines.oracle_run, []

    def interrupted(*args: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(baselines, "oracle_run", interrupted)
    path = suite(tmp_path, MEMORY, manifest=True)
    code, output = run("run-baseline", "oracle", path, "-o", tmp_path / "p.jsonl")
    assert (code, output) == (130, "fdc: interrupted\n")
    assert len(calls) == 2  # the first trajectory was made, and is gone
    assert files_under(tmp_path) == {"suite.jsonl", "manifest.json"}


# --------------------------------------------------------------------------- compile


@pytest.mark.slow
def test_compile_makes_ids_of_hostile_template_names(tmp_path: Path, at_repo: None) -> None:
    templates = tmp_path / "t.pddl"
    templates.write_text((GOLDEN / "templates" / "golden.pddl").read_text().replace(
        "(template golden-", "(template x/../../golden-"))
    code, output = run("compile", GOLDEN / "scenes" / "kitchen.json", "-T", templates,
                       "--no-history", "--max-per-template", "1", "-o",
                       tmp_path / "out" / "suite.jsonl")
    assert code == 0, output
    cache = {f for f in files_under(tmp_path) if f.startswith("out/suite.cache")}
    assert files_under(tmp_path) - cache == {"t.pddl", "out", "out/suite.jsonl",
                                             "out/manifest.json"}
    # the shard cache names its files by hashes, never by a template's name
    assert all(re.fullmatch(r"[0-9a-f]+(\.jsonl)?|shard\.json", Path(f).name)
               for f in cache - {"out/suite.cache"})
    ids = [json.loads(x)["id"] for x in (tmp_path / "out" / "suite.jsonl").open()]
    assert ids and all(i.startswith("x_.._.._golden-") for i in ids)
    code, output = run("validate", tmp_path / "out" / "suite.jsonl")
    assert "is not a task id" not in output


def test_compile_refuses_a_manifest_path_it_cannot_write_before_compiling(
        tmp_path: Path, at_repo: None) -> None:
    (tmp_path / "manifest.json").mkdir()
    code, output = run("compile", GOLDEN / "scenes" / "kitchen.json", "-T",
                       GOLDEN / "templates", "--no-history", "--max-per-template", "1",
                       "-o", tmp_path / "suite.jsonl")
    assert code == 2, output
    assert f"error: cannot write {tmp_path / 'manifest.json'}: is a folder" in output
    assert files_under(tmp_path) == {"manifest.json"}


def test_emit_writes_the_suite_and_the_manifest_or_neither(tmp_path: Path) -> None:
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.shards import compile_sharded, emit_sharded
    from fdc.core.errors import OutputError

    options = CompileOptions()
    run = compile_sharded([], [], options)  # nothing to compile: an empty suite
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        emit_sharded(tmp_path / "suite.jsonl", run, [], options)
    assert files_under(tmp_path) == {"manifest.json"}
    (tmp_path / "manifest.json").rmdir()
    _, manifest = emit_sharded(tmp_path / "suite.jsonl", run, [], options)
    assert manifest == tmp_path / "manifest.json"
    assert files_under(tmp_path) == {"manifest.json", "suite.jsonl"}


def test_compile_refuses_a_suite_named_like_its_manifest(tmp_path: Path) -> None:
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.shards import compile_sharded, emit_sharded
    from fdc.core.errors import OutputError

    options = CompileOptions()
    with pytest.raises(OutputError, match="the manifest goes beside the suite"):
        emit_sharded(tmp_path / "manifest.json", compile_sharded([], [], options), [], options)
    assert files_under(tmp_path) == set()


# --------------------------------------------------------------------------- import


@pytest.mark.skipif(not PARTNR.is_file(), reason=f"PARTNR sample not found at {PARTNR}")
def test_import_partnr_writes_only_its_output(tmp_path: Path) -> None:
    import gzip

    data = json.loads(gzip.decompress(PARTNR.read_bytes()))
    data["episodes"] = data["episodes"][:2]
    data["episodes"][0]["episode_id"] = "../../../escaped"
    data["episodes"][1]["episode_id"] = str(tmp_path / "abs")
    episodes = tmp_path / "in.json.gz"
    episodes.write_bytes(gzip.compress(json.dumps(data).encode()))
    _, output = run("import", "partnr", episodes, "-o", tmp_path / "out" / "suite.jsonl")
    assert "Traceback" not in output
    assert files_under(tmp_path) <= {"in.json.gz", "out", "out/suite.jsonl"}, output


@pytest.mark.slow
@pytest.mark.skipif(not DATASET_0.is_file(), reason=f"Habitat fixtures not found at {DATASET_0}")
@pytest.mark.parametrize("scene", ["../../escaped", "ABS"])
def test_import_habitat_writes_only_its_output(tmp_path: Path, scene: str) -> None:
    scene = str(tmp_path / "abs") if scene == "ABS" else scene
    code, output = run("import", "habitat", DATASET_0, "--scene", scene, "-o",
                       tmp_path / "out" / "scene.json")
    assert code == 2 and "Traceback" not in output, output
    assert files_under(tmp_path) == set()
    code, output = run("import", "habitat", DATASET_0, "--scene", "dataset_test_scene", "-o",
                       tmp_path / "out" / "scene.json")
    assert code == 0, output
    assert files_under(tmp_path) == {"out", "out/scene.json"}


# --------------------------------------------------------------------------- special files

OUTPUT_OPTIONS = [
    ["compile", "SCENE", "-o", "OUT"],
    ["scene", "generate", "-o", "OUT"],
    ["scene", "render", "SCENE", "-o", "OUT"],
    ["import", "partnr", "SCENE", "-o", "OUT"],
    ["import", "habitat", "SCENE", "--scene", "x", "-o", "OUT"],
    ["export", "partnr", "SCENE", "-o", "OUT"],
    ["run-baseline", "oracle", "SCENE", "-o", "OUT"],
    ["run-agent", "vlm", "SCENE", "--endpoint", "http://127.0.0.1:9", "--model", "m", "-o",
     "OUT"],
    ["evaluate", "SCENE", "-p", "SCENE", "--feedback", "OUT"],
    ["experience", "generate", "SCENE", "-o", "OUT"],
]


@pytest.mark.parametrize("args", OUTPUT_OPTIONS, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("target", ["/dev/full", "fifo", "folder", "link"])
def test_an_output_that_is_not_a_regular_file_is_refused(args: list[str], target: str,
                                                         tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "fifo")
    out = target if target.startswith("/") else str(tmp_path / target)
    scene = tmp_path / "missing.json"
    code, output = run(*[out if a == "OUT" else str(scene) if a == "SCENE" else a
                         for a in args])
    assert code == 2, output
    assert "Invalid value for" in output
    assert ("'--feedback'" if "--feedback" in args else "'-o'") in output
    assert "not a regular file" in flat(output)
    assert Path("/dev/full").is_char_device() and (tmp_path / "fifo").is_fifo()
    assert files_under(tmp_path) == {"fifo", "folder", "link"}


@pytest.mark.parametrize("args", [["export", "pddl", "SCENE", "-o", "OUT"],
                                  ["export", "habitat", "SCENE", "-o", "OUT"],
                                  ["export", "vlm", "SCENE", "-o", "OUT"],
                                  ["evaluate", "SCENE", "-p", "SCENE", "--plots", "OUT"]],
                         ids=lambda a: " ".join(a[:2]))
def test_an_output_folder_that_is_a_file_is_refused(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    code, output = run(*[str(tmp_path / "file") if a == "OUT" else
                         str(tmp_path / "missing") if a == "SCENE" else a for a in args])
    assert code == 2 and "exists and is not a folder" in flat(output), output
    assert (tmp_path / "file").read_text() == "x"


def test_an_unwritable_output_is_exit_2_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    code, output = run("scene", "generate", "--rooms", "1", "--objects", "5", "-o",
                       tmp_path / "file" / "sub" / "scene.json")
    assert code == 2 and "Not a directory" in output and "Traceback" not in output
    code, output = run("scene", "generate", "--rooms", "1", "--objects", "5", "-o",
                       "/proc/fdc-test/scene.json")
    assert code == 2 and "cannot write /proc/fdc-test: " in output, output
    assert "Traceback" not in output
