"""`Facts` over a real scene: the scene graph, an experience log and the predicate registry.

Entities and their types (the domain's type names):

- a movable item has its scene category's type when the domain declares it under
  `movable` (a scene `mug` is a `mug`, so also `tableware` and `movable`), except a type
  under `container` for an item with no container floor (a lidded `box`), else
  `container` when it has a container floor (a basket), else `movable`;
- furniture is `articulated` when it has parts that open, else `furniture` (built-in
  stage objects with surfaces, such as a kitchen counter, are furniture too);
- a surface of a piece of furniture is a `furniture-surface`, a `receptacle` (under
  `furniture-surface`) when it lies inside the furniture (a shelf in a cabinet); a
  surface of a movable item is an `item-top` (a tray's top; a container item's floor
  too, where items are `inside` the item rather than on a top); a room is a `room`;
- the domain's constants have their declared types;
- `category`: every category word of the scene's items and the types above it below
  `movable` (`mug`, `tableware`; not `container`, a shape rather than a kind), so
  `(is-category ?o ?c)` binds `?c`;
- values taken from the experience log (`LOG_VALUES`): `clock-time`, one per complete
  interaction, its midpoint rounded to the minute, as a decimal string ("395" is
  06:35); `minutes`, each interacted item's interaction time in whole minutes. A value
  may have both types.

Static and history atoms are decided by the registered checkers (so compile time and run
time agree by construction). A predicate's table of true atoms is built on first use:
by a direct construction for the built-in predicates whose argument product would be
large (`is-category`, `surface-of`, `furniture-in-room`, `next-interaction`,
`picked-from`, `placed-on`, `on`, `in-cell`), otherwise by evaluating the checker over
the product of its argument types' entities. Tests hold each direct construction to the checker.

`StateFacts` is the view the binder uses for `:constraints`: the same facts, with the
fluent predicates decided in one world state (the scene's initial state for a process
task, the world the experience left behind for a memory task).
See docs/architecture.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from fdc.core.errors import FdcError
from fdc.predicates.builtin import default_registry
from fdc.predicates.checkers.attributes import pddl_word
from fdc.predicates.checkers.memory import clock_time_values, minutes_values
from fdc.predicates.registry import Context, EvaluationError, Registry
from fdc.predicates.registry import Kind as CheckerKind
from fdc.sim_bridge.scene.schema import Kind as SceneKind
from fdc.sim_bridge.world.experience import Experience, interaction_sequence
from fdc.sim_bridge.world.transitions import recipe_form

from .facts import Kind

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import WorldState

    from .check import DomainInfo

Row = tuple[str, ...]

#: Above this many candidate atoms, a table is refused rather than computed.
MAX_TABLE_PRODUCT = 5_000_000


#: Types above a category that are no kind of it: `container` is what an item's shape
#: allows (a basket of no declared type is one too), so "the containers" would leave out
#: the items whose word is not a type under it.
_NOT_KINDS = frozenset({"object", "movable", "value", "container"})


class FactsError(FdcError):
    """The scene cannot be given a compile-time meaning (an id clash, a huge table)."""


_VALUE = "value"

#: Types whose entities are values taken from the experience log.
LOG_VALUES: Mapping[str, Callable[[Experience], Sequence[str]]] = {
    "clock-time": clock_time_values,  # midpoints of interactions: "395" is 06:35
    "minutes": minutes_values,  # interaction times in whole minutes
}


class SceneFacts:
    """The compile-time view of one scene and (optionally) one experience."""

    def __init__(
        self,
        graph: SceneGraph,
        domain: DomainInfo,
        experience: Experience | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.graph = graph
        self.domain = domain
        self.experience = experience
        self.registry = registry or default_registry()
        self.context = Context(
            graph=graph, experience=experience, type_parents=dict(domain.parents)
        )
        self._tables: dict[str, list[Row]] = {}
        self._sets: dict[str, set[Row]] = {}
        self._holds: dict[tuple[str, Row], bool] = {}
        self._values: dict[tuple[str, Row], float | None] = {}
        self._entities: dict[tuple[str, ...], list[str]] = {}
        self._domain_sets: dict[str, list[frozenset[str]]] = {}

    # ------------------------------------------------------------------ entities

    def _movable_type(self, category: str, is_container: bool) -> str:
        """An item's type: its category when the domain declares that type under
        `movable`, else `container` or `movable`. An item with no container floor is
        never given a type under `container` (a lidded `box` is a `movable`), as a piece
        of furniture that does not open is never `articulated`."""
        word: str = pddl_word(category)
        if self.domain.has_type(word) and "movable" in self.domain.ancestors(word) and (
                is_container or "container" not in self.domain.ancestors(word)):
            return word
        return "container" if is_container and self.domain.has_type("container") else "movable"

    def _category_type(self, category: str, base: str) -> str:
        """A piece of furniture's or a room's type: its category when the domain declares
        that type under `base` (`counter` under `furniture`), else `base`. A piece that
        does not open is never given a type under `articulated` (a fixed `cabinet`)."""
        word: str = pddl_word(category)
        if not self.domain.has_type(word):
            return base
        ancestors = self.domain.ancestors(word)
        if base not in ancestors or (base != "articulated" and "articulated" in ancestors):
            return base
        return word

    def _surface_type(self, inside: bool, of_item: bool) -> str:
        """A surface's type: `item-top`, `receptacle` or `furniture-surface`; `surface`
        in a domain without the subtypes."""
        want = "item-top" if of_item else "receptacle" if inside else "furniture-surface"
        if self.domain.has_type(want):
            return want
        return "receptacle" if inside and self.domain.has_type("receptacle") else "surface"

    @cached_property
    def types(self) -> dict[str, tuple[str, ...]]:
        """Every entity and its types, most specific first. A scene entity has one; a
        value taken from the log may have several (`3` minutes and clock-time 00:03)."""
        out: dict[str, tuple[str, ...]] = {}

        def add(ident: str, t: str, value: bool = False) -> None:
            if ident in out:
                if value and all(_VALUE in self.domain.ancestors(x) for x in out[ident]):
                    if t not in out[ident]:
                        out[ident] = (*out[ident], t)
                    return
                raise FactsError(
                    f"`{ident}` names two entities (a {out[ident][0]} and a {t}); "
                    "give scene objects, rooms and surfaces ids that differ from the "
                    "domain's constants and category words"
                )
            out[ident] = (t,)

        g = self.graph
        categories: set[str] = set()
        for o in g.objects():
            if o.kind is SceneKind.MOVABLE:
                add(o.id, self._movable_type(o.category, bool(g.containers_of(o.id))))
                categories.add(pddl_word(o.category))
            elif o.kind is SceneKind.ARTICULATED:
                add(o.id, self._category_type(o.category, "articulated"))
            elif o.kind is SceneKind.FURNITURE or o.surfaces:
                add(o.id, self._category_type(o.category, "furniture"))
        for s in g.surfaces():
            if s.object_id in out:
                add(s.id, self._surface_type(s.container is not None,
                                             g.object(s.object_id).kind is SceneKind.MOVABLE))
        for r in g.rooms():
            add(r.id, self._category_type(r.category, "room"))
        for const in self.domain.constants.values():
            add(const.name, const.types[0] if const.types else "object")
        if self.domain.has_type("category"):
            words: set[str] = set()
            for c in categories:
                words |= {
                    a for a in self.domain.ancestors(c) if a not in _NOT_KINDS
                } if self.domain.has_type(c) else {c}
            for w in sorted(words):
                if w not in out:  # a constant of the same spelling already stands for it
                    add(w, "category")
        if self.experience is not None:
            for t, values in LOG_VALUES.items():
                if self.domain.has_type(t):
                    for v in values(self.experience):
                        add(v, t, value=True)
        return dict(sorted(out.items()))

    def entities(self, types: Sequence[str]) -> Sequence[str]:
        key = tuple(types)
        found = self._entities.get(key)
        if found is None:
            if not types or "object" in types:
                found = list(self.types)
            else:
                wanted = set(types)
                found = [e for e, ts in self.types.items()
                         if any(wanted & self.domain.ancestors(t) for t in ts)]
            self._entities[key] = found
        return found

    def type_of(self, entity: str) -> str | None:
        """The entity's (first) type."""
        ts = self.types.get(entity)
        return ts[0] if ts else None

    def has_type(self, entity: str, types: Sequence[str]) -> bool:
        """Whether the entity is of one of `types` (or a subtype)."""
        wanted = set(types)
        return any(wanted & self.domain.ancestors(t) for t in self.types.get(entity, ()))

    # ------------------------------------------------------------------ atoms

    def kind(self, predicate: str) -> Kind:
        if predicate == "=":
            return "static"
        if predicate not in self.registry:
            return "fluent"
        k = self.registry.checker(predicate).kind
        return "static" if k is CheckerKind.STATIC else "history" if k is CheckerKind.HISTORY \
            else "fluent"

    def _require_compile_time(self, predicate: str, what: str) -> None:
        if self.kind(predicate) == "fluent":
            raise ValueError(f"`{predicate}` is fluent: it has no {what} at compile time")

    def holds(self, predicate: str, args: Sequence[str]) -> bool:
        self._require_compile_time(predicate, "truth")
        return self._holds_in(predicate, tuple(args), self.context)

    def _holds_in(self, predicate: str, args: Row, ctx: Context) -> bool:
        if predicate in self._sets:
            return args in self._sets[predicate]
        key = (predicate, args)
        found = self._holds.get(key)
        if found is None:
            if any(a not in self.types for a in args):
                found = False
            elif (
                self.registry.checker(predicate).kind is CheckerKind.HISTORY
                and ctx.experience is None
            ):
                found = False  # no experience: nothing happened
            else:
                found = self.registry.evaluate(predicate, args, ctx)
            self._holds[key] = found
        return found

    def true_atoms(self, predicate: str) -> Sequence[Row]:
        self._require_compile_time(predicate, "table")
        return self._table(predicate, self.context)

    def _table(self, predicate: str, ctx: Context,
               tables: dict[str, list[Row]] | None = None,
               sets: dict[str, set[Row]] | None = None) -> list[Row]:
        """The predicate's true atoms in `ctx`, memoised in `tables`/`sets` (this
        object's own by default; a `StateFacts` keeps its own for its state)."""
        tables = self._tables if tables is None else tables
        sets = self._sets if sets is None else sets
        rows = tables.get(predicate)
        if rows is None:
            build = _DIRECT.get(predicate)
            if self.registry.checker(predicate).kind is CheckerKind.HISTORY and (
                ctx.experience is None
            ):
                raw: Iterable[Row] = ()
            elif build is not None:
                raw = build(self, ctx)
            else:
                raw = self._product_table(predicate, ctx)
            rows = sorted(set(r for r in raw if self._typed(predicate, r)))
            tables[predicate] = rows
            sets[predicate] = set(rows)
        return rows

    def _param_domains(self, predicate: str) -> list[Sequence[str]]:
        decl = self.domain.predicates.get(predicate)
        if decl is not None:
            return [self.entities(p.types) for p in decl.parameters]
        return [self.entities(p.types) for p in self.registry.checker(predicate).params]

    def _typed(self, predicate: str, row: Row) -> bool:
        doms = self._param_domain_sets(predicate)
        return len(row) == len(doms) and all(a in d for a, d in zip(row, doms, strict=True))

    def _param_domain_sets(self, predicate: str) -> list[frozenset[str]]:
        cached = self._domain_sets.get(predicate)
        if cached is None:
            cached = self._domain_sets[predicate] = [
                frozenset(d) for d in self._param_domains(predicate)
            ]
        return cached

    def _product_table(self, predicate: str, ctx: Context) -> list[Row]:
        doms = self._param_domains(predicate)
        size = math.prod(len(d) for d in doms)
        if size > MAX_TABLE_PRODUCT:
            raise FactsError(
                f"the table of `{predicate}` would need {size} evaluations "
                f"(more than {MAX_TABLE_PRODUCT}); give the predicate a direct "
                "construction in fdc.compiler.scene_facts"
            )
        rows = list(itertools.product(*doms))
        if not rows:
            return []
        truth = self.registry.evaluate_many(predicate, rows, ctx)
        return [r for r, ok in zip(rows, truth.tolist(), strict=True) if ok]

    def value(self, function: str, args: Sequence[str]) -> float | None:
        key = (function, tuple(args))
        if key in self._values:
            return self._values[key]
        out: float | None
        if function not in self.registry or any(a not in self.types for a in args) or (
            self.registry.checker(function).kind is CheckerKind.HISTORY
            and self.experience is None
        ):
            out = None
        else:
            try:
                out = self.registry.value(function, args, self.context)
            except EvaluationError:
                out = None
        if out is not None and not math.isfinite(out):
            out = None
        self._values[key] = out
        return out


