"""PARTNR episodes in and out: the format's checks (located errors), every one of the 20
real sample episodes imported and exported back to an equivalent evaluation, and the
tasks PARTNR cannot express named with why."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.suite import TaskRecord, read_suite, suite_lines
from fdc.core.problems import render_text
from fdc.interop.partnr.episodes import episodes_bytes, parse_episodes, read_episodes
from fdc.interop.partnr.goals import (
    NotExpressible,
    export_evaluation,
    import_evaluation,
    normalised,
)
from fdc.predicates.goal import (
    GAnd,
    GChecklist,
    GCount,
    GOr,
    GTargets,
    GThen,
    SameConstraint,
    Target,
    atom,
)
from tests.sim_bridge.helpers import FIXTURES

SAMPLE = FIXTURES / "habitat" / "partnr" / "collaboration_episodes_sample.json.gz"
runner = CliRunner()


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(SAMPLE.read_bytes()))
    return data


def cli(*args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_the_sample_reads_and_writes_back_unchanged() -> None:
    dataset, findings = read_episodes(SAMPLE)
    assert findings == [] and dataset is not None
    assert len(dataset.episodes) == 20
    back = json.loads(gzip.decompress(episodes_bytes(dataset)))
    original = sample()
    # every field kept; only the (empty) dependency lists are written out
    for ep in back["episodes"]:
        assert ep.pop("evaluation_proposition_dependencies") == []
    assert back == original
    assert episodes_bytes(dataset) == episodes_bytes(dataset)  # no timestamp


@pytest.mark.parametrize("k", range(20))
def test_every_sample_episode_round_trips(k: int) -> None:
    episode = sample()["episodes"][k]
    dataset, _ = parse_episodes({"episodes": [episode]})
    assert dataset is not None
    goal = import_evaluation(dataset.episodes[0])
    assert len(goal.propositions) == len(episode["evaluation_propositions"])
    back = export_evaluation(goal).fields()
    assert normalised(back) == normalised(episode)
    # the exported form is PARTNR's own, field for field (no dependencies in the sample)
    assert back["evaluation_propositions"] == episode["evaluation_propositions"]
    assert back["evaluation_constraints"] == episode["evaluation_constraints"]


def test_every_function_relation_and_constraint_round_trips() -> None:
    objs = ["Cup_:0000", "Cup_:0001", "Cup_:0002"]
    tables = ["Table_:0000", "Table_:0001"]
    episode = {
        "episode_id": "all", "scene_id": "s", "instruction": "everything",
        "evaluation_propositions": [
            {"function_name": "is_on_top", "args": {"object_handles": objs,
             "receptacle_handles": tables, "number": 2, "is_same_receptacle": True}},
            {"function_name": "is_inside", "args": {"object_handles": objs[:1],
             "receptacle_handles": ["Fridge_:0000"], "number": 1, "is_same_receptacle": False}},
            {"function_name": "is_in_room", "args": {"object_handles": objs,
             "room_ids": ["kitchen", "bedroom"], "number": 3, "is_same_room": True}},
            {"function_name": "is_on_floor", "args": {"object_handles": objs, "number": 1}},
            {"function_name": "is_next_to", "args": {"entity_handles_a": objs[:2],
             "entity_handles_b": tables, "number": 1, "is_same_b": False,
             "l2_threshold": 0.3}},
            {"function_name": "is_clustered", "args": {"*args": [objs[:2], tables],
             "number": [2, 1], "l2_threshold": 0.5}},
            *({"function_name": f, "args": {"object_handles": objs, "number": 2}}
              for f in ("is_clean", "is_dirty", "is_filled", "is_empty", "is_powered_on",
                        "is_powered_off")),
        ],
        "evaluation_proposition_dependencies": [
            {"proposition_indices": [1], "depends_on": [0], "relation_type": r,
             "dependency_mode": m}
            for r, m in (("while_satisfied", "all"), ("after_satisfied", "any"),
                         ("after_unsatisfied", "all"), ("before_satisfied", "any"))],
        "evaluation_constraints": [
            {"type": "TemporalConstraint", "args": {"dag_edges": [[0, 2], [1, 2]],
                                                    "n_propositions": 12}},
            {"type": "SameArgConstraint", "args": {"proposition_indices": [0, 1],
             "arg_names": ["receptacle_handles", "receptacle_handles"], "n_propositions": 12}},
            {"type": "DifferentArgConstraint", "args": {"proposition_indices": [4, 5],
             "arg_names": ["entity_handles_b", "*args_1"], "n_propositions": 12}},
            {"type": "TerminalSatisfactionConstraint",
             "args": {"proposition_indices": [0, 3], "n_propositions": 12}},
        ],
    }
    dataset, findings = parse_episodes({"episodes": [episode]})
    assert findings == [] and dataset is not None
    goal = import_evaluation(dataset.episodes[0])
    kinds = [(p.kind, getattr(p, "relation", None)) for p in goal.propositions]
    assert kinds[:6] == [("count", "on-top-of"), ("count", "inside-of"), ("count", "in-room"),
                         ("count", "on-floor"), ("count", "next-to"), ("cluster", "next-to")]
    assert goal.propositions[4].thresholds == {"next_to_m": 0.3}  # type: ignore[union-attr]
    assert [d.relation for d in goal.dependencies] == [
        "while-satisfied", "after-satisfied", "after-unsatisfied", "before-satisfied"]
    assert [c.kind for c in goal.constraints] == ["order", "same", "different", "terminal"]
    assert goal.constraints[2].roles == ("other", "group-1")  # type: ignore[union-attr]
    back = export_evaluation(goal).fields()
    assert back == {k: episode[k] for k in back}


def test_format_errors_name_the_file_and_json_path(tmp_path: Path) -> None:
    bad = copy.deepcopy(sample())
    bad["episodes"][3]["evaluation_propositions"][1]["args"]["number"] = 0
    bad["episodes"][5]["evaluation_constraints"][0]["args"]["dag_edges"] = [[0, 7]]
    bad["episodes"][6]["evaluation_propositions"][0]["function_name"] = "is_under"
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(json.dumps(bad).encode()))
    dataset, findings = read_episodes(path)
    assert dataset is None
    text = [render_text(f) for f in findings]
    assert text[0] == (f"{path}: episodes[3].evaluation_propositions[1].args.number:"
                       " error[PN003]: Input should be greater than or equal to 1")
    assert text[1] == (f"{path}: episodes[5]: error[PN003]: evaluation_constraints[0] "
                       "(TemporalConstraint) names proposition 7, but there are 2")
    assert text[2].startswith(f"{path}: episodes[6].evaluation_propositions[0]: error[PN003]: "
                              "Input tag 'is_under' found using 'function_name' does not match")
    (tmp_path / "not.json").write_text('{"episodes": [}')
    _, findings = read_episodes(tmp_path / "not.json")
    assert render_text(findings[0]).endswith("error[PN002]: not valid JSON: Expecting value "
                                         "(line 1, column 15)")
    wrong_arg = copy.deepcopy(sample()["episodes"][9])
    wrong_arg["evaluation_constraints"].append({"type": "SameArgConstraint", "args": {
        "proposition_indices": [0, 1], "arg_names": ["room_ids", "receptacle_handles"]}})
    _, findings = parse_episodes({"episodes": [wrong_arg]}, "x.json")
    assert "proposition 0 (is_on_top) has no argument `room_ids` (it has object_handles, " \
           "receptacle_handles)" in findings[0].message


def test_import_and_export_commands(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    code, out = cli("import", "partnr", SAMPLE, "-o", suite)
    assert code == 0, out
    assert "wrote" in out and "20 task(s) from 20 episode(s)" in out
    records, problems = read_suite(suite)
    assert problems == [] and len(records) == 20
    r = records[9]
    assert r.id == "partnr-9" and r.scene == "102344049" and r.tags == ["partnr"]
    assert r.instructions == ["Put the toy food and toy bee on the table, and the cushion on "
                              "the chair."]
    assert r.targets == ["Squirt_Strain_Fruit_Basket_:0000",
                         "Fisher_price_Classic_Toys_Buzzy_Bee_:0000", "B07JL5Q12D_:0000"]
    assert isinstance(r.goal, GChecklist)
    episodes = tmp_path / "episodes.json.gz"
    code, out = cli("export", "partnr", suite, "-o", episodes)
    assert code == 0, out
    again = json.loads(gzip.decompress(episodes.read_bytes()))["episodes"]
    original = sample()["episodes"]
    for ep, orig in zip(again, original, strict=True):
        assert ep["episode_id"] == orig["episode_id"] and ep["scene_id"] == orig["scene_id"]
        assert ep["instruction"] == orig["instruction"]
        assert normalised(ep) == normalised(orig)
    # deterministic: the same suite gives the same bytes
    first = episodes.read_bytes()
    cli("export", "partnr", suite, "-o", episodes)
    assert episodes.read_bytes() == first
    code, out = cli("import", "partnr", tmp_path / "missing.json.gz", "-o", suite)
    assert code == 2 and "error[PN001]: cannot read the file" in out


def test_tasks_partnr_cannot_express_are_named_with_why(tmp_path: Path) -> None:
    cup, table = "Cup_:0000", "Table_:0000"
    good = atom("on-top-of", cup, table)
    cases = {
        "surface": (atom("on", cup, f"{table}|top"), "proposition 0: `on` names one surface"),
        "robot": (atom("robot-at-object", cup), "proposition 0: PARTNR has no proposition "
                                                "for `robot-at-object`"),
        "targets": (GTargets(targets=(Target(entity=cup, goal=good),)),
                    "a multi-goal task (`targets`) is judged at explicit stops"),
        "then": (GThen(steps=(good, atom("on-floor", cup))), "a sequence (`then`) lets a "
                 "later step hold before an earlier one"),
        "not-handle": (atom("on-top-of", "mug_1", table),
                       "proposition 0: `mug_1` is not a Habitat instance handle"),
        "mixed-or": (GOr(parts=(good, atom("on-floor", cup))),
                     "proposition 0: a disjunction over several relations"),
        "thin-or": (GOr(parts=(good, atom("on-top-of", "Cup_:0001", "Shelf_:0000"))),
                    "proposition 0: a disjunction has a PARTNR form only when it pairs every "
                    "item with every receptacle"),
    }
    ok = {
        "plain": GAnd(parts=(good, atom("is-dirty", "Cup_:0001"))),
        "or": GOr(parts=(good, atom("on-top-of", cup, "Shelf_:0000"))),
    }
    records = [TaskRecord(id=k, template="t", goal=g) for k, (g, _) in cases.items()]
    records += [TaskRecord(id=k, template="t", goal=g) for k, g in ok.items()]
    records.append(TaskRecord(id="fixed", template="t", goal=good,
                              thresholds={"on_top_m": 0.1}))
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(suite_lines(records)))
    out_file = tmp_path / "episodes.json.gz"
    code, out = cli("export", "partnr", suite, "-o", out_file)
    assert code == 1
    lines = out.splitlines()
    for k, (_, why) in cases.items():
        head = f"{k}: not expressible: {why}"
        assert any(line.startswith(head) for line in lines), (k, out)
    assert "fixed: not expressible: the task sets `on_top_m`, which PARTNR's predicates " \
        "fix" in out
    assert "2 episode(s) from 10 task(s), 8 not expressible" in " ".join(out.split())
    written = json.loads(gzip.decompress(out_file.read_bytes()))["episodes"]
    assert [e["episode_id"] for e in written] == ["plain", "or"]
    # a plain goal: its conjuncts, each to hold at the end (fdc judges a plain goal there)
    assert [p["function_name"] for p in written[0]["evaluation_propositions"]] == [
        "is_on_top", "is_dirty"]
    assert written[0]["evaluation_constraints"][1] == {
        "type": "TerminalSatisfactionConstraint",
        "args": {"proposition_indices": [0, 1], "n_propositions": 2}}
    assert written[1]["evaluation_propositions"][0]["args"] == {
        "object_handles": [cup], "receptacle_handles": [table, "Shelf_:0000"], "number": 1,
        "is_same_receptacle": False}


def test_export_keeps_checklist_constraints_and_refuses_inner_parts() -> None:
    count = GCount(relation="on-top-of", items=("Cup_:0000",), others=("Table_:0000",))
    goal = GChecklist(propositions=(count, count), constraints=(
        SameConstraint(propositions=(0, 1), roles=("other", "item")),))
    fields = export_evaluation(goal).fields()
    assert fields["evaluation_constraints"] == [{"type": "SameArgConstraint", "args": {
        "proposition_indices": [0, 1], "arg_names": ["receptacle_handles", "object_handles"],
        "n_propositions": 2}}]
    inner = GChecklist(propositions=(GAnd(parts=(count.atom_for("Cup_:0000", "Table_:0000"),
                                                 atom("on-floor", "Cup_:0001"))),))
    with pytest.raises(NotExpressible, match="proposition 0: a conjunction inside a "
                                             "proposition has no PARTNR form"):
        export_evaluation(inner)
