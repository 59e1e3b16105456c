"""The planning abstraction and the checkers agree (issue 36, finding 3).

fdc has three models of a task: the planning abstraction (`domain/fdc-home.pddl`'s
actions over the initial facts `compiler/planning/problem.py` builds), the embedded world
(`sim_bridge/world`) that acts plans out, and the checkers (`predicates/`) that judge
goals. A plan certifies a task only when they agree, so this module tests the square
they must close: from a random world state (a random walk of the world's actions from
the apartment's start: items picked, held, put on furniture, on a tray's or book's top,
in a box, doors opened and closed), the abstraction's facts for that state are built;
then each further random action is applied to both (unified-planning's simulator on the
problem, the world's action on the world), and after each the abstraction's truth of
every ground atom over the problem's objects is compared with the checkers' truth on
the world's state:

- exactly (`EXACT`): the fluents the actions keep exact: `on`, `inside`, `in-room` (a
  held item is in the robot's room), `on-furniture`, `same-surface` (planned as its
  definition over `on`), `holding`, `hand-empty`, `robot-in-room`, `is-open`;
- one way (`SOUND`: what the abstraction holds, the checkers find): the fluents only
  their own placement makes true, forgotten when an item they relate is picked
  (`in-cell`, `around`, `between`; a plain `place` may land in any cell);
- one way, counted and shown but not failed (`SEEN`): `robot-at-receptacle` and
  `robot-at-object`, FindingDory's success checks, which ask for the target in view
  from where the robot stands: the abstraction's walk reaches the target, and from the
  standing point the world takes the target may be hidden (the tray on the coffee
  table, behind what stands on it, walking there from the living-room shelf). A gap of
  the abstraction that the certificate's replay reports for a goal that names them
  (cause `goal`); left for a follow-up. A surface with no standing point at all is
  left out (the apartment's fridge, against the wall: the world reaches it within
  arm's reach, and the `robot-at-receptacle` check never finds the robot there);
- not compared: `at-side` (judged from where the robot stands: none holds in the abstraction until
  its placement, `Registry.viewer_relative`), PARTNR's relations and object states (no
  action sets them: they keep their initial value), and static and history predicates
  (not fluents of a state).

The world may refuse a placement for lack of room (the abstraction does not model free
space: another action is drawn); it must refuse no other action the abstraction allows.

Measured (`-s` prints the tally): 30 random starts, 185 compared states (94 with an
item in the hand; applied to both: 48 picks, 39 placements on an item's top, 7 on
furniture, 61 walks), 217,522 ground atoms compared, 0 disagreements; 6 placements
refused for lack of room; 24 `SEEN` atoms the checkers deny (items out of view). Before
the fix a held item was in no room of the abstraction (`in-room`), a walk to an item's
top put the robot in no room, and the `inside` checker put a tray inside the box
standing on it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fdc.compiler.planning import PlanningWorld, holds_initially, solve
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.scene_facts import SceneFacts
from fdc.compiler.templates import load_entries
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import GAnd, GNot, Goal, GOr, atom
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph
from fdc.sim_bridge.world.embedded import LONG_DAY, EmbeddedWorld
from fdc.sim_bridge.world.plans import _act, format_plan, lack_of_room, parse_step, replay_plan
from fdc.sim_bridge.world.snapshot import SnapshotState

EXACT = ("on", "inside", "in-room", "on-furniture", "same-surface", "holding", "hand-empty",
         "robot-in-room", "is-open")
SOUND = ("in-cell", "around", "between")
#: FindingDory's success checks: compared one way as `SOUND`, their disagreements
#: counted and shown, not failed (module doc: the abstraction does not model sight).
SEEN = ("robot-at-receptacle", "robot-at-object")
#: Surfaces the walks go to besides where the items stand.
TARGETS = ("coffee_table|top", "kitchen_counter|top", "bed|top", "office_desk|top",
           "fridge|upper")


@dataclass
class Tally:
    starts: int = 0
    states: int = 0
    atoms: Counter[str] = field(default_factory=Counter)
    refused_for_room: int = 0
    held: int = 0  # compared states with an item in the hand
    actions: Counter[str] = field(default_factory=Counter)  # applied to both, by name
    unseen: list[str] = field(default_factory=list)  # `SEEN` atoms the checkers deny


@dataclass
class Scene:
    graph: SceneGraph
    facts: SceneFacts
    focus: tuple[str, ...]  # the items the walks move
    tally: Tally


@pytest.fixture(scope="module")
def scene(apartment_compiler: SceneCompiler) -> Iterator[Scene]:
    entries, _ = load_entries(None)
    facts = apartment_compiler.facts(entries[0].domain)
    state = apartment_compiler.states["initial"]
    movables = sorted(facts.entities(("movable",)))
    # trays and a box with what they carry, a book, what the fridge holds, mugs and cups
    carriers = [x for x in movables if x.startswith(("tray_", "box_0", "book_0"))]
    tops = {s for x in carriers for s in facts.graph.object(x).surfaces}
    carried = [x for x in movables if state.support_of(x) in tops]
    fridge = [x for x in movables if (state.support_of(x) or "").startswith("fridge|")]
    focus = sorted({*carriers, *carried, *fridge[:2], "mug_0", "mug_1", "cup_0", "plate_0"})
    tally = Tally()
    yield Scene(facts.graph, facts, tuple(focus), tally)
    atoms = sum(tally.atoms.values())
    print(f"\nplanning agrees: {tally.starts} random starts, {tally.states} compared states "
          f"({tally.held} with a held item; actions applied to both: "
          f"{dict(sorted(tally.actions.items()))}), "
          f"{atoms} ground atoms compared ({dict(sorted(tally.atoms.items()))}), "
          f"{tally.refused_for_room} placements refused for lack of room, 0 disagreements; "
          f"{len(tally.unseen)} atom(s) of {', '.join(SEEN)} the abstraction holds and the "
          f"checkers do not: {tally.unseen[:5]}")


# --------------------------------------------------------------------------- actions


def _room(world: EmbeddedWorld, item: str) -> str | None:
    return world.state.room_of(item)


def candidates(sc: Scene, world: EmbeddedWorld, at: str | None) -> list[str]:
    """Plan lines (fdc-home's actions) that make sense in the world now, `at`: the
    surface the robot last walked to."""
    g, state = sc.graph, world.state
    held = world.held_object()
    out: list[str] = []
    furniture_surfaces = sorted(s for s in sc.facts.entities(("furniture-surface",)))
    # where the items stand, and a few surfaces to put them on (in four rooms, a door)
    wanted = {state.support_of(x) for x in sc.focus} | set(TARGETS)
    for s in furniture_surfaces:
        if s in wanted:
            owner = g.object(g.surface(s).object_id)
            out.append(f"navigate-to-receptacle {s} {owner.id} {owner.room}")
    for i in sc.focus:
        if i == held:
            continue
        r = _room(world, i)
        if r is None:
            continue
        out.append(f"navigate-to-object {i} {r}")
        for t in g.object(i).surfaces:
            if g.surface(t).container is None:
                out.append(f"navigate-to-item {t} {i} {r}")
    if held is None:
        for o in sc.focus:
            s = state.support_of(o)
            if s is None:
                r = _room(world, o)
                if r is not None:
                    out.append(f"pick-from-floor {o} {r}")
            elif s == at:
                out.append(f"pick {o} {s}")
        if at is not None and at in furniture_surfaces:
            owner = g.surface(at).object_id
            if sc.facts.has_type(owner, ("articulated",)):
                out += [f"open {owner} {at}", f"close {owner} {at}"]
    elif at is not None:
        if at in furniture_surfaces:
            owner = g.object(g.surface(at).object_id)
            where = f"{owner.id} {owner.room}"
            out.append(f"place {held} {at} {where}")
            out.append(f"place-in-cell {held} {at} front-left {where}")
            here = [x for x in sc.focus if x != held and state.support_of(x) == at]
            out += [f"place-around {held} {a} {at} {where}" for a in here]
            out += [f"place-between {held} {a} {b} {at} {where}"
                    for a, b in itertools.permutations(here, 2)][:2]
            out += [f"place-inside {held} {c} {at} {where}" for c in here
                    if sc.facts.has_type(c, ("container",))]
        else:
            carrier = g.surface(at).object_id
            out.append(f"place-on-item {held} {at} {carrier}")
    return out


def choose(options: list[str], k: int) -> str:
    """The `k`-th option, an action's name first (each as likely: walks are most of the
    options, and picks and placements are what the test is about), then its arguments;
    an even `k` takes a pick, placement, opening or closing when there is one."""
    hands = [line for line in options if not line.startswith("navigate")]
    if hands and k % 2 == 0:
        options, k = hands, k // 2
    kinds = sorted({line.split()[0] for line in options})
    kind = kinds[k % len(kinds)]
    of_kind = [line for line in options if line.split()[0] == kind]
    return of_kind[(k // len(kinds)) % len(of_kind)]


def walk_to(line: str, at: str | None) -> str | None:
    name, *args = line.split()
    if name in ("navigate-to-receptacle", "navigate-to-item"):
        return args[0]
    if name in ("navigate-to-object", "pick-from-floor"):
        return None
    return at


# --------------------------------------------------------------------------- truth


def _objects(problem: Any) -> dict[str, Any]:
    return {o.name: o for o in problem.all_objects}


def compare(sc: Scene, problem: Any, up_state: Any, world: EmbeddedWorld,
            history: list[str]) -> None:
    """Every ground atom of `EXACT` and `SOUND` over the problem's objects: the
    abstraction's truth in `up_state` and the checkers' on the world now. The placement
    relations (`in-cell`, `around`, `between`) are asked of items that stand on one
    surface in either model (elsewhere both say false: each needs its items `on` it)."""
    registry = default_registry()
    ctx = Context(graph=sc.graph, state=SnapshotState(sc.graph, world.snapshot()),
                  type_parents=dict(sc.facts.domain.parents))
    objects = _objects(problem)
    wrong: list[str] = []

    def planned(name: str, row: tuple[str, ...]) -> bool:
        value = up_state.get_value(problem.fluent(name)(*(objects[x] for x in row)))
        return bool(value.bool_constant_value())

    def rows_of(name: str) -> list[tuple[str, ...]]:
        decl = sc.facts.domain.predicates[name]
        domains = [[e for e in sc.facts.entities(p.types) if e in objects]
                   for p in decl.parameters]
        return list(itertools.product(*domains))

    def judge(name: str, rows: list[tuple[str, ...]],
              abstraction: list[bool]) -> list[bool]:
        checked = registry.evaluate_many(name, rows, ctx).tolist() if rows else []
        for row, a, c in zip(rows, abstraction, checked, strict=True):
            if (a != bool(c)) if name in EXACT else (a and not c):
                said = f"({name} {' '.join(row)}): abstraction {a}, checkers {bool(c)}"
                (sc.tally.unseen if name in SEEN else wrong).append(said)
        sc.tally.atoms[name] += len(rows)
        return [bool(c) for c in checked]

    # `on` first: the surfaces each item stands on in either model
    on_rows = rows_of("on")
    on_planned = [planned("on", r) for r in on_rows]
    on_checked = judge("on", on_rows, on_planned)
    under: dict[str, set[str]] = {}
    for (o, s), a, c in zip(on_rows, on_planned, on_checked, strict=True):
        if a or c:
            under.setdefault(o, set()).add(s)
    for name in (*EXACT, *SOUND, *SEEN):
        if name == "on":
            continue
        if name == "same-surface":
            rows = [r for r in rows_of(name)]
            abstraction = [a != b and bool(on_sets(on_rows, on_planned, a)
                                           & on_sets(on_rows, on_planned, b))
                           for a, b in rows]
            judge(name, rows, abstraction)
            continue
        rows = rows_of(name) if name not in ("in-cell", "around", "between") else [
            r for r in rows_of(name) if _together(name, r, under)]
        if name == "robot-at-receptacle":  # not where no standing point is (module doc)
            rows = [r for r in rows if world.state.posed.standing_points_for(r[0])[0]]
        judge(name, rows, [planned(name, r) for r in rows])
    sc.tally.states += 1
    sc.tally.held += world.held_object() is not None
    assert not wrong, "after " + (" / ".join(history) or "the start") + ":\n" + \
        "\n".join(wrong[:20])


def on_sets(rows: list[tuple[str, ...]], truth: list[bool], item: str) -> set[str]:
    return {r[1] for r, ok in zip(rows, truth, strict=True) if ok and r[0] == item}


def _together(name: str, row: tuple[str, ...], under: dict[str, set[str]]) -> bool:
    """The row's items stand on one surface (its surface, for `in-cell`) in some model."""
    if name == "in-cell":
        return row[1] in under.get(row[0], set())
    items = row if name == "between" else row[:2]
    return bool(set.intersection(*(under.get(x, set()) for x in items)))


