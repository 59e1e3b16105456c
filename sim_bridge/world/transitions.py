"""BEHAVIOR-like object-state transitions of the embedded world: simple rules, each one
an action that either changes some object states or is refused with a reason.

The states are those fdc's checkers read (`fdc.predicates.checkers.states` and
`object_states`): by name, `is_powered_on`, `cooked`, `hot`, `frozen`, `folded`, and with
a substance or another object `covered:dust`, `filled:water`, `contains:water`,
`saturated:water`, `attached:OTHER` (the word after the colon in PDDL spelling). A state
the world has not written is the scene's: the object's `state` attribute
(`"cooked, covered:dust"`, `powered-on` for `is_powered_on`).

The rules (`RULES`; `Setting` is what they read of the world, the embedded world gives
it; `apply` checks one and returns the states it writes):

| rule | needs | writes |
|---|---|---|
| `toggle-on` / `toggle-off` X | X within reach (or held); X off / on | `is_powered_on` |
| `cook` X | X set down on or in a heat source that is on, in reach | `cooked`, `hot`, not frozen |
| `heat` X | as `cook` | `hot`, not `frozen` |
| `freeze` X | X set down on or in a freezer (a fridge), within reach | `frozen`, not `hot` |
| `fill` X | X held, a water source within reach | `filled:water`, `contains:water` |
| `soak` X | X held, a water source within reach | `saturated:water` |
| `wash` X S | X held and `covered:S`, a water source within reach | not `covered:S` |
| `empty` X S | X held, has S (not a source), a water source near | not `contains:S` `filled:S` |
| `empty-into` Y S | the held item has S (not a source), Y near | Y `contains:S` `filled:S` |
| `wipe` X S | a cleaning tool held, X `covered:S` within reach | not `covered:S` |
| `pour` X S | the held item has S (contains, filled, source); X near | `contains:S`, `filled:S` |
| `spread` X S | the held item has S (contains, filled, source); X near | `covered:S` |
| `make` X S | as `cook`, or (mix) a mixing tool held; X has the inputs | `contains:S` `filled:S` |
| `fold` / `unfold` X | X held, unfolded / folded | `folded` |
| `attach` X Y | X held, Y (not X) within reach | `attached:Y` |
| `detach` X Y | X attached to Y, within reach | not `attached:Y` |

A source of S (`insource:S`, BEHAVIOR's `insource`: a salt shaker, a sealant atomizer)
gives S without running out: pouring or spreading from it leaves it a source.

A recipe (`Scene.recipes`: cooked rice from rice and cooked water, melted butter from a
butter, lemonade) makes its output in an item that contains each input substance and
has an item of each input category inside it (on the floor of its inside), by heat or,
for `mix` recipes, stirred with a mixing tool held; the inputs stay.

"Set down on or in": the item's surface, or the surface under the item it rests on, at
any depth, belongs to the heat source (a pan on a stove). The categories of heat
sources, freezers, water sources and cleaning tools are below (`is_heat_source` ...),
or an object's `abilities` attribute names them (a generated BEHAVIOR house writes
BEHAVIOR's: a swab, an iron are `particleRemover`s, cleaning tools): the planning
domain's static predicates (`is-heat-source` ...) read the same functions.
See docs/world.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.scene.schema import RecipeSpec
    from fdc.sim_bridge.world.posed import PosedGraph

#: Categories (PDDL spelling) of heat sources: cooking and heating happen on or in them
#: while they are on.
HEAT_SOURCES = frozenset({
    "stove", "oven", "microwave", "toaster", "toaster-oven", "griddle", "grill",
    "barbecue", "hot-plate", "burner", "range", "fireplace", "crock-pot", "slow-cooker",
    "electric-cooktop", "cooktop", "deep-fryer", "air-fryer", "frying-pan-n01",
})
#: Categories of freezers: freezing happens on or in them.
FREEZERS = frozenset({"fridge", "electric-refrigerator", "refrigerator", "freezer",
                      "icebox", "deep-freeze"})
#: Categories of water sources (a sink's tap): filling and soaking happen beside them.
WATER_SOURCES = frozenset({"sink", "sink-cabinet", "faucet", "tap", "bathtub", "tub",
                           "shower", "washbasin", "wash-basin"})
#: Categories of cleaning tools: wiping with one held removes what covers an object.
CLEANING_TOOLS = frozenset({
    "rag", "dishtowel", "dish-towel", "towel", "paper-towel", "sponge", "scrub-brush",
    "brush", "toothbrush", "scraper", "broom", "dustpan", "vacuum", "mop", "dust-mop",
    "duster", "cloth", "washcloth", "hand-towel", "wiper", "squeegee", "steel-wool",
    "scouring-pad", "dishrag", "bath-towel", "detergent", "cleansing-agent",
})

#: Categories of mixing tools: stirring with one held mixes what an item contains.
MIXING_TOOLS = frozenset({"spoon", "wooden-spoon", "tablespoon", "teaspoon", "soupspoon",
                          "whisk", "stirrer", "mixing-stick", "spatula"})

#: The substance water gives: filled, soaked with.
WATER = "water"
#: The states of a held item with a substance from which it pours or spreads it: it
#: contains it, is filled with it, or is a source of it (`insource`: never runs out).
GIVING = ("contains", "filled", "insource")


def word(text: str) -> str:
    """A name in PDDL spelling (`Sink_Cabinet` -> `sink-cabinet`), as the checkers compare."""
    return text.strip().lower().replace("_", "-").replace(" ", "-")


#: The scene attribute that lists an object's abilities beyond its category's (a
#: generated BEHAVIOR house writes BEHAVIOR's: `"cleaning-tool, heat-source"` for an iron,
#: a `particleRemover` and `heatSource`), and the words it uses.
ABILITIES = "abilities"
HEAT_SOURCE, FREEZER, WATER_SOURCE, CLEANING_TOOL, MIXING_TOOL = (
    "heat-source", "freezer", "water-source", "cleaning-tool", "mixing-tool")


class Thing(Protocol):
    """What the tests below read of an object: its category and attributes."""

    @property
    def category(self) -> str: ...

    @property
    def attributes(self) -> Mapping[str, str]: ...


def abilities(thing: Thing) -> frozenset[str]:
    """The abilities the object's `abilities` attribute lists (PDDL spelling)."""
    raw = thing.attributes.get(ABILITIES, "")
    return frozenset(word(v) for v in raw.replace("|", ",").split(",") if v.strip())


