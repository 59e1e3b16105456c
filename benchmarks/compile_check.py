"""`benchmarks/compile.py --check`: fdc's ground goals against BDDL's on small random
goals and states, through the translation of compile_grounding.py (whose docstring
says how the two goal languages' meanings differ and are matched).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from compile_grounding import (
    JUNCTIONS,
    QUANTIFIERS,
    Expr,
    Scene,
    bddl_backend,
    bddl_compile,
    bddl_problem,
    fdc_domain,
    fdc_goal,
    fdc_ground,
    fdc_template,
    to_bddl,
)
from rich.console import Console

# ---------------------------------------------------------------------------- --check


def random_goal(
    rng: random.Random,
    categories: Sequence[str],
    depth: int = 0,
    scope: tuple[tuple[str, str], ...] = (),
) -> Expr:
    """A random BDDL goal over `categories`: quantifiers down to depth 3, atoms over the
    variables in scope; the two sides of a pair quantifier are different categories."""
    if depth == 0 or (depth < 3 and rng.random() < 0.45):
        v = f"?v{depth}"
        kind = rng.choice(["forall", "exists", "forn", "forpairs", "fornpairs"])
        if kind in ("forpairs", "fornpairs"):
            (c1, c2) = rng.sample(list(categories), 2)
            vs = ((v + "a", c1), (v + "b", c2))
            body = random_goal(rng, categories, depth + 1, (*scope, *vs))
            if kind == "forpairs":
                return ("forpairs", *vs, body)
            return ("fornpairs", rng.randint(1, 3), *vs, body)
        c = rng.choice(categories)
        body = random_goal(rng, categories, depth + 1, (*scope, (v, c)))
        if kind == "forn":
            return ("forn", rng.randint(0, 3), (v, c), body)
        return (kind, (v, c), body)
    atom = random_atom(rng, scope)
    roll = rng.random()
    if roll < 0.15:
        return ("not", atom)
    if roll < 0.35 and depth < 3:  # an atom beside a deeper formula
        other = random_goal(rng, categories, depth + 1, scope)
        return (rng.choice(["and", "or", "imply"]), atom, other)
    return atom


def random_atom(rng: random.Random, scope: Sequence[tuple[str, str]]) -> Expr:
    if len(scope) >= 2 and rng.random() < 0.7:
        (x, _), (y, _) = rng.sample(list(scope), 2)
        return ("around", x, y)
    return ("holding", rng.choice(list(scope))[0])


def ground_atoms(e: Expr, scene: Scene, env: dict[str, str] | None = None) -> set[tuple[str, ...]]:
    """Every ground atom the goal mentions under some binding: the states' atoms."""
    env = env or {}
    head = e[0]
    if head in QUANTIFIERS:
        bindings = [env]
        for v, c in (x for x in e[1:-1] if isinstance(x, tuple)):
            objs = [o for o, oc in scene.objects() if oc == c]
            bindings = [{**b, v: o} for b in bindings for o in objs]
        return set().union(*(ground_atoms(e[-1], scene, b) for b in bindings))
    if head in JUNCTIONS:
        return set().union(*(ground_atoms(p, scene, env) for p in e[1:]))
    return {(head, *(env[a] for a in e[1:]))}


def options_bound(e: Expr, counts: dict[str, int]) -> float:
    """An upper bound on the number of BDDL's untruncated ground options of `e`."""
    head = e[0]
    if head in QUANTIFIERS:
        inner = options_bound(e[-1], counts)
        if head in ("forall", "exists"):
            k = counts[e[1][1]]
            return float(inner**k if head == "forall" else k * inner)
        if head == "forn":
            k = counts[e[2][1]]
            return float(inner**k * math.comb(k, int(e[1])))
        m, n = counts[e[-3][1]], counts[e[-2][1]]
        r = min(m, n) if head == "forpairs" else int(e[1])
        return float(math.perm(m, r) * math.perm(n, r) * inner**r)
    if head == "not":
        return 1.0 if e[1][0] not in QUANTIFIERS | JUNCTIONS else math.inf
    if head == "and":
        return math.prod(options_bound(p, counts) for p in e[1:])
    if head == "or":
        return math.fsum(options_bound(p, counts) for p in e[1:])
    if head == "imply":
        return options_bound(("not", e[1]), counts) + options_bound(e[2], counts)
    return 1.0


