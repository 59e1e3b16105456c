"""`fdc compile` and `fdc explain` as a user meets them: outputs, tables, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fdc.cli import app
from tests.compiler.kitchen import experience

REPO = Path(__file__).resolve().parents[2]
KITCHEN = str(REPO / "tests" / "golden" / "scenes" / "kitchen.json")
TEMPLATES = str(REPO / "tests" / "golden" / "templates")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_compile_writes_suite_manifest_and_tables(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text(experience().to_json())
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--history", str(log),
                    "-o", str(tmp_path / "out" / "suite.jsonl"))
    assert code == 0, out
    assert "tasks" in out and "dropped bindings" in out
    lines = (tmp_path / "out" / "suite.jsonl").read_text().splitlines()
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["tasks"] == len(lines) > 0
    assert f"wrote {len(lines)} task(s)" in out
    exp = manifest["scenes"][0]["experience"]
    assert exp["simulated"] is False and exp["path"] == str(log) and exp["interactions"] == 2
    first = [json.loads(x) for x in lines if json.loads(x)["template"] == "golden-first-object"]
    assert [r["targets"] for r in first] == [["mug_red"]]
    assert manifest["per_template"]["golden-first-object"]["tasks"] == 1
    assert sum(manifest["drops"].values()) == sum(
        sum(t["drops"].values()) for t in manifest["per_template"].values())


def test_compile_reports_bad_input_with_exit_2(tmp_path: Path) -> None:
    code, out = run("compile", str(tmp_path / "nope.json"), "-T", TEMPLATES)
    assert code == 2 and "nope.json: error: cannot read the scene file: No such file" in out
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (template t) (:domain fdc-home) (:parameters ?o - mugg)"
                   " (:goal (holding ?o)) (:instruction \"x\"))")
    code, out = run("compile", KITCHEN, "-T", str(bad))
    assert code == 2 and "bad.pddl:1:" in out and "unknown type `mugg`" in out
    code, out = run("compile", KITCHEN, KITCHEN, "-T", TEMPLATES, "--history", KITCHEN)
    assert code == 2 and "1 --history log(s) for 2 scene(s)" in out
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--history", KITCHEN,
                    "-o", str(tmp_path / "s.jsonl"))
    assert code == 2 and "not an fdc experience log" in out
    assert not (tmp_path / "s.jsonl").exists()  # nothing half-written


def test_compile_reports_a_template_that_cannot_compile_with_exit_1(tmp_path: Path) -> None:
    big = tmp_path / "big.pddl"
    big.write_text("(define (template everything-on) (:domain fdc-home) (:version 1)"
                   " (:parameters ?s - surface) (:goal (forall (?x - movable) (on ?x ?s)))"
                   " (:instruction \"x\"))")
    code, out = run("compile", KITCHEN, "-T", str(big), "--no-history", "--max-atoms", "5",
                    "-o", str(tmp_path / "s.jsonl"))
    assert code == 1
    assert "template `everything-on`: grounding `forall`" in out
    assert "over the limit `goal_atoms` (5)" in out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["per_template"]["everything-on"]["errors"]


def test_a_huge_binding_space_is_sampled_not_enumerated(tmp_path: Path) -> None:
    many = tmp_path / "many.pddl"
    many.write_text("(define (template everything) (:domain fdc-home) (:version 1)"
                    " (:parameters ?a ?b ?c ?d - object) (:goal (holding ?a))"
                    " (:instruction \"x\"))")
    code, out = run("compile", KITCHEN, "-T", str(many), "--no-history",
                    "--max-per-template", "4", "-o", str(tmp_path / "s.jsonl"))
    assert code == 0, out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    counts = manifest["per_template"]["everything"]
    assert counts["sampled"] and counts["tasks"] == 4
    first = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])
    assert len(set(first["bindings"].values())) == 4  # distinct entities
    assert counts["bindings"] > 10**6  # an estimate of the ordered 4-tuples


def test_explain_shows_bindings_goals_and_drop_reasons(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text(experience().to_json())
    code, out = run("explain", "golden-pick-widen", "--scene", KITCHEN, "-T", TEMPLATES,
                    "--history", str(log))
    assert code == 0, out
    assert "binding(s) satisfy the constraints" in out
    assert "(or (holding plate_0) (holding plate_1))" in out  # widened
    # the other plate's binding widens to the same task: shown as its duplicate, once
    assert out.count("(or (holding plate_0) (holding plate_1))") == 1
    assert "dropped: the same goal and instructions as task `golden-pick-widen-" in out
    code, out = run("explain", "golden-to-surfac", "--scene", KITCHEN, "-T", TEMPLATES)
    assert code == 2 and "did you mean `golden-to-surface`" in out


def test_explain_and_the_manifest_name_the_words_tried_and_the_rivals(tmp_path: Path) -> None:
    code, out = run("explain", "golden-to-surface", "--scene", KITCHEN, "-T", TEMPLATES,
                    "--limit", "1000")
    assert code == 0, out
    assert "dropped: ambiguous description of ?o = `plate_0`: “the plate” also fits " \
           "`plate_1`" in out
    code, out = run("compile", KITCHEN, "-T", TEMPLATES, "--no-history",
                    "-o", str(tmp_path / "suite.jsonl"))
    assert code == 0, out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    counts = manifest["per_template"]["golden-to-surface"]
    assert set(counts["drop_examples"]) == set(counts["drops"])
    example = counts["drop_examples"]["ambiguous description of ?o"]
    plate = example["binding"]["?o"]
    assert example["code"] == "ambiguous" and example["entities"] == [plate]
    assert example["description"] == "the plate"
    assert example["rivals"] == [{"plate_0": "plate_1", "plate_1": "plate_0"}[plate]]
    assert example["scene"] == KITCHEN and "also fits" in example["message"]


_EMPTY = """
(define (template none-typed)
  (:domain fdc-home) (:parameters ?x - pan)
  (:goal (robot-at-object ?x)) (:instruction "Go to {{ x | ref }}."))