def _is(categories: frozenset[str], ability: str) -> Callable[[Thing], bool]:
    def test(thing: Thing) -> bool:
        w = word(thing.category)
        return w in categories or any(w.endswith("-" + c) for c in categories) or \
            ability in abilities(thing)
    return test


#: Whether an object is a heat source (a freezer, a water source, a cleaning tool): its
#: category is one of those above (or ends with `-` and one), or its `abilities` say so.
is_heat_source = _is(HEAT_SOURCES, HEAT_SOURCE)
is_freezer = _is(FREEZERS, FREEZER)
is_water_source = _is(WATER_SOURCES, WATER_SOURCE)
is_cleaning_tool = _is(CLEANING_TOOLS, CLEANING_TOOL)
is_mixing_tool = _is(MIXING_TOOLS, MIXING_TOOL)

#: The scene's `state` words that name a world state otherwise (PARTNR's states).
_SCENE_WORDS = {"is_powered_on": "powered-on", "is_clean": "clean", "is_filled": "filled"}


def state_key(state: str, other: str | None = None) -> str:
    """The name of a state as the checkers read it: `cooked`, `covered:dust`."""
    return state if other is None else f"{state}:{word(other)}"


def scene_states(graph: SceneGraph, object_id: str) -> frozenset[str]:
    """The state words the scene lists for an object (its `state` attribute)."""
    raw = graph.object(object_id).attributes.get("state", "") if graph.has(object_id) else ""
    return frozenset(word(v) for v in raw.replace("|", ",").replace("/", ",").split(",")
                     if v.strip())