class StateFacts:
    """`SceneFacts` with fluent predicates decided in one world state (for constraints)."""

    def __init__(self, base: SceneFacts, state: WorldState) -> None:
        self.base = base
        self.context = base.context.with_state(state)
        self._tables: dict[str, list[Row]] = {}
        self._sets: dict[str, set[Row]] = {}
        self._holds: dict[tuple[str, Row], bool] = {}

    def entities(self, types: Sequence[str]) -> Sequence[str]:
        return self.base.entities(types)

    def kind(self, predicate: str) -> Kind:
        k = self.base.kind(predicate)
        return "static" if k == "fluent" else k

    def holds(self, predicate: str, args: Sequence[str]) -> bool:
        if self.base.kind(predicate) != "fluent":
            return self.base.holds(predicate, args)
        row = tuple(args)
        table = self.direct_set(predicate)
        if table is not None:
            return row in table
        key = (predicate, row)
        found = self._holds.get(key)
        if found is None:
            found = all(a in self.base.types for a in row) and self.base.registry.evaluate(
                predicate, row, self.context
            )
            self._holds[key] = found
        return found

    def true_atoms(self, predicate: str) -> Sequence[Row]:
        if self.base.kind(predicate) != "fluent":
            return self.base.true_atoms(predicate)
        return self.base._table(predicate, self.context, self._tables, self._sets)

    def direct_set(self, predicate: str) -> set[Row] | None:
        """A fluent's true atoms in this state, when it has a direct table (built on
        first use: a look-up then beats asking the checker about thousands of atoms);
        None otherwise."""
        if predicate not in _DIRECT or self.base.kind(predicate) != "fluent":
            return None
        self.true_atoms(predicate)
        return self._sets[predicate]

    def value(self, function: str, args: Sequence[str]) -> float | None:
        if self.base.kind(function) != "fluent":
            return self.base.value(function, args)
        try:
            v = self.base.registry.value(function, args, self.context)
        except EvaluationError:
            return None
        return v if v is not None and math.isfinite(v) else None


