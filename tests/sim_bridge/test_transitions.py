"""The embedded world's object-state transitions (`EmbeddedWorld.change`, the rules of
`fdc.sim_bridge.world.transitions`): each rule refuses when its preconditions do not hold,
with the reason, and changes nothing; when they hold, the state it writes is what the
predicate's checker reads, in the world and in the recorded snapshot."""

from __future__ import annotations

import pytest

from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.transitions import PLAN_ACTIONS, RULES
from tests.sim_bridge.helpers import graph, obj, on_top, room

ITEM = (0.08, 0.08, 0.08)


def kitchen() -> SceneGraph:
    """A stove, a freezer, a sink and a table in a row; on the table an apple covered
    with dust, a rag, a jar of salt, a towel, a camera; a tripod on the floor."""
    top = 0.9
    return graph(
        [
            obj("stove", "stove", (1.0, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture"),
            obj("freezer", "freezer", (2.5, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture"),
            obj("sink", "sink", (4.0, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture",
                attributes={"state": "covered:stain"}),
            obj("table", "table", (5.5, 0.5, 0.45), (1.2, 0.6, 0.9), kind="furniture"),
            on_top("apple", "apple", (5.1, 0.5), top, ITEM,
                   attributes={"state": "covered:dust"}),
            on_top("rag", "rag", (5.3, 0.5), top, (0.1, 0.1, 0.02)),
            on_top("jar", "jar", (5.5, 0.5), top, ITEM, attributes={"state": "contains:salt"}),
            on_top("towel", "towel", (5.7, 0.5), top, (0.1, 0.1, 0.02)),
            on_top("camera", "camera", (5.9, 0.5), top, ITEM),
            on_top("tripod", "tripod", (6.5, 2.0), 0.0, (0.2, 0.2, 0.3)),
        ],
        rooms=[room("kitchen", "kitchen", 0, 0, 7, 4)],
    )


def holds(world: EmbeddedWorld, predicate: str, *args: str) -> bool:
    """The predicate's checker on the world now and on its last recorded snapshot."""
    reg = default_registry()
    now = reg.evaluate(predicate, args, Context(graph=world.graph, state=world))
    recorded = reg.evaluate(predicate, args, Context(
        graph=world.graph, state=SnapshotState(world.graph, world.snapshots[-1])))
    assert now == recorded, (predicate, args)
    return bool(now)


def refused(world: EmbeddedWorld, rule: str, obj_: str, other: str | None, why: str) -> None:
    before = len(world.snapshots)
    res = world.change(rule, obj_, other)
    assert not res.ok and why in res.reason, res.reason
    assert len(world.snapshots) == before  # nothing changed


def done(world: EmbeddedWorld, rule: str, obj_: str, other: str | None = None) -> None:
    res = world.change(rule, obj_, other)
    assert res.ok, res.reason


@pytest.fixture
def world() -> EmbeddedWorld:
    return EmbeddedWorld(kitchen())


def fetch(world: EmbeddedWorld, item: str) -> None:
    assert world.navigate("table|top").ok
    assert world.pick(item).ok


def put_on(world: EmbeddedWorld, surface: str) -> None:
    assert world.navigate(surface).ok
    res = world.place(surface)
    assert res.ok, res.reason


def test_toggle_on_and_off(world: EmbeddedWorld) -> None:
    refused(world, "toggle-on", "stove", None, "out of reach")
    assert world.navigate("stove|top").ok
    done(world, "toggle-on", "stove")
    assert holds(world, "is-powered-on", "stove") and not holds(world, "is-powered-off", "stove")
    refused(world, "toggle-on", "stove", None, "already on")
    done(world, "toggle-off", "stove")
    assert holds(world, "is-powered-off", "stove")
    refused(world, "toggle-off", "stove", None, "already off")


def test_cook_and_heat_need_a_heat_source_that_is_on(world: EmbeddedWorld) -> None:
    fetch(world, "apple")
    refused(world, "cook", "apple", None, "in the hand")
    put_on(world, "table|top")
    refused(world, "cook", "apple", None, "not on or in a heat source")
    fetch(world, "apple")
    put_on(world, "stove|top")
    refused(world, "cook", "apple", None, "is off: toggle it on first")
    done(world, "toggle-on", "stove")
    assert not holds(world, "cooked", "apple")
    done(world, "cook", "apple")
    assert holds(world, "cooked", "apple") and holds(world, "hot", "apple")
    done(world, "heat", "apple")
    assert holds(world, "hot", "apple")


def test_freeze_in_a_freezer(world: EmbeddedWorld) -> None:
    refused(world, "freeze", "apple", None, "not in a freezer")
    fetch(world, "apple")
    put_on(world, "freezer|top")
    done(world, "freeze", "apple")
    assert holds(world, "frozen", "apple") and not holds(world, "hot", "apple")


def test_fill_and_soak_at_a_water_source(world: EmbeddedWorld) -> None:
    refused(world, "fill", "jar", None, "not in the hand")
    fetch(world, "jar")
    refused(world, "fill", "jar", None, "no water source")
    assert world.navigate("sink|top").ok
    done(world, "fill", "jar")
    assert holds(world, "filled", "jar", "water") and holds(world, "contains", "jar", "water")
    assert not holds(world, "saturated", "jar", "water")
    done(world, "soak", "jar")
    assert holds(world, "saturated", "jar", "water")


def test_empty_pours_what_an_item_holds_down_the_sink(world: EmbeddedWorld) -> None:
    """`empty`: an ashtray of ash, a kettle of tea (BEHAVIOR's `(not (filled ...))`); before,
    no rule undid `filled` or `contains`, and the oracle had no change for it."""
    fetch(world, "jar")
    refused(world, "empty", "jar", "water", "no water source")
    assert world.navigate("sink|top").ok
    refused(world, "empty", "jar", "water", "holds no water")
    done(world, "fill", "jar")
    refused(world, "empty", "jar", None, "name the substance")
    done(world, "empty", "jar", "water")
    assert not holds(world, "filled", "jar", "water")
    assert not holds(world, "contains", "jar", "water")


def test_wash_and_wipe_remove_what_covers(world: EmbeddedWorld) -> None:
    assert holds(world, "covered", "apple", "dust")  # the scene's state
    fetch(world, "apple")
    refused(world, "wash", "apple", "dust", "no water source")
    refused(world, "wash", "apple", "stain", "no water source")
    assert world.navigate("sink|top").ok
    refused(world, "wash", "apple", "stain", "not covered with stain")
    done(world, "wash", "apple", "dust")
    assert not holds(world, "covered", "apple", "dust")
    # the sink's stain: wiped with the rag, not with the apple
    refused(world, "wipe", "sink", "stain", "no cleaning tool")
    put_on(world, "table|top")
    assert world.pick("rag").ok
    refused(world, "wipe", "sink", "stain", "out of reach")
    assert world.navigate("sink|top").ok
    done(world, "wipe", "sink", "stain")
    assert not holds(world, "covered", "sink", "stain")
    refused(world, "wipe", "sink", "stain", "not covered")


def test_pour_and_spread_from_the_held_item(world: EmbeddedWorld) -> None:
    refused(world, "pour", "apple", "salt", "the hand is empty")
    fetch(world, "towel")
    refused(world, "spread", "apple", "salt", "contains no salt")
    put_on(world, "table|top")
    assert world.pick("jar").ok
    done(world, "spread", "apple", "salt")
    assert holds(world, "covered", "apple", "salt")
    done(world, "pour", "apple", "salt")
    assert holds(world, "contains", "apple", "salt") and holds(world, "filled", "apple", "salt")


def test_empty_into_moves_what_the_held_item_holds_into_another(world: EmbeddedWorld
                                                                ) -> None:
    """`empty-into`: pills from a bottle into an ashcan, ash from an ashtray (BEHAVIOR's
    `dispose_of_medication`, `emptying_ashtray`, houses with no sink); a source never
    runs out, so it is not emptied."""
    refused(world, "empty-into", "apple", "salt", "the hand is empty")
    fetch(world, "jar")
    refused(world, "empty-into", "jar", "salt", "is the item in the hand")
    refused(world, "empty-into", "apple", "pepper", "holds no pepper")
    done(world, "empty-into", "apple", "salt")
    assert holds(world, "contains", "apple", "salt") and holds(world, "filled", "apple", "salt")
    assert not holds(world, "contains", "jar", "salt")
    refused(world, "empty-into", "apple", "salt", "holds no salt")


def test_pour_and_spread_from_a_source_that_does_not_run_out() -> None:
    """A salt shaker `insource:salt` (BEHAVIOR's `insource`): held, it pours and spreads
    salt, and stays a source (before: refused, "contains no salt")."""
    g = graph([obj("table", "table", (1.0, 0.5, 0.45), (1.2, 0.6, 0.9), kind="furniture"),
               on_top("shaker", "salt-shaker", (0.7, 0.5), 0.9, ITEM,
                      attributes={"state": "insource:salt"}),
               on_top("apple", "apple", (1.0, 0.5), 0.9, ITEM),
               on_top("bowl", "bowl", (1.3, 0.5), 0.9, ITEM)],
              rooms=[room("kitchen", "kitchen", 0, 0, 3, 3)])
    world = EmbeddedWorld(g)
    assert holds(world, "insource", "shaker", "salt")
    assert not holds(world, "contains", "shaker", "salt")
    fetch(world, "shaker")
    done(world, "spread", "apple", "salt")
    done(world, "pour", "bowl", "salt")
    assert holds(world, "covered", "apple", "salt") and holds(world, "contains", "bowl", "salt")
    assert holds(world, "insource", "shaker", "salt")  # it does not run out
    refused(world, "spread", "apple", "pepper", "no pepper and is no source of it")
    refused(world, "empty-into", "bowl", "salt", "a source of salt: it never runs out")


def test_an_object_whose_abilities_say_so_is_a_cleaning_tool_or_a_heat_source() -> None:
    """A swab (no category of `CLEANING_TOOLS`) wipes when its `abilities` attribute says
    `cleaning-tool` (a generated BEHAVIOR house writes BEHAVIOR's `particleRemover`); a
    hob whose abilities say `heat-source` heats; the checkers read the same."""
    g = graph([obj("table", "table", (1.0, 0.5, 0.45), (1.2, 0.6, 0.9), kind="furniture",
                   attributes={"state": "covered:stain"}),
               obj("hob", "hob", (2.5, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture",
                   attributes={"abilities": "heat-source"}),
               on_top("swab", "swab", (0.7, 0.5), 0.9, ITEM,
                      attributes={"abilities": "cleaning-tool"}),
               on_top("mop", "mop-head", (1.0, 0.5), 0.9, ITEM),
               on_top("apple", "apple", (1.3, 0.5), 0.9, ITEM,
                      attributes={"state": "frozen"})],
              rooms=[room("kitchen", "kitchen", 0, 0, 4, 3)])
    world = EmbeddedWorld(g)
    assert holds(world, "is-cleaning-tool", "swab") and not holds(world, "is-cleaning-tool",
                                                                  "mop")
    assert holds(world, "is-heat-source", "hob")
    fetch(world, "mop")
    refused(world, "wipe", "table", "stain", "no cleaning tool")
    put_on(world, "table|top")
    assert world.pick("swab").ok
    done(world, "wipe", "table", "stain")
    assert not holds(world, "covered", "table", "stain")
    put_on(world, "table|top")
    fetch(world, "apple")
    put_on(world, "hob|top")
    done(world, "toggle-on", "hob")
    done(world, "heat", "apple")  # and so thawed
    assert holds(world, "hot", "apple") and not holds(world, "frozen", "apple")


def test_make_a_substance_by_a_recipe_of_the_scene() -> None:
    """`make` (the scene's `recipes`, a generated BEHAVIOR house's): cooked water in a
    pot that contains water, set down on a stove that is on; cooked rice from rice and
    cooked water; refused without a recipe, off a heat source, or lacking an input."""
    recipes = [{"output": "cooked-water", "substances": ["water"]},
               {"output": "cooked-rice", "substances": ["rice", "cooked-water"]}]
    g = graph([obj("stove", "stove", (1.0, 0.5, 0.45), (0.6, 0.6, 0.9), kind="furniture"),
               obj("table", "table", (2.5, 0.5, 0.45), (1.2, 0.6, 0.9), kind="furniture"),
               on_top("pot", "pot", (2.2, 0.5), 0.9, ITEM,
                      attributes={"state": "contains:water"}),
               on_top("jar", "jar", (2.8, 0.5), 0.9, ITEM,
                      attributes={"state": "contains:rice"})],
              rooms=[room("kitchen", "kitchen", 0, 0, 4, 3)], recipes=recipes)
    world = EmbeddedWorld(g)
    assert world.navigate("table|top").ok
    refused(world, "make", "pot", "lemonade", "no recipe of the scene makes lemonade")
    refused(world, "make", "pot", "cooked-water", "not on or in a heat source")
    assert world.pick("pot").ok
    put_on(world, "stove|top")
    refused(world, "make", "pot", "cooked-water", "is off: toggle it on first")
    done(world, "toggle-on", "stove")
    refused(world, "make", "pot", "cooked-rice", "lacks what cooked-rice is made from: rice")
    done(world, "make", "pot", "cooked-water")
    assert holds(world, "contains", "pot", "cooked-water")
    assert holds(world, "filled", "pot", "cooked-water")
    assert world.navigate("table|top").ok
    assert world.pick("jar").ok
    assert world.navigate("stove|top").ok
    done(world, "pour", "pot", "rice")
    put_on(world, "stove|top")
    done(world, "make", "pot", "cooked-rice")
    assert holds(world, "contains", "pot", "cooked-rice")
    assert holds(world, "cooks-into", "water", "cooked-water")
    assert holds(world, "cooks-into-2", "cooked-water", "rice", "cooked-rice")
    assert not holds(world, "cooks-into-2", "rice", "cooked-water", "cooked-rice")


def test_mix_a_substance_with_a_mixing_tool_held() -> None:
    """A `mix` recipe (BEHAVIOR's `mixing_stick`): coffee from instant coffee and water in
    a mug, stirred with a spoon held; refused with the mug held or no tool."""
    g = graph([obj("table", "table", (1.0, 0.5, 0.45), (1.2, 0.6, 0.9), kind="furniture"),
               on_top("mug", "mug", (0.7, 0.5), 0.9, ITEM,
                      attributes={"state": "contains:water, contains:instant-coffee"}),
               on_top("spoon", "wooden-spoon", (1.0, 0.5), 0.9, ITEM)],
              rooms=[room("kitchen", "kitchen", 0, 0, 3, 3)],
              recipes=[{"output": "coffee", "substances": ["water", "instant-coffee"],
                        "kind": "mix"}])
    world = EmbeddedWorld(g)
    fetch(world, "mug")
    refused(world, "make", "mug", "coffee", "the hand holds no mixing tool")
    put_on(world, "table|top")
    assert world.pick("spoon").ok
    done(world, "make", "mug", "coffee")
    assert holds(world, "contains", "mug", "coffee") and holds(world, "is-mixing-tool", "spoon")
    assert holds(world, "mixes-into-2", "instant-coffee", "water", "coffee")
    assert not holds(world, "cooks-into-2", "instant-coffee", "water", "coffee")


def test_fold_and_unfold(world: EmbeddedWorld) -> None:
    refused(world, "fold", "towel", None, "not in the hand")
    fetch(world, "towel")
    refused(world, "unfold", "towel", None, "already unfolded")
    done(world, "fold", "towel")
    assert holds(world, "folded", "towel") and not holds(world, "unfolded", "towel")
    refused(world, "fold", "towel", None, "already folded")
    done(world, "unfold", "towel")
    assert holds(world, "unfolded", "towel")


def test_attach_and_detach(world: EmbeddedWorld) -> None:
    fetch(world, "camera")
    refused(world, "attach", "camera", "camera", "to itself")
    refused(world, "attach", "camera", "tripod", "out of reach")
    assert world.navigate("tripod").ok
    done(world, "attach", "camera", "tripod")
    assert holds(world, "attached", "camera", "tripod")
    refused(world, "attach", "camera", "tripod", "already attached")
    done(world, "detach", "camera", "tripod")
    assert not holds(world, "attached", "camera", "tripod")
    refused(world, "detach", "camera", "tripod", "not attached")


def test_unknown_rules_and_objects_are_refused(world: EmbeddedWorld) -> None:
    refused(world, "melt", "apple", None, "no state change `melt`")
    refused(world, "cook", "pizza", None, "no `pizza`")


def test_states_carry_over_from_a_start_snapshot(world: EmbeddedWorld) -> None:
    fetch(world, "towel")
    done(world, "fold", "towel")
    again = EmbeddedWorld(world.graph, start=world.snapshots[-1])
    assert holds(again, "folded", "towel")


def test_every_planning_action_names_a_rule() -> None:
    assert {rule for rule, *_ in PLAN_ACTIONS.values()} == set(RULES)
