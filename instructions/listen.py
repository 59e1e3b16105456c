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
See docs/instructions.md.
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


# ------------------------------------------------------------------ wording

#: The kinds of misleading wording `wording` finds (issue 36), each with what it means.
WORDING = {
    "attachment-ambiguity": "a place phrase after the object of a verb of putting reads "
                            "as where to put it, and the destination comes after it "
                            "(“Place the plate on the table beside the bowl”)",
    "nested-repetition": "a noun repeated in its own of-phrase (“the first shelf of the "
                         "shelf”)",
    "punctuation-before-destination": "a comma between a relative clause and the "
                                      "destination (“Put the clock that is on the "
                                      "nightstand, in the wardrobe”)",
    "stranded-preposition": "a preposition at the end of a clause, far from its verb "
                            "across another clause (“the spot you lifted what you held "
                            "at 20:26 yesterday from”)",
}

#: Verbs of putting: their object is followed by where it goes.
_PUTTING = r"put|place|set|move|bring|carry|take|lay|stand|leave|fit|transfer|drop"
#: A place phrase's preposition ("from" is a source: it does not read as the goal).
_PLACE = r"on|in|into|onto|inside|to|beside|next to|around|between|near|under|behind|" \
    r"at|by|on top of|in front of"
_PLACE_PHRASE = re.compile(rf"\b(?:{_PLACE})\s+(?:the|its|a|an|one|any|some|each|either)\b",
                           re.IGNORECASE)
#: A place phrase that may be where an item stands (not where it goes: "to", "beside"):
#: "on the table" after the object of a verb of putting reads as the destination.
_STATIC_PLACE = re.compile(r"(?:on|in|inside|at)\s+the\b", re.IGNORECASE)
#: A place phrase that can only be a destination: "in the gap", "on the left of".
_DESTINATION_NOUN = re.compile(r"(?:\s+[\w'-]+){0,3}?\s+(?:gap|part|side|half|middle|"
                               r"centre|center|edge|corner)\b|\s+(?:left|right)\s+of\b",
                               re.IGNORECASE)
#: A noun that a place phrase completes: "the gap between", "the left side of".
_RELATIONAL_NOUN = re.compile(r"\b(?:gap|space|part|side|half|middle|centre|center|spot|"
                              r"place|edge|corner|area|room)\s+$", re.IGNORECASE)
#: The object of a verb of putting: a definite or indefinite noun phrase.
_OBJECT = re.compile(rf"\b(?:{_PUTTING})\s+(?:both\s+)?(?:the|a|an)\s+", re.IGNORECASE)
#: Where a relative clause starts: its places are its own, not the verb's.
_RELATIVE = re.compile(r"\b(?:that|which|who|where)\b|\byou\b", re.IGNORECASE)
#: Clause boundaries: punctuation, and "and"/"then"/"so that" starting a new clause.
_CLAUSE = re.compile(r"[,;:.!?](?=\s|$)|\b(?:and|then|or)\s+(?!(?:the|both|a|an)\b)",
                     re.IGNORECASE)

_FUNCTION = r"(?!(?:the|a|an|to|on|in|into|of|and|or|from|with|at|by|that|it|its)\b)"
_NESTED = re.compile(rf"\b([a-z][\w'-]*) of the (?:{_FUNCTION}[\w'-]+ ){{0,3}}?\1\b",
                     re.IGNORECASE)

_COMMA_DESTINATION = re.compile(
    rf"\b(?:that|which)\s+(?:is|are|has|have)\b[^,;.!?]*,\s+(?:(?:and|then)\s+)?"
    rf"(?!in (?:any|the|reverse) order\b)"
    rf"(?:{_PLACE}|out of|off)\s+(?:the|its|a|an|one|any)\b", re.IGNORECASE)

