"""The goal algebra (`fdc.predicates.algebra`): properties over random goals.

Negation normal form is idempotent and keeps a goal's truth under every assignment;
`neg` complements it; mapping with the identity gives the goal itself; folds count
what `subgoals` and `atoms` walk; the canonical junction is sorted, without repeats,
and absorbs a part beside its negation.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdc.predicates.algebra import (
    NotNegatable,
    canonical_junction,
    children,
    conj,
    disj,
    fewest_to_change,
    fold_goal,
    junction_parts,
    literal,
    map_goal,
    neg,
    nnf,
    subgoals,
    with_children,
)
from fdc.predicates.goal import (
    FALSE,
    TRUE,
    GAnd,
    GAtom,
    GChecklist,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    Target,
    atom,
    atoms,
    to_pddl,
)

ATOMS = [atom("on", f"mug_{i}", "table|top") for i in range(4)]


def _state_goals() -> st.SearchStrategy[Goal]:
    """Atoms under `not`, `and`, `or` (empty junctions included: the constants)."""
    return st.recursive(
        st.sampled_from(ATOMS),
        lambda inner: st.one_of(
            inner.map(lambda b: GNot(body=b)),
            st.lists(inner, max_size=3).map(lambda ps: GAnd(parts=tuple(ps))),
            st.lists(inner, max_size=3).map(lambda ps: GOr(parts=tuple(ps))),
        ),
        max_leaves=12,
    )


STATE = _state_goals()
GOALS = st.one_of(
    STATE,
    st.lists(STATE, min_size=1, max_size=3).map(lambda s: GThen(steps=tuple(s))),
    st.lists(STATE, min_size=1, max_size=3).map(lambda gs: GTargets(
        targets=tuple(Target(entity=f"mug_{k}", goal=g) for k, g in enumerate(gs)))),
    st.lists(STATE, min_size=1, max_size=3).map(
        lambda ps: GChecklist(propositions=tuple(ps))),
)
ASSIGNMENTS = st.sets(st.sampled_from(ATOMS))


def truth(goal: Goal, true: set[GAtom]) -> bool:
    """A state goal's truth when exactly the atoms of `true` hold (a fold)."""

    def step(g: Goal, kids: list[bool]) -> bool:
        match g:
            case GAtom():
                return g in true
            case GNot():
                return not kids[0]
            case GAnd():
                return all(kids)
            case GOr():
                return any(kids)
            case _:
                raise AssertionError(f"not a state goal: {g.kind}")

    return fold_goal(goal, step)


def in_normal_form(goal: Goal) -> bool:
    """`not` only on atoms, no junction directly inside one of its own kind."""
    for g in subgoals(goal):
        if isinstance(g, GNot) and not isinstance(g.body, GAtom):
            return False
        if isinstance(g, GAnd | GOr) and any(type(p) is type(g) for p in g.parts):
            return False
    return True


@given(GOALS)
@settings(max_examples=200, deadline=None)
def test_nnf_is_idempotent_and_a_normal_form(goal: Goal) -> None:
    once = nnf(goal)
    assert in_normal_form(once)
    assert nnf(once) == once


@given(STATE, ASSIGNMENTS)
@settings(max_examples=300, deadline=None)
def test_nnf_and_neg_keep_and_flip_the_truth(goal: Goal, true: set[GAtom]) -> None:
    assert truth(nnf(goal), true) == truth(goal, true)
    assert truth(neg(goal), true) != truth(goal, true)
    assert truth(conj([goal, goal]), true) == truth(goal, true)
    assert truth(disj([]), true) is False and truth(conj([]), true) is True


@given(GOALS)
@settings(max_examples=200, deadline=None)
def test_map_with_the_identity_is_the_goal_itself(goal: Goal) -> None:
    assert map_goal(goal, lambda g: g) is goal
    assert with_children(goal, children(goal)) is goal
    rebuilt = with_children(goal, [g.model_copy() if not isinstance(g, GAtom) else g
                                   for g in children(goal)])
    assert rebuilt == goal


