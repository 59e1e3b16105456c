"""The manipulation oracle's object-state changes: how `TracePlanner` makes a state atom
(`cooked`, `filled`, `covered` ...) true or false with the embedded world's transition
rules (`fdc.sim_bridge.world.transitions`), through the agent action `change`.

- `is-powered-on` / `-off`: a held item is toggled in the hand, furniture from one of its
  surfaces;
- `cooked`, `hot`: the item is put on (or in) a heat source, the source toggled on, the
  item cooked (heated) there;
- `frozen`: the item is put in a freezer (a fridge) and frozen there; not `frozen`
  (thawed): heated on a heat source, as `hot`; not `hot` (cooled): frozen;
- `filled`, `contains`, `saturated` with water: the item, held, is filled (soaked) at a
  water source; with another substance (`filled`, `contains`, `covered`): an item that
  contains it (is filled with it, or is a source of it: `insource`) is held and poured
  (spread) on the item or furniture;
- not `covered`: a held item is washed at a water source, else wiped with a cleaning tool;
  furniture is wiped with a cleaning tool;
- `folded`, `unfolded`: the item is held and folded (unfolded);
- `attached`: the item is held and attached to the other by it; not `attached`: detached
  where it stands (not picked up: a bicycle on the floor stays there).

See docs/agents.md.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.oracle.errors import Unsolvable
from fdc.predicates.goal import GAtom, to_pddl
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world import transitions as T

if TYPE_CHECKING:
    from collections.abc import Callable

    from fdc.agents.oracle.trace import TracePlanner

#: The state predicates the oracle changes.
STATE_PREDICATES = frozenset({
    "is-powered-on", "is-powered-off", "cooked", "hot", "frozen", "filled", "contains",
    "saturated", "covered", "folded", "unfolded", "attached",
})


class StateMaker:
    """Makes state atoms true or false for a `TracePlanner`."""

    def __init__(self, planner: TracePlanner) -> None:
        self.p = planner
        self.env = planner.env

    # ----- the world -------------------------------------------------------------------
    def kind(self, x: str) -> Kind:
        return self.env.graph.object(x).kind

    def find(self, test: Callable[[T.Thing], bool], kinds: tuple[Kind, ...]) -> list[str]:
        """The objects of the scene that pass `test` (a heat source ...), sorted."""
        return sorted(o.id for o in self.env.graph.objects() if o.kind in kinds and test(o))

    def of_category(self, category: str) -> list[str]:
        """The items of the category (any spelling), sorted."""
        return self.find(lambda t: T.word(t.category) == T.word(category), (Kind.MOVABLE,))

    def holds(self, a: GAtom) -> bool:
        return self.p.holds_now(a)

    def change(self, rule: str, target: str, other: str | None = None) -> None:
        self.env.step(AgentAction(action=ActionName.CHANGE, target=target, rule=rule,
                                  other=other))
        last = self.env.records[-1]
        if not last.ok:
            raise Unsolvable(f"{rule} {target}: {last.reason}")

    def hold(self, item: str) -> None:
        """`item` in the hand (what the hand holds first put away)."""
        held = self.env.world.held_object()
        if held == item:
            return
        if held is not None:
            self.p.move_away(held, [])
        self.p.fetch(item)

    def go_to(self, what: str) -> None:
        """Walk within reach of an object: furniture at one of its surfaces (its first
        open one), an item at what it stands on (or beside it on the floor)."""
        if self.env.reachable(what):
            return
        if self.kind(what) is Kind.MOVABLE:
            self.p.act(ActionName.GO_TO, what)
            return
        posed = self.env.world.state.posed
        surfaces = posed.surfaces(what)
        if not surfaces:
            raise Unsolvable(f"`{what}` has no surface to walk to")
        s = next((x for x in surfaces if x.container is None or x.is_open), surfaces[0])
        self.p.act(ActionName.GO_TO, s.id)

    def set_down_on(self, item: str, place: str) -> None:
        """Put `item` on a surface of `place` (inside it when it has no top)."""
        posed = self.env.world.state.posed
        tops = [s for s in posed.surfaces(place) if s.container is None]
        relation = "on-top-of" if tops else "inside-of"
        a = GAtom(predicate=relation, args=(item, place))
        if not self.holds(a):
            self.p.make_true(a)

    def resting_on(self, item: str, test: Callable[[T.Thing], bool]) -> str | None:
        posed = self.env.world.state.posed
        s = posed.parent_surface(item)
        return s.object_id if s is not None and test(self.env.graph.object(s.object_id)) \
            else None

    # ----- the atoms -------------------------------------------------------------------
    def make(self, a: GAtom, positive: bool) -> None:
        """Make `a` hold (`positive`) or not, then put down what the hand holds (a tool,
        the item filled or folded) where a surface takes it, so that the next move has a
        free hand."""
        self._make(a, positive)
        self.while_held(a, positive)
        held = self.env.world.held_object()
        if held is not None:
            with contextlib.suppress(Unsolvable):  # no surface takes it: the hand keeps it
                self.p.move_away(held, [])

    def needs_making(self, a: GAtom) -> bool:
        """Whether making `a` true needs its substance made first: a `covered`, `filled`
        or `contains` atom whose substance (not water) no item gives now (a recipe's
        product, `cooked-salt`): a disjunction's parts tied otherwise take the other."""
        return a.predicate in ("covered", "filled", "contains") and len(a.args) > 1 and \
            T.word(a.args[1]) != T.WATER and not self.givers(a.args[1], a.args[0])

    def while_held(self, a: GAtom, positive: bool) -> None:
        """The step's other literals the item in the hand serves as it served `a` (the
        same predicate and other arguments: a substance spread or poured from it, a
        cleaning tool wiping it off) made now, before it is put down: one fetch of the
        source for every item the goal covers with its substance."""
        held = self.env.world.held_object()
        if held is None or held == a.args[0]:
            return  # the item itself in the hand (filled at a sink, folded ...)
        for lit in self.p.sought:
            b = lit.atom
            if lit.positive != positive or b.predicate != a.predicate or \
                    b.args[1:] != a.args[1:] or b.args[0] in (held, a.args[0]) or \
                    self.holds(b) == positive:
                continue
            if self.env.world.held_object() != held:
                return
            self._make(b, positive)

    def _make(self, a: GAtom, positive: bool) -> None:
        p, args = a.predicate, a.args
        if p == "is-powered-off":
            p, positive = "is-powered-on", not positive
        if p == "unfolded":
            p, positive = "folded", not positive
        x = args[0]
        if p == "is-powered-on":
            self.toggle(x, positive)
        elif p in ("cooked", "hot") and positive:
            self.on_heat(x, "cook" if p == "cooked" else "heat")
        elif p == "frozen" and positive:
            self.freeze(x)
        elif p == "frozen":  # thawed: heated on a heat source (the world's `heat`)
            self.on_heat(x, "heat")
        elif p == "hot":  # cooled: put in a freezer (the world's `freeze`)
            self.freeze(x)
        elif p in ("filled", "contains", "saturated") and positive:
            self.fill(x, args[1], p)
        elif p in ("filled", "contains"):
            self.empty(x, args[1])
        elif p == "covered":
            if positive:
                self.pour(x, args[1], "spread")
            else:
                self.clean(x, args[1])
        elif p == "folded":
            self.hold(x)
            self.change("fold" if positive else "unfold", x)
        elif p == "attached":
            self.attach(x, args[1], positive)
        else:
            what = "" if positive else "not "
            raise Unsolvable(f"{what}{to_pddl(a)}: no state change makes it so")

    def toggle(self, x: str, on: bool) -> None:
        rule = "toggle-on" if on else "toggle-off"
        if self.kind(x) is Kind.MOVABLE:
            self.hold(x)
        else:
            self.go_to(x)
        self.change(rule, x)

    def set_down_at(self, x: str, test: Callable[[T.Thing], bool], missing: str) -> str:
        """The piece of furniture `x` rests on that passes `test` (a heat source, a
        freezer), else the first such piece of the scene, `x` put down on it there;
        none in the scene: `Unsolvable` saying `missing`."""
        source = self.resting_on(x, test)
        if source is None:
            sources = self.find(test, (Kind.FURNITURE, Kind.ARTICULATED))
            if not sources:
                raise Unsolvable(missing)
            source = sources[0]
            self.set_down_on(x, source)
        return source

    def on_heat(self, x: str, rule: str) -> None:
        source = self.set_down_at(x, T.is_heat_source,
                                  f"no heat source in the scene to {rule} `{x}` on")
        self.go_to(source)
        if not self.holds(GAtom(predicate="is-powered-on", args=(source,))):
            self.change("toggle-on", source)
        self.change(rule, x)

    def freeze(self, x: str) -> None:
        self.set_down_at(x, T.is_freezer, f"no freezer in the scene to freeze `{x}` in")
        self.go_to(x)
        self.change("freeze", x)

    def water(self) -> str:
        sources = self.find(T.is_water_source, (Kind.FURNITURE, Kind.ARTICULATED))
        if not sources:
            raise Unsolvable("no water source (a sink) in the scene")
        return sources[0]

    def empty(self, x: str, substance: str) -> None:
        """Empty item `x` of the substance: poured down a sink (the world's `empty`), else
        into another item with an inside (`empty-into`): one that holds the substance
        already (an ashcan the goal puts the pills in), else the first, by id."""
        self.hold(x)
        if self.find(T.is_water_source, (Kind.FURNITURE, Kind.ARTICULATED)):
            self.go_to(self.water())
            self.change("empty", x, substance)
            return
        into = self.with_inside(x)
        if not into:
            raise Unsolvable(f"no sink and no item with an inside to empty `{x}` into")
        target = self.holding_any(into, [substance]) or into[0]
        self.go_to(target)
        self.change("empty-into", target, substance)

    def fill(self, x: str, substance: str, state: str) -> None:
        if T.word(substance) == T.WATER and self.kind(x) is Kind.MOVABLE:
            self.hold(x)
            self.go_to(self.water())
            self.change("soak" if state == "saturated" else "fill", x)
            return
        if state == "saturated":
            raise Unsolvable(f"`{x}` can be soaked with water only")
        if T.recipes_for(self.env.graph, substance) and not self.givers(substance, x):
            self.make_substance(x, substance, 0)
            return
        self.pour(x, substance, "pour")

    def make_substance(self, x: str, out: str, depth: int) -> None:
        """Make substance `out` in item `x` by a recipe of the scene (the world's `make`):
        its input substances into `x` first (filled at a sink, poured, or made, in
        turn), then, for a `mix` recipe, a mixing tool held by `x`; else `x` set down on
        a heat source, an item of each input category put inside it, the source toggled
        on; then `make`."""
        if depth > 4:
            raise Unsolvable(f"the recipes of {out} nest too deep")
        graph = self.env.graph
        tools = [t for t in self.find(T.is_mixing_tool, (Kind.MOVABLE,)) if t != x]
        recipes = [r for r in T.recipes_for(graph, out)
                   if all(self.of_category(c) for c in r.items)
                   and (r.kind != "mix" or tools)]
        if not recipes:
            raise Unsolvable(f"no recipe of the scene makes {out} from what it has")
        r = recipes[0]
        for s in r.substances:
            if not self.holds(GAtom(predicate="contains", args=(x, s))):
                if T.word(s) == T.WATER or not T.recipes_for(graph, s) or self.givers(s, x):
                    self.fill(x, s, "contains")
                else:
                    self.make_substance(x, s, depth + 1)
        held = self.env.world.held_object()
        if held is not None and (held != x or r.kind == "mix"):
            self.p.move_away(held, [])  # a source poured from, or `x` to stir it
        if r.kind == "mix":  # stirred with a mixing tool held, `x` within reach
            self.hold(tools[0])
            self.go_to(x)
            self.change("make", x, out)
            return
        source = self.set_down_at(x, T.is_heat_source,
                                  f"no heat source in the scene to make {out} on")
        for c in r.items:  # once `x` stands there (moving it takes off what it carries)
            if T.inside_item(graph, self.env.world.state.posed, c, x) is None:
                item = next(i for i in self.of_category(c) if i != x)
                self.p.make_true(GAtom(predicate="inside-of", args=(item, x)))
        self.go_to(source)
        if not self.holds(GAtom(predicate="is-powered-on", args=(source,))):
            self.change("toggle-on", source)
        self.change("make", x, out)

    def vessel(self, substance: str, but: str) -> str:
        """An item other than `but` to make the substance in: one with an inside (a pot,
        a bottle) and no source of a substance (a shaker), that already contains (or is
        filled with) an input of one of its recipes, else the first, by id."""
        graph = self.env.graph
        inputs = sorted({s for r in T.recipes_for(graph, substance) for s in r.substances})
        items = [o for o in self.with_inside(but)
                 if not any(w.startswith("insource:") for w in T.scene_states(graph, o))]
        if not items:
            raise Unsolvable(f"no item with an inside to make {substance} in")
        return self.holding_any(items, inputs) or items[0]

    def with_inside(self, but: str) -> list[str]:
        """The items other than `but` that have an inside (a pot, a bottle, an ashcan)."""
        posed = self.env.world.state.posed
        return [o for o in self.find(lambda t: True, (Kind.MOVABLE,)) if o != but and
                any(s.container is not None for s in posed.surfaces(o))]

    def holding_any(self, items: list[str], substances: list[str]) -> str | None:
        """The first of `items` that contains (or is filled with) one of `substances`."""
        return next((o for o in items for s in substances for p in ("contains", "filled")
                     if self.holds(GAtom(predicate=p, args=(o, s)))), None)

    def givers(self, substance: str, but: str) -> list[str]:
        """The items other than `but` that contain the substance, are filled with it or
        are a source of it now."""
        return [o.id for o in sorted(self.env.graph.objects(), key=lambda o: o.id)
                if o.kind is Kind.MOVABLE and o.id != but and any(
                    self.holds(GAtom(predicate=p, args=(o.id, substance))) for p in T.GIVING)]

    def source_of(self, substance: str, but: str) -> str:
        """An item that contains the substance, is filled with it or is a source of it
        (`insource`) now."""
        givers = self.givers(substance, but)
        if givers:
            return givers[0]
        raise Unsolvable(f"no item contains {substance} to pour or spread")

    def pour(self, x: str, substance: str, rule: str) -> None:
        """Pour (spread) the substance on `x` from an item that gives it; when none does
        and a recipe of the scene makes it, made first in a vessel (`vessel`)."""
        if not self.givers(substance, x) and T.recipes_for(self.env.graph, substance):
            src = self.vessel(substance, x)
            self.make_substance(src, substance, 0)
        else:  # the item in the hand when it gives the substance (`while_held`)
            held = self.env.world.held_object()
            src = held if held in self.givers(substance, x) else self.source_of(substance, x)
        self.hold(src)
        self.go_to(x)
        self.change(rule, x, substance)

    def clean(self, x: str, substance: str) -> None:
        movable = self.kind(x) is Kind.MOVABLE
        sinks = self.find(T.is_water_source, (Kind.FURNITURE, Kind.ARTICULATED))
        if movable and sinks:
            self.hold(x)
            self.go_to(sinks[0])
            self.change("wash", x, substance)
            return
        tools = [t for t in self.find(T.is_cleaning_tool, (Kind.MOVABLE,)) if t != x]
        if not tools:
            raise Unsolvable(f"no cleaning tool (a rag, a sponge) and no water source to "
                             f"clean `{x}`")
        self.hold(tools[0])
        self.go_to(x)
        self.change("wipe", x, substance)

    def attach(self, x: str, other: str, on: bool) -> None:
        """Attach the held item to `other` there; detach it where it stands (within
        reach, as the world's `detach` and the abstraction's: not picked up, so that a
        bicycle taken off its rack stays on the floor)."""
        if on:
            self.hold(x)
            self.go_to(other)
        elif self.env.world.held_object() != x:
            self.go_to(x)
        self.change("attach" if on else "detach", x, other)


__all__ = ["STATE_PREDICATES", "StateMaker"]
