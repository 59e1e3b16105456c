"""Guards of the ground pass (`fdc.compiler.ground`): a quantifier's domain narrowed by
its leading compile-time atoms, looked up in their tables (a join instead of a pass
over every entity). docs/architecture.md, "The bind pass".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import ast as A

if TYPE_CHECKING:
    from .ground import Env, _Grounder


# (predicate, key places, the variable's places, free slots) -> key values -> entities
_FreeSlots = tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]
GuardIndexes = dict[tuple[str, tuple[int, ...], tuple[int, ...], _FreeSlots],
                    dict[tuple[str, ...], frozenset[str]]]


#: A guard of a quantifier: (index of the variable it narrows, the compile-time atoms
#: of which one must hold, the variable, the atoms' variables an inner `exists` binds).
_Guard = tuple[int, tuple[A.Atom, ...], str, tuple[A.TypedName, ...]]


def _never_drops(f: A.Node) -> bool:
    """A conjunct that grounds without ever dropping the binding: a negated atom or a
    comparison of function values (only arg-extremes and multi-goal forms drop)."""
    if isinstance(f, A.Not):
        return type(f.body) is A.Atom
    return isinstance(f, A.Comparison) and not any(
        isinstance(n, A.Extreme) for n in f.walk())


def conjuncts(f: A.Node | None) -> list[A.Node]:
    """The conjuncts of a formula, nested `and`s flattened, in order."""
    if f is None or isinstance(f, A.Empty):
        return []
    if isinstance(f, A.And):
        return [c for p in f.parts for c in conjuncts(p)]
    return [f]


def guarded(grounder: _Grounder, f: A.Node, variables: Sequence[A.TypedName], body: A.Node, env: Env
            ) -> list[Sequence[str]]:
    """The variables' domains, narrowed by the body's guards: positive compile-time
    atoms an entity must satisfy for its instance to count at all (leading atom
    conjuncts of an `exists` or counting body, of a `forall`'s `imply` condition).
    An entity that fails a guard grounds its instance to the neutral constant
    (false in an `or` or a count, true in an `and`), which the junction drops:
    skipping it changes nothing but the time, which becomes a lookup in the guard's
    table instead of a pass over every entity of the type (a join)."""
    domains: list[Sequence[str]] = [grounder.entities(v.types) for v in variables]
    for i, alternatives, var, free in guard_plan(grounder, f, variables, body):
        allowed: frozenset[str] | None = frozenset()
        for g in alternatives:
            values = guard_values(grounder, g, var, env, free)
            if values is None:
                allowed = None
                break
            allowed = allowed | values if allowed else values
        if allowed is not None:
            domains[i] = narrowed(grounder, domains[i], allowed)
    return domains


def guard_plan(grounder: _Grounder, f: A.Node, variables: Sequence[A.TypedName], body: A.Node
               ) -> list[_Guard]:
    """The guards of quantifier `f` (memoised per node): (index of the variable it
    narrows, the atom, the variable, the atom's variables an inner `exists` binds).
    A guard is a compile-time atom conjunct, or an `or` of such atoms over the same
    variable (the union of what each lets through), or an `exists` conjunct whose
    body is one of these: `(exists (?y - movable) (placed-on ?y ?x))` lets through
    the ?x with some ?y, the projection of the atom's table."""
    found = grounder._plans.get(id(f))
    if found is not None and found[0] is f:
        return found[1]
    cond: A.Node | None
    if isinstance(f, A.Forall):
        cond = body.condition if isinstance(body, A.Imply) else None
    elif isinstance(f, A.Exists | A.Count):
        cond = body
    elif isinstance(f, A.Extreme | A.Targets):
        cond = f.condition
    else:
        cond = None
    plan: list[_Guard] = []
    index = {v.name: k for k, v in enumerate(variables)}
    for c in conjuncts(cond):
        g: A.Node = c
        free: tuple[A.TypedName, ...] = ()
        if type(c) is A.Exists:
            g, free = c.body, tuple(c.variables)
        parts = list(g.parts) if type(g) is A.Or else [g]
        alternatives = tuple(a for a in parts if type(a) is A.Atom)
        if not parts or len(alternatives) != len(parts):
            if _never_drops(c):
                continue
            break  # a form before a guard may drop the binding (a tie): keep it first
        if any(a.predicate == "=" or grounder.is_fluent(a.predicate) for a in alternatives):
            continue
        outer = set(index) - {v.name for v in free}
        mentioned = [{x.name for x in a.args if type(x) is A.Variable} & outer
                     for a in alternatives]
        if len(mentioned[0]) == 1 and all(m == mentioned[0] for m in mentioned):
            (var,) = mentioned[0]
            plan.append((index[var], alternatives, var, free))
    grounder._plans[id(f)] = (f, plan)
    return plan


def narrowed(grounder: _Grounder, domain: Sequence[str], allowed: frozenset[str]) -> Sequence[str]:
    """`domain`'s entities in `allowed`, in `domain`'s order (memoised: the same
    guard narrows the same domain once per inner quantifier otherwise)."""
    key = (id(domain), id(allowed))
    found = grounder._narrowed.get(key)
    if found is None:
        if len(allowed) * 8 < len(domain):
            held = grounder._ranks.get(id(domain))
            if held is None or held[0] is not domain:  # shared: the same list only
                held = grounder._ranks[id(domain)] = (domain, {e: k for k, e in
                                                           enumerate(domain)})
            rank = held[1]
            found = sorted((e for e in allowed if e in rank), key=rank.__getitem__)
        else:
            found = [e for e in domain if e in allowed]
        grounder._narrowed[key] = found
        grounder._pinned.extend((domain, allowed))  # their ids stay theirs while memoised
    return found


def guard_values(grounder: _Grounder, g: A.Atom, var: str, env: Env,
                 free: Sequence[A.TypedName] = ()) -> frozenset[str] | None:
    """The entities `var` may take for the compile-time atom `g` to hold (the other
    arguments bound, constant, or `free`: bound by an inner `exists`, any entity of
    their types), from the atom's table; None: not a usable guard."""
    key_pos: list[int] = []
    key_val: list[str] = []
    var_pos: list[int] = []
    free_types = {v.name: tuple(v.types) for v in free}
    free_pos: list[tuple[int, str]] = []
    for i, a in enumerate(g.args):
        if type(a) is A.Variable and a.name in free_types:
            free_pos.append((i, a.name))
        elif type(a) is A.Variable and a.name == var:
            var_pos.append(i)
        elif type(a) is A.Variable:
            if a.name not in env:
                return None
            key_pos.append(i)
            key_val.append(env[a.name])
        elif type(a) is A.Constant:
            key_pos.append(i)
            key_val.append(a.name)
        else:
            return None
    if not var_pos:
        return None
    # Free variables: the row's value at each of a variable's places is one entity of
    # its types.
    slots = tuple((tuple(i for i, n in free_pos if n == name), free_types[name])
                  for name in dict.fromkeys(n for _, n in free_pos))
    pattern = (g.predicate, tuple(key_pos), tuple(var_pos), slots)
    index = grounder._guards.get(pattern)
    if index is None:  # built once per facts: every binding of a template asks again
        typed = [(places, frozenset(grounder.entities(types))) for places, types in slots]
        rows: dict[tuple[str, ...], set[str]] = {}
        for row in grounder.facts.true_atoms(g.predicate):
            if len(row) != len(g.args) or len({row[i] for i in var_pos}) != 1:
                continue
            if any(len({row[i] for i in places}) != 1 or row[places[0]] not in ok
                   for places, ok in typed):
                continue
            rows.setdefault(tuple(row[i] for i in key_pos), set()).add(row[var_pos[0]])
        index = grounder._guards[pattern] = {k: frozenset(v) for k, v in rows.items()}
    return index.get(tuple(key_val), frozenset())
