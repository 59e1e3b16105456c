"""The describe pass: a referring expression for each entity an instruction names.

A description is a head noun (the item's name, "mug"; a surface's furniture, "kitchen
counter", or "second shelf of the bookshelf" when the furniture has several: numbered
from the bottom, as fdc's scenes number shelves; a room's name) with the fewest
features that tell the entity apart from its distractors: the other entities of the
same kind with the same head noun. The features, in order of preference:
the attributes (size, shape, color, material: "small red ceramic mug"), then a relation:
the surface it stands on ("the mug on the kitchen counter", "the milk in the lower
compartment of the fridge"), then the room it is in. Every
subset of features is tried from the smallest up (the preference order breaks ties), so
the description is minimal, not just short. A relation is compared by its words, not its
entity: "on the table" tells nothing apart when there are two tables.

When no subset singles a piece of furniture (or a surface of one) out, the last resort
is its place left to right among the furniture of its name in its room, as seen from
the room's doorway ("the left counter", "the top of the second cabinet from the right";
"the left kitchen counter" when another room has one so placed:
`fdc.instructions.ordinals`); it is given only when that order is clear. Surfaces of
one piece of furniture that their names do not tell apart are named by their height
("the second shelf from the top").
When nothing singles the entity out, the description is the smallest subset that leaves
the fewest distractors, and `fits` lists every entity it fits: the template's ambiguity
policy then rejects the binding or widens the goal to all of them.

Values (colors, categories, cells, clock times) are their own words and never ambiguous.
Relations are read in a world state: where things stand when the task begins.
See docs/instructions.md.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fdc.instructions.filters import ordinal_word, with_article
from fdc.instructions.ordinals import (
    ACROSS,
    UP,
    Order,
    across,
    doorways,
    order_words,
)
from fdc.predicates.checkers.attributes import attribute_values

if TYPE_CHECKING:
    from fdc.compiler.scene_facts import SceneFacts
    from fdc.sim_bridge.world.state import WorldState

#: Attributes that make adjectives, in English adjective order.
ADJECTIVES = ("size", "shape", "color", "material")

#: Relations, in order of preference; a description uses at most one.
RELATIONS = ("on", "in", "on-in", "near", "with")

#: Furniture this close (footprints, metres) is "next to" a piece of furniture.
NEAR_M = 0.6


def relative_clause(kind: str, relation: str) -> str:
    """A relation as a relative clause, for a noun phrase next to another locative:
    'that is on the desk', 'that has a vase on it'."""
    if kind == "with":
        return "that has " + relation.removeprefix("with ")
    return f"that is {relation}"

_KIND_OF_TYPE = {"room": "room", "surface": "surface", "furniture": "furniture",
                 "movable": "movable"}


@dataclass(frozen=True)
class Description:
    """How an instruction names one entity."""

    entity: str
    phrase: str  # without article: "red mug on the kitchen counter"
    fits: tuple[str, ...]  # every entity the phrase fits (the entity alone when unique)
    value: bool = False  # a value (color, category, clock time): no article
    features: tuple[str, ...] = ()  # the features the phrase uses ("color", "on", ...)
    inside: bool = False  # things go in it (a compartment, a container), not on it
    noun: str = ""  # the phrase without its relation: "red mug"
    relation: str = ""  # its relation, if any: "on the desk", "next to the fridge"
    relation_kind: str = ""  # which (`RELATIONS`): "on", "near", ...

    @property
    def clause(self) -> str:
        """The definite description with its relation as a relative clause: 'the mug
        that is on the desk' (the description itself when it has no relation)."""
        if not self.relation:
            return self.definite
        return f"the {self.noun} {relative_clause(self.relation_kind, self.relation)}"

    @property
    def unique(self) -> bool:
        return len(self.fits) == 1

    @property
    def definite(self) -> str:
        return self.phrase if self.value else f"the {self.phrase}"


def words(name: str) -> str:
    """An identifier as words: `toy_car` -> 'toy car', `front-left` -> 'front left'."""
    return name.replace("_", " ").replace("-", " ").strip()


def clock_words(minutes: str) -> str:
    m = int(minutes)
    return f"{m // 60 % 24:02d}:{m % 60:02d}"


