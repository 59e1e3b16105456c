"""Suites compiled from templates whose domain is in a file of its own (`fdc import
bddl`'s `bddl-home.pddl`): the manifest records the domain file, so reopening the suite,
`fdc validate` and `fdc audit` check the templates with it; a changed or missing domain
file is one error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app

pytest.importorskip("bddl")

from fdc.compiler.reopen import reopen_suite

runner = CliRunner()
APARTMENT = Path(__file__).parents[2] / "examples" / "scenes" / "apartment.json"
PROBLEM = ("(define (problem p-0) (:domain omnigibson) (:objects apple.n.01_1 - apple.n.01 "
           "bowl.n.01_1 - bowl.n.01 table.n.02_1 - table.n.02 floor.n.01_1 - floor.n.01 "
           "agent.n.01_1 - agent.n.01) (:init (not (cooked apple.n.01_1)) "
           "(inroom table.n.02_1 kitchen) (inroom floor.n.01_1 kitchen) "
           "(ontop agent.n.01_1 floor.n.01_1)) "
           "(:goal (and (cooked ?apple.n.01_1) (inside ?apple.n.01_1 ?bowl.n.01_1))))")


def _cli(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("cook_apple").mkdir()
    Path("cook_apple/problem0.bddl").write_text(PROBLEM)
    assert _cli("import", "bddl", "cook_apple", "-o", "out")[0] == 0
    code, out = _cli("compile", APARTMENT, "-T", "out", "--max-per-template", "2", "--seed",
                     "0", "-o", "suite.jsonl")
    assert code == 0, out
    return tmp_path / "suite.jsonl"


def test_the_manifest_records_the_domain_file(suite: Path) -> None:
    manifest = json.loads((suite.parent / "manifest.json").read_text())
    import hashlib

    sha = hashlib.sha256((suite.parent / "out" / "bddl-home.pddl").read_bytes()).hexdigest()
    assert manifest["domains"] == [{"path": "out/bddl-home.pddl", "sha256": sha}]
    opened = reopen_suite(suite)
    for r in opened.records:
        entry, why = opened.template(r)
        assert entry is not None and entry.domain.domain.name == "bddl-home", why


def test_validate_and_audit_work_on_such_suites(suite: Path) -> None:
    code, out = _cli("validate", suite)
    assert code == 0, out  # before: exit 2, "the templates do not check"
    assert "validated 2 task(s)" in out
    code, out = _cli("audit", suite)
    assert "internal error" not in out and "audited 2 task(s)" in out, out


def test_a_changed_or_missing_domain_file_is_one_error(suite: Path) -> None:
    domain = suite.parent / "out" / "bddl-home.pddl"
    domain.write_text(domain.read_text() + "\n; edited\n")
    code, out = _cli("validate", suite)
    assert code == 2 and "has changed since the suite was compiled" in out, out
    domain.unlink()
    code, out = _cli("validate", suite)
    assert code == 2 and "does not exist" in out and "Traceback" not in out, out


def test_a_suite_of_builtin_templates_has_no_domains_key(tmp_path: Path) -> None:
    level1 = APARTMENT.parents[2] / "domain" / "templates" / "manipulation" / "level-1.pddl"
    code, out = _cli("compile", APARTMENT, "-T", level1, "--max-per-template", "1",
                     "-o", tmp_path / "suite.jsonl")
    assert code == 0, out
    assert "domains" not in json.loads((tmp_path / "manifest.json").read_text())


ONTOP = PROBLEM.replace("(:goal (and (cooked ?apple.n.01_1) (inside ?apple.n.01_1 ?bowl.n.01_1)))",
                        "(:goal (and (ontop ?apple.n.01_1 ?table.n.02_1) "
                        "(ontop ?bowl.n.01_1 ?table.n.02_1)))")


def test_whole_object_relations_are_planned_and_acted_out(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """`on-top-of` (BDDL's `ontop` of furniture): the abstraction plans it as `on` one of
    the object's non-container surfaces and the oracle puts the item there, so every model
    agrees (before: the planner found the goal unreachable, the oracle no action)."""
    monkeypatch.chdir(tmp_path)
    Path("put_apple").mkdir()
    Path("put_apple/problem0.bddl").write_text(ONTOP)
    assert _cli("import", "bddl", "put_apple", "-o", "out")[0] == 0
    code, out = _cli("compile", APARTMENT, "-T", "out", "--max-per-template", "2", "--seed",
                     "0", "-o", "suite.jsonl")
    assert code == 0, out
    assert "on-top-of" in Path("suite.jsonl").read_text()
    code, out = _cli("audit", "suite.jsonl", "--no-pixels")
    assert code == 0 and "0 disagreement(s)" in out, out


#: Corpus activities whose goals need state changes (`wipe`, `wash`, `attach`), each
#: planned, acted out and agreed on by every model of the audit on its generated house.
STATE_ACTIVITIES = ("clean_a_book", "clean_a_kitchen_table", "attach_a_camera_to_a_tripod")


def _corpus_task(tmp_path: Path, name: str) -> Path:
    """The corpus activity's template compiled (one task) on its generated house."""
    here = tmp_path / name
    (here / "t" / "templates").mkdir(parents=True)
    imported = tmp_path / "corpus"
    if not imported.exists():
        code, out = _cli("import", "bddl", "--corpus", "-o", imported)
        assert code in (0, 1), out
    template = "bddl-" + name.replace("_", "-").lower() + ".pddl"
    (here / "t" / "bddl-home.pddl").write_bytes((imported / "bddl-home.pddl").read_bytes())
    (here / "t" / "templates" / template).write_bytes(
        (imported / "templates" / template).read_bytes())
    _cli("scene", "generate", "--from-bddl", name, "-o", here / "scene.json")
    code, out = _cli("compile", here / "scene.json", "-T", here / "t", "--max-per-template",
                     "1", "--seed", "0", "-o", here / "suite.jsonl")
    assert code == 0, out
    return here / "suite.jsonl"


def test_state_changes_are_planned_acted_out_and_agreed_on(tmp_path: Path) -> None:
    """Goals of BEHAVIOR's states (not covered with dust, attached): the planner plans
    bddl-home's state actions, the world carries them out, the oracle changes the states
    too (before: the planner found the goals unreachable, the oracle had no action)."""
    for name in STATE_ACTIVITIES:
        suite = _corpus_task(tmp_path, name)
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


#: Corpus activities whose goals need a substance from a source (`insource`: a sealant
#: atomizer), an item thawed (`not frozen`), a stain wiped with a swab or wrinkles with
#: an iron (BEHAVIOR's `particleRemover`s), agreed on by every model.
SOURCE_AND_THAW_ACTIVITIES = ("laying_paving_stones", "cooking_dinner", "cleaning_boat",
                              "ironing_curtains")


def test_sources_and_thawing_are_planned_acted_out_and_agreed_on(tmp_path: Path) -> None:
    """`(covered ?stone ?sealant)` with a sealant atomizer `insource` sealant: the house
    makes the atomizer a source, the planner spreads from it (`spread-source`), the world
    and the oracle too; `(not (frozen ?lasagna))`: heated; a swab, an iron: cleaning tools
    by their abilities (before: the planner found the first unreachable, the oracle no
    item to spread from; the oracle had no change for the second; both found nothing to
    clean with for the last two, a task compiled that no model could solve)."""
    for name in SOURCE_AND_THAW_ACTIVITIES:
        suite = _corpus_task(tmp_path, name)
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


#: Corpus activities whose goals name substances made during the task by heat
#: (BEHAVIOR's transition rules): cooked water in a hot-water bottle (filled at the sink,
#: then heated), pears covered with cooked red wine (made in the wine's bottle, spread),
#: lemonade (stirred with a wooden spoon: a `mix` recipe), cooked marinara (the jar
#: poured from put down before the pot is carried to the stove).
RECIPE_ACTIVITIES = ("fill_a_hot_water_bottle", "make_baked_pears", "make_lemonade",
                     "making_a_meal")


def test_substances_made_by_recipes_are_planned_acted_out_and_agreed_on(tmp_path: Path
                                                                         ) -> None:
    """The house lists the recipes (`recipes`), the planner makes the substance with
    `cook-substance`, the world and the oracle with `make` (before: the planner found the
    goal unreachable, the oracle no item that contains the substance)."""
    for name in RECIPE_ACTIVITIES:
        suite = _corpus_task(tmp_path, name)
        scene = json.loads((suite.parent / "scene.json").read_text())
        assert any(r["output"].startswith("cooked-") or r["kind"] == "mix"
                   for r in scene["recipes"]), name
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


def test_the_audit_survives_items_that_carry_each_other(tmp_path: Path) -> None:
    """unpacking_hobby_equipment's house has a carton and a laptop each carrying the
    other (the laptop in the carton, the carton on the laptop's top, as the poses
    have it): the oracle's `fetch` recursed without end (a RecursionError, an internal
    error of `fdc audit`); now it finds no trace, a disagreement with a reason."""
    suite = _corpus_task(tmp_path, "unpacking_hobby_equipment")
    _code, out = _cli("audit", suite, "--no-pixels")
    assert "internal error" not in out and "RecursionError" not in out, out
    assert "audited 1 task(s)" in out, out


#: Corpus activities that put an item in or on an item, or take it from there: the
#: house sized for what the goal puts in a box, stacked in it too (`mailing_letters`'s
#: envelopes, `store_feta_cheese`'s feta wrapped in a tupperware), no pick of an item
#: that carries something on its floor (`putting_away_games`'s carton) nor of one in a
#: box inside a closed fridge (`cook_brussels_sprouts`).
PLACEMENT_ACTIVITIES = ("mailing_letters", "store_feta_cheese", "putting_away_games",
                        "cook_brussels_sprouts")


def test_placements_in_and_on_items_are_agreed_on(tmp_path: Path) -> None:
    """Before: the world refused what the abstraction allowed (a pick of a carton with a
    puzzle in it, of a sprout in a tupperware in a closed fridge; an envelope 16 cm tall
    into a mailbox 14 cm deep) and the oracle found no placement."""
    for name in PLACEMENT_ACTIVITIES:
        suite = _corpus_task(tmp_path, name)
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


def test_next_to_is_planned_acted_out_and_agreed_on(tmp_path: Path) -> None:
    """BDDL's `nextto`: money next to a cash register (on it: `place-next-to`), a fork
    next to a plate on the table (beside it: `place-next-to-item`). Before: the planner
    found the goal unreachable and the oracle had no action that changes `next-to`."""
    for name in ("buy_used_gardening_equipment", "setting_the_table"):
        suite = _corpus_task(tmp_path, name)
        assert "next-to" in suite.read_text()
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


def test_imported_tasks_are_outcome_tasks(tmp_path: Path) -> None:
    """BDDL's goals are outcomes: the step budget counts the items to move, as
    ManiTaskGen's outcome tasks (before: 20 actions for 8 T-shirts, the oracle's trace
    33 long)."""
    suite = _corpus_task(tmp_path, "distributing_event_T_shirts")
    record = json.loads(suite.read_text().splitlines()[0])
    assert "outcome" in record["tags"]
    code, out = _cli("audit", suite, "--no-pixels")
    assert code == 0 and "0 disagreement(s)" in out, out


def _atoms(goal: dict[str, object]) -> list[dict[str, object]]:
    """The atoms of a task record's goal (its JSON)."""
    if goal.get("kind") == "atom":
        return [goal]
    parts = [goal["body"]] if "body" in goal else list(goal.get("parts", []))  # type: ignore[arg-type]
    return [a for p in parts for a in _atoms(p)]  # type: ignore[arg-type]


def test_no_goal_relates_an_item_to_itself(tmp_path: Path) -> None:
    """unpacking_hobby_equipment: `(exists (?v - videodisk) (or (ontop ?v ?videodisk_1)
    (ontop ?v ?videodisk_2)))` is another videodisk on one of them (BEHAVIOR's relations
    hold between two objects); the oracle stacks one videodisk on the other kept on the
    bookcase, not on itself nor the same one in two places. Before: the goal named
    `(on-top-of videodisk_1 videodisk_1)` and the oracle found no destination for it."""
    suite = _corpus_task(tmp_path, "unpacking_hobby_equipment")
    goal = json.loads(suite.read_text().splitlines()[0])["goal"]
    relations = [a["args"] for a in _atoms(goal) if len(a["args"]) == 2]  # type: ignore[arg-type]
    assert relations and all(x != y for x, y in relations), relations
    code, out = _cli("audit", suite, "--no-pixels")
    assert code == 0 and "0 disagreement(s)" in out, out


#: Corpus activities whose plans put an item on or in an item where what stands there
#: leaves no room (a plate on a plate that holds a pizza, butter in a pan the turkey
#: fills), and whose oracle puts a low-topped item where the goal wants what stands on
#: it (the plates into the fridge, then the pizzas on them).
ITEM_ROOM_ACTIVITIES = ("cleaning_up_plates_and_food", "cook_a_turkey")


def test_no_room_on_or_in_an_item_is_planned_around(tmp_path: Path) -> None:
    """The world refuses `place-on-item`/`place-in-item` for lack of room as it refuses
    `place`: the certificate forbids that placement and plans again. Before: the refusal
    was an action the abstraction allows and the world does not (`refused (action)`),
    and the oracle put the pizzas into the fridge and back on the plates in turn."""
    for name in ITEM_ROOM_ACTIVITIES:
        suite = _corpus_task(tmp_path, name)
        code, out = _cli("audit", suite, "--no-pixels")
        assert code == 0 and "0 disagreement(s)" in out, (name, out)


def test_an_item_is_detached_where_it_stands(tmp_path: Path) -> None:
    """unpacking_recreational_vehicle_for_trip: a bicycle on the garage floor detached
    from its rack stays on the floor (the world's `detach`: within reach; bddl-home's:
    held or the robot at it; the oracle does not pick it up), and an item picked from the
    floor is no longer `on-floor` in the abstraction. Before: the oracle picked the
    bicycle up and found no surface to put it on, the planner found the goal
    unreachable."""
    suite = _corpus_task(tmp_path, "unpacking_recreational_vehicle_for_trip")
    assert '"on-floor"' in suite.read_text()
    code, out = _cli("audit", suite, "--no-pixels")
    assert code == 0 and "0 disagreement(s)" in out, out


def test_the_oracle_puts_no_item_in_two_places_for_a_covering(tmp_path: Path) -> None:
    """make_dinosaur_goody_bags: BDDL's `forpairs` (dolls, teddies in sacks) is a covering
    whose disjunctions offer one doll for each sack; the oracle prefers, of a
    disjunction's parts, one that does not put an item inside another thing than the
    parts taken before it do. Before: it put one doll into both sacks in turn and its
    moves ended short of the goal."""
    suite = _corpus_task(tmp_path, "make_dinosaur_goody_bags")
    code, out = _cli("audit", suite, "--no-pixels")
    assert code == 0 and "0 disagreement(s)" in out, out
