"""`fdc scene bind SCENE --from-bddl ACTIVITY`: a BDDL activity bound into an existing
scene (interop/bddl/bind.py). What `:init` says holds in the written scene by fdc's own
checkers, the scene passes the scene check, the imported template compiles there; what
cannot bind is one located error (exit 2); the same seed gives the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app

pytest.importorskip("bddl")

from fdc.interop.bddl.bind import TOO_FEW, BindError, activity_bound
from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph, load_scene_graph
from fdc.sim_bridge.scene.schema import Scene
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState

ROOT = Path(__file__).resolve().parents[2]
APARTMENT = ROOT / "examples" / "scenes" / "apartment.json"
runner = CliRunner()


def _cli(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def _holds(g: SceneGraph, predicate: str, *args: str) -> bool:
    state = SnapshotState(g, EmbeddedWorld(g).snapshot())
    ctx = Context(graph=g, state=state)
    return bool(default_registry().evaluate_many(predicate, [args], ctx)[0])


PROBLEM = """(define (problem set_up-0) (:domain omnigibson)
 (:objects apple.n.01_1 apple.n.01_2 - apple.n.01 plate.n.04_1 - plate.n.04
   bowl.n.01_1 - bowl.n.01 cabinet.n.01_1 - cabinet.n.01 table.n.02_1 - table.n.02
   rag.n.01_1 - rag.n.01 dust.n.01_1 - dust.n.01
   floor.n.01_1 floor.n.01_2 - floor.n.01 agent.n.01_1 - agent.n.01)
 (:init (ontop plate.n.04_1 table.n.02_1) (ontop apple.n.01_1 plate.n.04_1)
   (inside bowl.n.01_1 cabinet.n.01_1) (nextto apple.n.01_2 bowl.n.01_1)
   (ontop rag.n.01_1 floor.n.01_2) (covered table.n.02_1 dust.n.01_1) (cooked apple.n.01_2)
   (inroom table.n.02_1 kitchen) (inroom cabinet.n.01_1 bathroom) (open cabinet.n.01_1)
   (inroom floor.n.01_1 kitchen) (inroom floor.n.01_2 bedroom)
   (ontop agent.n.01_1 floor.n.01_2))
 (:goal (and (inside ?apple.n.01_1 ?bowl.n.01_1) (not (covered ?table.n.02_1 ?dust.n.01_1)))))