@dataclass(frozen=True)
class Setting:
    """What a rule reads of the world now: the scene, the posed graph, the held item, the
    states written so far, and whether the robot can reach a thing (`reach`: "" when it
    can, else why not)."""

    graph: SceneGraph
    posed: PosedGraph
    held: str | None
    states: Mapping[str, Mapping[str, bool]]
    reach: Callable[[str], str]

    def holds(self, object_id: str, name: str) -> bool:
        """State `name` of the object now (written, else the scene's)."""
        now = self.states.get(object_id, {}).get(name)
        if now is not None:
            return now
        return _SCENE_WORDS.get(name, name) in scene_states(self.graph, object_id)

    def category(self, object_id: str) -> str:
        return word(self.graph.object(object_id).category)

    def thing(self, object_id: str) -> Thing:
        return self.graph.object(object_id)

    def within_reach(self, object_id: str) -> str:
        """"" when the robot holds the object or can reach it, else why not."""
        if self.held == object_id:
            return ""
        if not self.graph.has(object_id):
            return f"there is no `{object_id}` in the scene"
        return self.reach(object_id)

    def resting_on(self, item: str, test: Callable[[Thing], bool]) -> str | None:
        """The object the item rests on or in, at any depth (a pan on a stove), that
        passes `test`; None: none does. Guarded against cycles."""
        seen: set[str] = set()
        cur: str | None = item
        while cur is not None and cur not in seen:
            seen.add(cur)
            s = self.posed.parent_surface(cur)
            if s is None:
                return None
            if test(self.thing(s.object_id)):
                return s.object_id
            cur = s.object_id
        return None

    def sources_in_reach(self, test: Callable[[Thing], bool]) -> list[str]:
        """The objects that pass `test` within the robot's reach."""
        return [o.id for o in self.graph.objects() if test(o) and not self.reach(o.id)]


@dataclass(frozen=True)
class Outcome:
    """What a rule did: the states it writes (object -> name -> value), or why it was
    refused (`reason`, nothing written)."""

    reason: str = ""
    writes: Mapping[str, Mapping[str, bool]] | None = None

    @property
    def ok(self) -> bool:
        return not self.reason


def _refuse(reason: str) -> Outcome:
    return Outcome(reason=reason)


def _write(obj: str, **values: bool) -> Outcome:
    return Outcome(writes={obj: values})


def _toggle(on: bool) -> Callable[[Setting, str, str | None], Outcome]:
    def rule(w: Setting, x: str, _other: str | None) -> Outcome:
        far = w.within_reach(x)
        if far:
            return _refuse(far)
        if w.holds(x, "is_powered_on") == on:
            return _refuse(f"`{x}` is already {'on' if on else 'off'}")
        return _write(x, is_powered_on=on)
    return rule


def _heated(w: Setting, x: str) -> str:
    """"" when `x` is set down on or in a heat source that is on, within reach; else why
    not (`cook`, `heat` and a heat recipe's `make` need it)."""
    if w.held == x:
        return f"`{x}` is in the hand: set it down on or in a heat source first"
    source = w.resting_on(x, is_heat_source)
    if source is None:
        return f"`{x}` is not on or in a heat source (a stove, an oven, a microwave)"
    if not w.holds(source, "is_powered_on"):
        return f"the heat source `{source}` is off: toggle it on first"
    return w.within_reach(x)


def _on_heat(effect: dict[str, bool]) -> Callable[[Setting, str, str | None], Outcome]:
    def rule(w: Setting, x: str, _other: str | None) -> Outcome:
        why = _heated(w, x)
        return _refuse(why) if why else _write(x, **effect)
    return rule


def _freeze(w: Setting, x: str, _other: str | None) -> Outcome:
    if w.held == x:
        return _refuse(f"`{x}` is in the hand: put it in a freezer first")
    if w.resting_on(x, is_freezer) is None:
        return _refuse(f"`{x}` is not in a freezer (a fridge)")
    far = w.within_reach(x)
    if far:
        return _refuse(far)
    return _write(x, frozen=True, hot=False)


def _at_water(w: Setting, x: str) -> str:
    if w.held != x:
        return f"`{x}` is not in the hand: pick it first"
    if not w.sources_in_reach(is_water_source):
        return "no water source (a sink) is within reach"
    return ""


def _fill(w: Setting, x: str, _other: str | None) -> Outcome:
    why = _at_water(w, x)
    if why:
        return _refuse(why)
    return _write(x, **{state_key("filled", WATER): True, state_key("contains", WATER): True})


def _soak(w: Setting, x: str, _other: str | None) -> Outcome:
    why = _at_water(w, x)
    return _refuse(why) if why else _write(x, **{state_key("saturated", WATER): True})


