"""The start checks: a ground goal makes no task when it names no target entity, when it
already holds where the task starts (or its first step does, for a sequence: "first put
the mug left of the laptop, then ..." with the mug there already asks for less than it
says, and an agent that only walks may succeed), or when the embedded world can never make it true
(judged in this order, so each dropped binding is counted under the first that applies).

A ground goal is infeasible when some atom it needs can never hold, by the geometric
rules of `fdc.sim_bridge.graph.feasible` (an item taller than the room above its surface,
larger than the surface, or whose centre cannot lie in its cell while it stands on the
surface), or when an item it must move, or a surface or an anchor it must put it on or
by, is one the robot cannot walk to from where it starts (`reach_from`: the embedded
world's navigation), or when several items it needs on one surface cannot stand there side by
side, or take more room than it has, in as many layers as can count as on it (one
where nothing can be stacked): those a conjunction puts on the surface (or around an
anchor it keeps there, or each on one of the surface and its twins, a chair's two
receptacles), or `at-least N` of a count node's; or when more items must be `around` an
anchor kept on a narrow surface than its row has room for next to it. This module only
reads the goal: which atoms must hold (every part of a conjunction, every step of a
sequence, some part of a disjunction, N items of a count), and which relocation each
asks for; the geometry is the scene graph's. An atom that holds at the start is never
judged (the item need not move), nor a negated one (but for reach: an item a negated atom
must take away, true at the start, that the robot cannot walk to), a memory task's
targets, or PARTNR's checklists.
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, assert_never

from fdc.predicates.algebra import children, fewest_to_change, is_atom
from fdc.predicates.builtin import default_registry
from fdc.predicates.checkers.object_states import STATES
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
from fdc.sim_bridge.graph.feasible import (
    Infeasible,
    around_room,
    inside_object,
    pack,
    rest_on,
    twins,
)
from fdc.sim_bridge.graph.regions import Direction
from fdc.sim_bridge.graph.scene_graph import ObjectInfo
from fdc.sim_bridge.graph.surfaces import Surface

from .drops import Drop, DropCode
from .targets import goal_targets

if TYPE_CHECKING:
    from fdc.predicates.registry import Registry
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.posed import PosedGraph

    from .start import TemplateStart

_CELLS = frozenset(d.value for d in Direction)


def check_start(start: TemplateStart, goal: Goal) -> Drop | None:
    """Why `goal` makes no task where `start` says the template's tasks start, or None."""
    if not goal_targets(goal):
        return Drop(DropCode.NO_TARGET)
    if start.judge.already_true(goal):
        return Drop(DropCode.ALREADY_TRUE)
    if start.judge.first_step_true(goal):
        # "first do A, then B" with A done: the task is B, and says more than it asks
        return Drop(DropCode.STEP_TRUE, "1")
    if goal.kind == "targets":  # a memory task's targets: never judged
        return None
    holds = start.judge.holds(atoms(goal))
    rule = infeasible(goal, start.graph, holds.__getitem__, start.thresholds,
                      reach=reach_from(start.snapshot.posed, (start.pose.x, start.pose.y)))
    return None if rule is None else Drop(DropCode.INFEASIBLE, str(rule))


def reach_from(posed: PosedGraph, here: tuple[float, float]) -> Callable[[str], bool]:
    """Whether the robot, standing at `here` in the world `posed` (the start state), can
    walk to an entity as the embedded world's `navigate` walks to it: an item at the
    standing points of the furniture at the bottom of its support chain now, a surface or
    a piece of furniture at its own (`PosedGraph.nav_target`). Items are no obstacles, so
    what cannot be reached at the start never can: an item out of reach never moves, and
    nothing is put on a surface out of reach. A target that is a point (an item held, or
    resting on nothing with standing points) counts as reached. Answers are kept per call
    (a path is a search of the navigation grid: the standing points' own `reachable`
    flag answers first, when `here` is where the scene's robot starts from)."""
    graph = posed.graph
    nav = graph.nav
    joined = nav.connected(nav.nearest_node(here), nav.start_node)
    memo: dict[str, bool] = {}

    def reach(what: str) -> bool:
        found = memo.get(what)
        if found is None:
            target = posed.nav_target(what)
            if not isinstance(target, str):
                found = True  # an item held, or resting on nothing with standing points
            elif joined and graph.has(target) and \
                    graph.standing_points(target, reachable_only=True):
                found = True  # the standing points' flag: reachable from the scene's start
            else:
                found = graph.shortest_path(here, target) is not None
            memo[what] = found
        return found

    return reach


