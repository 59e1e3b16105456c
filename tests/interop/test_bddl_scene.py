"""`fdc scene generate --from-bddl`: a house with a BDDL activity's objects placed as its
`:init` says, judged by fdc's own checkers; the imported template compiles to tasks on
it; what cannot be made true is named; deterministic; errors are one line."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app

pytest.importorskip("bddl")

from fdc.compiler.options import CompileOptions
from fdc.compiler.pipeline import compile_template
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.templates import load_entries
from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.importer import import_files
from fdc.interop.bddl.scene import activity_scene, generate_from_activity
from fdc.interop.bddl.vocabulary import build_vocabulary
from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph, load_scene_graph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState

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
   rag.n.01_1 - rag.n.01 dust.n.01_1 - dust.n.01 sink.n.01_1 - sink.n.01
   water.n.06_1 - water.n.06 floor.n.01_1 floor.n.01_2 - floor.n.01 agent.n.01_1 - agent.n.01)
 (:init (ontop plate.n.04_1 table.n.02_1) (ontop apple.n.01_1 plate.n.04_1)
   (inside bowl.n.01_1 cabinet.n.01_1) (nextto apple.n.01_2 bowl.n.01_1)
   (ontop rag.n.01_1 floor.n.01_2) (covered table.n.02_1 dust.n.01_1) (cooked apple.n.01_2)
   (insource sink.n.01_1 water.n.06_1) (inroom sink.n.01_1 kitchen)
   (inroom table.n.02_1 dining_room) (inroom cabinet.n.01_1 kitchen)
   (inroom floor.n.01_1 dining_room) (inroom floor.n.01_2 kitchen)
   (ontop agent.n.01_1 floor.n.01_1))
 (:goal (and (inside ?apple.n.01_1 ?bowl.n.01_1) (not (covered ?table.n.02_1 ?dust.n.01_1)))))
"""


def test_init_is_what_fdc_checkers_find_in_the_scene(tmp_path: Path) -> None:
    (tmp_path / "set_up.bddl").write_text(PROBLEM)
    code, out = _cli("scene", "generate", "--from-bddl", tmp_path / "set_up.bddl",
                     "-o", tmp_path / "scene.json")
    assert code == 0, out  # before: 1, the sink as a source of water was no fact
    assert "not made true" not in out
    g = load_scene_graph(tmp_path / "scene.json")
    assert not [f for f in g.findings if f.is_error]
    assert {r.category for r in g.rooms()} == {"dining_room", "kitchen"} or \
        {r.category for r in g.rooms()} == {"dining-room", "kitchen"}
    rooms = {r.id: r.category.replace("_", "-") for r in g.rooms()}
    assert rooms[g.object("table_1").room or ""] == "dining-room"
    assert rooms[g.object("cabinet_1").room or ""] == "kitchen"
    assert _holds(g, "on-top-of", "plate_1", "table_1")
    assert _holds(g, "on-top-of", "apple_1", "plate_1")  # on an item
    assert _holds(g, "on-top-of", "apple_1", "table_1")  # and so on the table
    assert _holds(g, "inside-of", "bowl_1", "cabinet_1")
    assert _holds(g, "next-to", "apple_2", "bowl_1")
    assert _holds(g, "on-floor", "rag_1")
    assert _holds(g, "in-room", "rag_1", next(i for i, c in rooms.items() if c == "kitchen"))
    assert _holds(g, "covered", "table_1", "dust")
    assert _holds(g, "insource", "sink_1", "water")  # `insource`: a source of water
    # BEHAVIOR's abilities: the rag a `particleRemover`, the sink a `waterSource`
    assert g.object("rag_1").attributes["abilities"] == "cleaning-tool"
    assert "water-source" in g.object("sink_1").attributes["abilities"]
    assert "abilities" not in g.object("apple_1").attributes
    assert not _holds(g, "insource", "bowl_1", "water")
    assert _holds(g, "cooked", "apple_2") and not _holds(g, "cooked", "apple_1")
    assert not _holds(g, "is-open", "cabinet_1")  # BDDL: closed unless `open`
    # the goal puts an apple in the bowl: it is a box with a floor
    assert g.containers_of("bowl_1")
    # the robot starts on the floor `:init` puts it on
    start = g.room_of((g.scene.agent.position[0], g.scene.agent.position[1]))
    assert start is not None and rooms[start.id] == "dining-room"


