"""The agent action vocabulary of manipulation tasks (ManiTaskGen's benchmark loop).

A trace is a list of `AgentAction`s. The agent environment (`agent_env`) takes them one
at a time; `fdc evaluate` replays a recorded trace in the embedded world. The names follow
ManiTaskGen: `go_to` a surface, `change_view` (the next standing side of that surface),
`pick` an object, `show_receptacle` (list the placement regions of a surface, or of the
surface an object stands on), `place` (anywhere on a surface, or in chosen regions of it),
`call_end`.

fdc adds `change`: an object-state change by one of the embedded world's transition
rules (`fdc.sim_bridge.world.transitions`: `toggle-on`, `cook`, `freeze`, `fill`, `wipe`,
`fold`, `attach` ...) on `target`, with `other` (a substance, the object attached to).

fdc adds `open` and `close`: its scenes have articulated furniture whose containers
(a cabinet's inside, a fridge compartment) start closed or must end closed, and
ManiTaskGen's scenes have none, so its action set has no way to change them.
See docs/agents.md.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class ActionName(StrEnum):
    GO_TO = "go_to"
    CHANGE_VIEW = "change_view"
    PICK = "pick"
    SHOW_RECEPTACLE = "show_receptacle"
    PLACE = "place"
    OPEN = "open"  # fdc's: not in ManiTaskGen's action set
    CLOSE = "close"  # fdc's: not in ManiTaskGen's action set
    CHANGE = "change"  # fdc's: an object-state change (cook, fill, wipe, fold, ...)
    CALL_END = "call_end"


class AgentAction(BaseModel):
    """One action of a manipulation trace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: ActionName
    target: str | None = Field(
        default=None,
        description="go_to / place: a surface id (place: also a room, on its floor by the "
        "robot, or an item on the floor, beside it); pick: an object id; show_receptacle: a "
        "surface or object id; open / close: a container (`kitchen_cabinet|inside`), the "
        "part that closes it (`fridge|lower_door`) or articulated furniture (`fridge`: all "
        "of its containers). None for change_view and call_end.",
    )
    regions: list[str] = Field(
        default_factory=list,
        description="place: the region labels chosen among those `show_receptacle` listed "
        "(empty: anywhere on the surface).",
    )
    rule: str | None = Field(
        default=None,
        description="change: the transition rule (`toggle-on`, `cook`, `fill`, `wipe`, ...).",
    )
    other: str | None = Field(
        default=None,
        description="change: the rule's other argument (a substance, the object attached "
        "to), if it takes one.",
    )
