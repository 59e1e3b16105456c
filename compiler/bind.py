"""The bind pass: every binding of a template's parameters that satisfies its constraints.

`bind(template, facts)` enumerates the bindings (parameter name -> entity id) for which
the template's `:constraints` hold, without ever enumerating the cartesian product of the
parameters' domains:

- **Conjuncts.** The constraint's top-level `and` (nested ones flattened) is split into
  conjuncts. A conjunct that is a positive static or history atom whose variables are all
  parameters is a *join* conjunct: `Facts.true_atoms` is its index, and it extends a
  partial binding only with rows that agree with what is already bound (and with the
  atom's constants, and with the parameters' types via `Facts.entities`).
- **Join order.** Greedy, most selective first: at each step the join conjunct with the
  fewest expected rows per lookup (its table size over the number of distinct keys on
  the positions already bound) goes next. Each step looks its rows up in a hash index on
  the bound positions, so a join never scans a table per partial binding.
- **The rest.** Parameters no join conjunct mentions range over
  `Facts.entities(types)`, smallest domain first. Every other conjunct (negations,
  disjunctions, quantifiers, counting, arg-extremes, comparisons, equality...) is decided
  by `ground` as soon as every parameter it mentions is bound, which prunes the search
  early; it must fold to true or false (a constraint over fluent predicates is an error).
  A conjunct `ground` drops with a reason (a tie for an arg-extreme) prunes too, and its
  reason is counted.
- **Distinctness.** The parameters of one template bind pairwise-DISTINCT entities:
  `(?a ?b - mug)` never binds both to the same mug.
- **Result.** Complete (every satisfying binding, exactly once) and deterministic: the
  bindings are sorted lexicographically over the parameters' declaration order.
  `max_bindings=K` samples K of them uniformly with `random.Random(seed)` (`sample` over
  the complete sorted list), returned sorted; K at least the total returns them all.
- **Limits.** More than `limit` partial bindings explored raises `BindLimitError`
  naming the template, instead of running away.

An empty domain (no entity of a parameter's type, an empty table) gives no binding; a
template without parameters has the one empty binding when its constraints hold.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fdc.predicates.goal import FALSE, TRUE

from . import ast as A
from .facts import Facts
from .ground import conjuncts, ground
from .printer import inline

Row = tuple[str, ...]


class BindError(Exception):
    """A template whose constraints cannot be decided at compile time."""


class BindLimitError(BindError):
    """Binding explored more partial bindings than allowed; names the template."""

    def __init__(self, template: str, explored: int, limit: int) -> None:
        self.template = template
        self.explored = explored
        self.limit = limit
        super().__init__(
            f"template `{template}`: binding explored more than {limit} partial bindings "
            f"({explored} so far); tighten its constraints or raise the limit"
        )


@dataclass(frozen=True)
class BindResult:
    """The bindings of one template, and what the search pruned.

    `bindings` are sorted over the parameters' order (sampled when `max_bindings` was
    given); `total` is the size of the complete set before sampling. `dropped` counts
    pruned candidates (partial bindings) by reason: a constraint that is false, or the
    reason `ground` gave (a tie for an arg-extreme, say).
    """

    template: str
    parameters: tuple[str, ...]
    bindings: tuple[dict[str, str], ...]
    total: int
    dropped: Mapping[str, int] = field(default_factory=dict)
    explored: int = 0


@dataclass(frozen=True)
class _Join:
    """A positive static/history atom over parameters and constants."""

    atom: A.Atom
    rows: Sequence[Row]


@dataclass
class _Step:
    """One level of the search: bind `new` parameters from a join or a domain."""

    new: tuple[str, ...]
    checks: list[A.Node] = field(default_factory=list)
    # join step: positions of the atom and the lookup on already-bound parameters
    join: _Join | None = None
    key_vars: tuple[str, ...] = ()  # bound parameters forming the lookup key
    index: dict[Row, list[Row]] = field(default_factory=dict)
    new_positions: tuple[int, ...] = ()  # first position of each new parameter
    # domain step: the entities of the one new parameter
    domain: Sequence[str] = ()


def _mentions(f: A.Node, params: set[str]) -> frozenset[str]:
    return frozenset(n.name for n in f.walk() if isinstance(n, A.Variable) and n.name in params)


def _is_join(f: A.Node, facts: Facts, params: set[str]) -> bool:
    if not isinstance(f, A.Atom) or f.predicate == "=" or not f.args:
        return False
    if facts.kind(f.predicate) == "fluent":
        return False
    return all(isinstance(a, A.Constant) or a.name in params for a in f.args)


def bind(
    template: A.Template,
    facts: Facts,
    *,
    max_bindings: int | None = None,
    seed: int = 0,
    limit: int = 1_000_000,
) -> BindResult:
    """Every binding of `template`'s parameters (to pairwise-distinct entities) that
    satisfies its constraints, sorted over the parameters' order; see the module doc."""
    if max_bindings is not None and max_bindings < 0:
        raise ValueError(f"max_bindings must be at least 0, not {max_bindings}")
    names = tuple(p.name for p in template.parameters)
    if len(set(names)) != len(names):
        raise BindError(f"template `{template.name}`: a parameter is declared twice")
    params = set(names)
    typed = {p.name: frozenset(facts.entities(p.types)) for p in template.parameters}
    domains = {p.name: facts.entities(p.types) for p in template.parameters}

    joins: list[_Join] = []
    checks: list[tuple[A.Node, frozenset[str]]] = []
    for c in conjuncts(template.constraints):
        if _is_join(c, facts, params):
            assert isinstance(c, A.Atom)
            joins.append(_Join(c, facts.true_atoms(c.predicate)))
        else:
            checks.append((c, _mentions(c, params)))

    steps = _plan(joins, checks, names, domains, typed)
    search = _Search(template.name, facts, steps, limit)
    # conjuncts over no parameter at all are decided once, before the search
    for c, vars_ in checks:
        if not vars_ and not search.holds(c, {}):
            return BindResult(template.name, names, (), 0, dict(search.dropped), 0)
    found = search.run()

    rows = sorted(tuple(b[n] for n in names) for b in found)
    total = len(rows)
    if max_bindings is not None and max_bindings < total:
        rows = sorted(random.Random(seed).sample(rows, max_bindings))
    return BindResult(
        template=template.name,
        parameters=names,
        bindings=tuple(dict(zip(names, r, strict=True)) for r in rows),
        total=total,
        dropped=dict(sorted(search.dropped.items())),
        explored=search.explored,
    )