@contextmanager
def untruncated() -> Iterator[None]:
    """BDDL's ground options without its caps (20 options, 10 permutations)."""
    import bddl.utils as bu

    saved = (bu.truncated_product.__kwdefaults__, bu.truncated_permutations.__defaults__)
    bu.truncated_product.__kwdefaults__ = {"max_options": 10**9}
    bu.truncated_permutations.__defaults__ = (None, 10**9)
    try:
        yield
    finally:
        bu.truncated_product.__kwdefaults__, bu.truncated_permutations.__defaults__ = saved


def evaluate(goal: Any, state: set[tuple[str, ...]]) -> bool:
    """A ground fdc goal's truth in a state (the set of true atoms), by fdc's verifier
    (a `forn` grounds to a count)."""
    from fdc.predicates import verify

    return verify.evaluate(goal, 0, lambda a, _i: (a.predicate, *a.args) in state)


@dataclass
class CheckReport:
    instances: int = 0
    states: int = 0
    option_instances: int = 0
    option_states: int = 0
    mismatches: list[str] = field(default_factory=list)
    #: states where BDDL's evaluate() and its own (untruncated) ground options disagree
    bddl_disagrees: int = 0
    #: goals whose ground options BDDL fails to build (a part without any option)
    options_failed: int = 0

    @property
    def ok(self) -> bool:
        return not self.mismatches


CHECK_CATEGORIES = ("apple", "pear", "plum", "peach")
OPTIONS_BOUND = 64  # above it BDDL's untruncated options take too long to enumerate


def check_instance(
    conjuncts: Sequence[Expr],
    scene: Scene,
    states: Sequence[set[tuple[str, ...]]],
    report: CheckReport,
) -> None:
    """fdc against BDDL on one goal, scene and list of states; findings go to `report`."""
    from bddl.activity import evaluate_goal_conditions
    from bddl.condition_evaluation import evaluate_state, get_ground_state_options

    true_atoms: set[tuple[str, ...]] = set()
    backend = bddl_backend(true_atoms)
    problem = bddl_problem(scene, conjuncts)
    text = " ".join(to_bddl(c) for c in conjuncts)
    _, _, bddl_goal = bddl_compile(problem, backend, options=False)
    domain = fdc_domain(scene)
    fdc = fdc_ground(
        domain, fdc_template("check", fdc_goal(conjuncts, scene.counts)), scene, max_atoms=10**6
    ).goal
    with_options = all(
        options_bound(c, scene.counts) <= OPTIONS_BOUND and options_complete(c, scene.counts)
        for c in conjuncts
    )
    options: list[Any] = []
    fdc_options = None
    if with_options:
        try:
            with untruncated():
                conds, scope, compiled = bddl_compile(problem, backend, options=True)
                options = get_ground_state_options(
                    compiled, backend, scope=scope, object_map=conds.parsed_objects
                )
        except IndexError:  # BDDL's product of options fails when a factor has none
            report.options_failed += 1
            with_options = False
    if with_options:
        report.option_instances += 1
        template = fdc_template("check", fdc_goal(conjuncts, scene.counts, "options"))
        fdc_options = fdc_ground(domain, template, scene, max_atoms=10**6).goal
    report.instances += 1
    for state in states:
        true_atoms.clear()
        true_atoms.update(state)
        bddl_says = evaluate_goal_conditions(bddl_goal)[0]
        fdc_says = fdc is not None and evaluate(fdc, state)
        report.states += 1
        if bddl_says != fdc_says:
            report.mismatches.append(
                f"evaluate: {text} over {scene.counts}: BDDL {bddl_says}, "
                f"fdc {fdc_says}, true atoms {sorted(state)}"
            )
        if with_options:
            report.option_states += 1
            by_options = any(evaluate_state(o)[0] for o in options)
            fdc_by_options = fdc_options is not None and evaluate(fdc_options, state)
            report.bddl_disagrees += by_options != bddl_says
            if by_options != fdc_by_options:
                report.mismatches.append(
                    f"options: {text} over {scene.counts}: BDDL {by_options}, "
                    f"fdc {fdc_by_options}, true atoms {sorted(state)}"
                )


