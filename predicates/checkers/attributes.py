"""Static facts of the scene: categories (with the type hierarchy), attribute values,
which surface belongs to which furniture, which furniture is in which room, which item
can stand on which surface at all.

Names are compared in PDDL's spelling: lower case, `-` for `_` (`coffee_table` in a scene
is `coffee-table` in a template). Attribute values may list several (`red, white`).
See docs/predicates.md.
"""

from __future__ import annotations

import re
from typing import Annotated

from fdc.predicates.registry import (
    Color,
    Context,
    EvaluationError,
    Furniture,
    ItemTop,
    Material,
    Movable,
    PddlType,
    Room,
    Shape,
    Surface,
    Value,
    static,
    type_ancestors,
)
from fdc.sim_bridge.graph.feasible import SLACK_M, rest_on

Category = Annotated[str, PddlType("category")]

_SPLIT = re.compile(r"\s*(?:,|/|\||\band\b)\s*")


def pddl_word(text: str) -> str:
    return text.strip().lower().replace("_", "-").replace(" ", "-")


@static
def is_category(ctx: Context, o: Movable, c: Value) -> bool:
    """The item's category is `c` or lies under `c` in the domain's type hierarchy
    (`ctx.type_parents`: a mug is tableware)."""
    cat = pddl_word(ctx.graph.object(o).category)
    return pddl_word(c) in type_ancestors(cat, ctx.type_parents)


def attribute_values(raw: str) -> list[str]:
    """The values an attribute lists, as written: "red, white" -> ["red", "white"]."""
    return [v.strip() for v in _SPLIT.split(raw) if v.strip()]


def _attribute(ctx: Context, o: Movable, key: str) -> set[str]:
    raw = ctx.graph.object(o).attributes.get(key)
    if raw is None:
        return set()
    return {pddl_word(v) for v in attribute_values(raw)}


@static
def category_of(ctx: Context, o: Movable, c: Category) -> bool:
    """The item's own category is `c`: the scene's word, without the type hierarchy
    (`is-category` also holds for the ancestors: a mug is tableware, but its category is
    mug). Two items share a category when one `c` is the category of both."""
    return pddl_word(ctx.graph.object(o).category) == pddl_word(c)


@static
def has_color(ctx: Context, o: Movable, c: Color) -> bool:
    """The item's `color` attribute is (or lists) `c`."""
    return pddl_word(c) in _attribute(ctx, o, "color")


@static
def has_material(ctx: Context, o: Movable, m: Material) -> bool:
    """The item's `material` attribute is (or lists) `m`. The domain spells glass
    `glass-material` (`glass` is a type); the suffix is dropped before comparing."""
    want = pddl_word(m).removesuffix("-material")
    return want in {v.removesuffix("-material") for v in _attribute(ctx, o, "material")}


@static
def has_shape(ctx: Context, o: Movable, s: Shape) -> bool:
    """The item's `shape` attribute is (or lists) `s`."""
    return pddl_word(s) in _attribute(ctx, o, "shape")


@static
def surface_of(ctx: Context, s: Surface, f: Furniture) -> bool:
    """The surface belongs to the furniture (its top, a shelf, a container floor)."""
    return ctx.graph.surface(s).object_id == f


@static
def top_of(ctx: Context, t: ItemTop, o: Movable) -> bool:
    """The surface is the item's top, where items stand on it (a tray's, a book's); a
    container item's floor (`box|inside`) is not: items there are `inside` the item."""
    s = ctx.graph.surface(t)
    return s.object_id == o and s.container is None


@static
def low_top(ctx: Context, t: ItemTop, *, on_top_m: float = 0.15) -> bool:
    """The item's top is at most `on_top_m` above the item's bottom (a tray, a plate, a
    book; not a lamp): an item put on it is `on` what the item stands on too, as the
    `on` checker judges it with the same threshold (a cup on a tray on a table is on
    the table; give or take `SLACK_M`, as the `on` checker: a box exactly 15 cm tall)."""
    s = ctx.graph.surface(t)
    return s.z - ctx.graph.object(s.object_id).bottom_z <= on_top_m + SLACK_M


@static
def initially_on(ctx: Context, o: Movable, s: Surface) -> bool:
    """The item stands on the surface in the scene as given: the surface is its parent in
    the scene graph's support tree (a cup on a tray on a table stands on the tray's top;
    the tray stands on the table)."""
    ctx.graph.surface(s)  # an unknown surface is an error, not False
    parent = ctx.graph.parent_surface(o)
    return parent is not None and parent.id == s


@static
def fits(ctx: Context, o: Movable, s: Surface, *, on_top_m: float = 0.15,
         on_below_m: float = 0.02) -> bool:
    """The item can stand on the surface in the embedded world, the surface empty: no
    taller than the room above it, its footprint (turned 0 or 90 degrees) within the
    surface's outline (`sim_bridge/graph/feasible.py`'s `rest_on`, which says so when it
    cannot tell), and not the surface of the item itself."""
    if ctx.graph.surface(s).object_id == o:
        return False
    return rest_on(ctx.graph, o, s, on_top_m=on_top_m, on_below_m=on_below_m) is None


@static
def furniture_in_room(ctx: Context, f: Furniture, r: Room) -> bool:
    """The furniture stands in the room (the scene graph's room of its footprint)."""
    if not ctx.graph.has(r):
        raise EvaluationError(f"unknown room `{r}`")
    return ctx.graph.object(f).room == r
