"""Fluent object states of BEHAVIOR's kind: cooked, frozen, hot, folded, broken, on fire,
and the states an object has with a substance (covered with dust, filled with water,
containing salt, saturated with water).

A world state that tracks them implements `ObjectStates` (`fdc.predicates.checkers.states`)
and answers by name: `cooked`, or `covered:dust` for a state with a substance. Any other
state falls back to what the scene says: the object's `state` attribute lists the states
that hold at the start (`"cooked, covered:dust"`), and a state it does not list does not
hold. A substance is a value (`substance`, a subtype of `value`, in a domain that uses
these): the word after the colon, in PDDL spelling.

See docs/predicates.md.
"""

from __future__ import annotations

from typing import Annotated

from fdc.predicates.checkers.attributes import pddl_word
from fdc.predicates.checkers.states import Thing, has_state
from fdc.predicates.registry import Context, ItemTop, Movable, PddlType, fluent, static
from fdc.sim_bridge.world import transitions

#: A substance (water, dust): a value.
Substance = Annotated[str, PddlType("value")]

#: The states of one object, by their names in a world state and a scene's `state`.
UNARY = ("cooked", "frozen", "hot", "folded", "broken", "on-fire")
#: The states an object has with a substance.
WITH_SUBSTANCE = ("covered", "filled", "contains", "saturated", "insource")
#: Relations between two objects, tracked as states of the first.
RELATIONS = ("attached",)
#: Every BEHAVIOR state a goal may ask an object to change (`unfolded` is not `folded`).
STATES = frozenset({*UNARY, "unfolded", *WITH_SUBSTANCE, *RELATIONS})
#: Static facts the state actions of `fdc import bddl`'s domain read.
STATICS = ("is-heat-source", "is-freezer", "is-water-source", "is-cleaning-tool", "floor-of",
           "cooks-into", "cooks-into-2", "melts-into", "is-mixing-tool", "mixes-into-2",
           "mixes-into-3")


def state_name(state: str, substance: str | None = None) -> str:
    """The name a world state and a scene's `state` attribute give a state:
    `cooked`, `covered:dust`."""
    return state if substance is None else f"{state}:{pddl_word(substance)}"


@fluent
def cooked(ctx: Context, o: Thing) -> bool:
    """The object is cooked."""
    return has_state(ctx, o, "cooked")


@fluent
def frozen(ctx: Context, o: Thing) -> bool:
    """The object is frozen."""
    return has_state(ctx, o, "frozen")


@fluent
def hot(ctx: Context, o: Thing) -> bool:
    """The object is hot."""
    return has_state(ctx, o, "hot")


@fluent
def folded(ctx: Context, o: Thing) -> bool:
    """The object (a cloth, a garment) is folded."""
    return has_state(ctx, o, "folded")


@fluent
def unfolded(ctx: Context, o: Thing) -> bool:
    """The object is not folded (the default)."""
    return not has_state(ctx, o, "folded")


@fluent
def broken(ctx: Context, o: Thing) -> bool:
    """The object is broken."""
    return has_state(ctx, o, "broken")


@fluent
def on_fire(ctx: Context, o: Thing) -> bool:
    """The object is on fire."""
    return has_state(ctx, o, "on-fire")


@fluent
def covered(ctx: Context, o: Thing, s: Substance) -> bool:
    """The object is covered with the substance (dust, stains, water)."""
    return has_state(ctx, o, state_name("covered", s))


@fluent
def filled(ctx: Context, o: Thing, s: Substance) -> bool:
    """The object (a container) is filled with the substance."""
    return has_state(ctx, o, state_name("filled", s))


@fluent
def contains(ctx: Context, o: Thing, s: Substance) -> bool:
    """The object (a container) holds some of the substance."""
    return has_state(ctx, o, state_name("contains", s))


@fluent
def saturated(ctx: Context, o: Thing, s: Substance) -> bool:
    """The object (a rag, a sponge) is soaked with the substance."""
    return has_state(ctx, o, state_name("saturated", s))


@fluent
def insource(ctx: Context, o: Thing, s: Substance) -> bool:
    """The object is a source of the substance that does not run out (a salt shaker of
    salt, a sink of water: BEHAVIOR's `insource`): pouring or spreading from it leaves it
    a source (`fdc.sim_bridge.world.transitions`)."""
    return has_state(ctx, o, state_name("insource", s))


@fluent
def attached(ctx: Context, o: Thing, x: Thing) -> bool:
    """The object is attached to the other (a camera to a tripod, a hook to a wall): a
    relation the world tracks as the state `attached:OTHER` of the object (the other's
    id, in PDDL spelling), or the scene's `state` attribute lists."""
    return has_state(ctx, o, state_name("attached", x))


