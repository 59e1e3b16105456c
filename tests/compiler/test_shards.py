"""Shards (`fdc.compiler.shards`): a compile split by (scene, experience), cached under
keys that hash what each shard depends on. A rerun reuses every shard and template whose
key matches (an interrupted run resumes; a changed template file recompiles its own
tasks alone), and the merged suite and manifest are the bytes of an in-memory compile
whatever order the shards finish in. A change of fdc's own code changes every key."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler import shards
from fdc.compiler.executors import LocalExecutor
from fdc.compiler.options import CompileOptions
from fdc.compiler.prepare import SceneJob
from fdc.compiler.shards import (
    FolderCache,
    MemoryCache,
    ShardOutput,
    ShardTask,
    compile_sharded,
    emit_sharded,
    plan_shards,
    shard_key,
)
from fdc.compiler.templates import load_entries

REPO = Path(__file__).resolve().parents[2]
KITCHEN = str(REPO / "tests" / "golden" / "scenes" / "kitchen.json")
GEN_A = str(REPO / "tests" / "golden" / "scenes" / "gen-a.json")
GOLDEN = (REPO / "tests" / "golden" / "templates" / "golden.pddl").read_text()


def split_templates(folder: Path) -> Path:
    """The golden templates, one file each: `folder/NAME.pddl`."""
    folder.mkdir()
    for block in re.split(r"\n(?=\(define )", GOLDEN.strip()):
        block = block.strip()
        if not block.startswith("(define"):
            continue
        name = re.match(r"\(define \(template ([\w-]+)\)", block)
        assert name is not None
        (folder / f"{name.group(1)}.pddl").write_text(block + "\n")
    return folder


class Reversed(LocalExecutor):
    """Shards in this process, finished in the reverse of the order given."""

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]:
        return reversed(list(super().run(tasks)))


def test_shards_merge_to_the_bytes_of_an_in_memory_compile(tmp_path: Path) -> None:
    entries, _ = load_entries([str(REPO / "tests" / "golden" / "templates")])
    options = CompileOptions(seed=3, max_per_template=2)
    jobs = [SceneJob(KITCHEN, interactions=3, day=d) for d in (1, 2)] + \
        [SceneJob(GEN_A, interactions=3), SceneJob(KITCHEN, interactions=3)]  # a twin
    memory = compile_sharded(jobs, entries, options)  # in this process, in memory
    assert isinstance(memory.cache, MemoryCache) and memory.compiled_shards == 4
    emit_sharded(tmp_path / "memory" / "suite.jsonl", memory, entries, options)
    cache = FolderCache(tmp_path / "cache")
    run = compile_sharded(jobs, entries, options, cache, Reversed())
    # 3 shards (the twin's first key is the kitchen's own: compiled once) and the twin's
    assert run.compiled_shards == 4 and run.reused_shards == 0
    emit_sharded(tmp_path / "shards" / "suite.jsonl", run, entries, options)
    for name in ("suite.jsonl", "manifest.json"):
        assert (tmp_path / "shards" / name).read_bytes() == \
            (tmp_path / "memory" / name).read_bytes(), name
    keys = [s.key for s in plan_shards(jobs, entries, options)]
    assert len(set(keys)) == len(keys) - 1  # the twin's first shard is the kitchen's own


def compile_cli(out: Path, templates: Path, *more: str) -> str:
    result = CliRunner().invoke(app, [
        "compile", KITCHEN, GEN_A, "-T", str(templates), "--experiences", "2",
        "--max-per-template", "1", "--interactions", "3", *more,
        "-o", str(out / "suite.jsonl")])
    assert result.exit_code == 0, result.output
    return result.output


def counts(output: str) -> tuple[int, int]:
    """(compiled, reused) tasks, as `fdc compile` says them."""
    found = re.search(r"(\d+) task\(s\) compiled in \d+ shard\(s\), (\d+) reused", output)
    assert found is not None, output
    return int(found.group(1)), int(found.group(2))


@pytest.mark.slow
def test_a_rerun_reuses_shards_and_a_changed_template_recompiles_alone(tmp_path: Path) -> None:
    templates = split_templates(tmp_path / "templates")
    out = tmp_path / "out"
    compile_cli(out, templates)
    first = (out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes()
    tasks = first[0].count(b"\n")
    assert counts(compile_cli(out, templates)) == (0, tasks)  # everything reused
    assert ((out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes()) == first
    # an interrupted run: two shards never finished
    shards = sorted((out / "suite.cache").glob("*/*/shard.json"))
    for meta in shards[:2]:
        shutil.rmtree(meta.parent)
    compiled, reused = counts(compile_cli(out, templates))
    assert 0 < compiled < tasks and compiled + reused == tasks
    assert ((out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes()) == first
    # one template changed (its instruction): only its tasks compile again
    path = templates / "golden-to-surface.pddl"
    path.write_text(path.read_text().replace("\"Move ", "\"Now: move ", 1))
    compiled, reused = counts(compile_cli(out, templates))
    changed = [line for line in (out / "suite.jsonl").read_text().splitlines()
               if '"template": "golden-to-surface"' in line]
    assert compiled == len(changed) > 0 and reused == tasks - compiled
    assert all("Now: " in line for line in changed)
    # any number of workers, another cache: the same bytes
    compile_cli(tmp_path / "two", templates, "--jobs", "2", "--no-cache")
    assert (tmp_path / "two" / "suite.jsonl").read_bytes() == \
        (out / "suite.jsonl").read_bytes()
    assert not (tmp_path / "two" / "suite.cache").exists()


@pytest.mark.parametrize("damage", ["records", "header", "shard", "shape"])
def test_a_damaged_cache_entry_is_compiled_again(tmp_path: Path, damage: str) -> None:
    """An entry edited, truncated or of another shape is compiled again, named in the
    run's `damaged`, and the suite is the bytes of a clean compile (it raised
    JSONDecodeError out of `fdc compile` before)."""
    entries, _ = load_entries([str(REPO / "tests" / "golden" / "templates")])
    options = CompileOptions(seed=3, max_per_template=2)
    jobs = [SceneJob(KITCHEN, interactions=3)]
    cache = FolderCache(tmp_path / "cache")
    run = compile_sharded(jobs, entries, options, cache, LocalExecutor(1))
    emit_sharded(tmp_path / "clean" / "suite.jsonl", run, entries, options)
    meta = next((tmp_path / "cache").glob("*/*/shard.json"))
    entry = max(meta.parent.glob("*.jsonl"), key=lambda f: f.stat().st_size)
    if damage == "records":  # a record line cut short
        entry.write_bytes(entry.read_bytes()[:-40] + b"\n")
    elif damage == "header":
        entry.write_text("{not json\n" + entry.read_text().split("\n", 1)[1])
    elif damage == "shard":
        meta.write_text('{"scene_sha256": ')
    else:
        meta.write_text('{"scene_sha256": 3, "experience": null}\n')
    again = FolderCache(tmp_path / "cache")
    run = compile_sharded(jobs, entries, options, again, LocalExecutor(1))
    assert list(again.damaged) == [str(meta if damage in ("shard", "shape") else entry)]
    emit_sharded(tmp_path / "again" / "suite.jsonl", run, entries, options)
    for name in ("suite.jsonl", "manifest.json"):
        assert (tmp_path / "again" / name).read_bytes() == \
            (tmp_path / "clean" / name).read_bytes(), name
    assert not FolderCache(tmp_path / "cache").damaged  # mended: read back whole now


def test_fdc_compile_says_which_cache_entry_was_damaged(tmp_path: Path) -> None:
    templates = split_templates(tmp_path / "templates")
    out = tmp_path / "out"
    compile_cli(out, templates)
    entry = next((out / "suite.cache").glob("*/*/*.jsonl"))
    entry.write_text("garbage\n")
    output = compile_cli(out, templates)
    assert "warning: 1 damaged cache entry compiled again" in output
    assert entry.name in output.replace("\n", "")


def test_a_shard_key_reads_the_scene_within_its_size_limit(tmp_path: Path) -> None:
    # the key hashed the whole file (`Path.read_bytes`), whatever its size
    import dataclasses

    from fdc.core.errors import InputError
    from fdc.core.limits import current, set_current

    scene = tmp_path / "scene.json"
    shutil.copy(REPO / "examples" / "scenes" / "apartment.json", scene)
    limits = dataclasses.replace(current(), scene_bytes=1000)
    previous = set_current(limits)
    try:
        with pytest.raises(InputError, match=f"{re.escape(str(scene))}: cannot read the scene "
                           "file: the scene file is larger than 1000 bytes"):
            shard_key(SceneJob(str(scene), None), CompileOptions(), False, limits)
    finally:
        set_current(previous)


def test_another_spelling_of_the_same_files_hits_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys hash the files' content, not their paths as typed (the key used to hash
    the scene's path: the main job's cache missed from another folder); what records and
    the manifest name by path is respelled at the merge, so the output is the bytes of a
    fresh compile with that spelling."""
    job, other = tmp_path / "job", tmp_path / "other"
    other.mkdir()
    split_templates(job)  # makes `job`, holding the templates
    shutil.copy(KITCHEN, job / "kitchen.json")
    recall = REPO / "domain" / "templates" / "memory" / "object-recall.pddl"
    shutil.copy(recall, job / "object-recall.pddl")
    out = tmp_path / "out" / "suite.jsonl"

    def compile_from(cwd: Path, scene: str, templates: str, log: str, to: Path,
                     *more: str) -> str:
        monkeypatch.chdir(cwd)
        result = CliRunner().invoke(app, [
            "compile", scene, "-T", templates, "--history", log, "--max-per-template", "1",
            *more, "-o", str(to)])
        assert result.exit_code == 0, result.output
        return result.output

    monkeypatch.chdir(job)
    made = CliRunner().invoke(app, ["experience", "generate", "kitchen.json", "-n", "3",
                                    "-o", "log.json"])
    assert made.exit_code == 0, made.output
    said = compile_from(job, "kitchen.json", ".", "log.json", out)
    compiled = int(re.findall(r"wrote (\d+) task\(s\)", said)[0])
    assert compiled > 0 and "reused" not in said
    spellings = [(job, str(job / "kitchen.json"), str(job), str(job / "log.json")),
                 (other, "../job/kitchen.json", "../job", "../job/log.json"),
                 (job, "../job/./kitchen.json", "../job/", "./log.json")]
    for k, (cwd, scene, templates, log) in enumerate(spellings):
        assert counts(compile_from(cwd, scene, templates, log, out)) == (0, compiled), scene
        fresh = tmp_path / f"fresh{k}" / "suite.jsonl"
        compile_from(cwd, scene, templates, log, fresh, "--no-cache")
        for name in ("suite.jsonl", "manifest.json"):
            assert (out.parent / name).read_bytes() == (fresh.parent / name).read_bytes(), \
                (scene, name)
        first = (out.parent / "suite.jsonl").read_text().splitlines()[0]
        assert f'"scene": "{Path(scene)}"' in first  # as typed (`Path` drops a `./`)


