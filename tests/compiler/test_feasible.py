"""The compile driver's feasibility drop: which atoms of a goal are judged, and the drop
reasons the manifest counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.start_checks import infeasible
from fdc.predicates.goal import GAnd, GAtom, GNot, GOr, GThen
from fdc.sim_bridge.graph.feasible import Infeasible
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.load import load_scene

APARTMENT = Path(__file__).parents[2] / "examples" / "scenes" / "apartment.json"


def at(*args: str) -> GAtom:
    return GAtom(predicate=args[0], args=args[1:])


LAMP_IN_BOX = at("inside", "lamp_2", "box_0")  # 0.40 m tall, 0.23 m inside the box
BOOK_IN_BOX = at("inside", "book_4", "box_0")
LAMP_ON_SHELF = at("on", "lamp_1", "kitchen_shelf|shelf_0")  # 0.40 m under 0.40 m
PLATE_REAR = at("in-cell", "plate_2", "office_shelf|shelf_1", "rear-left")
PLATE_CENTRE = at("in-cell", "plate_2", "office_shelf|shelf_1", "center")
BOWLS = [at("in-cell", f"bowl_{k}", "office_bookshelf|shelf_1", "center") for k in range(4)]


@pytest.fixture(scope="module")
def g() -> SceneGraph:
    return build_scene_graph(load_scene(APARTMENT).scene, APARTMENT.parent)


def never(_a: GAtom) -> bool:
    return False


def test_each_rule_on_an_atom(g: SceneGraph) -> None:
    assert infeasible(LAMP_IN_BOX, g, never, {}) is Infeasible.TOO_TALL
    assert infeasible(LAMP_ON_SHELF, g, never, {}) is Infeasible.TOO_TALL
    assert infeasible(PLATE_REAR, g, never, {}) is Infeasible.CELL
    assert infeasible(PLATE_CENTRE, g, never, {}) is None
    assert infeasible(BOOK_IN_BOX, g, never, {}) is None
    assert infeasible(at("around", "plate_2", "bowl_2"), g, never, {}) is None


def test_which_parts_must_hold(g: SceneGraph) -> None:
    # a conjunction needs every part; a disjunction one; a sequence every step
    assert infeasible(GAnd(parts=(BOOK_IN_BOX, LAMP_IN_BOX)), g, never, {}) is \
        Infeasible.TOO_TALL
    assert infeasible(GOr(parts=(BOOK_IN_BOX, LAMP_IN_BOX)), g, never, {}) is None
    assert infeasible(GOr(parts=(PLATE_REAR, LAMP_IN_BOX)), g, never, {}) is Infeasible.CELL
    assert infeasible(GThen(steps=(BOOK_IN_BOX, LAMP_ON_SHELF)), g, never, {}) is \
        Infeasible.TOO_TALL
    # a negated atom asks for no placement
    assert infeasible(GNot(body=LAMP_IN_BOX), g, never, {}) is None


def test_an_atom_true_at_the_start_is_not_judged(g: SceneGraph) -> None:
    assert infeasible(LAMP_IN_BOX, g, lambda a: a == LAMP_IN_BOX, {}) is None


def test_items_together_on_one_surface(g: SceneGraph) -> None:
    assert infeasible(GAnd(parts=tuple(BOWLS)), g, never, {}) is Infeasible.PACKING
    assert infeasible(GAnd(parts=tuple(BOWLS[:2])), g, never, {}) is None
    # only the items that must move count: two already there, two to bring
    there = set(BOWLS[2:])
    assert infeasible(GAnd(parts=tuple(BOWLS)), g, lambda a: a in there, {}) is None
    # in a sequence, one step at a time
    assert infeasible(GThen(steps=(GAnd(parts=tuple(BOWLS[:2])), GAnd(parts=tuple(
        BOWLS[2:])))), g, never, {}) is None


def test_thresholds_widen_what_counts_as_on(g: SceneGraph) -> None:
    # with `on_top_m` at 0.5 m, an item on the shelf's top, 0.4 m up, counts as on the
    # second shelf: its outline no longer decides
    assert infeasible(PLATE_REAR, g, never, {"on_top_m": 0.5}) is None


def reason(rule: Infeasible) -> str:
    return Drop(DropCode.INFEASIBLE, str(rule)).key


def test_the_drop_reasons() -> None:
    assert reason(Infeasible.TOO_TALL) == "goal cannot be achieved: an item taller than the " \
        "room above its surface"
    assert len({reason(r) for r in Infeasible}) == len(Infeasible)


@pytest.mark.slow
def test_compile_drops_and_counts_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fdc.cli import app

    out = tmp_path / "suite.jsonl"
    res = CliRunner().invoke(app, ["compile", str(APARTMENT), "--max-per-template", "3",
                                   "-o", str(out)])
    assert res.exit_code == 0, res.output
    drops = json.loads((tmp_path / "manifest.json").read_text())["drops"]
    assert drops[reason(Infeasible.TOO_TALL)] >= 3
    assert drops[reason(Infeasible.CELL)] >= 1
    assert drops[reason(Infeasible.PACKING)] >= 1
    goals = [json.loads(line)["goal_pddl"] for line in out.read_text().splitlines()]
    assert "(inside lamp_2 box_0)" not in goals
    assert "(in-cell plate_2 office_shelf|shelf_1 rear-left)" not in goals