(define (template none-distinct)
  (:domain fdc-home) (:parameters ?x ?y ?z - plate)
  (:goal (robot-at-object ?x)) (:instruction "Go to {{ x | ref }}."))
(define (template none-alone)
  (:domain fdc-home) (:parameters ?x - mug)
  (:constraints (and (has-color ?x blue) (has-color ?x purple)))
  (:goal (robot-at-object ?x)) (:instruction "Go to {{ x | ref }}."))
(define (template none-together)
  (:domain fdc-home) (:parameters ?x - mug)
  (:constraints (and (has-color ?x red) (has-color ?x blue)))
  (:goal (robot-at-object ?x)) (:instruction "Go to {{ x | ref }}."))
(define (template none-closed)
  (:domain fdc-home) (:parameters ?x - mug)
  (:constraints (and (has-color ?x red) (not (exists (?y - fruit) (has-color ?y yellow)))))
  (:goal (robot-at-object ?x)) (:instruction "Go to {{ x | ref }}."))
"""


def test_explain_says_why_no_binding_satisfies_the_constraints(tmp_path: Path) -> None:
    # "0 binding(s) satisfy the constraints" was all it said
    path = tmp_path / "none.pddl"
    path.write_text(_EMPTY)
    expected = {
        "none-typed": "no entity of type `pan` for ?x",
        "none-distinct": "?x ?y ?z need 3 distinct `plate` entities, the scene has 2",
        "none-alone": "constraint (has-color ?x purple) holds for no binding of the "
                      "parameters' types",
        "none-together": "constraint (has-color ?x blue) holds for none of the bindings the "
                         "constraints before it leave ((has-color ?x red))",
        "none-closed": "constraint (not (exists (?y - fruit) (has-color ?y yellow))) is "
                       "false here (it names no parameter)",
    }
    for name, why in expected.items():
        code, out = run("explain", name, "--scene", KITCHEN, "-T", str(path), "--no-history")
        assert code == 0, out
        assert "0 binding(s) satisfy the constraints" in out
        assert f"  no binding: {why}\n" in out, (name, out)
