"""The compile passes on a real (small, hand-made) scene: scene facts, describe, render,
and the driver (bind, ground, drop reasons, ambiguity policies, memory goal frames)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from fdc.compiler.check import check_paths
from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.ground import disjunction
from fdc.compiler.pipeline import compile_template
from fdc.compiler.scene_facts import _DIRECT, LOG_VALUES, SceneFacts, StateFacts
from fdc.compiler.targets import goal_targets
from fdc.instructions.describe import Describer
from fdc.instructions.render import EntityText, Renderer, RenderError
from fdc.predicates.algebra import expand_count
from fdc.predicates.goal import GAnd, GAtom, GCount, GOr, GTargets, atom
from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.snapshot import SnapshotState
from tests.compiler.kitchen import compiler, entries, experience, kitchen, template
from tests.sim_bridge.helpers import obj, room, scene


def _domain():  # type: ignore[no-untyped-def]
    from fdc.domain import builtin_domain_files

    return check_paths([str(builtin_domain_files()[0])]).domains["fdc-home"]


def facts(log=None) -> SceneFacts:  # type: ignore[no-untyped-def]
    return SceneFacts(kitchen(), _domain(), log)


# ----------------------------------------------------------------------------- facts


def test_entities_are_typed_by_category_kind_and_domain() -> None:
    f = facts(experience())
    assert f.type_of("mug_red") == "mug"
    assert f.type_of("banana_0") == "banana"  # a fruit type of the domain
    assert f.type_of("table") == "table"  # furniture and rooms: typed by category too
    assert f.type_of("table|top") == "furniture-surface"  # a surface of furniture
    assert f.type_of("kitchen") == "kitchen"
    assert f.type_of("red") == "color"
    assert f.type_of("tableware") == "category"  # above mug and plate
    assert "mug_red" in f.entities(("tableware",))
    assert "banana_0" not in f.entities(("tableware",))
    assert f.entities(("clock-time",)) == ["364", "368"]  # midpoints of the interactions


def test_furniture_and_rooms_are_typed_through_the_hierarchy() -> None:
    f = facts()
    assert f.type_of("counter") == "counter"
    assert f.type_of("living") == "living-room"  # `living_room` in PDDL spelling
    assert f.entities(("counter",)) == ["counter"]
    assert {"table", "counter", "sofa", "shelf"} <= set(f.entities(("furniture",)))
    assert f.entities(("kitchen",)) == ["kitchen"]
    assert set(f.entities(("room",))) == {"kitchen", "living"}
    assert f.domain.ancestors("coffee-table") >= {"table", "furniture"}
    assert f.domain.ancestors("kitchen-counter") >= {"counter", "furniture"}


def test_a_category_outside_the_hierarchy_keeps_the_kind_type() -> None:
    graph = build_scene_graph(scene(
        [obj("box_cab", "cabinet", (1.0, 1.0, 0.4), (0.6, 0.6, 0.8), kind="furniture"),
         obj("thing", "armoire", (3.0, 1.0, 0.4), (0.6, 0.6, 0.8), kind="furniture")],
        rooms=[room("r1", "garage", 0, 0, 6, 4)]))
    f = SceneFacts(graph, _domain())
    assert f.type_of("box_cab") == "furniture"  # a cabinet that does not open
    assert f.type_of("thing") == "furniture"
    assert f.type_of("r1") == "room"


def test_a_template_names_the_kitchen_counter_by_type(tmp_path: Path) -> None:
    path = tmp_path / "t.pddl"
    path.write_text("""(define (template on-kitchen-counter)
  (:domain fdc-home)
  (:category level-1)
  (:level 1)
  (:version 1)
  (:description "Put an item on a counter in a kitchen.")
  (:parameters ?m - mug ?s - surface ?f - counter ?r - kitchen)
  (:constraints (and (surface-of ?s ?f) (furniture-in-room ?f ?r)))
  (:goal (on ?m ?s))
  (:instruction "Put {{ m | ref }} on {{ s | ref }}.")
  (:ambiguity reject))
