"""Predicate meaning, declared once on the checker (`@means`) and queried from the
registry (issue 37): each query answers what the name set it replaced said (the sets'
contents written out as they were), a checker that declares a meaning is picked up by
the queries and by the code that asks them, and a declaration the registry cannot read
is refused when it registers the checker."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pytest

from fdc.agents.env import items_to_move
from fdc.compiler import ast as A
from fdc.compiler.check import check_sources
from fdc.compiler.planning import PlanningWorld
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.start_checks import _surface_of, needs_witness
from fdc.compiler.suite import TaskRecord
from fdc.compiler.templates import is_memory_manipulation_template, load_entries
from fdc.core.problems import SourceFile
from fdc.domain import builtin_domain_files
from fdc.interop.habitat.episodes import _placement_atoms
from fdc.predicates import builtin
from fdc.predicates.algebra import NotExpressible
from fdc.predicates.goal import GAnd, GAtom, atom
from fdc.predicates.meaning import Meaning, Placement, Robot, means
from fdc.predicates.registry import Context, Movables, Registry, Surfaces, fluent
from fdc.sim_bridge.graph.placement import Relation
from fdc.sim_bridge.graph.scene_graph import SceneGraph

REG = builtin.default_registry()
Bools = npt.NDArray[np.bool_]


# ----------------------------------------------------------------------------- the old sets


def test_relocating_answers_what_RELOCATING_said() -> None:
    # compiler/start_checks.py's RELOCATING (also agents/env.py's, evaluation's RELOCATIONS)
    assert REG.relocating() == frozenset({"on", "in-cell", "inside", "around", "at-side",
                                          "between", "in-room", "on-furniture",
                                          "same-surface", "on-top-of", "inside-of",
                                          "next-to"})
    # PARTNR's whole-object relations joined (an item is put on or in the object), and
    # `next-to` (BDDL's `nextto`: an item put on or beside the object)


def test_anchored_answers_what_ANCHORED_said() -> None:
    # compiler/start_checks.py's ANCHORED
    assert REG.anchored() == frozenset({"around", "at-side", "between"})


def test_packed_answers_what_PACKED_said() -> None:
    # agents/oracle/trace.py's PACKED, and start_checks' `("on", "in-cell", "inside")`
    assert REG.packed() == frozenset({"on", "in-cell", "inside"})


def test_spread_answers_what_SPREAD_said() -> None:
    # agents/oracle/trace.py's SPREAD
    assert REG.spread() == frozenset({"in-room", "on-furniture", "on-top-of", "inside-of",
                                      "next-to"})


def test_viewer_relative_answers_what_VIEWED_said() -> None:
    # compiler/planning.py's VIEWED
    assert REG.viewer_relative() == frozenset({"at-side"})


def test_robot_place_answers_what_ROBOT_PLACE_said() -> None:
    # compiler/templates.py's ROBOT_PLACE
    assert REG.robot_place() == frozenset({"robot-at-object", "robot-at-receptacle",
                                           "robot-in-room"})


def test_about_robot_answers_what_the_episodes_ROBOT_said() -> None:
    # interop/habitat/episodes.py's _ROBOT
    assert REG.about_robot() == {"holding", "hand-empty", "robot-at-object",
                                 "robot-at-receptacle", "robot-in-room"}


def test_placement_order_answers_what_PLACEMENT_ORDER_said() -> None:
    # interop/habitat/episodes.py's PLACEMENT_ORDER
    assert REG.placement_order() == ("between", "at-side", "around", "in-cell", "inside", "on")


def test_placed_in_region_answers_what_PLACED_AS_said() -> None:
    # agents/oracle/plan.py's PLACED_AS (read by agents/oracle/witness.py)
    assert REG.placed_in_region() == ("between", "at-side", "around", "in-cell")


def test_placement_relations_answer_what_the_episodes_RELATIONS_said() -> None:
    # interop/habitat/episodes.py's _RELATIONS
    assert dict(REG.placement_relations()) == {
        "between": Relation.BETWEEN, "at-side": Relation.DIRECTION,
        "around": Relation.AROUND, "in-cell": Relation.IN_CELL, "inside": Relation.INSIDE,
        "on": Relation.ON}


def test_a_checker_keeps_its_arguments_by_position() -> None:
    assert REG.checker("between").meaning == Meaning(
        relocates=0, anchors=(1, 2),
        placement=Placement(Relation.BETWEEN, order=0, in_region=True))
    assert REG.checker("inside").meaning.onto == 1
    assert REG.checker("at-side").meaning.viewer_relative
    assert REG.checker("holding").meaning.robot is Robot.HAND
    assert REG.meaning("is-open") == Meaning() == REG.meaning("no-such-predicate")


# ----------------------------------------------------------------------------- new checkers


@fluent
@means(relocates="o", anchors=["a"])
def fdc_test_beside(ctx: Context, o: Movables, a: Movables) -> Bools:
    """A new relation to an anchor (false everywhere)."""
    return np.zeros(len(o), dtype=bool)


@fluent
@means(relocates="o", onto="s",
       placement=Placement(Relation.ON, order=6, in_region=True))
def fdc_test_onto(ctx: Context, o: Movables, s: Surfaces) -> Bools:
    """A new relation onto a surface (false everywhere)."""
    return np.zeros(len(o), dtype=bool)


@fluent
@means(relocates="o", any_surface=True)
def fdc_test_anywhere(ctx: Context, o: Movables) -> Bools:
    return np.zeros(len(o), dtype=bool)


@fluent
@means(viewer_relative=True)
def fdc_test_seen(ctx: Context, o: Movables) -> Bools:
    """Judged from where the robot stands (true everywhere)."""
    return np.ones(len(o), dtype=bool)


@fluent
def fdc_test_plain(ctx: Context, o: Movables) -> Bools:
    """As `fdc_test_seen`, meaning nothing more."""
    return np.ones(len(o), dtype=bool)


@fluent
@means(robot=Robot.PLACE)
def fdc_test_robot_by(ctx: Context, o: Movables) -> Bools:
    return np.zeros(len(o), dtype=bool)


@fluent
@means(robot=Robot.HAND)
def fdc_test_gripping(ctx: Context, o: Movables) -> Bools:
    return np.zeros(len(o), dtype=bool)


@pytest.fixture
def extended(monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    """fdc's registry, as `default_registry()` answers it, with this module's checkers."""
    monkeypatch.setattr(builtin, "CHECKER_MODULES",
                        (*builtin.CHECKER_MODULES, sys.modules[__name__]))
    builtin.default_registry.cache_clear()
    try:
        yield builtin.default_registry()
    finally:
        monkeypatch.undo()
        builtin.default_registry.cache_clear()


def test_every_query_picks_up_a_new_checker(extended: Registry) -> None:
    assert extended.relocating() == REG.relocating() | {
        "fdc-test-beside", "fdc-test-onto", "fdc-test-anywhere"}
    assert extended.anchored() == REG.anchored() | {"fdc-test-beside"}
    assert extended.packed() == REG.packed() | {"fdc-test-onto"}
    assert extended.spread() == REG.spread() | {"fdc-test-anywhere"}
    assert extended.viewer_relative() == REG.viewer_relative() | {"fdc-test-seen"}
    assert extended.robot_place() == REG.robot_place() | {"fdc-test-robot-by"}
    assert extended.about_robot() == REG.about_robot() | {"fdc-test-robot-by",
                                                          "fdc-test-gripping"}
    assert extended.placement_order() == (*REG.placement_order(), "fdc-test-onto")
    assert extended.placed_in_region() == (*REG.placed_in_region(), "fdc-test-onto")
    assert extended.placement_relations()["fdc-test-onto"] is Relation.ON


def _movables(graph: SceneGraph) -> list[str]:
    return sorted(o.id for o in graph.objects() if o.is_movable)


def test_the_witness_rule_reads_relocating_and_anchored(extended: Registry,
                                                        apartment_graph: SceneGraph) -> None:
    a, b, anchor = _movables(apartment_graph)[:3]
    goal = GAnd(parts=(atom("fdc-test-beside", a, anchor), atom("fdc-test-beside", b, anchor)))
    assert needs_witness(goal, lambda _: False)  # two items moved, by an anchor
    assert not needs_witness(goal, lambda _: False, REG)  # fdc's: it moves nothing


def test_items_to_move_reads_relocating(extended: Registry,
                                        apartment_graph: SceneGraph) -> None:
    a, anchor = _movables(apartment_graph)[:2]
    task = TaskRecord(id="t-1", template="hand-made", goal=atom("fdc-test-beside", a, anchor))
    assert items_to_move(task, apartment_graph) == 1
    builtin.default_registry.cache_clear()  # fdc's own: the predicate moves nothing
    with pytest.MonkeyPatch.context() as m:
        m.setattr(builtin, "CHECKER_MODULES", builtin.CHECKER_MODULES[:-1])
        assert items_to_move(task, apartment_graph) == 0
    builtin.default_registry.cache_clear()


def test_the_start_checks_put_items_onto_the_packed_predicates_surface(
        extended: Registry, apartment_graph: SceneGraph) -> None:
    item = _movables(apartment_graph)[0]
    on = atom("fdc-test-onto", item, "living_shelf|top")
    assert _surface_of(on, apartment_graph) == (item, "living_shelf|top", None)


def test_planning_judges_no_viewer_relative_fluent_at_the_start(
        extended: Registry, apartment_compiler: SceneCompiler) -> None:
    entries, _ = load_entries(None)
    world = PlanningWorld(apartment_compiler.facts(entries[0].domain),
                          apartment_compiler.states["initial"], extended)
    item = _movables(apartment_compiler.graph)[0]
    seen, plain = atom("fdc-test-seen", item), atom("fdc-test-plain", item)
    truth = world.initially([seen, plain])
    assert truth[plain] and not truth[seen]


def _go_to(goal: A.Atom) -> A.Template:
    text = """
