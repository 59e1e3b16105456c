"""BDDL's synsets as the generated domain's names: types for objects, constants for
substances, types for rooms.

Each synset the activities declare has a role, read from BEHAVIOR's own taxonomy (the
`bddl` package's `ObjectTaxonomy` and its abilities): a `substance` (water, dust) is a
constant of the value type `substance`; a `sceneObject` is furniture, `articulated` when
it is `openable`; anything else is a movable item. `agent.n.01` is the robot and
`floor.n.01` the floor: neither is a type. A synset's type is its word in PDDL spelling
(`bottle__of__orange_juice.n.01` is `bottle-of-orange-juice`), under the nearest of its
BDDL ancestors that the activities also declare with the same role, else under the
role's type of fdc-home. Collisions are resolved so that every name means one thing:
a word fdc-home already declares as a type of the same role is that type (BDDL's `apple`
is fdc-home's `apple`, a fruit); a word fdc-home uses otherwise (a colour, a material, a
type of another role), a second sense of one word, or a substance named like a type
gets the synset's sense as a suffix (`sheet-n03`).

See docs/bddl.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from fdc.interop.bddl.corpus import Activity, require_bddl

AGENT = "agent.n.01"
FLOOR = "floor.n.01"

MOVABLE, FURNITURE, ARTICULATED, SUBSTANCE = "movable", "furniture", "articulated", "substance"


def pddl_name(word: str) -> str:
    """A BDDL word in PDDL spelling: lower case, `_` and `__` as `-`."""
    out = "-".join(p for p in word.lower().replace("__", "_").split("_") if p)
    return out if out and out[0].isalpha() else f"x-{out}"


def synset_word(synset: str) -> str:
    return synset.split(".")[0]


def synset_suffix(synset: str) -> str:
    parts = synset.split(".")
    return f"{parts[1]}{parts[2]}" if len(parts) == 3 else "x"


@cache
def _taxonomy():  # type: ignore[no-untyped-def]
    require_bddl()
    from bddl.object_taxonomy import ObjectTaxonomy

    return ObjectTaxonomy()


def role_of(synset: str) -> str:
    """`substance`, `furniture`, `articulated` or `movable`, by BEHAVIOR's abilities (an
    unknown synset is a movable item)."""
    t = _taxonomy()
    if not t.is_valid_synset(synset):
        return MOVABLE
    abilities = t.get_abilities(synset)
    if "substance" in abilities:
        return SUBSTANCE
    if "sceneObject" in abilities:
        return ARTICULATED if "openable" in abilities else FURNITURE
    return MOVABLE


#: BEHAVIOR's abilities that the embedded world's state rules read, as the words of an
#: object's `abilities` attribute (`fdc.sim_bridge.world.transitions.ABILITIES`).
ABILITY_WORDS = {"heatSource": "heat-source", "coldSource": "freezer",
                 "waterSource": "water-source", "particleRemover": "cleaning-tool",
                 "mixingTool": "mixing-tool"}


def abilities_of(synset: str) -> list[str]:
    """The words of `ABILITY_WORDS` for the synset's abilities in BEHAVIOR's taxonomy (a
    swab is a `particleRemover`: `cleaning-tool`), sorted; none for an unknown synset."""
    t = _taxonomy()
    if not t.is_valid_synset(synset):
        return []
    have = t.get_abilities(synset)
    return sorted(w for a, w in ABILITY_WORDS.items() if a in have)


def synsets_overlap(a: str, b: str) -> bool:
    """Whether one thing can be both an `a` and a `b`: the same synset, or one an
    ancestor of the other in BEHAVIOR's taxonomy (an unknown synset: only itself)."""
    if a == b:
        return True
    t = _taxonomy()
    if not (t.is_valid_synset(a) and t.is_valid_synset(b)):
        return False
    return bool(t.is_ancestor(a, b) or t.is_ancestor(b, a))


def _parents(synset: str) -> list[str]:
    t = _taxonomy()
    return sorted(t.get_parents(synset)) if t.is_valid_synset(synset) else []


@dataclass(frozen=True)
class FdcHome:
    """The names fdc-home declares: each type with its ancestors, and the constants."""

    ancestors: dict[str, frozenset[str]]
    constants: frozenset[str]


