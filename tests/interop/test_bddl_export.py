"""`fdc export bddl`: tasks BDDL can express written as BEHAVIOR-1K problems that the
`bddl` package's own parser reads and compiles (its `Conditions` and goal conditions on
its trivial backend), goals that read back as the tasks' goals, the rest named once each
with why; exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app

pytest.importorskip("bddl")

from fdc.compiler.suite import parse_suite
from fdc.interop.bddl.export import goal_from_bddl
from fdc.predicates.goal import GAnd

runner = CliRunner()
ROOT = Path(__file__).parents[2]
APARTMENT = ROOT / "examples" / "scenes" / "apartment.json"


def _cli(*args: object) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.output


def bddl_reads(text: str) -> list:  # type: ignore[type-arg]
    """The problem as BDDL's parser reads it, its initial and goal conditions compiled by
    BDDL against its trivial backend (every predicate and object known); the goal's
    conjuncts."""
    from bddl.activity import (
        Conditions,
        get_goal_conditions,
        get_initial_conditions,
        get_object_scope,
    )
    from bddl.object_taxonomy import ObjectTaxonomy
    from bddl.trivial_backend import TrivialBackend

    conds = Conditions("export", 0, "omnigibson", predefined_problem=text)
    scope = get_object_scope(conds)
    assert get_goal_conditions(conds, TrivialBackend(), scope, generate_ground_options=False)
    get_initial_conditions(conds, TrivialBackend(), scope, generate_ground_options=False)
    taxonomy = ObjectTaxonomy()
    for synset in conds.parsed_objects:
        assert taxonomy.is_valid_synset(synset), synset
    return list(conds.parsed_goal_conditions)


def _problem(goal: str, objects: str, init: str) -> str:
    return (f"(define (problem p-0) (:domain omnigibson) (:objects {objects} "
            f"floor.n.01_1 - floor.n.01 agent.n.01_1 - agent.n.01) "
            f"(:init {init} (inroom table.n.02_1 kitchen) (inroom floor.n.01_1 kitchen) "
            f"(ontop agent.n.01_1 floor.n.01_1)) (:goal (and {goal})))")


@pytest.fixture(scope="module")
def cooked_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An imported activity compiled on the example apartment."""
    tmp = tmp_path_factory.mktemp("cook")
    (tmp / "cook_apple").mkdir()
    (tmp / "cook_apple" / "problem0.bddl").write_text(_problem(
        "(cooked ?apple.n.01_1) (inside ?apple.n.01_1 ?bowl.n.01_1)",
        objects="apple.n.01_1 - apple.n.01 bowl.n.01_1 - bowl.n.01 table.n.02_1 - table.n.02",
        init="(not (cooked apple.n.01_1))"))
    code, _, out = _cli("import", "bddl", tmp / "cook_apple", "-o", tmp / "out")
    assert code == 0, out
    # the apartment has no heat source: the witness would drop every task (no agent
    # cooks the apple); these tests are of the export, so it is not asked
    code, _, out = _cli("compile", APARTMENT, "-T", tmp / "out", "--max-per-template", "3",
                        "--seed", "0", "--no-witness", "-o", tmp / "suite.jsonl")
    assert code == 0, out
    return tmp / "suite.jsonl"


def test_imported_tasks_export_parse_in_bddl_and_read_back_as_their_goals(
        cooked_suite: Path, tmp_path: Path) -> None:
    code, _stdout, out = _cli("export", "bddl", cooked_suite, "-o", tmp_path / "bd")
    assert code == 0, out
    records, _ = parse_suite(cooked_suite.read_text())
    index = json.loads((tmp_path / "bd" / "index.json").read_text())
    assert [p["task"] for p in index["problems"]] == [r.id for r in records]
    assert index["not_expressible"] == []
    for r, p in zip(records, index["problems"], strict=True):
        text = (tmp_path / "bd" / p["problem"]).read_text()
        goal = bddl_reads(text)
        back = goal_from_bddl(goal, p["instances"])
        want = r.goal if isinstance(r.goal, GAnd) else GAnd(parts=(r.goal,))
        assert back == want, (r.id, text)
        apple = r.bindings["?apple-1"]
        inst = {e: i for i, e in p["instances"].items()}
        assert f"(ontop {inst[apple]} " in text or f"(inside {inst[apple]} " in text
        assert "(cooked " not in text.split("(:goal")[0]  # not cooked at the start


