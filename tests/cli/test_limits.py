"""Hostile input at every door of the CLI: special files, JSON nested past the stack,
numbers past Python's conversion limit, thresholds that are not numbers, a gzip bomb, a
template whose bindings explode, instructions that would render without end. Each gives
its exit code and a located message naming the limit, no traceback, nothing written,
within 2 GB of memory (the CLI runs in a subprocess under RLIMIT_AS) and a timeout."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, runner

GOLDEN = REPO / "tests" / "golden"
KITCHEN = GOLDEN / "scenes" / "kitchen.json"
SUITE = GOLDEN / "suite.jsonl"
GB = 1 << 30


def _two_gigabytes() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * GB, 2 * GB))


def fdc(*args: str | Path, cwd: Path = REPO, timeout: float = 120) -> tuple[int, str]:
    """The CLI in a subprocess under 2 GB of address space: its exit code and output."""
    done = subprocess.run(
        [sys.executable, "-c", "from fdc.cli import main; main()", *map(str, args)],
        cwd=cwd, preexec_fn=_two_gigabytes, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "COLUMNS": "200"})
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out
    return done.returncode, out


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_limit_settings_are_checked_before_the_command() -> None:
    result = runner.invoke(__import__("fdc.cli").cli.app,
                           ["--limit", "json_dept=5", "scene", "inspect", str(KITCHEN)])
    assert result.exit_code == 2
    assert "unknown limit `json_dept`" in result.output
    assert "did you mean `json_depth`?" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo", "dir"])
def test_special_files_are_not_read(tmp_path: Path, special: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    path = tmp_path / special if special in ("fifo", "dir") else Path(special)
    for args in (["scene", "inspect", path],
                 ["verify", SUITE, "--trajectory", path],
                 ["evaluate", SUITE, "--predictions", path],
                 ["import", "partnr", path, "-o", tmp_path / "out.jsonl"],
                 ["check", path] if special != "dir" else ["check", "/dev/null"]):
        code, out = fdc(*args, timeout=60)
        assert code == 2, (args, out)
        assert "not a regular file" in out, (args, out)
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_every_command_refuses_a_special_input_in_the_readers_words(tmp_path: Path,
                                                                    special: str) -> None:
    """compile, explain, validate, the exports, run-baseline and import habitat check
    their inputs before work starts, in the words of the one reader (they said "no such
    file" of /dev/zero)."""
    from fdc.cli import app

    os.mkfifo(tmp_path / "fifo")
    path = str(tmp_path / special if special == "fifo" else Path(special))
    out = tmp_path / "out"
    for args in (["compile", path, "-o", str(out / "suite.jsonl")],
                 ["compile", str(KITCHEN), "--history", path, "-o", str(out / "suite.jsonl")],
                 ["explain", "place-on", "--scene", path],
                 ["validate", path],
                 ["validate", str(SUITE), "--scene", path],
                 ["export", "pddl", path, "-o", str(out)],
                 ["export", "habitat", path, "-o", str(out)],
                 ["export", "partnr", path, "-o", str(out / "episodes.json.gz")],
                 ["run-baseline", "random", path, "-o", str(out / "preds.jsonl")],
                 ["import", "habitat", path, "--scene", "s", "-o", str(out / "scene.json")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert f"{path}: error: cannot read " in result.output, (args, result.output)
        assert ": not a regular file" in result.output, (args, result.output)
        assert not out.exists(), args


@pytest.mark.slow
def test_json_nested_past_the_stack_is_located(tmp_path: Path) -> None:
    """A scene, a trajectory, a suite line, a predictions line and a manifest, each
    nested 100,000 deep: exit 2 with the file, the line and the JSON path."""
    (tmp_path / "scene.json").write_text('{"rooms": ' + deep(100_000) + "}")
    code, out = fdc("scene", "inspect", tmp_path / "scene.json")
    assert code == 2 and "nested deeper than 100 levels at `rooms[0][0]" in out
    assert "line 1, column" in out and "--limit json_depth=N" in out

    (tmp_path / "run.jsonl").write_text('{"kind": "fdc-trajectory"}\n' + deep(100_000) + "\n")
    code, out = fdc("verify", SUITE, "--trajectory", tmp_path / "run.jsonl")
    assert code == 2 and "run.jsonl:2" in out and "nested deeper than 100 levels" in out

    suite = tmp_path / "suite.jsonl"
    suite.write_text(SUITE.read_text() + '{"goal": ' + deep(100_000) + "}\n")
    code, out = fdc("validate", suite)
    lines = len(SUITE.read_text().splitlines())
    assert code == 1 and f"suite.jsonl:{lines + 1}: error" in out  # a finding of validate
    assert "nested deeper than 100 levels at `goal" in out

    (tmp_path / "preds.jsonl").write_text('{"task_id": ' + deep(100_000) + "}\n")
    code, out = fdc("evaluate", SUITE, "--predictions", tmp_path / "preds.jsonl")
    assert code == 1 and "preds.jsonl:1: error[bad-line]: not JSON: nested deeper than 100 " \
        "levels at `task_id" in out  # a bad line is scored as a failure, and reported

    folder = tmp_path / "m"
    folder.mkdir()
    shutil.copy(SUITE, folder / "suite.jsonl")
    (folder / "manifest.json").write_text('{"scenes": ' + deep(100_000) + "}")
    code, out = fdc("validate", folder / "suite.jsonl")
    assert code == 2 and "manifest.json" in out and "nested deeper than 100 levels" in out


@pytest.mark.slow
def test_numbers_past_python_conversion_are_located(tmp_path: Path) -> None:
    scene = json.loads(KITCHEN.read_text())
    text = json.dumps(scene, indent=1).replace('"rooms": [', '"rooms": [' + "9" * 5000 + ",", 1)
    (tmp_path / "scene.json").write_text(text)
    code, out = fdc("scene", "inspect", tmp_path / "scene.json")
    assert code == 2 and "a number of 5000 characters at `rooms[0]`" in out
    assert "--limit number_digits=N" in out

    (tmp_path / "t.pddl").write_text(
        "(define (template t) (:domain fdc-home) (:parameters ?o - movable)\n"
        f"  (:goal (at-least {'9' * 5000} (?x - movable) (on ?x ?o)))\n"
        '  (:instruction "Move {{ o | ref }}."))\n')
    code, out = fdc("check", tmp_path / "t.pddl")
    assert code == 1 and "t.pddl:2:20: error[P006]: a number of 5000 characters" in out


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "x"])
def test_thresholds_must_be_finite_and_not_negative(value: str, tmp_path: Path) -> None:
    result = runner.invoke(__import__("fdc.cli").cli.app, [
        "verify", str(SUITE), "--trajectory", str(tmp_path / "none.jsonl"),
        "--threshold", f"on_top_m={value}"])
    assert result.exit_code == 2, result.output
    assert "--threshold wants NAME=NUMBER with a finite number >= 0" in result.output \
        or "cannot read the file" in result.output


@pytest.mark.slow
def test_a_gzip_bomb_stops_at_the_episodes_limit(tmp_path: Path) -> None:
    """A 1 MB PARTNR file that unpacks to 1 GB (past the default 512 MiB): exit 2
    naming the limit, within 2 GB of memory, nothing written."""
    pack = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b" " * (1 << 20)
    with open(tmp_path / "bomb.json.gz", "wb") as f:
        f.write(pack.compress(b'{"episodes": ['))
        for _ in range(1024):
            f.write(pack.compress(chunk))
        f.write(pack.compress(b"]}") + pack.flush())
    assert (tmp_path / "bomb.json.gz").stat().st_size < 8 << 20
    code, out = fdc("import", "partnr", tmp_path / "bomb.json.gz", "-o", tmp_path / "s.jsonl")
    assert code == 2, out
    assert "unpacks to more than 536870912 bytes, the limit `episodes_bytes`" in out
    assert not (tmp_path / "s.jsonl").exists()


EIGHT = """(define (template eight)
  (:domain fdc-home)
  (:parameters ?a ?b ?c ?d ?e ?f ?g ?h - object)
  (:goal (and (holding ?a) (holding ?b) (holding ?c) (holding ?d) (holding ?e) (holding ?f)
              (holding ?g) (holding ?h)))
  (:instruction "Take {{ a | ref }}."))
"""


@pytest.mark.slow
def test_a_template_over_every_object_stops_before_binding(tmp_path: Path) -> None:
    (tmp_path / "eight.pddl").write_text(EIGHT)
    code, out = fdc("compile", KITCHEN, "-T", tmp_path / "eight.pddl", "--no-history",
                    "--max-per-template", "0", "-o", tmp_path / "out" / "suite.jsonl",
                    timeout=60)
    assert code == 1, out
    assert "template `eight`: more than 1000000 candidate bindings" in out
    assert "the limit `template_bindings`" in out


HOSTILE_INSTRUCTIONS = """(define (template loud)
  (:domain fdc-home)
  (:parameters ?o - movable)
  (:goal (holding ?o))
  (:instruction "Take {{ o * 100000 }}."))
"""


@pytest.mark.slow
def test_an_instruction_past_a_render_limit_drops_its_bindings(tmp_path: Path) -> None:
    """Not decidable statically (it depends on the parameter's text): each binding drops
    with the typed reason, in seconds."""
    (tmp_path / "loud.pddl").write_text(HOSTILE_INSTRUCTIONS)
    code, out = fdc("check", tmp_path / "loud.pddl")
    assert code == 0, out
    code, out = fdc("compile", KITCHEN, "-T", tmp_path / "loud.pddl", "--no-history",
                    "-o", tmp_path / "out" / "suite.jsonl", timeout=60)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    drops = json.dumps(manifest)
    assert "instruction rendering went past the limit `render_chars`" in drops, drops


def test_non_finite_numbers_in_a_suite_are_bad_lines(tmp_path: Path) -> None:
    """A threshold of NaN in a suite once reached the checkers (a ValueError traceback in
    `fdc verify`); the record model refuses it, located."""
    from fdc.compiler.suite import parse_suite

    line = json.loads(SUITE.read_text().splitlines()[0])
    line["thresholds"] = {"on_top_m": float("nan")}
    records, problems = parse_suite(json.dumps(line) + "\n")
    assert records == [] and problems
    assert problems[0].where == "thresholds.on_top_m" and problems[0].line == 1


@pytest.mark.slow
def test_limits_reach_the_compile_workers(tmp_path: Path) -> None:
    """`--limit` is in effect in the worker processes of `compile --jobs` too: a limit the
    scene build checks (in the worker) stops both scenes there."""
    second = tmp_path / "kitchen2.json"
    shutil.copy(KITCHEN, second)
    code, out = fdc("--limit", "nav_cells=100", "compile", KITCHEN, second, "--jobs", "2",
                    "-o", tmp_path / "out" / "suite.jsonl", timeout=600)
    assert code == 2, out
    assert "error[G040]" in out and "the limit `nav_cells`" in out, out
    assert not (tmp_path / "out").exists()
