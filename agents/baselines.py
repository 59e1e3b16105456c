"""Baseline agents: `random` and `oracle`, on memory and manipulation tasks alike.

- `random`: a memory task gets uniformly random history frames (as many as the task has
  targets, each drawn independently; `random_frames_chance` is its exact chance of
  success); a manipulation task gets random valid actions in the agent environment
  (an action name drawn uniformly among those that apply, then its argument) until
  the agent draws `call_end` or the step budget is spent. Seeded per task
  (`random.Random` of the seed and the task id): the same predictions for a seed.
- `oracle`: a memory task gets frames from its valid frames (single goal: the one
  geodesically closest to the start; multi-goal: per target in order, the one closest
  to the frame before), and a low-level run: the embedded world walks from the start to
  each chosen frame's pose and stops there, recorded as a trajectory file. A
  manipulation task gets an action trace planned from its ground goal in the agent
  environment: for each relocation atom, a closed destination container opened first
  (with the hand empty, as fdc-home's `open` requires), `go_to` the item's surface
  (`open` its container when it is closed), `pick`, `go_to` the destination,
  `show_receptacle` when regions are needed, `place` in the regions that make the atom
  true (checked on the state the placement would make); for a negated atom, the item
  goes to the nearest furniture surface where no conjunct of the goal is broken;
  `is-open` literals last (`open` / `close`, after the moves that may open containers);
  a sequence step by step; `call_end`. A disjunction takes the part with the fewest
  atoms still false, and the next one if that part cannot be achieved. When nothing
  fits, room is made (items the goal does not name moved away, or the anchor moved);
  several items bound for one surface are packed (`_TracePlanner.pack`), stacked if need be.

A memory-manipulation task (`fdc.compiler.suite.is_memory_manipulation`) is a manipulation
task for both agents: they act from the world its experience left behind
(`SceneContext.after`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import (
    RELOCATING,
    ManipulationEnv,
    is_manipulation,
    listed_regions,
    preview_place,
    step_budget,
)
from fdc.agents.predictions import Prediction
from fdc.compiler.start_checks import ANCHORED, placing_atoms
from fdc.core.errors import FdcError
from fdc.core.files import FileNames, Outputs
from fdc.core.limits import current
from fdc.predicates.algebra import (
    NotExpandable,
    children,
    expand_counts,
    junction_parts,
    literal,
)
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
from fdc.sim_bridge.graph.placement import Placement, Relation, place
from fdc.sim_bridge.graph.regions import STEP, Direction
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.embedded import LONG_DAY, side_of
from fdc.sim_bridge.world.plans import At, action_of, with_pose

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.navigation import StandingPoint
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import Snapshot

BASELINES = ("random", "oracle")
#: Rounds of the oracle over a goal's literals (a later move may undo an earlier one).
ORACLE_ROUNDS = 3
#: Choices (disjuncts, placements) the oracle may abandon before it gives up on a task.
ORACLE_RETRIES = 10
#: Placements banned in a row before the oracle abandons the disjunct they serve.
PLACEMENT_RETRIES = 3
#: Joins an atom and a placement in a choice's key (a disjunct's key is its PDDL).
PLACED = " -> "
#: Surfaces tried when moving an item away (the nearest first).
CLEAR_CANDIDATES = 16
#: The oracle's planning budget (the task's budget is checked afterwards).
PLANNING_BUDGET = 10_000
#: Where items are put when the oracle asks whether a placement would fit without them.
OFF_MAP_M = -1000.0
#: Items the oracle may move off a destination to make room for a placement.
ROOM_MOVES = 3
#: Relations any of many surfaces satisfies: the oracle tries them in turn.
SPREAD = frozenset({"in-room", "on-furniture"})
#: Relations whose items the oracle packs together on one surface.
PACKED = frozenset({"on", "in-cell", "inside"})
#: Placements tried when packing several items on one surface.
PACK_BUDGET = 400


class Unsolvable(FdcError):
    """The oracle cannot achieve the task (the reason says why)."""


class Refused(Unsolvable):
    """The world refused one of the oracle's actions (a closed door, an item carrying
    others): no other choice of the oracle's would help."""


@dataclass(frozen=True)
class BaselineResult:
    """One task's prediction, and why the oracle failed, if it did."""

    prediction: Prediction
    failure: str = ""


# --------------------------------------------------------------------------- placements


def _hypothetical(env: ManipulationEnv, item: str, placement: Placement,
                  state: SnapshotState | None = None) -> SnapshotState:
    """The state just after `place` puts `item` where `placement` says, from `state`
    (default: the world now)."""
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import ObjectPose

    assert placement.pose is not None
    snap = state.snapshot if state is not None else env.world.snapshot()
    objects = dict(snap.objects)
    old = objects[item]
    objects[item] = ObjectPose(position=placement.pose.position,
                               orientation=placement.pose.orientation, size=old.size)
    return SnapshotState(env.graph, snap.model_copy(update={"objects": objects, "held": None}))


def _truth(env: ManipulationEnv, state: SnapshotState | None = None,
           thresholds: dict[str, float] | None = None) -> Callable[[Goal], bool]:
    """A goal's truth in `state` (default: the world now)."""
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.registry import Context
    from fdc.predicates.verify import evaluate

    registry = default_registry()
    ctx = Context(graph=env.graph, state=state if state is not None else env.world.state)
    overrides = thresholds if thresholds is not None else env.task.thresholds
    if overrides:
        ctx = ctx.with_thresholds(overrides, registry)
    cache: dict[GAtom, bool] = {}

    def holds(a: GAtom, _i: int) -> bool:
        found = cache.get(a)
        if found is None:
            found = cache[a] = registry.evaluate(a.predicate, a.args, ctx)
        return found

    return lambda g: evaluate(g, 0, holds)


def _without(env: ManipulationEnv, items: Sequence[str], opened: Sequence[str] = ()
             ) -> SnapshotState:
    """The world now with `items` taken out of the scene (off the map, on no surface)
    and the containers `opened` open: would a placement fit once they are moved away?"""
    from fdc.sim_bridge.world.snapshot import SnapshotState

    snap = env.world.snapshot()
    objects = dict(snap.objects)
    posed = env.world.state.posed
    items = list(dict.fromkeys(items))
    for i in items:  # what stands on them goes with them (the list grows as it is read)
        items += [x for x in posed.items_carried_by(i) if x not in items]
    for k, i in enumerate(items):
        p = objects[i]
        objects[i] = p.model_copy(update={"position": (OFF_MAP_M - k, OFF_MAP_M, p.size[2] / 2)})
    return _opened(SnapshotState(env.graph, snap.model_copy(update={"objects": objects})),
                   opened)


def _opened(state: SnapshotState, containers: Sequence[str]) -> SnapshotState:
    """`state` with the containers `containers` open."""
    from fdc.sim_bridge.world.snapshot import SnapshotState

    snap = state.snapshot
    doors = dict(snap.open) | dict.fromkeys(containers, True)
    return SnapshotState(state.graph, snap.model_copy(update={"open": doors}))