def test_the_imported_template_compiles_on_the_house(tmp_path: Path) -> None:
    (tmp_path / "set_up.bddl").write_text(PROBLEM)
    code, out = _cli("import", "bddl", tmp_path / "set_up.bddl", "-o", tmp_path / "imp")
    assert code == 0, out
    _cli("scene", "generate", "--from-bddl", tmp_path / "set_up.bddl", "-o",
         tmp_path / "scene.json")
    code, out = _cli("compile", tmp_path / "scene.json", "-T", tmp_path / "imp", "--seed", "0",
                     "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    records = [json.loads(x) for x in (tmp_path / "suite.jsonl").read_text().splitlines()]
    assert len(records) == 1
    assert records[0]["goal_pddl"] == \
        "(and (inside-of apple_1 bowl_1) (not (covered table_1 dust)))"


def test_a_corpus_activity_by_name_and_determinism(tmp_path: Path) -> None:
    code, out = _cli("scene", "generate", "--from-bddl", "cook_tofu", "-o", tmp_path / "a.json")
    assert code == 0 and "not made true" not in out, out  # its sink `insource` water
    _cli("scene", "generate", "--from-bddl", "cook_tofu", "-o", tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    g = load_scene_graph(tmp_path / "a.json")
    fridge = g.by_category("electric-refrigerator") or g.by_category("electric_refrigerator")
    (ware,) = g.by_category("tupperware")
    assert _holds(g, "inside-of", ware.id, fridge[0].id)
    tofu = g.by_category("tofu")
    assert len(tofu) == 4 and all(_holds(g, "inside-of", t.id, ware.id) for t in tofu)


def test_unknown_activities_and_bad_files_are_one_error(tmp_path: Path) -> None:
    code, out = _cli("scene", "generate", "--from-bddl", "cook_tof", "-o", tmp_path / "a.json")
    assert code == 2 and "did you mean `cook_tofu`" in out and "Traceback" not in out
    (tmp_path / "bad.bddl").write_text("(define (problem x) (:goal (and (ontop ?a")
    code, out = _cli("scene", "generate", "--from-bddl", tmp_path / "bad.bddl",
                     "-o", tmp_path / "a.json")
    assert code == 2 and "BDDL's parser refuses it" in out
    assert not (tmp_path / "a.json").exists()


def test_a_sample_of_the_corpus_compiles_on_its_houses(tmp_path: Path) -> None:
    """benchmarks/bddl_scenes.py measures the whole corpus (docs/bddl.md); here a sample
    of 40 holds the share above the issue's 80%, compiled as `fdc compile` does (the
    oracle's witness asked of a goal that changes a state)."""
    from fdc.agents.oracle import witness

    files = activity_files([], corpus=True)
    activities = {a.name: a for a in read_activities(files) if isinstance(a, Activity)}
    result = import_files(files)
    for rel, text in result.files().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    entries = {e.name: e for e in load_entries([str(tmp_path)])[0]}
    vocab = build_vocabulary(list(activities.values()), read_home())
    sample = random.Random(39).sample(sorted(result.templates, key=lambda t: t.name), 40)
    compiled = 0
    for t in sample:
        gen = generate_from_activity(activities[t.activity], vocab)
        text = gen.scene.to_json()
        compiler = SceneCompiler(build_scene_graph(gen.scene), f"{t.activity}.json",
                                 hashlib.sha256(text.encode()).hexdigest(),
                                 options=CompileOptions(max_per_template=1,
                                                        witness=witness))
        compiled += compile_template(compiler, entries[t.name]).tasks > 0
    assert compiled >= 0.8 * len(sample)


def test_activity_scene_names_match_the_corpus_import() -> None:
    gen = activity_scene("folding_sheets")
    cats = {o.category for o in gen.scene.objects}
    assert "sheet-n03" in cats  # the import's name for sheet.n.03 (a second sense)


STACKED = """(define (problem stack-0) (:domain omnigibson)
 (:objects feta.n.01_1 - feta.n.01 plastic_wrap.n.01_1 - plastic_wrap.n.01
   tupperware.n.01_1 - tupperware.n.01 pizza.n.01_1 pizza.n.01_2 - pizza.n.01
   plate.n.04_1 plate.n.04_2 - plate.n.04 tablefork.n.01_1 - tablefork.n.01
   electric_refrigerator.n.01_1 - electric_refrigerator.n.01 countertop.n.01_1 - countertop.n.01
   floor.n.01_1 - floor.n.01 agent.n.01_1 - agent.n.01)
 (:init (ontop feta.n.01_1 countertop.n.01_1) (ontop plastic_wrap.n.01_1 countertop.n.01_1)
   (ontop tupperware.n.01_1 countertop.n.01_1) (ontop pizza.n.01_1 countertop.n.01_1)
   (ontop pizza.n.01_2 countertop.n.01_1) (ontop plate.n.04_1 countertop.n.01_1)
   (ontop plate.n.04_2 countertop.n.01_1) (ontop tablefork.n.01_1 countertop.n.01_1)
   (inroom electric_refrigerator.n.01_1 kitchen) (inroom countertop.n.01_1 kitchen)
   (inroom floor.n.01_1 kitchen) (ontop agent.n.01_1 floor.n.01_1))
 (:goal (and (inside ?feta.n.01_1 ?tupperware.n.01_1)
   (overlaid ?plastic_wrap.n.01_1 ?feta.n.01_1)
   (forpairs (?pizza.n.01 - pizza.n.01) (?plate.n.04 - plate.n.04)
     (ontop ?pizza.n.01 ?plate.n.04))
   (forall (?pizza.n.01 - pizza.n.01) (inside ?pizza.n.01 ?electric_refrigerator.n.01_1))
   (nextto ?tablefork.n.01_1 ?plate.n.04_1))))
"""


def test_the_house_has_room_for_what_the_goal_puts_in_and_on_things(tmp_path: Path) -> None:
    """The goal's placements size the house: what the goal puts in the fridge (the
    pizzas, and the plates they go on, and the fork beside a plate), a tupperware as deep
    as the stack the goal makes in it (a feta wrapped in plastic). Before: sized for
    `:init` alone (a tupperware 16 cm tall whose feta left 10 cm for the 10 cm wrap; a
    fridge sized for two pizzas, not their plates)."""
    from fdc.interop.bddl.scene import goal_placements

    path = tmp_path / "stack" / "problem0.bddl"
    path.parent.mkdir()
    path.write_text(STACKED)
    files = activity_files([path])
    (activity,) = [a for a in read_activities(files) if isinstance(a, Activity)]
    inside, _ontop = goal_placements(activity)
    fridge = sorted(inside["electric_refrigerator.n.01"])
    assert fridge == ["pizza.n.01"] * 2 + ["plate.n.04"] * 2 + ["tablefork.n.01"], fridge
    gen = activity_scene(str(path))
    size = {o.id: o.size for o in gen.scene.objects}
    tupper = next(o for o in gen.scene.objects if o.id == "tupperware_1")
    depth = tupper.containers[0].size[2]
    assert depth >= size["feta_1"][2] + size["plastic_wrap_1"][2] + 0.02, (depth, size)


def test_furniture_is_as_deep_as_the_items_the_goal_puts_on_it(tmp_path: Path) -> None:
    """A booth the goal puts three plates on (each sized for the cakes the goal may put on
    it, 0.8 m deep) is at least that deep. Before: 0.6 m, the usual depth, only its
    width grew with the plates; no plate fitted, and no model could achieve the task."""
    code, out = _cli("scene", "generate", "--from-bddl", "make_a_bake_sale_stand_stall",
                     "-o", tmp_path / "a.json")
    assert code in (0, 1), out
    g = load_scene_graph(tmp_path / "a.json")
    (booth,) = g.by_category("booth")
    plates = g.by_category("plate")
    assert len(plates) == 3
    assert booth.size[0] >= max(p.size[0] for p in plates) + 0.1, (booth.size, plates[0].size)