class Describer:
    """Descriptions of one scene's entities in one world state (memoised)."""

    def __init__(self, facts: SceneFacts, state: WorldState) -> None:
        self.facts = facts
        self.graph = facts.graph
        self.state = state
        self._features: dict[str, dict[str, str]] = {}
        self._heads: dict[str, str] = {}
        self._by_head: dict[tuple[str, str], list[str]] | None = None
        self._done: dict[tuple[str, tuple[str, ...]], Description] = {}
        self._near: dict[str, frozenset[str]] = {}
        self._contents: dict[str, frozenset[str]] = {}
        self._items_on: dict[str, list[str]] | None = None
        self._parts_of: dict[str, dict[str, str]] = {}
        self._places: dict[str, Order] | None = None  # object -> its place
        # (kind, head, features) -> the features chosen and every entity they fit
        self._classes: dict[tuple[str | None, str, tuple[tuple[str, str], ...]],
                            tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {}

    # ------------------------------------------------------------------ classes and heads

    def kind(self, entity: str) -> str | None:
        """movable, furniture, surface, room, or None for a value."""
        t = self.facts.type_of(entity)
        if t is None:
            raise KeyError(f"unknown entity `{entity}`")
        ancestors = self.facts.domain.ancestors(t)
        for k in ("room", "surface", "furniture", "movable"):
            if k in ancestors:
                return _KIND_OF_TYPE[k]
        return None

    def head(self, entity: str) -> str:
        found = self._heads.get(entity)
        if found is not None:
            return found
        kind = self.kind(entity)
        h: str
        if kind == "room":
            h = self.graph.room(entity).name
        elif kind == "surface":
            part, owner = self._surface_parts(entity)
            h = f"{part} of the {owner}" if part else owner
        elif kind is not None:
            h = self.graph.object(entity).name
        else:
            h = entity
        self._heads[entity] = h
        return h

    def _surface_parts(self, surface: str) -> tuple[str, str]:
        """('second shelf', 'bookshelf'); ('', 'table') for furniture with one surface."""
        owner = self.graph.object(self.graph.surface(surface).object_id)
        if len(owner.surfaces) == 1:
            return "", owner.name
        return _not_repeated(self._part_words(owner.id)[surface], owner.name), owner.name

    def _part_words(self, owner: str) -> dict[str, str]:
        """The words of each surface of a piece of furniture with several, from its name
        ('top', 'second shelf', 'lower compartment'); surfaces whose names say the same,
        but for a sub-mesh's number (Habitat's `shelf.0000`, `shelf.0001`: numbers
        in no order a reader knows), are told apart by their height ('top shelf',
        'second shelf from the top'), or by their names when the heights are too close
        to tell."""
        found = self._parts_of.get(owner)
        if found is not None:
            return found
        surfaces = [self.graph.surface(s) for s in self.graph.object(owner).surfaces]
        out = {s.id: _surface_words(s.name, s.container is not None) for s in surfaces}
        alike: dict[str, dict[str, float]] = defaultdict(dict)
        for s in surfaces:
            stem, dot, number = s.name.rpartition(".")
            name = stem if dot and number.isdigit() else s.name
            alike[_surface_words(name, s.container is not None)][s.id] = s.z
        for text, heights in alike.items():
            if len(heights) == 1:
                out.update(dict.fromkeys(heights, text))
            for s_id, place in order_words(heights, UP).items():
                out[s_id] = place.around(text)
        found = self._parts_of[owner] = out
        return found

    def features(self, entity: str) -> dict[str, str]:
        """Feature name -> its words, for the entity where it stands now."""
        found = self._features.get(entity)
        if found is not None:
            return found
        kind = self.kind(entity)
        out: dict[str, str] = {}
        # a surface's adjectives are its furniture's
        owner = self.graph.surface(entity).object_id if kind == "surface" else entity
        if kind in ("movable", "furniture", "surface"):
            attrs = self.graph.object(owner).attributes
            for key in ADJECTIVES:
                if attrs.get(key):
                    out[key] = " and ".join(words(v) for v in attribute_values(attrs[key]))
        if kind == "movable":
            support = self.state.support_of(entity)
            if support is not None:
                inside = self.graph.surface(support).container is not None
                out["on"] = f"{'in' if inside else 'on'} the {self.head(support)}"
        if kind in ("movable", "furniture", "surface"):
            room = self.state.room_of(owner)
            if room is not None:
                out["in"] = self.graph.room(room).name
        if "on" in out and "in" in out:
            support = self.state.support_of(entity)
            assert support is not None
            words_ = self._in_room(support, out["in"])
            if words_:
                out["on-in"] = f"{out['on'].split(' ', 1)[0]} the {words_}"
        self._features[entity] = out
        return out

    def _in_room(self, surface: str, room: str) -> str:
        """A surface named with its room as a modifier: 'kitchen table', 'second shelf of
        the bedroom bookshelf' ('' when the name holds the room already)."""
        part, owner = self._surface_parts(surface)
        if not _modifies(room, owner):
            return ""
        noun = f"{room} {owner}"
        return f"{part} of the {noun}" if part else noun

    def landmarks(self, entity: str) -> frozenset[str]:
        """The names of the furniture next to a piece of furniture (or a surface's) whose
        name no other furniture in the room has: what "next to the X" can say."""
        found = self._near.get(entity)
        if found is not None:
            return found
        kind = self.kind(entity)
        out: set[str] = set()
        if kind in ("furniture", "surface"):
            owner = self.graph.object(self.graph.surface(entity).object_id
                                      if kind == "surface" else entity)
            names: dict[str, list[Any]] = defaultdict(list)
            for o in self.graph.objects():
                if o.room == owner.room and not o.is_movable and o.id != owner.id:
                    names[o.name].append(o)
            for name, objs in names.items():
                if len(objs) == 1 and name != owner.name and \
                        owner.footprint.distance(objs[0].footprint) <= NEAR_M:
                    out.add(name)
        found = self._near[entity] = frozenset(out)
        return found

    def contents(self, entity: str) -> frozenset[str]:
        """The categories of the items on a surface (or on a piece of furniture's
        surfaces), where things stand now: what "with a mug on it" can say."""
        found = self._contents.get(entity)
        if found is not None:
            return found
        kind = self.kind(entity)
        out: set[str] = set()
        if kind in ("furniture", "surface"):
            surfaces = (entity,) if kind == "surface" else self.graph.object(entity).surfaces
            if self._items_on is None:
                index: dict[str, list[str]] = defaultdict(list)
                for item in self.state.object_ids():
                    support = self.state.support_of(item)
                    if support is not None:
                        index[support].append(item)
                self._items_on = dict(index)
            for s in surfaces:
                out.update(self.graph.object(i).name for i in self._items_on.get(s, ()))
        found = self._contents[entity] = frozenset(out)
        return found

    def distractors(self, entity: str) -> list[str]:
        """The other entities of the same kind and head noun."""
        if self._by_head is None:
            index: dict[tuple[str, str], list[str]] = defaultdict(list)
            for e in self.facts.types:
                k = self.kind(e)
                if k is not None:
                    index[(k, self.head(e))].append(e)
            self._by_head = dict(index)
        kind = self.kind(entity)
        if kind is None:
            return []
        return [e for e in self._by_head.get((kind, self.head(entity)), []) if e != entity]

    # ------------------------------------------------------------------ descriptions

    def describe(self, entity: str, types: Sequence[str] = ()) -> Description:
        """The entity's description; `types` (a parameter's) says how to read a value
        that has several types (`395`: a clock time, or minutes)."""
        key = (entity, tuple(types))
        found = self._done.get(key)
        if found is not None:
            return found
        kind = self.kind(entity)
        if kind is None:
            clock = "clock-time" in types if types else \
                self.facts.type_of(entity) == "clock-time"
            clock = clock and self.facts.has_type(entity, ("clock-time",))
            text = clock_words(entity) if clock else words(entity)
            found = Description(entity, text, (entity,), value=True)
        else:
            found = self._minimal(entity)
        self._done[key] = found
        return found

    def _minimal(self, entity: str) -> Description:
        """The description of `entity`. Entities of one description class (the same
        kind, head noun and features) have the same distractors but themselves, so the
        choice of features, and the entities it fits, are made once per class: a scene
        of ten thousand identical cups costs one pass over them, not one per cup."""
        options = self.options(entity)
        key = (self.kind(entity), self.head(entity), options)
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = self._choose(entity, options)
        chosen, fits = found
        if len(fits) > 1:
            placed = self._by_place(entity)
            if placed is not None:
                return placed
        noun, kind, relation = self._parts(entity, chosen)
        phrase = f"{noun} {relation}" if relation else noun
        return Description(entity, phrase, fits, features=tuple(n for n, _ in chosen),
                           inside=self.inside(entity), noun=noun, relation=relation,
                           relation_kind=kind)

    def _by_place(self, entity: str) -> Description | None:
        """The last resort: the entity by its place ('the left counter'), with its room as
        a modifier when those words fit furniture elsewhere ('the left kitchen counter');
        None when that does not single it out either."""
        nouns = self.placed_nouns(entity)
        if not nouns:
            return None
        place = self.place(entity)
        left = [d for d in self.distractors(entity) if self.place(d) == place]
        room = ("in", self.features(entity).get("in", ""))
        if left and (len(nouns) == 1 or any(self.fits(d, room) for d in left)):
            return None
        noun = nouns[1] if left else nouns[0]
        return Description(entity, noun, (entity,), features=("place", "in") if left
                           else ("place",), inside=self.inside(entity), noun=noun)

    def placed_nouns(self, entity: str) -> tuple[str, ...]:
        """The names the entity's place gives it: 'left cabinet', then with its room as a
        modifier, 'left kitchen cabinet' (when the room's name may be one); none
        without a place."""
        place = self.place(entity)
        if place is None:
            return ()
        kind = self.kind(entity)
        owner = self.graph.object(self.graph.surface(entity).object_id
                                  if kind == "surface" else entity)
        room = self.features(entity).get("in", "")
        bare = self.noun(entity, (), place)
        return (bare, self.noun(entity, (room,), place)) if _modifies(room, owner.name) \
            else (bare,)

    def place(self, entity: str) -> Order | None:
        """The place of a piece of furniture, or of a surface's furniture, among the
        furniture of its name in its room, left to right as seen from the room's doorway
        (`fdc.instructions.ordinals`); None when there is no such order, or it is not
        clear. Items have none: they move, and "the second box from the left from the
        bed" reads worse than the widened goal."""
        kind = self.kind(entity)
        if kind not in ("furniture", "surface"):
            return None
        if self._places is None:
            self._places = self._furniture_places()
        return self._places.get(self.graph.surface(entity).object_id if kind == "surface"
                                else entity)

    def _furniture_places(self) -> dict[str, Order]:
        """Every piece of furniture's place (`place`), by one pass over the furniture:
        grouped by room and name, each group ordered across its room's view."""
        views = doorways(self.graph)
        groups: dict[tuple[str, str], dict[str, tuple[float, float]]] = defaultdict(dict)
        for o in self.graph.objects():
            if not o.is_movable and o.room in views:
                groups[(o.room, o.name)][o.id] = (o.position[0], o.position[1])
        out: dict[str, Order] = {}
        for (room, _), rivals in groups.items():
            out.update(order_words(across(views[room], rivals), ACROSS))
        return out

    def options(self, entity: str) -> tuple[tuple[str, str], ...]:
        """Every feature the entity's description may use, as (name, words), in order of
        preference: its adjectives, then its relations (one landmark or one kind of
        content per option)."""
        mine = self.features(entity)
        out = [(n, mine[n]) for n in (*ADJECTIVES, "on", "in", "on-in") if n in mine]
        out += [("near", w) for w in sorted(self.landmarks(entity))]
        out += [("with", w) for w in sorted(self.contents(entity))]
        return tuple(out)

    def fits(self, entity: str, option: tuple[str, str]) -> bool:
        """Whether the words of one feature are true of `entity`."""
        name, value = option
        if name == "near":
            return value in self.landmarks(entity)
        if name == "with":
            return value in self.contents(entity)
        return self.features(entity).get(name) == value

    def inside(self, entity: str) -> bool:
        """Whether things go in the entity rather than on it: a container's floor (a
        compartment, a drawer) or a container item (a box, a basket)."""
        kind = self.kind(entity)
        if kind == "surface":
            return self.graph.surface(entity).container is not None
        return kind == "movable" and self.facts.has_type(entity, ("container",))

    def _choose(self, entity: str, options: Sequence[tuple[str, str]]
                ) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """The smallest subset of the entity's features, with at most one relation, that
        leaves the fewest distractors (the preference order breaks ties), and every
        entity it fits."""
        others = self.distractors(entity)
        adjectives = [o for o in options if o[0] in ADJECTIVES]
        relations = [o for o in options if o[0] not in ADJECTIVES]
        best: tuple[int, tuple[tuple[str, str], ...], list[str]] | None = None
        for size in range(len(adjectives) + 2):
            subsets = [*itertools.combinations(adjectives, size),
                       *((*a, r) for a in itertools.combinations(adjectives, size - 1)
                         for r in relations)] if size else [()]
            for subset in subsets:
                left = [d for d in others if all(self.fits(d, o) for o in subset)]
                if best is None or len(left) < best[0]:
                    best = (len(left), subset, left)
                if not left:
                    break
            if best is not None and best[0] == 0:
                break
        assert best is not None
        _, chosen, left = best
        return chosen, tuple(sorted([entity, *left]))

    def _parts(self, entity: str, chosen: Sequence[tuple[str, str]]
               ) -> tuple[str, str, str]:
        """(noun, relation kind, relation): ('red mug', 'on', 'on the desk')."""
        picked = dict(chosen)
        text = self.noun(entity, [picked[n] for n in ADJECTIVES if n in picked])
        for option in chosen:
            if option[0] not in ADJECTIVES:
                return text, option[0], self.relation_words(entity, option)
        return text, "", ""

    def noun(self, entity: str, adjectives: Sequence[str], place: Order | None = None
             ) -> str:
        """The entity's head noun with these adjectives, or with its place: 'red mug',
        'left counter'; a surface's are its furniture's: 'second shelf of the white
        bookshelf', 'top of the second cabinet from the left'."""
        if self.kind(entity) == "surface":
            part, owner = self._surface_parts(entity)
            noun = " ".join([*adjectives, owner])
            noun = place.around(noun) if place else noun
            return f"{part} of the {noun}" if part else noun
        noun = " ".join([*adjectives, self.head(entity)])
        return place.around(noun) if place else noun

    def relation_words(self, entity: str, option: tuple[str, str]) -> str:
        """A relation in words: 'on the desk', 'in the kitchen', 'next to the fridge',
        'with a vase on it'."""
        name, value = option
        if name == "in":
            return f"in the {value}"
        if name == "near":
            return f"next to the {value}"
        if name == "with":
            return f"with {self._some(value)} {'in' if self.inside(entity) else 'on'} it"
        return value

    def relations(self, entity: str) -> list[tuple[str, str]]:
        """Every relation the entity's description may say: (kind, words)."""
        return [(o[0], self.relation_words(entity, o)) for o in self.options(entity)
                if o[0] not in ADJECTIVES]

    def _some(self, category: str) -> str:
        return with_article(category)


def _modifies(room: str, furniture: str) -> bool:
    """Whether a room's name may modify furniture's ('kitchen table'): not when the name
    holds it already ('kitchen counter'), nor a room without a proper name ('room 3')."""
    return bool(room) and room not in furniture and room.split(" ")[0] != "room"


#: What a part is called when its own name is its furniture's: "the first level of the
#: shelf", not "the first shelf of the shelf".
_PART_SYNONYMS = {"shelf": "level", "drawer": "compartment", "compartment": "section",
                  "cabinet": "compartment", "rack": "level", "tier": "level"}


def _not_repeated(part: str, owner: str) -> str:
    """A part's words that do not repeat its furniture's noun ("second shelf" of a
    "shelf" -> "second level", "top shelf" -> "top level"; "top" of anything stays)."""
    noun = owner.split(" ")[-1]
    other = _PART_SYNONYMS.get(noun, "part")
    return " ".join(other if w == noun else w for w in part.split(" "))


def _surface_words(name: str, container: bool) -> str:
    """`shelf_1` -> 'second shelf', `top` -> 'top'; a container's floor is a compartment:
    `lower` -> 'lower compartment', `inside` -> 'compartment'."""
    base, _, index = name.rpartition("_")
    if base and index.isdigit():
        text = f"{ordinal_word(int(index) + 1)} {words(base)}"
    else:
        text = words(name)
    if container:
        text = "compartment" if text in ("inside", "interior", "in") else f"{text} compartment"
    return text