def _goal_objects(g: Goal) -> set[str]:
    """Every argument of every atom of `g`."""
    match g:
        case GAtom():
            return set(g.args)
        case GNot() | GAnd() | GOr() | GThen() | GTargets():
            return set().union(*(_goal_objects(p) for p in children(g)))
        case GCount() | GCluster() | GChecklist():
            return set()
        case _:
            assert_never(g)


def destinations(env: ManipulationEnv, atom: GAtom, state: SnapshotState | None = None
                 ) -> list[tuple[str, list[str]]]:
    """Candidate (surface, region labels) for the atom's item to make `atom` true (in
    `state`, default: the world now)."""
    st = state or env.world.state
    posed = st.posed
    item = atom.args[0]
    p, args = atom.predicate, atom.args
    g = env.graph
    cfg = posed.config.placement
    if p in ANCHORED:  # judged with the anchor's container open: `make` opens it first
        s = posed.support_of(args[1])
        if s is not None and posed.surface(s).container is not None and \
                not posed.surface(s).is_open:
            posed = _opened(st, [s]).posed
    if p == "on":  # anywhere (the centre first), else a cell: room for the next item
        return [(args[1], [])] + [(args[1], [c.id]) for c in posed.cells(args[1])]
    if p == "in-cell":
        return [(args[1], [f"{args[1]}#cell:{args[2]}"])]
    if p == "inside":
        floors = posed.containers_of(args[1])
        return [(s.id, []) for s in floors] or [(args[1], [])]
    if p in ("around", "at-side"):
        anchor = args[1]
        s = posed.support_of(anchor)
        if s is None:
            return []
        out = []
        for r in listed_regions(posed, s):
            if r.anchor_id != anchor:
                continue
            res = place(posed, Relation.DIRECTION, (item, anchor, r.direction), cfg)
            if res.ok:
                out.append((s, [r.id] + [x for x in res.region_ids if x != r.id]))
        # Anywhere, or in a cell: further from the anchor than its regions' spots, which
        # hug it (a later step may need room between them).
        out.append((s, []))
        out += [(s, [c.id]) for c in posed.cells(s)]
        return out
    if p == "between":
        s = posed.support_of(args[1])
        if s is None:
            return []
        res = place(posed, Relation.BETWEEN, (item, args[1], args[2]), cfg)
        if not res.ok or res.pose is None:
            return []
        import shapely

        x, y = res.pose.position[0], res.pose.position[1]
        around = [r for r in listed_regions(posed, s) if r.anchor_id in (args[1], args[2])]
        labels = [r.id for r in around if shapely.contains_xy(r.polygon.buffer(1e-6), x, y)]
        if not labels:
            return []
        # `place` goes between two anchors when the regions chosen are around both:
        # add the other anchor's region nearest the spot
        named = {r.anchor_id for r in around if r.id in labels}
        for anchor in (args[1], args[2]):
            if anchor not in named:
                spot = shapely.Point(x, y)
                labels.append(min((r for r in around if r.anchor_id == anchor),
                                  key=lambda r: (r.polygon.distance(spot), r.id)).id)
        return [(s, labels)]
    if p == "in-room":  # its furniture, the nearest first, then the tops of its items
        here = env.world.agent_pose()
        found = []
        for top in posed.surfaces():
            owner = g.object(top.object_id)
            if owner.id in (item, posed.held) or posed.room_of_object(owner.id) != args[1]:
                continue
            if top.container is not None and not top.is_open:
                continue
            d = math.hypot(top.origin[0] - here.x, top.origin[1] - here.y)
            found.append((owner.kind is Kind.MOVABLE, d, top.id))
        return [(sid, []) for *_, sid in sorted(found)]
    if p == "on-furniture":  # any open furniture surface, the nearest first
        here = env.world.agent_pose()
        found = []
        for top in posed.surfaces():
            if g.object(top.object_id).kind is Kind.MOVABLE:
                continue
            if top.container is not None and not top.is_open:
                continue
            found.append((math.hypot(top.origin[0] - here.x, top.origin[1] - here.y), top.id))
        return [(sid, []) for _, sid in sorted(found)]
    if p == "same-surface":  # where the other item rests (anywhere, else a cell)
        s = posed.support_of(args[1])
        if s is None or item == args[1]:
            return []
        return [(s, [])] + [(s, [c.id]) for c in posed.cells(s)]
    return []


def placements(env: ManipulationEnv, atom: GAtom, state: SnapshotState | None = None,
               only: str | None = None) -> Iterator[tuple[str, list[str]]]:
    """Each way to `place` the atom's item (held, or where it stands) so that `atom`
    holds right after (judged from where the robot stands now; in `state`, default the
    world now; on surface `only` if given): (surface, region labels), the preferred
    first."""
    item = atom.args[0]
    st = state or env.world.state
    for surface, labels in destinations(env, atom, st):
        if only is not None and surface != only:
            continue
        res, _, _ = preview_place(st.posed, item, surface, labels)
        if res is None or not res.ok:
            continue
        if _truth(env, _hypothetical(env, item, res, st))(atom):
            yield surface, labels


def choose_placement(env: ManipulationEnv, atom: GAtom) -> tuple[str, list[str]] | None:
    """The preferred of `placements`, or None."""
    return next(placements(env, atom), None)


def clear_destinations(env: ManipulationEnv, item: str, atoms: Sequence[GAtom],
                       keep: Sequence[Goal] = (), avoid: Collection[str] = ()) -> list[str]:
    """Furniture surfaces, nearest first, where the held `item` could go so that none of
    `atoms` holds and every part of `keep` that holds now still does; never the surface
    it stands on, nor those in `avoid`."""
    w = env.world
    posed = w.state.posed
    g = env.graph
    here = posed.object(item).position if w.held_object() != item else \
        (w.agent_pose().x, w.agent_pose().y)
    now = _truth(env)
    kept = [k for k in keep if now(k)]
    found = []
    for s in posed.surfaces():
        owner = g.object(s.object_id)
        if owner.kind is Kind.MOVABLE or s.id == posed.support_of(item) or s.id in avoid:
            continue
        if s.container is not None and not s.is_open:
            continue
        found.append((math.hypot(s.origin[0] - here[0], s.origin[1] - here[1]), s.id))
    out = []
    for _, sid in sorted(found)[:CLEAR_CANDIDATES]:
        if w.held_object() != item:
            out.append(sid)
            continue
        res, _, _ = preview_place(posed, item, sid, [])
        if res is None or not res.ok:
            continue
        truth = _truth(env, _hypothetical(env, item, res))
        if any(truth(a) for a in atoms) or not all(truth(k) for k in kept):
            continue
        out.append(sid)
    return out


# --------------------------------------------------------------------------- the oracle


