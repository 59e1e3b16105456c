"""A goal's answer set (`goal_targets`): positive atoms first; a goal of negations only
(BEHAVIOR's cleaning: "no egg is covered with dust") is about what they negate."""

from __future__ import annotations

from fdc.compiler.targets import goal_targets
from fdc.predicates.goal import GAnd, GNot, atom


def test_positive_atoms_are_the_targets_and_negations_do_not_add_to_them() -> None:
    goal = GAnd(parts=(atom("on", "mug_1", "table|top"), GNot(body=atom("on", "cup_1", "s"))))
    assert goal_targets(goal) == ["mug_1"]


def test_a_goal_of_negations_only_is_about_what_it_negates() -> None:
    goal = GAnd(parts=(GNot(body=atom("covered", "egg_1", "dust")),
                       GNot(body=atom("covered", "egg_2", "dust"))))
    assert goal_targets(goal) == ["egg_1", "egg_2"]  # before: [] (no task: no-target)
