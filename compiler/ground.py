"""The ground pass: a bound template goal becomes a quantifier-free goal over fluent atoms.

`ground(goal, binding, facts)` expands every quantifier over the scene's entities, folds
static and history atoms (and numeric comparisons over compile-time functions) to true
or false, and simplifies what is left into one canonical `fdc.predicates.goal` value:

- **Distinctness.** The variables of ONE quantifier bind pairwise-distinct entities
  (`(exists (?a ?b - mug) φ)` needs two mugs; FindingDory's quantifiers are injective
  the same way). They are *not* kept distinct from the template's parameters nor from the
  variables of enclosing quantifiers: `(forall (?b - book) (on ?b ?s))` covers every
  book, including one that a parameter is bound to. `forpairs`/`fornpairs` are one
  quantifier, so a first is never paired with itself.
- **Folding.** Static and history atoms and `(= a b)` become TRUE/FALSE; a numeric
  comparison uses `Facts.value` and is false when a side is undefined (an undefined
  function, a division by zero), so `(not (< (f ?x) 3))` is true for an `?x` without `f`.
- **Counting** and **pairs**: `fdc.compiler.ground_counts` (its docstring).
- **Arg-extremes** need compile-time keys and conditions; an entity whose key is
  undefined is no candidate. A tie for the best value drops the binding with a reason
  naming the tied entities, wherever the `argmax` stands (among the parts the grounder
  evaluates: `(and FALSE-part argmax)` stops before it): a tie is never broken.
- **Multi-goal.** A `targets` condition and an `ordered-targets` order are compile-time;
  the targets are sorted by order (ascending), or by entity id when unordered. No target,
  an undefined order, a tie in the order, or a target whose goal folds to false drops the
  binding. `then` keeps its steps (nested `then`s flatten, TRUE steps go).
- **Simplification**, as parts are built: `and`/`or` flatten, drop their neutral
  constant and collapse on their absorbing one, drop duplicates, collapse `p` with
  `(not p)`, and sort their parts by PDDL text; `not` is pushed down to the atoms
  (negation normal form: constants fold, double negation cancels, De Morgan), so
  `(not (and a b))` and `(imply a (not b))` are one goal; `imply` is `(or (not a) b)`.
  Equal goals are equal values, and the output depends only on the inputs.
- **Drops.** A binding the goal gives no meaning to (a tie, no target, a goal that folds
  to false) comes back as a typed `Drop` (`compiler.drops`), naming its entities.
- **Widening.** `widen` ors the goal over every reading of ambiguous words (`readings`:
  each entity an ambiguous description fits; the compile pipeline's `(:ambiguity
  widen)`), grounding once per reading, so every reading of the words widens alike.
- **Limits.** Atoms are counted as they are produced, and the combinatorial expansions
  (counting subsets) are counted *before* they are built, so a goal that would exceed
  `max_atoms` raises `GroundLimitError` naming the template and the quantifier (the
  outermost one being expanded, or the counting quantifier whose subsets blow up)
  instead of exhausting memory. A quantifier whose bindings would number more than
  `max_instances` (the product of its domain sizes, counted before enumerating) raises
  the same error, since enumerating it would not finish.

See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise, product
from typing import Any, NoReturn, assert_never

from fdc.core.errors import FdcError
from fdc.core.limits import current
from fdc.predicates.algebra import (
    NotNegatable,
    canonical_junction,
    junction_parts,
    neg,
)
from fdc.predicates.goal import (
    FALSE,
    TRUE,
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    Target,
    atom,
    atoms_over,
    to_pddl,
)

from . import ast as A
from .drops import Drop, DropCode
from .facts import Facts
from .ground_counts import count, negated_count, pairs
from .ground_guards import GuardIndexes, _Guard, guarded
from .printer import inline

Env = dict[str, str]


class GroundError(FdcError):
    """A goal the grounder cannot give a meaning to (e.g. a fluent target condition).
    `span`: the part of the template's goal it is about (offsets into the template's
    file; the compile pipeline renders them as line:column)."""

    def __init__(self, message: str, span: A.Span | None = None) -> None:
        super().__init__(message)
        self.span = span


class GroundLimitError(GroundError):
    """Grounding would exceed a size limit; names the template and the quantifier."""

    def __init__(
        self,
        template: str,
        quantifier_span: A.Span,
        count: int,
        *,
        quantifier: str = "",
        limit: int = 0,
        unit: str = "atoms",
    ) -> None:
        self.template = template
        self.quantifier_span = quantifier_span
        self.count = count
        self.quantifier = quantifier
        self.limit = limit
        self.unit = unit
        name = "goal_atoms" if unit == "atoms" else "quantifier_instances"
        super().__init__(
            f"template `{template}`: grounding `{quantifier}` needs at least {count} {unit}, "
            f"over the limit `{name}` ({limit}); raise it with `fdc --limit {name}=N ...`"
            + (" or `fdc compile --max-atoms N`" if unit == "atoms" else ""),
            quantifier_span if quantifier_span.start >= 0 else None,
        )


@dataclass(frozen=True)
class GroundResult:
    """The ground goal, or why the binding is dropped (exactly one of the two is set)."""

    goal: Goal | None
    reason: Drop | None = None

    @property
    def dropped(self) -> bool:
        return self.goal is None

    @property
    def outcome(self) -> Goal | Drop:
        """The ground goal, or why the binding dropped."""
        if self.goal is None:
            assert self.reason is not None
            return self.reason
        return self.goal


def ground(
    goal: A.Node,
    binding: Mapping[str, str],
    facts: Facts,
    *,
    max_atoms: int | None = None,
    max_instances: int | None = None,
    template: str = "",
    expand_counts: bool = False,
) -> GroundResult:
    """Ground a (type-checked) template goal under a binding of its parameters.

    `binding` maps parameter names (with or without their `?`) to entity ids.
    `max_atoms`, `max_instances`: default the limits `goal_atoms`, `quantifier_instances`.
    `expand_counts`: expand every counting form into subsets, never a count node (the
    encoding before count nodes; the benchmark and the property tests compare the two).
    """
    env = {(k if k.startswith("?") else "?" + k): v for k, v in binding.items()}
    limits = current()
    g = _Grounder(facts, template, limits.goal_atoms if max_atoms is None else max_atoms,
                  limits.quantifier_instances if max_instances is None else max_instances,
                  expand_counts)
    try:
        with _collector_paused():
            result = g.top(goal, env)
    except _Dropped as dropped:
        return GroundResult(None, dropped.drop)
    if result is FALSE:
        return GroundResult(None, Drop(DropCode.GOAL_FALSE))
    return GroundResult(result)


def readings(binding: Mapping[str, str], fits: Mapping[str, Sequence[str]],
             template: str = "") -> Iterator[dict[str, str]]:
    """Every binding the instructions' words fit: `binding` with, in each parameter of
    `fits`, any entity its description fits (all distinct, and none bound to another
    parameter), in a stable order; `binding` itself among them. More than
    `quantifier_instances` raises `GroundLimitError` before any is made."""
    names = sorted(fits)
    alternatives = math.prod(len(fits[n]) for n in names)
    if alternatives > current().quantifier_instances:
        raise GroundLimitError(template, A.NO_SPAN, alternatives, quantifier="widen",
                               limit=current().quantifier_instances, unit="bindings")
    fixed = {v for k, v in binding.items() if k not in fits}
    for combo in product(*(fits[n] for n in names)):
        if len(set(combo)) < len(combo) or fixed & set(combo):
            continue
        yield {**binding, **dict(zip(names, combo, strict=True))}


def widen(
    goal: A.Node,
    binding: Mapping[str, str],
    fits: Mapping[str, Sequence[str]],
    ground_goal: Goal,
    facts: Facts,
    *,
    max_atoms: int | None = None,
    template: str = "",
) -> Goal:
    """The goal of every reading of ambiguous words (`(:ambiguity widen)`): `ground_goal`
    (the binding's own) or'd with the goal grounded under each other binding the words
    fit (`readings`); a reading whose goal drops adds nothing. The result depends on the
    words alone, not on which of their readings `binding` is, so two bindings the same
    words describe widen to one goal. A multi-goal or a sequence has no goal to widen
    (each target needs its own stop): the caller drops such a binding as ambiguous."""
    assert ground_goal.kind not in ("targets", "then")
    goals = [ground_goal]
    for alt in readings(binding, fits, template):
        if alt != binding:
            g = ground(goal, alt, facts, max_atoms=max_atoms, template=template)
            if g.goal is not None:
                goals.append(g.goal)
    return disjunction(goals)


def disjunction(goals: Sequence[Goal]) -> Goal:
    """`or` of ground goals, flattened, without repeats, in canonical (text) order."""
    parts: dict[str, Goal] = {}
    for g in goals:
        for p in junction_parts(g, "or"):
            parts.setdefault(to_pddl(p), p)
    if len(parts) == 1:
        return next(iter(parts.values()))
    return GOr(parts=tuple(parts[k] for k in sorted(parts))) if parts else FALSE


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a goal is built.

    Grounding allocates many small objects that nearly all stay alive (atoms,
    junctions, memo entries), yet the collector runs every few hundred allocations and
    each older-generation pass walks every object built so far: left on, it doubles the
    time of a goal of 25,000 atoms (and of one of 500,000). What little cyclic garbage
    grounding leaves is collected once the collector is back on.
    """
    if not gc.isenabled():  # the caller's choice: leave it as it is
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _shared(facts: Facts, name: str) -> Any:
    """A cache kept on the facts object itself (its tables never change), so grounding
    every binding of a template builds each guard index once; a fresh one when the
    object takes no attributes."""
    found = getattr(facts, name, None)
    if found is None:
        found = {}
        with contextlib.suppress(AttributeError, TypeError):
            object.__setattr__(facts, name, found)
    return found


class _Dropped(FdcError):
    """The binding drops, wherever in the goal the grounder stands."""

    def __init__(self, drop: Drop) -> None:
        super().__init__(drop.message)
        self.drop = drop


def _word(node: A.Node) -> str:
    if isinstance(node, A.Count):
        return node.op
    if isinstance(node, A.Pairs):
        return "forpairs" if node.n is None else "fornpairs"
    if isinstance(node, A.Extreme):
        return node.op
    if isinstance(node, A.Targets):
        return "targets" if node.order is None else "ordered-targets"
    return type(node).__name__.lower()


class _Grounder:
    def __init__(self, facts: Facts, template: str, max_atoms: int, max_instances: int,
                 expand_counts: bool = False) -> None:
        self.facts = facts
        self.expand_counts = expand_counts
        self.template = template
        self.max_atoms = max_atoms
        self.max_instances = max_instances
        self.used = 0
        self.active: list[A.Node] = []  # quantifiers being expanded, outermost first
        self._text: dict[int, str] = {}
        self._part_texts: dict[int, list[str]] = {}
        self._size: dict[int, int] = {}
        # per call, the answers of `facts` that do not change: a quantifier's domain is
        # asked for once per binding of the quantifiers around it
        self._domains: dict[tuple[str, ...], Sequence[str]] = {}
        self._fluent: dict[str, bool] = _shared(facts, "_fdc_fluent")
        self._guards: GuardIndexes = _shared(facts, "_fdc_guard_indexes")
        self._narrowed: dict[tuple[int, int], Sequence[str]] = {}
        self._pinned: list[object] = []
        # a quantifier's guards, by its node's id (the node kept with them: its id stays
        # its own), for every call on these facts
        self._plans: dict[int, tuple[A.Node, list[_Guard]]] = _shared(facts, "_fdc_guard_plans")
        self._ranks: dict[int, tuple[Sequence[str], dict[str, int]]] = _shared(
            facts, "_fdc_ranks")
        self._keep: list[Goal] = []  # keeps memoised goals alive, so their ids stay unique

    # ------------------------------------------------------------------ budget

    def _limit_error(self, node: A.Node | None, count: int, limit: int, unit: str) -> NoReturn:
        span = node.span if node is not None else A.NO_SPAN
        word = _word(node) if node is not None else "goal"
        raise GroundLimitError(self.template, span, count, quantifier=word, limit=limit, unit=unit)

    def charge(self, n: int, node: A.Node | None = None) -> None:
        self.used += n
        if self.used > self.max_atoms:
            blame = node if node is not None else (self.active[0] if self.active else None)
            self._limit_error(blame, self.used, self.max_atoms, "atoms")

    # ------------------------------------------------------------------ canonical form

    def text(self, g: Goal) -> str:
        """The goal's PDDL text: its sort and dedupe key (memoised per object)."""
        found = self._text.get(id(g))
        if found is not None:
            return found
        if type(g) is GAtom:  # interned, so alive as long as the process: its id stays its own
            s = self._text[id(g)] = "(" + " ".join(g) + ")"  # g: (predicate, *args)
            return s
        match g:
            case GNot():
                s = f"(not {self.text(g.body)})"
            case GAnd() | GOr():
                keys = self._part_texts.get(id(g))
                if keys is None:
                    keys = [self.text(p) for p in g.parts]
                s = "(" + " ".join([g.kind, *keys]) + ")"
            case GTargets():
                word = "ordered-targets" if g.ordered else "targets"
                s = f"({word} " + " ".join(f"({t.entity} {self.text(t.goal)})"
                                           for t in g.targets) + ")"
            case GThen():
                s = "(then " + " ".join(self.text(p) for p in g.steps) + ")"
            case GAtom() | GCount() | GCluster() | GChecklist():
                s = to_pddl(g)
            case _:
                assert_never(g)
        self._text[id(g)] = s
        self._keep.append(g)
        return s

    def size(self, g: Goal) -> int:
        """How many atom occurrences the goal holds."""
        found = self._size.get(id(g))
        if found is not None:
            return found
        match g:
            case GAtom():
                n = 1
            case GNot():
                n = self.size(g.body)
            case GAnd() | GOr():
                n = sum(self.size(p) for p in g.parts)
            case GCount():
                n = len(g.items) * max(1, len(g.others))
            case GCluster() | GTargets() | GThen() | GChecklist():
                n = 0  # multi-goal forms never reach the counters
            case _:
                assert_never(g)
        self._size[id(g)] = n
        self._keep.append(g)
        return n

    def _junction(
        self, parts: Iterable[Goal], conj: bool, keys: Sequence[str] | None = None
    ) -> Goal:
        """`keys`: the texts of `parts`, when the caller has them (then no part is a
        constant or a junction of the same kind)."""
        # Every constant the grounder makes is the object TRUE or FALSE (an empty
        # junction becomes one of them here), so constants are tested by identity.
        kind = GAnd if conj else GOr
        absorbing = FALSE if conj else TRUE
        text = self.text
        if keys is None:
            texts, nested = self._text, self._part_texts
            flat: list[Goal] = []
            found: list[str] = []
            for p in parts:
                if type(p) is kind:
                    flat.extend(p.parts)  # the neutral constant has no parts
                    found.extend(nested.get(id(p)) or [text(q) for q in p.parts])
                elif p is absorbing:
                    return absorbing
                else:
                    flat.append(p)
                    found.append(texts.get(id(p)) or text(p))
            parts, keys = flat, found
        made, ordered = canonical_junction(kind, parts, keys, text)
        if ordered is not None:  # a junction made
            self._part_texts[id(made)] = ordered  # for `text`, if it is asked
            self._keep.append(made)
        return made

    def conj(self, parts: Sequence[Goal]) -> Goal:
        return self._junction(parts, True)

    def disj(self, parts: Sequence[Goal]) -> Goal:
        return self._junction(parts, False)

    def neg(self, g: Goal) -> Goal:
        """`(not g)` in negation normal form (`neg`) over the canonical junctions, a
        count the disjunction of its complements."""
        try:
            return neg(g, conj=self.conj, disj=self.disj, count=self._negated_count)
        except NotNegatable:
            raise GroundError("a multi-goal form cannot be negated") from None

    def _negated_count(self, g: GCount) -> Goal:
        return negated_count(self, g)

    # ------------------------------------------------------------------ terms and numbers

    def term(self, t: A.Node, env: Env) -> str:
        if isinstance(t, A.Variable):
            try:
                return env[t.name]
            except KeyError:
                raise GroundError(f"`{t.name}` is not bound") from None
        if isinstance(t, A.Constant):
            return t.name
        raise GroundError(f"not a term: {inline(t)}")

    def number(self, e: A.Node, env: Env) -> float | None:
        if isinstance(e, A.Number):
            return float(e.value)
        if isinstance(e, A.FunctionTerm):
            return self.facts.value(e.name, [self.term(a, env) for a in e.args])
        if isinstance(e, A.Constant):  # a nullary function written without parentheses
            value = self.facts.value(e.name, ())
            return value if value is not None else _as_float(e.name)
        if isinstance(e, A.Variable):  # bound to a value taken from the log
            return _as_float(self.term(e, env))
        if isinstance(e, A.Arithmetic):
            values = [self.number(a, env) for a in e.args]
            if any(v is None for v in values):
                return None
            vs = [v for v in values if v is not None]
            if e.op == "+":
                return sum(vs)
            if e.op == "*":
                return math.prod(vs)
            if e.op == "-":
                return -vs[0] if len(vs) == 1 else vs[0] - sum(vs[1:])
            result = vs[0]
            for v in vs[1:]:
                if v == 0:
                    return None
                result /= v
            return result
        raise GroundError(f"not a numeric expression: {inline(e)}")

    # ------------------------------------------------------------------ quantifier domains

    def entities(self, types: tuple[str, ...]) -> Sequence[str]:
        found = self._domains.get(types)
        if found is None:
            found = self._domains[types] = self.facts.entities(types)
        return found

    def instances(self, node: A.Node, variables: Sequence[A.TypedName], env: Env,
                  domains: Sequence[Sequence[str]] | None = None) -> Iterator[Env]:
        """Every binding of `variables` to pairwise-distinct entities (of `domains`, by
        default their types' entities), in a fixed order."""
        if domains is None:
            domains = [self.entities(v.types) for v in variables]
        bound = math.prod(len(d) for d in domains)
        if bound > self.max_instances:
            self._limit_error(node, bound, self.max_instances, "bindings")
        names = [v.name for v in variables]
        if len(names) == 1:  # one variable: nothing to keep distinct
            name = names[0]
            return ({**env, name: e} for e in domains[0])

        def extend(i: int, chosen: list[str]) -> Iterator[Env]:
            if i == len(domains):
                yield {**env, **dict(zip(names, chosen, strict=True))}
                return
            for e in domains[i]:
                if e not in chosen:
                    chosen.append(e)
                    yield from extend(i + 1, chosen)
                    chosen.pop()

        return extend(0, [])

    # ------------------------------------------------------------------ goals

    def top(self, f: A.Node, env: Env) -> Goal:
        """A goal or a step of `then`: the only places multi-goal forms may stand."""
        if isinstance(f, A.Targets):
            return self.targets(f, env)
        if isinstance(f, A.Then):
            steps: list[Goal] = []
            for i, step in enumerate(f.steps, 1):
                g = self.top(step, env)
                if g is FALSE:
                    raise _Dropped(Drop(DropCode.STEP_FALSE, str(i)))
                match g:
                    case GThen():
                        steps.extend(g.steps)
                    case _ if g is not TRUE:
                        steps.append(g)
            if not steps:
                return TRUE
            return steps[0] if len(steps) == 1 else GThen(steps=tuple(steps))
        return self.formula(f, env)

    def formula(self, f: A.Node, env: Env) -> Goal:
        if isinstance(f, A.Atom):
            try:
                args = [env[a.name] if type(a) is A.Variable else self.term(a, env) for a in f.args]
            except KeyError:
                args = [self.term(a, env) for a in f.args]  # names the unbound variable
            predicate = f.predicate
            if predicate == "=":
                return TRUE if len(set(args)) <= 1 else FALSE
            if self.is_fluent(predicate):
                self.used += 1
                if self.used > self.max_atoms:
                    self.charge(0)
                return atom(predicate, *args)
            return TRUE if self.facts.holds(predicate, args) else FALSE
        if isinstance(f, A.And):
            parts: list[Goal] = []
            for p in f.parts:
                g = self.formula(p, env)
                if g is FALSE:
                    return FALSE
                parts.append(g)
            return self.conj(parts)
        if isinstance(f, A.Or):
            parts = []
            for p in f.parts:
                g = self.formula(p, env)
                if g is TRUE:
                    return TRUE
                parts.append(g)
            return self.disj(parts)
        if isinstance(f, A.Not):
            return self.neg(self.formula(f.body, env))
        if isinstance(f, A.Imply):
            cond = self.formula(f.condition, env)
            if cond is FALSE:
                return TRUE
            return self.disj([self.neg(cond), self.formula(f.consequence, env)])
        if isinstance(f, A.Comparison):
            return self.comparison(f, env)
        if isinstance(f, A.Exists | A.Forall):
            return self.quantified(f, env)
        if isinstance(f, A.Count):
            return count(self, f, env)
        if isinstance(f, A.Pairs):
            return pairs(self, f, env)
        if isinstance(f, A.Extreme):
            return self.extreme(f, env)
        if isinstance(f, A.Empty):
            return TRUE
        if isinstance(f, A.Targets | A.Then):
            raise GroundError(f"`{_word(f)}` may only be a whole goal or a step of `then`")
        raise GroundError(f"`{type(f).__name__}` cannot stand in a template goal")

    def comparison(self, f: A.Comparison, env: Env) -> Goal:
        left, right = self.number(f.left, env), self.number(f.right, env)
        if left is None or right is None:
            return FALSE
        holds = {
            "<": left < right,
            "<=": left <= right,
            ">": left > right,
            ">=": left >= right,
            "=": left == right,
        }[f.op]
        return TRUE if holds else FALSE

    def bodies(
        self, f: A.Node, variables: Sequence[A.TypedName], body: A.Node, env: Env
    ) -> tuple[Iterable[Goal], list[str] | None]:
        """`body` ground under each binding of `variables`, in the order of `instances`,
        and their texts when they come for free (fluent atoms, never a constant)."""
        domains = guarded(self, f, variables, body, env)
        bindings = self.instances(f, variables, env, domains)  # checks their number first
        if len(variables) == 1 and type(body) is A.Atom:
            found = self.fluent_atoms(body, variables[0].name, domains[0], env)
            if found is not None:
                return found
        return (self.formula(body, inner) for inner in bindings), None

    def fluent_atoms(
        self, body: A.Atom, var: str, domain: Sequence[str], env: Env
    ) -> tuple[list[Goal], list[str] | None] | None:
        """A fluent atom over each entity of `domain` in the place of `var`, and their
        texts (None: not a fluent atom). The innermost loop of most goals,
        `(forall (?x - t) (on ?x ?s))`, so it builds no environment per binding."""
        predicate = body.predicate
        if predicate == "=" or not self.is_fluent(predicate) or not domain:
            return None
        slots = [
            None if type(a) is A.Variable and a.name == var else self.term(a, env)
            for a in body.args
        ]
        if self.used + len(domain) > self.max_atoms:
            self.used = self.max_atoms  # fails as the atom past the limit would
            self.charge(1)
        self.used += len(domain)
        if slots.count(None) != 1:
            found = [atom(predicate, *[e if s is None else s for s in slots]) for e in domain]
            return found, None
        i = slots.index(None)
        before = [s for s in slots[:i] if s is not None]
        after = [s for s in slots[i + 1 :] if s is not None]
        # each atom's text is the same but for the entity: `text` need not build it
        head = "(" + " ".join([predicate, *before, ""])
        tail = " ".join(["", *after]) + ")"
        return atoms_over(predicate, before, domain, after), [head + e + tail for e in domain]

    def is_fluent(self, predicate: str) -> bool:
        fluent = self._fluent.get(predicate)
        if fluent is None:
            fluent = self._fluent[predicate] = self.facts.kind(predicate) == "fluent"
        return fluent

    def quantified(self, f: A.Exists | A.Forall, env: Env) -> Goal:
        universal = isinstance(f, A.Forall)
        stop = FALSE if universal else TRUE
        parts: list[Goal] = []
        self.active.append(f)
        try:
            goals, keys = self.bodies(f, f.variables, f.body, env)
            if keys is None:
                for g in goals:
                    if g is stop:
                        return stop
                    parts.append(g)
        finally:
            self.active.pop()
        if keys is not None:
            return self._junction(goals, universal, keys)
        return self.conj(parts) if universal else self.disj(parts)

    def compile_time(self, f: A.Node, env: Env, what: str) -> bool:
        """A formula that must fold to a constant (a target condition, say)."""
        g = self.formula(f, env)
        if g is TRUE:
            return True
        if g is FALSE:
            return False
        raise GroundError(
            f"{what} `{inline(f)}` depends on the world's state (fluent predicates), "
            "so it cannot be decided when the task is compiled",
            f.span if f.span.start >= 0 else None,
        )

    def extreme(self, f: A.Extreme, env: Env) -> Goal:
        target = self.term(f.target, env)
        [var] = f.variables
        scored: list[tuple[float, str]] = []
        domains = guarded(self, f, f.variables, f.condition or A.Empty(), env)
        for inner in self.instances(f, f.variables, env, domains):
            if f.condition is not None and not self.compile_time(
                f.condition, inner, f"the condition of `{f.op}`"
            ):
                continue
            key = self.number(f.key, inner)
            if key is not None:
                scored.append((key, inner[var.name]))
        if not scored:
            return FALSE
        best = (max if f.op == "argmax" else min)(k for k, _ in scored)
        winners = sorted(e for k, e in scored if k == best)
        if len(winners) > 1:
            raise _Dropped(Drop(DropCode.TIE, f"{f.op} of {inline(f.key)}", tuple(winners),
                                _fmt(best)))
        return TRUE if target == winners[0] else FALSE

    def targets(self, f: A.Targets, env: Env) -> Goal:
        word = _word(f)
        if len(f.variables) != 1:
            raise GroundError(f"`{word}` ranges over one variable, not {len(f.variables)}")
        [var] = f.variables
        found: list[tuple[float, str, Goal]] = []
        self.active.append(f)
        try:
            domains = guarded(self, f, f.variables, f.condition or A.Empty(), env)
            for inner in self.instances(f, f.variables, env, domains):
                if not self.compile_time(f.condition, inner, f"the condition of `{word}`"):
                    continue
                entity = inner[var.name]
                order = 0.0
                if f.order is not None:
                    value = self.number(f.order, inner)
                    if value is None:
                        raise _Dropped(Drop(DropCode.ORDER_UNDEFINED, inline(f.order),
                                            (entity,)))
                    order = value
                g = self.formula(f.goal, inner)
                if g is FALSE:
                    raise _Dropped(Drop(DropCode.TARGET_FALSE, entities=(entity,)))
                found.append((order, entity, g))
        finally:
            self.active.pop()
        if not found:
            raise _Dropped(Drop(DropCode.NO_TARGETS, word))
        found.sort(key=lambda t: (t[0], t[1]))
        if f.order is not None:
            for (o1, e1, _), (o2, e2, _) in pairwise(found):
                if o1 == o2:
                    raise _Dropped(Drop(DropCode.ORDER_TIE, f"{inline(f.order)} of `{word}`",
                                        (e1, e2), _fmt(o1)))
        return GTargets(
            ordered=f.order is not None,
            targets=tuple(Target(entity=e, goal=g) for _, e, g in found),
        )


def _as_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else str(v)
