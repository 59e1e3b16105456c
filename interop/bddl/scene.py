"""A house for a BDDL activity: its objects placed as its `:init` says
(`fdc scene generate --from-bddl`), so that the activity's imported template compiles to
tasks on it with no OmniGibson.

- Rooms: one for each room type `:init` names (`inroom` of a floor or a piece of
  furniture), in a row, each joined to the next by a door; the robot starts in the room
  of its floor.
- Furniture (`sceneObject`s): along the two long walls of its room, facing in, in the
  order `:init` names them (one `nextto` another: side by side); a top to put things
  on, and for articulated furniture (or any with something `inside` it) a compartment,
  open when `:init` says `open` (articulated) or always (the rest). Each piece is as
  wide, its compartment as tall, as what stands on and in it needs, at the start and
  as the goal puts things there (`goal_placements`).
- Items: `ontop`/`inside` of furniture, of another item (an item with something on it
  is a platform, one with something inside it a box with a floor, sized for what it
  holds), `ontop` of a floor (on the floor of that room); `nextto` another: beside it
  (on the same support, or on the floor in front of a piece of furniture); an item
  `:init` does not place lies on the floor of the robot's room. `draped` and `overlaid`
  are `ontop`. Objects made during the task (`future`) are not there.
- Recipes: the substances the activity names that BEHAVIOR's transition rules make by
  heat (cooked rice, melted butter: `recipes.py`), each with its inputs, become the
  scene's `recipes`, which the world's `make` rule, the planning domain's statics and the
  oracle read.
- Abilities: BEHAVIOR's that the world's state rules read (`heatSource`, `coldSource`,
  `waterSource`, `particleRemover`: a swab, an iron) become the object's `abilities`
  attribute (`heat-source, cleaning-tool`), which the rules, the planning domain's
  statics (`is-cleaning-tool` ...) and the oracle read beside the category.
- States: `cooked`, `frozen`, ..., `covered`/`filled`/`contains`/`saturated` with a
  substance, `insource` (a source of a substance: a salt shaker), `toggled_on`,
  `attached` become the object's `state` attribute, which fdc's checkers read
  (`predicates/checkers/object_states.py`).

What cannot be made so (furniture on furniture, `touching`, `under`) is
listed in `left_out` with why. Categories are the names the import gives
(`vocabulary`), so the imported template binds on the scene. Deterministic.

See docs/bddl.md.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from fdc.core.errors import InputError
from fdc.interop.bddl.corpus import Activity, Sexp, Unreadable, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.recipes import read_rules, recipes_for
from fdc.interop.bddl.vocabulary import (
    AGENT,
    ARTICULATED,
    FLOOR,
    FURNITURE,
    SUBSTANCE,
    FdcHome,
    Vocabulary,
    abilities_of,
    build_vocabulary,
)
from fdc.predicates.checkers.attributes import pddl_word
from fdc.sim_bridge.scene.generate import ITEMS, FurnitureType, furniture_spec
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene

#: `:init` relations that put an item on something (`draped`, `overlaid`: on top).
ON = ("ontop", "draped", "overlaid")
#: BDDL's unary states -> the word of the `state` attribute.
UNARY = {"cooked": "cooked", "frozen": "frozen", "hot": "hot", "folded": "folded",
         "broken": "broken", "on_fire": "on-fire", "toggled_on": "powered-on"}
#: BDDL's states with a substance (`insource`: a source that does not run out, a salt
#: shaker of salt, a sink of water) -> the same word in the `state` attribute.
WITH_SUBSTANCE = ("covered", "filled", "contains", "saturated", "insource")

#: Colours for objects of one category, in turn (fdc-home's colour constants).
COLORS = ("red", "blue", "green", "yellow", "white", "black", "brown", "grey", "purple",
          "pink", "orange", "silver", "gold")
ROOM_DEPTH = 5.0
MIN_ROOM_WIDTH = 4.5
WALL_MARGIN = 0.4
GAP = 0.15  # between pieces of furniture along a wall
PITCH_SLACK = 0.04  # between items on a surface
DEFAULT_ITEM = (0.1, 0.1, 0.1)
FURNITURE_SIZE = (0.6, 1.0, 0.8)  # depth, width, height
ARTICULATED_SIZE = (0.6, 0.9, 0.9)
PLATFORM_H = 0.04
BOX_WALL = 0.02


@dataclass
class _Thing:
    inst: str
    synset: str
    category: str
    role: str
    ident: str
    parent: str | None = None  # an instance, or "floor:<room word>"
    inside: bool = False
    beside: str | None = None  # nextto: the instance it stands beside
    room: str | None = None  # furniture: its room word
    states: list[str] = field(default_factory=list)
    abilities: list[str] = field(default_factory=list)  # BEHAVIOR's: `cleaning-tool` ...
    open: bool = False
    on_top: list[str] = field(default_factory=list)
    in_it: list[str] = field(default_factory=list)
    size: tuple[float, float, float] = DEFAULT_ITEM
    holds: int = 0  # the goal puts this many things inside it
    carries: int = 0  # the goal puts this many things on it
    goal_in: list[str] = field(default_factory=list)  # the synsets the goal puts in it
    goal_on: list[str] = field(default_factory=list)  # ... and on it


@dataclass(frozen=True)
class GeneratedScene:
    """The scene, which object each BDDL instance is, and the facts not made true."""

    scene: Scene
    ids: dict[str, str]
    left_out: list[str]


def _flat(fact: Sexp) -> tuple[bool, list[str]] | None:
    neg = isinstance(fact, list) and len(fact) == 2 and fact[0] == "not"
    f = fact[1] if neg else fact
    if not (isinstance(f, list) and f and all(isinstance(x, str) for x in f)):
        return None
    return neg, [str(x) for x in f]


def _bddl(f: list[str]) -> str:
    return "(" + " ".join(f) + ")"


class _Builder:
    def __init__(self, activity: Activity, vocab: Vocabulary) -> None:
        self.a = activity
        self.v = vocab
        self.synset_of = activity.synset_of()
        self.left_out: list[str] = []
        self.facts = self._facts()
        self.future = {f[1] for neg, f in self.facts if not neg and f[0] == "future"}
        self.things: dict[str, _Thing] = {}
        self.floor_room: dict[str, str] = {}
        self.rooms: list[str] = []
        self.agent_floor: str | None = None
        counts: dict[str, int] = {}
        home = _home()
        for inst, synset in sorted(self.synset_of.items(), key=lambda kv: _order(kv[0])):
            if synset in (AGENT, FLOOR) or inst in self.future:
                continue
            role = vocab.role(synset)
            if role == SUBSTANCE:
                continue
            cat = vocab.type_of(synset)
            counts[cat] = counts.get(cat, 0) + 1
            ident = f"{cat.replace('-', '_')}_{counts[cat]}"
            if role == FURNITURE and _under(cat, ARTICULATED, vocab, home):
                role = ARTICULATED  # fdc-home's `wardrobe`: it opens
            self.things[inst] = _Thing(inst, synset, cat, role, ident,
                                       abilities=abilities_of(synset))
        self.nextto: list[tuple[str, str, int]] = []
        inside, ontop = goal_placements(activity, self.nextto)
        # an item the goal fills with a substance made from an item (melted butter from
        # a butter: `recipes.py`) takes that item inside it
        melted = {r.output: r.inputs for r in read_rules() if r.kind == "melting"}
        for holder, subs in goal_vessels(activity).items():
            made = sorted(subs & melted.keys())
            if made and not inside.get(holder):
                inside[holder] = list(melted[made[0]])
        for t in self.things.values():
            t.goal_in = inside.get(t.synset, [])
            t.goal_on = ontop.get(t.synset, [])
            t.holds, t.carries = len(t.goal_in), len(t.goal_on)

    def _facts(self) -> list[tuple[bool, list[str]]]:
        out = []
        for fact in self.a.init:
            flat = _flat(fact)
            if flat is None:
                self.left_out.append(f"{fact}: not a fact")
                continue
            out.append(flat)
        return out

    def _room(self, word: str) -> None:
        if word not in self.rooms:
            self.rooms.append(word)

    def read(self) -> None:
        facts = self.facts
        for neg, f in facts:  # rooms first: floors and furniture
            if not neg and f[0] == "inroom" and len(f) == 3:
                self._room(f[2])
                if self.synset_of.get(f[1]) == FLOOR:
                    self.floor_room[f[1]] = f[2]
                elif f[1] in self.things:
                    t = self.things[f[1]]
                    if t.role in (FURNITURE, ARTICULATED):
                        t.room = f[2]
                    else:
                        t.parent = f"floor:{f[2]}"
        for neg, f in facts:
            head = f[0]
            if head in ("inroom", "future", "real") or neg:
                continue
            if head == "ontop" and len(f) == 3 and self.synset_of.get(f[1]) == AGENT:
                self.agent_floor = f[2]
                continue
            x = self.things.get(f[1])
            if x is None:
                if f[1] not in self.future:
                    self.left_out.append(f"{_bddl(f)}: not an object fdc places")
                continue
            if head in ON or head == "inside":
                self._on(x, f, inside=head == "inside")
            elif head == "nextto" and len(f) == 3:
                if f[2] in self.things:  # furniture beside furniture: side by side
                    x.beside = f[2]
                else:
                    self.left_out.append(f"{_bddl(f)}: beside no object")
            elif head in UNARY and len(f) == 2:
                x.states.append(UNARY[head])
            elif head == "open" and len(f) == 2:
                x.open = True
            elif head in WITH_SUBSTANCE and len(f) == 3 and \
                    self.synset_of.get(f[2]) in self.v.substances:
                sub = self.v.substances[self.synset_of[f[2]]]
                x.states.append(f"{head}:{sub}")
                if head == "filled":  # BEHAVIOR's `filled` is `contains`, and full
                    x.states.append(f"contains:{sub}")
            elif head == "attached" and len(f) == 3 and f[2] in self.things:
                x.states.append(f"attached:{pddl_word(self.things[f[2]].ident)}")
            elif head == "unfolded":
                continue
            else:
                self.left_out.append(f"{_bddl(f)}: no fdc scene fact says it")
        if not self.rooms:
            self.rooms.append("living_room")

    def _on(self, x: _Thing, f: list[str], inside: bool) -> None:
        under = f[2]
        if self.synset_of.get(under) == FLOOR:
            if x.role in (FURNITURE, ARTICULATED):
                room = self.floor_room.get(under)
                if room is not None and x.room is None:
                    x.room = room
                return
            x.parent = f"floor:{self.floor_room.get(under, '')}"
            return
        if under not in self.things:
            self.left_out.append(f"{_bddl(f)}: on no object fdc places")
            return
        if x.role in (FURNITURE, ARTICULATED):
            self.left_out.append(f"{_bddl(f)}: furniture stands on the floor in fdc")
            if x.room is None:
                x.room = self.things[under].room
            return
        if self._above(under, x.inst):
            self.left_out.append(f"{_bddl(f)}: a cycle of supports")
            return
        x.parent, x.inside = under, inside

    def _above(self, inst: str, what: str) -> bool:
        """Whether `what` is `inst` or holds it up."""
        seen = set()
        cur: str | None = inst
        while cur is not None and cur in self.things and cur not in seen:
            if cur == what:
                return True
            seen.add(cur)
            cur = self.things[cur].parent
        return False

    # -- the rooms of things
    def room_of(self, t: _Thing) -> str:
        seen = set()
        cur = t
        while cur.inst not in seen:
            seen.add(cur.inst)
            if cur.room is not None:
                return cur.room
            if cur.parent is None:
                break
            if cur.parent.startswith("floor:"):
                word = cur.parent[len("floor:"):]
                return word or self.start_room()
            cur = self.things[cur.parent]
        if cur.beside is not None and cur.beside in self.things and cur.beside != t.inst:
            b = self.things[cur.beside]
            if b.parent is None and b.room is None:
                return self.start_room()
            return self.room_of(b) if b.inst not in seen else self.start_room()
        return self.start_room()

    def start_room(self) -> str:
        if self.agent_floor is not None and self.agent_floor in self.floor_room:
            return self.floor_room[self.agent_floor]
        return self.rooms[0]


def _goal_facts(activity: Activity, heads: Collection[str]
                ) -> Iterator[tuple[list[Sexp], dict[str, str]]]:
    """The goal's two-argument facts with a head among `heads` (under any connective and
    quantifier), each with the synsets of the variables quantified where it stands."""

    def walk(e: Sexp, scope: dict[str, str]) -> Iterator[tuple[list[Sexp], dict[str, str]]]:
        if not isinstance(e, list) or not e:
            return
        if e[0] in ("forall", "exists", "forn", "forpairs", "fornpairs"):
            inner = dict(scope)
            for d in e[1:-1]:
                if isinstance(d, list) and len(d) == 3 and d[1] == "-":
                    inner[str(d[0])] = str(d[2])
            yield from walk(e[-1], inner)
        elif e[0] in heads and len(e) == 3 and all(isinstance(x, str) for x in e[1:]):
            yield e, scope
        else:
            for x in e[1:]:
                yield from walk(x, scope)

    for c in activity.goal:
        yield from walk(c, {})


def goal_placements(activity: Activity, nextto: list[tuple[str, str, int]] | None = None
                    ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The synsets the goal puts things `inside` and `ontop` of, each with the synsets
    of the things it may have to take, one entry for each (every instance of a synset
    put there by a quantifier): what the house sizes a box, a platform or a piece of
    furniture for, so that the goal can come true. What the goal puts `nextto` an item
    it puts somewhere goes there too, and so does what the goal puts such an item on
    (a pizza on a plate, the pizzas in the fridge: the plates too); each `nextto` (the
    synsets and how many) is added to `nextto` when given."""
    nextto = [] if nextto is None else nextto
    synset_of = activity.synset_of()
    counts: dict[str, int] = {}
    for synset in synset_of.values():
        counts[synset] = counts.get(synset, 0) + 1
    inside: dict[str, list[str]] = {}
    ontop: dict[str, list[str]] = {}
    beside: list[tuple[str, str, int]] = []  # nextto: on what the anchor goes on
    carried: list[tuple[str, str, int]] = []  # ontop: what carries it goes where it goes
    for e, scope in _goal_facts(activity, ("inside", "nextto", *ON)):
        what, holder = (scope.get(x) or synset_of.get(str(x).lstrip("?")) for x in e[1:])
        if what is None or holder is None:
            continue
        n = counts.get(what, 1) if e[1] in scope else 1
        if e[0] == "nextto":
            beside.append((what, holder, n))
            continue
        table = inside if e[0] == "inside" else ontop
        table.setdefault(holder, []).extend([what] * n)
        if e[0] != "inside":
            carried.append((what, holder, n))
    for what, holder, n in carried:  # a pizza on a plate, the pizzas in the fridge: the
        for t in (inside, ontop):  # plates in the fridge too
            for h, kids in t.items():
                if h not in (holder, what) and what in kids and holder not in kids:
                    kids.extend([holder] * n)
    for what, anchor, n in beside:  # beside an item the goal puts somewhere: there too
        for t in (inside, ontop):
            for holder, kids in t.items():
                if holder != anchor and anchor in kids:
                    kids.extend([what] * n)
    nextto.extend(beside)
    return inside, ontop