def options_complete(e: Expr, counts: dict[str, int]) -> bool:
    """Whether BDDL builds every ground option of `e` (its caps aside).

    `ForNPairs.get_ground_options` loops over two generators of permutations, one inside
    the other: the inner one is spent after the first choice of firsts, so only matchings
    of the first N firsts are enumerated, which is complete only when N is all of them
    (and N > min(|A|, |B|) fails an assertion). `ForPairs` has the same loop, but there
    the first choice already reaches every matching.
    """
    return not any(
        x[0] == "fornpairs" and not int(x[1]) == counts[x[-3][1]] <= counts[x[-2][1]]
        for x in _subexpressions(e)
    )


def _subexpressions(e: Expr) -> Iterator[Expr]:
    yield e
    for x in e[1:]:
        if isinstance(x, tuple) and x and isinstance(x[0], str) and not x[0].startswith("?"):
            yield from _subexpressions(x)


def check(instances: int, seed: int, states_each: int = 8) -> CheckReport:
    """fdc's ground goals against BDDL's evaluation on random small goals and states."""
    rng = random.Random(seed)
    report = CheckReport()
    for _ in range(instances):
        cats = CHECK_CATEGORIES[: rng.randint(2, 4)]
        scene = Scene({c: rng.randint(1, 3) for c in cats}, dict.fromkeys(cats, "movable"))
        conjuncts = [random_goal(rng, cats) for _ in range(rng.choice([1, 1, 2]))]
        universe = sorted(set().union(*(ground_atoms(c, scene) for c in conjuncts)))
        states = [set(), set(universe)]
        for _ in range(states_each):
            p = rng.choice([0.2, 0.5, 0.8, 0.95])
            states.append({a for a in universe if rng.random() < p})
        check_instance(conjuncts, scene, states, report)
    return report


def matching_is_not_covering() -> dict[str, bool]:
    """The smallest case where BDDL's `forpairs` and fdc's part: three apples and three
    pears; apple 1 by every pear, apples 2 and 3 by pear 1 only. Every apple has a pear
    and every pear an apple (BDDL: true), but apples 2 and 3 cannot both have their own."""
    from bddl.activity import evaluate_goal_conditions

    scene = Scene({"apple": 3, "pear": 3}, {"apple": "movable", "pear": "movable"})
    goal: Expr = ("forpairs", ("?a", "apple"), ("?p", "pear"), ("around", "?a", "?p"))
    state = {("around", "apple_1", f"pear_{j}") for j in (1, 2, 3)}
    state |= {("around", "apple_2", "pear_1"), ("around", "apple_3", "pear_1")}
    _, _, compiled = bddl_compile(bddl_problem(scene, [goal]), bddl_backend(state), False)
    domain = fdc_domain(scene)
    covering = fdc_ground(domain, fdc_template("c", fdc_goal([goal], scene.counts)), scene, 10**6)
    matching = fdc_ground(domain, fdc_template("m", to_bddl(goal)), scene, 10**6)
    return {
        "bddl forpairs": bool(evaluate_goal_conditions(compiled)[0]),
        "fdc covering form": covering.goal is not None and evaluate(covering.goal, state),
        "fdc forpairs": matching.goal is not None and evaluate(matching.goal, state),
    }


def run_check(args: argparse.Namespace, console: Console) -> bool:
    start = time.perf_counter()
    report = check(args.instances, args.seed)
    seconds = time.perf_counter() - start
    console.print(
        f"--check: {report.instances} random goals, {report.states} states: fdc's ground goal "
        f"against BDDL's evaluate(); {report.option_instances} goals, {report.option_states} "
        f"states against BDDL's untruncated ground options ({seconds:.1f} s)"
    )
    console.print(
        f"  BDDL's evaluate() and its own ground options disagree in "
        f"{report.bddl_disagrees} of those states (forn: exactly vs at least N; "
        "forpairs: covering vs matching); "
        f"BDDL could not build the options of {report.options_failed} goals (IndexError "
        "in truncated_product when a part has no option)"
    )
    console.print(f"  the smallest such case: {matching_is_not_covering()}", markup=False)
    for line in report.mismatches[:10]:
        console.print(f"  [red]mismatch[/] {line}", markup=False)
    console.print(
        "[green]fdc agrees with BDDL" if report.ok else f"[red]{len(report.mismatches)} mismatches"
    )
    return report.ok
