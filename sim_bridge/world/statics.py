"""What every world state of one scene shares: `SceneStatics`, computed once per scene
graph (the tracked objects and their initial poses, the containers, where standing
points are), and `open_keys`, the containers an id names. See docs/world.md."""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fdc.core.hashing import scene_sha256
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.state import ObjectPose

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


@dataclass(frozen=True, eq=False)
class SceneStatics:
    """What every state of one scene graph shares: the tracked objects and their
    initial poses, the containers that open and close, where standing points are."""

    tracked: tuple[str, ...]  # movable and articulated objects, in scene order
    tracked_index: Mapping[str, int]
    body_index: np.ndarray  # per tracked object: its row in graph.bodies
    initial_poses: Mapping[str, ObjectPose]
    positions0: np.ndarray  # (t, 3)
    quats0: np.ndarray  # (t, 4)
    yaws0: np.ndarray  # (t,)
    containers: Mapping[str, tuple[str, str | None]]  # container surface -> (object, part)
    initial_open: Mapping[str, bool]
    by_object: Mapping[str, tuple[str, ...]]  # object -> its container surface ids
    by_part: Mapping[str, tuple[str, ...]]  # "object|part" -> the containers it closes
    with_standing: frozenset[str]  # surfaces that have standing points of their own
    scene_sha256: str


_STATICS: weakref.WeakKeyDictionary[SceneGraph, SceneStatics] = weakref.WeakKeyDictionary()


def scene_statics(graph: SceneGraph) -> SceneStatics:
    """The per-scene constants of world states (computed once per graph)."""
    got = _STATICS.get(graph)
    if got is not None:
        return got
    tracked = tuple(o.id for o in graph.scene.objects
                    if graph.object(o.id).kind in (Kind.MOVABLE, Kind.ARTICULATED))
    bidx = graph.bodies.index()
    poses = {i: ObjectPose(position=graph.object(i).spec.pose.position,
                           orientation=graph.object(i).spec.pose.orientation,
                           size=graph.object(i).spec.size) for i in tracked}
    containers: dict[str, tuple[str, str | None]] = {}
    initial_open: dict[str, bool] = {}
    by_object: dict[str, list[str]] = defaultdict(list)
    by_part: dict[str, list[str]] = defaultdict(list)
    for s in graph.surfaces():
        if s.container is None:
            continue
        containers[s.id] = (s.object_id, s.part)
        initial_open[s.id] = s.is_open
        by_object[s.object_id].append(s.id)
        if s.part is not None:
            by_part[f"{s.object_id}|{s.part}"].append(s.id)
    body_index = np.array([bidx[i] for i in tracked], dtype=np.int64)
    out = SceneStatics(
        tracked=tracked,
        tracked_index={i: k for k, i in enumerate(tracked)},
        body_index=body_index,
        initial_poses=poses,
        positions0=graph.bodies.positions[body_index].reshape(-1, 3),
        quats0=np.array([poses[i].orientation for i in tracked], dtype=np.float64).reshape(-1, 4),
        yaws0=graph.bodies.yaws[body_index],
        containers=containers,
        initial_open=initial_open,
        by_object={k: tuple(v) for k, v in by_object.items()},
        by_part={k: tuple(v) for k, v in by_part.items()},
        with_standing=frozenset(sp.surface_id for sp in graph.standing_points()),
        scene_sha256=scene_sha256(graph.scene),
    )
    _STATICS[graph] = out
    return out


def open_keys(graph: SceneGraph, ident: str) -> tuple[str, ...]:
    """The containers an id names: a container surface (`fridge|lower`), a part
    (`fridge|lower_door`: the containers it closes), or an object (all of its own)."""
    st = scene_statics(graph)
    if ident in st.containers:
        return (ident,)
    if ident in st.by_part:
        return st.by_part[ident]
    return st.by_object.get(ident, ())