def test_a_shard_key_hashes_the_scene_and_its_meshes_not_their_paths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from fdc.core.limits import current

    data = json.loads(Path(KITCHEN).read_text())
    data["objects"][0]["mesh"] = {"path": "meshes/thing.obj"}
    for folder in ("a", "b"):
        (tmp_path / folder / "meshes").mkdir(parents=True)
        (tmp_path / folder / "scene.json").write_text(json.dumps(data))
        (tmp_path / folder / "meshes" / "thing.obj").write_text("v 0 0 0\n")
    monkeypatch.chdir(tmp_path / "a")

    def key(path: str | Path) -> str:
        return shard_key(SceneJob(str(path), None), CompileOptions(), False, current())

    first = key("scene.json")
    assert key(tmp_path / "a" / "scene.json") == key("../a/scene.json") == first
    assert key(tmp_path / "b" / "scene.json") == first  # the same content elsewhere
    (tmp_path / "b" / "meshes" / "thing.obj").write_text("v 1 0 0\n")
    assert key(tmp_path / "b" / "scene.json") != first  # its mesh differs
    (tmp_path / "b" / "meshes" / "thing.obj").unlink()
    assert key(tmp_path / "b" / "scene.json") != first
    (tmp_path / "a" / "other.json").write_text(json.dumps(data))
    assert key("other.json") != first  # the file's name is the scene's name in a log


