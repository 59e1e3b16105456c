"""Fluent object states: clean or dirty, filled or empty, powered on or off (PARTNR's).

A world state that tracks them implements `ObjectStates` (a live Habitat state reads
the simulator's object-state machine); any other state falls back to what the scene
says: an object's `state` attribute lists the states that hold at the start
(`"clean, powered-on"`), and a state it does not list does not hold, so an object is
dirty, empty and off by default, as in PARTNR.
See docs/predicates.md.
"""

from __future__ import annotations

from typing import Annotated, Protocol, runtime_checkable

from fdc.predicates.checkers.attributes import attribute_values, pddl_word
from fdc.predicates.registry import Context, EvaluationError, PddlType, fluent

#: Objects that can have a state: movable items and furniture (a lamp, a TV).
Thing = Annotated[str, PddlType("furniture", "movable")]

#: The states a world can track, by PARTNR's names; `is-dirty`, `is-empty` and
#: `is-powered-off` are their negations.
STATES = ("is_clean", "is_filled", "is_powered_on")
#: The word an object's `state` attribute uses for each.
_WORDS = {"is_clean": "clean", "is_filled": "filled", "is_powered_on": "powered-on"}


@runtime_checkable
class ObjectStates(Protocol):
    """A world state that tracks object states."""

    def object_state(self, object_id: str, name: str) -> bool | None:
        """Whether state `name` (one of `STATES`) holds for the object now; None when
        the world does not track it for that object."""
        ...


def has_state(ctx: Context, o: str, name: str, word: str | None = None) -> bool:
    """State `name` of object `o` now: the world state's when it tracks it, else whether
    the scene's `state` attribute lists it (as `word`, by default `name`)."""
    state = ctx.require_state()
    if isinstance(state, ObjectStates):
        now = state.object_state(o, name)
        if now is not None:
            return bool(now)
    if not ctx.graph.has(o):
        raise EvaluationError(f"unknown object `{o}`")
    listed = ctx.graph.object(o).attributes.get("state", "")
    return (word or name) in {pddl_word(v) for v in attribute_values(listed)}


def object_state(ctx: Context, o: str, name: str) -> bool:
    """State `name` (one of `STATES`) of object `o` now (absent from the scene: false)."""
    return has_state(ctx, o, name, _WORDS[name])


@fluent
def is_clean(ctx: Context, o: Thing) -> bool:
    """The object is clean."""
    return object_state(ctx, o, "is_clean")


@fluent
def is_dirty(ctx: Context, o: Thing) -> bool:
    """The object is not clean (the default)."""
    return not object_state(ctx, o, "is_clean")


@fluent
def is_filled(ctx: Context, o: Thing) -> bool:
    """The object is filled (a cup with water, a kettle)."""
    return object_state(ctx, o, "is_filled")


@fluent
def is_empty(ctx: Context, o: Thing) -> bool:
    """The object is not filled (the default)."""
    return not object_state(ctx, o, "is_filled")


@fluent
def is_powered_on(ctx: Context, o: Thing) -> bool:
    """The object is powered on (a lamp, a TV)."""
    return object_state(ctx, o, "is_powered_on")


@fluent
def is_powered_off(ctx: Context, o: Thing) -> bool:
    """The object is not powered on (the default)."""
    return not object_state(ctx, o, "is_powered_on")


__all__ = ["STATES", "ObjectStates", "is_clean", "is_dirty", "is_empty", "is_filled",
           "is_powered_off", "is_powered_on", "object_state"]
