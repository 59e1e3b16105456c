"""The manipulation oracle's planner: a task's trace planned by acting in the agent
environment (`TracePlanner`), one step of the goal at a time. docs/agents.md says what
it does for each kind of literal; `fdc.agents.oracle.manipulation` runs it, retrying
with the choices that failed banned."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, assert_never

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import ManipulationEnv, listed_regions, preview_place
from fdc.agents.oracle.errors import Refused, Unsolvable
from fdc.agents.oracle.placements import (
    CLEAR_CANDIDATES,
    Spot,
    clear_destinations,
    destinations,
    goal_objects,
    placements,
    state_after,
    truth_in,
    without,
)
from fdc.agents.oracle.states import STATE_PREDICATES, StateMaker
from fdc.predicates.algebra import junction_parts, literal
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    joined,
    to_pddl,
)
from fdc.sim_bridge.graph.feasible import pack
from fdc.sim_bridge.graph.regions import STEP
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import StandingPoint

#: Rounds of the oracle over a goal's literals (a later move may undo an earlier one).
ORACLE_ROUNDS = 3
#: Joins an atom and a placement in a choice's key (a disjunct's key is its PDDL).
PLACED = " -> "
#: Items the oracle may move off a destination to make room for a placement.
ROOM_MOVES = 3
#: Placements tried when packing several items on one surface.
PACK_BUDGET = 400


@dataclass(frozen=True)
class GoalLiteral:
    """An atom of a step's goal and whether it must hold (False: it must not)."""

    atom: GAtom
    positive: bool


@dataclass(frozen=True)
class Disjunct:
    """A part of a disjunction the oracle may take: how many of its literals are false
    now, its place in the disjunction, its key (its PDDL), its literals, and how many
    of those false now name a substance to be made first (`StateMaker.needs_making`)."""

    false_now: int
    index: int
    key: str
    literals: list[GoalLiteral]
    made: int = 0


@dataclass(frozen=True)
class AnchorMove:
    """An anchor moved to a cell of a surface, to make room beside or between anchors."""

    anchor: str
    surface: str
    cell: str


@dataclass(frozen=True)
class Trial:
    """A placement tried on a what-if state: whether the world finds a spot for it, and
    the state after it when it makes the atom true (else None)."""

    found: bool
    after: SnapshotState | None


@dataclass
class Budget:
    """Placements a packing search may still try (shared by its branches)."""

    left: int