# Static facts the planning abstraction's state actions read (the embedded world's rules
# in `fdc.sim_bridge.world.transitions` test the same categories).
@static
def is_heat_source(ctx: Context, o: Thing) -> bool:
    """The object cooks and heats what is on or in it while it is on (a stove, an oven, a
    microwave): its category is one of `transitions.HEAT_SOURCES`, or its `abilities`
    attribute says `heat-source` (`transitions.is_heat_source`)."""
    return transitions.is_heat_source(ctx.graph.object(o))


@static
def is_freezer(ctx: Context, o: Thing) -> bool:
    """The object freezes what is in it (a fridge, a freezer)."""
    return transitions.is_freezer(ctx.graph.object(o))


@static
def is_water_source(ctx: Context, o: Thing) -> bool:
    """The object gives water (a sink): filling, soaking and washing happen beside it."""
    return transitions.is_water_source(ctx.graph.object(o))


@static
def floor_of(ctx: Context, t: ItemTop, o: Movable) -> bool:
    """The surface is the floor of the item's inside (`box|inside`, a bowl's, a
    basket's): items there are inside the item, whatever the item's type."""
    s = ctx.graph.surface(t)
    return s.object_id == o and s.container is not None


@static
def is_cleaning_tool(ctx: Context, o: Thing) -> bool:
    """The object wipes dust and stains off (a rag, a sponge, a brush)."""
    return transitions.is_cleaning_tool(ctx.graph.object(o))


# The scene's recipes (`Scene.recipes`, a generated BEHAVIOR house's) in the planning
# abstraction's form (`transitions.recipe_form`): what the planning domain's
# `cook-substance`, `cook-substance-2`, `melt` and `mix-N` read (the world's `make` rule
# reads the same recipes).
def _made_by(ctx: Context, output: str, static: str, substances: tuple[str, ...],
             item: str | None = None) -> bool:
    """Whether a recipe of `output` has this form: the static, the input substances in
    name order, the input category (PDDL spelling)."""
    key = (static, substances, item)
    forms = map(transitions.recipe_form, transitions.recipes_for(ctx.graph, output))
    return any(f is not None and (f.static, f.substances, f.item) == key for f in forms)


@static
def cooks_into(ctx: Context, i: Substance, x: Substance) -> bool:
    """Heating an item that contains substance `i` makes it contain `x` too (a recipe of
    the scene with `i` its only input: cooked rice from rice)."""
    return _made_by(ctx, x, "cooks-into", (pddl_word(i),))


@static
def cooks_into_2(ctx: Context, i: Substance, j: Substance, x: Substance) -> bool:
    """Heating an item that contains substances `i` and `j` makes it contain `x` too (a
    recipe of the scene with these two inputs, in name order: cooked black beans from
    black beans and cooked water)."""
    return _made_by(ctx, x, "cooks-into-2", (pddl_word(i), pddl_word(j)))


@static
def melts_into(ctx: Context, o: Movable, x: Substance) -> bool:
    """Heating an item with the object inside it makes the item contain `x` (a recipe of
    the scene whose only input is the object's category: melted butter from a butter)."""
    return _made_by(ctx, x, "melts-into", (), pddl_word(ctx.graph.object(o).category))


@static
def is_mixing_tool(ctx: Context, o: Thing) -> bool:
    """The object stirs (a spoon, a whisk): its category is one of
    `transitions.MIXING_TOOLS`, or its `abilities` attribute says `mixing-tool`."""
    return transitions.is_mixing_tool(ctx.graph.object(o))


@static
def mixes_into_2(ctx: Context, i: Substance, j: Substance, x: Substance) -> bool:
    """Stirring an item that contains substances `i` and `j` with a mixing tool makes it
    contain `x` too (a `mix` recipe of the scene with these two inputs, in name order:
    coffee from instant coffee and water)."""
    return _made_by(ctx, x, "mixes-into-2", (pddl_word(i), pddl_word(j)))


@static
def mixes_into_3(ctx: Context, i: Substance, j: Substance, k: Substance, x: Substance
                 ) -> bool:
    """As `mixes-into-2`, three inputs in name order (lemonade from granulated sugar,
    lemon juice and water)."""
    return _made_by(ctx, x, "mixes-into-3", (pddl_word(i), pddl_word(j), pddl_word(k)))


__all__ = [
    "RELATIONS",
    "STATES",
    "STATICS",
    "UNARY",
    "WITH_SUBSTANCE",
    "attached",
    "broken",
    "contains",
    "cooked",
    "cooks_into",
    "cooks_into_2",
    "covered",
    "filled",
    "floor_of",
    "folded",
    "frozen",
    "has_state",
    "hot",
    "insource",
    "is_cleaning_tool",
    "is_freezer",
    "is_heat_source",
    "is_mixing_tool",
    "is_water_source",
    "melts_into",
    "mixes_into_2",
    "mixes_into_3",
    "on_fire",
    "saturated",
    "state_name",
    "unfolded",
]
