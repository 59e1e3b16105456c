"""A fast acceptor of plans in the planning abstraction: unified-planning's sequential
simulator, for the problems `problem.py` builds, at a fraction of its cost.

`Acceptor(problem)` compiles each action schema's preconditions and effects (and the
goals) of a unified-planning `Problem` once into Python closures over a state held as a
set of true ground atoms (`(fluent, object, ...)`), and steps a plan through the
grounded actions by substituting each step's parameters: no grounded action is built,
no expression walked anew per step (unified-planning's simulator grounds and simplifies
every step's action and evaluates its expressions node by node: `accept` spent most of
a certificate there). The semantics are the simulator's: a closed world (a fluent
holds where the initial state sets it or its default is true), an action applicable
where its preconditions hold, its effects' conditions read in the state before it,
`forall` effects over the objects of each variable's type, and a fluent both added and
deleted by one action added (add after delete). Anything else (numeric fluents,
increase and decrease effects, simulated effects, state invariants, durative actions,
an expression kind not listed in `_Compiler.cond`) raises `Unsupported` when the
acceptor is built, and the caller falls back to the simulator
(`certify.PlanningWorld.accept`): nothing is lost. Its verdicts equal the simulator's
on the apartment suite's plans, refused plans and random step sequences
(tests/compiler/test_acceptor.py).

See docs/architecture.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fdc.core.errors import FdcError

#: A state: the true ground atoms, each `(fluent name, object name, ...)`.
Facts = frozenset[tuple[str, ...]]
#: A binding of an action's parameters (`?name`) and quantified variables (`$name`).
Binding = dict[str, str]
Cond = Callable[[Facts, Binding], bool]
Term = Callable[[Binding], str]


class Unsupported(FdcError):
    """A construct the acceptor does not handle (use unified-planning's simulator;
    caught by `certify.accept`, never shown to a user)."""


class _Effect:
    """One compiled effect: for each binding of its `forall` variables where its
    condition holds, the atom (`fluent` over `terms`) set to `value`."""

    __slots__ = ("cond", "domains", "fluent", "keys", "terms", "value")

    def __init__(self, keys: tuple[str, ...], domains: tuple[tuple[str, ...], ...],
                 cond: Cond | None, fluent: str, terms: tuple[Term, ...],
                 value: bool) -> None:
        self.keys = keys
        self.domains = domains
        self.cond = cond
        self.fluent = fluent
        self.terms = terms
        self.value = value


class _Action:
    __slots__ = ("effects", "name", "params", "pre")

    def __init__(self, name: str, params: tuple[str, ...], pre: tuple[Cond, ...],
                 effects: tuple[_Effect, ...]) -> None:
        self.name = name
        self.params = params  # binding keys, in order
        self.pre = pre
        self.effects = effects


class _Compiler:
    """unified-planning expressions as closures (`cond`, `term`)."""

    def __init__(self, problem: Any) -> None:
        self.problem = problem
        self._objects: dict[str, tuple[str, ...]] = {}

    def objects(self, type_: Any) -> tuple[str, ...]:
        """The names of the problem's objects of a type (its subtypes included)."""
        if not type_.is_user_type():
            raise Unsupported(f"a variable of type {type_}")
        name = type_.name
        if name not in self._objects:
            self._objects[name] = tuple(o.name for o in self.problem.objects(type_))
        return self._objects[name]

    def term(self, e: Any) -> Term:
        if e.is_parameter_exp():
            key = "?" + e.parameter().name
            return lambda b: b[key]
        if e.is_variable_exp():
            key = "$" + e.variable().name
            return lambda b: b[key]
        if e.is_object_exp():
            name = e.object().name
            return lambda b: name
        raise Unsupported(f"the term {e}")

    def atom(self, e: Any) -> tuple[str, tuple[Term, ...]]:
        fluent = e.fluent()
        if not fluent.type.is_bool_type():
            raise Unsupported(f"the fluent {fluent.name} of type {fluent.type}")
        return fluent.name, tuple(self.term(a) for a in e.args)

    def cond(self, e: Any) -> Cond:
        """A Boolean expression as a closure over a state and a binding."""
        if e.is_bool_constant():
            v = e.bool_constant_value()
            return lambda s, b: v
        if e.is_fluent_exp():
            name, terms = self.atom(e)
            if not terms:
                fact = (name,)
                return lambda s, b: fact in s
            if len(terms) == 1:
                t0, = terms
                return lambda s, b: (name, t0(b)) in s
            if len(terms) == 2:
                t0, t1 = terms
                return lambda s, b: (name, t0(b), t1(b)) in s
            return lambda s, b: (name, *(t(b) for t in terms)) in s
        if e.is_and():
            parts = tuple(self.cond(a) for a in e.args)
            return lambda s, b: all(p(s, b) for p in parts)
        if e.is_or():
            parts = tuple(self.cond(a) for a in e.args)
            return lambda s, b: any(p(s, b) for p in parts)
        if e.is_not():
            body = self.cond(e.arg(0))
            return lambda s, b: not body(s, b)
        if e.is_implies():
            left, right = self.cond(e.arg(0)), self.cond(e.arg(1))
            return lambda s, b: not left(s, b) or right(s, b)
        if e.is_iff():
            left, right = self.cond(e.arg(0)), self.cond(e.arg(1))
            return lambda s, b: left(s, b) == right(s, b)
        if e.is_equals():
            x, y = e.arg(0), e.arg(1)
            if not (x.type.is_user_type() and y.type.is_user_type()):
                raise Unsupported(f"the equality {e}")
            tx, ty = self.term(x), self.term(y)
            return lambda s, b: tx(b) == ty(b)
        if e.is_exists() or e.is_forall():
            keys = tuple("$" + v.name for v in e.variables())
            domains = tuple(self.objects(v.type) for v in e.variables())
            body = self.cond(e.arg(0))
            want = e.is_exists()  # exists: some binding holds; forall: none fails

            def quantified(s: Facts, b: Binding) -> bool:
                saved = [b.get(k) for k in keys]
                try:
                    for combo in itertools.product(*domains):
                        b.update(zip(keys, combo, strict=True))
                        if body(s, b) is want:
                            return want
                    return not want
                finally:
                    for k, old in zip(keys, saved, strict=True):
                        if old is None:
                            b.pop(k, None)
                        else:
                            b[k] = old
            return quantified
        raise Unsupported(f"the expression {e} ({e.node_type})")

    def effect(self, eff: Any) -> _Effect:
        if not eff.is_assignment():
            raise Unsupported(f"the effect {eff} (not an assignment)")
        if not eff.fluent.is_fluent_exp():
            raise Unsupported(f"the effect {eff}")
        value = eff.value
        if not value.is_bool_constant():
            raise Unsupported(f"the effect {eff} (its value is not a constant)")
        fluent, terms = self.atom(eff.fluent)
        cond = None if eff.condition.is_true() else self.cond(eff.condition)
        keys = tuple("$" + v.name for v in eff.forall)
        domains = tuple(self.objects(v.type) for v in eff.forall)
        return _Effect(keys, domains, cond, fluent, terms, value.bool_constant_value())


