"""The typed AST of fdc's template language: PDDL domains, problems and fdc templates.

Every node is a frozen pydantic model carrying its source `span` (character offsets
into the file it came from). Equality and hashing ignore spans, so a definition parsed
from its canonical print compares equal to the original (`parse(print(ast)) == ast`).

One formula vocabulary serves conditions, effects, goals and constraints (as in the
`pddl` package and PDDL's own BNF, an effect `(and (p) (not (q)))` is the same shape as
a condition); the type checker decides which forms are allowed where.

The parser builds nodes with `Node.make`, which skips validation: the grammar already
guarantees the shapes, and validating a million atoms would dominate parse time.
Models built from Python code (tests, other passes) validate as usual.
See docs/language.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from fdc.core.problems import NO_SPAN as NO_SPAN
from fdc.core.problems import Span as Span


class Node(BaseModel):
    """Base of every AST node: frozen, spanned, compared without spans."""

    model_config = ConfigDict(frozen=True, defer_build=True, extra="forbid")

    span: Span = Field(default=NO_SPAN, repr=False)

    _fields_without_span: ClassVar[tuple[str, ...]] = ()
    _all_fields: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        fields = cls.__pydantic_fields__
        names = tuple(fields)
        cls._fields_without_span = tuple(n for n in names if n != "span")
        cls._all_fields = frozenset(names)
        # Every field in declaration order (required ones as None until given); every
        # default is immutable (None, a tuple, a literal), so sharing them is safe.
        cls._defaults = {n: None if f.is_required() else f.default for n, f in fields.items()}

    @classmethod
    def make(cls, **fields: Any) -> Self:
        """Build a node without validation (the parser's fast path).

        Fields not given take their defaults, as in `model_construct`.
        """
        obj = cls.__new__(cls)
        object.__setattr__(obj, "__dict__", {**cls._defaults, **fields})
        object.__setattr__(obj, "__pydantic_fields_set__", cls._all_fields)
        object.__setattr__(obj, "__pydantic_extra__", None)
        object.__setattr__(obj, "__pydantic_private__", None)
        return obj

    def _key(self) -> tuple[Any, ...]:
        d = self.__dict__
        return (type(self), *(d[n] for n in self._fields_without_span))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def children(self) -> Iterator[Node]:
        """The direct child nodes, in source order."""
        for name in self._fields_without_span:
            value = self.__dict__[name]
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        yield item

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first, in source order."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(list(node.children())))


# ---------------------------------------------------------------------------- terms


class Variable(Node):
    """`?x` (the name keeps its `?`)."""

    name: str


class Constant(Node):
    """A name in term position: a constant, an object, or a template entity."""

    name: str


Term = Variable | Constant


class TypedName(Node):
    """One entry of a typed list: `name - type` or `?var - (either a b)`.

    `types` holds one name, or several for `either`; `()` means untyped (`object`).
    """

    name: str
    types: tuple[str, ...] = ()

    @property
    def is_variable(self) -> bool:
        return self.name.startswith("?")


# ---------------------------------------------------------------------------- numbers


class Number(Node):
    value: int | float


class FunctionTerm(Node):
    """`(f a ?x)`: a numeric fluent (or, in an atom's place, a misused function)."""

    name: str
    args: tuple[Term, ...] = ()


class Arithmetic(Node):
    """`(+ a b)`, `(- a)`, `(* a b c)`, `(/ a b)`."""

    op: Literal["+", "-", "*", "/"]
    args: tuple[NumericExpr, ...]


NumericExpr = Number | FunctionTerm | Arithmetic | Variable | Constant


# ---------------------------------------------------------------------------- formulas


class Atom(Node):
    """`(p a ?x)`; equality is the predicate `=`."""

    predicate: str
    args: tuple[Term, ...] = ()


class And(Node):
    parts: tuple[Formula, ...] = ()


class Or(Node):
    parts: tuple[Formula, ...] = ()


class Not(Node):
    body: Formula


class Imply(Node):
    condition: Formula
    consequence: Formula


class Exists(Node):
    """Existential quantifier; in templates, over distinct entities."""

    variables: tuple[TypedName, ...]
    body: Formula


class Forall(Node):
    """Universal quantifier (conditions and effects)."""

    variables: tuple[TypedName, ...]
    body: Formula


class When(Node):
    """Conditional effect."""

    condition: Formula
    effect: Formula


class Comparison(Node):
    """`(< e1 e2)`, `(= (f a) 3)`; `(= a b)` between terms is an `Atom`."""

    op: Literal["<", "<=", ">", ">=", "="]
    left: NumericExpr
    right: NumericExpr


class NumericEffect(Node):
    """`(increase (total-cost) 1)` and the other assignment operators."""

    op: Literal["assign", "increase", "decrease", "scale-up", "scale-down"]
    target: NumericExpr
    value: NumericExpr


class Preference(Node):
    """PDDL3 `(preference [name] φ)`."""

    name: str | None = None
    body: Formula


class Timed(Node):
    """`(at start φ)`, `(at end φ)`, `(over all φ)` (durative actions, PDDL3)."""

    time: Literal["start", "end", "all"]
    body: Formula


class TimedLiteral(Node):
    """A timed initial literal `(at 10 (p a))`."""

    time: int | float
    body: Formula


class Modal(Node):
    """A PDDL3 constraint `(always φ)`, `(within 5 φ)`, `(hold-during 2 9 φ)`, ..."""

    op: Literal[
        "always",
        "sometime",
        "at-most-once",
        "sometime-after",
        "sometime-before",
        "within",
        "always-within",
        "hold-during",
        "hold-after",
    ]
    numbers: tuple[int | float, ...] = ()
    parts: tuple[Formula, ...]


class Count(Node):
    """fdc: `(at-least n (?x - t) φ)`, `at-most`, `exactly`; BDDL's `forn` is `at-least`.

    Counts distinct bindings of the variables for which φ holds.
    """

    op: Literal["at-least", "at-most", "exactly"]
    n: int
    variables: tuple[TypedName, ...]
    body: Formula


class Pairs(Node):
    """fdc: BDDL's `(forpairs (?a - t1) (?b - t2) φ)` and `(fornpairs n ...)`.

    True when there is a matching of distinct `?a`s to distinct `?b`s with φ on every
    pair: of every `?a` (`n` is None) or of at least `n` of them.
    """

    n: int | None = None
    first: tuple[TypedName, ...]
    second: tuple[TypedName, ...]
    body: Formula


class Extreme(Node):
    """fdc: `(argmax ?o (?x - t) key φ)`: `?o` is the `?x` with φ that maximises `key`.

    Ties are reported by the binder, never broken silently. `condition` None means
    every `?x` of the type.
    """

    op: Literal["argmax", "argmin"]
    target: Term
    variables: tuple[TypedName, ...]
    key: NumericExpr
    condition: Formula | None = None


class Targets(Node):
    """fdc multi-goal: every `?x` with `condition` is a target whose goal is `goal`.

    `order` None: any order. Otherwise targets must be reached in ascending `order`
    (`ordered-targets`).
    """

    variables: tuple[TypedName, ...]
    order: NumericExpr | None = None
    condition: Formula
    goal: Formula


class Then(Node):
    """fdc sequence: `(then A B ...)`: A must be achieved, then B, ..."""

    steps: tuple[Formula, ...]


class Empty(Node):
    """`()` where a formula may be omitted (`:precondition ()`)."""


Formula = (
    Atom
    | And
    | Or
    | Not
    | Imply
    | Exists
    | Forall
    | When
    | Comparison
    | NumericEffect
    | Preference
    | Timed
    | TimedLiteral
    | Modal
    | Count
    | Pairs
    | Extreme
    | Targets
    | Then
    | Empty
)

#: Forms only a template goal may use.
MULTI_GOAL_FORMS = (Targets, Then)
TEMPLATE_FORMS = (Count, Pairs, Extreme, Targets, Then)


# ---------------------------------------------------------------------------- domains


class PredicateDef(Node):
    name: str
    parameters: tuple[TypedName, ...] = ()


class FunctionDef(Node):
    """A `:functions` entry; `type` is `number` unless declared otherwise."""

    name: str
    parameters: tuple[TypedName, ...] = ()
    type: tuple[str, ...] = ("number",)


class Action(Node):
    name: str
    parameters: tuple[TypedName, ...] = ()
    precondition: Formula | None = None
    effect: Formula | None = None


class DurativeAction(Node):
    """Parsed and preserved; fdc's planner export does not use durative actions."""

    name: str
    parameters: tuple[TypedName, ...] = ()
    duration: Formula | None = None
    condition: Formula | None = None
    effect: Formula | None = None


class DerivedPredicate(Node):
    predicate: PredicateDef
    body: Formula


class Threshold(Node):
    """fdc: `(object_distance_m 1.5)` in a domain's `:thresholds`."""

    name: str
    value: int | float


class Domain(Node):
    name: str
    requirements: tuple[str, ...] = ()
    types: tuple[TypedName, ...] = ()
    constants: tuple[TypedName, ...] = ()
    predicates: tuple[PredicateDef, ...] = ()
    functions: tuple[FunctionDef, ...] = ()
    constraints: Formula | None = None
    thresholds: tuple[Threshold, ...] = ()
    actions: tuple[Action, ...] = ()
    durative_actions: tuple[DurativeAction, ...] = ()
    derived: tuple[DerivedPredicate, ...] = ()


# ---------------------------------------------------------------------------- problems


class Metric(Node):
    direction: Literal["minimize", "maximize"]
    expr: NumericExpr


class DomainRef(Node):
    """`(:domain NAME)` in a problem or a template; its span locates the name."""

    name: str


class Problem(Node):
    name: str
    domain: DomainRef
    requirements: tuple[str, ...] = ()
    objects: tuple[TypedName, ...] = ()
    init: tuple[Formula, ...] = ()
    goal: Formula | None = None
    constraints: Formula | None = None
    metric: Metric | None = None


# ---------------------------------------------------------------------------- templates


class Instruction(Node):
    """One Jinja instruction variant (the string's text, unescaped)."""

    text: str


class InstructionFile(Node):
    """A Jinja file of instruction variants, relative to the template's file."""

    path: str


class Template(Node):
    """`(define (template NAME) ...)`: a task template over a domain."""

    name: str
    domain: DomainRef
    category: str | None = None
    level: int | None = None
    tags: tuple[str, ...] = ()
    version: int = 1
    description: str | None = None
    parameters: tuple[TypedName, ...] = ()
    constraints: Formula | None = None
    goal: Formula | None = None
    instructions: tuple[Instruction, ...] = ()
    instruction_file: InstructionFile | None = None
    ambiguity: Literal["reject", "widen"] = "reject"


Definition = Domain | Problem | Template


class SourceUnit(Node):
    """Everything parsed from one file."""

    path: str
    definitions: tuple[Definition, ...] = ()