""")
    assert not check_paths([str(path)]).errors
    f = facts()
    assert [r for r in f.true_atoms("furniture-in-room")
            if f.has_type(r[0], ("counter",)) and f.has_type(r[1], ("kitchen",))] == [
        ("counter", "kitchen")]


def test_values_from_the_log_may_have_two_types() -> None:
    log = experience()
    assert list(LOG_VALUES["clock-time"](log)) == ["364", "368"]
    assert list(LOG_VALUES["minutes"](log)) == ["3"]
    f = facts(log)
    assert f.types["3"] == ("minutes",)
    shifted = log.model_copy(update={"interactions": tuple(
        i.model_copy(update={"start_min": 2.0, "end_min": 4.0}) for i in log.interactions[:1]
    ) + log.interactions[1:]})
    both = facts(shifted)
    assert set(both.types["3"]) == {"clock-time", "minutes"}
    assert "3" in both.entities(("clock-time",)) and "3" in both.entities(("minutes",))
    d = Describer(both, SnapshotState(kitchen(), EmbeddedWorld(kitchen()).snapshot()))
    assert d.describe("3", ("clock-time",)).phrase == "00:03"
    assert d.describe("3", ("minutes",)).phrase == "3"


#: bddl-home's recipe statics: read from a scene's recipes (the kitchen has none; the
#: product tables over the substances run to millions of atoms): `test_recipe_tables_...`
RECIPES = frozenset({"cooks-into", "cooks-into-2", "melts-into", "mixes-into-2",
                     "mixes-into-3"})


@pytest.mark.parametrize("predicate", sorted(set(_DIRECT) - RECIPES))
def test_direct_tables_agree_with_the_checkers(predicate: str) -> None:
    f = facts(experience())
    view = StateFacts(f, SnapshotState(kitchen(), EmbeddedWorld(kitchen()).snapshot()))
    fast = list(view.true_atoms(predicate))
    ctx = view.context
    slow = sorted(r for r in f._product_table(predicate, ctx) if f._typed(predicate, r))
    assert fast == slow
    assert fast, f"the kitchen should have some `{predicate}` atom"


def test_recipe_tables_are_the_scenes_recipes_as_the_checkers_judge_them() -> None:
    from fdc.predicates.builtin import default_registry
    from fdc.sim_bridge.scene.schema import RecipeSpec

    recipes = [RecipeSpec(output="cooked water", substances=["water"]),
               RecipeSpec(output="cooked rice", substances=["rice", "cooked water"]),
               RecipeSpec(output="melted mug", items=["mug"]),
               RecipeSpec(output="coffee", substances=["water", "instant coffee"], kind="mix"),
               RecipeSpec(output="lemonade", substances=["water", "sugar", "lemon juice"],
                          kind="mix")]
    graph = build_scene_graph(kitchen().scene.model_copy(update={"recipes": recipes}))
    f = SceneFacts(graph, _domain(), None)
    ctx = StateFacts(f, SnapshotState(graph, EmbeddedWorld(graph).snapshot())).context
    tables = {p: sorted(_DIRECT[p](f, ctx)) for p in sorted(RECIPES)}
    mugs = sorted(e for e in f.entities(("movable",)) if graph.object(e).category == "mug")
    assert mugs and tables == {
        "cooks-into": [("water", "cooked-water")],
        "cooks-into-2": [("cooked-water", "rice", "cooked-rice")],
        "melts-into": [(m, "melted-mug") for m in mugs],
        "mixes-into-2": [("instant-coffee", "water", "coffee")],
        "mixes-into-3": [("lemon-juice", "sugar", "water", "lemonade")],
    }
    registry = default_registry()
    for p, rows in tables.items():
        for r in rows:
            assert registry.evaluate(p, r, ctx), (p, r)
            if len(r) > 2:  # the inputs in another order: no recipe
                assert not registry.evaluate(p, (*reversed(r[:-1]), r[-1]), ctx), (p, r)


def test_history_without_experience_is_false_not_an_error() -> None:
    f = facts(None)
    assert f.true_atoms("interacted") == []
    assert not f.holds("interacted", ["mug_red"])
    assert f.value("interaction-order", ["mug_red"]) is None


def test_fluents_have_no_compile_time_truth_but_do_in_a_state() -> None:
    f = facts()
    with pytest.raises(ValueError, match="fluent"):
        f.holds("on", ["mug_red", "table|top"])
    view = StateFacts(f, SnapshotState(kitchen(), EmbeddedWorld(kitchen()).snapshot()))
    assert view.kind("on") == "static"
    assert view.holds("on", ["mug_red", "table|top"])
    assert not view.holds("on", ["mug_red", "counter|top"])


# ----------------------------------------------------------------------------- describe


def describer() -> Describer:
    return Describer(facts(), SnapshotState(kitchen(), EmbeddedWorld(kitchen()).snapshot()))


def test_descriptions_are_unique_and_minimal() -> None:
    d = describer()
    assert d.describe("mug_red").definite == "the red mug"
    assert d.describe("banana_0").definite == "the banana"
    # two blue mugs, and two mugs on the table: it takes both
    assert d.describe("mug_blue").definite == "the blue mug on the table"
    assert d.describe("mug_counter").definite == "the mug on the counter"
    assert d.describe("table|top").definite == "the table"
    assert d.describe("kitchen").definite == "the kitchen"
    assert d.describe("red").definite == "red"
    for e in d.facts.entities(("movable",)):
        desc = d.describe(e)
        if not desc.unique:
            continue
        mine = d.features(e)
        for other in d.distractors(e):
            theirs = d.features(other)
            assert any(theirs.get(n) != mine[n] for n in desc.features), (e, other)
        # minimal: no smaller set of features tells it apart
        for size in range(len(desc.features)):
            for subset in itertools.combinations(sorted(mine), size):
                assert any(
                    all(d.features(o).get(n) == mine[n] for n in subset)
                    for o in d.distractors(e)
                ), (e, subset)


def test_identical_items_are_ambiguous() -> None:
    desc = describer().describe("plate_0")
    assert not desc.unique
    assert desc.fits == ("plate_0", "plate_1")


# ----------------------------------------------------------------------------- render


def test_render_fills_entities_and_normalises_space() -> None:
    r = Renderer()
    mug = EntityText("red mug", "mug_red", "the red mug")
    text = "Take {{ o | ref }}\n  and   {{ o | a }}; {{ o.id }} at {{ t | clock }}."
    assert r.render(text, {"o": mug, "t": "7:05"}) == (
        "Take the red mug and a red mug; mug_red at 07:05.")


@pytest.mark.parametrize("text", [
    "{{ missing }}",  # StrictUndefined
    "{{ o.__class__.__mro__ }}",  # the sandbox
    "{{ o.upper.__globals__ }}",
    "{{ 3 | ordinal_word(1) }}",  # a filter called wrongly
])
def test_render_refuses_unsafe_or_undefined(text: str) -> None:
    with pytest.raises(RenderError):
        Renderer().render(text, {"o": EntityText("mug", "m", "the mug")})


# ----------------------------------------------------------------------------- driver


def test_a_goal_already_true_drops(tmp_path: Path) -> None:
    src = template("keep", "(:goal (on ?o ?s))", "?o - mug ?s - surface",
                   extra="(:constraints (on ?o ?s))")
    rep = compile_template(compiler(), entries(tmp_path, src)[0])
    assert rep.bindings == 3 and rep.tasks == 0
    assert rep.drops == {"goal already true at the start": 3}


def test_a_sequence_whose_first_step_holds_drops(tmp_path: Path) -> None:
    """`l3-then-into-close` of the default suite: "Put the box that is in the wardrobe,
    in the wardrobe, then close it", its first step done at the start; a random agent
    that walked about succeeded at `l3-then-side-side` ones (the audit found it)."""
    src = template("keep-then", "(:goal (then (on ?o ?s) (holding ?o)))",
                   "?o - mug ?s - surface", extra="(:constraints (on ?o ?s))")
    rep = compile_template(compiler(), entries(tmp_path, src)[0], explain=True)
    assert rep.bindings == 3 and rep.tasks == 0
    assert rep.drops == {"step 1 of `then` already true at the start": 3}
    assert {o.reason for o in rep.outcomes} == {Drop(DropCode.STEP_TRUE, "1")}


def test_an_empty_domain_gives_no_task_and_no_error(tmp_path: Path) -> None:
    src = template("pans", "(:goal (holding ?p))", "?p - pan")
    rep = compile_template(compiler(), entries(tmp_path, src)[0])
    assert (rep.bindings, rep.tasks, rep.error, dict(rep.drops)) == (0, 0, None, {})


def test_counting_quantifiers_ground_over_the_scene(tmp_path: Path) -> None:
    src = template("two-mugs", "(:goal (at-least 2 (?m - mug) (on ?m ?s)))", "?s - surface",
                   instruction="Put two mugs on {{ s | ref }}.")
    rep = compile_template(compiler(), entries(tmp_path, src)[0], explain=True)
    [rec] = [r for r in rep.records if r.bindings["?s"] == "counter|top"]
    goal = rec.goal
    # at least 2 of the 3 mugs: one count node, whose expansion is some pair of them (the
    # grounder never reads the state)
    mugs = ("mug_blue", "mug_counter", "mug_red")
    assert goal == GCount(relation="on", items=mugs, others=("counter|top",), number=2)
    assert isinstance(goal, GCount) and expand_count(goal, 100) == GOr(parts=tuple(
        GAnd(parts=(atom("on", a, "counter|top"), atom("on", b, "counter|top")))
        for a, b in itertools.combinations(mugs, 2)))
    assert rec.instructions == ["Put two mugs on the counter."]
    # two mugs stand on the table already
    assert any(o.reason == Drop(DropCode.ALREADY_TRUE) and o.binding["?s"] == "table|top"
               and o.reason.message == "goal already true at the start" for o in rep.outcomes)


def test_ties_are_reported_not_broken(tmp_path: Path) -> None:
    src = template("reddest", "(:goal (robot-at-object ?o))", "?o - movable",
                   extra="(:constraints (argmax ?o (?x - movable) (interaction-duration ?x)"
                         " (interacted ?x)))")
    rep = compile_template(compiler(experience()), entries(tmp_path, src)[0])
    assert rep.tasks == 0
    # both moves took 3 minutes: every candidate for ?o meets the tie
    assert rep.drops == {"tie for argmax of (interaction-duration ?x)": 8}


def test_ambiguous_description_under_both_policies(tmp_path: Path) -> None:
    body = "(:goal (holding ?p))"
    params = "?p - plate ?s - surface"
    extra = "(:constraints (on ?p ?s))"
    text = "Pick up {{ p | ref }} from {{ s | ref }}."
    reject = template("plate-reject", body, params, text, extra + " (:ambiguity reject)")
    widen = template("plate-widen", body, params, text, extra + " (:ambiguity widen)")
    c = compiler()
    r1 = compile_template(c, entries(tmp_path, reject, "a.pddl")[0])
    assert r1.tasks == 0 and r1.drops == {"ambiguous description of ?p": 2}
    r2 = compile_template(c, entries(tmp_path, widen, "b.pddl")[0], explain=True)
    # both bindings widen to either plate: one task, the other binding its duplicate
    assert r2.tasks == 1
    assert r2.drops == {"the same goal and instructions as another task": 1}
    (rec,) = r2.records
    assert rec.goal == GOr(parts=(atom("holding", "plate_0"), atom("holding", "plate_1")))
    assert rec.targets == ["plate_0", "plate_1"]
    assert rec.instructions == ["Pick up the plate from the table."]
    (dup,) = [o.reason for o in r2.outcomes if o.reason is not None]
    assert dup == Drop(DropCode.DUPLICATE, rec.id)


def test_widening_never_emits_one_task_twice_under_any_seed(tmp_path: Path) -> None:
    body = "(:goal (holding ?p))"
    widen = template("plate-widen", body, "?p - plate ?s - surface",
                     "Pick up {{ p | ref }} from {{ s | ref }}.",
                     "(:constraints (on ?p ?s)) (:ambiguity widen)")
    e = entries(tmp_path, widen)[0]
    for seed in range(4):
        for k in (None, 1, 2):
            rep = compile_template(compiler(seed=seed, max_per_template=k), e)
            made = [(r.goal_pddl, tuple(r.instructions)) for r in rep.records]
            assert len(made) == len(set(made)) == 1, made


def test_an_ambiguous_drop_names_the_words_and_the_rivals(tmp_path: Path) -> None:
    reject = template("plate-reject", "(:goal (holding ?p))", "?p - plate ?s - surface",
                      "Pick up {{ p | ref }}.", "(:constraints (on ?p ?s)) (:ambiguity reject)")
    rep = compile_template(compiler(), entries(tmp_path, reject)[0], explain=True)
    reasons = {o.binding["?p"]: o.reason for o in rep.outcomes}
    assert reasons["plate_0"] == Drop(DropCode.AMBIGUOUS, "?p", ("plate_0",),
                                      description="the plate", rivals=("plate_1",))
    assert reasons["plate_1"] is not None and reasons["plate_1"].rivals == ("plate_0",)
    assert reasons["plate_0"].message == \
        "ambiguous description of ?p = `plate_0`: “the plate” also fits `plate_1`"
    # the manifest's example of the reason is the first binding met, in full
    example = rep.examples["ambiguous description of ?p"]
    assert example.reason in reasons.values() and example.binding["?p"] in reasons


def test_a_multi_goal_over_ambiguous_words_drops_naming_them(tmp_path: Path) -> None:
    src = template("each-plate", "(:goal (targets (?x - movable) (= ?x ?p) (holding ?x)))",
                   "?p - plate", "Pick up {{ p | ref }}.", "(:ambiguity widen)")
    rep = compile_template(compiler(), entries(tmp_path, src)[0], explain=True)
    assert rep.tasks == 0
    assert {o.reason.rivals for o in rep.outcomes if o.reason} == {("plate_0",), ("plate_1",)}
    assert rep.drops == {"ambiguous description of ?p": 2}


def test_memory_tasks_get_goal_frames_and_a_shortest_walk(tmp_path: Path) -> None:
    src = template("first-object", "(:goal (robot-at-object ?o))", "?o - movable",
                   instruction="Go to the object you moved first.",
                   extra="(:constraints (= (interaction-order ?o) 1)) (:tags memory)")
    rep = compile_template(compiler(experience()), entries(tmp_path, src)[0])
    assert rep.tasks == 1
    rec = rep.records[0]
    assert rec.targets == ["mug_red"] and rec.experience == "e" * 64
    assert rec.valid_frames is not None and len(rec.valid_frames) == 1
    frames = rec.valid_frames[0]
    # only from the frame the mug reached its final place (5), and only facing it
    assert frames and min(frames) >= 5
    assert rec.start is not None and (rec.start.x, rec.start.y) == (1.0, 3.0)
    assert rec.optimal_path_m is not None and rec.optimal_path_m > 2.0


def test_multi_goal_memory_tasks_get_one_frame_list_per_target(tmp_path: Path) -> None:
    src = template("revisit", "(:goal (ordered-targets (?x - movable) (interaction-order ?x)"
                   " (interacted ?x) (robot-at-object ?x)))",
                   instruction="Revisit what you moved, in order.")
    rep = compile_template(compiler(experience()), entries(tmp_path, src)[0])
    rec = rep.records[0]
    assert isinstance(rec.goal, GTargets) and rec.targets == ["mug_red", "apple_0"]
    assert rec.valid_frames is not None and len(rec.valid_frames) == 2
    assert all(min(f) >= 9 for f in rec.valid_frames[1:] if f)


def test_task_ids_are_stable_and_depend_on_the_scene(tmp_path: Path) -> None:
    src = template("hold", "(:goal (holding ?o))", "?o - mug")
    e = entries(tmp_path, src)[0]
    a = [r.id for r in compile_template(compiler(), e).records]
    b = [r.id for r in compile_template(compiler(), e).records]
    assert a == b and len(set(a)) == 3
    other = compiler()
    other.scene_sha256 = "1" * 64
    assert not set(a) & {r.id for r in compile_template(other, e).records}


def test_max_per_template_samples_tasks_with_the_seed(tmp_path: Path) -> None:
    src = template("hold-any", "(:goal (holding ?o))", "?o - movable")
    e = entries(tmp_path, src)[0]
    full = compile_template(compiler(), e)
    assert full.tasks == 8
    picks = {tuple(r.id for r in compile_template(compiler(max_per_template=3, seed=s), e).records)
             for s in range(6)}
    assert all(len(p) == 3 and set(p) <= {r.id for r in full.records} for p in picks)
    assert len(picks) > 1  # different seeds, different samples
    def sample() -> list[str]:
        return [r.id for r in compile_template(compiler(max_per_template=3, seed=2), e).records]

    assert sample() == sample()


def test_reason_keys_and_targets() -> None:
    tie = Drop(DropCode.TIE, "argmin of (f ?x)", ("a", "b"), "2")
    assert tie.message == "tie between `a` and `b` for argmin of (f ?x) (all 2)"
    assert tie.key == "tie for argmin of (f ?x)"
    ambiguous = Drop(DropCode.AMBIGUOUS, "?p", ("plate_0",), description="the plate",
                     rivals=("plate_1", "plate_2"))
    assert ambiguous.key == "ambiguous description of ?p"
    assert ambiguous.message == ("ambiguous description of ?p = `plate_0`: “the plate” also "
                                 "fits `plate_1` and `plate_2`")
    g = disjunction([atom("on", "b", "s"), GOr(parts=(atom("on", "a", "s"), atom("on", "b", "s")))])
    assert isinstance(g, GOr) and [p.args[0] for p in g.parts if isinstance(p, GAtom)] == ["a", "b"]
    assert goal_targets(g) == ["a", "b"]
