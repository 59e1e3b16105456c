"""Ground goals: what a compiled task asks of the world, as data.

The compiler's ground pass folds static and history facts away, leaving a quantifier-free
goal over fluent atoms with its multi-goal and sequence structure intact. This module
holds that structure (pydantic models over `GAtom`s, light tuples pydantic validates and
serialises as objects; all in every task record) and its PDDL rendering;
`fdc.predicates.verify` evaluates it on trajectories.

Identical atoms are one object (`atom()` interns them), so a goal evaluated on many
snapshots caches per atom and compares by identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler
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


Goal = Annotated[GAtom | GNot | GAnd | GOr | GTargets | GThen, Field(discriminator="kind")]

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


def atoms(goal: _Goal | GAtom) -> Iterator[GAtom]:
    """Every atom of the goal, in order (repeats included)."""
    stack: list[_Goal | GAtom] = [goal]
    while stack:
        g = stack.pop()
        if isinstance(g, GAtom):
            yield g
        elif isinstance(g, GNot):
            stack.append(g.body)
        elif isinstance(g, GAnd | GOr):
            stack.extend(reversed(g.parts))
        elif isinstance(g, GTargets):
            stack.extend(reversed([t.goal for t in g.targets]))
        elif isinstance(g, GThen):
            stack.extend(reversed(g.steps))


def is_multi_goal(goal: _Goal | GAtom) -> bool:
    return isinstance(goal, GTargets | GThen)


def to_pddl(goal: _Goal | GAtom) -> str:
    """The goal in fdc's PDDL dialect (`targets`/`then` as in templates)."""
    if isinstance(goal, GAtom):
        return "(" + " ".join([goal.predicate, *goal.args]) + ")"
    if isinstance(goal, GNot):
        return f"(not {to_pddl(goal.body)})"
    if isinstance(goal, GAnd | GOr):
        word = "and" if isinstance(goal, GAnd) else "or"
        return "(" + " ".join([word, *(to_pddl(p) for p in goal.parts)]) + ")"
    if isinstance(goal, GTargets):
        word = "ordered-targets" if goal.ordered else "targets"
        inner = " ".join(f"({t.entity} {to_pddl(t.goal)})" for t in goal.targets)
        return f"({word} {inner})"
    if isinstance(goal, GThen):
        return "(then " + " ".join(to_pddl(s) for s in goal.steps) + ")"
    raise TypeError(f"not a goal: {goal!r}")


for _model in (GNot, GAnd, GOr, Target, GTargets, GThen):
    _model.model_rebuild()
