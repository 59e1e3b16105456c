"""The task id rule (`TaskId`): ids name files, so a suite line whose id could leave a
folder is a located error for every reader; compile makes ids inside the rule."""

from __future__ import annotations

import json

import pytest

from fdc.compiler.suite import TaskRecord, id_prefix, parse_suite

GOAL = {"kind": "atom", "predicate": "robot-at-object", "args": ["cup_0"]}
BAD = ["../../escaped", "/abs/x", "a/b", "a\\b", ".hidden", "-lead", "", "a b", "x" * 129,
       "caf\u00e9", "a\nb", "t:1"]


def line(ident: str) -> str:
    return json.dumps({"id": ident, "template": "t", "goal": GOAL}) + "\n"


@pytest.mark.parametrize("ident", BAD)
def test_an_unsafe_id_is_a_located_error(ident: str) -> None:
    records, problems = parse_suite(line("ok-1") + line(ident))
    assert [r.id for r in records] == ["ok-1"]
    (p,) = problems
    assert (p.line, p.where, p.is_error) == (2, "id", True)
    assert "is not a task id: use 1 to 128 letters, digits" in p.message
    assert "no `/`, no leading `.`" in p.message


@pytest.mark.parametrize("ident", ["attribute-color-interacted-f3dd26f7c825", "partnr-0",
                                   "A.b_c-9", "x" * 128, "0"])
def test_todays_ids_are_task_ids(ident: str) -> None:
    records, problems = parse_suite(line(ident))
    assert not problems and records[0].id == ident


def test_the_rule_is_in_the_schema() -> None:
    assert TaskRecord.model_json_schema()["properties"]["id"]["pattern"].startswith("^[A-Za-z")


@pytest.mark.parametrize(("name", "prefix"), [("recall-category", "recall-category"),
                                              ("x/../../evil", "x_.._.._evil"),
                                              ("@at#name", "at_name"), ("_", "task")])
def test_template_names_become_safe_id_prefixes(name: str, prefix: str) -> None:
    assert id_prefix(name) == prefix
    TaskRecord(id=f"{id_prefix(name)}-0123456789ab", template=name, goal=GOAL)  # type: ignore[arg-type]
