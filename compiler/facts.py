"""What the binder and the grounder may know about a scene and an experience.

The compile-time passes never read the scene graph or the experience log directly: they
ask a `Facts`. Static facts (categories, attributes, furniture in rooms) and history
facts (interacted, order, durations) are answered here and folded away at compile time;
fluent predicates (on, holding, robot-at-object) are only named, never evaluated, and
stay in the ground goal for the checkers.

`TableFacts` is the plain in-memory implementation: entities with their types, and
tables of true static/history atoms and function values. The scene-backed one (over a
`SceneGraph`, an `Experience` and the predicate registry) builds such tables.
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from fdc.predicates.hierarchy import type_ancestors

Kind = Literal["static", "history", "fluent"]


class Facts(Protocol):
    """The compile-time view of one scene (and one experience)."""

    def entities(self, types: Sequence[str]) -> Sequence[str]:
        """Ids of the entities of any of `types` (or their subtypes; `()` is every
        entity), sorted."""
        ...

    def kind(self, predicate: str) -> Kind:
        """When the predicate is known: at compile time (static, history) or at run time."""
        ...

    def holds(self, predicate: str, args: Sequence[str]) -> bool:
        """A static or history atom's truth (a fluent one raises `ValueError`)."""
        ...

    def true_atoms(self, predicate: str) -> Sequence[tuple[str, ...]]:
        """Every true ground atom of a static or history predicate, sorted: the index
        the binder joins on instead of enumerating a cartesian product."""
        ...

    def value(self, function: str, args: Sequence[str]) -> float | None:
        """A numeric function's value at compile time (None: undefined)."""
        ...


@dataclass
class TableFacts:
    """`Facts` from explicit tables; used by tests and built by the scene-backed facts."""

    types: Mapping[str, tuple[str, ...]]  # entity -> its types (most specific first)
    parents: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # type hierarchy
    kinds: Mapping[str, Kind] = field(default_factory=dict)  # predicate -> kind
    atoms: Mapping[str, Iterable[tuple[str, ...]]] = field(default_factory=dict)
    values: Mapping[str, Mapping[tuple[str, ...], float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._atoms = {p: sorted(set(map(tuple, rows))) for p, rows in self.atoms.items()}
        self._sets = {p: set(rows) for p, rows in self._atoms.items()}

    def entities(self, types: Sequence[str]) -> Sequence[str]:
        if not types or "object" in types:
            return sorted(self.types)
        wanted = set(types)
        return sorted(
            e
            for e, ts in self.types.items()
            if any(wanted & type_ancestors(t, self.parents) for t in ts)
        )

    def kind(self, predicate: str) -> Kind:
        return self.kinds.get(predicate, "fluent")

    def holds(self, predicate: str, args: Sequence[str]) -> bool:
        if self.kind(predicate) == "fluent":
            raise ValueError(f"`{predicate}` is fluent: it has no truth at compile time")
        return tuple(args) in self._sets.get(predicate, set())

    def true_atoms(self, predicate: str) -> Sequence[tuple[str, ...]]:
        if self.kind(predicate) == "fluent":
            raise ValueError(f"`{predicate}` is fluent: it has no table at compile time")
        return self._atoms.get(predicate, [])

    def value(self, function: str, args: Sequence[str]) -> float | None:
        return self.values.get(function, {}).get(tuple(args))