class _TracePlanner:
    """The manipulation oracle: plans a task's trace by acting in an agent environment.
    `banned`: choices (a disjunct, a placement) that an earlier attempt took and failed
    after."""

    def __init__(self, env: ManipulationEnv, banned: set[str]) -> None:
        self.env = env
        self.banned = banned
        self.chosen: list[str] = []  # the choices taken, in order
        self.goal: Goal = GAnd(parts=())
        self.lits: list[tuple[GAtom, bool]] = []  # the literals being achieved
        self._truth: tuple[int, Callable[[Goal], bool] | None] = (-1, None)

    def now(self, g: Goal) -> bool:
        n = len(self.env.world.snapshots)  # one state per snapshot: judge each atom once
        truth = self._truth[1]
        if self._truth[0] != n or truth is None:
            truth = _truth(self.env)
            self._truth = (n, truth)
        return truth(g)

    def do(self, name: ActionName, target: str | None = None, regions: Sequence[str] = ()
           ) -> None:
        self.env.step(AgentAction(action=name, target=target, regions=list(regions)))
        last = self.env.records[-1]
        if not last.ok:
            raise Refused(" ".join(x for x in (name.value, target) if x) + f": {last.reason}")

    def literals(self, g: Goal) -> list[tuple[GAtom, bool]]:
        match g:
            case GAtom():
                return [(g, True)]
            case GNot(body=GAtom() as body):
                return [(body, False)]
            case GNot():
                raise Unsolvable(f"the negation of a {type(g.body).__name__}")
            case GAnd():
                return [lit for p in g.parts for lit in self.literals(p)]
            case GOr():
                options = []
                for k, p in enumerate(g.parts):
                    key = to_pddl(p)
                    if key in self.banned:
                        continue
                    lits = self.literals(p)
                    cost = sum(1 for a, pos in lits if self.now(a) != pos)
                    options.append((cost, k, key, lits))
                if not options:
                    raise Unsolvable("every part of a disjunction failed")
                cost, _, key, lits = min(options, key=lambda o: (o[0], o[1]))
                if cost:
                    self.chosen.append(key)
                return lits
            case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
                raise Unsolvable(f"a {type(g).__name__} inside a step")
            case _:
                assert_never(g)

    def achieve(self, g: Goal) -> None:
        self.goal = g
        for _ in range(ORACLE_ROUNDS):
            if self.now(g):
                return
            for a, pos in dict.fromkeys(self.literals(g)):
                if not pos and a.predicate != "is-open" and self.now(a):
                    self.clear(a)
            # chosen again: an item moved away may now satisfy another disjunct
            lits = list(dict.fromkeys(self.literals(g)))
            anchors = {x for a, pos in lits if pos for x in a.args[1:]}
            # anchors first: moving an anchor later would break what was placed by it;
            # what must end in the hand last: the hand is needed for the others
            positives = sorted(self.gathered([a for a, pos in lits
                                              if pos and a.predicate != "is-open"]),
                               key=lambda a: (a.predicate == "holding",
                                              a.args[0] not in anchors))
            # the moves a gathering makes are packed with the rest (`pending`)
            self.lits = [*lits, *((a, True) for a in positives if (a, True) not in lits)]
            for a in positives:
                if not self.now(a):
                    self.make(a)
            # doors last: fetching and placing above may have opened them
            for a, pos in lits:
                if a.predicate == "is-open" and self.now(a) != pos:
                    self.set_open(a.args[0], pos)
        if not self.now(g):
            raise Unsolvable("the goal does not hold after the oracle's moves")

    def gathered(self, atoms: Sequence[GAtom]) -> list[GAtom]:
        """`atoms` with their `same-surface` atoms replaced by moves to one surface per
        group of items they join (`home`), each item elsewhere put `on` it (the group's
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
            home = self.home(sorted(items), where)
            if home is None:
                return list(atoms)
            moves += [GAtom(predicate="on", args=(x, home)) for x in items if where[x] != home]
        return [a for a in atoms if a not in same] + moves

    def home(self, items: Sequence[str], where: Mapping[str, str | None]) -> str | None:
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
        for other in w.state.posed.items_carried_by(item):  # take them off first
            self.move_away(other, [], avoid)
        src = w.state.posed.support_of(item)
        closed = w.state.posed.enclosing_container(item)
        if closed is not None:
            self.open_container(closed.id)
        if not self.env.reachable(item):  # to its surface, or beside it on the floor
            self.do(ActionName.GO_TO, item if src is None else src)
        self.do(ActionName.PICK, item)

    def open_container(self, surface: str) -> None:
        """Go to a closed container and open it."""
        if not self.env.reachable(surface):
            self.do(ActionName.GO_TO, surface)
        self.do(ActionName.OPEN, surface)

    def set_open(self, furniture: str, value: bool) -> None:
        """Open or close furniture (all its containers), from the nearest of them."""
        doors = self.env.doors(furniture)
        if not doors:
            raise Unsolvable(f"`{furniture}` has no door or drawer to "
                             f"{'open' if value else 'close'}")
        if not self.env.reachable(furniture):
            self.do(ActionName.GO_TO, doors[0].id)
        self.do(ActionName.OPEN if value else ActionName.CLOSE, furniture)

    def make(self, a: GAtom) -> None:
        if a.predicate == "holding":  # in the hand at the end: what it holds goes first
            held = self.env.world.held_object()
            if held is not None and held != a.args[0]:
                self.move_away(held, [])
            self.fetch(a.args[0])
            return
        if a.predicate not in RELOCATING:
            raise Unsolvable(f"{to_pddl(a)}: the action space has no action that changes "
                             f"`{a.predicate}`")
        item = a.args[0]
        if self.env.world.held_object() != item:
            self.make_room(a)
        surfaces = list(dict.fromkeys(s for s, _ in destinations(self.env, a)))
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
                self.do(ActionName.GO_TO, surface)
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
            if a.predicate not in SPREAD:
                break
        raise Unsolvable(f"no placement of `{a.args[0]}` makes {to_pddl(a)} true")

    def make_room(self, a: GAtom) -> None:
        """When no placement makes `a` true now (its destination containers opened;
        for `at-side`, from any side of the anchor's surface), make room first: move
        away the fewest items on a destination that the goal does not name (the largest
        first, at most `ROOM_MOVES`); else move an anchor: for `between`, one of them to
        the cell of their surface farthest from the other; for `around` and `at-side`,
        the anchor to a cell of its surface with room beside it."""
        if a.predicate in SPREAD:  # any of many surfaces will do
            return
        env = self.env
        posed = env.world.state.posed
        dests = list(dict.fromkeys(s for s, _ in destinations(env, a)))
        closed = [s for s in dests if posed.surface(s).container is not None
                  and not posed.surface(s).is_open]
        if self.placeable(a, _without(env, [], closed)):
            return
        named = _goal_objects(self.goal) | set(a.args)
        spare: list[str] = []
        anchored = a.predicate in ANCHORED and posed.support_of(a.args[1]) is not None
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
                if self.placeable(a, _without(env, taken, closed), surface):
                    break
            else:
                continue
            for x in list(taken):  # the fewest: drop those not needed after all
                rest = [y for y in taken if y != x]
                if self.placeable(a, _without(env, rest, closed), surface):
                    taken = rest
            for x in taken:
                self.move_away(x, [], {surface})
            return
        if a.predicate in PACKED and self.repack(a):
            return
        if not anchored:
            return
        for taken in ([], spare):  # the anchor moved; else room cleared too
            move = self.spread(a, taken) if a.predicate == "between" else \
                self.shift(a, taken)
            if move is not None:
                anchor, surface, cell = move
                for x in taken:
                    self.move_away(x, [], {surface})
                self.put_in_cell(anchor, surface, cell)
                return
        moves = self.relocate(a)  # else the anchors go where there is room
        for anchor, surface, cell in moves:
            self.put_in_cell(anchor, surface, cell)

    def repack(self, a: GAtom) -> bool:
        """When `a`'s item finds no room on its surface beside the items the goal packs
        there already (its `on`, `in-cell`, `inside` atoms that hold now), on their tops
        neither (`spots`), and a packing of them all (`pack`) exists without them: they
        are put away first, and packed again with the rest (`pending`). Put down one
        after another as the world chooses, the first ones may leave no room for `a`'s
        item (a donut in the middle of the cell the goal wants three in)."""
        env = self.env
        surface = _packed_surface(env, a)
        if surface is None:
            return False
        now = env.world.state
        if any(self.fits(a, o, now) is not None for o in self.spots(a, surface, now)):
            return False
        there = {o.id for o in now.posed.items_on(surface)}
        packed = [b for b, pos in self.lits if pos and b.predicate in PACKED
                  and b.args[0] != a.args[0] and b.args[0] in there
                  and _packed_surface(env, b) == surface and self.now(b)]
        packed = list(dict.fromkeys(packed))
        if not packed:
            return False
        group = list(dict.fromkeys([a, *self.pending(a), *packed]))
        if self.pack(group, _without(env, [b.args[0] for b in packed]),
                     [PACK_BUDGET]) is None:
            return False
        for b in packed:
            self.move_away(b.args[0], [], {surface})
        return True

    def put_in_cell(self, item: str, surface: str, cell: str) -> None:
        """Fetch `item` and place it in `cell` of `surface` (what stands on it goes
        elsewhere: the anchor moved to make room takes that room itself)."""
        self.fetch(item, avoid={surface})
        if not self.env.reachable(surface):
            self.do(ActionName.GO_TO, surface)
        self.do(ActionName.SHOW_RECEPTACLE, surface)
        self.do(ActionName.PLACE, surface, [cell])

    def relocate(self, a: GAtom) -> list[tuple[str, str, str]]:
        """(anchor, surface, cell) moves that take the anchors of `a` (`around`,
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
        keep = self.keep()
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
                    st = None if res is None or not res.ok else _hypothetical(env, anchor, res, st)
                    if st is None:
                        break
                if st is None:
                    continue
                truth = _truth(env, st)
                if all(truth(k) for k in keep) and self.placeable(a, st):
                    return [(x, top.id, c) for x, c in zip(anchors, layout, strict=True)]
        return []

    def placeable(self, a: GAtom, state: SnapshotState, only: str | None = None) -> bool:
        """Whether some placement makes `a` true in `state` (on surface `only`, if
        given): for `at-side`, seen from any side of the anchor's surface the robot can
        stand at."""
        views = [state]
        if a.predicate == "at-side":
            surface = state.posed.support_of(a.args[1])
            pts, _ = state.posed.standing_points_for(surface) if surface else ([], None)
            views = [_standing_at(state, p) for p in pts if p.reachable] or views
        return any(next(placements(self.env, a, v, only), None) is not None for v in views)

    def keep(self) -> list[Goal]:
        """The parts of the goal that hold now (a move must not break them)."""
        now = _truth(self.env)
        return [k for k in junction_parts(self.goal, "and") if now(k)]

    def shift(self, a: GAtom, taken: Sequence[str]) -> tuple[str, str, str] | None:
        """(anchor, surface, cell): the anchor of `around` or `at-side` moved to a cell of
        its surface (the corners first), with `taken` moved away, after which the item
        fits beside it and no part of the goal that holds now is broken."""
        env = self.env
        base = _without(env, taken)
        posed = base.posed
        anchor = a.args[1]
        surface = posed.support_of(anchor)
        if surface is None:
            return None
        cells = sorted(posed.cells(surface), key=lambda c: -sum(map(abs, STEP[c.direction])))
        cell = self._anchor_cell(a, anchor, surface, cells, base)
        return None if cell is None else (anchor, surface, cell)

    def spread(self, a: GAtom, taken: Sequence[str]) -> tuple[str, str, str] | None:
        """(anchor, surface, cell): an anchor of `between` moved to the cell of its
        surface farthest from the other anchor, with `taken` moved away, after which the
        item fits between them and no part of the goal that holds now is broken."""
        env = self.env
        base = _without(env, taken)
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
                return anchor, surface, cell
        return None

    def _anchor_cell(self, a: GAtom, anchor: str, surface: str, cells: Sequence[Any],
                     base: SnapshotState) -> str | None:
        """The first of `cells` (in `base`, where the items in the way are gone) the
        anchor can be moved to such that the item then fits for `a` and no part of the
        goal that holds now is broken."""
        env, keep = self.env, self.keep()
        for c in cells:
            res, _, _ = preview_place(base.posed, anchor, surface, [c.id])
            if res is None or not res.ok:
                continue
            st = _hypothetical(env, anchor, res, base)
            truth = _truth(env, st)
            if all(truth(k) for k in keep) and self.placeable(a, st):
                return str(c.id)
        return None

    def place_for(self, a: GAtom, surface: str) -> bool:
        """Place the held item on `surface` for `a` from where the robot stands, if some
        placement that no earlier attempt banned makes it true: when other items of the
        goal must still go on the same surface, the first placement of a packing that
        makes room for all of them (`pack`); else the preferred placement, then the
        other spots of the surface (`spots`: its cells, beside each item, on an item)."""
        seen: set[str] = set()
        for where, labels in self.options(a, surface):
            key = f"{to_pddl(a)}{PLACED}{where} {labels}"
            if key in seen:
                continue
            seen.add(key)
            if key in self.banned:
                continue
            self.chosen.append(key)
            if not self.env.reachable(where):
                self.do(ActionName.GO_TO, where)
            if labels:
                self.do(ActionName.SHOW_RECEPTACLE, where)
            self.do(ActionName.PLACE, where, labels)
            return True
        return False

    def options(self, a: GAtom, surface: str) -> Iterator[tuple[str, list[str]]]:
        """`place_for`'s placements, in the order it tries them."""
        packed = a.predicate in PACKED and _packed_surface(self.env, a) == surface
        if packed:
            group = [a, *self.pending(a)]
            if len(group) > 1:
                plan = self.pack(group, self.env.world.state, [PACK_BUDGET])
                if plan:
                    yield plan[0]
        yield from placements(self.env, a, only=surface)
        if packed:
            st = self.env.world.state
            yield from (o for o in self.spots(a, surface, st) if self.fits(a, o, st))

    def pending(self, a: GAtom) -> list[GAtom]:
        """The other atoms of the literals being achieved, false now, that put an item
        on the surface `a` puts its item on (`on`, `in-cell`, `inside` a receptacle)."""
        dest = _packed_surface(self.env, a)
        return [b for b, pos in self.lits if pos and b != a and b.predicate in PACKED
                and b.args[0] != a.args[0] and _packed_surface(self.env, b) == dest
                and not self.now(b)]

    def spots(self, a: GAtom, surface: str, state: SnapshotState
              ) -> list[tuple[str, list[str]]]:
        """Placements of `a`'s item on `surface` beyond the preferred ones: its cells
        (corners first), beside each item on it, on top of each item on it or on those
        (a stack; `fits` judges whether the item still counts as on the surface)."""
        posed = state.posed
        item = a.args[0]
        corners = sorted(posed.cells(surface), key=lambda c: -sum(map(abs, STEP[c.direction])))
        out: list[tuple[str, list[str]]] = [(surface, [])]
        out += [(surface, [c.id]) for c in corners]
        out += [(surface, [r.id]) for r in listed_regions(posed, surface)
                if r.anchor_id is not None and r.anchor_id != item]
        stack = [o for o in posed.items_on(surface) if o.kind is Kind.MOVABLE and o.id != item]
        while stack:
            o = stack.pop(0)
            for t in posed.surfaces(o.id):
                if t.container is None:
                    out.append((t.id, []))
                    stack += [x for x in posed.items_on(t.id)
                              if x.kind is Kind.MOVABLE and x.id != item]
        return out

    def fits(self, a: GAtom, option: tuple[str, list[str]], state: SnapshotState
             ) -> SnapshotState | None:
        """The state after placing `a`'s item as `option` says, from `state`, when the
        placement exists and makes `a` true; else None."""
        return self._fits(a, option, state)[1]

    def _fits(self, a: GAtom, option: tuple[str, list[str]], state: SnapshotState
              ) -> tuple[bool, SnapshotState | None]:
        """Whether the world finds a spot for `a`'s item as `option` says, from
        `state`, and `fits`' answer."""
        item = a.args[0]
        res, _, _ = preview_place(state.posed, item, option[0], option[1])
        if res is None or not res.ok:
            return False, None
        after = _hypothetical(self.env, item, res, state)
        return True, after if _truth(self.env, after)(a) else None

    def pack(self, atoms: Sequence[GAtom], state: SnapshotState, budget: list[int]
             ) -> list[tuple[str, list[str]]] | None:
        """A placement for each atom's item, in order, after which all of `atoms` hold:
        a depth-first search over `spots` (at most `budget[0]` placements tried). Where
        the world finds no spot anywhere on the surface (`spots`' first), none of its
        cells or the regions beside its items has one either: only the tops of its
        items are tried (stacking); else the surface's own spots come before them (also
        when the spot anywhere does not make the atom true: another cell)."""
        if not atoms:
            return []
        a = atoms[0]
        surface = _packed_surface(self.env, a)
        if surface is None:
            return None
        plain, *others = self.spots(a, surface, state)
        tops = [o for o in others if o[0] != surface]
        room, first = self._fits(a, plain, state)
        budget[0] -= 1
        order = [o for o in others if o[0] == surface] + tops if room else tops
        for option, after in itertools.chain([(plain, first)], ((o, None) for o in order)):
            if option is not plain:
                if budget[0] <= 0:
                    return None
                budget[0] -= 1
                after = self.fits(a, option, state)
            if after is None:
                continue
            rest = self.pack(atoms[1:], after, budget)
            if rest is not None:
                return [option, *rest]
        return None

    def clear(self, a: GAtom) -> None:
        if a.predicate not in RELOCATING:
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
            raise Unsolvable(f"no surface takes `{item}` away{what}")
        if not self.env.reachable(dests[0]):
            self.do(ActionName.GO_TO, dests[0])
        self.do(ActionName.PLACE, dests[0])


def _packed_surface(env: ManipulationEnv, a: GAtom) -> str | None:
    """The surface `a` puts its item on, for the relations `pack` handles."""
    if a.predicate in ("on", "in-cell"):
        return str(a.args[1])
    if a.predicate == "inside":
        floors = env.world.state.posed.containers_of(a.args[1])
        return str(floors[0].id) if len(floors) == 1 else None
    return None


def _standing_at(state: SnapshotState, point: StandingPoint) -> SnapshotState:
    """`state` with the robot at a standing point, facing the furniture."""
    from fdc.sim_bridge.world.snapshot import SnapshotState
    from fdc.sim_bridge.world.state import AgentPose

    snap = state.snapshot
    agent = AgentPose(x=point.position[0], y=point.position[1], z=snap.agent.z,
                      yaw_rad=point.yaw_rad)
    return SnapshotState(state.graph, snap.model_copy(update={"agent": agent}))


def _point(x: float, y: float) -> Any:
    import shapely

    return shapely.Point(x, y)


def oracle_actions(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
                   ) -> list[AgentAction]:
    """The oracle's trace for a manipulation task (`Unsolvable` with the reason when it
    finds none within the task's budget); `after`: the world the experience left
    behind, where a memory-manipulation task starts (`ManipulationEnv`)."""
    env = _oracle_run(task, graph, after)
    return [r.action for r in env.records if r.action is not None]


def _oracle_run(task: TaskRecord, graph: SceneGraph, after: Snapshot | None
                ) -> ManipulationEnv:
    """The environment at the end of the oracle's trace (`oracle_actions`)."""
    banned: set[str] = set()
    first = ""  # the first attempt's failure: the root cause, when every attempt fails
    placements_banned = 0
    try:  # the oracle reasons in connectives: a count is planned as its expansion
        goal = expand_counts(task.goal, current().goal_atoms)
    except NotExpandable as e:
        raise Unsolvable(str(e)) from None
    for _ in range(ORACLE_RETRIES + 1):
        env = ManipulationEnv(graph, budget=PLANNING_BUDGET, after=after)
        env.reset(options={"task": task})
        planner = _TracePlanner(env, banned)
        steps: Sequence[Goal] = children(goal) if goal.kind == "then" else (goal,)
        try:
            for step in steps:
                if step.kind in ("targets", "then"):
                    raise Unsolvable(f"a {type(step).__name__} step")
                planner.achieve(step)
            planner.do(ActionName.CALL_END)
        except Unsolvable as e:
            first = first or str(e)
            if isinstance(e, Refused) or not planner.chosen:
                raise Unsolvable(first) from None
            last = planner.chosen[-1]
            parts = [c for c in planner.chosen if PLACED not in c]  # the disjuncts taken
            if PLACED in last and parts and placements_banned >= PLACEMENT_RETRIES:
                banned.add(parts[-1])  # that part's placements keep failing: another part
                placements_banned = 0
            else:
                banned.add(last)
                placements_banned += PLACED in last
            continue
        verdict = env.verdict()
        if not verdict.success:
            raise Unsolvable(f"the trace does not verify: {verdict.reason}")
        steps_taken = sum(r.action is not None for r in env.records)
        budget = step_budget(task, graph, env.start_of(task))
        if steps_taken > budget:
            raise Unsolvable(f"the plan takes {steps_taken} actions; the budget is {budget}")
        return env
    raise Unsolvable(first)


def witness(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
            ) -> str | None:
    """Why the oracle finds no trace for `task` that certifies it (None: it finds one,
    it verifies, and it is one the planning abstraction can follow): the compile's
    `CompileOptions.witness`, so that a task whose goal the geometric rules cannot
    decide (`needs_witness`) is emitted only when an agent of fdc's achieves it, and
    `fdc audit`'s oracle, which runs the same trace, agrees. A trace that leaves an item
    the goal puts in a cell or by an anchor standing on another item's top certifies
    nothing: that item is on the surface under the top (`low-top`), but in which cell,
    or on which side of the anchor, depends on where on the top it stands, which the
    abstraction does not know (`fdc.sim_bridge.graph.feasible.pack`'s `STACKED`), so
    no plan of its would agree."""
    try:
        env = _oracle_run(task, graph, after)
    except Unsolvable as e:
        return str(e)
    posed = env.world.state.posed
    for a in placing_atoms(task.goal):
        if a.predicate not in _PLACED_AS or not a.args:
            continue
        carrier = posed.carrier(a.args[0])
        if carrier is not None and carrier.is_movable:
            return (f"the oracle's trace leaves `{a.args[0]}` on `{carrier.id}`'s top, "
                    f"where no plan can say whether ({a.predicate} {' '.join(a.args)}) "
                    "holds")
    return None


#: A goal relation a placement makes, in the order a placement is written as fdc-home's
#: action (the first that holds after it wins; else a plain `place`).
_PLACED_AS = ("between", "at-side", "around", "in-cell")


def oracle_plan(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
                ) -> list[str]:
    """The oracle's trace (`oracle_actions`) written as a plan of fdc-home's actions (one
    action a line, as a planner's), for `fdc validate --solve` to check in the planning
    abstraction when no planner's plan is carried out by the world. Acted out step by
    step: a pick is `pick` from the surface the item stands on (`pick-from-floor` from
    none); a placement on furniture the action whose effect the goal needs
    (`place-between`, `place-at-side`, `place-around`, `place-in-cell`: the first
    relation of the goal's about the item that holds after it, the item's last
    placement judged at the end; where an anchor of it moved after that placement, the
    item is picked and put down by it once more at the end, as the abstraction forgets
    the relations of what is picked), else `place-in-cell` in the cell the item went to
    (a plain `place` may put it in any cell, for the abstraction), `place-on-item` onto
    an item's top, `place-inside` into a container item, each with the pose the oracle
    put the item at as its comment (`; at SURFACE X Y YAW`, and on furniture `from
    SIDE`, the side of the surface the robot stood at, which the world's replay follows:
    `fdc.sim_bridge.world.plans`); the robot walks (`navigate-to-receptacle`,
    `navigate-to-item`) to each surface it picks from, places on, or opens, when it is
    not there; looking around is no action there.
    `Unsolvable` when the oracle finds no trace."""
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.goal import atoms
    from fdc.predicates.registry import Context

    trace = oracle_actions(task, graph, after)
    env = ManipulationEnv(graph, budget=PLANNING_BUDGET, after=after)
    env.reset(options={"task": task})
    registry = default_registry()
    wanted = [a for a in atoms(expand_counts(task.goal, current().goal_atoms))
              if a.predicate in _PLACED_AS]
    lines: list[str] = []
    at: list[str | None] = [None]  # the surface the robot is at, in the abstraction
    # item -> the line of its last placement on furniture, that surface, the relation it
    # made then, where it put the item
    last: dict[str, tuple[int, str, GAtom | None, At]] = {}

    def room_now(item: str) -> str | None:
        """The room the `in-room` checker puts the item in now (the abstraction's); None
        outside every room."""
        rooms = sorted(r.id for r in graph.rooms())
        truth = registry.evaluate_many("in-room", [(item, r) for r in rooms], now())
        found = [r for r, ok in zip(rooms, truth.tolist(), strict=True) if ok]
        return found[0] if found else None

    def walk(surface: str) -> None:
        if at[0] == surface:
            return
        at[0] = surface
        s = graph.surface(surface)
        owner = graph.object(s.object_id)
        room = room_now(owner.id) if owner.kind is Kind.MOVABLE else None
        lines.append((f"navigate-to-item {surface} {owner.id} {room}" if room else
                      f"navigate-to-item-outside {surface} {owner.id}")
                     if owner.kind is Kind.MOVABLE else
                     f"navigate-to-receptacle {surface} {owner.id} {owner.room}")

    def furniture(surface: str) -> str:
        owner = graph.object(graph.surface(surface).object_id)
        return f"{owner.id} {owner.room}"

    def now() -> Context:
        ctx = Context(graph=graph, state=env.world.state)
        return ctx.with_thresholds(task.thresholds, registry) if task.thresholds else ctx

    def made_by(item: str, on: str) -> GAtom | None:
        """The first relation of the goal's about `item` (on furniture surface `on`)
        that holds now."""
        ctx = now()
        made = [a for a in wanted if a.args[0] == item and
                (a.predicate != "in-cell" or a.args[1] == on)
                and registry.evaluate(a.predicate, a.args, ctx)]
        return min(made, key=lambda a: _PLACED_AS.index(a.predicate)) if made else None

    def cell_of(item: str, on: str) -> GAtom | None:
        """The cell of furniture surface `on` that `item` is in now, by the checkers."""
        ctx = now()
        for d in Direction:
            a = GAtom(predicate="in-cell", args=(item, on, d.value))
            if registry.evaluate(a.predicate, a.args, ctx):
                return a
        return None

    def placing(item: str, on: str, rel: GAtom | None) -> str:
        if rel is None:
            return f"place {item} {on} {furniture(on)}"
        if rel.predicate == "in-cell":
            return f"place-in-cell {item} {on} {rel.args[2]} {furniture(on)}"
        return f"place-{rel.predicate} {' '.join(rel.args)} {on} {furniture(on)}"

    for act in trace:
        posed = env.world.state.posed
        held = env.world.held_object()
        if act.action is ActionName.PICK and act.target is not None:
            src = posed.support_of(act.target)
            if src is None:
                room = room_now(act.target)
                lines.append(f"pick-from-floor {act.target} {room}" if room else
                             f"pick-from-floor-outside {act.target}")
                at[0] = None
            else:
                walk(src)
                lines.append(f"pick {act.target} {src}")
        elif act.action in (ActionName.OPEN, ActionName.CLOSE) and act.target is not None:
            doors = [s.id for s in posed.surfaces() if s.container is not None
                     and (s.id == act.target or s.object_id == act.target)]
            if not doors:
                raise Unsolvable(f"`{act.action.value} {act.target}` opens nothing")
            where = at[0] if at[0] in doors else doors[0]
            assert where is not None
            walk(where)
            lines.append(f"{act.action.value} {graph.surface(where).object_id} {where}")
        env.step(act)
        if not env.records[-1].ok:
            raise Unsolvable(f"the oracle's trace is refused: {env.records[-1].reason}")
        if act.action is not ActionName.PLACE or held is None:
            continue
        posed = env.world.state.posed
        on = posed.support_of(held)
        if on is None:
            raise Unsolvable(f"`{held}` was put down on no surface")
        owner = graph.object(posed.surface(on).object_id)
        pose = env.world.object_pose(held)
        w, _, _, z = pose.orientation
        put = At(on, pose.position[0], pose.position[1], 2 * math.atan2(z, w))
        if owner.kind is Kind.MOVABLE:  # on an item's top, or inside a container item
            if posed.surface(on).container is not None:
                under = posed.support_of(owner.id)
                if under is None:
                    raise Unsolvable(f"`{owner.id}` stands on no surface")
                walk(under)
                lines.append(with_pose(f"place-inside {held} {owner.id} {under} "
                                       f"{furniture(under)}", put))
            else:
                walk(on)
                lines.append(with_pose(f"place-on-item {held} {on} {owner.id}", put))
            last.pop(held, None)
            continue
        walk(on)
        # where the robot stood: `at-side` is judged in its words there
        put = replace(put, side=side_of(posed.surface(on), env.world.agent_pose()))
        rel = made_by(held, on)  # a relation the placement makes (a step of a sequence)
        last[held] = (len(lines), on, rel, put)
        # else in the cell it went to: the abstraction then knows it is in no other
        # (a plain `place` may put it in any, as for the cups put down beside the
        # centrepiece that the goal keeps out of the centre)
        lines.append(with_pose(placing(held, on, rel or cell_of(held, on)), put))
    # an item's last placement makes the goal's relations about it that hold at the end;
    # where an anchor moved after it, or the placement made another relation (a step of
    # a sequence), the abstraction no longer has it (it forgets the relations of what is
    # picked): the item is put down by it once more at the end, after its anchors
    picked = {line.split()[1]: k for k, line in enumerate(lines) if line.startswith("pick")}
    again: list[tuple[GAtom, str]] = []
    for item, (k, on, made, put) in sorted(last.items(), key=lambda kv: kv[1][0]):
        rel = made_by(item, on)
        if rel is None or (rel == made and not _moved_after(rel, picked, k)):
            continue
        if made is None and not _moved_after(rel, picked, k):
            lines[k] = with_pose(placing(item, on, rel), put)
        else:  # where it stands at the end: where it was put last
            again.append((rel, with_pose(placing(item, on, rel), put)))
    for rel, placed in _anchors_first(again):
        item, on = rel.args[0], action_of(placed).split()[-3]
        walk(on)
        lines += [f"pick {item} {on}", placed]
    return lines


def _moved_after(rel: GAtom, picked: dict[str, int], k: int) -> bool:
    """Whether an anchor of `rel` is picked after line `k`."""
    return any(picked.get(x, -1) > k for x in rel.args[1:])


def _anchors_first(again: list[tuple[GAtom, str]]) -> list[tuple[GAtom, str]]:
    """The placements in `again` ordered so that an item put down by another item of
    `again` comes after it (picking an anchor forgets what stands by it)."""
    done: list[tuple[GAtom, str]] = []
    todo = list(again)
    while todo:
        waiting = {r.args[0] for r, _ in todo}
        ready = [p for p in todo if not waiting & set(p[0].args[1:])] or todo[:1]
        done += ready
        todo = [p for p in todo if p not in ready]
    return done


def random_actions(task: TaskRecord, graph: SceneGraph, seed: int,
                   after: Snapshot | None = None) -> list[AgentAction]:
    """Random valid actions until `call_end` or the budget (deterministic per seed), from
    where the task starts (`after`: as `oracle_actions`)."""
    rng = random.Random(f"{seed}:{task.id}")
    env = ManipulationEnv(graph, after=after)
    env.reset(seed=seed, options={"task": task})
    while not env.done:
        valid = env.valid_actions()
        names = sorted({a.action.value for a in valid})
        name = rng.choice(names)
        env.step(rng.choice([a for a in valid if a.action.value == name]))
    return [r.action for r in env.records if r.action is not None]


# --------------------------------------------------------------------------- memory


def _frame_nodes(walker: Walker, experience: Experience, frames: Sequence[int]
                 ) -> dict[int, int]:
    """Each grid node some of `frames` stand at -> the earliest of those frames."""
    out: dict[int, int] = {}
    for f in sorted(frames):
        a = experience.frames[f].agent
        n = walker.node((a.x, a.y))
        if n >= 0:
            out.setdefault(n, f)
    return out


def oracle_frames(task: TaskRecord, graph: SceneGraph, experience: Experience,
                  walker: Walker | None = None) -> list[int]:
    """Valid frames on the shortest walk L* measures (`Walker.route`): the closest to the
    start for a single goal; for ordered targets, one per target on the shortest
    walk through them in order; for unordered targets, in visiting order, one per target
    on the shortest open tour (exact up to `EXACT_TOUR_MAX` targets, the nearest next
    target beyond). Of the frames at the chosen grid node, the earliest. A target
    without a valid frame (or unreachable) gets the history's last frame, where the task
    starts: the task cannot be solved through frames; unordered targets then keep the
    order given."""
    from fdc.sim_bridge.graph.routes import Walker

    walker = walker or Walker(graph.nav)
    lists = task.valid_frames or [[-1]]
    last = len(experience.frames) - 1
    here = (task.start.x, task.start.y) if task.start is not None else \
        (graph.scene.agent.position[0], graph.scene.agent.position[1])
    start = walker.node(here)
    targets = [_frame_nodes(walker, experience,
                            [f for f in fs if 0 <= f < len(experience.frames)]) for fs in lists]
    if start < 0 or not all(targets):
        return [min(t.values()) if t else last for t in targets]
    stops = walker.route(start, targets, task.goal.kind == "targets" and task.goal.ordered)
    if stops is None:
        return [last] * len(targets)
    return [targets[j][n] for j, n in stops]


def random_frames(task: TaskRecord, experience: Experience, seed: int) -> list[int]:
    """The random agent's answer: as many frames as the task has targets, each drawn
    uniformly from the history, independently (`random_frames_chance` is the chance it
    succeeds)."""
    rng = random.Random(f"{seed}:{task.id}")
    n = len(experience.frames)
    k = len(task.valid_frames) if task.valid_frames else 1
    return [rng.randrange(n) for _ in range(k)]


def random_frames_chance(task: TaskRecord, frame_count: int) -> Fraction | None:
    """The exact chance that `random_frames` succeeds on a memory task whose valid frames
    are `task.valid_frames`, over a history of `frame_count` frames; None for a task
    without frame lists (a sequence) or history.

    A single goal: the share of valid frames. A multi-goal: the k draws are independent,
    and `fdc.predicates.verify` credits them by its rule: ordered, each frame must hold
    the next target; unordered, the frames so far must each have a target of their own
    (a matching). So the chance is a sum over states of the share of frames that keep
    the run alive at each stop: ordered, the state is the targets credited (a prefix);
    unordered, the set of target sets the frames so far can be matched to."""
    lists = task.valid_frames
    if not lists or frame_count <= 0:
        return None
    if task.goal.kind != "targets":
        return Fraction(len(set(lists[0]) & set(range(frame_count))), frame_count)
    masks: dict[int, int] = {}  # frame -> the targets valid there (bits)
    for k, frames in enumerate(lists):
        for f in set(frames) & set(range(frame_count)):
            masks[f] = masks.get(f, 0) | 1 << k
    shares: dict[int, int] = {}  # a set of targets -> how many frames have exactly it
    for m in masks.values():
        shares[m] = shares.get(m, 0) + 1
    ordered = task.goal.ordered
    # A state: the target sets (bits) the frames drawn so far can be matched to, one
    # target a frame (ordered: only the prefix credited so far).
    states: dict[frozenset[int], Fraction] = {frozenset({0}): Fraction(1)}
    for _ in lists:
        after: dict[frozenset[int], Fraction] = {}
        for matched, p in states.items():
            for m, count in shares.items():
                grown = frozenset(
                    done | bit for done in matched
                    for bit in ([~done & (done + 1)] if ordered else _bits(m & ~done))
                    if m & bit)
                if grown:
                    after[grown] = after.get(grown, Fraction(0)) + p * Fraction(count,
                                                                                frame_count)
        states = after
    return sum(states.values(), Fraction(0))


def _bits(mask: int) -> list[int]:
    """Each set bit of `mask` on its own."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def oracle_run(task: TaskRecord, graph: SceneGraph, experience: Experience,
               frames: Sequence[int]) -> list[Snapshot]:
    """The embedded world's walk from the task's start to each frame's pose, with a stop
    at each, in the world the experience left behind (objects where the robot put them).

    The embedded world starts in the scene's initial state, so the walk to the task's
    start is made first and cut off: the snapshots kept begin at the start, their
    objects are those after the experience, and steps, clock and path length count
    from there."""
    from fdc.compiler.start import start_snapshots
    from fdc.sim_bridge.world.embedded import EmbeddedWorld

    _, after = start_snapshots(graph, experience)
    world = EmbeddedWorld(graph, clock=LONG_DAY)
    start = task.start or (after.agent if after is not None else None)
    if start is not None:
        res = world.navigate(start)
        if not res.ok:
            raise Unsolvable(f"the task's start cannot be reached: {res.reason}")
    base = world.snapshot()
    first = len(world.snapshots) - 1
    for f in frames:
        res = world.navigate(experience.frames[f].agent)
        if not res.ok:
            raise Unsolvable(f"frame {f}'s pose cannot be reached: {res.reason}")
        world.stop()
    snaps = list(world.snapshots[first:])
    objects = after.objects if after is not None else base.objects
    opened = after.open if after is not None else base.open
    t0 = after.time_min if after is not None else base.time_min
    minutes = world.clock.minutes_per_step
    out = []
    for k, s in enumerate(snaps):
        step = s.step - base.step
        out.append(s.model_copy(update={
            "step": step, "time_min": t0 + step * minutes, "objects": objects,
            "open": opened, "held": None, "path_length_m": s.path_length_m - base.path_length_m,
            "action": None if k == 0 else s.action}))
    return out


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class SceneContext:
    """What the baselines need of a task's scene: its graph, the experience its memory
    tasks are about, and the scene file for trajectory headers (`scene_file`, named in a
    header relative to the trajectory; without it, `scene_name` as it is)."""

    graph: SceneGraph
    experience: Experience | None
    scene_name: str
    scene_file: Path | None = None

    @cached_property
    def after(self) -> Snapshot | None:
        """The world the experience left behind, where a memory-manipulation task starts
        (None without an experience)."""
        from fdc.compiler.start import start_snapshots

        return start_snapshots(self.graph, self.experience)[1] if self.experience else None

    @classmethod
    def of(cls, suite: ReopenedSuite, task: TaskRecord) -> SceneContext:
        """A task's context as its reopened suite finds it (`ReopenError`, `SceneLoadError`
        when an input is missing or is not the suite's)."""
        path = suite.scene_file(task)
        return cls(graph=suite.graph(task), scene_name=path.name, scene_file=path,
                   experience=suite.experience(task) if task.experience is not None else None)


def run_baseline(name: str, tasks: Sequence[TaskRecord], scenes: Callable[[TaskRecord],
                 SceneContext], *, seed: int = 0, trajectories: Path | None = None,
                 predictions_dir: Path | None = None, outputs: Outputs | None = None
                 ) -> Iterator[BaselineResult]:
    """Each task's prediction by baseline `name` (`random` or `oracle`), in order.
    `trajectories`: the folder the oracle's low-level runs are written to (one JSONL
    per memory task, named by `FileNames`), referenced relative to `predictions_dir`.
    They are staged in `outputs` for the caller to commit with the predictions (without
    one: put in place when the last task is done, removed if the run stops before)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline `{name}`; known: {', '.join(BASELINES)}")
    with contextlib.nullcontext(outputs) if outputs is not None else Outputs() as out:
        yield from _predict(name, tasks, scenes, seed, trajectories, predictions_dir, out)


def _predict(name: str, tasks: Sequence[TaskRecord], scenes: Callable[[TaskRecord],
             SceneContext], seed: int, trajectories: Path | None,
             predictions_dir: Path | None, out: Outputs) -> Iterator[BaselineResult]:
    from fdc.core.hashing import scene_sha256
    from fdc.sim_bridge.graph.routes import Walker
    from fdc.sim_bridge.world.state import TrajectoryHeader
    from fdc.sim_bridge.world.trajectory import scene_reference, trajectory_text

    names = FileNames(trajectories) if trajectories is not None else None
    walkers: dict[int, Walker] = {}  # per scene graph: its searches are memoised
    for task in tasks:
        ctx = scenes(task)
        if is_manipulation(task):
            try:
                actions = oracle_actions(task, ctx.graph, ctx.after) if name == "oracle" \
                    else random_actions(task, ctx.graph, seed, ctx.after)
            except Unsolvable as e:
                yield BaselineResult(Prediction(task_id=task.id, actions=[]), str(e))
                continue
            yield BaselineResult(Prediction(task_id=task.id, actions=actions))
            continue
        if ctx.experience is None:
            yield BaselineResult(Prediction(task_id=task.id, frames=[]),
                                 "no experience log for this memory task")
            continue
        if name == "random":
            frames = random_frames(task, ctx.experience, seed)
            yield BaselineResult(Prediction(task_id=task.id, frames=frames))
            continue
        walker = walkers.get(id(ctx.graph))
        if walker is None:
            walker = walkers[id(ctx.graph)] = Walker(ctx.graph.nav)
        frames = oracle_frames(task, ctx.graph, ctx.experience, walker)
        lists = task.valid_frames or [[]]
        failure = "a target has no valid frame" if not all(lists) else ""
        rel = None
        if names is not None:
            try:
                snaps = oracle_run(task, ctx.graph, ctx.experience, frames)
            except Unsolvable as e:
                failure = failure or str(e)
            else:
                path = names.path(task.id, ".jsonl")
                header = TrajectoryHeader(
                    scene=ctx.scene_name if ctx.scene_file is None else
                    scene_reference(path, ctx.scene_file),
                    scene_sha256=scene_sha256(ctx.graph.scene),
                    source="fdc-embedded", clock=LONG_DAY, seed=seed)
                out.write(path, trajectory_text(header, snaps))
                base = predictions_dir or names.folder.parent
                rel = path.relative_to(base).as_posix() if path.is_relative_to(base) \
                    else str(path)
        yield BaselineResult(Prediction(task_id=task.id, frames=frames, trajectory=rel), failure)
