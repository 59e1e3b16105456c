"""Memory-manipulation tasks ("put the first object you moved back where you found it"):
a memory template whose goal changes the world. They start where the experience ends,
have no goal frames, are tagged `memory` and `manipulation`, and `fdc validate --solve`
plans them from the world the experience left behind (before: skipped, never planned).
The agents and evaluation side: tests/evaluation/test_memory_manipulation.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler import ast as A
from fdc.compiler.check import check_sources
from fdc.compiler.suite import TaskRecord, is_memory_manipulation, parse_suite
from fdc.compiler.templates import is_memory_manipulation_template, is_memory_template
from fdc.core.problems import SourceFile
from fdc.domain import builtin_domain_files
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import atom

REPO = Path(__file__).resolve().parents[2]
APARTMENT = str(REPO / "examples" / "scenes" / "apartment.json")
LIBRARY = REPO / "domain" / "templates" / "memory-manipulation"
NAMES = {"mm-first-moved-back", "mm-last-placed-back", "mm-longest-to-counter"}

#: A user's template as the issue wrote it, tagged `memory` only: its goal moves an item.
PUT_BACK = """
(define (template my-put-back)
  (:domain fdc-home)
  (:category mine)
  (:tags memory single-goal)
  (:parameters ?o - movable ?s - surface ?f - furniture)
  (:constraints (and
    (= (interaction-order ?o) 1)
    (picked-from ?o ?s)
    (surface-of ?s ?f)
    (exactly 1 (?x - surface) (picked-from ?o ?x))))
  (:goal (on ?o ?s))
  (:instruction "Put the first object you moved yesterday back where you found it."))
"""
#: A memory template answered by returning somewhere: not memory-manipulation.
GO_TO = """
(define (template my-go-to)
  (:domain fdc-home)
  (:category mine)
  (:tags memory single-goal)
  (:parameters ?o - movable)
  (:constraints (= (interaction-order ?o) 1))
  (:goal (robot-at-object ?o))
  (:instruction "Go to the first object you moved yesterday."))
"""


def run(*args: str) -> tuple[int, str]:
    """Exit code and standard output (standard error after it when the code is not 0)."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout + (result.stderr if result.exit_code else "")


def _template(text: str) -> A.Template:
    library = [SourceFile.read(str(p)) for p in builtin_domain_files()]
    result = check_sources([SourceFile("t.pddl", text)], library)
    assert not result.errors, result.diagnostics
    (_, t), = result.templates.values()
    return t


def test_the_mixed_kind_is_a_memory_template_whose_goal_changes_the_world() -> None:
    reg = default_registry()
    put_back, go_to = _template(PUT_BACK), _template(GO_TO)
    assert is_memory_template(put_back, reg) and is_memory_manipulation_template(put_back, reg)
    assert is_memory_template(go_to, reg) and not is_memory_manipulation_template(go_to, reg)
    goal = atom("on", "mug", "table|top")
    mixed = TaskRecord(id="t-1", template="t", goal=goal, experience="0" * 64,
                       tags=["memory", "manipulation"])
    assert is_memory_manipulation(mixed)
    assert not is_memory_manipulation(mixed.model_copy(update={"experience": None}))
    assert not is_memory_manipulation(mixed.model_copy(update={"tags": ["memory"]}))


@pytest.fixture(scope="module")
def user_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mine")
    (folder / "mine.pddl").write_text(PUT_BACK)
    path = folder / "suite.jsonl"
    code, out = run("compile", APARTMENT, "-T", str(folder / "mine.pddl"),
                    "--max-per-template", "0", "-o", str(path))
    assert code == 0, out
    return path


@pytest.fixture(scope="module")
def library_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("library") / "suite.jsonl"
    code, out = run("compile", APARTMENT, "-T", str(LIBRARY), "--max-per-template", "0",
                    "-o", str(path))
    assert code == 0, out
    return path


@pytest.mark.slow
def test_a_users_template_compiles_to_acted_tasks_that_start_after_the_experience(
        user_suite: Path) -> None:
    records, problems = parse_suite(user_suite.read_text())
    assert not problems and len(records) == 1
    r = records[0]
    assert r.experience is not None and is_memory_manipulation(r)
    assert r.tags == ["memory", "single-goal", "manipulation"]  # the kind added
    assert r.valid_frames is None and r.optimal_path_m is None and not r.flags
    manifest = json.loads((user_suite.parent / "manifest.json").read_text())
    assert manifest["scenes"][0]["experience"]["simulated"]
    assert r.start is not None  # where the experience ends, not the scene's agent
    agent = json.loads(Path(APARTMENT).read_text())["agent"]["position"]
    assert (r.start.x, r.start.y) != (agent[0], agent[1])


@pytest.mark.slow
def test_validate_solve_plans_them_from_the_world_after_the_experience(
        user_suite: Path) -> None:
    """Before: `--solve` skipped every task with an experience (planned 0)."""
    code, out = run("validate", str(user_suite), "--solve", "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["planned"] == report["certified"] == report["tasks"] == 1
    (task,) = report["task_reports"]
    assert task["memory"] and task["certificate"]["status"] == "solved"
    assert not task["findings"]


@pytest.mark.slow
def test_the_library_templates_compile_and_are_certified(library_suite: Path) -> None:
    records, _ = parse_suite(library_suite.read_text())
    assert {r.template for r in records} >= NAMES
    assert all(is_memory_manipulation(r) and r.valid_frames is None for r in records)
    code, out = run("validate", str(library_suite), "--solve", "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["certified"] == report["planned"] == report["tasks"] == len(records)