def test_a_summary_respelled_names_the_files_as_this_compile_gives_them() -> None:
    from fdc.compiler.emit import TemplateSummary
    from fdc.compiler.manifest import DropExample

    example = DropExample(scene="job/kitchen.json", binding={"?o": "mug_1"}, code="D1",
                          message="dropped")
    summary = TemplateSummary("t", "templates/t.pddl", None, None, 3, False, 3, 0, {"x": 1},
                              {"x": example}, "templates/t.pddl:3:4: cannot ground", {})
    got = summary.respelled("/abs/job/kitchen.json", "/abs/templates/t.pddl")
    assert got.path == "/abs/templates/t.pddl"
    assert got.examples["x"].scene == "/abs/job/kitchen.json"
    assert got.error == "/abs/templates/t.pddl:3:4: cannot ground"
    assert got.respelled("job/kitchen.json", "templates/t.pddl") == summary


def test_the_code_digest_hashes_fdc_s_source_and_data_once() -> None:
    names = {name for name, _ in shards.code_files()}
    assert {"compiler/shards.py", "compiler/grammar.lark", "domain/fdc-home.pddl",
            "predicates/checkers/poses.py", "fdc/cli/compile.py"} <= names
    assert not any("__pycache__" in n or n.startswith(("tests/", "benchmarks/"))
                   for n in names)
    assert any(n.startswith("domain/templates/") and n.endswith(".pddl") for n in names)
    assert shards.code_digest() == shards.code_digest()


