"""The audit's `pixels` check: a memory task's geometric line of sight against what the
camera sees (`fdc.sim_bridge.render.pixels`).

For each atom of the goal that asks the robot to be at something it must see
(`robot-at-object`, `robot-at-receptacle`), each frame from the one the target reached
its final place is judged in the world that frame shows (`snapshot_at`: the items where
they were then, the held item in the hand; the frames grouped by that world, `epochs`)
by both models: the candidates are the frames where the atom holds without its
visibility condition (distance and heading only: the checkers' `NO_VISIBILITY` mode);
at each the geometric verdict (the checkers' own: the silhouette large enough, a sight
line clear of walls, boxes, shell panels, open doors and the held item) is compared
with the pixel rule on the frame rendered as it was: the target (an item; a surface's
furniture and the items resting on it then) covers at least `min_pixels` pixels. A frame
disagrees when the two verdicts differ. (The task's valid frames are judged in the world
the experience left behind, hand empty, where HL-SR teleports the robot: the same
models, another world.)

Tolerance (the stated residual rule): the geometric model tests five sight lines (the
object's centre and four points halfway to its footprint's corners, at mid-height) and
the silhouette of the whole box, where the camera counts the pixels left visible: an
object partly hidden (a lamp beside a clock, an item behind the held one, a towel whose
mid-height is behind a box its top shows over) can be seen by one and not by the other.
A task agrees when at most `TOLERANCE` of its candidate frames (and at least one frame)
disagree and every target that is geometrically visible in some frame is seen in pixels
in some frame; its disagreeing frames are listed either way.
"""

from __future__ import annotations

import bisect
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fdc.predicates.goal import atoms

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.evaluation.memory import MemoryWorld
    from fdc.predicates.goal import GAtom
    from fdc.sim_bridge.render.pixels import FrameRenders
    from fdc.sim_bridge.world.snapshot import SnapshotState

#: The goal predicates whose truth needs the target in view.
SEEN_PREDICATES = ("robot-at-object", "robot-at-receptacle")
#: A task agrees when at most this share of its candidate frames disagree (module doc).
TOLERANCE = 0.10
#: The most disagreeing frames a task's detail lists.
LISTED = 5


@dataclass(frozen=True)
class FrameVerdict:
    """One candidate frame of one target: its pixels and both verdicts."""

    frame: int
    target: str
    pixels: int
    geometric: bool
    pixel: bool


@dataclass(frozen=True)
class PixelComparison:
    """A task's candidate frames judged both ways."""

    verdicts: tuple[FrameVerdict, ...]
    threshold: int

    @property
    def disagreements(self) -> list[FrameVerdict]:
        return [v for v in self.verdicts if v.geometric != v.pixel]

    @property
    def lost_targets(self) -> list[str]:
        """Targets geometrically visible in some frame but seen in pixels in none."""
        geo = {v.target for v in self.verdicts if v.geometric}
        pix = {v.target for v in self.verdicts if v.pixel}
        return sorted(geo - pix)

    @property
    def agrees(self) -> bool:
        n = len(self.verdicts)
        bad = len(self.disagreements)
        return not self.lost_targets and (bad == 0 or bad <= max(1, TOLERANCE * n))


def seen_atoms(record: TaskRecord) -> list[GAtom]:
    """The goal's atoms whose truth needs the target in view."""
    return [a for a in dict.fromkeys(atoms(record.goal)) if a.predicate in SEEN_PREDICATES]


@dataclass(frozen=True)
class _Epoch:
    """Frames of the log in one world: the items where they were, the same item in the
    hand; `state` is that world (the robot's pose is each frame's)."""

    frames: list[int]
    state: SnapshotState


_EPOCHS: weakref.WeakKeyDictionary[MemoryWorld, list[_Epoch]] = weakref.WeakKeyDictionary()