def every_predicate_goal(sc: Scene, keep: list[str]) -> Goal:
    """A goal that names each compared predicate (so that the problem's initial state
    holds its facts), over the items a walk moves."""
    a, b, c = keep[0], keep[1], keep[2]
    room = sorted(sc.facts.entities(("room",)))[0]
    surface = sorted(sc.facts.entities(("furniture-surface",)))[0]
    fridge = "fridge"
    return GOr(parts=(
        atom("on", a, surface), atom("inside", a, "fridge|lower"), atom("in-room", a, room),
        atom("on-furniture", a), atom("same-surface", a, b), atom("holding", a),
        atom("hand-empty"), atom("robot-in-room", room), atom("is-open", fridge),
        atom("in-cell", a, surface, "center"), atom("around", a, b),
        atom("between", a, b, c), atom("robot-at-receptacle", surface),
        atom("robot-at-object", a)))


# --------------------------------------------------------------------------- the property


@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(before=st.lists(st.integers(0, 10**6), max_size=8),
       after=st.lists(st.integers(0, 10**6), min_size=3, max_size=8))
def test_the_abstraction_and_the_checkers_agree_on_every_state(
        scene: Scene, before: list[int], after: list[int]) -> None:
    from unified_planning.shortcuts import SequentialSimulator

    sc = scene
    world = EmbeddedWorld(sc.graph, clock=LONG_DAY)
    at: str | None = None
    history: list[str] = []
    # a random start: the world's actions only
    for k in before:
        options = candidates(sc, world, at)
        line = choose(options, k)
        if _act(world, parse_step(line), 0).ok:
            at = walk_to(line, at)
            history.append(line)
    start = world.snapshot()
    planning = PlanningWorld(sc.facts, SnapshotState(sc.graph, start))
    furniture_surfaces = sc.facts.entities(("furniture-surface",))
    tops = [t for x in sc.focus for t in sc.graph.object(x).surfaces]
    keep = list(sc.focus)
    pp = planning.build("agree", every_predicate_goal(sc, keep), reduce=False,
                        movable=keep, extra=[*furniture_surfaces, *tops])
    problem = pp.problem
    objects = _objects(problem)
    sc.tally.starts += 1
    with SequentialSimulator(problem) as sim:
        up_state = sim.get_initial_state()
        compare(sc, problem, up_state, world, history)
        for k in after:
            options = [line for line in candidates(sc, world, at)
                       if sim.is_applicable(up_state, problem.action(line.split()[0]),
                                            [objects[x] for x in line.split()[1:]])]
            if not options:
                break
            line = choose(options, k)
            res = _act(world, parse_step(line), 0)
            if not res.ok:
                # the abstraction does not model free space; nothing else is refused
                assert line.startswith("place") and lack_of_room(res.reason), \
                    f"the world refuses `{line}`, which the abstraction allows " \
                    f"(after {' / '.join(history) or 'the start'}): {res.reason}"
                sc.tally.refused_for_room += 1
                continue
            name, *args = line.split()
            up_state = sim.apply(up_state, problem.action(name), [objects[x] for x in args])
            at = walk_to(line, at)
            history.append(line)
            sc.tally.actions[name] += 1
            compare(sc, problem, up_state, world, history)