class Acceptor:
    """A unified-planning `Problem`'s plans stepped over sets of facts: `initial`,
    `applicable`, `apply`, `is_goal`, `holds`, each as the sequential simulator answers.
    Raises `Unsupported` on a problem it cannot step exactly."""

    def __init__(self, problem: Any) -> None:
        from unified_planning.model import InstantaneousAction

        if problem.state_invariants:
            raise Unsupported("state invariants")
        c = _Compiler(problem)
        self._actions: dict[str, _Action] = {}
        for a in problem.actions:
            if not isinstance(a, InstantaneousAction):
                raise Unsupported(f"the action {a.name} (not instantaneous)")
            if a.simulated_effect is not None:
                raise Unsupported(f"the simulated effect of {a.name}")
            for p in a.parameters:
                if not p.type.is_user_type():
                    raise Unsupported(f"the parameter {p.name} of {a.name}")
            self._actions[a.name] = _Action(
                a.name, tuple("?" + p.name for p in a.parameters),
                tuple(c.cond(p) for p in a.preconditions),
                tuple(c.effect(e) for e in a.effects))
        self._goals = tuple(c.cond(g) for g in problem.goals)
        self._initial = self._initial_facts(problem, c)

    @staticmethod
    def _initial_facts(problem: Any, c: _Compiler) -> Facts:
        facts: set[tuple[str, ...]] = set()
        explicit: dict[tuple[str, ...], bool] = {}
        for fnode, value in problem.explicit_initial_values.items():
            if not fnode.is_fluent_exp() or not value.is_bool_constant() or \
                    not all(a.is_object_exp() for a in fnode.args):
                raise Unsupported(f"the initial value {fnode} := {value}")
            explicit[(fnode.fluent().name, *(a.object().name for a in fnode.args))] = \
                value.bool_constant_value()
        defaults = problem.fluents_defaults
        for f in problem.fluents:
            if not f.type.is_bool_type():
                raise Unsupported(f"the fluent {f.name} of type {f.type}")
            default = defaults.get(f)
            if default is None:
                raise Unsupported(f"the fluent {f.name} without a default value")
            if default.bool_constant_value():  # every grounding, but those set false
                for combo in itertools.product(*(c.objects(p.type) for p in f.signature)):
                    facts.add((f.name, *combo))
        for fact, value in explicit.items():
            if value:
                facts.add(fact)
            else:
                facts.discard(fact)
        return frozenset(facts)

    def initial(self) -> Facts:
        return self._initial

    def _bind(self, action: str, args: Sequence[str]) -> tuple[_Action, Binding]:
        a = self._actions[action]
        if len(args) != len(a.params):
            raise ValueError(f"{action} takes {len(a.params)} argument(s), not {len(args)}")
        return a, dict(zip(a.params, args, strict=True))

    def applicable(self, state: Facts, action: str, args: Sequence[str] = ()) -> bool:
        a, b = self._bind(action, args)
        return all(p(state, b) for p in a.pre)

    def apply(self, state: Facts, action: str, args: Sequence[str] = ()) -> Facts:
        """The state after the action (its applicability not asked: `applicable`)."""
        a, b = self._bind(action, args)
        adds: set[tuple[str, ...]] = set()
        dels: set[tuple[str, ...]] = set()
        for e in a.effects:
            out = adds if e.value else dels
            cond, fluent, terms = e.cond, e.fluent, e.terms
            for combo in itertools.product(*e.domains) if e.keys else ((),):
                if combo:
                    b.update(zip(e.keys, combo, strict=True))
                if cond is None or cond(state, b):
                    out.add((fluent, *(t(b) for t in terms)))
        if not adds and not dels:
            return state
        return (state - dels) | adds  # add after delete, as the simulator

    def is_goal(self, state: Facts) -> bool:
        b: Binding = {}
        return all(g(state, b) for g in self._goals)

    def holds(self, state: Facts, fluent: str, args: Iterable[str] = ()) -> bool:
        return (fluent, *args) in state