@dataclass
class Vocabulary:
    """The generated domain's names for the synsets and rooms of a set of activities."""

    roles: dict[str, str] = field(default_factory=dict)  # synset -> role
    names: dict[str, str] = field(default_factory=dict)  # synset -> type or constant
    parents: dict[str, str] = field(default_factory=dict)  # new type -> its parent type
    substances: dict[str, str] = field(default_factory=dict)  # synset -> constant
    rooms: dict[str, str] = field(default_factory=dict)  # BDDL room word -> room type
    new_rooms: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)  # synset -> why it has a suffix

    def type_of(self, synset: str) -> str:
        return self.names[synset]

    def role(self, synset: str) -> str:
        return self.roles.get(synset, MOVABLE)

    def word(self, synset: str) -> str:
        """The words an instruction uses for the synset's things."""
        return synset_word(synset).replace("__", " ").replace("_", " ")


def build_vocabulary(activities: Sequence[Activity], home: FdcHome) -> Vocabulary:
    """The names of every synset and room `activities` use, collisions resolved."""
    synsets: set[str] = set()
    rooms: set[str] = set()
    for a in activities:
        synsets.update(a.objects)
        for fact in a.init:
            if isinstance(fact, list) and len(fact) == 3 and fact[0] == "inroom":
                rooms.add(str(fact[2]))
        synsets.update(_quantified(a.goal))
    synsets -= {AGENT, FLOOR}
    v = Vocabulary()
    taken: dict[str, str] = {}  # name -> what it names (synset, room, or fdc-home)
    for name in [*home.ancestors, *home.constants]:
        taken[name] = "fdc-home"
    for synset in sorted(synsets):
        v.roles[synset] = role_of(synset)
    # the plain word goes to the lowest sense of a word; the others get their sense
    order = sorted(synsets, key=lambda s: (synset_word(s), _sense(s), s))
    for synset in order:
        role = v.roles[synset]
        word = pddl_name(synset_word(synset))
        base = MOVABLE if role == MOVABLE else FURNITURE if role in (FURNITURE, ARTICULATED) \
            else SUBSTANCE
        have = home.ancestors.get(word)
        if role != SUBSTANCE and have is not None and base in have and \
                (role != ARTICULATED or ARTICULATED in have) and taken.get(word) == "fdc-home":
            v.names[synset] = word  # fdc-home's own type
            taken[word] = synset
            continue
        name = word
        if name in taken:
            name = f"{word}-{synset_suffix(synset)}"
            v.renamed[synset] = f"`{word}` is {_what(taken[word])}"
        while name in taken:
            name += "-x"
        taken[name] = synset
        v.names[synset] = name
        if role == SUBSTANCE:
            v.substances[synset] = name
    for synset in order:
        role = v.roles[synset]
        if role == SUBSTANCE or synset in home_types(v, home):
            continue
        v.parents[v.names[synset]] = _parent(synset, v)
    for r in sorted(rooms):
        word = pddl_name(r)
        have = home.ancestors.get(word)
        if have is not None and "room" in have:
            v.rooms[r] = word
            continue
        name = word if word not in taken else f"{word}-room"
        while name in taken:
            name += "-x"
        taken[name] = r
        v.rooms[r] = name
        v.new_rooms.append(name)
    return v


def home_types(v: Vocabulary, home: FdcHome) -> set[str]:
    """The synsets that are fdc-home's own types."""
    return {s for s, n in v.names.items() if n in home.ancestors}


def _what(owner: str) -> str:
    return "fdc-home's" if owner == "fdc-home" else f"`{owner}`'s"


def _sense(synset: str) -> int:
    parts = synset.split(".")
    return int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else 99


def _parent(synset: str, v: Vocabulary) -> str:
    """The nearest BDDL ancestor declared with the same role, breadth first (parents in
    name order), else the role's fdc-home type."""
    role = v.roles[synset]
    seen = {synset}
    frontier = _parents(synset)
    while frontier:
        nxt: list[str] = []
        for p in frontier:
            if p in seen:
                continue
            seen.add(p)
            if p in v.names and v.roles.get(p) == role and p not in (AGENT, FLOOR):
                return v.names[p]
            nxt.extend(_parents(p))
        frontier = nxt
    return role


def _quantified(goal: Iterable[object]) -> set[str]:
    """The synsets a goal quantifies over."""
    out: set[str] = set()
    stack = list(goal)
    while stack:
        e = stack.pop()
        if not isinstance(e, list):
            continue
        for x in e:
            if isinstance(x, list) and len(x) == 3 and x[1] == "-" and isinstance(x[2], str):
                out.add(x[2])
        stack.extend(x for x in e if isinstance(x, list))
    return out
