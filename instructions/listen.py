"""The listener: an instruction read back without its bindings.

Every definite noun phrase of a rendered instruction ("the red mug", "the counter that
is next to the fridge", "the second shelf of the bookshelf", "the left counter") is
resolved against the scene, in the world state the task starts in, by the describer's
own vocabulary: the names it gives (a head noun with any of the entity's adjectives, or
with its place: "the top of the second cabinet from the right"), and the relations it
says (where an item stands, its room, a landmark, contents), also as a relative clause
("that is on the desk", "that has a vase on it") and as a split sentence ("Take the
book from the nightstand": the book on the nightstand). Words that name nothing the
describer says ("the left half", "the object you moved") are not mentions.

Each mention resolves to the entities it fits; `fdc validate` reports one that fits
several (`ambiguous-reference`) or one that fits none, or another entity than those the
task is about (`wrong-reference`).
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.instructions.describe import ADJECTIVES, relative_clause

if TYPE_CHECKING:
    from fdc.instructions.describe import Describer


@dataclass(frozen=True)
class Mention:
    """A definite noun phrase of an instruction and the entities it fits."""

    text: str
    start: int
    fits: tuple[str, ...]
    remembered: bool = False  # narrowed by what the robot did ("the pen you picked up")


_THE = re.compile(r"(?<![\w-])the ", re.IGNORECASE)
#: A clause about the experience after a mention narrows it by what the robot did, which
#: the scene cannot tell: "the pen you picked up yesterday".
_REMEMBERED = re.compile(r"\s+(?:that |which )?(?:you|the robot)\b")


class Listener:
    """Resolves the mentions of instructions in one describer's scene and state."""

    def __init__(self, describer: Describer) -> None:
        self.describer = describer
        self._nouns: dict[str, set[str]] | None = None
        self._longest = 0

    def nouns(self) -> dict[str, set[str]]:
        """Every name the describer may give an entity (with its adjectives, or with its
        place: "the left counter", "the left kitchen counter") -> the entities it fits."""
        if self._nouns is None:
            d = self.describer
            index: dict[str, set[str]] = defaultdict(set)
            for e in d.facts.types:
                if d.kind(e) is None:
                    continue
                feats = d.features(e)
                adjectives = [feats[n] for n in ADJECTIVES if n in feats]
                for size in range(len(adjectives) + 1):
                    for subset in itertools.combinations(adjectives, size):
                        index[d.noun(e, subset).lower()].add(e)
                for noun in d.placed_nouns(e):
                    index[noun.lower()].add(e)
            self._nouns = dict(index)
            self._longest = max((len(n.split()) for n in index), default=0)
        return self._nouns

    def relations(self, entity: str) -> set[str]:
        """Every relation the describer may say of `entity`, in each form it takes."""
        d = self.describer
        out: set[str] = set()
        for kind, words in d.relations(entity):
            out.add(words)
            out.add(relative_clause(kind, words))
            if kind in ("on", "on-in", "in") and words.count(" ") >= 1:
                out.add("from " + words.split(" ", 1)[1])
        return {w.lower() for w in out}

    def mentions(self, text: str) -> list[Mention]:
        """The definite mentions of `text`, left to right; a relation's landmark is part
        of its mention, not one of its own."""
        nouns = self.nouns()
        low = text.lower()
        out: list[Mention] = []
        end = 0
        for m in _THE.finditer(low):
            if m.start() < end:
                continue
            found = self._noun_at(low, m.end(), nouns)
            if found is None:
                continue
            stop, fits = found
            rel_stop, fits = self._relation_at(low, stop, fits)
            end = rel_stop
            remembered = bool(_REMEMBERED.match(low, end))
            out.append(Mention(text[m.start():end], m.start(), self._referents(fits),
                               remembered))
        return out

    def _referents(self, fits: set[str]) -> tuple[str, ...]:
        """The entities a reader tells apart: a surface named as its own furniture or
        item ("the table", "the tray") is that object."""
        d = self.describer
        return tuple(sorted(e for e in fits if d.kind(e) != "surface" or
                            d.graph.surface(e).object_id not in fits))

    def _noun_at(self, low: str, at: int, nouns: dict[str, set[str]]
                 ) -> tuple[int, set[str]] | None:
        words = list(re.finditer(r"[\w'-]+", low[at:]))[: self._longest]
        for n in range(len(words), 0, -1):
            stop = at + words[n - 1].end()
            fits = nouns.get(low[at:stop])
            if fits:
                return stop, set(fits)
        return None

    def _relation_at(self, low: str, at: int, fits: set[str]) -> tuple[int, set[str]]:
        rest = low[at:]
        if not rest.startswith(" "):
            return at, fits
        best: tuple[int, set[str]] = (at, fits)
        phrases: dict[str, set[str]] = defaultdict(set)
        for e in fits:
            for r in self.relations(e):
                phrases[r].add(e)
        for phrase, who in phrases.items():
            stop = at + 1 + len(phrase)
            if stop <= best[0] or not rest[1:].startswith(phrase):
                continue
            if stop == len(low) or not re.match(r"[\w-]", low[stop]):
                best = (stop, who)
        return best


_LISTENERS: weakref.WeakKeyDictionary[Describer, Listener] = weakref.WeakKeyDictionary()


def listener_for(describer: Describer) -> Listener:
    """The listener that reads instructions back in this describer's words (one per
    describer: its vocabulary is built once)."""
    found = _LISTENERS.get(describer)
    if found is None:
        found = _LISTENERS[describer] = Listener(describer)
    return found


def listen(listener: Listener, text: str, about: set[str],
           interacted: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """The listener's findings on one instruction of a task about the entities `about`
    (its bindings, targets, the goal's entities and their rooms): (code, message). In a
    memory task, `interacted` (the items the robot moved) narrows a mention the scene
    alone does not settle: "the pen" is the one pen it moved."""
    out: list[tuple[str, str]] = []
    for m in listener.mentions(text):
        if interacted is not None and len(m.fits) > 1:
            narrowed = set(m.fits) & interacted
            if len(narrowed) == 1:
                continue
            if narrowed:
                m = Mention(m.text, m.start, tuple(sorted(narrowed)), m.remembered)
        if m.remembered:
            if not set(m.fits) & about:
                out.append(("wrong-reference", f"“{m.text}” fits none of the entities the "
                            "task is about"))
        elif len(m.fits) > 1 and not set(m.fits) <= about:
            out.append(("ambiguous-reference",
                        f"“{m.text}” fits {len(m.fits)} entities: "
                        + ", ".join(f"`{e}`" for e in m.fits[:5])))
        elif len(m.fits) == 1 and m.fits[0] not in about:
            out.append(("wrong-reference", f"“{m.text}” is `{m.fits[0]}`, which the task "
                        "is not about"))
        elif not m.fits:
            out.append(("wrong-reference", f"“{m.text}” fits no entity"))
    return out


def about(describer: Describer, entities: set[str]) -> set[str]:
    """The entities a task is about, widened by what naming them brings along: the
    furniture of a surface and the surfaces of furniture, and their rooms."""
    d = describer
    out = set(entities)
    for e in entities:
        kind = d.kind(e) if d.facts.type_of(e) is not None else None
        if kind == "surface":
            out.add(d.graph.surface(e).object_id)
        elif kind == "furniture":
            out.update(d.graph.object(e).surfaces)
    for e in list(out):
        kind = d.kind(e) if d.facts.type_of(e) is not None else None
        if kind in ("movable", "furniture", "surface"):
            owner = d.graph.surface(e).object_id if kind == "surface" else e
            room = d.state.room_of(owner)
            if room is not None:
                out.add(room)
    return out
