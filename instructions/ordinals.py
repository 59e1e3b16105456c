"""Ordinal and viewer-relative words: which of several like things, by where it stands.

The describer's last resort. Furniture that nothing else tells apart from the furniture
of the same name in its room is named by its place left to right, as seen from the
room's doorway ("the left counter", "the leftmost cabinet", "the second cabinet from the
right"); surfaces of one piece of furniture whose names do not tell them apart, by their
height ("the top compartment", "the second shelf from the top"). A word is given only
when the order it counts along is clear: neighbours at least `Axis.gap_m` apart, from
the end it counts from up to the thing named.

The doorway: standing in the room's door nearest (along the floor) to where the robot
starts, facing the room's centre. A room without doors has no left and right.
See docs/instructions.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fdc.instructions.filters import ordinal_word

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


@dataclass(frozen=True)
class Axis:
    """How things ordered along one direction are named."""

    two: tuple[str, str]  # the low and the high one of two: ("left", "right")
    ends: tuple[str, str]  # the first and the last of three or more: ("leftmost", ...)
    sides: tuple[str, str]  # the ends one counts from: "from the left", "from the right"
    tie: int  # which end one counts from when the two are as near
    gap_m: float  # neighbours closer than this are not clearly in order


#: Left to right across the view from the doorway.
ACROSS = Axis(("left", "right"), ("leftmost", "rightmost"), ("left", "right"), 0, 0.5)
#: Bottom to top.
UP = Axis(("bottom", "top"), ("bottom", "top"), ("bottom", "top"), 1, 0.1)


@dataclass(frozen=True)
class Order:
    """A thing's place in words, around its noun: 'left counter', 'second shelf from
    the top'."""

    before: str
    after: str = ""

    def around(self, noun: str) -> str:
        return " ".join(w for w in (self.before, noun, self.after) if w)


def order_words(coords: Mapping[str, float], axis: Axis) -> dict[str, Order]:
    """The place of each thing (id -> its coordinate along `axis`) whose place is
    clear, counted from the nearer end."""
    if len(coords) < 2:
        return {}
    ranked = sorted(coords, key=lambda k: (coords[k], k))
    gaps = [coords[b] - coords[a] for a, b in itertools.pairwise(ranked)]
    out: dict[str, Order] = {}
    for i, thing in enumerate(ranked):
        word, needed = _place(i, len(ranked), axis)
        if all(g >= axis.gap_m for g in gaps[needed]):
            out[thing] = word
    return out


def _place(i: int, n: int, axis: Axis) -> tuple[Order, slice]:
    """The words for the i-th lowest of n things (n >= 2), and the gaps that must be
    clear for them: those between it and the end it is counted from, and its next."""
    high = n - 1 - i
    if n == 2:
        return Order(axis.two[i]), slice(0, 1)
    if i == 0:
        return Order(axis.ends[0]), slice(0, 1)
    if high == 0:
        return Order(axis.ends[1]), slice(i - 1, i)
    if i < high or (i == high and axis.tie == 0):
        return Order(ordinal_word(i + 1), f"from the {axis.sides[0]}"), slice(0, i + 1)
    return Order(ordinal_word(high + 1), f"from the {axis.sides[1]}"), slice(i - 1, n - 1)


#: Where a room is seen from: a point, and the unit direction one looks in.
View = tuple[tuple[float, float], tuple[float, float]]


def across(view: View, things: Mapping[str, tuple[float, float]]) -> dict[str, float]:
    """Each thing's offset (metres) to the right across the view."""
    (x, y), (fx, fy) = view
    return {k: (px - x) * fy - (py - y) * fx for k, (px, py) in things.items()}


def doorways(graph: SceneGraph) -> dict[str, View]:
    """The view of each room with doors: from its door nearest to the robot's start along
    the floor (then as the crow flies, then by id), facing the room's centre."""
    doors = graph.scene.doors
    start = (float(graph.scene.agent.position[0]), float(graph.scene.agent.position[1]))
    nodes = graph.nav.nearest_nodes([start, *(d.position for d in doors)])
    floor = [math.inf] * len(doors)
    if doors and nodes[0] >= 0:
        lengths = graph.walker.search({int(nodes[0]): 0.0})
        floor = [float(lengths[n]) if n >= 0 else math.inf for n in nodes[1:]]
    out: dict[str, View] = {}
    for room in graph.rooms():
        mine = [(floor[k], math.dist(start, d.position), d.id, k)
                for k, d in enumerate(doors) if room.id in d.rooms]
        if not mine:
            continue
        door = doors[min(mine)[3]].position
        centre = room.polygon.centroid
        dx, dy = centre.x - door[0], centre.y - door[1]
        norm = math.hypot(dx, dy)
        if norm > 0:
            out[room.id] = ((float(door[0]), float(door[1])), (dx / norm, dy / norm))
    return out