def infeasible(goal: Goal, graph: SceneGraph, holds: Callable[[GAtom], bool],
               thresholds: Mapping[str, float],
               reach: Callable[[str], bool] | None = None, *,
               flat: bool = False) -> Infeasible | None:
    """The rule that makes `goal` impossible in the embedded world, or None. `holds`:
    an atom's truth at the start; `thresholds`: the checkers' (`on_top_m`,
    `on_below_m`, `inside_margin_m`; the registry's defaults where missing); `reach`:
    whether the robot can walk to an entity from where it starts (`reach_from`; None:
    not judged); `flat`: items put on one surface must all stand side by side (`pack`'s
    `flat`; `only_stacked`)."""
    th = {**default_registry().default_thresholds(), **thresholds}
    band = {"on_top_m": th["on_top_m"], "on_below_m": th["on_below_m"]}
    memo: dict[GAtom, Infeasible | None] = {}

    def atom(a: GAtom) -> Infeasible | None:
        if a not in memo:
            memo[a] = None if holds(a) else (
                _unreached(a, graph, reach) or _atom(a, graph, band, th["inside_margin_m"]))
        return memo[a]

    def together(g: GAnd) -> Infeasible | None:
        """The items a conjunction puts on one surface, judged together: those it
        names on the surface (in a cell), and those it puts `around` an anchor it names
        on the surface that stand elsewhere at the start (the `around` checker wants
        them on the anchor's surface: each is judged there alone, then with the rest)."""
        parts = _conjuncts(g)
        groups: dict[str, list[tuple[str, Direction | None]]] = {}
        home: dict[str, str] = {}  # an item the conjunction keeps on a surface -> it
        for a in parts:
            where = _surface_of(a, graph)
            if where is not None:
                home[where[0]] = where[1]
                if not holds(a):
                    groups.setdefault(where[1], []).append((where[0], where[2]))
        anywhere = set()  # surfaces whose items may stand on any of their twins
        for d in g.parts:  # an item on a surface or its twins (a chair's receptacles)
            match d:
                case GOr() if not any(holds(p) for p in d.parts if is_atom(p)):
                    found = _on_twins(d, graph, band["on_below_m"])
                    if found is not None:
                        groups.setdefault(found[1], []).append((found[0], None))
                        anywhere.add(found[1])
                case _:
                    pass
        for a in parts:
            item = _around_of(a, graph, home)
            if item is None or holds(a):
                continue
            alone = rest_on(graph, item, home[a.args[1]], **band)
            if alone is not None:  # it can never stand on the anchor's surface
                return alone
            wanted = groups.setdefault(home[a.args[1]], [])
            if all(x != item for x, _ in wanted):
                wanted.append((item, None))
        for surface, wanted in sorted(groups.items()):
            if len({item for item, _ in wanted}) == len(wanted):
                found = pack(graph, surface, wanted, any_twin=surface in anywhere,
                             flat=flat, **band)
                if found is not None:
                    return found
        ring: dict[str, list[str]] = {}  # an anchor kept on a surface -> items around it
        for a in parts:
            if a.predicate == "around" and len(a.args) == 2 and a.args[1] in home and \
                    graph.has(a.args[0]) and a.args[0] != a.args[1]:
                ring.setdefault(a.args[1], []).append(a.args[0])
        for anchor, items in sorted(ring.items()):
            found = around_room(graph, home[anchor], anchor, list(dict.fromkeys(items)),
                                on_below_m=band["on_below_m"])
            if found is not None:
                return found
        return None

    def count(g: GCount) -> Infeasible | None:
        """At least `number` of the items on a surface (in a receptacle): those there at
        the start count free, the rest are packed (`pack`'s count). Impossible when it is
        so on every surface of `others`; judged only when the items must gather on one
        surface (one surface named, or `same_other`), and by the checkers' own thresholds
        (`holds` judged the atoms with them)."""
        if g.op != "at-most" and reach is not None:
            # fewer items than `number` can end there: those there at the start, and
            # those the robot can walk to and put on an entity of `others` it walks to
            can = sum(any(holds(a) or _unreached(a, graph, reach) is None
                          for a in (g.atom_for(item, o) for o in g.others or (None,)))
                      for item in dict.fromkeys(g.items))
            if can < g.number:
                return Infeasible.UNREACHABLE
        if g.op == "at-most" or not g.others or (len(g.others) > 1 and not g.same_other) \
                or g.thresholds:
            return None
        first: Infeasible | None = None
        for other in g.others:
            held, wanted, surface = 0, [], None
            for item in dict.fromkeys(g.items):
                a = g.atom_for(item, other)
                where = _surface_of(a, graph)
                if where is None:
                    return None
                if holds(a):
                    held += 1
                else:
                    wanted.append((where[0], None))
                    surface = where[1]
            found = None if surface is None or g.number <= held else pack(
                graph, surface, wanted, at_least=g.number - held, flat=flat, **band)
            if found is None:
                return None
            first = first or found
        return first

    def walk(g: Goal) -> Infeasible | None:
        match g:
            case GAtom():
                return atom(g)
            case GAnd():
                found = next((r for p in g.parts if (r := walk(p)) is not None), None)
                return found if found is not None else together(g)
            case GThen():
                return next((r for p in g.steps if (r := walk(p)) is not None), None)
            case GOr():  # impossible when every part is: the first one's rule
                first: Infeasible | None = None
                for p in g.parts:
                    r = walk(p)
                    if r is None:
                        return None
                    first = first or r
                return first
            case GCount():
                return count(g)
            case GNot():  # an item to take away that the robot cannot walk to
                body = g.body
                if reach is None or not is_atom(body) or not holds(body):
                    return None
                m = default_registry().meaning(body.predicate)
                i = m.relocates
                return Infeasible.UNREACHABLE if i is not None and i < len(body.args) and \
                    graph.has(body.args[i]) and not reach(body.args[i]) else None
            case GTargets() | GCluster() | GChecklist():
                return None
            case _:
                assert_never(g)

    return walk(goal)