class TracePlanner:
    """The manipulation oracle: plans a task's trace by acting in an agent environment.
    `banned`: choices (a disjunct, a placement) that an earlier attempt took and failed
    after."""

    def __init__(self, env: ManipulationEnv, banned: set[str]) -> None:
        self.env = env
        self.banned = banned
        self.chosen: list[str] = []  # the choices taken, in order
        self.goal: Goal = GAnd(parts=())
        self.sought: list[GoalLiteral] = []  # the literals being achieved
        self._truth_at = -1  # the snapshot count `_truth` judges
        self._truth: Callable[[Goal], bool] | None = None
        self._fetching: list[str] = []  # `fetch`es under way, outermost first

    def holds_now(self, g: Goal) -> bool:
        """Whether `g` holds in the world now (each atom judged once a snapshot)."""
        n = len(self.env.world.snapshots)
        if self._truth_at != n or self._truth is None:
            self._truth, self._truth_at = truth_in(self.env), n
        return self._truth(g)

    def act(self, name: ActionName, target: str | None = None, regions: Sequence[str] = ()
            ) -> None:
        """Take one action in the environment (`Refused` when the world refuses it)."""
        self.env.step(AgentAction(action=name, target=target, regions=list(regions)))
        last = self.env.records[-1]
        if not last.ok:
            raise Refused(" ".join(x for x in (name.value, target) if x) + f": {last.reason}")

    def literals(self, g: Goal, taken: Sequence[GoalLiteral] = ()) -> list[GoalLiteral]:
        """The literals to make true for a step's goal: a disjunction's part with the
        fewest of them false now (among the parts no earlier attempt banned, and, when
        one is, among those that contradict no literal `taken` already: a conjunction's
        earlier parts'; a choice, when it is not true already)."""
        match g:
            case GAtom():
                return [GoalLiteral(g, True)]
            case GNot(body=GAtom() as body):
                return [GoalLiteral(body, False)]
            case GNot():
                raise Unsolvable(f"the negation of a {type(g.body).__name__}")
            case GAnd():
                lits: list[GoalLiteral] = []
                for p in g.parts:
                    lits += self.literals(p, [*taken, *lits])
                return lits
            case GOr():
                options = []
                for k, p in enumerate(g.parts):
                    key = to_pddl(p)
                    if key in self.banned:
                        continue
                    lits = self.literals(p, taken)
                    false = [lit for lit in lits if self.holds_now(lit.atom) != lit.positive]
                    made = sum(lit.positive and StateMaker(self).needs_making(lit.atom)
                               for lit in false)
                    options.append(Disjunct(len(false), k, key, lits, made))
                if not options:
                    raise Unsolvable("every part of a disjunction failed")
                negated = {GoalLiteral(lit.atom, not lit.positive) for lit in taken}
                consistent = [o for o in options if negated.isdisjoint(o.literals)]
                best = min(consistent or options,
                           key=lambda o: (self.elsewhere(o.literals, taken), o.false_now,
                                          o.made, o.index))
                if best.false_now:
                    self.chosen.append(best.key)
                return best.literals
            case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
                raise Unsolvable(f"a {type(g).__name__} inside a step")
            case _:
                assert_never(g)

    def elsewhere(self, lits: Sequence[GoalLiteral], taken: Sequence[GoalLiteral]) -> int:
        """How many of `lits` false now would move an item that a `taken` literal of the
        same relocating predicate puts at another object: an item stands in one place,
        so the two rarely hold together (a box of chocolates in two sacks)."""
        relocating = default_registry().relocating()
        places = {(t.atom.predicate, t.atom.args[0]): t.atom.args[1:] for t in taken
                  if t.positive and t.atom.predicate in relocating and len(t.atom.args) > 1}
        return sum(1 for lit in lits if lit.positive and not self.holds_now(lit.atom)
                   and places.get((lit.atom.predicate, lit.atom.args[0]),
                                  lit.atom.args[1:]) != lit.atom.args[1:])

    def achieve(self, g: Goal) -> None:
        """Act until the step's goal `g` holds (at most `ORACLE_ROUNDS` rounds over its
        literals): negative ones first, then positive ones, anchors first, doors last."""
        self.goal = g
        for _ in range(ORACLE_ROUNDS):
            if self.holds_now(g):
                return
            for lit in dict.fromkeys(self.literals(g)):
                if not lit.positive and lit.atom.predicate != "is-open" and \
                        self.holds_now(lit.atom):
                    self.make_false(lit.atom)
            # chosen again: an item moved away may now satisfy another disjunct
            lits = list(dict.fromkeys(self.literals(g)))
            anchors = {x for lit in lits if lit.positive for x in lit.atom.args[1:]}
            # states first (cooking puts the item on the stove); anchors first: moving an
            # anchor later would break what was placed by it;
            # what must end in the hand last: the hand is needed for the others
            positives = sorted(self.carried(self.gathered(
                [lit.atom for lit in lits if lit.positive and lit.atom.predicate != "is-open"])),
                               key=lambda a: (a.predicate == "holding",
                                              a.predicate not in STATE_PREDICATES,
                                              a.args[0] not in anchors))
            # the moves a gathering makes are packed with the rest (`pending_on_surface`)
            self.sought = [*lits, *(GoalLiteral(a, True) for a in positives
                                    if GoalLiteral(a, True) not in lits)]
            for a in positives:
                if not self.holds_now(a):
                    self.make_true(a)
            # doors last: fetching and placing above may have opened them
            for lit in lits:
                if lit.atom.predicate == "is-open" and self.holds_now(lit.atom) != lit.positive:
                    self.set_open(lit.atom.args[0], lit.positive)
        if not self.holds_now(g):
            raise Unsolvable("the goal does not hold after the oracle's moves")

    def gathered(self, atoms: Sequence[GAtom]) -> list[GAtom]:
        """`atoms` with their `same-surface` atoms replaced by moves to one surface per
        group of items they join (`gathering_surface`), each item elsewhere put `on` it (the group's
        items there stay: a moved item on one of them is on the surface too). The pairs
        then hold with the fewest moves, whatever the order of the atoms, and the moves
        to one surface are packed together (stacked where they do not fit side by
        side)."""
        same = [a for a in atoms if a.predicate == "same-surface" and len(a.args) == 2]
        if not same:
            return list(atoms)
        posed = self.env.world.state.posed
        moves: list[GAtom] = []
        for items in joined((a.args[0], a.args[1]) for a in same):
            where = {x: posed.support_of(x) for x in items}
            home = self.gathering_surface(sorted(items), where)
            if home is None:
                return list(atoms)
            moves += [GAtom(predicate="on", args=(x, home)) for x in items if where[x] != home]
        return [a for a in atoms if a not in same] + moves

    def carried(self, atoms: Sequence[GAtom]) -> list[GAtom]:
        """`atoms` with an item's place on or in furniture (`on-top-of`, `inside-of`)
        given to the item it must stand on (`(on-top-of A X)`, X an item whose top is
        low: a plate, a tray): X goes there, then A on X, which puts A there too (the
        checkers judge an item on a low top on, in, what that item stands on; the
        abstraction's `place-on-item` says so), for the world moves no item that carries
        another (a pizza on a plate in the fridge: the plate first)."""
        g = self.env.graph
        under: dict[str, str] = {}
        for a in atoms:
            if a.predicate == "on-top-of" and g.object(a.args[1]).kind is Kind.MOVABLE:
                tops = [s.id for s in g.surfaces(a.args[1]) if s.container is None]
                if tops and all(self.holds_now(GAtom(predicate="low-top", args=(t,)))
                                for t in tops):
                    under.setdefault(a.args[0], a.args[1])
        out: list[GAtom] = []
        for a in atoms:
            x, seen = a.args[0], {a.args[0]}
            if a.predicate in ("on-top-of", "inside-of") and \
                    g.object(a.args[1]).kind is not Kind.MOVABLE:
                while x in under and under[x] not in seen:  # down the stack
                    x = under[x]
                    seen.add(x)
            out.append(a if x == a.args[0] else GAtom(predicate=a.predicate,
                                                       args=(x, *a.args[1:])))
        return list(dict.fromkeys(out))

    def gathering_surface(self, items: Sequence[str], where: Mapping[str, str | None]
                          ) -> str | None:
        """The surface a group gathers on: the one most of it stands on now (the lowest
        id on a tie), then the other furniture surfaces, the largest first, each where
        the items not on it yet may fit (`pack`'s necessary rules); each is a choice
        (`chosen`), so that when the group does not fit there, the oracle's next
        attempt tries the next one (five lamps do not fit on the hall console where two
        of them stand: the office desk takes them). None: no item of the group stands
        on a surface."""
        counts: dict[str, int] = {}
        for w in where.values():
            if w is not None:
                counts[w] = counts.get(w, 0) + 1
        if not counts:
            return None
        g = self.env.graph

        def candidates() -> Iterator[str]:  # the others sorted only when those fail
            yield from sorted(counts, key=lambda w: (-counts[w], w))
            yield from (s.id for s in sorted(
                (s for s in g.surfaces() if s.id not in counts and
                 g.object(s.object_id).kind is not Kind.MOVABLE),
                key=lambda s: (-s.half_extents[0] * s.half_extents[1], s.id)))

        group = ",".join(items)
        for w in candidates():
            key = f"gather {group} on {w}"
            if key in self.banned or pack(g, w, [(x, None) for x in items
                                                 if where[x] != w]) is not None:
                continue
            if key not in self.chosen:
                self.chosen.append(key)
            return w
        raise Unsolvable(f"no surface left to gather {', '.join(items)} on")

    def fetch(self, item: str, avoid: Collection[str] = ()) -> None:
        """Go and pick `item`: what stands on it goes first (never onto `avoid`), its
        closed container is opened."""
        w = self.env.world
        if w.held_object() == item:
            return
        if w.held_object() is not None:
            raise Unsolvable(f"the hand holds `{w.held_object()}`")
        if item in self._fetching:  # items that carry each other (a stack's cycle)
            raise Unsolvable(f"`{item}` carries what carries it: "
                             f"{', '.join(f'`{x}`' for x in self._fetching)}")
        self._fetching.append(item)
        try:
            for other in w.state.posed.items_carried_by(item):  # take them off first
                self.move_away(other, [], avoid)
        finally:
            self._fetching.pop()
        src = w.state.posed.support_of(item)
        closed = w.state.posed.enclosing_container(item)
        if closed is not None:
            self.open_container(closed.id)
        if not self.env.reachable(item):  # to its surface, or beside it on the floor
            self.act(ActionName.GO_TO, item if src is None else src)
        self.act(ActionName.PICK, item)

    def open_container(self, surface: str) -> None:
        """Go to a closed container and open it."""
        if not self.env.reachable(surface):
            self.act(ActionName.GO_TO, surface)
        self.act(ActionName.OPEN, surface)

    def set_open(self, furniture: str, value: bool) -> None:
        """Open or close furniture (all its containers), from the nearest of them."""
        doors = self.env.doors(furniture)
        if not doors:
            raise Unsolvable(f"`{furniture}` has no door or drawer to "
                             f"{'open' if value else 'close'}")
        if not self.env.reachable(furniture):
            self.act(ActionName.GO_TO, doors[0].id)
        self.act(ActionName.OPEN if value else ActionName.CLOSE, furniture)

    def make_true(self, a: GAtom) -> None:
        """Bring the atom's item where `a` holds (make room first, open a closed
        destination, try each destination surface for relations any will do)."""
        if a.predicate == "holding":  # in the hand at the end: what it holds goes first
            held = self.env.world.held_object()
            if held is not None and held != a.args[0]:
                self.move_away(held, [])
            self.fetch(a.args[0])
            return
        if a.predicate in STATE_PREDICATES:
            StateMaker(self).make(a, True)
            return
        if a.predicate == "on-floor" or (a.predicate == "next-to" and self.on_floor(a.args[1])):
            self.put_on_floor(a.args[0], a.args[1] if a.predicate == "next-to" else None)
            return
        if a.predicate not in default_registry().relocating():
            raise Unsolvable(f"{to_pddl(a)}: the action space has no action that changes "
                             f"`{a.predicate}`")
        item = a.args[0]
        if self.env.world.held_object() != item:
            self.make_room(a)
        surfaces = list(dict.fromkeys(s.surface for s in destinations(self.env, a)))
        if not surfaces:
            raise Unsolvable(f"no destination for {to_pddl(a)}")
        for surface in surfaces:  # go there, then choose from where the robot stands
            s = self.env.world.state.posed.surface(surface)
            if s.container is not None and not s.is_open:
                # open it first: doors need an empty hand (fdc-home's `open`)
                if self.env.world.held_object() == item:
                    self.move_away(item, [])
                self.open_container(surface)
            self.fetch(item)
            if not self.env.reachable(surface):
                self.act(ActionName.GO_TO, surface)
            # `at-side` names a side in the words of the robot where it stands: another
            # side of the surface turns the same words to another region
            views = 4 if a.predicate == "at-side" else 1
            for view in range(views):
                if view:
                    self.env.step(AgentAction(action=ActionName.CHANGE_VIEW))
                    if not self.env.records[-1].ok:
                        break
                if self.place_for(a, surface):
                    return
            if a.predicate not in default_registry().spread():
                break
        raise Unsolvable(f"no placement of `{a.args[0]}` makes {to_pddl(a)} true")

    def on_floor(self, item: str) -> bool:
        """Whether `item` is a movable item lying on the floor now (on no surface, not
        in the hand)."""
        return item in self.env.floor_items()

    def put_on_floor(self, item: str, near: str | None = None) -> None:
        """Put `item` down on the floor (the world's `place_on_floor`): beside `near`, an
        item on the floor, from where the robot stands by it; else in the room the
        goal's `in-room` literal names for it (else the room it is in now), by the
        robot, where it stands when it is in that room, else at the furniture surface
        of the room nearest it."""
        env, w = self.env, self.env.world
        if near is not None:
            self.fetch(item)
            if not env.reachable(near):
                self.act(ActionName.GO_TO, near)
            self.act(ActionName.PLACE, near)
            return
        rooms = [lit.atom.args[1] for lit in self.sought if lit.positive
                 and lit.atom.predicate == "in-room" and lit.atom.args[0] == item]
        room = rooms[0] if rooms else w.room_of(item)
        if room is None:
            raise Unsolvable(f"`{item}` is in no room to put it down on the floor of")
        self.fetch(item)
        a = w.agent_pose()
        if w.room_of((a.x, a.y)) != room:
            g = env.graph
            tops = [s.id for s in g.surfaces() if s.container is None
                    and g.object(s.object_id).kind is not Kind.MOVABLE
                    and g.object(s.object_id).room == room and g.standing_points(s.id)]
            if not tops:
                raise Unsolvable(f"no furniture in `{room}` to walk to")
            self.act(ActionName.GO_TO, min(tops, key=lambda s: (
                g.geodesic_distance((a.x, a.y), s), s)))
        self.act(ActionName.PLACE, room)

    def make_room(self, a: GAtom) -> None:
        """When no placement makes `a` true now (its destination containers opened;
        for `at-side`, from any side of the anchor's surface), make room first: move
        away the fewest items on a destination that the goal does not name (the largest
        first, at most `ROOM_MOVES`); else move an anchor: for `between`, one of them to
        the cell of their surface farthest from the other; for `around` and `at-side`,
        the anchor to a cell of its surface with room beside it."""
        if a.predicate in default_registry().spread():  # any of many surfaces will do
            return
        env = self.env
        posed = env.world.state.posed
        dests = list(dict.fromkeys(s.surface for s in destinations(env, a)))
        closed = [s for s in dests if posed.surface(s).container is not None
                  and not posed.surface(s).is_open]
        if self.placeable(a, without(env, [], closed)):
            return
        named = goal_objects(self.goal) | set(a.args)
        spare: list[str] = []
        anchored = a.predicate in default_registry().anchored() and \
            posed.support_of(a.args[1]) is not None
        if anchored:
            dests = list(dict.fromkeys([*dests, posed.support_of(a.args[1]) or ""]))
        for surface in dests:
            items = sorted((o for o in posed.items_on(surface)
                            if o.kind is Kind.MOVABLE and o.id not in named),
                           key=lambda o: (-o.footprint.area, o.id))[:ROOM_MOVES]
            spare += [o.id for o in items]
            taken: list[str] = []
            for o in items:
                taken.append(o.id)
                if self.placeable(a, without(env, taken, closed), surface):
                    break
            else:
                continue
            for x in list(taken):  # the fewest: drop those not needed after all
                rest = [y for y in taken if y != x]
                if self.placeable(a, without(env, rest, closed), surface):
                    taken = rest
            for x in taken:
                self.move_away(x, [], {surface})
            return
        if a.predicate in default_registry().packed() and self.repack(a):
            return
        if not anchored:
            return
        for taken in ([], spare):  # the anchor moved; else room cleared too
            move = self.spread_anchors(a, taken) if a.predicate == "between" else \
                self.shift_anchor(a, taken)
            if move is not None:
                for x in taken:
                    self.move_away(x, [], {move.surface})
                self.put_in_cell(move)
                return
        for move in self.relocate_anchors(a):  # else the anchors go where there is room
            self.put_in_cell(move)

    def repack(self, a: GAtom) -> bool:
        """When `a`'s item finds no room on its surface beside the items the goal packs
        there already (its `on`, `in-cell`, `inside` atoms that hold now), on their tops
        neither (`spots_on`), and a packing of them all (`packing`) exists without them:
        they are put away first, and packed again with the rest (`pending_on_surface`). Put down one
        after another as the world chooses, the first ones may leave no room for `a`'s
        item (a donut in the middle of the cell the goal wants three in)."""
        env = self.env
        surface = packed_surface(env, a)
        if surface is None:
            return False
        now = env.world.state
        if any(self.state_if_placed(a, o, now) is not None
               for o in self.spots_on(a, surface, now)):
            return False
        there = {o.id for o in now.posed.items_on(surface)}
        packed = [lit.atom for lit in self.sought if lit.positive
                  and lit.atom.predicate in default_registry().packed()
                  and lit.atom.args[0] != a.args[0]
                  and lit.atom.args[0] in there and packed_surface(env, lit.atom) == surface
                  and self.holds_now(lit.atom)]
        packed = list(dict.fromkeys(packed))
        if not packed:
            return False
        group = list(dict.fromkeys([a, *self.pending_on_surface(a), *packed]))
        if self.packing(group, without(env, [b.args[0] for b in packed]),
                        Budget(PACK_BUDGET)) is None:
            return False
        for b in packed:
            self.move_away(b.args[0], [], {surface})
        return True

    def put_in_cell(self, move: AnchorMove) -> None:
        """Fetch the anchor and place it in the move's cell of its surface (what stands
        on it goes elsewhere: the anchor moved to make room takes that room itself)."""
        self.fetch(move.anchor, avoid={move.surface})
        if not self.env.reachable(move.surface):
            self.act(ActionName.GO_TO, move.surface)
        self.act(ActionName.SHOW_RECEPTACLE, move.surface)
        self.act(ActionName.PLACE, move.surface, [move.cell])

    def relocate_anchors(self, a: GAtom) -> list[AnchorMove]:
        """The moves that take the anchors of `a` (`around`,
        `at-side`: one; `between`: two, to opposite cells) to another open furniture
        surface, the nearest first, after which the item fits for `a` and no part of
        the goal that holds now is broken; none when no surface of the
        `CLEAR_CANDIDATES` nearest will do. The anchors' own surface may be too small
        or too full for the item beside or between them."""
        env = self.env
        base = env.world.state
        posed = base.posed
        anchors = list(dict.fromkeys(a.args[1:3] if a.predicate == "between" else a.args[1:2]))
        here = posed.support_of(anchors[0])
        if here is None:
            return []
        keep = self.goal_parts_holding()
        hx, hy = posed.object(anchors[0]).position[:2]
        tops = sorted((t for t in posed.surfaces()
                       if t.id != here and env.graph.object(t.object_id).kind is not Kind.MOVABLE
                       and (t.container is None or t.is_open)),
                      key=lambda t: (math.hypot(t.origin[0] - hx, t.origin[1] - hy), t.id))
        for top in tops[:CLEAR_CANDIDATES]:
            cells = {c.direction: c.id for c in posed.cells(top.id)}
            order = sorted(cells, key=lambda d: (-sum(map(abs, STEP[d])), cells[d]))
            if len(anchors) == 1:  # the corners first
                layouts = [[cells[d]] for d in order]
            else:  # opposite cells, the corners (farthest apart) first
                by_step = {STEP[d]: d for d in cells}
                layouts = [[cells[d], cells[by_step[(-STEP[d][0], -STEP[d][1])]]]
                           for d in order if STEP[d] != (0, 0)
                           and (-STEP[d][0], -STEP[d][1]) in by_step]
            for layout in layouts:
                st: SnapshotState | None = base
                for anchor, cell in zip(anchors, layout, strict=True):
                    assert st is not None
                    res, _, _ = preview_place(st.posed, anchor, top.id, [cell])
                    st = None if res is None or not res.ok else \
                        state_after(env, anchor, res, st)
                    if st is None:
                        break
                if st is None:
                    continue
                truth = truth_in(env, st, ahead=keep)
                if all(truth(k) for k in keep) and self.placeable(a, st):
                    return [AnchorMove(x, top.id, c)
                            for x, c in zip(anchors, layout, strict=True)]
        return []

    def placeable(self, a: GAtom, state: SnapshotState, only: str | None = None) -> bool:
        """Whether some placement makes `a` true in `state` (on surface `only`, if
        given): for `at-side`, seen from any side of the anchor's surface the robot can
        stand at."""
        views = [state]
        if a.predicate == "at-side":
            surface = state.posed.support_of(a.args[1])
            pts, _ = state.posed.standing_points_for(surface) if surface else ([], None)
            views = [standing_at(state, p) for p in pts if p.reachable] or views
        return any(next(placements(self.env, a, v, only), None) is not None for v in views)

    def goal_parts_holding(self) -> list[Goal]:
        """The parts of the goal that hold now (a move must not break them)."""
        parts = junction_parts(self.goal, "and")
        now = truth_in(self.env, ahead=parts)
        return [k for k in parts if now(k)]

    def shift_anchor(self, a: GAtom, taken: Sequence[str]) -> AnchorMove | None:
        """The anchor of `around` or `at-side` moved to a cell of
        its surface (the corners first), with `taken` moved away, after which the item
        fits beside it and no part of the goal that holds now is broken."""
        env = self.env
        base = without(env, taken)
        posed = base.posed
        anchor = a.args[1]
        surface = posed.support_of(anchor)
        if surface is None:
            return None
        cells = sorted(posed.cells(surface), key=lambda c: -sum(map(abs, STEP[c.direction])))
        cell = self._anchor_cell(a, anchor, surface, cells, base)
        return None if cell is None else AnchorMove(anchor, surface, cell)

    def spread_anchors(self, a: GAtom, taken: Sequence[str]) -> AnchorMove | None:
        """An anchor of `between` moved to the cell of its
        surface farthest from the other anchor, with `taken` moved away, after which the
        item fits between them and no part of the goal that holds now is broken."""
        env = self.env
        base = without(env, taken)
        posed = base.posed
        first, second = a.args[1], a.args[2]
        surface = posed.support_of(first)
        if surface is None or surface != posed.support_of(second):
            return None
        for anchor, other in ((second, first), (first, second)):
            ox, oy = posed.object(other).position[:2]
            cells = sorted(posed.cells(surface), key=lambda c: -c.polygon.centroid.distance(
                _point(ox, oy)))
            cell = self._anchor_cell(a, anchor, surface, cells, base)
            if cell is not None:
                return AnchorMove(anchor, surface, cell)
        return None

    def _anchor_cell(self, a: GAtom, anchor: str, surface: str, cells: Sequence[Any],
                     base: SnapshotState) -> str | None:
        """The first of `cells` (in `base`, where the items in the way are gone) the
        anchor can be moved to such that the item then fits for `a` and no part of the
        goal that holds now is broken."""
        env, keep = self.env, self.goal_parts_holding()
        for c in cells:
            res, _, _ = preview_place(base.posed, anchor, surface, [c.id])
            if res is None or not res.ok:
                continue
            st = state_after(env, anchor, res, base)
            truth = truth_in(env, st, ahead=keep)
            if all(truth(k) for k in keep) and self.placeable(a, st):
                return str(c.id)
        return None

    def place_for(self, a: GAtom, surface: str) -> bool:
        """Place the held item on `surface` for `a` from where the robot stands, if some
        placement that no earlier attempt banned makes it true: when other items of the
        goal must still go on the same surface, the first placement of a packing that
        makes room for all of them (`packing`); else the preferred placement, then the
        other spots of the surface (`spots_on`: its cells, beside each item, on an
        item)."""
        seen: set[str] = set()
        for where, labels in self.placement_options(a, surface):
            key = f"{to_pddl(a)}{PLACED}{where} {labels}"
            if key in seen:
                continue
            seen.add(key)
            if key in self.banned:
                continue
            self.chosen.append(key)
            if not self.env.reachable(where):
                self.act(ActionName.GO_TO, where)
            if labels:
                self.act(ActionName.SHOW_RECEPTACLE, where)
            self.act(ActionName.PLACE, where, labels)
            return True
        return False

    def placement_options(self, a: GAtom, surface: str) -> Iterator[Spot]:
        """`place_for`'s placements, in the order it tries them."""
        packed = a.predicate in default_registry().packed() and \
            packed_surface(self.env, a) == surface
        if packed:
            group = [a, *self.pending_on_surface(a)]
            if len(group) > 1:
                plan = self.packing(group, self.env.world.state, Budget(PACK_BUDGET))
                if plan:
                    yield plan[0]
        yield from placements(self.env, a, only=surface)
        if packed:
            st = self.env.world.state
            yield from (o for o in self.spots_on(a, surface, st)
                        if self.state_if_placed(a, o, st))

    def pending_on_surface(self, a: GAtom) -> list[GAtom]:
        """The other atoms of the literals being achieved, false now, that put an item
        on the surface `a` puts its item on (`on`, `in-cell`, `inside` a receptacle)."""
        dest = packed_surface(self.env, a)
        return [lit.atom for lit in self.sought if lit.positive and lit.atom != a
                and lit.atom.predicate in default_registry().packed()
                and lit.atom.args[0] != a.args[0]
                and packed_surface(self.env, lit.atom) == dest
                and not self.holds_now(lit.atom)]

    def spots_on(self, a: GAtom, surface: str, state: SnapshotState) -> list[Spot]:
        """Placements of `a`'s item on `surface` beyond the preferred ones: its cells
        (corners first), beside each item on it, on top of each item on it or on those
        (a stack; `state_if_placed` judges whether the item still counts as on the
        surface)."""
        posed = state.posed
        item = a.args[0]
        corners = sorted(posed.cells(surface), key=lambda c: -sum(map(abs, STEP[c.direction])))
        out = [Spot(surface, [])]
        out += [Spot(surface, [c.id]) for c in corners]
        out += [Spot(surface, [r.id]) for r in listed_regions(posed, surface)
                if r.anchor_id is not None and r.anchor_id != item]
        stack = [o for o in posed.items_on(surface) if o.kind is Kind.MOVABLE and o.id != item]
        while stack:
            o = stack.pop(0)
            for t in posed.surfaces(o.id):
                if t.container is None:
                    out.append(Spot(t.id, []))
                    stack += [x for x in posed.items_on(t.id)
                              if x.kind is Kind.MOVABLE and x.id != item]
        return out

    def state_if_placed(self, a: GAtom, option: Spot, state: SnapshotState
                        ) -> SnapshotState | None:
        """The state after placing `a`'s item as `option` says, from `state`, when the
        placement exists and makes `a` true; else None."""
        return self.try_place(a, option, state).after

    def try_place(self, a: GAtom, option: Spot, state: SnapshotState) -> Trial:
        """Whether the world finds a spot for `a`'s item as `option` says, from
        `state`, and the state after it when it makes `a` true."""
        item = a.args[0]
        res, _, _ = preview_place(state.posed, item, option.surface, option.regions)
        if res is None or not res.ok:
            return Trial(False, None)
        after = state_after(self.env, item, res, state)
        return Trial(True, after if truth_in(self.env, after)(a) else None)

    def packing(self, atoms: Sequence[GAtom], state: SnapshotState, budget: Budget
                ) -> list[Spot] | None:
        """A placement for each atom's item, in order, after which all of `atoms` hold:
        a depth-first search over `spots_on` (at most `budget` placements tried). Where
        the world finds no spot anywhere on the surface (`spots_on`' first), none of its
        cells or the regions beside its items has one either: only the tops of its
        items are tried (stacking); else the surface's own spots come before them (also
        when the spot anywhere does not make the atom true: another cell)."""
        if not atoms:
            return []
        a = atoms[0]
        surface = packed_surface(self.env, a)
        if surface is None:
            return None
        plain, *others = self.spots_on(a, surface, state)
        tops = [o for o in others if o.surface != surface]
        first = self.try_place(a, plain, state)
        budget.left -= 1
        order = [o for o in others if o.surface == surface] + tops if first.found else tops
        tried = itertools.chain([(plain, first.after)], ((o, None) for o in order))
        for option, after in tried:
            if option is not plain:
                if budget.left <= 0:
                    return None
                budget.left -= 1
                after = self.state_if_placed(a, option, state)
            if after is None:
                continue
            rest = self.packing(atoms[1:], after, budget)
            if rest is not None:
                return [option, *rest]
        return None

    def make_false(self, a: GAtom) -> None:
        """Take the atom's item away where `a` does not hold (a state: change it)."""
        if a.predicate in STATE_PREDICATES:
            StateMaker(self).make(a, False)
            return
        if a.predicate not in default_registry().relocating() and a.predicate != "on-floor":
            raise Unsolvable(f"(not {to_pddl(a)}): the action space has no action that "
                             f"changes `{a.predicate}`")
        self.move_away(a.args[0], [a])

    def move_away(self, item: str, atoms: Sequence[GAtom], avoid: Collection[str] = ()
                  ) -> None:
        """Put `item` on the nearest furniture surface where none of `atoms` holds and
        no part of the goal that holds now is broken: not where it stands now, nor on
        `avoid` (a surface the oracle makes room on)."""
        src = self.env.world.state.posed.support_of(item)
        self.fetch(item, avoid)
        g = self.goal
        negated = {(a, False) for a in atoms}  # `(not a)`: no longer kept
        keep = [k for k in junction_parts(g, "and") if literal(k) not in negated]
        dests = clear_destinations(self.env, item, atoms, keep,
                                   {*avoid, *([src] if src is not None else [])})
        if not dests:
            what = " for " + ", ".join(f"(not {to_pddl(a)})" for a in atoms) if atoms else ""
            w = self.env.world
            here = w.room_of((w.agent_pose().x, w.agent_pose().y))
            if here is None or any(a.predicate in ("on-floor", "in-room") for a in atoms):
                raise Unsolvable(f"no surface takes `{item}` away{what}")
            # the floor of the robot's room takes it (a bicycle no furniture holds)
            kept = [k for k in keep if self.holds_now(k)]
            self.act(ActionName.PLACE, here)
            if any(self.holds_now(a) for a in atoms) or not all(map(self.holds_now, kept)):
                raise Unsolvable(f"no surface takes `{item}` away{what}, and the floor "
                                 "breaks the goal")
            return
        if not self.env.reachable(dests[0]):
            self.act(ActionName.GO_TO, dests[0])
        self.act(ActionName.PLACE, dests[0])


def packed_surface(env: ManipulationEnv, a: GAtom) -> str | None:
    """The surface `a` puts its item on, for the relations `packing` handles."""
    if a.predicate in ("on", "in-cell"):
        return str(a.args[1])
    if a.predicate == "inside":
        floors = env.world.state.posed.containers_of(a.args[1])
        return str(floors[0].id) if len(floors) == 1 else None
    return None


def standing_at(state: SnapshotState, point: StandingPoint) -> SnapshotState:
    """`state` with the robot at a standing point, facing the furniture."""

    snap = state.snapshot
    agent = AgentPose(x=point.position[0], y=point.position[1], z=snap.agent.z,
                      yaw_rad=point.yaw_rad)
    return SnapshotState(state.graph, snap.model_copy(update={"agent": agent}))


def _point(x: float, y: float) -> Any:
    import shapely

    return shapely.Point(x, y)