# --------------------------------------------------------------------------- the template


def _forall_mugs_in_room_on(sc: Scene, apartment_compiler: SceneCompiler, room: str, surface: str
                            ) -> Goal:
    """`(forall (?m - mug) (imply (in-room ?m ?r) (on ?m ?t)))` ground on the scene."""
    mugs = sorted(m for m in sc.facts.entities(("mug",)))
    return GAnd(parts=tuple(GOr(parts=(GNot(body=atom("in-room", m, room)),
                                       atom("on", m, surface))) for m in mugs))


@pytest.mark.slow
def test_picking_the_mug_no_longer_takes_it_out_of_the_room(
        scene: Scene, apartment_compiler: SceneCompiler) -> None:
    """Issue 36's user template, ground on the apartment: every mug in the kitchen on the
    kitchen table. The abstraction put a held mug in no room, so `pick` alone "solved"
    it, and the world (the held mug is in the robot's room) did not reach the goal. Now
    the held mug stays in the kitchen: the goal does not hold after a pick, the plan
    puts the kitchen's mugs on the table (or carries one out), and the world carries
    it out and reaches the goal."""
    from fdc.predicates.verify import judge_at_end

    sc = scene
    state = apartment_compiler.states["initial"]
    planning = PlanningWorld(sc.facts, state)
    mugs = sorted(sc.facts.entities(("mug",)))
    room = next(state.room_of(m) for m in mugs if state.room_of(m) == "kitchen")
    assert room == "kitchen"
    surface = "kitchen_table|top" if sc.graph.has("kitchen_table|top") else next(
        s for s in sc.facts.entities(("furniture-surface",))
        if sc.graph.object(sc.graph.surface(s).object_id).room == room)
    goal = _forall_mugs_in_room_on(sc, apartment_compiler, room, surface)
    pp = planning.build("mugs", goal)
    assert not holds_initially(pp)
    res = solve(pp, 60)
    assert res.status == "solved", res.message
    picks = [step for step in res.plan if step.action.startswith("pick")]
    assert picks and res.plan[-1] not in picks, res.plan  # no longer "pick, done"
    replay = replay_plan(res.plan, sc.graph, None)
    assert replay.refused is None, replay.reason
    reached = judge_at_end(goal, sc.graph, None)
    assert reached(replay.snapshots[-1]), res.plan
    # and the certificate, as `fdc validate --solve` makes it
    cert = planning.certify(pp, 60, reached=reached)
    assert cert.status == "solved", cert.message


