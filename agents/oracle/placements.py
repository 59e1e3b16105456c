"""What-if states of the manipulation oracle, and where an item can go so that an atom
holds: the placements the oracle (and `fdc.evaluation.manipulation`'s feedback) choose
from, judged by the registered checkers on the state the placement would make.
See docs/agents.md."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import NamedTuple, assert_never

from fdc.agents.env import ManipulationEnv, listed_regions, preview_place
from fdc.predicates.algebra import children
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
    atoms,
)
from fdc.predicates.registry import Context, EvaluationError
from fdc.predicates.verify import evaluate
from fdc.sim_bridge.graph.placement import Placement, Relation, place
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import ObjectPose

#: Surfaces tried when moving an item away (the nearest first).
CLEAR_CANDIDATES = 16
#: Where items are put when the oracle asks whether a placement would fit without them.
OFF_MAP_M = -1000.0


class Spot(NamedTuple):
    """Where a placement puts an item: a surface and the region labels that narrow it
    (none: anywhere on it). A named pair: callers unpack it."""

    surface: str
    regions: list[str]


def state_after(env: ManipulationEnv, item: str, placement: Placement,
                  state: SnapshotState | None = None) -> SnapshotState:
    """The state just after `place` puts `item` where `placement` says, from `state`
    (default: the world now)."""

    assert placement.pose is not None
    snap = state.snapshot if state is not None else env.world.snapshot()
    objects = dict(snap.objects)
    old = objects[item]
    objects[item] = ObjectPose(position=placement.pose.position,
                               orientation=placement.pose.orientation, size=old.size)
    return SnapshotState(env.graph, snap.model_copy(update={"objects": objects, "held": None}))


def truth_in(env: ManipulationEnv, state: SnapshotState | None = None,
             thresholds: dict[str, float] | None = None, *, ahead: Iterable[Goal] = ()
             ) -> Callable[[Goal], bool]:
    """A goal's truth in `state` (default: the world now), each atom judged once. The
    atoms of the goals `ahead` (those the caller is about to ask about) are judged at
    once, a batched checker's one call for all of a predicate's, instead of one call
    an atom (the same truths: a batched checker judges each row on its own)."""

    registry = default_registry()
    ctx = Context(graph=env.graph, state=state if state is not None else env.world.state)
    overrides = thresholds if thresholds is not None else env.task.thresholds
    if overrides:
        ctx = ctx.with_thresholds(overrides, registry)
    cache: dict[GAtom, bool] = {}
    by: dict[str, dict[GAtom, None]] = {}
    for g in ahead:
        for a in atoms(g):
            by.setdefault(a.predicate, {})[a] = None
    for name, group in by.items():
        checker = registry.checker(name) if name in registry else None
        if len(group) < 2 or checker is None or not checker.batched or checker.is_function:
            continue
        try:
            found = registry.evaluate_many(name, [a.args for a in group], ctx)
        except EvaluationError:  # judged one at a time, where and if asked
            continue
        cache.update(zip(group, map(bool, found.tolist()), strict=True))

    def holds(a: GAtom, _i: int) -> bool:
        found = cache.get(a)
        if found is None:
            found = cache[a] = registry.evaluate(a.predicate, a.args, ctx)
        return found

    return lambda g: evaluate(g, 0, holds)


def without(env: ManipulationEnv, items: Sequence[str], opened: Sequence[str] = ()
             ) -> SnapshotState:
    """The world now with `items` taken out of the scene (off the map, on no surface)
    and the containers `opened` open: would a placement fit once they are moved away?"""

    snap = env.world.snapshot()
    objects = dict(snap.objects)
    posed = env.world.state.posed
    items = list(dict.fromkeys(items))
    for i in items:  # what stands on them goes with them (the list grows as it is read)
        items += [x for x in posed.items_carried_by(i) if x not in items]
    for k, i in enumerate(items):
        p = objects[i]
        objects[i] = p.model_copy(update={"position": (OFF_MAP_M - k, OFF_MAP_M, p.size[2] / 2)})
    return with_open(SnapshotState(env.graph, snap.model_copy(update={"objects": objects})),
                     opened)


def with_open(state: SnapshotState, containers: Sequence[str]) -> SnapshotState:
    """`state` with the containers `containers` open."""

    snap = state.snapshot
    doors = dict(snap.open) | dict.fromkeys(containers, True)
    return SnapshotState(state.graph, snap.model_copy(update={"open": doors}))


def goal_objects(g: Goal) -> set[str]:
    """Every argument of every atom of `g`."""
    match g:
        case GAtom():
            return set(g.args)
        case GNot() | GAnd() | GOr() | GThen() | GTargets():
            return set().union(*(goal_objects(p) for p in children(g)))
        case GCount() | GCluster() | GChecklist():
            return set()
        case _:
            assert_never(g)


def destinations(env: ManipulationEnv, atom: GAtom, state: SnapshotState | None = None
                 ) -> list[Spot]:
    """Candidate spots for the atom's item to make `atom` true (in
    `state`, default: the world now)."""
    st = state or env.world.state
    posed = st.posed
    item = atom.args[0]
    p, args = atom.predicate, atom.args
    g = env.graph
    cfg = posed.config.placement
    if p in default_registry().anchored():  # judged with the anchor's container open:
        # `make_true` opens it first
        s = posed.support_of(args[1])
        if s is not None and posed.surface(s).container is not None and \
                not posed.surface(s).is_open:
            posed = with_open(st, [s]).posed
    if p == "on":  # anywhere (the centre first), else a cell: room for the next item
        return [Spot(args[1], [])] + [Spot(args[1], [c.id]) for c in posed.cells(args[1])]
    if p == "in-cell":
        return [Spot(args[1], [f"{args[1]}#cell:{args[2]}"])]
    if p == "inside":
        floors = posed.containers_of(args[1])
        return [Spot(s.id, []) for s in floors] or [Spot(args[1], [])]
    if p in ("around", "at-side"):
        anchor = args[1]
        s = posed.support_of(anchor)
        if s is None:
            return []
        out: list[Spot] = []
        for r in listed_regions(posed, s):
            if r.anchor_id != anchor:
                continue
            res = place(posed, Relation.DIRECTION, (item, anchor, r.direction), cfg)
            if res.ok:
                out.append(Spot(s, [r.id] + [x for x in res.region_ids if x != r.id]))
        # Anywhere, or in a cell: further from the anchor than its regions' spots, which
        # hug it (a later step may need room between them).
        out.append(Spot(s, []))
        out += [Spot(s, [c.id]) for c in posed.cells(s)]
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
        return [Spot(s, labels)]
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
        return [Spot(sid, []) for *_, sid in sorted(found)]
    if p == "on-furniture":  # any open furniture surface, the nearest first
        here = env.world.agent_pose()
        near: list[tuple[float, str]] = []
        for top in posed.surfaces():
            if g.object(top.object_id).kind is Kind.MOVABLE:
                continue
            if top.container is not None and not top.is_open:
                continue
            near.append((math.hypot(top.origin[0] - here.x, top.origin[1] - here.y), top.id))
        return [Spot(sid, []) for _, sid in sorted(near)]
    if p == "on-top-of":  # a surface of the object that is no container floor
        if item == args[1]:
            return []
        return [Spot(t.id, []) for t in posed.surfaces(args[1]) if t.container is None]
    if p == "inside-of":  # a container floor of the object, else its top (a bowl's: in
        # its box, as the checker judges an item without container floors)
        if item == args[1]:
            return []
        floors = posed.containers_of(args[1]) or posed.surfaces(args[1])
        return [Spot(t.id, []) for t in floors]
    if p == "next-to":  # on a piece of furniture (its surfaces: over it, within its
        # height); beside an item, on the surface it rests on, its regions first (the
        # spots that hug it: `placements` keeps those the checker judges next to it)
        if item == args[1]:
            return []
        if g.object(args[1]).kind is not Kind.MOVABLE:
            return [Spot(t.id, []) for t in posed.surfaces(args[1])
                    if t.container is None or t.is_open]
        s = posed.support_of(args[1])
        if s is None:
            return []
        out = [Spot(s, [r.id]) for r in listed_regions(posed, s) if r.anchor_id == args[1]]
        return out + [Spot(s, [])] + [Spot(s, [c.id]) for c in posed.cells(s)]
    if p == "same-surface":  # where the other item rests (anywhere, else a cell)
        s = posed.support_of(args[1])
        if s is None or item == args[1]:
            return []
        return [Spot(s, [])] + [Spot(s, [c.id]) for c in posed.cells(s)]
    return []


def placements(env: ManipulationEnv, atom: GAtom, state: SnapshotState | None = None,
               only: str | None = None) -> Iterator[Spot]:
    """Each way to `place` the atom's item (held, or where it stands) so that `atom`
    holds right after (judged from where the robot stands now; in `state`, default the
    world now; on surface `only` if given), the preferred first."""
    item = atom.args[0]
    st = state or env.world.state
    for spot in destinations(env, atom, st):
        if only is not None and spot.surface != only:
            continue
        res, _, _ = preview_place(st.posed, item, spot.surface, spot.regions)
        if res is None or not res.ok:
            continue
        if truth_in(env, state_after(env, item, res, st))(atom):
            yield spot


def choose_placement(env: ManipulationEnv, atom: GAtom) -> Spot | None:
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
    now = truth_in(env, ahead=keep)
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
        truth = truth_in(env, state_after(env, item, res), ahead=[*atoms, *kept])
        if any(truth(a) for a in atoms) or not all(truth(k) for k in kept):
            continue
        out.append(sid)
    return out

