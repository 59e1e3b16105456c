"""Why the oracle gives up on a task.

See docs/agents.md."""

from __future__ import annotations

from fdc.core.errors import FdcError


class Unsolvable(FdcError):
    """The oracle cannot achieve the task (the reason says why)."""


class Refused(Unsolvable):
    """The world refused one of the oracle's actions (a closed door, an item carrying
    others): no other choice of the oracle's would help."""