(define (template my-go-to)
  (:domain fdc-home)
  (:category mine)
  (:tags memory single-goal)
  (:parameters ?o - movable)
  (:constraints (= (interaction-order ?o) 1))
  (:goal (robot-at-object ?o))
  (:instruction "Go to the first object you moved yesterday."))
"""
    library = [SourceFile.read(str(p)) for p in builtin_domain_files()]
    result = check_sources([SourceFile("t.pddl", text)], library)
    assert not result.errors, result.diagnostics
    (_, t), = result.templates.values()
    return A.Template.make(**{**t.__dict__, "goal": goal})


def test_a_memory_template_about_a_new_robot_place_is_answered_not_acted(
        extended: Registry) -> None:
    o = A.Variable(name="o")
    assert not is_memory_manipulation_template(_go_to(A.Atom(predicate="fdc-test-robot-by",
                                                             args=(o,))), extended)
    assert is_memory_manipulation_template(_go_to(A.Atom(predicate="fdc-test-plain",
                                                         args=(o,))), extended)


def test_habitat_episodes_read_about_robot_and_placement_order(extended: Registry) -> None:
    onto = atom("fdc-test-onto", "mug_0", "table|top")
    assert _placement_atoms(GAnd(parts=(onto,))) == [onto]
    with pytest.raises(NotExpressible, match="about the robot"):
        _placement_atoms(atom("fdc-test-gripping", "mug_0"))


# ----------------------------------------------------------------------------- refusals


def _bare(name: str) -> object:
    def check(ctx: Context, o: Movables, s: Surfaces) -> Bools:
        return np.zeros(len(o), dtype=bool)
    check.__name__ = name
    return check


@pytest.mark.parametrize(("declared", "message"), [
    (means(relocates="x"), "`x`, which is not one of its parameters"),
    (means(anchors=["s"]), "names the item it relocates"),
    (means(relocates="o", onto="o"), "names one parameter twice"),
])
def test_a_meaning_the_registry_cannot_read_is_refused(declared: object, message: str
                                                       ) -> None:
    fn = declared(_bare("fdc_test_bad"))  # type: ignore[operator]
    with pytest.raises(TypeError, match=message):
        Registry().fluent(fn)


def test_two_predicates_of_one_placement_order_are_refused() -> None:
    registry = Registry()
    first = means(relocates="o", placement=Placement(Relation.ON, order=0))
    registry.fluent(first(_bare("fdc_test_first")))
    with pytest.raises(ValueError, match="one placement order"):
        registry.fluent(first(_bare("fdc_test_second")))


def test_goal_atoms_of_unknown_predicates_mean_nothing() -> None:
    assert REG.meaning(GAtom(predicate="nothing", args=()).predicate) == Meaning()