def _plan(
    joins: list[_Join],
    checks: list[tuple[A.Node, frozenset[str]]],
    names: tuple[str, ...],
    domains: Mapping[str, Sequence[str]],
    typed: Mapping[str, frozenset[str]],
) -> list[_Step]:
    """The search's steps: greedy join order, then the remaining parameters, each step
    with the conjuncts that become decidable once it has bound its parameters."""
    bound: set[str] = set()
    steps: list[_Step] = []
    left = list(joins)
    while left:
        best: tuple[float, int, _Step] | None = None
        for i, j in enumerate(left):
            step = _join_step(j, bound, typed)
            expected = sum(len(v) for v in step.index.values()) / max(1, len(step.index))
            if best is None or (expected, i) < (best[0], best[1]):
                best = (expected, i, step)
        assert best is not None
        _, i, step = best
        left.pop(i)
        steps.append(step)
        bound.update(step.new)
    rest = [n for n in names if n not in bound]
    rest.sort(key=lambda n: (len(domains[n]), names.index(n)))
    for n in rest:
        steps.append(_Step(new=(n,), domain=domains[n]))
        bound.add(n)
    # schedule each check at the first step after which all its parameters are bound
    seen: set[str] = set()
    pending = [(c, v) for c, v in checks if v]
    for step in steps:
        seen.update(step.new)
        still = []
        for c, v in pending:
            if v <= seen:
                step.checks.append(c)
            else:
                still.append((c, v))
        pending = still
    assert not pending
    return steps


