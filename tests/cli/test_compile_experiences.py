"""Several experiences (days) per scene: `fdc compile --experiences K` and K `--history`
logs per scene. Task ids stay unique (a later day's memory tasks hold its experience in
the id; day 1's ids are those of a one-day compile), the manifest lists every (scene,
experience) pair, the output is byte-identical for the same seed, and validate, evaluate,
run-baseline and audit take each task's own experience."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.reopen import reopen_suite
from fdc.compiler.suite import read_suite
from fdc.core.hashing import sha256_text

REPO = Path(__file__).resolve().parents[2]
KITCHEN = REPO / "tests" / "golden" / "scenes" / "kitchen.json"
TEMPLATES = REPO / "tests" / "golden" / "templates"
#: A day of six interactions: with three, the kitchen's later days leave no memory binding
#: whose targets a frame shows (such bindings drop), so a day would add no task.
DAY = "6"


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    """A command's exit code and the JSON report on its standard output."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, report


def compile_(out: Path, *args: str | Path) -> dict[str, Any]:
    """Compile the golden templates on the kitchen into `out`: the manifest."""
    code, text = run("compile", *args, "-T", TEMPLATES, "--interactions", DAY,
                     "-o", out / "suite.jsonl")
    assert code == 0, text
    manifest: dict[str, Any] = json.loads((out / "manifest.json").read_text())
    return manifest


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "suite.jsonl").read_text().splitlines()]


def logs(tmp_path: Path) -> tuple[Path, Path]:
    """Two days of the kitchen (seeds 1 and 2)."""
    days = tmp_path / "day1.json", tmp_path / "day2.json"
    for seed, path in enumerate(days, start=1):
        code, text = run("experience", "generate", KITCHEN, "-n", DAY, "--seed", str(seed),
                         "-o", path)
        assert code == 0, text
    return days


def validate(out: Path) -> dict[str, Any]:
    code, report = run_json("validate", out / "suite.jsonl", "--format", "json")
    assert code == 0 and report["errors"] == 0, report
    return report


def test_experiences_k_compiles_a_day_per_seed_with_unique_ids(tmp_path: Path) -> None:
    one = compile_(tmp_path / "one", KITCHEN)
    two = compile_(tmp_path / "two", KITCHEN, "--experiences", "2")
    days = two["scenes"]
    assert [d["path"] for d in days] == [str(KITCHEN)] * 2
    assert [d["experience"]["seed"] for d in days] == [0, 1]  # day d: seed + d - 1
    assert days[0] == one["scenes"][0]  # day 1 is what a one-day compile simulates
    shas = [d["experience"]["sha256"] for d in days]
    assert len(set(shas)) == 2
    got = records(tmp_path / "two")
    assert len({r["id"] for r in got}) == len(got) == two["tasks"]
    assert read_suite(tmp_path / "two" / "suite.jsonl")[1] == []
    # day 1 keeps the ids of a one-day compile; day 2 adds its memory tasks alone
    assert {r["id"] for r in records(tmp_path / "one")} <= {r["id"] for r in got}
    later = [r for r in got if r["experience"] == shas[1]]
    assert later and days[1]["tasks"] == len(later)
    assert all("memory" in r["tags"] for r in later)
    assert Counter(r["experience"] for r in got)[None] == \
        Counter(r["experience"] for r in records(tmp_path / "one"))[None]
    validate(tmp_path / "two")


def test_a_simulated_day_is_the_day_experience_generate_simulates(tmp_path: Path) -> None:
    """Day d of `--seed S` is `fdc experience generate --seed S+d-1` (the same frames and
    interactions; the header names the scene as each command was given it)."""
    manifest = compile_(tmp_path / "s", KITCHEN, "--experiences", "2", "--seed", "5")
    assert manifest["scenes"][1]["experience"]["seed"] == 6
    code, text = run("experience", "generate", KITCHEN, "-n", DAY, "--seed", "6",
                     "-o", tmp_path / "day2.json")
    assert code == 0, text
    generated = json.loads((tmp_path / "day2.json").read_text())
    suite = reopen_suite(tmp_path / "s" / "suite.jsonl")
    sha = manifest["scenes"][1]["experience"]["sha256"]
    record = next(r for r in suite.records if r.experience == sha)
    rebuilt = json.loads(suite.experience(record).to_json())
    for key in ("seed", "frames", "interactions"):
        assert rebuilt[key] == generated[key], key


