"""A PDDL type hierarchy: each type's parents, `object` the root above every type.

The one implementation the type checker (`fdc.compiler.domains.DomainInfo`), the
registry's agreement with a domain (`Registry.signature_problems`, checkers reading
`Context.type_parents`) and habitat-lab's YAML domain (`fdc.interop.habitat.pddl_yaml`)
share. See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def type_ancestors(t: str, parents: Mapping[str, Sequence[str]]) -> set[str]:
    """`t`, every type above it in `parents`, and `object`."""
    seen, stack = {t, "object"}, [t]
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def type_text(types: Sequence[str]) -> str:
    """Types as PDDL writes them: `object` for none, the one type, or an `either`."""
    if not types:
        return "object"
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


class TypeHierarchy:
    """Types and their parents (several for a type declared under an `either` or twice).

    `parents` is held, not copied: a domain being resolved adds to it. Ancestors are
    cached once asked for, so add every type before asking."""

    def __init__(self, parents: dict[str, tuple[str, ...]] | None = None) -> None:
        self.parents: dict[str, tuple[str, ...]] = {} if parents is None else parents
        self._ancestors: dict[str, frozenset[str]] = {}

    def has_type(self, name: str) -> bool:
        return name == "object" or name in self.parents

    def ancestors(self, name: str) -> frozenset[str]:
        """`name` and every type above it (always including `object`)."""
        cached = self._ancestors.get(name)
        if cached is None:
            cached = self._ancestors[name] = frozenset(type_ancestors(name, self.parents))
        return cached

    def lineage(self, name: str) -> list[str]:
        """`name` and the types above it through each one's first parent, most specific
        first, ending with `object`."""
        out = [name]
        while (parents := self.parents.get(out[-1])) and parents[0] not in out:
            out.append(parents[0])
        if out[-1] != "object":
            out.append("object")
        return out

    def subtype(self, sub: Sequence[str], sup: Sequence[str]) -> bool:
        """Every type in `sub` (an `either`; `()` is object) lies under some type of `sup`."""
        if not sup or "object" in sup:
            return True
        return all(any(s in self.ancestors(t) for s in sup) for t in (sub or ("object",)))

    def overlaps(self, a: Sequence[str], b: Sequence[str]) -> bool:
        """Some entity could have both types (one lies under the other)."""
        if self.subtype(a, b) or self.subtype(b, a):
            return True
        return any(x in self.ancestors(y) or y in self.ancestors(x)
                   for x in a or ("object",) for y in b or ("object",))