def _join_step(j: _Join, bound: set[str], typed: Mapping[str, frozenset[str]]) -> _Step:
    """A join step for atom `j` given the parameters bound before it: rows that fit the
    atom's constants, repeated variables and types, indexed by the bound parameters."""
    args = j.atom.args
    key_vars: list[str] = []
    new: list[str] = []
    first: dict[str, int] = {}
    for i, a in enumerate(args):
        if isinstance(a, A.Variable) and a.name not in first:
            first[a.name] = i
            (key_vars if a.name in bound else new).append(a.name)
    index: dict[Row, list[Row]] = {}
    for row in j.rows:
        if len(row) != len(args):
            continue
        ok = True
        for i, a in enumerate(args):
            if isinstance(a, A.Constant):
                ok = row[i] == a.name
            else:
                ok = row[i] == row[first[a.name]] and row[i] in typed[a.name]
            if not ok:
                break
        if ok:
            index.setdefault(tuple(row[first[v]] for v in key_vars), []).append(row)
    return _Step(
        new=tuple(new),
        join=j,
        key_vars=tuple(key_vars),
        index=index,
        new_positions=tuple(first[v] for v in new),
    )


class _Search:
    def __init__(self, template: str, facts: Facts, steps: list[_Step], limit: int) -> None:
        self.template = template
        self.facts = facts
        self.steps = steps
        self.limit = limit
        self.explored = 0
        self.dropped: Counter[str] = Counter()
        self._mentions: dict[int, tuple[str, ...]] = {}
        self._memo: dict[tuple[int, tuple[str, ...]], str | None] = {}

    def holds(self, c: A.Node, binding: Mapping[str, str]) -> bool:
        """Whether conjunct `c` holds; memoised on the values of the parameters it
        mentions (a drop is counted each time, as if it were decided again)."""
        names = self._mentions.get(id(c))
        if names is None:
            names = self._mentions[id(c)] = tuple(sorted(_mentions(c, set(binding))))
        key = (id(c), tuple(binding[n] for n in names))
        if key in self._memo:
            reason = self._memo[key]
        else:
            reason = self._memo[key] = self._decide(c, binding)
        if reason is not None:
            self.dropped[reason] += 1
        return reason is None

    def _decide(self, c: A.Node, binding: Mapping[str, str]) -> str | None:
        """None when `c` holds, else why not."""
        result = ground(c, binding, self.facts, template=self.template)
        if result.goal is None:
            reason = result.reason or "dropped"
            if reason == "goal folds to false":
                reason = f"constraint {inline(c)} is false"
            return reason
        if result.goal == TRUE:
            return None
        if result.goal == FALSE:  # pragma: no cover - ground reports FALSE as a drop
            return f"constraint {inline(c)} is false"
        raise BindError(
            f"template `{self.template}`: constraint {inline(c)} depends on the world's "
            "state (fluent predicates), so it cannot be decided when binding"
        )

    def run(self) -> list[dict[str, str]]:
        found: list[dict[str, str]] = []
        binding: dict[str, str] = {}
        used: set[str] = set()

        def extend(k: int) -> None:
            if k == len(self.steps):
                found.append(dict(binding))
                return
            step = self.steps[k]
            if step.join is not None:
                key = tuple(binding[v] for v in step.key_vars)
                candidates: Sequence[Row] = [
                    tuple(row[i] for i in step.new_positions) for row in step.index.get(key, ())
                ]
            else:
                candidates = [(e,) for e in step.domain]
            for values in candidates:
                if len(set(values)) != len(values) or any(v in used for v in values):
                    continue  # parameters bind distinct entities
                self.explored += 1
                if self.explored > self.limit:
                    raise BindLimitError(self.template, self.explored, self.limit)
                binding.update(zip(step.new, values, strict=True))
                used.update(values)
                if all(self.holds(c, binding) for c in step.checks):
                    extend(k + 1)
                for n in step.new:
                    del binding[n]
                used.difference_update(values)

        extend(0)
        return found