"""


def _ids(scene: Path) -> dict[str, str]:
    data = json.loads(scene.read_text())
    return {o["source"]["bddl"]: o["id"] for o in data["objects"] if "bddl" in o["source"]}


def test_init_holds_in_the_bound_scene_by_fdc_checkers(tmp_path: Path) -> None:
    (tmp_path / "set_up.bddl").write_text(PROBLEM)
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", tmp_path / "set_up.bddl",
                     "-o", tmp_path / "s.json")
    assert code == 0, out
    g = load_scene_graph(tmp_path / "s.json")
    assert not [f for f in g.findings if f.is_error]
    ids = _ids(tmp_path / "s.json")
    table, cabinet = ids["table.n.02_1"], ids["cabinet.n.01_1"]
    assert (table, cabinet) == ("dining_table", "bathroom_cabinet")  # the scene's pieces
    assert g.object(table).category == "table"
    rooms = {r.id: r.category for r in g.rooms()}
    assert rooms[g.object(cabinet).room or ""] == "bathroom"
    assert rooms[g.object(table).room or ""] == "kitchen"
    plate, apple1, apple2 = ids["plate.n.04_1"], ids["apple.n.01_1"], ids["apple.n.01_2"]
    bowl, rag = ids["bowl.n.01_1"], ids["rag.n.01_1"]
    assert len(set(ids.values())) == len(ids)  # no id of the scene's reused
    assert _holds(g, "on-top-of", plate, table)
    assert _holds(g, "on-top-of", apple1, plate)
    assert _holds(g, "inside-of", bowl, cabinet)
    assert _holds(g, "next-to", apple2, bowl)
    assert _holds(g, "on-floor", rag)
    assert _holds(g, "in-room", rag, "bedroom")
    assert _holds(g, "covered", table, "dust")
    assert _holds(g, "cooked", apple2) and not _holds(g, "cooked", apple1)
    assert _holds(g, "is-open", cabinet)  # `open` in :init
    start = g.room_of((g.scene.agent.position[0], g.scene.agent.position[1]))
    assert start is not None and start.category == "bedroom"
    # what the scene had is still there, where it was
    before = {o.id: o.pose for o in Scene.model_validate_json(APARTMENT.read_text()).objects}
    after = {o.id: o.pose for o in g.scene.objects}
    assert all(after[i] == p for i, p in before.items())


def test_the_imported_template_compiles_on_the_bound_scene(tmp_path: Path) -> None:
    (tmp_path / "set_up.bddl").write_text(PROBLEM)
    assert _cli("import", "bddl", tmp_path / "set_up.bddl", "-o", tmp_path / "imp")[0] == 0
    _cli("scene", "bind", APARTMENT, "--from-bddl", tmp_path / "set_up.bddl",
         "-o", tmp_path / "s.json")
    code, out = _cli("compile", tmp_path / "s.json", "-T", tmp_path / "imp", "--seed", "0",
                     "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    records = [json.loads(x) for x in (tmp_path / "suite.jsonl").read_text().splitlines()]
    ids = _ids(tmp_path / "s.json")
    assert records and records[0]["goal_pddl"] == (
        f"(and (inside-of {ids['apple.n.01_1']} {ids['bowl.n.01_1']}) "
        f"(not (covered {ids['table.n.02_1']} dust)))")


def test_a_corpus_activity_binds_and_the_seed_decides(tmp_path: Path) -> None:
    outs = []
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", "folding_sheets",
                         "-o", tmp_path / f"{name}.json", "--seed", seed)
        assert code == 0, out
        outs.append((tmp_path / f"{name}.json").read_bytes())
    assert outs[0] == outs[1]
    g = load_scene_graph(tmp_path / "a.json")
    ids = _ids(tmp_path / "a.json")
    assert ids["bed.n.01_1"] == "bed"
    sheets = [v for k, v in ids.items() if k.startswith("sheet")]
    assert len(sheets) == 4 and all(_holds(g, "on-top-of", s, "bed") for s in sheets)


def test_refusals_name_the_literal_the_missing_category_and_the_hint(tmp_path: Path) -> None:
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", "picking_up_toys",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "Traceback" not in out
    assert "childs_room)" in out and "no room of type `childs-room`" in out
    assert "fdc scene generate --from-bddl" in out and not (tmp_path / "a.json").exists()
    missing = PROBLEM.replace("(inroom table.n.02_1 kitchen)", "(inroom table.n.02_1 bathroom)")
    (tmp_path / "m.bddl").write_text(missing)
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", tmp_path / "m.bddl",
                     "-o", tmp_path / "a.json")
    assert code == 2
    assert "(inroom table.n.02_1 bathroom): no piece of furniture of category `table`" in out
    three = PROBLEM.replace("cabinet.n.01_1 - cabinet.n.01",
                            "cabinet.n.01_1 cabinet.n.01_2 - cabinet.n.01").replace(
        "(open cabinet.n.01_1)", "(open cabinet.n.01_1) (inroom cabinet.n.01_2 bathroom)")
    (tmp_path / "t.bddl").write_text(three)
    with pytest.raises(BindError) as e:
        activity_bound(Scene.model_validate_json(APARTMENT.read_text()),
                       str(tmp_path / "t.bddl"))
    assert e.value.kind == TOO_FEW and "(inroom cabinet.n.01_2 bathroom)" in str(e.value)
    crowd = PROBLEM.replace("apple.n.01_1 apple.n.01_2 - apple.n.01", " ".join(
        f"apple.n.01_{k}" for k in range(1, 80)) + " - apple.n.01") + ""
    crowd = crowd.replace("(cooked apple.n.01_2)", " ".join(
        f"(ontop apple.n.01_{k} table.n.02_1)" for k in range(3, 80)))
    (tmp_path / "c.bddl").write_text(crowd)
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", tmp_path / "c.bddl",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "has room on it" in out and "Traceback" not in out


def test_hostile_input_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "bad.bddl").write_text("(define (problem x) (:goal (and (ontop ?a")
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", tmp_path / "bad.bddl",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "BDDL's parser refuses it" in out and "Traceback" not in out
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", "cook_tof",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "did you mean `cook_tofu`" in out
    (tmp_path / "scene.json").write_text("{not json")
    code, out = _cli("scene", "bind", tmp_path / "scene.json", "--from-bddl", "cook_tofu",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "Traceback" not in out
    code, out = _cli("scene", "bind", APARTMENT, "--from-bddl", "folding_sheets",
                     "-o", tmp_path)  # a folder
    assert code == 2 and "Traceback" not in out
    assert not (tmp_path / "a.json").exists()


def test_corpus_activities_that_bind_have_their_init_relations() -> None:
    """benchmarks/bddl_bind.py binds the whole corpus; here the first 12 activities that
    bind into the apartment: no error in the scene check, and each `ontop`, `inside`,
    `nextto` of `:init` between placed objects holds by fdc's checkers."""
    from fdc.interop.bddl.bind import bind_activity
    from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
    from fdc.interop.bddl.domain import read_home
    from fdc.interop.bddl.vocabulary import build_vocabulary
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph

    acts = {a.name: a for a in read_activities(activity_files([], corpus=True))
            if isinstance(a, Activity)}
    vocab = build_vocabulary(list(acts.values()), read_home())
    scene = Scene.model_validate_json(APARTMENT.read_text())
    bound = checked = 0
    for name in sorted(acts):
        try:
            gen = bind_activity(scene, acts[name], vocab)
        except BindError:
            continue
        bound += 1
        g = build_scene_graph(gen.scene)
        assert not [f for f in g.findings if f.is_error], name
        for fact in acts[name].init:
            if isinstance(fact, list) and len(fact) == 3 and fact[0] in RELATIONS:
                x, y = gen.ids.get(str(fact[1])), gen.ids.get(str(fact[2]))
                if x is not None and y is not None:
                    assert _holds(g, RELATIONS[str(fact[0])], x, y), (name, fact)
                    checked += 1
        if bound == 12:
            break
    assert bound == 12 and checked >= 20


RELATIONS = {"ontop": "on-top-of", "inside": "inside-of", "nextto": "next-to"}