def test_experiences_are_deterministic_for_any_number_of_workers(tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    compile_(outs[0], KITCHEN, "--experiences", "3", "--seed", "4")
    compile_(outs[1], KITCHEN, "--experiences", "3", "--seed", "4")
    compile_(outs[2], KITCHEN, "--experiences", "3", "--seed", "4", "--jobs", "2")
    for name in ("suite.jsonl", "manifest.json"):
        texts = {(o / name).read_bytes() for o in outs}
        assert len(texts) == 1, name


def test_several_logs_for_one_scene_are_its_days(tmp_path: Path) -> None:
    day1, day2 = logs(tmp_path)
    manifest = compile_(tmp_path / "s", KITCHEN, "--history", day1, "--history", day2)
    refs = [s["experience"] for s in manifest["scenes"]]
    assert [r["path"] for r in refs] == [str(day1), str(day2)]
    assert [r["sha256"] for r in refs] == [sha256_text(p.read_bytes()) for p in (day1, day2)]
    got = records(tmp_path / "s")
    assert len({r["id"] for r in got}) == len(got)
    assert {r["experience"] for r in got} == {None, refs[0]["sha256"], refs[1]["sha256"]}
    validate(tmp_path / "s")


def test_a_scene_given_twice_with_two_logs_validates(tmp_path: Path) -> None:
    """Failed before: validate took the first log for every task of the scene
    ("experience sha256 differs")."""
    day1, day2 = logs(tmp_path)
    compile_(tmp_path / "s", KITCHEN, KITCHEN, "--history", day1, "--history", day2)
    got = records(tmp_path / "s")
    assert len({r["id"] for r in got}) == len(got)
    report = validate(tmp_path / "s")
    assert not any(f["code"] == "experience" for t in report["task_reports"]
                   for f in t["findings"])


def test_two_days_with_one_experience_are_an_input_error(tmp_path: Path) -> None:
    day1, _ = logs(tmp_path)
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--history", day1, "--history", day1,
                    "-o", tmp_path / "s" / "suite.jsonl")
    assert code == 2, out
    assert "days 1 and 2 have the same experience" in out and "Traceback" not in out
    assert not (tmp_path / "s").exists()


def test_experience_options_that_disagree_exit_2(tmp_path: Path) -> None:
    day1, day2 = logs(tmp_path)
    code, out = run("compile", KITCHEN, KITCHEN, "-T", TEMPLATES, "--history", day1,
                    "--history", day2, "--history", day1)
    assert code == 2 and "3 --history log(s) for 2 scene(s)" in out
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--history", day1,
                    "--history", day2, "--experiences", "3")
    assert code == 2 and "give 3 per scene" in out
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--experiences", "2", "--no-history")
    assert code == 2 and "--no-history" in out


def test_later_days_are_left_out_when_no_template_reads_history(tmp_path: Path) -> None:
    template = tmp_path / "t.pddl"
    template.write_text("(define (template hold) (:domain fdc-home) (:parameters ?o - mug)\n"
                        "  (:goal (holding ?o)) (:instruction \"Pick up the {{ o }}.\"))\n")
    code, out = run("compile", KITCHEN, "-T", template, "--experiences", "2",
                    "-o", tmp_path / "s" / "suite.jsonl")
    assert code == 0, out
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert len(manifest["scenes"]) == 1 and manifest["scenes"][0]["experience"] is None


@pytest.mark.slow
def test_evaluate_run_baseline_and_audit_take_each_days_experience(tmp_path: Path) -> None:
    compile_(tmp_path, KITCHEN, "--experiences", "2")
    suite = tmp_path / "suite.jsonl"
    code, out = run("run-baseline", "oracle", suite, "-o", tmp_path / "pred.jsonl")
    assert code in (0, 1), out
    code, out = run("evaluate", suite, "-p", tmp_path / "pred.jsonl",
                    "-o", tmp_path / "report.json")
    report = json.loads((tmp_path / "report.json").read_text())
    assert code in (0, 1) and report["errors"] == 0, out
    shas = {r["experience"] for r in records(tmp_path)} - {None}
    assert len(shas) == 2
    memory = [r["id"] for r in records(tmp_path) if r["experience"] is not None]
    _, audit = run_json("audit", suite, *[x for i in memory for x in ("--task", i)],
                        "--format", "json")
    details = " ".join(d["detail"] for d in audit["disagreements"])
    assert "sha256" not in details and "experience" not in details, details


def test_a_folder_of_generated_scenes_compiles_each_with_k_days(tmp_path: Path) -> None:
    code, text = run("scene", "generate", "--count", "2", "--seed", "1", "--rooms", "2",
                     "--objects", "24", "-o", tmp_path / "family")
    assert code == 0, text
    manifest = compile_(tmp_path / "out", tmp_path / "family", "--experiences", "2",
                        "--max-per-template", "1")
    files = [str(tmp_path / "family" / f"scene-{k:03d}.json") for k in range(2)]
    assert [s["path"] for s in manifest["scenes"]] == [f for f in files for _ in range(2)]
    assert [s["experience"]["seed"] for s in manifest["scenes"]] == [0, 1, 0, 1]
    (tmp_path / "empty").mkdir()
    code, text = run("compile", tmp_path / "empty", "-T", TEMPLATES)
    assert code == 2 and "no scene file (*.json) in the folder" in text