def _wash(w: Setting, x: str, substance: str | None) -> Outcome:
    if substance is None:
        return _refuse("wash what off? name the substance")
    why = _at_water(w, x)
    if why:
        return _refuse(why)
    key = state_key("covered", substance)
    if not w.holds(x, key):
        return _refuse(f"`{x}` is not covered with {word(substance)}")
    return _write(x, **{key: False})


#: What an emptied item no longer holds, and what the item it is emptied into holds.
EMPTIED = ("contains", "filled")


def _emptied(w: Setting, x: str, substance: str) -> str:
    """"" when item `x` holds the substance to empty out (it contains or is filled with
    it, and is no source of it, which never runs out); else why not."""
    if w.holds(x, state_key("insource", substance)):
        return f"`{x}` is a source of {word(substance)}: it never runs out"
    if not any(w.holds(x, state_key(s, substance)) for s in EMPTIED):
        return f"`{x}` holds no {word(substance)}"
    return ""


def _empty(w: Setting, x: str, substance: str | None) -> Outcome:
    if substance is None:
        return _refuse("empty what out? name the substance")
    why = _at_water(w, x) or _emptied(w, x, substance)
    if why:
        return _refuse(why)
    return _write(x, **{state_key(s, substance): False for s in EMPTIED})


def _empty_into(w: Setting, y: str, substance: str | None) -> Outcome:
    """`pour` into `y` that leaves the held item without the substance."""
    pour = _from_held(EMPTIED)
    if w.held is None or substance is None:
        return pour(w, y, substance)  # refused: nothing in the hand, no substance named
    why = _emptied(w, w.held, substance)
    poured = _refuse(why) if why else pour(w, y, substance)
    if not poured.ok:
        return poured
    return Outcome(writes={**(poured.writes or {}),
                           w.held: {state_key(s, substance): False for s in EMPTIED}})


def _wipe(w: Setting, x: str, substance: str | None) -> Outcome:
    if substance is None:
        return _refuse("wipe what off? name the substance")
    if w.held is None or not is_cleaning_tool(w.thing(w.held)):
        return _refuse("the hand holds no cleaning tool (a rag, a sponge, a brush)")
    if x == w.held:
        return _refuse(f"`{x}` cannot wipe itself")
    key = state_key("covered", substance)
    if not w.holds(x, key):
        return _refuse(f"`{x}` is not covered with {word(substance)}")
    far = w.within_reach(x)
    if far:
        return _refuse(far)
    return _write(x, **{key: False})


def _from_held(effect: tuple[str, ...]) -> Callable[[Setting, str, str | None], Outcome]:
    def rule(w: Setting, x: str, substance: str | None) -> Outcome:
        if substance is None:
            return _refuse("name the substance")
        if w.held is None:
            return _refuse("the hand is empty: pick a container of the substance first")
        if x == w.held:
            return _refuse(f"`{x}` is the item in the hand")
        if not any(w.holds(w.held, state_key(s, substance)) for s in GIVING):
            return _refuse(f"`{w.held}` contains no {word(substance)} and is no source of it")
        far = w.within_reach(x)
        if far:
            return _refuse(far)
        return _write(x, **{state_key(s, substance): True for s in effect})
    return rule


def recipes_for(graph: SceneGraph, output: str) -> list[RecipeSpec]:
    """The scene's recipes (`Scene.recipes`) that make the substance `output`."""
    return [r for r in graph.scene.recipes or () if word(r.output) == word(output)]


@dataclass(frozen=True)
class RecipeForm:
    """How the planning abstraction states a recipe: its static fact (`cooks-into`,
    `cooks-into-2`, `melts-into`, `mixes-into-2`, `mixes-into-3`), the action that makes
    it (`cook-substance`, `cook-substance-2`, `melt`, `mix-2`, `mix-3`), the input
    substances (PDDL spelling, distinct, in name order) and the input category of a
    `melt` (else None)."""

    static: str
    action: str
    substances: tuple[str, ...]
    item: str | None = None


