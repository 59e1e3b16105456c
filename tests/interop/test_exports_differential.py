"""Every exporter on every suite fdc ships or generates (issue 36), read back by other
systems' readers: the golden suite (three scenes, memory and multi-goal tasks), the
example apartment with the built-in library (manipulation, memory, memory-manipulation),
generated scenes of seeds 1-3, and the Habitat fixture scene.

`fdc export pddl` writes every task (exit 0); `index.json` names every problem's files;
each problem is named by its task id and keeps its objects' names; Fast Downward's own
parser reads every problem; unified-planning's `PDDLReader` loads a sample of each suite
(every kind of problem: shared or own domain, each tag set); Fast Downward, through
unified-planning, solves the exported problem of a sample of tasks `fdc validate --solve`
certifies (the smallest with the shared domain and with one of its own). `fdc export
habitat` writes the Habitat fixture's tasks where expressible and names the rest; on a
suite with no Habitat scene it says why once and writes nothing.

Kept cheap: each suite is compiled and exported once (module-scoped fixtures, at most
one task a template); unified-planning's reader takes about half a second a problem, so
it reads a sample (`FDC_EXPORT_ALL=1` reads every problem: minutes).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.planning import pddl_name
from fdc.compiler.planning.problem import _polar, _quiet
from fdc.compiler.suite import TaskRecord, read_suite, suite_lines
from tests.sim_bridge.helpers import TEST_ASSETS

REPO = Path(__file__).resolve().parents[2]
APARTMENT = REPO / "examples" / "scenes" / "apartment.json"
GOLDEN = REPO / "tests" / "golden" / "suite.jsonl"
DATASET_0 = TEST_ASSETS / "dataset_tests/dataset_0/test_dataset_0.scene_dataset_config.json"
HABITAT_TEMPLATES = Path(__file__).parent / "data" / "habitat_export" / "templates.pddl"
UP_SAMPLE = 8  # problems unified-planning reads per suite
SOLVE_SAMPLE = 2  # certified tasks Fast Downward solves per suite


@dataclass
class Suite:
    name: str
    suite: Path
    records: list[TaskRecord]
    rooms: dict[str, list[str]]  # by scene: every problem keeps its scene's rooms
    out: Path  # `fdc export pddl`'s folder
    code: int
    stdout: str
    stderr: str

    def index(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out / "index.json").read_text())
        return data


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _exported(name: str, suite: Path, out: Path | None = None) -> Suite:
    out = out or suite.parent / "pddl"
    result = _cli("export", "pddl", str(suite), "-o", str(out))
    records, problems = read_suite(suite)
    assert not problems
    rooms = {scene: [r["id"] for r in json.loads(Path(scene).read_text())["rooms"]]
             for scene in {r.scene for r in records if r.scene}}
    return Suite(name, suite, records, rooms, out, result.exit_code, result.stdout,
                 result.stderr)


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    tmp = tmp_path_factory.mktemp("golden")
    with contextlib.chdir(REPO):  # the golden suite names its files from the repository
        return _exported("golden", GOLDEN, tmp / "pddl")


def _compiled(tmp: Path, name: str) -> Suite:
    if name == "apartment":
        scene = APARTMENT
        args: tuple[str, ...] = ()
    elif name.startswith("seed-"):
        scene = tmp / "scene.json"
        made = _cli("scene", "generate", "--rooms", "2", "--objects", "24", "--seed",
                    name.removeprefix("seed-"), "-o", str(scene))
        assert made.exit_code == 0, made.output
        args = ()
    else:
        assert name == "habitat"
        if not TEST_ASSETS.is_dir():
            pytest.skip(f"Habitat fixtures not found at {TEST_ASSETS}")
        scene = tmp / "scene.json"
        made = _cli("import", "habitat", str(DATASET_0), "--scene", "dataset_test_scene",
                    "-o", str(scene))
        assert made.exit_code == 0, made.output
        args = ("-T", str(HABITAT_TEMPLATES), "--no-history")
    suite = tmp / "suite.jsonl"
    compiled = _cli("compile", str(scene), *args, "--seed", "0", "--max-per-template", "1",
                    "-o", str(suite))
    assert compiled.exit_code == 0, compiled.output
    return _exported(name, suite)


@pytest.fixture(scope="module", params=["apartment", "seed-1", "seed-2", "seed-3", "habitat"])
def compiled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> Suite:
    return _compiled(tmp_path_factory.mktemp(request.param), request.param)


# --------------------------------------------------------------------------- readers


def _fd_parse(domain: Path, problem: Path) -> Any:
    """Fast Downward's translator's parser on the files (it prints its warnings)."""
    from fast_downward.translate import pddl_parser

    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        try:
            task = pddl_parser.open(str(domain), str(problem))
        except SystemExit as e:  # the parser exits on a file it cannot read
            raise AssertionError(f"{problem.name}: {said.getvalue()} {e}") from None
    return task


def _up_load(domain: Path, problem: Path) -> Any:
    from unified_planning.io import PDDLReader

    _quiet()  # objects named like types (a room `kitchen`): error_used_name off
    return PDDLReader().parse_problem(str(domain), str(problem))


def _written(name: str) -> str:
    """An entity's name as the PDDL writer writes it (`fridge|lower`: `fridge_lower`)."""
    return re.sub("[^0-9a-z_-]", "_", name.lower())