# ---------------------------------------------------------------------- direct tables


def _is_category(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    for e in f.entities(("movable",)):
        cat = pddl_word(f.graph.object(e).category)
        for a in (f.domain.ancestors(cat) if f.domain.has_type(cat) else {cat}):
            yield (e, a)


def _surface_of(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    for s in f.graph.surfaces():
        yield (s.id, s.object_id)


def _furniture_in_room(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    for e in f.entities(("furniture",)):
        room = f.graph.object(e).room
        if room is not None:
            yield (e, room)


def _next_interaction(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    seq = interaction_sequence(ctx.experience) if ctx.experience is not None else ()
    candidates = list(itertools.pairwise(seq))
    return _confirmed(f, "next-interaction", candidates, ctx)


def _interaction_surfaces(attr: str, name: str) -> Callable[[SceneFacts, Context], Iterable[Row]]:
    def build(f: SceneFacts, ctx: Context) -> Iterable[Row]:
        log = ctx.experience
        if log is None:
            return []
        candidates = [
            (i.object, getattr(i, attr)) for i in log.interactions if getattr(i, attr) is not None
        ]
        return _confirmed(f, name, candidates, ctx)

    return build


def _under(f: SceneFacts, ctx: Context) -> list[Row]:
    """Each item with each surface under its centre: the only surfaces it can rest on,
    or lie in a cell of."""
    import shapely

    state = ctx.require_state()
    surfaces = f.graph.surfaces()
    tree = shapely.STRtree([s.polygon for s in surfaces])
    out: list[Row] = []
    for e in f.entities(("movable",)):
        x, y, _ = state.object_pose(e).position
        out.extend((e, surfaces[k].id) for k in tree.query(shapely.Point(x, y)).tolist())
    return out


def _on(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    return _confirmed(f, "on", _under(f, ctx), ctx)


def _in_cell(f: SceneFacts, ctx: Context) -> Iterable[Row]:
    cells = f.entities(("cell",))
    return _confirmed(f, "in-cell", [(e, s, c) for e, s in _under(f, ctx) for c in cells], ctx)


def _confirmed(f: SceneFacts, predicate: str, candidates: Sequence[Row], ctx: Context
               ) -> list[Row]:
    """The candidates the checker itself confirms (so a direct table never disagrees)."""
    rows = [r for r in dict.fromkeys(candidates) if f._typed(predicate, r)]
    if not rows:
        return []
    truth = f.registry.evaluate_many(predicate, rows, ctx)
    return [r for r, ok in zip(rows, truth.tolist(), strict=True) if ok]


def _recipes(kind: str) -> Callable[[SceneFacts, Context], Iterable[Row]]:
    """The rows of a recipe static (`cooks-into`, `melts-into`, `mixes-into-2` ...) read
    straight from the scene's recipes in their abstraction form (`transitions.
    recipe_form`, as the checkers read them; a product table over the substances would
    ask about millions of atoms)."""
    def rows(f: SceneFacts, ctx: Context) -> Iterable[Row]:
        for r in f.graph.scene.recipes or ():
            form = recipe_form(r)
            if form is None or form.static != kind:
                continue
            out = pddl_word(r.output)
            if form.item is None:
                yield (*form.substances, out)
            else:
                yield from ((e, out) for e in f.entities(("movable",))
                            if pddl_word(f.graph.object(e).category) == form.item)
    return rows


_DIRECT: Mapping[str, Callable[[SceneFacts, Context], Iterable[Row]]] = {
    "cooks-into": _recipes("cooks-into"),
    "cooks-into-2": _recipes("cooks-into-2"),
    "melts-into": _recipes("melts-into"),
    "mixes-into-2": _recipes("mixes-into-2"),
    "mixes-into-3": _recipes("mixes-into-3"),
    "is-category": _is_category,
    "surface-of": _surface_of,
    "furniture-in-room": _furniture_in_room,
    "next-interaction": _next_interaction,
    "picked-from": _interaction_surfaces("picked_from", "picked-from"),
    "placed-on": _interaction_surfaces("placed_on", "placed-on"),
    "on": _on,
    "in-cell": _in_cell,
}