def placing_atoms(goal: Goal) -> list[GAtom]:
    """The atoms a goal needs to hold that may put an item somewhere: every atom of its
    conjunctions, disjunctions and steps, and a count's unless `at-most` (a negated atom
    places nothing, nor `at-most`; a memory task's targets are answered, not placed)."""
    found: list[GAtom] = []
    stack = [goal]
    while stack:
        g = stack.pop()
        match g:
            case GAtom():
                found.append(g)
            case GAnd() | GOr() | GThen():
                stack += children(g)
            case GCount():
                if g.op != "at-most":
                    found += atoms(g)
            case GNot() | GTargets() | GCluster() | GChecklist():
                pass
            case _:
                assert_never(g)
    return found


def only_stacked(start: TemplateStart, goal: Goal, holds: Callable[[GAtom], bool]) -> bool:
    """Whether the items `goal` puts on one surface fit there only when some stand on
    others (a goal `check_start` let through, whose items `pack` refuses side by side):
    the checkers' band lets a small item on another count as on the surface, but whether
    the world finds a stack it accepts for each depends on where each lands (eleven
    items on a nightstand's top), so such a task is emitted only with a witness, as
    `needs_witness`'s are. `holds`: an atom's truth at the start."""
    if goal.kind == "targets" or len({a.args[0] for a in placing_atoms(goal) if a.args}) < 2:
        return False
    return infeasible(goal, start.graph, holds, start.thresholds, flat=True) is not None


def needs_witness(goal: Goal, holds: Callable[[GAtom], bool],
                  registry: Registry | None = None) -> bool:
    """Whether a goal is one the geometric rules cannot decide, so that its task is
    emitted only with a witness (`CompileOptions.witness`, the manipulation oracle's
    trace): it moves two or more items in all (`holds`: an atom's truth at the start; an
    item whose atoms hold there need not move) and puts an item by an anchor (`around`,
    `at-side`, `between`) or two of them in one cell of a surface. Whether those fit
    together depends on where each lands (two laptops by a box on a console, a towel
    between a clock and the laptop just put beside it, three plates in the centre of a
    table among what stands there already), which the world decides one placement at a
    time. Or it changes an object's state (a BEHAVIOR state, `object_states.STATES`:
    cooked, covered, contains ...) from what it is at the start: whether an agent can (a
    heat source, a water source, a cleaning tool, a recipe of the substance, room to set
    the pan down) is what the oracle finds out, by the rules the world follows.
    `registry`: the predicates' meaning (`Registry.relocating`, `anchored`; default:
    fdc's)."""
    if goal.kind != "targets" and fewest_to_change(goal, STATES, holds):
        return True
    registry = registry or default_registry()
    relocating, anchored = registry.relocating(), registry.anchored()
    moved = [a for a in placing_atoms(goal)
             if a.predicate in relocating and a.args and not holds(a)]
    if len({a.args[0] for a in moved}) < 2:
        return False
    if any(a.predicate in anchored for a in moved):
        return True
    cells: dict[tuple[str, ...], set[str]] = {}
    for a in moved:
        if a.predicate == "in-cell" and len(a.args) >= 3:
            cells.setdefault(a.args[1:3], set()).add(a.args[0])
    return any(len(items) >= 2 for items in cells.values())