def _sample(s: Suite, k: int) -> list[dict[str, str]]:
    """Up to `k` problems of the index, one of each kind (its domain shared or its own,
    its task's tags), in id order."""
    tags = {r.id: tuple(sorted(r.tags)) for r in s.records}
    kinds: dict[tuple[Any, ...], dict[str, str]] = {}
    for p in sorted(s.index()["problems"], key=lambda p: p["task"]):
        kinds.setdefault((p["domain"] == "domain.pddl", tags[p["task"]]), p)
    return list(kinds.values())[:k]


def _check_export(s: Suite, up_sample: int) -> None:
    assert s.code == 0, s.stdout + s.stderr
    index = s.index()
    problems = index["problems"]
    assert [p["task"] for p in problems] == [r.id for r in s.records]
    assert index["not_expressible"] == [] and index["skipped"] == []
    files = {p.name for p in s.out.iterdir()}
    assert files == {"domain.pddl", "index.json"} | {p["problem"] for p in problems} | {
        p["domain"] for p in problems}
    records = {r.id: r for r in s.records}
    for p in problems:
        assert p["name"] == pddl_name(p["task"])
        task = _fd_parse(s.out / p["domain"], s.out / p["problem"])
        assert task.problem_name == p["name"]  # not `fdc-home-problem`
        objects = {o.name for o in task.objects}
        r = records[p["task"]]
        # what a literal names that must hold (an item only in literals that must stay
        # false is left out: no plan moves it)
        named = {_written(x) for a, positive in _polar(r.goal) if positive for x in a.args}
        # kept names: a room `kitchen` of type `kitchen` was written `kitchen_0`
        rooms = {_written(x) for x in s.rooms.get(r.scene or "", [])}
        assert rooms <= objects and named <= objects, (p["task"], rooms | named - objects)
    every = os.environ.get("FDC_EXPORT_ALL") == "1"
    for p in problems if every else _sample(s, up_sample):
        problem = _up_load(s.out / p["domain"], s.out / p["problem"])
        assert problem.name == p["name"] and (problem.goals or problem.actions)


def test_the_golden_suite_exports_and_reads_back(golden: Suite) -> None:
    _check_export(golden, up_sample=3)
    index = golden.index()
    assert len({r.scene for r in golden.records}) == 3
    assert any("memory" in r.tags for r in golden.records)
    own = [p for p in index["problems"] if p["domain"] != "domain.pddl"]
    assert own and all(p["domain"] == f"{p['task']}.domain.pddl" for p in own)


@pytest.mark.slow
def test_every_suite_exports_and_reads_back(compiled: Suite) -> None:
    _check_export(compiled, UP_SAMPLE)
    if compiled.name != "habitat":  # the built-in library, memory templates included
        assert any("memory" in r.tags for r in compiled.records)