def test_the_code_files_are_the_packages_own_however_fdc_is_imported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`benchmarks/memory_compile.py` imports `fdc` from a tree with the tree's root
    among the package's search locations (as the editable install's map reads): the
    code files were then every file under the root, `.venv` included, and hashing them
    cost a third of a second a compile. Each package's files are those of its own
    folder, however it is found."""
    import fdc

    before = shards.code_files()
    spec = fdc.__spec__
    assert spec is not None and spec.submodule_search_locations is not None
    monkeypatch.setattr(spec, "submodule_search_locations",
                        [*spec.submodule_search_locations, str(REPO)])
    assert shards.code_files() == before


def test_a_cache_written_by_other_code_is_compiled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: a checker changed after a compile; the rerun reused the shards the old
    code had compiled. The key holds a hash of fdc's own files (here one checker module
    among them, replaced by an edited copy), so the shard compiles again."""
    entries, _ = load_entries([str(REPO / "tests" / "golden" / "templates")])
    options = CompileOptions(seed=3, max_per_template=1)
    jobs = [SceneJob(KITCHEN, simulate=False)]
    first = compile_sharded(jobs, entries, options, FolderCache(tmp_path / "cache"))
    assert first.compiled_shards == 1
    again = compile_sharded(jobs, entries, options, FolderCache(tmp_path / "cache"))
    assert (again.compiled_shards, again.reused_shards) == (0, 1)
    files = shards.code_files()
    name, path = next((n, p) for n, p in files if n == "predicates/checkers/poses.py")
    edited = tmp_path / "poses.py"
    edited.write_bytes(path.read_bytes() + b"\n# a checker changed\n")
    monkeypatch.setattr(shards, "code_files",
                        lambda: [(n, edited if n == name else p) for n, p in files])
    shards.code_digest.cache_clear()
    try:
        changed = compile_sharded(jobs, entries, options, FolderCache(tmp_path / "cache"))
        assert (changed.compiled_shards, changed.reused_shards) == (1, 0)
        assert changed.shards[0].key != first.shards[0].key
    finally:
        monkeypatch.undo()
        shards.code_digest.cache_clear()


def test_a_library_template_edited_recompiles_its_own_tasks_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: the shard key hashed fdc's code with the built-in templates in it, so
    editing one library template recompiled every shard and every template. The code
    digest leaves the library out, and a template's key holds its own definition (not
    its file's other templates): an edit of one template in a file of several changes
    its key alone, a comment at the end of the file none."""
    files = shards.code_files()
    name, path = next((n, p) for n, p in files if n.startswith("domain/templates/"))
    edited = tmp_path / "edited.pddl"
    edited.write_bytes(path.read_bytes() + b"\n; a template changed\n")
    before = shards.code_digest()
    monkeypatch.setattr(shards, "code_files",
                        lambda: [(n, edited if n == name else p) for n, p in files])
    shards.code_digest.cache_clear()
    try:
        assert shards.code_digest() == before
    finally:
        monkeypatch.undo()
        shards.code_digest.cache_clear()
    golden = tmp_path / "golden.pddl"
    shutil.copy(REPO / "tests" / "golden" / "templates" / "golden.pddl", golden)
    jobs = [SceneJob(KITCHEN, simulate=False)]
    options = CompileOptions(seed=3, max_per_template=1)

    def planned() -> tuple[str, dict[str, str]]:
        entries, _ = load_entries([str(golden)])
        shard = shards.plan_shards(jobs, entries, options)[0]
        return shard.key, dict(shard.templates)

    key, first = planned()
    text = golden.read_text()
    assert len(first) > 3
    golden.write_text(text + "\n; a comment\n")
    assert planned() == (key, first)
    golden.write_text(text.replace('"Move {{ o | ref }}', '"Carry {{ o | ref }}'))
    again, second = planned()
    assert again == key
    assert {t for t in first if first[t] != second[t]} == {"golden-to-surface"}
