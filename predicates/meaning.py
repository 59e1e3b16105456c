"""What a predicate means beyond its truth, declared once on its checker.

The compiler's start checks, the planning abstraction, the oracle, scoring and the
Habitat exporter each need to know more of a goal predicate than whether it holds: which
argument an action moves to make it true, by which anchors, onto which surface, whether
it is judged in the words of the robot where it stands, which placement relation puts its
item down, whether it is about the robot. A checker says so with `@means(...)` (its
parameters named as in its signature); the registry keeps it on the `Checker`
(`Checker.meaning`) and answers the questions as sets of names (`Registry.relocating`,
`Registry.anchored`, ...). See docs/predicates.md ("What a predicate means") and
docs/architecture.md.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.placement import Relation

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute `means` sets on a checker function.
MEANS = "__fdc_means__"


class Robot(enum.Enum):
    """What a predicate about the robot is about."""

    PLACE = "place"  # where the robot is: a memory task answered by returning somewhere
    HAND = "hand"  # what the robot holds


@dataclass(frozen=True)
class Placement:
    """How putting the item down makes the predicate true.

    `relation`: the placement relation that puts it there (`fdc.sim_bridge.graph.placement
    .place`); `order`: an item the goal puts by several such predicates is placed by the
    one of lowest order (the most specific), the others checked on the result;
    `in_region`: it puts the item in a region of its surface (a cell, or by an anchor), as
    fdc-home's own `place-NAME` action does, and no plan can say whether it holds for an
    item standing on another item's top."""

    relation: Relation
    order: int
    in_region: bool = False


@dataclass(frozen=True)
class Meaning:
    """A predicate's meaning, its arguments by position (`means` takes their names).

    - `relocates`: the argument (the item) an action moves to make it true; None: no
      action of the agents makes it true by moving an item.
    - `onto`: the argument naming the one surface or receptacle it puts the item on
      (items bound for one surface are packed together there).
    - `anchors`: the arguments naming the items it puts the item by.
    - `any_surface`: any of many surfaces satisfies it (the oracle tries them in turn).
    - `viewer_relative`: it is judged in the words of the robot where it stands (the same
      spot is "left" of an anchor from a table's front and "right" from its rear).
    - `placement`: how putting the item down makes it true (`Placement`).
    - `robot`: what of the robot it is about (`Robot`); None: not about the robot."""

    relocates: int | None = None
    onto: int | None = None
    anchors: tuple[int, ...] = ()
    any_surface: bool = False
    viewer_relative: bool = False
    placement: Placement | None = None
    robot: Robot | None = None


@dataclass(frozen=True)
class _Declared:
    relocates: str | None
    onto: str | None
    anchors: tuple[str, ...]
    any_surface: bool
    viewer_relative: bool
    placement: Placement | None
    robot: Robot | None


def means(*, relocates: str | None = None, onto: str | None = None,
          anchors: Sequence[str] = (), any_surface: bool = False,
          viewer_relative: bool = False, placement: Placement | None = None,
          robot: Robot | None = None) -> Callable[[F], F]:
    """Declare what a checker's predicate means (`Meaning`), its arguments by parameter
    name; the registry checks the names against the signature when it registers it."""
    declared = _Declared(relocates, onto, tuple(anchors), any_surface, viewer_relative,
                         placement, robot)

    def mark(fn: F) -> F:
        setattr(fn, MEANS, declared)
        return fn
    return mark


def meaning_of(fn: Callable[..., Any], params: Sequence[str], where: str) -> Meaning:
    """The `Meaning` a checker function declares (`means`; none: the empty meaning),
    each argument named turned into its position among `params` (the checker's PDDL
    parameters). A name not among them, or a meaning about an item without the item it
    moves, is a `TypeError` naming the function (`where`)."""
    d = getattr(fn, MEANS, None)
    if d is None:
        return Meaning()
    if not isinstance(d, _Declared):
        raise TypeError(f"{where}: `{MEANS}` is set by `means` only")

    def position(name: str) -> int:
        if name not in params:
            raise TypeError(f"{where}: `means` names `{name}`, which is not one of its "
                            f"parameters ({', '.join(params) or 'none'})")
        return list(params).index(name)

    if d.relocates is None and (d.onto or d.anchors or d.any_surface or d.placement):
        raise TypeError(f"{where}: a predicate that puts an item somewhere names the item "
                        "it relocates (`means(relocates=...)`)")
    named = [n for n in (d.relocates, d.onto, *d.anchors) if n is not None]
    if len(set(named)) != len(named):
        raise TypeError(f"{where}: `means` names one parameter twice ({', '.join(named)})")
    return Meaning(
        relocates=None if d.relocates is None else position(d.relocates),
        onto=None if d.onto is None else position(d.onto),
        anchors=tuple(position(a) for a in d.anchors),
        any_surface=d.any_surface, viewer_relative=d.viewer_relative,
        placement=d.placement, robot=d.robot)