def _conjuncts(g: GAnd) -> list[GAtom]:
    """The atoms of a conjunction, nested conjunctions flattened."""
    out: list[GAtom] = []
    for p in g.parts:
        match p:
            case GAtom():
                out.append(p)
            case GAnd():
                out += _conjuncts(p)
            case _:
                pass
    return out


def _surface_of(a: GAtom, graph: SceneGraph) -> tuple[str, str, Direction | None] | None:
    """(movable item, surface, cell or None) for an atom that puts an item on a
    surface (`Registry.packed`: `on`, `in-cell`, `inside` a receptacle), else None."""
    p, args = a.predicate, a.args
    if p not in default_registry().packed() or len(args) < 2 or \
            not all(graph.has(x) for x in args[:2]):
        return None
    item, where = graph.entity(args[0]), graph.entity(args[1])
    if not isinstance(item, ObjectInfo) or not item.is_movable or \
            not isinstance(where, Surface):
        return None
    if p != "in-cell":
        return item.id, where.id, None
    if len(args) < 3 or args[2] not in _CELLS:
        return None
    return item.id, where.id, Direction(args[2])


def _on_twins(d: GOr, graph: SceneGraph, on_below_m: float) -> tuple[str, str] | None:
    """(item, surface) for a disjunction that puts one item on one of a surface and its
    `twins` (the first of them by id), else None."""
    wheres = [_surface_of(p, graph) if is_atom(p) else None for p in d.parts]
    if not wheres or any(w is None or w[2] is not None for w in wheres):
        return None
    items = {w[0] for w in wheres if w is not None}
    surfaces = sorted({w[1] for w in wheres if w is not None})
    if len(items) != 1:
        return None
    mates = {t.id for t in twins(graph, graph.surface(surfaces[0]), on_below_m)}
    return (items.pop(), surfaces[0]) if set(surfaces[1:]) <= mates else None


def _around_of(a: GAtom, graph: SceneGraph, home: Mapping[str, str]) -> str | None:
    """The item of an `around` atom whose anchor must stand on a surface (`home`) the
    item stands off at the start (its footprint clear of the surface's outline), else
    None."""
    import shapely

    if a.predicate != "around" or len(a.args) != 2 or a.args[1] not in home or \
            not graph.has(a.args[0]):
        return None
    item = graph.entity(a.args[0])
    if not isinstance(item, ObjectInfo) or not item.is_movable:
        return None
    surface = graph.surface(home[a.args[1]])
    return None if shapely.intersects(item.footprint, surface.polygon) else item.id


def _unreached(a: GAtom, graph: SceneGraph, reach: Callable[[str], bool] | None
               ) -> Infeasible | None:
    """`UNREACHABLE` for an atom (false at the start) that relocates an item when the
    robot cannot walk to the item, to the surface or receptacle it names (`onto`), or to
    an anchor the item goes by (`anchors`: the item must stand on the anchor's surface):
    no action of the embedded world can then make it true (`reach_from`)."""
    if reach is None:
        return None
    m = default_registry().meaning(a.predicate)
    if m.relocates is None:
        return None
    wanted = [m.relocates, *([] if m.onto is None else [m.onto]), *m.anchors]
    for i in wanted:
        if i < len(a.args) and graph.has(a.args[i]) and not reach(a.args[i]):
            return Infeasible.UNREACHABLE
    return None


def _atom(a: GAtom, graph: SceneGraph, band: Mapping[str, float], margin_m: float
          ) -> Infeasible | None:
    p, args = a.predicate, a.args
    on = _surface_of(a, graph)
    if on is not None:
        return rest_on(graph, on[0], on[1], on[2], on_top_m=band["on_top_m"],
                       on_below_m=band["on_below_m"])
    if p != "inside" or len(args) < 2 or not all(graph.has(x) for x in args[:2]):
        return None
    item, where = graph.entity(args[0]), graph.entity(args[1])
    if not isinstance(item, ObjectInfo) or not item.is_movable:
        return None
    if isinstance(where, ObjectInfo):
        return inside_object(graph, item.id, where.id, on_top_m=band["on_top_m"],
                             on_below_m=band["on_below_m"], inside_margin_m=margin_m)
    return None
