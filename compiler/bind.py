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
- **Limits.** More than `limit` (default: the limit `template_bindings`) partial
  bindings explored raises `BindLimitError` naming the template, instead of running
  away; `random_order` checks the same limit before it starts (against the product of
  the search's fan-outs, when every binding is wanted) and on the random walks it takes.

An empty domain (no entity of a parameter's type, an empty table) gives no binding; a
template without parameters has the one empty binding when its constraints hold.
See docs/architecture.md.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from fdc.core.errors import FdcError
from fdc.core.limits import current
from fdc.predicates.goal import FALSE, TRUE

from . import ast as A
from .drops import Drop, DropCode
from .facts import Facts
from .ground import ground
from .ground_guards import conjuncts
from .printer import inline

Row = tuple[str, ...]


class BindError(FdcError):
    """A template whose constraints cannot be decided at compile time."""


class BindLimitError(BindError):
    """Binding would consider more bindings than the limit `template_bindings` allows;
    names the template and what was counted."""

    def __init__(self, template: str, explored: int, limit: int,
                 what: str = "partial bindings explored") -> None:
        self.template = template
        self.explored = explored
        self.limit = limit
        super().__init__(
            f"template `{template}`: more than {limit} {what} ({explored}), the limit "
            f"`template_bindings`; tighten its constraints, sample K bindings with "
            f"`--max-per-template K`, or raise the limit with `fdc --limit "
            f"template_bindings=N ...`"
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
    dropped: Mapping[Drop, int] = field(default_factory=dict)
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
    limit: int | None = None,
) -> BindResult:
    """Every binding of `template`'s parameters (to pairwise-distinct entities) that
    satisfies its constraints, sorted over the parameters' order; see the module doc."""
    if max_bindings is not None and max_bindings < 0:
        raise ValueError(f"max_bindings must be at least 0, not {max_bindings}")
    names, search, ok = _prepare(template, facts, limit)
    if not ok:
        return BindResult(template.name, names, (), 0, dict(search.dropped), 0)
    return _enumerate(template.name, names, search, max_bindings, seed)


def _prepare(template: A.Template, facts: Facts, limit: int | None
             ) -> tuple[tuple[str, ...], _Search, bool]:
    """The search for `template`'s bindings (exploring at most `limit` partial bindings,
    default the limit `template_bindings`), and whether its parameter-free conjuncts
    hold (decided once, before any search)."""
    if limit is None:
        limit = current().template_bindings
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
    search = _Search(template.name, facts, _plan(joins, checks, names, domains, typed), limit)
    ok = all(search.holds(c, {}) for c, vars_ in checks if not vars_)
    return names, search, ok


def _enumerate(template: str, names: tuple[str, ...], search: _Search,
               max_bindings: int | None, seed: int) -> BindResult:
    found = search.run()

    rows = sorted(tuple(b[n] for n in names) for b in found)
    total = len(rows)
    if max_bindings is not None and max_bindings < total:
        rows = sorted(random.Random(seed).sample(rows, max_bindings))
    return BindResult(
        template=template,
        parameters=names,
        bindings=tuple(dict(zip(names, r, strict=True)) for r in rows),
        total=total,
        dropped=dict(sorted(search.dropped.items(), key=lambda p: p[0].message)),
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
        self.dropped: Counter[Drop] = Counter()
        self._mentions: dict[int, tuple[str, ...]] = {}
        self._memo: dict[tuple[int, tuple[str, ...]], Drop | None] = {}

    def holds(self, c: A.Node, binding: Mapping[str, str]) -> bool:
        """Whether conjunct `c` holds (a drop is counted each time it is asked)."""
        drop = self.decide(c, binding)
        if drop is not None:
            self.dropped[drop] += 1
        return drop is None

    def decide(self, c: A.Node, binding: Mapping[str, str]) -> Drop | None:
        """None when `c` holds, else why; memoised on the values of the parameters it
        mentions."""
        names = self._mentions.get(id(c))
        if names is None:
            names = self._mentions[id(c)] = tuple(sorted(_mentions(c, set(binding))))
        key = (id(c), tuple(binding[n] for n in names))
        if key not in self._memo:
            self._memo[key] = self._decide(c, binding)
        return self._memo[key]

    def drop_reasons(self) -> Counter[Drop]:
        """Each distinct conjunct-and-values that failed for a reason other than being
        false (a tie), once."""
        return Counter(d for d in self._memo.values() if d is not None and d.counted)

    def _decide(self, c: A.Node, binding: Mapping[str, str]) -> Drop | None:
        """None when `c` holds, else why not."""
        result = ground(c, binding, self.facts, template=self.template)
        if result.reason is not None:
            if result.reason.code is DropCode.GOAL_FALSE:
                return Drop(DropCode.CONSTRAINT_FALSE, inline(c))
            return result.reason
        if result.goal == TRUE:
            return None
        if result.goal == FALSE:  # pragma: no cover - ground reports FALSE as a drop
            return Drop(DropCode.CONSTRAINT_FALSE, inline(c))
        raise BindError(
            f"template `{self.template}`: constraint {inline(c)} depends on the world's "
            "state (fluent predicates), so it cannot be decided when binding"
        )

    def run(self, first: bool = False) -> list[dict[str, str]]:
        """Every binding; with `first`, at most one (the search stops at it)."""
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
                if first and found:
                    return
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


def why_no_binding(template: A.Template, facts: Facts, *, limit: int | None = None
                   ) -> list[str]:
    """Why `template` has no binding on `facts`, for `fdc explain`: the parameters whose
    type has no entity (or too few distinct ones), else the first constraint (in the
    order written, nested `and`s flattened) after which no binding is left, and whether
    it holds for no binding even alone. Each prefix is searched up to its first binding
    (at most `limit` partial bindings; past it the search says so and stops)."""
    reasons = []
    wanted: Counter[tuple[str, ...]] = Counter(tuple(p.types) for p in template.parameters)
    for types, n in wanted.items():
        have = len(facts.entities(types))
        if have < n:
            names = " ".join(p.name for p in template.parameters if tuple(p.types) == types)
            kind = " ".join(types) or "object"
            reasons.append(f"no entity of type `{kind}` for {names}" if have == 0 else
                           f"{names} need {n} distinct `{kind}` entities, the scene has {have}")
    if reasons:
        return reasons
    parts = conjuncts(template.constraints)

    def some(constraints: Sequence[A.Node]) -> bool | None:
        narrowed = A.Template.make(**{**template.__dict__,
                                      "constraints": A.And.make(parts=tuple(constraints))})
        try:
            _, search, ok = _prepare(narrowed, facts, limit)
            return ok and bool(search.run(first=True))
        except BindLimitError as e:
            reasons.append(f"undecided: {e}")
            return None

    if some([]) is False:
        return [f"{' '.join(p.name for p in template.parameters)} cannot bind pairwise-"
                "distinct entities of their types"]
    for k, c in enumerate(parts):
        found = some(parts[: k + 1])
        if found is None:
            return reasons
        if not found:
            alone = some([c]) if k else False
            if alone is None:
                return reasons
            if not _mentions(c, {p.name for p in template.parameters}):
                return [f"constraint {inline(c)} is false here (it names no parameter)"]
            return [f"constraint {inline(c)} holds for no binding of the parameters' types"
                    if not alone else
                    f"constraint {inline(c)} holds for none of the bindings the constraints "
                    f"before it leave ({', '.join(inline(x) for x in parts[:k])})"]
    return reasons


@dataclass
class Draw:
    """Bindings in a uniformly random order, drawn lazily (`random_order`)."""

    parameters: tuple[str, ...]
    bindings: Iterator[dict[str, str]]
    total: int | None  # the complete set's size; None when drawn by sampling
    search: _Search
    sampled: bool
    walks: int = 0  # sampling: random walks taken, and those that made a binding
    accepted: int = 0
    bound: int = 0  # sampling: the walks' upper bound on the number of bindings

    def dropped(self) -> Counter[Drop]:
        """Candidates dropped for a reason other than a false constraint (a tie): per
        partial binding when enumerated, per distinct conjunct and values when sampled."""
        return self.search.drop_reasons() if self.sampled else self.search.dropped

    @property
    def estimate(self) -> int | None:
        """The complete set's size, or (sampling) an unbiased estimate of it."""
        if self.total is not None:
            return self.total
        return round(self.bound * self.accepted / self.walks) if self.walks else None


#: Below this many candidate bindings (the product of the search's fan-outs) the
#: complete set is enumerated and shuffled; above it, bindings are sampled.
ENUMERATE_BELOW = 100_000
#: Random walks without a new binding before sampling gives up (the set is then
#: exhausted, or too sparse in its bound to sample: fewer than K tasks come out).
SAMPLING_PATIENCE = 5_000


def random_order(template: A.Template, facts: Facts, *, seed: int, limit: int | None = None,
                 enumerate_below: int = ENUMERATE_BELOW, every: bool = False) -> Draw:
    """`template`'s bindings in a uniformly random order (seeded), for taking the first
    K that make tasks: a uniform sample of those, without building the complete set
    when it is large.

    A small search (at most `enumerate_below` candidates: the product, over the search's
    steps, of the largest fan-out of each) is enumerated, then shuffled. A large one is
    sampled by random walks down the same join plan: each step draws a uniform index
    below its largest fan-out and the walk is rejected when the index falls past the
    candidates the partial binding has (so every complete walk is equally likely: the
    acceptance-rejection form of "wander join"), or when a parameter would repeat or a
    constraint fails. Accepted walks are bindings drawn uniformly with replacement;
    skipping repeats leaves a uniformly random order. Sampling stops after
    `SAMPLING_PATIENCE` walks in a row make no new binding.

    Limits (`BindLimitError`): with `every` (each binding is wanted, none sampled), a
    search whose bound exceeds `limit` stops before it starts; a sampled one stops after
    `limit` walks.
    """
    names, search, ok = _prepare(template, facts, limit)
    rng = random.Random(seed)
    if not ok:
        return Draw(names, iter(()), 0, search, False)
    fanouts = [max(map(len, st.index.values()), default=0) if st.join is not None
               else len(st.domain) for st in search.steps]
    bound = math.prod(fanouts)
    if every and bound > search.limit:
        raise BindLimitError(template.name, bound, search.limit, "candidate bindings (the "
                             "product of its parameters' domain sizes) for every binding")
    if bound <= enumerate_below:
        rows = [tuple(b[n] for n in names) for b in search.run()]
        rows.sort()
        rng.shuffle(rows)
        return Draw(names, (dict(zip(names, r, strict=True)) for r in rows), len(rows),
                    search, False)
    draw = Draw(names, iter(()), None, search, True, bound=bound)
    draw.bindings = _walks(search, names, fanouts, rng, draw)
    return draw


def _walks(search: _Search, names: tuple[str, ...], fanouts: Sequence[int],
           rng: random.Random, draw: Draw) -> Iterator[dict[str, str]]:
    seen: set[Row] = set()
    idle = 0
    while idle < SAMPLING_PATIENCE:
        idle += 1
        draw.walks += 1
        if draw.walks > search.limit:
            raise BindLimitError(search.template, draw.walks, search.limit,
                                 "random walks to sample bindings")
        binding: dict[str, str] = {}
        for step, fan in zip(search.steps, fanouts, strict=True):
            if fan == 0:
                return
            k = rng.randrange(fan)
            if step.join is not None:
                rows = step.index.get(tuple(binding[v] for v in step.key_vars), ())
                if k >= len(rows):
                    break
                values = tuple(rows[k][i] for i in step.new_positions)
            else:
                values = (step.domain[k],)
            if len(set(values)) != len(values) or any(v in binding.values() for v in values):
                break
            binding.update(zip(step.new, values, strict=True))
            if not all(search.decide(c, binding) is None for c in step.checks):
                break
        else:
            draw.accepted += 1
            row = tuple(binding[n] for n in names)
            if row not in seen:
                seen.add(row)
                idle = 0
                yield dict(zip(names, row, strict=True))