def test_a_held_item_stays_in_the_robots_room_and_goes_where_it_walks(
        scene: Scene, apartment_compiler: SceneCompiler) -> None:
    """In the abstraction, `pick` keeps the mug in the kitchen (it put it in no room) and
    a walk to the office carries it there, as the `in-room` checker says of a held item."""
    from unified_planning.shortcuts import SequentialSimulator

    sc = scene
    s = apartment_compiler.states["initial"].support_of("mug_0")
    assert s is not None
    owner = sc.graph.object(sc.graph.surface(s).object_id)
    assert owner.room == "kitchen"
    planning = PlanningWorld(sc.facts, apartment_compiler.states["initial"])
    pp = planning.build("held", atom("in-room", "mug_0", "office"), reduce=False,
                        extra=["office_desk|top"])
    problem = pp.problem
    objects = _objects(problem)
    in_room = problem.fluent("in-room")
    with SequentialSimulator(problem) as sim:
        state = sim.get_initial_state()
        for line in (f"navigate-to-receptacle {s} {owner.id} kitchen", f"pick mug_0 {s}"):
            name, *args = line.split()
            state = sim.apply(state, problem.action(name), [objects[x] for x in args])
        assert state.get_value(in_room(objects["mug_0"], objects["kitchen"])).is_true()
        walk = problem.action("navigate-to-receptacle")
        state = sim.apply(state, walk, [objects[x] for x in ("office_desk|top", "office_desk",
                                                             "office")])
        assert state.get_value(in_room(objects["mug_0"], objects["office"])).is_true()
        assert state.get_value(in_room(objects["mug_0"], objects["kitchen"])).is_false()
        assert sim.is_goal(state)


def test_an_item_on_a_tray_is_reached_in_the_trays_room(
        scene: Scene, apartment_compiler: SceneCompiler) -> None:
    """`cup_0` stands on `tray_0`: the walk to the tray's top names the tray and its room
    (`navigate-to-item ?to ?i ?r`), so the tray is an object of the problem (three tasks
    of the library came out unreachable while it was not)."""
    planning = PlanningWorld(scene.facts, apartment_compiler.states["initial"])
    assert apartment_compiler.states["initial"].support_of("cup_0") == "tray_0|top"
    goal = atom("on", "cup_0", "office_bookshelf|top")
    res = planning.certify(planning.build("tray", goal), 60)
    assert res.status == "solved", res.message
    assert "navigate-to-item tray_0|top tray_0 living_room" in format_plan(res.plan)