#: A preposition that ends its clause (a time word may follow it: "from yesterday").
_FINAL_PREPOSITION = re.compile(
    r"\b(from|on|in|at|to|with|into|onto|off|of)\b(?=(?:\s+(?:yesterday|today|earlier|"
    r"before|first|last))?\s*(?:[,;.!?]|$))", re.IGNORECASE)
_BOUNDARY = re.compile(r"[,;:.!?](?=\s|$)|\b(?:or|nor|and)\s")
_SUBJECT = re.compile(r"\b(?:you|it|they|he|she)\b", re.IGNORECASE)
_WH = re.compile(r"\b(?:what|which|who|whom|whose|where|when)\b", re.IGNORECASE)
_FINITE = re.compile(r"\b(?:was|were|is|are|had|has)\b", re.IGNORECASE)
#: The most words between a stranded preposition's subject and the preposition.
STRANDED_WORDS = 7


def wording(text: str) -> list[tuple[str, str]]:
    """Wording of an instruction that misleads a reader though every mention resolves:
    (kind, message) for each kind of `WORDING` found, once a kind."""
    out: list[tuple[str, str]] = []
    found = attachment(text)
    if found:
        out.append(("attachment-ambiguity", f"“{found}” first reads as where to put it: "
                    "the destination comes after it"))
    m = _NESTED.search(text)
    if m:
        out.append(("nested-repetition", f"“{m.group(0)}” names “{m.group(1)}” inside "
                    "its own of-phrase"))
    m = _COMMA_DESTINATION.search(text)
    if m:
        out.append(("punctuation-before-destination", f"a comma before the destination "
                    f"in “{m.group(0)}”"))
    found = stranded(text)
    if found:
        out.append(("stranded-preposition", f"“{found}”: the preposition ends its "
                    "clause, far from its verb"))
    return out


def _clauses(text: str) -> list[tuple[int, str]]:
    """The clauses of `text` with their offsets, split at `_CLAUSE`."""
    out: list[tuple[int, str]] = []
    at = 0
    for m in _CLAUSE.finditer(text):
        out.append((at, text[at:m.start()]))
        at = m.end()
    out.append((at, text[at:]))
    return out


def attachment(text: str) -> str:
    """The object of a verb of putting followed by a place phrase and then, in the same
    clause and outside any relative clause, another place phrase: the first reads as
    the destination ("Place the plate on the table somewhere beside the bowl"); '' if
    none."""
    for _, clause in _clauses(text):
        for verb in _OBJECT.finditer(clause):
            rest = clause[verb.end():]
            relative = _RELATIVE.search(rest)
            rest = rest[: relative.start()] if relative else rest
            places = [p for p in _PLACE_PHRASE.finditer(rest)
                      if not _RELATIONAL_NOUN.search(rest[: p.start()])]
            if len(places) >= 2 and _STATIC_PLACE.match(rest, places[0].start()) and \
                    not _DESTINATION_NOUN.match(rest, places[0].end()) and \
                    not _PLACE_PHRASE.search(rest, 0, places[0].start()):
                return (clause[verb.start(): verb.end()] + rest[: places[1].start()]).strip()
    return ""


def stranded(text: str) -> str:
    """A preposition that ends its clause (“the spot you took it from”) far from its
    subject and verb: across another clause (“what you held”, “the pen you moved was
    taken from”) or more than `STRANDED_WORDS` words; '' if none."""
    for m in _FINAL_PREPOSITION.finditer(text):
        start = max((b.end() for b in _BOUNDARY.finditer(text, 0, m.start())), default=0)
        span = text[start:m.start()]
        subjects = list(_SUBJECT.finditer(span))
        if not subjects:
            continue
        near = subjects[-1]
        after = span[near.end():].split()
        first = next((s for s in subjects if not _WH.search(span[: s.start()]) or
                      s is subjects[0]), subjects[0])
        between = span[first.end():]
        if _WH.search(between) or _FINITE.search(" ".join(after[1:])) or \
                len(after) > STRANDED_WORDS:
            return (span[first.start():] + m.group(1)).strip()
    return ""
