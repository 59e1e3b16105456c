"""fdc's embedded kinematic world: a `WorldState` that acts.

`EmbeddedWorld(graph)` starts from the scene's initial state (or from a given snapshot:
the world an experience left behind) and offers the actions of a
mobile manipulator: `navigate` (to a surface, an object, a room, a standing point or a
pose, along the navigation graph), `forward`, `turn`, `pick`, `place` (through the
placement queries, on the objects where they are now), `open` / `close`, `stop`. Every
action either happens whole or is refused with a reason and changes nothing. Time
advances one clock step per primitive step (a 0.25 m move forward, a 10 degree turn) or
per manipulation action; each action records one `Snapshot` (one per primitive step
with `record_steps=True`), and `record(path)` writes the trajectory so far.

Pure Python and numpy (shapely, networkx): no simulator, no physics. Items stand where
the placement queries put them; a held item travels with the robot.
See docs/world.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fdc.core.hashing import scene_sha256
from fdc.sim_bridge.geometry import to_frame
from fdc.sim_bridge.graph.navigation import path_length
from fdc.sim_bridge.graph.placement import (
    Placement,
    PlacementConfig,
    Relation,
    place,
    place_at,
)
from fdc.sim_bridge.graph.regions import Direction, Side
from fdc.sim_bridge.graph.scene_graph import ObjectInfo, Point
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world import transitions
from fdc.sim_bridge.world.floor import floor_spot
from fdc.sim_bridge.world.live_record import LiveRecord
from fdc.sim_bridge.world.posed import PosedGraph
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Clock, ObjectPose, Snapshot, TrajectoryHeader
from fdc.sim_bridge.world.statics import open_keys, scene_statics
from fdc.sim_bridge.world.trajectory import write_trajectory

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


@dataclass(frozen=True)
class WorldConfig:
    """The robot's motion and reach (FindingDory's primitive steps by default)."""

    forward_step_m: float = 0.25
    turn_step_rad: float = math.radians(10.0)
    reach_m: float = 0.25  # pick / place / open: this close to a standing point of the surface
    arm_reach_m: float = 0.8  # ... or, with no standing point there, this close to the thing
    carry_height_m: float = 1.0  # a held item's centre above the floor under the robot
    action_steps: int = 1  # clock steps taken by pick, place, open, close and stop
    placement: PlacementConfig | None = None  # how `place` chooses (None: the scene graph's)


@dataclass(frozen=True)
class ActionResult:
    """What an action did, or why it was refused (`ok` False: nothing changed)."""

    ok: bool
    reason: str
    action: str
    steps: int = 0  # clock steps taken
    path_length_m: float = 0.0  # distance walked by this action
    path: tuple[tuple[float, float], ...] = ()
    surface_id: str | None = None  # pick: where it came from; place: where it went
    placement: Placement | None = field(default=None, compare=False)
    # A motion's primitive steps: each one's action (`move_forward`, `turn_left`,
    # `turn_right`) and the robot's pose after it, whether or not they were recorded.
    moves: tuple[tuple[str, AgentPose], ...] = field(default=(), compare=False)

    def __bool__(self) -> bool:
        return self.ok


#: A day long enough for any budget: ManiTaskGen's steps are actions, not clock steps
#: (the agents' environment and a planner's plan act in it).
LONG_DAY = Clock(start_min=360.0, end_min=1320.0, steps_per_day=1_000_000)

Target = str | Point | AgentPose
_KEEP: Any = object()  # `_commit`: leave the held object as it is


@dataclass(frozen=True)
class _Move:
    """One primitive step of the robot."""

    action: str  # move_forward, turn_left, turn_right
    x: float
    y: float
    yaw_rad: float
    distance_m: float


class EmbeddedWorld(LiveRecord):
    """A kinematic world over a `SceneGraph`; implements `WorldState`.

    `clock`: the simulated day (06:00-22:00 over 4,000 steps by default); an action that
    would run past its end is refused. `seed` is recorded in trajectory headers (every
    action is deterministic). `record_steps`: the default of `navigate` / `turn` /
    `forward` (one snapshot per primitive step instead of one per action). `start`: the
    world to begin in (the robot, the hand, object poses and open states; what it leaves
    out stays as the scene has it), at step 0 of `clock`; None: the scene's initial
    state."""

    def __init__(self, graph: SceneGraph, *, clock: Clock | None = None, seed: int = 0,
                 config: WorldConfig | None = None, record_steps: bool = False,
                 start: Snapshot | None = None) -> None:
        self._graph = graph
        self.clock = clock or Clock()
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.config = config or WorldConfig()
        self.record_steps = record_steps
        st = scene_statics(graph)
        a = graph.scene.agent
        self._agent = AgentPose(x=a.position[0], y=a.position[1], z=a.position[2],
                                yaw_rad=a.yaw_rad)
        self._held: str | None = None
        self._poses: dict[str, ObjectPose] = dict(st.initial_poses)
        self._open: dict[str, bool] = dict(st.initial_open)
        # object states the world has changed (`change`): object -> state name -> value
        self._states: dict[str, dict[str, bool]] = {}
        if start is not None:
            self._agent, self._held = start.agent, start.held
            self._poses.update(start.objects)
            self._open.update(start.open)
            self._states = {k: dict(v) for k, v in start.states.items()}
        self._step = 0
        self._walked_m = 0.0
        self._snapshots: list[Snapshot] = []
        self._state: SnapshotState | None = None
        # The posed graph depends on the poses, the hand and the containers only (the
        # agent matters for the held item alone): states of one arrangement share it.
        self._arrangement = 0
        self._last_state: tuple[int, SnapshotState] | None = None
        self._append(None)

    # ----- WorldState ------------------------------------------------------------------
    @property
    def graph(self) -> SceneGraph:
        return self._graph

    @property
    def state(self) -> SnapshotState:
        """The current state as a `SnapshotState` (what the queries below read)."""
        if self._state is None:
            state = SnapshotState(self._graph, self._snapshots[-1])
            last = self._last_state
            if last is not None and last[0] == self._arrangement and self._held is None:
                state._posed = last[1]._posed
            self._state = state
            self._last_state = (self._arrangement, state)
        return self._state

    def agent_pose(self) -> AgentPose:
        return self._agent

    def held_object(self) -> str | None:
        return self._held

    def object_ids(self) -> Sequence[str]:
        return self.state.object_ids()

    def object_pose(self, object_id: str) -> ObjectPose:
        return self.state.object_pose(object_id)

    def is_open(self, object_id: str) -> bool:
        return self.state.is_open(object_id)

    def time_min(self) -> float:
        return self.clock.time_at(self._step)

    def room_of(self, what: str | Point) -> str | None:
        return self.state.room_of(what)

    def geodesic_distance(self, a: str | Point, b: str | Point) -> float:
        return self.state.geodesic_distance(a, b)

    def geodesic_within(self, a: str | Point, b: str | Point, limit_m: float) -> bool:
        return self.state.geodesic_within(a, b, limit_m)

    def shortest_path(self, a: str | Point, b: str | Point
                      ) -> list[tuple[float, float]] | None:
        return self.state.shortest_path(a, b)

    # ----- the record ------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The current state (the last snapshot recorded)."""
        return self._snapshots[-1]

    def header(self, scene: str | None = None) -> TrajectoryHeader:
        return TrajectoryHeader(scene=scene or self._graph.scene.name,
                                scene_sha256=scene_sha256(self._graph.scene), source="fdc-embedded",
                                clock=self.clock, seed=self.seed)

    def record(self, path: str | Path, scene: str | None = None) -> None:
        """Write the trajectory so far (`scene`: the scene file's name for the header)."""
        write_trajectory(path, self.header(scene), self._snapshots)

    # ----- motion ----------------------------------------------------------------------
    def navigate(self, target: Target, *, record_steps: bool | None = None) -> ActionResult:
        """Walk along the navigation graph to `target`: a surface or object (its nearest
        reachable standing point, where the item is now), a room (its nearest free
        cell), a standing point id, a point (x, y) or an `AgentPose` (then turn to its
        heading, and tilt the head as it does). The robot ends facing the furniture (the
        object, for an item)."""
        label = _label(target)
        action = f"navigate {label}"
        g = self._graph
        posed = self.state.posed
        here = (self._agent.x, self._agent.y)
        end_yaw: float | None = None
        face: tuple[float, float] | None = None
        if isinstance(target, AgentPose):
            goal: str | Point = (target.x, target.y)
            end_yaw = target.yaw_rad
        elif isinstance(target, str):
            if not g.has(target) and not any(sp.id == target for sp in g.standing_points()):
                return self._refuse(action, f"there is no `{target}` in the scene")
            if target == self._held:
                return self._refuse(action, f"`{target}` is in the robot's hand")
            goal = posed.nav_target(target)
            if g.has(target) and isinstance(g.entity(target), ObjectInfo) and \
                    g.object(target).kind is Kind.MOVABLE:
                o = posed.object(target)
                face = (o.position[0], o.position[1])
        else:
            goal = (float(target[0]), float(target[1]))
        if not isinstance(goal, str):
            goal = self._free_point((float(goal[0]), float(goal[1])))
        path = g.shortest_path(here, goal)
        if path is None:
            return self._refuse(action, f"no path from the robot at ({here[0]:.2f}, "
                                f"{here[1]:.2f}) to {label}")
        if end_yaw is None:
            end_yaw = self._end_heading(path, goal, face)
        moves = self._expand(path, self._agent.yaw_rad, end_yaw)
        done = self._move(action, moves, record_steps, path)
        if done.ok and isinstance(target, AgentPose) and target.head_tilt_deg is not None:
            # A pose to reach with the head tilted (a frame where the robot looked at
            # what it picked or placed): it ends looking as there.
            self._agent = self._agent.model_copy(
                update={"head_tilt_deg": target.head_tilt_deg})
        return done

    def follow(self, waypoints: Sequence[tuple[float, float]], *,
               end_yaw_rad: float | None = None, label: str = "",
               record_steps: bool | None = None) -> ActionResult:
        """Walk a path planned elsewhere: from where the robot stands through each
        waypoint (x, y) in turn, in primitive steps as `navigate` walks, then turn to
        `end_yaw_rad` (default: the heading of the last leg). Refused when a leg would
        take the robot's disc off the free floor. `label` names the walk's goal in the
        action text (`navigate <label>`)."""
        import shapely

        here = (self._agent.x, self._agent.y)
        path = [here] + [(float(p[0]), float(p[1])) for p in waypoints]
        action = f"navigate {label or _label(path[-1])}"
        if not all(math.isfinite(c) for p in path for c in p):
            return self._refuse(action, "waypoints must be finite numbers")
        if end_yaw_rad is not None and not math.isfinite(end_yaw_rad):
            return self._refuse(action, "the end heading must be a finite angle")
        legs = [(a, b) for a, b in itertools.pairwise(path) if a != b]
        if legs:
            ok = shapely.covered_by(shapely.linestrings(np.array(legs)), self._graph.nav.free)
            if not ok.all():
                a, b = legs[int(np.argmin(ok))]
                return self._refuse(action, f"blocked: the leg from ({a[0]:.2f}, {a[1]:.2f}) "
                                    f"to ({b[0]:.2f}, {b[1]:.2f}) leaves the free floor")
        if end_yaw_rad is None:
            end_yaw_rad = self._end_heading(path, path[-1], None)
        moves = self._expand(path, self._agent.yaw_rad, end_yaw_rad)
        return self._move(action, moves, record_steps, path)

    def turn(self, angle_rad: float, *, record_steps: bool | None = None) -> ActionResult:
        """Turn in place by `angle_rad` (positive: to the left, counter-clockwise), in
        primitive turns of at most `turn_step_rad`."""
        action = f"turn {math.degrees(angle_rad):g}"
        if not math.isfinite(angle_rad):
            return self._refuse(action, "the angle must be a finite number")
        moves = self._turns(self._agent.x, self._agent.y, self._agent.yaw_rad,
                            self._agent.yaw_rad + angle_rad)
        return self._move(action, moves, record_steps, None)

    def forward(self, distance_m: float | None = None, *, record_steps: bool | None = None
                ) -> ActionResult:
        """Move straight ahead (default: one primitive step); refused when the robot's
        disc would leave the free floor on the way."""
        import shapely

        d = self.config.forward_step_m if distance_m is None else float(distance_m)
        action = f"forward {d:g}"
        if not math.isfinite(d) or d <= 0:
            return self._refuse(action, "the distance must be a positive number of metres")
        a = self._agent
        end = (a.x + d * math.cos(a.yaw_rad), a.y + d * math.sin(a.yaw_rad))
        if not shapely.covered_by(shapely.LineString([(a.x, a.y), end]), self._graph.nav.free):
            return self._refuse(action, f"blocked: moving {d:g} m ahead would hit a wall or "
                                "an obstacle")
        moves = self._forwards(a.x, a.y, a.yaw_rad, end)
        return self._move(action, moves, record_steps, [(a.x, a.y), end])

    # ----- manipulation ----------------------------------------------------------------
    def pick(self, object_id: str) -> ActionResult:
        """Grasp a movable item: the hand must be empty, the robot near the surface the
        item rests on, nothing on the item, and no closed door in the way."""
        action = f"pick {object_id}"
        g = self._graph
        if self._held is not None:
            return self._refuse(action, f"the hand already holds `{self._held}`")
        if not g.has(object_id) or not isinstance(g.entity(object_id), ObjectInfo):
            return self._refuse(action, f"there is no object `{object_id}`")
        kind = g.object(object_id).kind
        if kind is not Kind.MOVABLE:
            return self._refuse(action, f"`{object_id}` is {kind.value}: only movable items "
                                "can be picked")
        posed = self.state.posed
        on_it = posed.items_carried_by(object_id)
        if on_it:
            return self._refuse(action, f"`{object_id}` carries {_ids(on_it)}: take "
                                f"{'it' if len(on_it) == 1 else 'them'} off first")
        closed = posed.enclosing_container(object_id)
        if closed is not None:
            return self._refuse(action, f"`{object_id}` is inside `{closed.id}`, which is closed")
        far = self._too_far(posed, object_id)
        if far:
            return self._refuse(action, far)
        source = posed.support_of(object_id)
        pose = self._poses[object_id]
        poses = {object_id: self._carried(pose, self._agent)}
        return self._commit(action, self.config.action_steps, held=object_id, poses=poses,
                            surface_id=source)

    def place(self, target: str, relation: Relation | str = Relation.ON, *,
              cell: Direction | str | None = None, direction: Direction | str | None = None,
              viewer_side: Side | str | None = None, second: str | None = None
              ) -> ActionResult:
        """Put the held item down where a relation holds, through the placement queries
        on the current poses (it avoids, and never touches, items moved earlier):

        - `on`: `target` a surface (or an object: its highest surface);
        - `in_cell`: `target` a surface, `cell` one of its 3x3 cells (`front-left` ...);
        - `direction` (alias `beside`): `target` an anchor item, `direction` a side of it
          in the surface's words, or in the words of a viewer at `viewer_side`;
        - `around`: anywhere next to the anchor `target`;
        - `between`: between the anchors `target` and `second`;
        - `inside`: `target` a container (`fridge|lower`) or an object with one.

        The robot must be near the standing points of the surface concerned."""
        rel_text = str(relation.value if isinstance(relation, Relation) else relation)
        words = [w for w in (cell, direction, viewer_side, second) if w is not None]
        action = " ".join(["place", *([self._held] if self._held else []), rel_text, target,
                           *[str(getattr(w, "value", w)) for w in words]])
        if self._held is None:
            return self._refuse(action, "the hand is empty: pick something first")
        item = self._held
        g = self._graph
        try:
            rel = Relation("direction" if rel_text == "beside" else rel_text)
        except ValueError:
            known = ", ".join([r.value for r in Relation] + ["beside"])
            return self._refuse(action, f"unknown relation `{rel_text}` (known: {known})")
        if not g.has(target):
            return self._refuse(action, f"there is no `{target}` in the scene")
        posed = self.state.posed
        problem, surface_id = self._place_target(posed, item, target, rel, cell, direction,
                                                 second)
        if problem:
            return self._refuse(action, problem)
        assert surface_id is not None
        far = self._too_far(posed, surface_id)
        if far:
            return self._refuse(action, far)
        # `on` and `in_cell` go on the surface found above; the others name their target.
        where = surface_id if rel in (Relation.ON, Relation.IN_CELL) else target
        extra = {Relation.IN_CELL: (cell,), Relation.DIRECTION: (direction, viewer_side),
                 Relation.BETWEEN: (second,)}.get(rel, ())
        try:
            res = place(posed, rel, (item, where, *(w for w in extra if w is not None)),
                        self.config.placement or g.config.placement)
        except ValueError as e:  # a bad direction, cell or side word
            return self._refuse(action, str(e))
        return self._put(action, res)

    def place_at(self, surface: str, x: float, y: float, yaw_rad: float) -> ActionResult:
        """Put the held item down on `surface` at a given pose (its centre at `x`, `y`,
        turned `yaw_rad`), when that spot is free now (`placement.place_at`): a pose
        found earlier, such as where the oracle put the item. The robot must be near
        the standing points of the surface."""
        action = " ".join(["place", *([self._held] if self._held else []), "at", surface,
                           f"{x:g}", f"{y:g}", f"{yaw_rad:g}"])
        if self._held is None:
            return self._refuse(action, "the hand is empty: pick something first")
        if not self._graph.has(surface) or not isinstance(self._graph.entity(surface), Surface):
            return self._refuse(action, f"there is no surface `{surface}` in the scene")
        posed = self.state.posed
        if posed.surface(surface).object_id == self._held:
            return self._refuse(action, f"`{self._held}` cannot go on itself")
        far = self._too_far(posed, surface)
        if far:
            return self._refuse(action, far)
        res = place_at(posed, self._held, surface, (x, y), yaw_rad,
                       self.config.placement or self._graph.config.placement)
        return self._put(action, res)

    def place_on_floor(self, room: str, near: str | None = None) -> ActionResult:
        """Put the held item down on the floor of `room`, where the robot stands: the
        free spot nearest the robot, within its arm reach (`floor.floor_spot`); with
        `near`, an item on the floor within that reach, the free spot nearest that item
        (beside it). The item then stands on no surface, on the floor (`on-floor`)."""
        action = " ".join(["place", *([self._held] if self._held else []), "on the floor of",
                           room, *(["near", near] if near else [])])
        if self._held is None:
            return self._refuse(action, "the hand is empty: pick something first")
        g = self._graph
        if room not in g.layout.room_ids:
            return self._refuse(action, f"there is no room `{room}`")
        a = self._agent
        here = g.room_of((a.x, a.y))
        if here is None or here.id != room:
            return self._refuse(action, f"the robot is in {f'`{here.id}`' if here else 'no room'}"
                                f", not in `{room}`: navigate there first")
        posed = self.state.posed
        prefer = (a.x, a.y)
        if near is not None:
            if not g.has(near) or not isinstance(g.entity(near), ObjectInfo) or \
                    g.object(near).kind is not Kind.MOVABLE or near == self._held or \
                    posed.support_of(near) is not None:
                return self._refuse(action, f"`{near}` is no item on the floor")
            far = self._too_far(posed, near)
            if far:
                return self._refuse(action, far)
            o = posed.object(near)
            prefer = (o.position[0], o.position[1])
        res = floor_spot(posed, self._held, self._poses[self._held].size, room, (a.x, a.y),
                         g.scene.agent.radius_m, self.config.arm_reach_m, prefer,
                         (self.config.placement or g.config.placement).gap_m)
        return self._put(action, res)

    def _put(self, action: str, res: Placement) -> ActionResult:
        """The held item set down where a placement query found room (a refusal, with
        its reason, when it found none)."""
        if not res.ok or res.pose is None or self._held is None:
            return self._refuse(action, res.reason or "no place found")
        item = self._held
        size = self._poses[item].size
        new = ObjectPose(position=res.pose.position, orientation=res.pose.orientation, size=size)
        return self._commit(action, self.config.action_steps, held=None, poses={item: new},
                            surface_id=res.surface_id, placement=res)

    def open(self, ident: str) -> ActionResult:
        """Open a container (`fridge|lower`), the containers a part closes
        (`fridge|lower_door`), or all of an object's containers (`fridge`)."""
        return self._set_open(ident, True)

    def close(self, ident: str) -> ActionResult:
        """Close what `open` opens; items inside stay and can no longer be seen."""
        return self._set_open(ident, False)

    def change(self, rule: str, obj: str, other: str | None = None) -> ActionResult:
        """Change object states by one of the transition rules
        (`fdc.sim_bridge.world.transitions.RULES`: `toggle-on`, `cook`, `freeze`, `fill`,
        `wipe`, `fold`, `attach` ...) on `obj` (and `other`: a substance, or the object
        attached to), when its preconditions hold; refused with the reason otherwise."""
        action = " ".join([rule, obj, *([other] if other else [])])
        posed = self.state.posed
        setting = transitions.Setting(self._graph, posed, self._held, self._states,
                                      lambda what: self._too_far(posed, what))
        out = transitions.apply(rule, setting, obj, other)
        if not out.ok or out.writes is None:
            return self._refuse(action, out.reason)
        return self._commit(action, self.config.action_steps, states=out.writes)

    def object_state(self, object_id: str, name: str) -> bool | None:
        """A state the world has changed (`change`); None: the scene's holds."""
        return self._states.get(object_id, {}).get(name)

    def stop(self) -> ActionResult:
        """Declare arrival (checkers count targets at stops); the world goes on."""
        return self._commit("stop", self.config.action_steps)

    # ----- internals -------------------------------------------------------------------
    def _refuse(self, action: str, reason: str) -> ActionResult:
        return ActionResult(False, reason, action)

    def _set_open(self, ident: str, value: bool) -> ActionResult:
        verb = "open" if value else "close"
        action = f"{verb} {ident}"
        g = self._graph
        keys = open_keys(g, ident)
        if not keys:
            if not g.has(ident):
                return self._refuse(action, f"there is no `{ident}` in the scene")
            return self._refuse(action, f"`{ident}` has nothing to {verb}: it is not an "
                                "articulated object or container")
        change = [k for k in keys if self._open[k] != value]
        if not change:
            state = "open" if value else "closed"
            return self._refuse(action, f"`{ident}` is already {state}")
        owner = scene_statics(g).containers[keys[0]][0]
        far = self._too_far(self.state.posed, owner)
        if far:
            return self._refuse(action, far)
        return self._commit(action, self.config.action_steps,
                            open_updates={k: value for k in change})

    def _too_far(self, posed: PosedGraph, what: str) -> str:
        """Why the robot cannot reach `what` (a surface or object) from where it is."""
        here = np.array([self._agent.x, self._agent.y])
        pts, point = posed.standing_points_for(what)
        if pts:
            xy = np.array([p.position for p in pts])
            d = np.hypot(*(xy - here).T)
            k = int(np.argmin(d))
            if d[k] <= self.config.reach_m + 1e-9:
                return ""
            return (f"`{what}` is out of reach: the robot is {d[k]:.2f} m from the nearest "
                    f"standing point of `{pts[k].surface_id}` (at most {self.config.reach_m:g}"
                    " m; navigate there first)")
        if point is None:
            return ""
        d = float(math.hypot(point[0] - here[0], point[1] - here[1]))
        if d <= self.config.arm_reach_m + 1e-9:
            return ""
        return (f"`{what}` is out of reach: it is {d:.2f} m from the robot (at most "
                f"{self.config.arm_reach_m:g} m)")

    def _place_target(self, posed: PosedGraph, item: str, target: str, rel: Relation,
                      cell: Direction | str | None, direction: Direction | str | None,
                      second: str | None
                      ) -> tuple[str, str | None]:
        """(problem, the surface the item would go on) before any geometry is tried."""
        g = self._graph
        e = g.entity(target)
        if rel in (Relation.ON, Relation.IN_CELL, Relation.INSIDE):
            if rel is Relation.INSIDE:
                floors = posed.containers_of(target)
                if not floors:
                    return f"`{target}` is not a container", None
                s = floors[0]
            elif isinstance(e, Surface):
                s = posed.surface(target)
            elif isinstance(e, ObjectInfo) and e.surfaces:
                tops = [x for x in e.surfaces if posed.surface(x).container is None]
                if not tops:
                    return f"`{target}` has no surface to put things on", None
                s = posed.surface(tops[-1])
            else:
                return f"`{target}` has no surface to put things on", None
            if s.object_id == item:
                return f"`{item}` cannot go on itself", None
            if rel is Relation.IN_CELL and cell is None:
                return "`in_cell` needs a cell (`front-left`, ..., `center`)", None
            return "", s.id
        # Relations to anchors: the anchor's surface now.
        if not isinstance(e, ObjectInfo):
            return f"`{target}` is not an object to place things next to", None
        if target == item:
            return f"`{item}` cannot go next to itself", None
        if rel is Relation.DIRECTION and direction is None:
            return "`direction` needs a direction (`left`, `front-right`, ...)", None
        if rel is Relation.BETWEEN:
            if second is None:
                return "`between` needs a second anchor", None
            if not g.has(second) or not isinstance(g.entity(second), ObjectInfo):
                return f"there is no object `{second}`", None
        s2 = posed.parent_surface(target)
        if s2 is None:
            return f"`{target}` rests on no surface", None
        return "", s2.id

    def _free_point(self, xy: tuple[float, float]) -> tuple[float, float]:
        """The point itself when the robot fits there, else the nearest free cell."""
        import shapely

        nav = self._graph.nav
        if shapely.covers(nav.free, shapely.Point(xy)):
            return xy
        n = nav.nearest_node(xy)
        return (float(nav.nodes_xy[n, 0]), float(nav.nodes_xy[n, 1])) if n >= 0 else xy

    def _end_heading(self, path: list[tuple[float, float]], goal: str | Point,
                     face: tuple[float, float] | None) -> float:
        end = path[-1]
        if face is not None and math.hypot(face[0] - end[0], face[1] - end[1]) > 1e-6:
            return math.atan2(face[1] - end[1], face[0] - end[0])
        if isinstance(goal, str):
            for sp in self._graph.standing_points():
                if math.hypot(sp.position[0] - end[0], sp.position[1] - end[1]) < 1e-6:
                    return sp.yaw_rad
        yaw = self._agent.yaw_rad
        for a, b in itertools.pairwise(path):
            if math.hypot(b[0] - a[0], b[1] - a[1]) > 1e-9:
                yaw = math.atan2(b[1] - a[1], b[0] - a[0])
        return yaw

    def _turns(self, x: float, y: float, yaw: float, to_yaw: float) -> list[_Move]:
        """Primitive turns from `yaw` to `to_yaw` (the short way when `to_yaw` is a
        heading; exactly `to_yaw - yaw` as asked by `turn`)."""
        delta = to_yaw - yaw
        step = self.config.turn_step_rad
        n = math.ceil(abs(delta) / step - 1e-9)
        out = []
        for k in range(1, n + 1):
            a = yaw + math.copysign(min(k * step, abs(delta)), delta)
            out.append(_Move("turn_left" if delta > 0 else "turn_right", x, y, _wrap(a), 0.0))
        return out

    def _forwards(self, x: float, y: float, yaw: float, end: tuple[float, float]
                  ) -> list[_Move]:
        length = math.hypot(end[0] - x, end[1] - y)
        step = self.config.forward_step_m
        n = math.ceil(length / step - 1e-9)
        out = []
        done = 0.0
        for k in range(1, n + 1):
            s = min(k * step, length)
            f = s / length
            out.append(_Move("move_forward", x + f * (end[0] - x), y + f * (end[1] - y), yaw,
                             s - done))
            done = s
        return out

    def _expand(self, path: list[tuple[float, float]], yaw: float, end_yaw: float
                ) -> list[_Move]:
        """A walk as primitive steps: turn to each leg, walk it, turn to `end_yaw`."""
        moves: list[_Move] = []
        for a, b in itertools.pairwise(path):
            if math.hypot(b[0] - a[0], b[1] - a[1]) <= 1e-9:
                continue
            heading = math.atan2(b[1] - a[1], b[0] - a[0])
            moves += self._turns(a[0], a[1], yaw, yaw + _wrap(heading - yaw))
            yaw = heading
            moves += self._forwards(a[0], a[1], yaw, b)
        x, y = path[-1]
        moves += self._turns(x, y, yaw, yaw + _wrap(end_yaw - yaw))
        return moves

    def _move(self, action: str, moves: list[_Move], record_steps: bool | None,
              path: list[tuple[float, float]] | None) -> ActionResult:
        steps = len(moves)
        if self._step + steps > self.clock.steps_per_day:
            return self._refuse(action, self._late(steps))
        per_step = self.record_steps if record_steps is None else record_steps
        walked = path_length(path) if path else 0.0
        if not moves:
            return ActionResult(True, "already there", action, 0, 0.0,
                                tuple(path or ()))
        a = self._agent
        # Finite floats computed here: no need to validate a pose per step.
        poses = [AgentPose.model_construct(x=m.x, y=m.y, z=a.z, yaw_rad=m.yaw_rad)
                 for m in moves]
        if per_step:
            for m, pose in zip(moves, poses, strict=True):
                self._advance(m.action, 1, pose, m.distance_m)
        else:
            self._advance(action, steps, poses[-1], walked)
        return ActionResult(True, "", action, steps, walked, tuple(path or ()),
                            moves=tuple((m.action, p) for m, p in zip(moves, poses, strict=True)))

    def _advance(self, action: str, steps: int, agent: AgentPose, walked_m: float) -> None:
        poses = None
        if self._held is not None:
            poses = {self._held: self._carried(self._poses[self._held], agent)}
        self._apply(agent=agent, poses=poses, steps=steps, walked_m=walked_m)
        self._append(action)

    def _commit(self, action: str, steps: int, held: Any = _KEEP,
                poses: dict[str, ObjectPose] | None = None,
                open_updates: dict[str, bool] | None = None, surface_id: str | None = None,
                placement: Placement | None = None,
                states: Mapping[str, Mapping[str, bool]] | None = None) -> ActionResult:
        if self._step + steps > self.clock.steps_per_day:
            return self._refuse(action, self._late(steps))
        for obj, values in (states or {}).items():
            self._states[obj] = {**self._states.get(obj, {}), **values}
        if held is not _KEEP:
            self._held = held
            self._arrangement += 1
        self._apply(poses=poses, open_updates=open_updates, steps=steps)
        self._append(action)
        return ActionResult(True, "", action, steps, 0.0, (), surface_id, placement)

    def _apply(self, agent: AgentPose | None = None, poses: dict[str, ObjectPose] | None = None,
               open_updates: dict[str, bool] | None = None, steps: int = 0,
               walked_m: float = 0.0) -> None:
        if agent is not None:
            self._agent = agent
        if poses:
            self._poses.update(poses)
            self._arrangement += 1
        if open_updates:
            self._open.update(open_updates)
            self._arrangement += 1
        self._step += steps
        self._walked_m += walked_m

    def _append(self, action: str | None) -> None:
        # Built from validated parts: skipping validation keeps a step cheap in scenes
        # of thousands of objects (every pose would be checked again).
        self._snapshots.append(Snapshot.model_construct(
            step=self._step, time_min=self.clock.time_at(self._step), action=action,
            agent=self._agent, held=self._held, objects=dict(self._poses),
            open=dict(self._open), path_length_m=self._walked_m,
            states={k: dict(v) for k, v in self._states.items()}))
        self._state = None

    def _carried(self, pose: ObjectPose, agent: AgentPose) -> ObjectPose:
        return ObjectPose.model_construct(
            position=(agent.x, agent.y, agent.z + self.config.carry_height_m),
            orientation=pose.orientation, size=pose.size)

    def _late(self, steps: int) -> str:
        left = self.clock.steps_per_day - self._step
        end = self.clock.end_min
        return (f"the day ends at {int(end // 60):02d}:{int(end % 60):02d}: {left} clock "
                f"step(s) left, the action needs {steps}")


def side_of(surface: Surface, agent: AgentPose) -> Side:
    """The side of `surface` a robot at `agent` is at (as the `at-side` checker judges
    the viewer's side): the larger of its offsets along and across the surface's box."""
    u, v = to_frame([(agent.x, agent.y)], surface.origin, surface.yaw_rad)[0]
    ru = u / max(surface.half_extents[0], 1e-9)
    rv = v / max(surface.half_extents[1], 1e-9)
    if abs(ru) >= abs(rv):
        return Side.FRONT if ru >= 0 else Side.REAR
    return Side.LEFT if rv >= 0 else Side.RIGHT


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(f"`{i}`" for i in ids)


def _label(target: Target) -> str:
    if isinstance(target, str):
        return target
    if isinstance(target, AgentPose):
        return f"({target.x:g}, {target.y:g}, yaw {target.yaw_rad:g})"
    return "(" + ", ".join(f"{float(c):g}" for c in target) + ")"
