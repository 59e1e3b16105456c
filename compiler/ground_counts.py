"""Counting and pairing quantifiers of the ground pass (`fdc.compiler.ground`, whose
docstring says the rest of the semantics; docs/architecture.md):

- **Counting.** Over bodies folded per binding: constants are counted directly. When the
  fluent bodies are atoms of one predicate that differ in their first argument only,
  the form is one `GCount` node (`op`, `number` lowered by the true bodies), linear in
  them, unless the expansion below is no larger (`at-least 1`, `at-most 0`, ...); its
  negation is the complementary count(s). Otherwise, with `t`
  true and `m` fluent bodies, `at-least n` is the disjunction, over the `(n-t)`-subsets
  of the fluent bodies, of their conjunction, and `at-most n` the conjunction, over the
  `(n-t+1)`-subsets, of "one of them is false" (the dual DNF/CNF has exactly the same
  size, `C(m, k)·k`, so there is nothing to choose). `exactly` is both.
- **Pairs.** A matching of distinct firsts to distinct seconds covering every first
  (`forpairs`) or `n` of them (`fornpairs`). Decided by maximum bipartite matching
  (networkx) when the TRUE edges already match enough, or the non-FALSE ones cannot;
  otherwise the disjunction over the matchings of that size of their fluent bodies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from fdc.predicates.algebra import is_atom
from fdc.predicates.goal import FALSE, TRUE, CountOp, GCount, Goal

from . import ast as A

if TYPE_CHECKING:
    from .ground import Env, _Grounder


def count(grounder: _Grounder, f: A.Count, env: Env) -> Goal:
    trues = 0
    fluent: list[Goal] = []
    grounder.active.append(f)
    try:
        for g in grounder.bodies(f, f.variables, f.body, env)[0]:
            if g is TRUE:
                trues += 1
            elif g is not FALSE:
                fluent.append(g)
    finally:
        grounder.active.pop()
    if not grounder.expand_counts:
        native = native_count(grounder, f.op, f.n - trues, fluent)
        if native is not None:
            return native
    parts: list[Goal] = []
    if f.op in ("at-least", "exactly"):
        parts.append(at_least(grounder, f, f.n - trues, fluent))
    if f.op in ("at-most", "exactly"):
        parts.append(at_most(grounder, f, f.n - trues, fluent))
    return grounder.conj(parts)


def native_count(grounder: _Grounder, op: CountOp, k: int, bodies: Sequence[Goal]) -> Goal | None:
    """The count node of `op k` over the fluent bodies, when they are atoms of one
    predicate that differ in their first argument only (the counted item; the
    others, at most one, are the same in all) and the subset expansion would hold
    more atoms than they do (`at-least 1`, `at-most 0` and the like stay the
    junction they are); else None."""
    found = [b for b in bodies if is_atom(b)]
    if not found or len(found) != len(bodies):
        return None
    first = found[0]
    rest = first[2:]
    if len(rest) > 1 or any(len(b) != len(first) or b[0] != first[0] or b[2:] != rest
                            for b in found):
        return None
    items = tuple(b[1] for b in found)
    if len(set(items)) != len(items):
        return None
    m = len(items)
    big = 0
    if op in ("at-least", "exactly") and 0 < k <= m:
        big += math.comb(m, k) * k
    if op in ("at-most", "exactly") and 0 <= k < m:
        big += math.comb(m, k + 1) * (k + 1)
    if big <= m:
        return None  # linear (or constant) already: the junction is as small
    return count_node(grounder, GCount(relation=first[0], items=items, others=tuple(rest),
                                  op=op, number=max(k, 0)), op, k)


def count_node(grounder: _Grounder, g: GCount, op: CountOp, k: int) -> Goal:
    """`g` with `op k` (over the same items), folded to a constant when `k` decides
    it."""
    m = len(g.items)
    if (op == "at-least" and k <= 0) or (op == "at-most" and k >= m):
        return TRUE
    if k < 0 or (op != "at-most" and k > m):
        return FALSE
    made = g if (g.op, g.number) == (op, k) else g.model_copy(update={"op": op, "number": k})
    grounder._keep.append(made)
    return made


def _charge_subsets(grounder: _Grounder, f: A.Node, bodies: Sequence[Goal], k: int) -> None:
    biggest = max(grounder.size(b) for b in bodies)
    grounder.charge(math.comb(len(bodies), k) * k * biggest, f)


def _minimal_sets(grounder: _Grounder, f: A.Count, bodies: Sequence[Goal], k: int
                  ) -> list[list[Goal]]:
    """The minimal sets of distinct bodies that make at least `k` of `bodies` true,
    counting a body that occurs several times (equal goals from different
    instances) once per occurrence."""
    counts: dict[str, int] = {}
    first: dict[str, Goal] = {}
    for b in bodies:
        t = grounder.text(b)
        counts[t] = counts.get(t, 0) + 1
        first.setdefault(t, b)
    keys = list(counts)
    if len(keys) == len(bodies):  # all distinct: the k-subsets
        _charge_subsets(grounder, f, bodies, k)
        return [list(c) for c in combinations(bodies, k)]
    biggest = max(grounder.size(b) for b in bodies)
    out: list[list[Goal]] = []
    for r in range(1, len(keys) + 1):
        for c in combinations(keys, r):
            total = sum(counts[t] for t in c)
            if total >= k and all(total - counts[t] < k for t in c):
                grounder.charge(r * biggest, f)
                out.append([first[t] for t in c])
    return out


def at_least(grounder: _Grounder, f: A.Count, k: int, bodies: Sequence[Goal]) -> Goal:
    """At least `k` of the fluent bodies hold."""
    if k <= 0:
        return TRUE
    if k > len(bodies):
        return FALSE
    return grounder.disj([grounder.conj(c) for c in _minimal_sets(grounder, f, bodies, k)])


def at_most(grounder: _Grounder, f: A.Count, k: int, bodies: Sequence[Goal]) -> Goal:
    """At most `k` of the fluent bodies hold: every `k+1` of them has a false one."""
    if k < 0:
        return FALSE
    if k >= len(bodies):
        return TRUE
    return grounder.conj([grounder.disj([grounder.neg(b) for b in c])
                      for c in _minimal_sets(grounder, f, bodies, k + 1)])


def pairs(grounder: _Grounder, f: A.Pairs, env: Env) -> Goal:
    firsts = [tuple(e[v.name] for v in f.first) for e in grounder.instances(f, f.first, env)]
    seconds = [tuple(e[v.name] for v in f.second) for e in grounder.instances(f, f.second, env)]
    if len(firsts) * len(seconds) > grounder.max_instances:
        grounder._limit_error(f, len(firsts) * len(seconds), grounder.max_instances, "bindings")
    need = len(firsts) if f.n is None else f.n
    if need <= 0:
        return TRUE
    if need > min(len(firsts), len(seconds)):
        return FALSE
    names = [v.name for v in (*f.first, *f.second)]
    edges: dict[tuple[int, int], Goal] = {}  # (first, second) -> body, FALSE left out
    grounder.active.append(f)
    try:
        for i, a in enumerate(firsts):
            for j, b in enumerate(seconds):
                if set(a) & set(b):
                    continue  # one quantifier: a first is never its own second
                inner = {**env, **dict(zip(names, (*a, *b), strict=True))}
                g = grounder.formula(f.body, inner)
                if g is not FALSE:
                    edges[i, j] = g
    finally:
        grounder.active.pop()
    if _matching_size([e for e, g in edges.items() if g is TRUE]) >= need:
        return TRUE
    if _matching_size(list(edges)) < need:
        return FALSE
    by_first: dict[int, list[tuple[int, Goal]]] = {}
    for (i, j), g in sorted(edges.items()):
        by_first.setdefault(i, []).append((j, g))
    options: list[Goal] = []
    # depth-first over (next first, firsts still to match, seconds used, bodies so far),
    # with an explicit stack: a forpairs over a thousand firsts must not recurse
    stack: list[tuple[int, int, frozenset[int], tuple[Goal, ...]]] = [
        (0, need, frozenset(), ())
    ]
    while stack:
        i, left, used, chosen = stack.pop()
        if left == 0:
            grounder.charge(sum(grounder.size(g) for g in chosen), f)
            options.append(grounder.conj(chosen))
            continue
        if len(firsts) - i < left:
            continue
        stack.append((i + 1, left, used, chosen))  # this first stays unmatched
        for j, g in reversed(by_first.get(i, [])):
            if j not in used:
                stack.append((i + 1, left - 1, used | {j}, (*chosen, g)))
    return grounder.disj(options)


def negated_count(grounder: _Grounder, g: GCount) -> Goal:
    """`(not g)`: the disjunction of its complementary counts."""
    return grounder.disj([count_node(grounder, g, op, n)
                          for op, n in _COMPLEMENT[g.op](g.number)])


#: The counts whose disjunction is the negation of `op n`.
_COMPLEMENT: dict[str, Callable[[int], list[tuple[CountOp, int]]]] = {
    "at-least": lambda n: [("at-most", n - 1)],
    "at-most": lambda n: [("at-least", n + 1)],
    "exactly": lambda n: [("at-most", n - 1), ("at-least", n + 1)],
}


def _matching_size(edges: list[tuple[int, int]]) -> int:
    """The size of a maximum matching of the bipartite graph with these edges."""
    if not edges:
        return 0
    import networkx as nx  # heavy: imported only when a pairs form needs it

    graph = nx.Graph()
    tops = {("a", i) for i, _ in edges}
    graph.add_edges_from((("a", i), ("b", j)) for i, j in edges)
    matching = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=tops)
    return len(matching) // 2
