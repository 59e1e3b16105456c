"""Counts, clusters and checklists: the goal kinds PARTNR's evaluation needs, judged on
scripted truth tables (`world[i]`: the atoms true at snapshot `i`). Every expected
percent complete is worked out by hand in the comment beside it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest
from pydantic import ValidationError

from fdc.compiler.suite import TaskRecord
from fdc.predicates.goal import (
    Dependency,
    DifferentConstraint,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GThen,
    OrderConstraint,
    SameConstraint,
    TerminalConstraint,
    atom,
    atoms,
    is_multi_goal,
    to_pddl,
)
from fdc.predicates.verify import Holds, Verdict, cluster_fillers, count_fillers, evaluate, verify

X, Y, Z = atom("is-clean", "x"), atom("is-clean", "y"), atom("is-clean", "z")


def on(o: str, s: str) -> GAtom:
    return atom("on-top-of", o, s)


def run(goal: GChecklist, world: Sequence[set[GAtom]],
        actions: Sequence[str | None] | None = None) -> Verdict:
    acts = list(actions) if actions is not None else [None] * len(world)
    return verify(goal, acts, lambda a, i: a in world[i])


def steps(v: Verdict) -> dict[str, int | None]:
    return {r.target: r.step for r in v.records}


def checklist(*props: object, **kw: object) -> GChecklist:
    return GChecklist(propositions=props, **kw)  # type: ignore[arg-type]


def test_count_any_and_same_other_and_its_witnesses() -> None:
    c = GCount(relation="on-top-of", items=("a", "b", "c"), others=("s", "t"), number=2)
    world = [{on("a", "s"), on("b", "t")}, {on("a", "s"), on("b", "t"), on("c", "s")}]

    def h(a: GAtom, i: int) -> bool:
        return a in world[i]

    assert evaluate(c, 0, h)
    assert count_fillers(c, 2, 0, h) == {"item": "b", "other": "t"}
    same = c.model_copy(update={"same_other": True})
    assert not evaluate(same, 0, h)  # a on s, b on t: no one receptacle holds two
    assert evaluate(same, 1, h)
    assert count_fillers(same, 2, 1, h) == {"item": "c", "other": "s"}
    assert count_fillers(c, 3, 0, h) is None
    unary = GCount(relation="on-floor", items=("a", "b"))
    assert count_fillers(unary, 1, 0, lambda a, i: a == atom("on-floor", "b")) == {"item": "b"}


def test_cluster_connects_groups_through_next_to() -> None:
    g = GCluster(groups=(("a", "b"), ("c",)))
    assert g.numbers == (1, 1)

    def world(*pairs: tuple[str, str]) -> Holds:
        true = {atom("next-to", x, y) for x, y in pairs}
        return lambda a, i: a in true

    assert evaluate(g, 0, world(("a", "c")))
    assert not evaluate(g, 0, world(("a", "b")))  # c stands alone
    two = g.model_copy(update={"numbers": (2, 1)})
    assert not evaluate(two, 0, world(("a", "c")))
    # either direction of the relation is an edge
    assert cluster_fillers(two, 0, world(("a", "c"), ("c", "b"))) == {
        "group-0": ("a", "b"), "group-1": ("c",)}


def test_order_in_order_and_out_of_order() -> None:
    g = checklist(X, Y, constraints=(OrderConstraint(edges=((0, 1),)),))
    good = run(g, [set(), {X}, {X, Y}])
    assert good.success and good.percent_complete == 1.0
    assert steps(good) == {"proposition 0": 1, "proposition 1": 2}
    bad = run(g, [set(), {Y}, {X, Y}])
    # Y first satisfied at 1, before X (2): Y does not count; 1 of 2
    assert not bad.success and bad.percent_complete == 0.5
    assert bad.records[1].note == "satisfied at step 1, not after proposition 0 (step 2)"
    assert bad.records[1].counts is False and bad.records[0].counts is True
    never = run(g, [set(), {Y}])
    assert never.records[1].note == "proposition 0 must be satisfied first and never was"
    # the same step is not "after"
    assert run(g, [set(), {X, Y}]).percent_complete == 0.5


def test_terminal_satisfaction() -> None:
    world = [set(), {X, Y}, {Y}]
    # without a terminal constraint a proposition counts once first satisfied
    assert run(checklist(X, Y), world).percent_complete == 1.0
    g = checklist(X, Y, constraints=(TerminalConstraint(propositions=(0,)),))
    v = run(g, world)
    assert v.percent_complete == 0.5  # X undone at the end
    assert v.records[0].note == "satisfied at step 1, but no longer at the end"


def test_a_count_of_n_counts_n_times_and_carries_its_order() -> None:
    three = GCount(relation="on-top-of", items=("a", "b", "c"), others=("s",), number=3)
    g = checklist(three, X, constraints=(OrderConstraint(edges=((0, 1),)),))
    world = [set(), {on("a", "s")}, {on("a", "s"), on("b", "s")},
             {on("a", "s"), on("b", "s"), X}]
    v = run(g, world)
    # units: 3 of the count (a, then b, never c) and X; X needs the whole count (the
    # unit needing 3, which never holds) before it: 2 of 4
    assert v.percent_complete == 0.5
    assert steps(v) == {"proposition 0 (1/3)": 1, "proposition 0 (2/3)": 2,
                        "proposition 0 (3/3)": None, "proposition 1": 3}
    assert [r.counts for r in v.records] == [True, True, False, False]


def test_same_and_different_receptacles() -> None:
    a = GCount(relation="on-top-of", items=("a",), others=("s", "t"))
    b = GCount(relation="on-top-of", items=("b",), others=("s", "t"))
    same = checklist(a, b, constraints=(SameConstraint(propositions=(0, 1),
                                                       roles=("other", "other")),))
    different = checklist(a, b, constraints=(DifferentConstraint(propositions=(0, 1),
                                                                 roles=("other", "other")),))
    apart = [set(), {on("a", "s")}, {on("a", "s"), on("b", "t")}]
    together = [set(), {on("a", "s")}, {on("a", "s"), on("b", "s")}]
    assert run(same, together).percent_complete == 1.0
    v = run(same, apart)
    assert v.percent_complete == 0.5
    assert v.records[1].note == "its other was `t`, not `s` as for proposition 0"
    assert run(different, apart).percent_complete == 1.0
    v = run(different, together)
    assert v.percent_complete == 0.5
    assert v.records[1].note == "its other `s` was already used by proposition 0"


def test_different_carries_over_to_the_units_of_a_count() -> None:
    two = GCount(relation="on-top-of", items=("a", "b"), others=("s", "t"), number=2)
    c = GCount(relation="on-top-of", items=("c",), others=("s", "t"))
    g = checklist(two, c, constraints=(DifferentConstraint(propositions=(0, 1),
                                                           roles=("other", "other")),))
    base = [set(), {on("a", "s")}, {on("a", "s"), on("b", "s")}]
    # the count's units were filled by s (a at 1, b at 2); c on t differs from both
    assert run(g, [*base, base[-1] | {on("c", "t")}]).percent_complete == 1.0
    # c on s clashes with both units (PARTNR's copy of the constraint for the unit
    # needing 1, and the original for the unit needing 2): 2 of 3
    v = run(g, [*base, base[-1] | {on("c", "s")}])
    assert v.percent_complete == pytest.approx(2 / 3)
    assert [r.counts for r in v.records] == [True, True, False]


# Props: A, B and C; C depends on A and B. World: s0 {}, s1 {A, C}, s2 {B, C}, s3 {C},
# s4 {C}. When C is first satisfied, relation by relation, worked out by hand:
DEPENDENCY_CASES = [
    ("while-satisfied", "all", None),  # A and B never hold together
    ("while-satisfied", "any", 2),  # A held at 1
    ("after-satisfied", "all", 3),  # both have held by 2
    ("after-satisfied", "any", 2),
    ("after-unsatisfied", "all", 4),  # A stops at 2, B at 3
    ("after-unsatisfied", "any", 3),
    ("before-satisfied", "all", 1),  # at 1 neither has held yet (judged on s0)
    ("before-satisfied", "any", 1),
]


@pytest.mark.parametrize(("relation", "mode", "first"), DEPENDENCY_CASES)
def test_dependencies(relation: str, mode: str, first: int | None) -> None:
    dep = Dependency(propositions=(2,), depends_on=(0, 1), relation=relation,  # type: ignore[arg-type]
                     mode=mode)  # type: ignore[arg-type]
    g = checklist(X, Y, Z, dependencies=(dep,))
    v = run(g, [set(), {X, Z}, {Y, Z}, {Z}, {Z}])
    assert steps(v)["proposition 2"] == first
    assert v.percent_complete == pytest.approx(1.0 if first is not None else 2 / 3)


def test_a_proposition_not_queried_counts_as_false_for_its_dependants() -> None:
    # Y is queried only while X holds; Z only after Y held. X holds at 1 only, Y at 2
    # only: Y is queried at 2 (X held at 1) and holds; Z counts from 3.
    g = checklist(X, Y, Z, dependencies=(
        Dependency(propositions=(1,), depends_on=(0,), relation="while-satisfied"),
        Dependency(propositions=(2,), depends_on=(1,), relation="after-satisfied")))
    v = run(g, [set(), {X}, {Y, Z}, {Z}])
    assert steps(v) == {"proposition 0": 1, "proposition 1": 2, "proposition 2": 3}
    # Y holding at 3 while X did not hold at 2 is not seen
    late = run(g, [set(), {X}, set(), {Y}, {Z}])
    assert steps(late)["proposition 1"] is None and steps(late)["proposition 2"] is None


def test_a_stop_ends_the_checklist() -> None:
    g = checklist(X, Y)
    v = run(g, [set(), {X}, {X}, {Y}], [None, "place x", "stop", "place y"])
    assert v.end_step == 2 and v.percent_complete == 0.5
    assert v.reason == "1 of 2 propositions count (up to step 2)"


def test_thresholds_of_a_node_need_a_tunable_holds() -> None:
    near = GCount(relation="next-to", items=("a",), others=("b",),
                  thresholds={"next_to_m": 0.2})

    class Tunable:
        def __init__(self, limit: float) -> None:
            self.limit = limit

        def __call__(self, a: GAtom, i: int, /) -> bool:
            return self.limit >= 0.3  # the pair stands 0.3 apart

        def tuned(self, thresholds: Mapping[str, float]) -> Holds:
            return Tunable(thresholds["next_to_m"])

    assert not evaluate(near, 0, Tunable(0.5))
    assert evaluate(near.model_copy(update={"thresholds": {}}), 0, Tunable(0.5))
    with pytest.raises(ValueError, match="cannot apply them"):
        evaluate(near, 0, lambda a, i: True)


def test_the_models_check_themselves() -> None:
    count = GCount(relation="on-top-of", items=("a",), others=("s",))
    with pytest.raises(ValidationError, match="proposition index 3 is out of range"):
        checklist(count, constraints=(TerminalConstraint(propositions=(3,)),))
    with pytest.raises(ValidationError, match=r"has a cycle \(0 -> 1 -> 0\)"):
        checklist(count, count, constraints=(OrderConstraint(edges=((0, 1), (1, 0))),))
    with pytest.raises(ValidationError, match="has no role `group-0`"):
        checklist(count, constraints=(SameConstraint(propositions=(0,), roles=("group-0",)),))
    with pytest.raises(ValidationError, match="is a then"):
        checklist(GThen(steps=(X, Y)))
    with pytest.raises(ValidationError, match="needs `others`"):
        GCount(relation="on-floor", items=("a",), same_other=True)
    with pytest.raises(ValidationError, match="2 number"):
        GCluster(groups=(("a",),), numbers=(1, 2))


def test_text_json_and_atoms() -> None:
    count = GCount(relation="on-top-of", items=("a", "b"), others=("s", "t"), number=2,
                   same_other=True)
    assert to_pddl(count) == ("(exists (?y - (one-of s t)) (at-least 2 (?x - (one-of a b)) "
                              "(on-top-of ?x ?y)))")
    g = checklist(count, GCluster(groups=(("a",), ("c", "d")), numbers=(1, 2)),
                  dependencies=(Dependency(propositions=(1,), depends_on=(0,),
                                           relation="after-unsatisfied", mode="any"),),
                  constraints=(OrderConstraint(edges=((0, 1),)),
                               DifferentConstraint(propositions=(0, 1),
                                                   roles=("item", "group-1"))))
    assert to_pddl(g).endswith("(:after-unsatisfied (1) (0) any) (:order (0 1)) "
                               "(:different (0 item) (1 group-1)))")
    assert is_multi_goal(g) and not is_multi_goal(count)
    assert len(list(atoms(g))) == 4 + 3 * 2  # 2 x 2 pairs; 3 entities, ordered pairs
    record = TaskRecord(id="t", template="partnr", goal=g)
    again = TaskRecord.model_validate(json.loads(record.model_dump_json()))
    assert again == record and again.goal == g
