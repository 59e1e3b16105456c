"""Ground goals: what a compiled task asks of the world, as data.

The compiler's ground pass folds static and history facts away, leaving a quantifier-free
goal over fluent atoms with its multi-goal and sequence structure intact. This module
holds that structure (pydantic models over `GAtom`s, light tuples pydantic validates and
serialises as objects; all in every task record) and its PDDL rendering;
`fdc.predicates.verify` evaluates it on trajectories.

Identical atoms are one object (`atom()` interns them), so a goal evaluated on many
snapshots caches per atom and compares by identity.

Beside the connectives, three kinds carry what PARTNR's evaluation says and a
quantifier-free formula cannot say compactly (`docs/formats/task.md`, "Counting,
clusters and checklists"): `count` (at least n of some entities stand in a relation to
some, or one and the same, of others: the witnesses are kept), `cluster` (entities of
several groups connected by a symmetric relation) and `checklist` (propositions judged
over the whole trajectory: when each was first satisfied, dependencies that say when it
is queried, and constraints on order, witnesses and the final state).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, assert_never, get_args

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, model_validator
from pydantic_core import CoreSchema, SchemaValidator, core_schema


class _Goal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# Not a pydantic model but the tuple `(predicate, *args)` (a subclass, with the fields
# as properties): grounding makes one per distinct atom, hundreds of thousands for a
# large goal, and a flat tuple is the cheapest object to make, hash and compare, and
# the one the collector has the least to walk through (one object per atom). Every atom
# is interned (`GAtom(...)` and `atom()` return the one object per value), and it plugs
# into pydantic as the object `{"kind": "atom", "predicate": ..., "args": [...]}`
# (`__get_pydantic_core_schema__`), so the models holding goals validate, serialise and
# describe it (JSON Schema) exactly as they did the model it was. Being a tuple, an atom
# equals the plain tuple `(predicate, *args)`, and `.args` is a new tuple at each use.


class GAtom(tuple[str, ...]):
    """A fluent atom over entity ids: `(on mug_1 kitchen_counter|top)`."""

    __slots__ = ()
    kind: ClassVar[Literal["atom"]] = "atom"

    if TYPE_CHECKING:

        @property
        def predicate(self) -> str: ...

        @property
        def args(self) -> tuple[str, ...]: ...
    else:
        predicate = property(itemgetter(0), doc="The predicate's name.")
        args = property(itemgetter(slice(1, None)), doc="The arguments: entity ids.")

    def __new__(
        cls, *, kind: Literal["atom"] = "atom", predicate: str, args: Iterable[str] = ()
    ) -> GAtom:
        """The interned atom, its fields validated as the model's were (else a pydantic
        `ValidationError`); `atom()` makes one without the check."""
        fields = {"kind": kind, "predicate": predicate, "args": args}
        found: GAtom = _ATOM_VALIDATOR.validate_python(fields)
        return found

    def __repr__(self) -> str:
        return f"GAtom(kind='atom', predicate={self[0]!r}, args={self[1:]!r})"

    def __str__(self) -> str:
        return f"kind='atom' predicate={self[0]!r} args={self[1:]!r}"

    def __reduce__(self) -> tuple[Any, ...]:  # pickled and copied as the interned atom
        return atom, tuple(self)

    def __copy__(self) -> GAtom:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> GAtom:
        return self

    def model_dump(self, *, mode: str = "python") -> dict[str, Any]:
        """As a pydantic model would: `{"kind": "atom", "predicate": ..., "args": ...}`."""
        return {
            "kind": "atom",
            "predicate": self[0],
            "args": list(self[1:]) if mode == "json" else self[1:],
        }

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return _ATOM_SCHEMA


def _atom_from_fields(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> GAtom:
    if type(value) is GAtom:
        return value
    fields = validate(value)  # the object's fields, checked by `_atom_fields_schema()`
    return atom(fields["predicate"], *fields["args"])


def _atom_fields(a: GAtom) -> dict[str, Any]:
    return {"kind": "atom", "predicate": a[0], "args": a[1:]}


def _atom_fields_schema() -> core_schema.TypedDictSchema:
    """An atom as the object it is in JSON: the fields (and the order) of the model it was."""
    field, default = core_schema.typed_dict_field, core_schema.with_default_schema
    return core_schema.typed_dict_schema(
        {
            "kind": field(
                default(core_schema.literal_schema(["atom"]), default="atom"), required=False
            ),
            "predicate": field(core_schema.str_schema()),
            "args": field(
                default(
                    core_schema.tuple_schema([core_schema.str_schema()], variadic_item_index=0),
                    default=(),
                ),
                required=False,
            ),
        },
        cls=GAtom,  # the JSON Schema's title and description
        extra_behavior="forbid",
        ref="fdc.predicates.goal.GAtom",
    )


#: GAtom's pydantic schema: an atom as is, or its fields (a dict, JSON) made into the
#: interned atom; serialised as its fields. The fields' `kind` lets `Goal` tell it apart.
_ATOM_SCHEMA = core_schema.no_info_wrap_validator_function(
    _atom_from_fields,
    _atom_fields_schema(),
    serialization=core_schema.plain_serializer_function_ser_schema(
        _atom_fields, return_schema=_atom_fields_schema()
    ),
)
_ATOM_VALIDATOR = SchemaValidator(_ATOM_SCHEMA, core_schema.CoreConfig(title="GAtom"))


class GNot(_Goal):
    kind: Literal["not"] = "not"
    body: Goal


class GAnd(_Goal):
    """All parts hold; `GAnd(parts=())` is true."""

    kind: Literal["and"] = "and"
    parts: tuple[Goal, ...] = ()


class GOr(_Goal):
    """Some part holds; `GOr(parts=())` is false."""

    kind: Literal["or"] = "or"
    parts: tuple[Goal, ...] = ()


class Target(_Goal):
    """One target of a multi-goal task: the entity and the goal that reaches it."""

    entity: str
    goal: Goal


class GTargets(_Goal):
    """Reach every target, each at its own explicit stop; `ordered`: in the given order."""

    kind: Literal["targets"] = "targets"
    ordered: bool = False
    targets: tuple[Target, ...]


class GThen(_Goal):
    """A sequence: each step must be achieved after the one before it."""

    kind: Literal["then"] = "then"
    steps: tuple[Goal, ...]


Thresholds = dict[str, float]


CountOp = Literal["at-least", "at-most", "exactly"]


class GCount(_Goal):
    """At least (`op`: at most, exactly) `number` distinct `items` stand in `relation`
    to some entity of `others` (to one and the same entity when `same_other`: then the
    items are counted per entity, and the largest count compared); with no `others`,
    `relation` is unary and `number` items satisfy it. The lists are alternatives ("any
    of these"), as PARTNR's handle lists are. `thresholds` override checker thresholds
    for this node's atoms only. Templates' counting forms compile to it (at least one
    item each way from a constant: `number` is at least 1 for `at-least`, and below the
    number of items for `at-most`)."""

    kind: Literal["count"] = "count"
    relation: str = Field(min_length=1, description="A fluent predicate: (relation item "
                          "[other]).")
    items: tuple[str, ...] = Field(min_length=1)
    others: tuple[str, ...] = ()
    op: CountOp = "at-least"
    number: int = Field(default=1, ge=0)
    same_other: bool = False
    thresholds: Thresholds = Field(default_factory=dict)

    @model_validator(mode="after")
    def _same_needs_others(self) -> GCount:
        if self.same_other and not self.others:
            raise ValueError("`same_other` needs `others` to choose the one entity from")
        if self.op == "at-least" and self.number < 1:
            raise ValueError("`at-least` needs a `number` of at least 1 (at least 0 is "
                             "always true)")
        return self

    def __hash__(self) -> int:
        return hash((self.kind, self.relation, self.items, self.others, self.op,
                     self.number, self.same_other, tuple(sorted(self.thresholds.items()))))

    def atom_for(self, item: str, other: str | None = None) -> GAtom:
        return atom(self.relation, item) if other is None else atom(self.relation, item, other)

    def accepts(self, found: int) -> bool:
        """Whether `found` satisfying items make the count hold."""
        if self.op == "at-least":
            return found >= self.number
        if self.op == "at-most":
            return found <= self.number
        return found == self.number


class GCluster(_Goal):
    """The entities of every group lie in one cluster: in one connected component of the
    graph whose edges are the pairs in `relation` (either way round), which holds at
    least `numbers[i]` entities of `groups[i]` for each i (PARTNR's `is_clustered`)."""

    kind: Literal["cluster"] = "cluster"
    relation: str = Field(default="next-to", min_length=1)
    groups: tuple[tuple[str, ...], ...] = Field(min_length=1)
    numbers: tuple[int, ...] = Field(default=(), description="One per group; default 1 each.")
    thresholds: Thresholds = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_number_per_group(self) -> GCluster:
        if any(not g for g in self.groups):
            raise ValueError("every group names at least one entity")
        if not self.numbers:
            object.__setattr__(self, "numbers", (1,) * len(self.groups))
        if len(self.numbers) != len(self.groups):
            raise ValueError(f"{len(self.numbers)} number(s) for {len(self.groups)} group(s)")
        if any(n < 1 for n in self.numbers):
            raise ValueError("every number is at least 1")
        return self

    def __hash__(self) -> int:
        return hash((self.kind, self.relation, self.groups, self.numbers,
                     tuple(sorted(self.thresholds.items()))))

    @property
    def entities(self) -> tuple[str, ...]:
        """Every entity of the groups, once, in order."""
        return tuple(dict.fromkeys(e for g in self.groups for e in g))


#: When a checklist queries a proposition (PARTNR's dependency relation types).
DependencyRelation = Literal[
    "while-satisfied", "after-satisfied", "after-unsatisfied", "before-satisfied"
]


class Dependency(_Goal):
    """`propositions` are queried (else counted false) only at steps where
    `depends_on` (`mode`: all or any of them), judged on the steps before, is: holding
    (`while-satisfied`), has held (`after-satisfied`), has held and then stopped
    (`after-unsatisfied`), has never held (`before-satisfied`)."""

    propositions: tuple[int, ...] = Field(min_length=1)
    depends_on: tuple[int, ...] = Field(min_length=1)
    relation: DependencyRelation
    mode: Literal["all", "any"] = "all"


class OrderConstraint(_Goal):
    """Each edge `(a, b)`: proposition b counts only if every proposition before it in the
    graph (its ancestors) was first satisfied, at an earlier step than b."""

    kind: Literal["order"] = "order"
    edges: tuple[tuple[int, int], ...] = ()


class SameConstraint(_Goal):
    """The entity that filled role `roles[k]` of proposition `propositions[k]` when it was
    first satisfied is the same for all of them ("on the same shelf")."""

    kind: Literal["same"] = "same"
    propositions: tuple[int, ...] = Field(min_length=1)
    roles: tuple[str, ...] = Field(min_length=1)


class DifferentConstraint(_Goal):
    """As `same`, but every proposition's entity differs from those of the propositions
    satisfied before it ("on two separate tables")."""

    kind: Literal["different"] = "different"
    propositions: tuple[int, ...] = Field(min_length=1)
    roles: tuple[str, ...] = Field(min_length=1)


class TerminalConstraint(_Goal):
    """These propositions must still hold at the last step."""

    kind: Literal["terminal"] = "terminal"
    propositions: tuple[int, ...] = Field(min_length=1)


Constraint = Annotated[
    OrderConstraint | SameConstraint | DifferentConstraint | TerminalConstraint,
    Field(discriminator="kind"),
]


class GChecklist(_Goal):
    """Propositions (state goals) judged over a whole trajectory, PARTNR's way: each
    counts once first satisfied (at a step where its dependencies let it be queried),
    unless a constraint invalidates it; a `count` of n counts as n propositions. Success:
    every one counts; the share that counts is the task's percent complete."""

    kind: Literal["checklist"] = "checklist"
    propositions: tuple[Goal, ...] = Field(min_length=1)
    dependencies: tuple[Dependency, ...] = ()
    constraints: tuple[Constraint, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> GChecklist:
        n = len(self.propositions)
        for k, p in enumerate(self.propositions):
            if any(is_multi_goal(g) for g in subgoals(p)):
                raise ValueError(f"proposition {k} is a {p.kind}: a checklist's propositions "
                                 "are state goals (atoms, connectives, count, cluster)")
            if isinstance(p, GCount) and p.op != "at-least":
                raise ValueError(f"proposition {k} is an `{p.op}` count: a checklist counts "
                                 "`at-least` (each item is a unit of progress)")

        def check(indices: Sequence[int], where: str) -> None:
            bad = [i for i in indices if not 0 <= i < n]
            if bad:
                raise ValueError(f"{where}: proposition index {bad[0]} is out of range "
                                 f"(there are {n})")

        for k, d in enumerate(self.dependencies):
            check(d.propositions, f"dependencies[{k}].propositions")
            check(d.depends_on, f"dependencies[{k}].depends_on")
        for k, c in enumerate(self.constraints):
            where = f"constraints[{k}] ({c.kind})"
            match c:
                case OrderConstraint():
                    check([i for e in c.edges for i in e], where)
                    _check_acyclic(c.edges, where)
                case TerminalConstraint():
                    check(c.propositions, where)
                case SameConstraint() | DifferentConstraint():
                    check(c.propositions, where)
                    self._check_roles(c, where)
                case _:
                    assert_never(c)
        return self

    def _check_roles(self, c: SameConstraint | DifferentConstraint, where: str) -> None:
        if len(c.roles) != len(c.propositions):
            raise ValueError(f"{where}: {len(c.roles)} role(s) for "
                             f"{len(c.propositions)} proposition(s)")
        for i, role in zip(c.propositions, c.roles, strict=True):
            known = roles(self.propositions[i])
            if role not in known:
                have = ", ".join(f"`{r}`" for r in known) or "none"
                raise ValueError(f"{where}: proposition {i} has no role `{role}` "
                                 f"(its roles: {have})")


def roles(goal: Goal) -> tuple[str, ...]:
    """The roles whose filler a same/different constraint can compare: a count's `item`
    and `other`, a cluster's `group-0`, `group-1`, ...; nothing for other goals."""
    match goal:
        case GCount():
            return ("item", "other") if goal.others else ("item",)
        case GCluster():
            return tuple(f"group-{i}" for i in range(len(goal.groups)))
        case GAtom() | GNot() | GAnd() | GOr() | GTargets() | GThen() | GChecklist():
            return ()
        case _:
            assert_never(goal)


def _check_acyclic(edges: Sequence[tuple[int, int]], where: str) -> None:
    import networkx as nx

    g = nx.DiGraph(list(edges))
    if not nx.is_directed_acyclic_graph(g):
        loop = [a for a, _ in nx.find_cycle(g)]
        cycle = " -> ".join(str(a) for a in [*loop, loop[0]])
        raise ValueError(f"{where}: the order has a cycle ({cycle})")


def _atom_from_checked(fields: dict[str, Any]) -> GAtom:
    return atom(fields["predicate"], *fields["args"])


class _GoalUnion:
    """A goal's schema: the union of its kinds told apart by `kind`, as a discriminated
    union is, except for atoms read from JSON text: their fields are checked in
    pydantic's core first, and only then made into the interned atom. GAtom's own
    schema hands each atom's object to a Python function as a dict made only to be
    checked again (reading a suite of 100,000 tasks, 2.5 million atoms, took a third
    longer). Pydantic infers a discriminated union's choices itself and knows no such
    choice, so the union is built here."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        choices: dict[Any, CoreSchema] = {}
        for kind in get_args(source):  # the union's members, in order
            if kind is GAtom:
                choices["atom"] = core_schema.json_or_python_schema(
                    json_schema=core_schema.no_info_after_validator_function(
                        _atom_from_checked, _atom_fields_schema()),
                    python_schema=handler.generate_schema(GAtom))
            else:
                choices[kind.model_fields["kind"].default] = handler.generate_schema(kind)
        return core_schema.tagged_union_schema(choices, "kind", from_attributes=True)


Goal = Annotated[
    GAtom | GNot | GAnd | GOr | GTargets | GThen | GCount | GCluster | GChecklist,
    _GoalUnion(),
]

TRUE = GAnd(parts=())
FALSE = GOr(parts=())

#: Every atom made, each its own key: a tuple, it hashes and compares as the plain
#: `(predicate, *args)`, so it is found by that without an atom made to look it up.
_ATOMS: dict[tuple[str, ...], GAtom] = {}


def atom(
    predicate: str,
    *args: str,
    _get: Callable[[Any], GAtom | None] = _ATOMS.get,
    _new: Any = tuple.__new__,
) -> GAtom:
    """The interned atom `(predicate args...)`: equal atoms are the same object.

    Grounding makes one per distinct atom (500,000 for a goal of four pair-quantifiers
    over 1,346 objects), so this is its innermost step: no validation (the caller passes
    a `str` and `str`s) and no `GAtom.__new__`."""
    key = (predicate, *args)
    found = _get(key)
    if found is None:
        found = _new(GAtom, key)
        _ATOMS[found] = found
    return found


def atoms_over(
    predicate: str, before: Sequence[str], domain: Iterable[str], after: Sequence[str] = ()
) -> list[GAtom]:
    """`[atom(predicate, *before, e, *after) for e in domain]` at less cost per atom: the
    innermost loop of `(forall (?x - t) (on ?x ?s))`."""
    get, new, store, cls = _ATOMS.get, tuple.__new__, _ATOMS.__setitem__, GAtom
    keys: Iterable[tuple[str, ...]]
    if not after:  # (predicate, *before, e), made in C
        keys = zip(repeat(predicate), *map(repeat, before), domain)
    else:
        keys = ((predicate, *before, e, *after) for e in domain)
    out: list[GAtom] = []
    add = out.append
    for key in keys:
        found = get(key)
        if found is None:
            found = new(cls, key)
            store(found, found)
        add(found)
    return out


# ----------------------------------------------------------------------------- walks
# Every walk over goals goes through `children` or a `match` over the goal kinds ending in
# `assert_never`, so a new kind is one edit mypy checks; the algebra built on them
# (map, fold, constructors, negation normal form, count expansion) is
# `fdc.predicates.algebra`.


def children(goal: Goal) -> tuple[Goal, ...]:
    """The goal's direct subgoals, in order: a `not`'s body, a junction's parts, the
    targets' goals, a sequence's steps, a checklist's propositions; none for an atom, a
    count or a cluster (their atoms are `atoms`)."""
    match goal:
        case GAtom() | GCount() | GCluster():
            return ()
        case GNot():
            return (goal.body,)
        case GAnd() | GOr():
            return goal.parts
        case GTargets():
            return tuple(t.goal for t in goal.targets)
        case GThen():
            return goal.steps
        case GChecklist():
            return goal.propositions
        case _:
            assert_never(goal)


def subgoals(goal: Goal) -> Iterator[Goal]:
    """The goal and every subgoal below it (`children`), parents first, in order."""
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        yield g
        stack.extend(reversed(children(g)))


def atoms(goal: Goal) -> Iterator[GAtom]:
    """Every atom of the goal, in order (repeats included); a count's and a cluster's are
    the atoms they ask about."""
    stack: list[Goal] = [goal]
    while stack:
        g = stack.pop()
        # the common kinds by the cheapest test first (a large goal holds a million
        # atoms); the `match` below is the walk itself
        if type(g) is GAtom:
            yield g
            continue
        if type(g) is GAnd or type(g) is GOr:
            stack.extend(reversed(g.parts))
            continue
        if type(g) is GNot:
            stack.append(g.body)
            continue
        match g:
            case GAtom():
                yield g
            case GAnd() | GOr():
                stack.extend(reversed(g.parts))
            case GNot():
                stack.append(g.body)
            case GCount():
                pairs = [(i, o) for i in g.items for o in g.others] if g.others else \
                    [(i, None) for i in g.items]
                yield from (g.atom_for(i, o) for i, o in pairs)
            case GCluster():
                yield from (atom(g.relation, a, b) for a, b in cluster_pairs(g))
            case GTargets() | GThen() | GChecklist():
                stack.extend(reversed(children(g)))
            case _:
                assert_never(g)


def cluster_pairs(goal: GCluster) -> list[tuple[str, str]]:
    """The ordered pairs of distinct entities a cluster asks the relation of."""
    ents = goal.entities
    return [(a, b) for a in ents for b in ents if a != b]


def joined(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The groups of names that pairs join, transitively (the items that `same-surface`
    atoms put on one surface): each group sorted, the groups in order of their first
    name."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for x in sorted(parent):
        groups.setdefault(root(x), []).append(x)
    return list(groups.values())


def is_multi_goal(goal: Goal) -> bool:
    """Judged over the trajectory (stops, sequences, checklists), not at one snapshot."""
    match goal:
        case GTargets() | GThen() | GChecklist():
            return True
        case GAtom() | GNot() | GAnd() | GOr() | GCount() | GCluster():
            return False
        case _:
            assert_never(goal)


def to_pddl(goal: Goal) -> str:
    """The goal in fdc's PDDL dialect (`targets`/`then` as in templates)."""
    match goal:
        case GAtom():
            return "(" + " ".join([goal.predicate, *goal.args]) + ")"
        case GNot():
            return f"(not {to_pddl(goal.body)})"
        case GAnd() | GOr():
            return "(" + " ".join([goal.kind, *(to_pddl(p) for p in goal.parts)]) + ")"
        case GTargets():
            word = "ordered-targets" if goal.ordered else "targets"
            inner = " ".join(f"({t.entity} {to_pddl(t.goal)})" for t in goal.targets)
            return f"({word} {inner})"
        case GThen():
            return "(then " + " ".join(to_pddl(s) for s in goal.steps) + ")"
        case GCount():
            return _count_pddl(goal)
        case GCluster():
            parts = " ".join(f"(at-least {n} {_one_of(g)})"
                             for n, g in zip(goal.numbers, goal.groups, strict=True))
            return f"(cluster {goal.relation} {parts})"
        case GChecklist():
            return _checklist_pddl(goal)
        case _:
            assert_never(goal)


def _one_of(entities: Sequence[str]) -> str:
    return "(one-of " + " ".join(entities) + ")"


def _count_pddl(g: GCount) -> str:
    if not g.others:
        return f"({g.op} {g.number} (?x - {_one_of(g.items)}) ({g.relation} ?x))"
    counted = f"({g.op} {g.number} (?x - {_one_of(g.items)}) ({g.relation} ?x ?y))"
    if g.same_other:  # one ?y for all of them: the quantifiers swap
        return f"(exists (?y - {_one_of(g.others)}) {counted})"
    return (f"({g.op} {g.number} (?x - {_one_of(g.items)}) "
            f"(exists (?y - {_one_of(g.others)}) ({g.relation} ?x ?y)))")


def _checklist_pddl(g: GChecklist) -> str:
    out = ["(checklist (" + " ".join(to_pddl(p) for p in g.propositions) + ")"]
    for d in g.dependencies:
        ids = " ".join(map(str, d.propositions))
        on = " ".join(map(str, d.depends_on))
        out.append(f"(:{d.relation} ({ids}) ({on}) {d.mode})")
    for c in g.constraints:
        match c:
            case OrderConstraint():
                out.append("(:order" + "".join(f" ({a} {b})" for a, b in c.edges) + ")")
            case TerminalConstraint():
                out.append("(:terminal " + " ".join(map(str, c.propositions)) + ")")
            case SameConstraint() | DifferentConstraint():
                pairs = " ".join(f"({i} {r})"
                                 for i, r in zip(c.propositions, c.roles, strict=True))
                out.append(f"(:{c.kind} {pairs})")
            case _:
                assert_never(c)
    return " ".join(out) + ")"


for _model in (GNot, GAnd, GOr, Target, GTargets, GThen, GChecklist):
    _model.model_rebuild()
