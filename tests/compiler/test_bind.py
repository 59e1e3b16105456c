"""The bind pass: joins, pruning with `ground`, distinctness, domains, determinism,
sampling, limits, and a property test against brute force over the cartesian product."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdc.compiler import ast as A
from fdc.compiler.bind import BindError, BindLimitError, BindResult, bind
from fdc.compiler.facts import Facts, TableFacts
from fdc.compiler.ground import ground
from fdc.compiler.parse import parse_text
from fdc.predicates.goal import TRUE

FACTS = TableFacts(
    types={
        "m1": ("mug",),
        "m2": ("mug",),
        "m3": ("mug",),
        "b1": ("book",),
        "b2": ("book",),
        "s1": ("surface",),
        "s2": ("surface",),
        "s3": ("surface",),
        "r1": ("room",),
        "r2": ("room",),
    },
    parents={"mug": ("movable",), "book": ("movable",)},
    kinds={
        "interacted": "history",
        "is-red": "static",
        "on-top": "static",
        "in-room": "static",
        "near": "static",
        "on": "fluent",
    },
    atoms={
        "interacted": [("m1",), ("m2",), ("b1",)],
        "is-red": [("m1",), ("b2",)],
        "on-top": [("m1", "s1"), ("m2", "s1"), ("m3", "s2"), ("b1", "s3"), ("b2", "s2")],
        "in-room": [("s1", "r1"), ("s2", "r2"), ("s3", "r1")],
        "near": [("m1", "m2"), ("m2", "m1"), ("m1", "m1"), ("b1", "m3")],
    },
    values={
        "distance": {("m1",): 1.5, ("m2",): 4.0, ("m3",): 2.0},
        "size": {("m1",): 3, ("m2",): 3, ("m3",): 1},
    },
)


def template(params: str, constraints: str | None, name: str = "t") -> A.Template:
    cons = f"(:constraints {constraints}) " if constraints is not None else ""
    src = (
        f"(define (template {name}) (:domain d) (:parameters {params}) {cons}"
        '(:goal (and)) (:instruction "x"))'
    )
    result = parse_text(src)
    assert result.diagnostics == [], result.diagnostics
    assert result.unit is not None
    node = result.unit.definitions[0]
    assert isinstance(node, A.Template)
    return node


def rows(result: BindResult) -> list[tuple[str, ...]]:
    return [tuple(b[p] for p in result.parameters) for b in result.bindings]


def brute(t: A.Template, facts: Facts) -> list[tuple[str, ...]]:
    """Every distinct-entity tuple of the cartesian product whose constraints ground to TRUE."""
    domains = [facts.entities(p.types) for p in t.parameters]
    names = [p.name for p in t.parameters]
    out = []
    for combo in itertools.product(*domains):
        if len(set(combo)) != len(combo):
            continue
        if t.constraints is None:
            out.append(combo)
            continue
        result = ground(t.constraints, dict(zip(names, combo, strict=True)), facts)
        if result.goal == TRUE:
            out.append(combo)
    return sorted(out)


def b(params: str, constraints: str | None, facts: Facts = FACTS, **kw: int) -> BindResult:
    return bind(template(params, constraints), facts, **kw)


# ---------------------------------------------------------------- joins


def test_single_atom_join() -> None:
    r = b("?o - mug", "(interacted ?o)")
    assert rows(r) == [("m1",), ("m2",)]
    assert r.bindings == ({"?o": "m1"}, {"?o": "m2"})
    assert r.total == 2 and r.parameters == ("?o",)


def test_join_is_typed_by_the_parameters() -> None:
    # b1 is interacted but is no mug; movable covers both by the hierarchy
    assert rows(b("?o - mug", "(interacted ?o)")) == [("m1",), ("m2",)]
    assert rows(b("?o - movable", "(interacted ?o)")) == [("b1",), ("m1",), ("m2",)]
    assert rows(b("?o", "(interacted ?o)")) == [("b1",), ("m1",), ("m2",)]


def test_two_atom_join() -> None:
    r = b("?o - mug ?s - surface", "(and (interacted ?o) (on-top ?o ?s))")
    assert rows(r) == [("m1", "s1"), ("m2", "s1")]


def test_three_atom_join_chain() -> None:
    t = template(
        "?o - movable ?s - surface ?r - room",
        "(and (on-top ?o ?s) (in-room ?s ?r) (is-red ?o))",
    )
    r = bind(t, FACTS)
    assert rows(r) == [("b2", "s2", "r2"), ("m1", "s1", "r1")]
    assert rows(r) == brute(t, FACTS)


def test_join_with_constants_and_nested_and() -> None:
    r = b("?o - movable", "(and (and (on-top ?o s2)) (in-room s2 r2))")
    assert rows(r) == [("b2",), ("m3",)]
    assert rows(b("?o - movable", "(and (on-top ?o s2) (in-room s2 r1))")) == []


def test_repeated_variable_in_an_atom() -> None:
    assert rows(b("?o - mug", "(near ?o ?o)")) == [("m1",)]


def test_join_does_not_enumerate_the_cartesian_product() -> None:
    many = TableFacts(
        types={f"e{i:03d}": ("thing",) for i in range(200)},
        kinds={"link": "static"},
        atoms={"link": [("e000", "e001"), ("e001", "e002"), ("e002", "e003")]},
    )
    t = template("?a ?b ?c - thing", "(and (link ?a ?b) (link ?b ?c))")
    r = bind(t, many, limit=50)  # the product has 8 million tuples
    assert rows(r) == [("e000", "e001", "e002"), ("e001", "e002", "e003")]
    assert r.explored <= 10


def test_most_selective_join_goes_first() -> None:
    ents = [f"e{i:02d}" for i in range(40)]
    facts = TableFacts(
        types={e: ("thing",) for e in ents},
        kinds={"big": "static", "tiny": "static"},
        atoms={"big": [(x, y) for x in ents for y in ents if x != y], "tiny": [("e07",)]},
    )
    # written big-first, joined tiny-first: 1 + 39 partial bindings, not 1560
    r = bind(template("?a ?b - thing", "(and (big ?a ?b) (tiny ?a))"), facts, limit=100)
    assert r.total == 39 and r.explored == 40
    assert rows(r)[0] == ("e07", "e00")


# ---------------------------------------------------------------- other constraints


def test_negated_constraint() -> None:
    r = b("?o - mug ?s - surface", "(and (on-top ?o ?s) (not (interacted ?o)))")
    assert rows(r) == [("m3", "s2")]
    assert any("not (interacted ?o)" in k.message for k in r.dropped)


def test_disjunctive_constraint() -> None:
    r = b("?o - movable", "(or (is-red ?o) (interacted ?o))")
    assert rows(r) == [("b1",), ("b2",), ("m1",), ("m2",)]


def test_argmax_and_argmin_via_ground() -> None:
    assert rows(b("?o - mug", "(argmax ?o (?x - mug) (distance ?x))")) == [("m2",)]
    assert rows(b("?o - mug", "(argmin ?o (?x - mug) (distance ?x))")) == [("m1",)]
    r = b("?o - mug ?s - surface", "(and (on-top ?o ?s) (argmin ?o (?x - mug) (distance ?x)))")
    assert rows(r) == [("m1", "s1")]


def test_argmax_tie_is_reported_not_broken() -> None:
    r = b("?o - mug", "(argmax ?o (?x - mug) (size ?x))")
    assert rows(r) == []
    assert any(k.message.startswith("tie between `m1` and `m2`") for k in r.dropped)


def test_comparison_exists_and_count() -> None:
    assert rows(b("?o - mug", "(< (distance ?o) 3)")) == [("m1",), ("m3",)]
    assert rows(b("?s - surface", "(exists (?o - mug) (on-top ?o ?s))")) == [("s1",), ("s2",)]
    assert rows(b("?s - surface", "(at-least 2 (?o - movable) (on-top ?o ?s))")) == [
        ("s1",),
        ("s2",),
    ]


def test_equality_constraint() -> None:
    assert rows(b("?o - mug", "(= ?o m2)")) == [("m2",)]
    assert rows(b("?o ?p - mug", "(= ?o ?p)")) == []  # distinct parameters


def test_fluent_constraint_is_an_error() -> None:
    with pytest.raises(BindError, match=r"template `t`.*fluent"):
        b("?o - mug ?s - surface", "(on ?o ?s)")


def test_constraint_over_no_parameter() -> None:
    assert rows(b("?o - mug", "(and (is-red m1) (interacted ?o))")) == [("m1",), ("m2",)]
    assert rows(b("?o - mug", "(and (is-red m3) (interacted ?o))")) == []


# ---------------------------------------------------------------- distinctness and domains


def test_parameters_bind_distinct_entities() -> None:
    r = b("?a ?b - mug", "(near ?a ?b)")
    assert rows(r) == [("m1", "m2"), ("m2", "m1")]  # (near m1 m1) needs ?a = ?b
    assert rows(b("?a ?b - mug", None)) == [
        (x, y) for x in ("m1", "m2", "m3") for y in ("m1", "m2", "m3") if x != y
    ]


def test_distinct_across_join_and_unconstrained_parameters() -> None:
    r = b("?a - mug ?b - mug", "(interacted ?a)")
    assert rows(r) == [("m1", "m2"), ("m1", "m3"), ("m2", "m1"), ("m2", "m3")]


def test_unconstrained_parameters_range_over_their_type() -> None:
    r = b("?o - mug ?r - room", "(is-red ?o)")
    assert rows(r) == [("m1", "r1"), ("m1", "r2")]
    assert rows(b("?r - room", None)) == [("r1",), ("r2",)]


def test_no_parameters() -> None:
    assert b("", None).bindings == ({},)
    assert b("", "(is-red m1)").bindings == ({},)
    assert b("", "(is-red m2)").bindings == ()


def test_empty_domains() -> None:
    assert rows(b("?x - sofa", None)) == []
    assert rows(b("?x - sofa ?o - mug", "(interacted ?o)")) == []
    assert rows(b("?x - sofa", "(interacted ?x)")) == []
    assert rows(b("?o - mug", "(argmax ?o (?x - sofa) (distance ?x))")) == []
    empty = TableFacts(types={}, kinds={"p": "static"})
    for params, cons in [("?a", None), ("?a ?b", "(p ?a ?b)"), ("?a", "(not (p ?a))")]:
        r = bind(template(params, cons), empty)
        assert r.bindings == () and r.total == 0
    assert bind(template("?a", "(p ?a)"), empty, max_bindings=3).bindings == ()


def test_empty_table() -> None:
    facts = TableFacts(types={"a": ("t",)}, kinds={"p": "static"})
    assert rows(bind(template("?x - t", "(p ?x)"), facts)) == []


# ---------------------------------------------------------------- determinism and sampling


def test_order_is_lexicographic_over_declared_parameters() -> None:
    # ?s is declared first: sorted by surface, then by object
    r = b("?s - surface ?o - movable", "(on-top ?o ?s)")
    assert rows(r) == sorted(rows(r))
    assert rows(r)[0] == ("s1", "m1")


def test_deterministic() -> None:
    t = template("?o - movable ?s - surface ?r - room", "(and (on-top ?o ?s) (in-room ?s ?r))")
    first = bind(t, FACTS)
    for _ in range(3):
        assert bind(t, FACTS) == first


def _big() -> tuple[A.Template, TableFacts]:
    facts = TableFacts(types={f"e{i:02d}": ("t",) for i in range(10)})
    return template("?a ?b - t", None), facts  # 90 bindings


def test_sampling_is_reproducible_sorted_and_a_subset() -> None:
    t, facts = _big()
    full = rows(bind(t, facts))
    s1 = bind(t, facts, max_bindings=7, seed=3)
    assert s1 == bind(t, facts, max_bindings=7, seed=3)
    assert s1.total == 90 and len(s1.bindings) == 7
    assert rows(s1) == sorted(rows(s1)) and set(rows(s1)) <= set(full)
    assert rows(bind(t, facts, max_bindings=7, seed=4)) != rows(s1)
    assert bind(t, facts, max_bindings=0).bindings == ()


def test_sampling_more_than_the_set_returns_everything() -> None:
    t, facts = _big()
    assert rows(bind(t, facts, max_bindings=1000)) == rows(bind(t, facts))
    assert rows(bind(t, facts, max_bindings=90)) == rows(bind(t, facts))


def test_sampling_is_uniform_ish() -> None:
    t, facts = _big()
    counts: Counter[tuple[str, ...]] = Counter()
    trials = 600
    for seed in range(trials):
        counts.update(rows(bind(t, facts, max_bindings=9, seed=seed)))
    expected = trials * 9 / 90  # 60 per binding
    assert len(counts) == 90
    assert all(expected * 0.4 < c < expected * 1.6 for c in counts.values())


def test_negative_sample_size_is_an_error() -> None:
    with pytest.raises(ValueError):
        b("?o - mug", None, max_bindings=-1)


# ---------------------------------------------------------------- limits


def test_limit_names_the_template() -> None:
    t = template("?a ?b - t", None, name="too-big")
    _, facts = _big()
    with pytest.raises(BindLimitError, match="template `too-big`") as err:
        bind(t, facts, limit=20)
    assert err.value.template == "too-big" and err.value.limit == 20
    assert bind(t, facts, limit=100).total == 90


def test_every_binding_wanted_checks_the_product_before_searching() -> None:
    """Eight parameters over every entity: the product of the domains is counted before
    any binding is built, and the limit stops it at once (with every binding wanted)."""
    from fdc.compiler.bind import random_order

    t = template("?a ?b ?c ?d ?e ?f ?g ?h - t", None, name="eight")
    _, facts = _big()
    with pytest.raises(BindLimitError, match="template `eight`: more than 1000 candidate "
                       "bindings") as err:
        random_order(t, facts, seed=0, limit=1000, every=True)
    assert err.value.explored == 10 ** 8 and "`fdc --limit template_bindings=N" in str(err.value)
    draw = random_order(t, facts, seed=0, limit=1000)  # sampled: the walks are bounded
    with pytest.raises(BindLimitError, match="random walks"):
        for _ in draw.bindings:
            pass


# ---------------------------------------------------------------- property: bind == brute force

ENTITIES = ["a", "b", "c", "d", "e"]
TYPES = ["t1", "t2"]


@st.composite
def worlds(draw: st.DrawFn) -> tuple[TableFacts, A.Template]:
    n = draw(st.integers(0, 5))
    ents = ENTITIES[:n]
    types = {e: (draw(st.sampled_from(TYPES)),) for e in ents}
    pairs = [(x, y) for x in ents for y in ents]
    atoms = {
        "p": draw(st.lists(st.sampled_from([(e,) for e in ents]), max_size=5)) if ents else [],
        "q": draw(st.lists(st.sampled_from(pairs), max_size=10)) if pairs else [],
        "r": draw(st.lists(st.sampled_from(pairs), max_size=10)) if pairs else [],
    }
    values = {"f": {(e,): float(draw(st.integers(0, 3))) for e in ents if draw(st.booleans())}}
    facts = TableFacts(
        types=types,
        kinds={"p": "static", "q": "history", "r": "static"},
        atoms=atoms,
        values=values,
    )
    k = draw(st.integers(1, 3))
    names = ["?x", "?y", "?z"][:k]
    ptypes = [draw(st.sampled_from(["", " - t1", " - t2"])) for _ in names]
    params = " ".join(f"{v}{ty}" for v, ty in zip(names, ptypes, strict=True))
    term = st.sampled_from([*names, *ENTITIES[:2]]) if ents else st.sampled_from(names)
    var = st.sampled_from(names)

    def literal() -> str:
        kind = draw(st.integers(0, 3))
        if kind == 0:
            return f"(p {draw(term)})"
        return f"({draw(st.sampled_from(['q', 'r']))} {draw(term)} {draw(term)})"

    def conjunct() -> str:
        kind = draw(st.integers(0, 7))
        if kind <= 2:
            return literal()
        if kind == 3:
            return f"(not {literal()})"
        if kind == 4:
            return f"(or {literal()} {literal()})"
        if kind == 5:
            return f"(not (= {draw(var)} {draw(var)}))"
        if kind == 6:
            return f"(< (f {draw(var)}) {draw(st.integers(0, 3))})"
        return f"(exists (?w) (q {draw(var)} ?w))"

    parts = [conjunct() for _ in range(draw(st.integers(0, 4)))]
    cons = f"(and {' '.join(parts)})" if parts else None
    return facts, template(params, cons)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_bind_equals_brute_force(world: tuple[TableFacts, A.Template]) -> None:
    facts, t = world
    r = bind(t, facts)
    assert rows(r) == brute(t, facts)
    assert r.total == len(r.bindings)


# ---------------------------------------------------------------- random order, sampled


def test_random_order_enumerates_a_small_set_and_samples_a_large_one() -> None:
    from fdc.compiler.bind import random_order

    t = template("?o - movable ?s - surface ?r - room",
                 "(and (on-top ?o ?s) (in-room ?s ?r) (not (is-red ?o)))")
    complete = {tuple(b.values()) for b in bind(t, FACTS).bindings}
    small = random_order(t, FACTS, seed=3)
    assert not small.sampled and small.total == len(complete)
    drawn = [tuple(b.values()) for b in small.bindings]
    assert set(drawn) == complete and len(drawn) == len(complete)
    big = random_order(t, FACTS, seed=3, enumerate_below=0)  # forced to sample
    assert big.sampled
    sampled = [tuple(b.values()) for b in big.bindings]
    assert set(sampled) == complete and len(sampled) == len(complete)  # no repeats
    again = [tuple(b.values()) for b in random_order(t, FACTS, seed=3,
                                                    enumerate_below=0).bindings]
    assert again == sampled  # the seed decides
    assert big.estimate is not None and big.estimate > 0


def test_sampled_bindings_are_uniform_despite_skewed_joins() -> None:
    from fdc.compiler.bind import random_order

    # `near` fans out unevenly: m1 has 2 partners (m1 itself is excluded: distinct),
    # m2 one, b1 one. A walk that picked ?a uniformly, then ?b, would favour m2 and b1.
    t = template("?a ?b - movable", "(near ?a ?b)")
    complete = {tuple(b.values()) for b in bind(t, FACTS).bindings}
    assert complete == {("m1", "m2"), ("m2", "m1"), ("b1", "m3")}
    firsts = Counter(
        tuple(next(random_order(t, FACTS, seed=s, enumerate_below=0).bindings).values())
        for s in range(1500))
    assert set(firsts) == complete
    for n in firsts.values():
        assert 400 <= n <= 600, firsts  # 500 each, binomial sd ~18
