"""The compile driver's feasibility drop: which atoms of a goal are judged, and the drop
reasons the manifest counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.start_checks import infeasible
from fdc.predicates.goal import GAnd, GAtom, GCount, GNot, GOr, GThen
from fdc.sim_bridge.graph.feasible import Infeasible
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from tests.sim_bridge.helpers import CHAIR, obj, scene

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
def g(apartment_graph: SceneGraph) -> SceneGraph:
    """The example apartment's graph (the session's), under a short name."""
    return apartment_graph


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


# ----------------------------------------------------------------------------- several items

#: A bookcase 0.35 m deep and 0.9 m wide (nothing stacks on its shelves), a table, and
#: four 0.45 m trays and a saucer on the floor: no two trays fit side by side on a shelf.
SHELF = obj("shelf", "bookshelf", (1.0, 3.0, 0.9), (0.35, 0.9, 1.8), kind="furniture",
            surfaces=[{"name": "shelf_0", "z": -0.5}, {"name": "shelf_1", "z": -0.1},
                      {"name": "shelf_2", "z": 0.3}, {"name": "top", "z": 0.9}])
TABLE = obj("table", "table", (2.8, 1.5, 0.375), (1.2, 0.8, 0.75), kind="furniture")
SMALL = {"tray_a": (0.45, 0.32, 0.03), "tray_b": (0.45, 0.32, 0.03),
         "tray_c": (0.45, 0.32, 0.03), "saucer": (0.1, 0.1, 0.02)}
TRAYS = ("tray_a", "tray_b", "tray_c")
ON_SHELF = at("on", "tray_a", "shelf|shelf_2")


def small_scene() -> dict:
    things = [obj(i, i.split("_")[0], (0.4 + 0.5 * k, 0.4, size[2] / 2), size,
                  kind="movable") for k, (i, size) in enumerate(SMALL.items())]
    return scene([SHELF, TABLE, *things], agent=(3.5, 3.5)).model_dump(mode="json")


@pytest.fixture(scope="module")
def shelf() -> SceneGraph:
    return build_scene_graph(scene([SHELF, TABLE, *[
        obj(i, "thing", (0.4 + 0.5 * k, 0.4, size[2] / 2), size, kind="movable")
        for k, (i, size) in enumerate(SMALL.items())]], agent=(3.5, 3.5)))


def count(number: int, others: tuple[str, ...] = ("shelf|shelf_2",), **kw: object
          ) -> GCount:
    return GCount(relation="on", items=TRAYS, others=others, number=number, **kw)


def test_a_count_of_items_on_one_surface(shelf: SceneGraph) -> None:
    assert infeasible(count(2), shelf, never, {}) is Infeasible.PACKING
    assert infeasible(count(1), shelf, never, {}) is None
    assert infeasible(count(2, op="exactly"), shelf, never, {}) is Infeasible.PACKING
    assert infeasible(count(2, op="at-most"), shelf, never, {}) is None
    # a tray there at the start counts free: one more fits
    assert infeasible(count(2), shelf, lambda a: a == ON_SHELF, {}) is None
    # on one of two shelves: the trays may split between them
    both = ("shelf|shelf_1", "shelf|shelf_2")
    assert infeasible(count(2, both), shelf, never, {}) is None
    assert infeasible(count(2, both, same_other=True), shelf, never, {}) is \
        Infeasible.PACKING
    # the node's own thresholds: not judged
    assert infeasible(count(2, thresholds={"on_top_m": 0.5}), shelf, never, {}) is None
    # inside a disjunction, impossible only when every part is
    assert infeasible(GOr(parts=(count(2), count(1))), shelf, never, {}) is None


def test_items_around_an_anchor_on_one_surface(shelf: SceneGraph) -> None:
    keep = at("on", "tray_c", "shelf|shelf_2")
    around = [at("around", x, "tray_c") for x in ("tray_a", "tray_b")]
    # the anchor and the items around it stand on its surface together
    assert infeasible(GAnd(parts=(keep, *around)), shelf, never, {}) is Infeasible.PACKING
    assert infeasible(GAnd(parts=(keep, around[0])), shelf, never, {}) is Infeasible.PACKING
    assert infeasible(GAnd(parts=(keep, at("around", "saucer", "tray_c"))), shelf, never,
                      {}) is None
    # with the anchor's surface unnamed, nothing is judged
    assert infeasible(GAnd(parts=tuple(around)), shelf, never, {}) is None


def test_more_items_around_an_anchor_than_a_narrow_shelf_has_room_for(g: SceneGraph) -> None:
    """`out-all-around` on the apartment: "Arrange all the plates beside the blue toy
    car without moving it", on the living room's 0.35 m deep shelf (the audit found
    neither planner nor oracle could): at most three there; any number on the table."""
    keep = at("on", "toy_car_1", "living_shelf|shelf_1")
    plates = [at("around", f"plate_{k}", "toy_car_1") for k in range(4)]
    assert infeasible(GAnd(parts=(*plates, keep)), g, never, {}) is Infeasible.AROUND
    assert infeasible(GAnd(parts=(*plates[:3], keep)), g, never, {}) is None
    assert infeasible(GAnd(parts=tuple(plates)), g, never, {}) is None  # anchor anywhere
    table = at("on", "toy_car_1", "dining_table|top")
    assert infeasible(GAnd(parts=(*plates, table)), g, never, {}) is None


@pytest.mark.slow
def test_items_on_either_receptacle_of_one_seat() -> None:
    """`out-spread-over-two` bound to a chair's two receptacles (Habitat's aabb and
    mesh, 1 mm apart): each donut on one or the other, so all of them on the seat,
    which holds one; judged on the two together (before, a disjunction went unjudged).
    One donut on either is no trouble."""
    donuts = [obj(f"donut_{k}", "donut", (0.5 + 0.4 * k, 0.5, 0.04), (0.227, 0.218, 0.078),
                  kind="movable") for k in range(2)]
    g = build_scene_graph(scene([CHAIR, *donuts], agent=(3.5, 3.5)))

    def either(item: str) -> GOr:
        return GOr(parts=(at("on", item, "chair|aabb"), at("on", item, "chair|mesh")))

    both = GAnd(parts=(either("donut_0"), either("donut_1")))
    assert infeasible(both, g, never, {}) is Infeasible.PACKING
    assert infeasible(GAnd(parts=(either("donut_0"),)), g, never, {}) is None


def test_compile_drops_a_count_and_counts_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fdc.cli import app

    path = tmp_path / "scene.json"
    path.write_text(json.dumps(small_scene()))
    template = tmp_path / "count.pddl"
    level4 = (Path(__file__).parents[2] / "domain" / "templates" / "manipulation" /
              "level-4.pddl").read_text()
    start = level4.index("(define (template out-at-least-two-on)")
    template.write_text(level4[start:level4.index("(define (template", start + 1)])
    out = tmp_path / "suite.jsonl"
    res = CliRunner().invoke(app, ["compile", str(path), "-T", str(template), "-o", str(out),
                                   "--no-history"])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["drops"][reason(Infeasible.PACKING)] >= 1
    goals = [json.loads(line)["goal_pddl"] for line in out.read_text().splitlines()]
    assert goals and not any("shelf|shelf_2" in g and "tray" in g for g in goals)


def test_an_item_around_an_anchor_it_cannot_stand_beside(g: SceneGraph) -> None:
    # the 0.40 m lamp never stands under the 0.40 m of room on the kitchen shelf, so
    # never around a plate kept there: judged alone, before the items are packed
    plate = at("on", "plate_2", "kitchen_shelf|shelf_0")
    assert infeasible(GAnd(parts=(plate, at("around", "lamp_1", "plate_2"))), g, never,
                      {}) is Infeasible.TOO_TALL
    assert infeasible(GAnd(parts=(plate, at("around", "bowl_1", "plate_2"))), g, never,
                      {}) is None