@given(GOALS)
@settings(max_examples=200, deadline=None)
def test_folds_count_what_the_walks_see(goal: Goal) -> None:
    nodes = fold_goal(goal, lambda _g, kids: 1 + sum(kids))
    assert nodes == len(list(subgoals(goal)))
    leaves = fold_goal(goal, lambda g, kids: sum(kids) + (g.kind == "atom"))
    assert leaves == len(list(atoms(goal)))
    depth = fold_goal(goal, lambda _g, kids: 1 + max(kids, default=0))
    assert depth >= 1


@given(STATE)
@settings(max_examples=100, deadline=None)
def test_map_renames_every_atom(goal: Goal) -> None:
    def rename(g: Goal) -> Goal:
        return atom("inside", *g.args) if isinstance(g, GAtom) else g

    renamed = map_goal(goal, rename)
    assert to_pddl(renamed) == to_pddl(goal).replace("(on ", "(inside ")


@given(st.lists(STATE, max_size=5), ASSIGNMENTS)
@settings(max_examples=200, deadline=None)
def test_the_canonical_junction_is_sorted_unique_and_equivalent(
        parts: list[Goal], true: set[GAtom]) -> None:
    flat = [q for p in parts for q in junction_parts(p, "and") if q != TRUE]
    if FALSE in flat:
        return  # the grounder absorbs constants before the junction is made
    made, keys = canonical_junction(GAnd, flat, [to_pddl(p) for p in flat], to_pddl)
    assert truth(made, true) == all(truth(p, true) for p in flat)
    if keys is not None:
        assert isinstance(made, GAnd) and keys == sorted(set(keys))
        assert [to_pddl(p) for p in made.parts] == keys


def test_a_part_beside_its_negation_absorbs() -> None:
    a, b = ATOMS[:2]
    made, keys = canonical_junction(GOr, [a, GNot(body=a), b],
                                    [to_pddl(a), f"(not {to_pddl(a)})", to_pddl(b)], to_pddl)
    assert made is TRUE and keys is None


def test_literals_and_what_cannot_be_negated() -> None:
    a = ATOMS[0]
    assert literal(a) == (a, True) and literal(GNot(body=a)) == (a, False)
    assert literal(GNot(body=GAnd(parts=(a,)))) is None
    assert neg(GAnd(parts=())) is FALSE and neg(GOr(parts=())) is TRUE
    with pytest.raises(NotNegatable, match="a then cannot be negated"):
        neg(GThen(steps=(a,)))
    assert nnf(GThen(steps=(GNot(body=GOr(parts=(a, ATOMS[1]))),))) == GThen(
        steps=(GAnd(parts=(GNot(body=a), GNot(body=ATOMS[1]))),))


@given(STATE, ASSIGNMENTS)
@settings(max_examples=200, deadline=None)
def test_a_goal_that_holds_changes_nothing(goal: Goal, true: set[GAtom]) -> None:
    changed = fewest_to_change(goal, {"on"}, lambda a: a in true)
    assert changed <= {a.args[0] for a in atoms(goal)}
    if truth(goal, true):
        assert changed == frozenset()
    assert fewest_to_change(goal, {"inside"}, lambda a: a in true) == frozenset()


def test_fewest_to_change_takes_the_cheapest_option_and_the_union_of_parts() -> None:
    a, b, c, d = ATOMS
    goal = GAnd(parts=(a, GOr(parts=(GAnd(parts=(b, d)), GNot(body=c)))))
    # a must become true; c holds and must not (cheaper than b and d becoming true)
    assert fewest_to_change(goal, {"on"}, lambda x: x == c) == {"mug_0", "mug_2"}
    steps = GThen(steps=(a, b))
    assert fewest_to_change(steps, {"on"}, lambda x: False) == {"mug_0", "mug_1"}
    assert fewest_to_change(steps, {"on"}, lambda x: False, descend=False) == frozenset()
