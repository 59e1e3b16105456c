"""Goal walks go through the goal algebra: outside `predicates/goal.py` and
`predicates/algebra.py`, no code (tests aside) tests a goal's class with `isinstance`;
a walk is a `match` over the goal kinds ending in `assert_never`, so adding a kind is one
edit mypy checks (docs/architecture.md, "Verification")."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GOAL_CLASSES = frozenset({"GAtom", "GNot", "GAnd", "GOr", "GThen", "GTargets", "GCount",
                          "GCluster", "GChecklist"})
THE_ALGEBRA = frozenset({"predicates/goal.py", "predicates/algebra.py"})
LEFT_OUT = ("tests/", ".venv/", ".")  # tests, the environment, hidden folders


def goal_isinstance(text: str, name: str) -> list[str]:
    """`name:line: call` of every `isinstance` in `text` whose classes name a goal class."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance" and len(node.args) == 2):
            names = {n.id if isinstance(n, ast.Name) else n.attr
                     for n in ast.walk(node.args[1]) if isinstance(n, ast.Name | ast.Attribute)}
            if names & GOAL_CLASSES:
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_isinstance_on_goal_classes_outside_the_algebra() -> None:
    found = []
    for path in sorted(REPO.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith(LEFT_OUT) or rel in THE_ALGEBRA:
            continue
        found.extend(goal_isinstance(path.read_text(encoding="utf-8"), rel))
    assert found == []


def test_the_scan_sees_an_isinstance_on_a_goal_class() -> None:
    text = "def f(g, h):\n    return isinstance(g, GAnd | GOr) or isinstance(h, goal.GAtom)\n"
    assert goal_isinstance(text, "x.py") == [
        "x.py:2: isinstance(g, GAnd | GOr)", "x.py:2: isinstance(h, goal.GAtom)"]
    assert goal_isinstance("isinstance(g, tuple)", "y.py") == []