def recipe_form(recipe: RecipeSpec) -> RecipeForm | None:
    """The abstraction's form of a recipe: by heat, one or two input substances or one
    input item; stirred, two or three substances. None: the abstraction has none (the
    world's `make` still follows it). The statics' checkers, their direct tables and the
    oracle's plan read this one answer."""
    subs = tuple(sorted(word(s) for s in recipe.substances))
    if len(set(subs)) != len(subs):
        return None
    if recipe.kind == "mix":
        if len(subs) in (2, 3) and not recipe.items:
            return RecipeForm(f"mixes-into-{len(subs)}", f"mix-{len(subs)}", subs)
        return None
    if not recipe.items and len(subs) == 1:
        return RecipeForm("cooks-into", "cook-substance", subs)
    if not recipe.items and len(subs) == 2:
        return RecipeForm("cooks-into-2", "cook-substance-2", subs)
    if len(recipe.items) == 1 and not subs:
        return RecipeForm("melts-into", "melt", (), word(recipe.items[0]))
    return None


def inside_item(graph: SceneGraph, posed: PosedGraph, category: str, item: str) -> str | None:
    """An object of the category (PDDL spelling) that rests directly inside the item (on
    the floor of its inside), the first by id; None: none does."""
    for o in sorted(graph.objects(), key=lambda o: o.id):
        if o.id == item or word(o.category) != word(category):
            continue
        s = posed.parent_surface(o.id)
        if s is not None and s.object_id == item and s.container is not None:
            return o.id
    return None


def missing_inputs(w: Setting, x: str, recipe: RecipeSpec) -> list[str]:
    """What item `x` lacks for the recipe: the input substances it does not contain, the
    input categories with no item inside it."""
    return [*(word(s) for s in recipe.substances if not w.holds(x, state_key("contains", s))),
            *(f"a {word(c)} inside it" for c in recipe.items
              if inside_item(w.graph, w.posed, c, x) is None)]


def _recipe_needs(w: Setting, x: str, recipe: RecipeSpec) -> str:
    """"" when the recipe can make its output in `x` now, else why not."""
    if recipe.kind == "mix":
        if w.held is None or not is_mixing_tool(w.thing(w.held)):
            return "the hand holds no mixing tool (a spoon, a whisk)"
        if w.held == x:
            return f"`{x}` cannot stir itself"
        far = w.within_reach(x)
    else:
        far = _heated(w, x)
    if far:
        return far
    lacking = missing_inputs(w, x, recipe)
    if lacking:
        return f"`{x}` lacks what {word(recipe.output)} is made from: {', '.join(lacking)}"
    return ""


def _make(w: Setting, x: str, output: str | None) -> Outcome:
    if output is None:
        return _refuse("make what? name the substance")
    recipes = recipes_for(w.graph, output)
    if not recipes:
        return _refuse(f"no recipe of the scene makes {word(output)}")
    why = [_recipe_needs(w, x, r) for r in recipes]
    if any(not y for y in why):
        return _write(x, **{state_key("contains", output): True,
                            state_key("filled", output): True})
    return _refuse(why[0])


def _fold(value: bool) -> Callable[[Setting, str, str | None], Outcome]:
    def rule(w: Setting, x: str, _other: str | None) -> Outcome:
        if w.held != x:
            return _refuse(f"`{x}` is not in the hand: pick it first")
        if w.holds(x, "folded") == value:
            return _refuse(f"`{x}` is already {'folded' if value else 'unfolded'}")
        return _write(x, folded=value)
    return rule


def _attach(w: Setting, x: str, other: str | None) -> Outcome:
    if other is None or not w.graph.has(other):
        return _refuse(f"attach `{x}` to what? there is no `{other}` in the scene")
    if other == x:
        return _refuse(f"`{x}` cannot be attached to itself")
    if w.held != x:
        return _refuse(f"`{x}` is not in the hand: pick it first")
    key = state_key("attached", other)
    if w.holds(x, key):
        return _refuse(f"`{x}` is already attached to `{other}`")
    far = w.within_reach(other)
    return _refuse(far) if far else _write(x, **{key: True})


def _detach(w: Setting, x: str, other: str | None) -> Outcome:
    if other is None:
        return _refuse(f"detach `{x}` from what?")
    key = state_key("attached", other)
    if not w.holds(x, key):
        return _refuse(f"`{x}` is not attached to `{other}`")
    far = w.within_reach(x)
    return _refuse(far) if far else _write(x, **{key: False})


