"""fdc's names as BDDL's: a category's synset, a substance's synset, a room type's word.

The inverse of `vocabulary`: the names `fdc import bddl --corpus` gives BEHAVIOR-1K's
synsets, read back (`bottle-of-orange-juice` is `bottle__of__orange_juice.n.01`), then a
synset of BEHAVIOR's taxonomy spelled like the category (`mug` is `mug.n.04`, the lowest
sense the taxonomy has), then the few words of fdc's own scene catalogue BEHAVIOR spells
otherwise (`counter` is `countertop.n.01`). A category none of these name has no synset:
a task about it cannot be said in BDDL.

See docs/bddl.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.vocabulary import (
    AGENT,
    FLOOR,
    _taxonomy,
    build_vocabulary,
    pddl_name,
    synset_word,
)
from fdc.predicates.checkers.attributes import pddl_word

#: fdc's catalogue words (sim_bridge/scene/generate.py, the example scenes) that
#: BEHAVIOR's taxonomy spells otherwise.
CATALOGUE = {
    "counter": "countertop.n.01",
    "bookshelf": "bookcase.n.01",
    "sink-cabinet": "sink.n.01",
    "fridge": "electric_refrigerator.n.01",
    "coffee-table": "coffee_table.n.01",
    "washing-machine": "washer.n.03",
    "toy-car": "toy_car.n.01",
    "glass": "water_glass.n.02",
    "plant": "pot_plant.n.01",
    "sideboard": "console_table.n.01",
    "wardrobe": "wardrobe.n.01",
}


@dataclass(frozen=True)
class BddlNames:
    """Synsets by fdc type name, by substance constant; BDDL room words by room type."""

    synsets: dict[str, str]
    substances: dict[str, str]
    rooms: dict[str, str]

    def synset(self, category: str) -> str | None:
        """The synset of an fdc category (a scene's `category`, a type name)."""
        word = pddl_word(category)
        found = self.synsets.get(word) or CATALOGUE.get(word)
        if found is not None:
            return found
        by_word = _by_word().get(word)
        return None if by_word is None else str(by_word)

    def substance(self, constant: str) -> str | None:
        return self.substances.get(pddl_word(constant))

    def room(self, category: str) -> str:
        """The BDDL word of a room type (`living-room` is `living_room`)."""
        word = pddl_word(category)
        return self.rooms.get(word, word.replace("-", "_"))


@cache
def _by_word() -> dict[str, str]:
    """Each word of BEHAVIOR's taxonomy (in PDDL spelling) and its lowest sense."""
    out: dict[str, str] = {}
    for s in sorted(_taxonomy().get_all_synsets(), key=_sense_key):
        if s in (AGENT, FLOOR) or s.count(".") != 2:
            continue
        out.setdefault(pddl_name(synset_word(s)), s)
    return out


def _sense_key(synset: str) -> tuple[str, int, str]:
    parts = synset.split(".")
    sense = int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else 99
    return parts[0], sense, synset


@cache
def corpus_names() -> BddlNames:
    """The names of the corpus's import (`fdc import bddl --corpus`), read back."""
    read = read_activities(activity_files([], corpus=True))
    return names_of([a for a in read if isinstance(a, Activity)])


def names_of(activities: list[Activity]) -> BddlNames:
    """The names an import of `activities` gives, read back."""
    v = build_vocabulary(activities, read_home())
    synsets: dict[str, str] = {}
    for synset, name in sorted(v.names.items()):
        if synset not in v.substances:
            synsets.setdefault(name, synset)
    substances = {name: synset for synset, name in sorted(v.substances.items())}
    rooms = {name: word for word, name in sorted(v.rooms.items())}
    return BddlNames(synsets, substances, rooms)