def epochs(world: MemoryWorld) -> list[_Epoch]:
    """The log's frames grouped by the world they show (`snapshot_at`): a new group at
    each place and whenever the hand changes. Kept per world."""
    found = _EPOCHS.get(world)
    if found is not None:
        return found
    from fdc.sim_bridge.world.embedded import EmbeddedWorld
    from fdc.sim_bridge.world.experience import snapshot_at
    from fdc.sim_bridge.world.snapshot import SnapshotState

    log = world.log
    places = sorted(it.place_frame for it in log.interactions if it.place_frame is not None)
    groups: dict[tuple[int, str | None], list[int]] = {}
    for i, fr in enumerate(log.frames):
        groups.setdefault((bisect.bisect_right(places, i), fr.held), []).append(i)
    initial = EmbeddedWorld(world.graph).snapshot()
    out = [_Epoch(frames, SnapshotState(world.graph, snapshot_at(initial, log, frames[0])))
           for frames in groups.values()]
    _EPOCHS[world] = out
    return out


def _masks(world: MemoryWorld, a: GAtom, record: TaskRecord, epoch: _Epoch
           ) -> tuple[np.ndarray, np.ndarray]:
    """The atom at the epoch's frames, in the world they show: without its visibility
    condition, and whole."""
    from fdc.predicates.registry import Context, Mode

    log = world.log
    poses = [log.frames[i].agent for i in epoch.frames]
    out = []
    for mode in (Mode.NO_VISIBILITY, Mode.STRICT):
        ctx = Context(graph=world.graph, experience=log, mode=mode)
        if record.thresholds:
            ctx = ctx.with_thresholds(dict(record.thresholds), world.registry)
        ctx = ctx.with_state(epoch.state)
        out.append(world.registry.evaluate_at_poses(a.predicate, [a.args], ctx, poses)[0])
    return out[0], out[1]


def _target_ids(world: MemoryWorld, a: GAtom, state: SnapshotState) -> list[str]:
    """The object ids whose pixels make the atom's target: an item; a surface's
    furniture and the items resting on it in `state`."""
    target = a.args[0]
    if a.predicate == "robot-at-object":
        return [target]
    carrier = world.graph.surface(target).object_id
    on = sorted(o for o in state.object_ids() if state.support_of(o) == target)
    return [carrier, *on]


def compare(record: TaskRecord, world: MemoryWorld, renders: FrameRenders
            ) -> PixelComparison:
    """Every candidate frame of every seen atom of the task, judged both ways in the
    world the frame shows."""
    from fdc.sim_bridge.render.pixels import min_pixels, seen, target_pixels

    cam = renders.camera
    verdicts: list[FrameVerdict] = []
    for a in seen_atoms(record):
        first = max((world.final_frame.get(x, 0) for x in a.args), default=0)
        for epoch in epochs(world):
            if epoch.frames[-1] < first:
                continue
            loose, strict = _masks(world, a, record, epoch)
            ids = _target_ids(world, a, epoch.state)
            for k in np.nonzero(loose)[0].tolist():
                f = epoch.frames[k]
                if f < first:
                    continue
                px = target_pixels(renders.visible(f), ids)
                verdicts.append(FrameVerdict(f, a.args[0], px, bool(strict[k]),
                                             seen(px, cam.width, cam.height)))
    verdicts.sort(key=lambda v: (v.frame, v.target))
    return PixelComparison(tuple(verdicts), min_pixels(cam.width, cam.height))


def describe(c: PixelComparison) -> str:
    """The check's detail: counts, then the disagreeing frames (frame, object, pixels,
    geometric verdict)."""
    n, bad = len(c.verdicts), c.disagreements
    said = f"{n - len(bad)}/{n} candidate frame(s) agree (seen: >= {c.threshold} px)"
    if bad:
        listed = "; ".join(f"frame {v.frame} {v.target}: {v.pixels} px, geometric "
                           f"{'visible' if v.geometric else 'not visible'}"
                           for v in bad[:LISTED])
        more = f" (+{len(bad) - LISTED} more)" if len(bad) > LISTED else ""
        said += f"; disagree: {listed}{more}"
    if c.lost_targets:
        said += f"; never seen in pixels: {', '.join(c.lost_targets)}"
    return said