#: The rules by name: each takes the setting, the object acted on and the other
#: argument (a substance, the object attached to; None for the others).
RULES: dict[str, Callable[[Setting, str, str | None], Outcome]] = {
    "toggle-on": _toggle(True),
    "toggle-off": _toggle(False),
    "cook": _on_heat({"cooked": True, "hot": True, "frozen": False}),
    "heat": _on_heat({"hot": True, "frozen": False}),
    "freeze": _freeze,
    "fill": _fill,
    "soak": _soak,
    "wash": _wash,
    "empty": _empty,
    "empty-into": _empty_into,
    "wipe": _wipe,
    "pour": _from_held(("contains", "filled")),
    "spread": _from_held(("covered",)),
    "make": _make,
    "fold": _fold(True),
    "unfold": _fold(False),
    "attach": _attach,
    "detach": _detach,
}


#: The planning actions of the state changes (`bddl-home`'s, `fdc.interop.bddl.domain`)
#: by name: the rule each one is, the positions of its arguments that are the object
#: acted on and the other argument (None: no other), and its arity. A plan's replay
#: (`fdc.sim_bridge.world.plans`) performs each as `EmbeddedWorld.change`.
PLAN_ACTIONS: dict[str, tuple[str, int, int | None, int]] = {
    "toggle-on": ("toggle-on", 0, None, 2),
    "toggle-on-item": ("toggle-on", 0, None, 1),
    "toggle-off": ("toggle-off", 0, None, 2),
    "toggle-off-item": ("toggle-off", 0, None, 1),
    "cook": ("cook", 0, None, 3),
    "heat": ("heat", 0, None, 3),
    "freeze": ("freeze", 0, None, 3),
    "fill": ("fill", 0, None, 3),
    "soak": ("soak", 0, None, 3),
    "wash": ("wash", 0, 1, 4),
    "empty": ("empty", 0, 1, 4),
    "empty-into": ("empty-into", 1, 2, 3),
    "wipe": ("wipe", 0, 2, 4),
    "wipe-item": ("wipe", 0, 2, 3),
    "pour": ("pour", 1, 2, 3),
    "spread": ("spread", 1, 2, 3),
    "spread-on-furniture": ("spread", 1, 2, 4),
    "pour-filled": ("pour", 1, 2, 3),
    "spread-filled": ("spread", 1, 2, 3),
    "pour-source": ("pour", 1, 2, 3),
    "spread-source": ("spread", 1, 2, 3),
    "spread-source-on-furniture": ("spread", 1, 2, 4),
    "cook-substance": ("make", 0, 2, 5),
    "cook-substance-2": ("make", 0, 3, 6),
    "melt": ("make", 0, 3, 6),
    "mix-2": ("make", 0, 4, 5),
    "mix-3": ("make", 0, 5, 6),
    "fold": ("fold", 0, None, 1),
    "unfold": ("unfold", 0, None, 1),
    "attach": ("attach", 0, 1, 2),
    "attach-to-furniture": ("attach", 0, 1, 3),
    "detach": ("detach", 0, 1, 2),
}


def apply(rule: str, setting: Setting, obj: str, other: str | None = None) -> Outcome:
    """Rule `rule` on `obj` (and `other`) in `setting`: the states it writes, or why not."""
    if rule not in RULES:
        return _refuse(f"no state change `{rule}` (one of {', '.join(sorted(RULES))})")
    if not setting.graph.has(obj):
        return _refuse(f"there is no `{obj}` in the scene")
    return RULES[rule](setting, obj, other)


__all__ = [
    "ABILITIES",
    "CLEANING_TOOL",
    "CLEANING_TOOLS",
    "FREEZER",
    "FREEZERS",
    "GIVING",
    "HEAT_SOURCE",
    "HEAT_SOURCES",
    "PLAN_ACTIONS",
    "RULES",
    "WATER",
    "WATER_SOURCE",
    "WATER_SOURCES",
    "Outcome",
    "Setting",
    "Thing",
    "abilities",
    "apply",
    "is_cleaning_tool",
    "is_freezer",
    "is_heat_source",
    "is_water_source",
    "scene_states",
    "state_key",
    "word",
]
