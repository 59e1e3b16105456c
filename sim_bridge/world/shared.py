"""`PosedShare`: the posed graphs of one scene graph shared by every world that meets the
same arrangement, while a caller asks for it (`sharing_posed`).

A `PosedGraph` is a pure function of the scene graph, the tracked objects' poses, the
item in the hand (and, for that item alone, where the robot stands) and the containers'
open state; it is read-only once built and keeps the placement queries' answers
(`placement_memo`). The worlds a caller runs one after another from the same start (the
audit of a task: the oracle's run, its trace scored again, the planner's plan replayed,
the idle and random agents) meet the same arrangements again and again, each building
its own posed graph and asking its own placement queries. Inside `sharing_posed(share)`
every `SnapshotState` takes its posed graph from `share`, keyed on that content exactly
(no rounding), so the answers are those of a graph built afresh. Outside it nothing is
kept: there is no module-level cache, only the share the caller holds and drops.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from fdc.sim_bridge.world.posed import PosedGraph

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot

#: How many posed graphs a share keeps when the caller gives no bound (the least
#: recently used go first).
DEFAULT_LIMIT = 256


class PosedShare:
    """Posed graphs by scene graph (its identity) and arrangement (`key`), at most
    `limit` of them, the least recently used dropped first."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._kept: OrderedDict[tuple[int, Hashable], tuple[SceneGraph, PosedGraph]] = \
            OrderedDict()
        self.hits = 0
        self.misses = 0

    def posed(self, graph: SceneGraph, snapshot: Snapshot) -> PosedGraph:
        """The posed graph of `snapshot` on `graph`: a kept one of the same content, else
        one built and kept."""
        key = (id(graph), key_of(snapshot))
        found = self._kept.get(key)
        if found is not None and found[0] is graph:
            self._kept.move_to_end(key)
            self.hits += 1
            return found[1]
        self.misses += 1
        s = snapshot
        posed = PosedGraph(graph, s.objects, s.held, s.open, s.agent)
        self._kept[key] = (graph, posed)  # the graph held: its id is not reused meanwhile
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)
        return posed


def key_of(snapshot: Snapshot) -> Hashable:
    """What a snapshot's posed graph depends on: every pose it lists (the others are the
    scene's), the item in the hand and, when there is one, the robot's pose (where the
    held item is), and every container state it lists. Equal keys, equal posed graphs; a
    snapshot that lists a pose the scene has anyway keys apart (a miss, never a wrong
    hit)."""
    objects = tuple(sorted((k, p.position, p.orientation, p.size)
                           for k, p in snapshot.objects.items()))
    agent = snapshot.agent
    where = None if snapshot.held is None else (agent.x, agent.y, agent.z, agent.yaw_rad,
                                                agent.head_tilt_deg)
    return (objects, snapshot.held, where, tuple(sorted(snapshot.open.items())))


_ACTIVE: ContextVar[PosedShare | None] = ContextVar("fdc_posed_share", default=None)


def active_share() -> PosedShare | None:
    """The share `sharing_posed` made current, if any."""
    return _ACTIVE.get()


@contextmanager
def sharing_posed(share: PosedShare) -> Iterator[PosedShare]:
    """Within the block, every state's posed graph comes from `share` (module doc)."""
    token = _ACTIVE.set(share)
    try:
        yield share
    finally:
        _ACTIVE.reset(token)


__all__ = ["DEFAULT_LIMIT", "PosedShare", "active_share", "key_of", "sharing_posed"]