def goal_vessels(activity: Activity) -> dict[str, set[str]]:
    """The synsets the goal says contain (or are filled with) substances, each with the
    substance synsets."""
    synset_of = activity.synset_of()
    out: dict[str, set[str]] = {}

    for e, scope in _goal_facts(activity, ("contains", "filled")):
        holder, what = (scope.get(x) or synset_of.get(str(x).lstrip("?")) for x in e[1:])
        if holder is not None and what is not None:
            out.setdefault(holder, set()).add(what)
    return out


@cache
def _home() -> FdcHome:
    return read_home()


def _under(category: str, ancestor: str, v: Vocabulary, home: FdcHome) -> bool:
    """Whether the generated domain declares type `category` under `ancestor`."""
    seen, cur = set(), category
    while cur not in seen:
        seen.add(cur)
        if cur == ancestor:
            return True
        if cur not in v.parents:
            return ancestor in home.ancestors.get(cur, frozenset())
        cur = v.parents[cur]
    return False


def _order(inst: str) -> tuple[str, int]:
    base, _, n = inst.rpartition("_")
    return (base, int(n)) if n.isdigit() else (inst, 0)


def _grid(sizes: list[tuple[float, float, float]], depth: float
          ) -> tuple[float, float, int]:
    """Cells for items of `sizes` on a region `depth` deep: the pitch along depth and
    width, and the number of rows."""
    pu = max([s[0] for s in sizes] + [0.0]) + PITCH_SLACK
    pv = max([s[1] for s in sizes] + [0.0]) + PITCH_SLACK
    rows = max(1, int((depth - 0.04) // pu)) if pu > 0 else 1
    return pu, pv, rows


def _floor_grid(items: list[_Thing]) -> tuple[float, int]:
    """The pitch and the rows of the grid of floor items in the middle of a room (the
    band between the furniture along the two long walls)."""
    pitch = max(max(o.size[0], o.size[1]) for o in items) + 0.3
    band = ROOM_DEPTH - 2 * (max(FURNITURE_SIZE[0], ARTICULATED_SIZE[0]) + 0.6)
    return pitch, max(1, int(band // pitch))


def _fmt(x: float) -> float:
    return round(float(x), 4)


class _Layout:
    """Sizes bottom-up, places top-down."""

    def __init__(self, b: _Builder, vocab: Vocabulary) -> None:
        self.b = b
        self.v = vocab
        self.objects: list[dict[str, Any]] = []
        self.placed: dict[str, tuple[float, float, float, float]] = {}
        self.home = _home()
        self.twins: dict[str, int] = {}
        self.sizing: set[str] = set()  # the items being sized (`item_size`)
        self.sized: set[str] = set()  # ... and those sized
        for t in b.things.values():
            self.twins[t.category] = self.twins.get(t.category, 0) + 1

    def item_size(self, t: _Thing) -> tuple[float, float, float]:
        """The item's size: its category's, a box's or a platform's as large as what
        stands in or on it needs, at the start and as the goal puts things there."""
        if t.inst in self.sized or t.inst in self.sizing:  # sized once (the goal may
            return t.size  # put it on what it carries: a plate on a plate)
        self.sizing.add(t.inst)
        base = ITEMS.get(t.category.replace("-", "_"))
        sx, sy, sz = base.size if base is not None else DEFAULT_ITEM
        box = self.is_box(t)
        kids = [self.b.things[k] for k in (t.in_it + t.on_top)]
        if kids or box or t.carries:
            sizes = [self.item_size(k) for k in kids] + \
                self.goal_sizes(t.goal_in if box else []) + self.goal_sizes(t.goal_on)
            pu, pv, _ = _grid(sizes or [DEFAULT_ITEM], 10.0)
            n = max(1, len(t.in_it) + t.holds if box else 0, len(t.on_top) + t.carries)
            cols = math.ceil(math.sqrt(n))
            rows = math.ceil(n / cols)
            sx = max(sx, rows * pu + 2 * BOX_WALL + 0.06, 0.16)
            sy = max(sy, cols * pv + 2 * BOX_WALL + 0.06, 0.16)
            sz = max(sz, self.inner_height(t) + 0.06) if box else PLATFORM_H
        t.size = (round(sx, 3), round(sy, 3), round(sz, 3))
        self.sizing.discard(t.inst)
        self.sized.add(t.inst)
        return t.size

    def goal_sizes(self, synsets: list[str]) -> list[tuple[float, float, float]]:
        """The sizes of what the goal puts somewhere (each synset's largest instance)."""
        out = []
        for synset in dict.fromkeys(synsets):
            sizes = [self.item_size(x) for x in self.b.things.values()
                     if x.synset == synset and x.role == "movable"]
            if sizes:
                out.append(max(sizes, key=lambda s: (s[2], s[0] * s[1])))
        return out

    def stack_height(self, t: _Thing) -> float:
        """How tall the item stands with what is on it at the start or the goal puts
        on it (plastic wrap on a feta: the goal puts both in a tupperware)."""
        on = [self.stack_height(self.b.things[k]) for k in t.on_top] + \
            [s[2] for s in self.goal_sizes(t.goal_on)]
        return self.item_size(t)[2] + max(on, default=0.0)

    def inner_height(self, t: _Thing) -> float:
        """The height what goes inside `t` needs: its tallest stack, at the start or as
        the goal puts things there."""
        stacks = [self.stack_height(self.b.things[k]) for k in t.in_it]
        for synset in dict.fromkeys(t.goal_in):
            stacks += [self.stack_height(x) for x in self.b.things.values()
                       if x.synset == synset and x.role == "movable" and x.inst != t.inst]
        return max(stacks, default=DEFAULT_ITEM[2])

    def is_box(self, t: _Thing) -> bool:
        """An item with something inside it, that the goal puts something in, or of a
        type under `container` (the domain's: BEHAVIOR's fillable things; fdc types an
        item with no floor to hold things as no container). Things `ontop` of a box
        stand on its lid."""
        return bool(t.in_it) or t.holds > 0 or self.under_container(t)

    def under_container(self, t: _Thing) -> bool:
        return _under(t.category, "container", self.v, self.home)

    def furniture_size(self, t: _Thing) -> tuple[float, float, float]:
        sx, sy, sz = ARTICULATED_SIZE if t.role == ARTICULATED else FURNITURE_SIZE
        for kids, goal in ((t.on_top, t.goal_on), (t.in_it, t.goal_in)):
            if not kids and not goal:
                continue
            sizes = [self.item_size(self.b.things[k]) for k in kids] + self.goal_sizes(goal)
            rim = 0.16 if kids is t.in_it else 0.1
            # as deep as the deepest item's cell (three plates sized for what goes on
            # each were deeper than a booth of the usual depth: none fitted)
            sx = max(sx, max((s[0] for s in sizes), default=0.0) + PITCH_SLACK + rim)
            _pu, pv, rows = _grid(sizes or [DEFAULT_ITEM], sx - rim)
            cols = math.ceil((len(kids) + len(goal)) / rows)
            sy = max(sy, cols * pv + 0.2)
            if kids is t.in_it:
                sz = max(sz, self.inner_height(t) + 0.25)
        t.size = (sx, round(sy, 3), round(sz, 3))
        return t.size

    def attach(self) -> dict[str, list[_Thing]]:
        """Hang each item on what holds it (children lists, in instance order; `nextto`
        an item on a support: on that support, beside it; an item nothing places: on
        the floor of its room) and size them: the floor items of each room word, each
        with the items beside it. Shared by generation and binding (`bind.py`)."""
        b = self.b
        for t in b.things.values():  # children lists, in instance order
            if t.parent is not None and not t.parent.startswith("floor:"):
                p = b.things[t.parent]
                (p.in_it if t.inside else p.on_top).append(t.inst)
        # nextto an item on a support: beside it, on that support
        for t in b.things.values():
            if t.beside is None or t.parent is not None or t.role != "movable":
                continue
            other = b.things[t.beside]
            if other.role == "movable" and other.parent is not None and \
                    not other.parent.startswith("floor:"):
                t.parent, t.inside = other.parent, other.inside
                p = b.things[other.parent]
                kids = p.in_it if t.inside else p.on_top
                kids.insert(kids.index(other.inst) + 1, t.inst)
        for t in b.things.values():
            if t.parent is None and t.role == "movable" and t.beside is None:
                t.parent = f"floor:{b.room_of(t)}"
        self.make_room_beside()
        # floor items: a grid in the middle of each room, beside-chains in a row
        floor: dict[str, list[_Thing]] = {}
        for t in b.things.values():
            if t.role == "movable" and t.parent is not None and t.parent.startswith("floor:"):
                room = t.parent[len("floor:"):] or b.start_room()
                row = floor.setdefault(room, [])
                row.append(t)
                row.extend(o for o in b.things.values()
                           if o.beside == t.inst and o.parent is None and o.role == "movable"
                           and o not in row)
        for room, items in floor.items():
            for o in items:
                o.parent = o.parent or f"floor:{room}"
                self.item_size(o)
        return floor

    def make_room_beside(self) -> None:
        """Room for what the goal puts `nextto` a piece of furniture (on it) or an item
        the goal leaves where it is (on what that item stands on or in)."""
        b = self.b
        placed = {x for t in b.things.values() for x in (*t.goal_in, *t.goal_on)}
        for what, anchor, n in b.nextto:
            if anchor in placed:
                continue  # `goal_placements` counted it where the anchor goes
            for t in [x for x in b.things.values() if x.synset == anchor][:1]:
                if t.role in (FURNITURE, ARTICULATED):
                    t.goal_on = [*t.goal_on, *[what] * n]
                    t.carries = len(t.goal_on)
                elif t.parent is not None and not t.parent.startswith("floor:"):
                    p = b.things[t.parent]
                    if t.inside:
                        p.goal_in = [*p.goal_in, *[what] * n]
                        p.holds = len(p.goal_in)
                    else:
                        p.goal_on = [*p.goal_on, *[what] * n]
                        p.carries = len(p.goal_on)

    def build(self, seed: int) -> Scene:
        b = self.b
        floor = self.attach()
        furniture: dict[str, list[_Thing]] = {r: [] for r in b.rooms}
        for t in b.things.values():
            if t.role in (FURNITURE, ARTICULATED):
                room = t.room or b.start_room()
                t.room = room
                self.furniture_size(t)
                group = furniture.setdefault(room, [])
                if t.beside is not None and t.beside in b.things and \
                        b.things[t.beside] in group:
                    group.insert(group.index(b.things[t.beside]) + 1, t)
                else:
                    group.append(t)
        rooms = list(furniture)
        widths, walls = [], []
        for r in rooms:
            pieces = furniture[r]
            total = sum(p.size[1] + GAP for p in pieces)
            bottom, acc = [], 0.0
            for p in pieces:
                if acc < total / 2 or not bottom:
                    bottom.append(p)
                    acc += p.size[1] + GAP
            top = [p for p in pieces if p not in bottom]
            need = max(sum(p.size[1] + GAP for p in bottom), sum(p.size[1] + GAP for p in top))
            on_floor = floor.get(r, [])
            if on_floor:
                pitch, rows = _floor_grid(on_floor)
                need = max(need, math.ceil(len(on_floor) / rows) * pitch + 1.0)
            widths.append(max(MIN_ROOM_WIDTH, need + 2 * WALL_MARGIN + 0.6))
            walls.append((bottom, top))
        room_dicts, doors = [], []
        x0 = 0.0
        self.room_ids: dict[str, str] = {}
        self.room_box: dict[str, tuple[float, float, float, float]] = {}
        for k, (r, w) in enumerate(zip(rooms, widths, strict=True)):
            rid = f"room_{k:03d}"
            self.room_ids[r] = rid
            self.room_box[r] = (x0, 0.0, x0 + w, ROOM_DEPTH)
            room_dicts.append({"id": rid, "category": self.v.rooms.get(r, pddl_word(r)),
                               "polygon": [[_fmt(x0), 0.0], [_fmt(x0 + w), 0.0],
                                           [_fmt(x0 + w), ROOM_DEPTH], [_fmt(x0), ROOM_DEPTH]]})
            if k:
                doors.append({"id": f"door_{k - 1:03d}", "rooms": [f"room_{k - 1:03d}", rid],
                              "position": [_fmt(x0), ROOM_DEPTH / 2], "width_m": 0.9})
            x0 += w
        for r, (bottom, top) in zip(rooms, walls, strict=True):
            bx0, _, _bx1, _ = self.room_box[r]
            for wall, pieces in ((0, bottom), (1, top)):
                cursor = bx0 + WALL_MARGIN + 0.3
                for p in pieces:
                    sx, sy, _ = p.size
                    cx = cursor + sy / 2
                    cy = 0.05 + sx / 2 + 0.01 if wall == 0 else ROOM_DEPTH - 0.05 - sx / 2 - 0.01
                    yaw = math.pi / 2 if wall == 0 else -math.pi / 2
                    self._furniture(p, cx, cy, yaw)
                    cursor += sy + GAP
        for r, items in floor.items():
            self._floor(r, items)
        for t in b.things.values():  # nextto a piece of furniture or a floor item
            if t.role == "movable" and t.parent is None:
                self._beside(t)
        start_room = b.start_room()
        sx0, _sy0, _sx1, _sy1 = self.room_box[start_room]
        data = {
            "format_version": FORMAT_VERSION,
            "name": f"bddl-{pddl_word(b.a.name)}-s{seed}",
            "rooms": room_dicts,
            "doors": doors,
            "objects": self.objects,
            "agent": {"position": [_fmt(sx0 + 0.7), _fmt(ROOM_DEPTH / 2), 0.0],
                      "yaw_rad": 0.0},
            "source": {"generator": "fdc.interop.bddl.scene", "activity": b.a.name,
                       "seed": str(seed)},
        }
        made = recipes_for(sorted({s for s in b.synset_of.values()
                                   if s in self.v.substances}), self.v)
        if made:
            data["recipes"] = made
        return Scene.model_validate(data)

    def _attrs(self, t: _Thing) -> dict[str, str]:
        attrs = {}
        if self.twins.get(t.category, 0) > 1:  # a colour each, so a reference can tell them
            n = int(t.ident.rsplit("_", 1)[1]) - 1
            attrs["color"] = COLORS[n % len(COLORS)]
        if t.states:
            attrs["state"] = ", ".join(sorted(dict.fromkeys(t.states)))
        if t.abilities:
            attrs["abilities"] = ", ".join(t.abilities)
        return attrs

    def _furniture(self, t: _Thing, x: float, y: float, yaw: float) -> None:
        sx, sy, sz = t.size
        compartment = t.role == ARTICULATED or bool(t.in_it) or t.holds > 0
        ftype = FurnitureType(t.category, t.size, top=True,
                              containers=((("inside", 0.05, sz - 0.1),) if compartment else ()),
                              kind=t.role)
        spec = furniture_spec(t.ident, ftype, x, y, yaw, 0.0, self._attrs(t),
                              self.room_ids[t.room or self.b.start_room()])
        spec["source"] = {"bddl": t.inst}
        for c in spec.get("containers", []):
            c["open"] = t.open or t.role != ARTICULATED
        for part in spec.get("parts", []):
            part["joint"]["position"] = 1.57 if (t.open or t.role != ARTICULATED) else 0.0
        if t.role != ARTICULATED:
            spec.pop("parts", None)
            for c in spec.get("containers", []):
                c.pop("part", None)
        self.objects.append(spec)
        top_z = sz
        self._children(t.on_top, x, y, yaw, sx - 0.1, sy - 0.1, top_z)
        if compartment:
            self._children(t.in_it, x, y, yaw, sx - 0.16, sy - 0.16, 0.05)

    def _children(self, kids: list[str], x: float, y: float, yaw: float, depth: float,
                  width: float, z: float) -> None:
        if not kids:
            return
        things = [self.b.things[k] for k in kids]
        sizes = [k.size for k in things]
        pu, pv, rows = _grid(sizes, depth)
        cols = math.ceil(len(things) / rows)
        c, s = math.cos(yaw), math.sin(yaw)
        for i, t in enumerate(things):
            col, row = divmod(i, rows)
            u = (row - (rows - 1) / 2) * pu
            v = (col - (cols - 1) / 2) * pv
            self._item(t, x + c * u - s * v, y + s * u + c * v, z, yaw)

    def _item(self, t: _Thing, x: float, y: float, z: float, yaw: float) -> None:
        sx, sy, sz = t.size
        spec: dict[str, Any] = {
            "id": t.ident, "category": t.category, "kind": "movable",
            "pose": {"position": [_fmt(x), _fmt(y), _fmt(z + sz / 2)],
                     "orientation": [_fmt(math.cos(yaw / 2)), 0.0, 0.0,
                                     _fmt(math.sin(yaw / 2))]},
            "size": [sx, sy, sz], "attributes": self._attrs(t), "source": {"bddl": t.inst},
        }
        if self.is_box(t):
            spec["containers"] = [{"name": "inside", "center": [0.0, 0.0, BOX_WALL / 2],
                                   "size": [_fmt(sx - 2 * BOX_WALL), _fmt(sy - 2 * BOX_WALL),
                                            _fmt(sz - BOX_WALL)], "open": True}]
            floor_z = z + BOX_WALL
            self._children(t.in_it, x, y, yaw, sx - 2 * BOX_WALL, sy - 2 * BOX_WALL, floor_z)
        if t.on_top:
            self._children(t.on_top, x, y, yaw, sx, sy, z + sz)
        self.objects.append(spec)
        self.placed[t.inst] = (x, y, z, yaw)

    def _floor(self, room: str, items: list[_Thing]) -> None:
        x0 = self.room_box[room][0]
        pitch, rows = _floor_grid(items)
        for i, t in enumerate(items):
            col, row = divmod(i, rows)
            x = x0 + 1.5 + pitch / 2 + col * pitch
            y = ROOM_DEPTH / 2 + (row - (rows - 1) / 2) * pitch
            self._item(t, x, y, 0.0, 0.0)

    def _beside(self, t: _Thing) -> None:
        other = self.b.things.get(t.beside or "")
        self.item_size(t)
        if other is None:
            return
        if other.inst in self.placed:
            x, y, z, yaw = self.placed[other.inst]
            if z > 0.01:  # on or in a piece of furniture: on the floor in front of it
                if z > 0.2:
                    self.b.left_out.append(f"(nextto {t.inst} {other.inst}): on the floor "
                                           "below it, not level with it")
                direction = 1.0 if y < ROOM_DEPTH / 2 else -1.0
                self._item(t, x, y + direction * (0.35 + t.size[0] / 2), 0.0, 0.0)
                return
            self._item(t, x, y + other.size[1] / 2 + t.size[1] / 2 + 0.1, 0.0, yaw)
            return
        spec = next((o for o in self.objects if o["id"] == other.ident), None)
        if spec is None:
            return
        x, y, _ = spec["pose"]["position"]
        ahead = other.size[0] / 2 + t.size[0] / 2 + 0.1
        direction = 1.0 if y < ROOM_DEPTH / 2 else -1.0
        self._item(t, x, y + direction * ahead, 0.0, 0.0)


def generate_from_activity(activity: Activity, vocab: Vocabulary, seed: int = 0
                           ) -> GeneratedScene:
    """The house for `activity` (names from `vocab`, the import's)."""
    b = _Builder(activity, vocab)
    b.read()
    layout = _Layout(b, vocab)
    scene = layout.build(seed)
    placed = {o["id"] for o in layout.objects}
    missing = [t.inst for t in b.things.values() if t.ident not in placed]
    left = list(b.left_out) + [f"{m}: not placed" for m in missing]
    return GeneratedScene(scene, {t.inst: t.ident for t in b.things.values()
                                  if t.ident in placed}, left)


def activity_scene(ref: str, seed: int = 0) -> GeneratedScene:
    """The house for activity `ref`: a `.bddl` file (named as `fdc import bddl FILE`
    names it, its names as that import gives them), else an activity of the installed
    corpus by name (names as `fdc import bddl --corpus` gives them). An `InputError` for
    neither, or a file BDDL's parser refuses."""
    activity, vocab = load_activity(ref)
    return generate_from_activity(activity, vocab, seed)


def load_activity(ref: str) -> tuple[Activity, Vocabulary]:
    """Activity `ref` (a `.bddl` file or a corpus activity's name, as `activity_scene`
    takes it) and the vocabulary its import names things with."""
    path = Path(ref)
    if path.suffix == ".bddl" or path.exists():
        files = activity_files([path])
        read = read_activities(files)
        activities = [a for a in read if isinstance(a, Activity)]
        bad = [u for u in read if isinstance(u, Unreadable)]
        if bad:
            raise InputError(f"{bad[0].path}: BDDL's parser refuses it: {bad[0].reason}")
        if len(activities) != 1:
            raise InputError(f"{ref}: {len(activities)} activities; name one .bddl file")
        activity = activities[0]
    else:
        files = activity_files([], corpus=True)
        names = [n for n, _ in files]
        if ref not in names:
            close = difflib.get_close_matches(ref, names, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise InputError(f"`{ref}`: no such .bddl file, and no activity of that name in "
                             f"BEHAVIOR-1K's corpus{hint}")
        activities = [a for a in read_activities(files) if isinstance(a, Activity)]
        found = next((a for a in activities if a.name == ref), None)
        if found is None:
            raise InputError(f"`{ref}`: BDDL's parser refuses the corpus's file")
        activity = found
    return activity, build_vocabulary(activities, _home())
