"""Goals read from JSON text take their own path through pydantic (atoms checked in its
core, then interned: `goal._GoalUnion`); it must accept exactly what reading the parsed
value accepts, give the same goals (the same interned atoms), and keep the JSON
Schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from fdc.compiler.suite import TaskRecord
from fdc.predicates.goal import Goal

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "suite.jsonl"
GOALS: TypeAdapter[Any] = TypeAdapter(Goal)

_NAME = st.sampled_from(["on", "robot-at-object", "mug_1", "", "x|top"])
_SCALAR = st.none() | st.booleans() | st.integers(-2, 2) | _NAME
_ATOMISH = st.fixed_dictionaries(
    {"predicate": _NAME | _SCALAR},
    optional={"kind": st.sampled_from(["atom", "ATOM", "not"]),
              "args": st.lists(_NAME, max_size=3) | st.lists(_SCALAR, max_size=2) | _SCALAR,
              "extra": _SCALAR})


def _goals(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (st.fixed_dictionaries({"kind": st.sampled_from(["and", "or", "then"]),
                                   "parts": st.lists(inner, max_size=3)})
            | st.fixed_dictionaries({"kind": st.sampled_from(["and", "or", "then"]),
                                     "steps": st.lists(inner, min_size=1, max_size=3)})
            | st.fixed_dictionaries({"kind": st.just("not"), "body": inner})
            | st.lists(inner, max_size=2))


_GOAL = st.recursive(_ATOMISH | _SCALAR, _goals, max_leaves=8)


def _read(text: str, json_path: bool) -> tuple[str, Any]:
    try:
        got = GOALS.validate_json(text) if json_path else GOALS.validate_python(
            json.loads(text))
    except ValidationError as e:
        return "error", [(x["type"], x["loc"], x["msg"]) for x in e.errors()]
    return "goal", got


@settings(max_examples=300, deadline=None)
@given(_GOAL)
def test_json_text_and_its_value_read_alike(value: Any) -> None:
    """Refused from text exactly when refused as a value (`fdc.core.jsonl` reads a line
    from its text and, when refused, words the errors from its value), else the same
    goal."""
    text = json.dumps(value)
    (text_kind, from_text), (value_kind, from_value) = _read(text, True), _read(text, False)
    assert text_kind == value_kind, (from_text, from_value)
    if text_kind == "goal":
        assert from_text == from_value
        assert GOALS.dump_json(from_text) == GOALS.dump_json(from_value)


def test_a_suites_records_read_from_text_are_the_same_interned_goals() -> None:
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        from_text = TaskRecord.model_validate_json(line)
        from_value = TaskRecord.model_validate(json.loads(line))
        assert from_text == from_value
        pairs = zip(_atoms(from_text.goal), _atoms(from_value.goal), strict=True)
        assert all(a is b for a, b in pairs)


def _atoms(goal: Any) -> list[Any]:
    from fdc.predicates.goal import GAtom

    found: list[Any] = []
    stack = [goal]
    while stack:
        g = stack.pop()
        if isinstance(g, GAtom):
            found.append(g)
        elif isinstance(g, tuple | list):
            stack.extend(g)
        elif hasattr(g, "__dict__"):
            stack.extend(vars(g).values())
    return found


def test_atoms_read_from_text_are_checked_in_pydantics_core() -> None:
    """The JSON path has its own schema for atoms (a Python function only after the
    check): a wrap function per atom made reading a large suite a third slower."""
    assert "json-or-python" in repr(TaskRecord.__pydantic_core_schema__)


def test_the_json_schema_names_atoms_once() -> None:
    schema = GOALS.json_schema()
    assert schema["discriminator"]["mapping"]["atom"] == "#/$defs/GAtom"
    assert "GAtom" in schema["$defs"]