def test_the_rest_are_named_once_each_with_why(tmp_path: Path) -> None:
    code, _, out = _cli("compile", APARTMENT, "--max-per-template", "1", "--seed", "0",
                        "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    code, stdout, out = _cli("export", "bddl", tmp_path / "suite.jsonl", "-o", tmp_path / "bd")
    assert code == 1 and "Traceback" not in out
    records, _ = parse_suite((tmp_path / "suite.jsonl").read_text())
    index = json.loads((tmp_path / "bd" / "index.json").read_text())
    refused = [line.split(":", 1)[0] for line in stdout.splitlines()]
    assert len(refused) == len(set(refused)) == len(index["not_expressible"])
    assert len(index["problems"]) + len(refused) == len(records)
    assert index["problems"]
    reasons = " ".join(x["reason"] for x in index["not_expressible"])
    assert "`robot-at-object` has no counterpart in BDDL" in reasons
    assert "BDDL relates whole objects" in reasons
    for p in index["problems"]:
        bddl_reads((tmp_path / "bd" / p["problem"]).read_text())


def test_a_suite_with_nothing_bddl_can_say_is_one_error(tmp_path: Path) -> None:
    # a memory template: go to an object (`robot-at-object`, the robot's pose)
    code, _, out = _cli("compile", APARTMENT, "-T",
                        ROOT / "domain" / "templates" / "memory" / "object-attribute.pddl",
                        "--max-per-template", "2", "--seed", "0", "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    code, _stdout, out = _cli("export", "bddl", tmp_path / "suite.jsonl", "-o", tmp_path / "bd")
    assert code == 2 and out.count("error:") == 1 and not (tmp_path / "bd").exists()


def test_a_missing_suite_is_an_input_error(tmp_path: Path) -> None:
    code, _, out = _cli("export", "bddl", tmp_path / "none.jsonl", "-o", tmp_path / "bd")
    assert code == 2 and "Traceback" not in out


def _heads(e: object) -> set[str]:
    if isinstance(e, list) and e and isinstance(e[0], str):
        out = {e[0]} if not e[0].startswith("?") else set()
        return out.union(*(_heads(x) for x in e[1:]))
    if isinstance(e, list):
        return set().union(*(_heads(x) for x in e))
    return set()


def test_imported_activities_export_to_the_same_goals(tmp_path: Path) -> None:
    """A sample of the corpus: imported, compiled on the houses generated from their
    `:init`, exported; each problem compiles in BDDL, its goal reads back as the task's,
    and says it with the predicates of the activity's own goal."""
    import hashlib
    import random

    from fdc.compiler.options import CompileOptions
    from fdc.compiler.pipeline import compile_template
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries
    from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
    from fdc.interop.bddl.domain import read_home
    from fdc.interop.bddl.export import COUNT_LIMIT, export_record
    from fdc.interop.bddl.importer import import_files
    from fdc.interop.bddl.names import corpus_names
    from fdc.interop.bddl.scene import generate_from_activity
    from fdc.interop.bddl.vocabulary import build_vocabulary
    from fdc.predicates.algebra import NotExpressible, expand_counts
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph

    files = activity_files([], corpus=True)
    activities = {a.name: a for a in read_activities(files) if isinstance(a, Activity)}
    result = import_files(files)
    for rel, text in result.files().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    entries = {e.name: e for e in load_entries([str(tmp_path)])[0]}
    vocab = build_vocabulary(list(activities.values()), read_home())
    names = corpus_names()
    same = {"draped": "ontop", "overlaid": "ontop"}
    exported, refused = 0, []
    for t in random.Random(7).sample(sorted(result.templates, key=lambda t: t.name), 30):
        gen = generate_from_activity(activities[t.activity], vocab)
        text = gen.scene.to_json()
        compiler = SceneCompiler(build_scene_graph(gen.scene), f"{t.activity}.json",
                                 hashlib.sha256(text.encode()).hexdigest(),
                                 options=CompileOptions(max_per_template=1))
        for r in compile_template(compiler, entries[t.name]).records:
            try:
                p = export_record(r, compiler.graph, compiler.states["initial"],
                                  compiler.registry, names)
            except NotExpressible as e:
                refused.append((t.activity, str(e)))
                continue
            goal = bddl_reads(p.text)
            sent = expand_counts(r.goal, COUNT_LIMIT)  # BDDL has no counts: connectives
            want = sent if isinstance(sent, GAnd) else GAnd(parts=(sent,))
            assert goal_from_bddl(goal, p.instances) == want, t.activity
            original = {same.get(h, h) for h in _heads(activities[t.activity].goal)}
            assert _heads(goal) - {"and", "or", "not"} <= original, t.activity
            exported += 1
    assert exported >= 20, refused