@contextlib.contextmanager
def _scratch(folder: Path) -> Iterator[None]:
    with contextlib.chdir(folder):  # Fast Downward writes output.sas where it runs
        yield


def _fast_downward(problem: Any, folder: Path) -> str:
    """Fast Downward through unified-planning: LAMA's first iteration, then greedy
    search with FF (as `fdc validate --solve` runs it)."""
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.shortcuts import OneshotPlanner

    status = None
    with _scratch(folder):
        for params in ({}, {"fast_downward_search_config": "lazy_greedy([ff()])"}):
            with OneshotPlanner(name="fast-downward", params=params) as engine:
                status = engine.solve(problem, timeout=60).status
            if status not in (S.UNSOLVABLE_INCOMPLETELY, S.UNSOLVABLE_PROVEN):
                break
    assert status is not None
    return str(status.name)


@pytest.mark.slow
def test_fast_downward_solves_what_validate_certified(compiled: Suite, tmp_path: Path
                                                      ) -> None:
    # a sample: the smallest problem of a task outside memory whose domain is the shared
    # one, and of one whose domain is its own (checkpoints or fluents of its own)
    # (the few smallest of each kind: some goals may be unreachable)
    records = {r.id: r for r in compiled.records}
    by_kind: dict[bool, list[tuple[int, str]]] = {}
    for p in compiled.index()["problems"]:
        if "memory" not in records[p["task"]].tags:  # validate certifies no memory task
            key = (compiled.out / p["problem"]).stat().st_size, p["task"]
            by_kind.setdefault(p["domain"] != "domain.pddl", []).append(key)
    sample = [records[task] for keys in by_kind.values()
              for _, task in sorted(keys)[:2 * SOLVE_SAMPLE]]
    assert sample
    subset = compiled.suite.parent / "sample.jsonl"
    subset.write_text("".join(suite_lines(sample)))
    result = _cli("validate", "--solve", "--format", "json", str(subset))
    report = json.loads(result.stdout)
    # what validate's planner solved in the abstraction: certified, or refused by the
    # world (the Habitat fixture's robot starts where no path leads anywhere); the
    # exported files must be solved alike
    certified = [t["id"] for t in report["task_reports"] if t["certificate"]
                 and t["certificate"]["status"] in ("solved", "refused")]
    assert certified, result.stdout
    files = {p["task"]: p for p in compiled.index()["problems"]}
    solved = {}
    for task in certified:
        p = files[task]
        problem = _up_load(compiled.out / p["domain"], compiled.out / p["problem"])
        solved[task] = _fast_downward(problem, tmp_path)
    assert set(solved.values()) <= {"SOLVED_SATISFICING", "SOLVED_OPTIMALLY"}, solved


# --------------------------------------------------------------------------- Habitat


@pytest.mark.slow
def test_habitat_export_writes_what_it_can_or_says_why_once(compiled: Suite,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "habitat"
    result = _cli("export", "habitat", str(compiled.suite), "-o", str(out), "--format",
                  "json", "--data-root", str(compiled.suite.parent))
    if compiled.name != "habitat":  # no Habitat scene: said once, nothing written
        assert result.exit_code == 2 and result.stdout == "" and not out.exists()
        said = result.stderr.replace("\n", "")
        assert said.count("error:") == 1 and said.count("was not imported from Habitat") == 1
        return
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert report["tasks"] == len(compiled.records)
    named = {(u["task"], u["format"]) for u in report["not_expressible"]}
    assert report["scenes_not_expressible"] == []
    assert report["episodes"] + sum(f == "episode" for _, f in named) == report["tasks"]
    problems = {p.stem for p in (out / "pddl" / "problems").iterdir()}
    for r in compiled.records:
        assert (r.id in problems) != ((r.id, "pddl") in named), r.id
    assert result.exit_code == (1 if named else 0)


def test_a_problem_name_is_a_pddl_name() -> None:
    for text in ("out-separate-022b52fc423c", "a|b c", "0abc", "", "tâche"):
        name = pddl_name(text)
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name), name
    assert pddl_name("out-separate-022b52fc423c") == "out-separate-022b52fc423c"
