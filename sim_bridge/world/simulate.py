"""The simulated experience: an oracle robot's day of pick-and-place in the embedded world.

`simulate_experience(graph, interactions=N, seed=S)` runs FindingDory's data-collection
phase in fdc's `EmbeddedWorld`: the robot performs N pick-and-place interactions, each
drawn with `random.Random(seed)` from the relocations the world can really carry out
(an item it can pick: movable, carrying nothing, not shut in a closed container, its
furniture reachable; a furniture surface that is not the item's, reachable, where the
placement queries find a collision-free spot in a random cell, else anywhere on it: the
free spot nearest its middle, unpacked, in plain view as a person sets things down). It
walks there along the navigation grid in primitive steps (0.25 m forward, 10 degree
turns) and records one frame per step: the pose, the action, the held item, what is in
view (field of view and occlusion: `visibility.SightIndex`, the rules of
`visible_objects`) and the room. The same graph, N and seed give the same log, byte for
byte.

Where the robot stands: at a standing point of the furniture from which no wall lies
between it and what it picks (the item) or where it puts it (the spot chosen), turned to
face it; so it sees the item it picks and, as FindingDory's oracle robot does, the item
it has just put down, and the frame of each place is a valid goal frame of that item and
of its receptacle. (A standing point on the far side of a wall the furniture stands
against is reachable, but nothing on the furniture can be seen or reached from it.)

Every item moved is looked at (FindingDory keeps only the days on which the targets
are seen): a spot counts only when, with the item put there, the robot at one of the
surface's standing points, turned and its head tilted to it, looks at it by the rule of
`robot-at-object` (`OracleConfig.look_*`: within 2 m, walking, by the grid's cheap bound;
facing it; in view within 5 m), so an item is not put behind a taller one; the cell drawn,
else the surface's middle, else the next surface (a spot nobody sees only when no surface
tried has a seen one). When the place frame does not look at the item after all, the
robot walks to a standing point that does (its head tilted to the item on the last
step); after the last interaction it looks again at every item that an item put down
later hides from every frame since its place. A memory task's goal frames are judged so,
in the world the day leaves behind, from the item's last place on.

The end of the day: after its last interaction (and its looks) the robot walks away
from the furniture to the free spot nearest the middle of the room it is in (staying in
that room), so a memory task does not start with the robot already at the receptacle it
used last.

Repeated categories: FindingDory's category-order tasks ("the mug you moved first") need
days on which the robot moves several items of one category. After the first
interaction, with probability `OracleConfig.repeat_category` (drawn from the seeded
generator) the items of categories already moved are tried first; otherwise every item
not yet moved is equally likely, as before. Items already moved are tried last.

Clock: the log spans FindingDory's day. Frame i of n shows
`clock_min = start_min + i * ((end_min - start_min) / max(n - 1, 1))` (06:00-22:00 by
default; `Clock(steps_per_day=n - 1).time_at(i)`), so the first frame is at 06:00 and
the last at 22:00 whatever the number of steps; an interaction starts at its pick
frame's time and ends at its place frame's.

Walks are planned by `fdc.sim_bridge.graph.routes.GridRouter` rather than by
`SceneGraph.shortest_path`, whose taut-path search tests hundreds of sight lines against
the whole free-floor polygon (seconds per walk in a 3,000-object scene), and walked by
`EmbeddedWorld.follow`, which checks every leg against the free floor again; a walk it
still refused would fall back to the world's own `navigate`.
See docs/world.md.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from fdc.core.errors import FdcError
from fdc.sim_bridge.graph.frustum import aim_tilt_deg
from fdc.sim_bridge.graph.placement import Placement, Relation, place
from fdc.sim_bridge.graph.regions import Direction
from fdc.sim_bridge.graph.routes import GridRouter
from fdc.sim_bridge.graph.visibility import SightIndex
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.embedded import ActionResult, EmbeddedWorld, WorldConfig
from fdc.sim_bridge.world.experience import Experience, ExperienceRecorder
from fdc.sim_bridge.world.posed import PosedGraph
from fdc.sim_bridge.world.snapshot import DEFAULT_FOV_RAD, DEFAULT_VIEW_RANGE_M, SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Clock, ObjectPose, Snapshot, TrajectoryHeader

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.navigation import StandingPoint
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

#: The cells a placement is aimed at (then anywhere on the surface).
_CELLS: tuple[Direction, ...] = tuple(Direction)
#: A day long enough that the world never refuses an action for the hour: the log's
#: clock is set when its length is known (see the module docstring).
_WORLD_CLOCK = Clock(start_min=360.0, end_min=1320.0, steps_per_day=10**9)


@dataclass(frozen=True)
class OracleConfig:
    """How the oracle sees and chooses (defaults: those of the fluent checkers)."""

    fov_rad: float = DEFAULT_FOV_RAD
    max_range_m: float = DEFAULT_VIEW_RANGE_M
    day_start_min: float = 360.0
    day_end_min: float = 1320.0
    # Per interaction, at most `item_tries` items that can be picked are tried, each on
    # at most `target_tries` surfaces (two placement queries a surface, a few ms each).
    item_tries: int = 32
    target_tries: int = 12
    # The chance that an interaction after the first prefers an item of a category
    # already moved (see the module docstring).
    repeat_category: float = 0.5
    # What counts as a look at an item (FindingDory's success check, the defaults of the
    # predicate `robot-at-object`): within this walking distance, facing it, and in view
    # of the camera within this range. Every item moved is looked at so after its place
    # (see the module docstring).
    look_distance_m: float = 2.0
    look_angle_rad: float = math.pi / 4
    look_range_m: float = 5.0


class SimulationError(FdcError, ValueError):
    """The scene cannot give the experience asked for (too few feasible relocations)."""


@dataclass(frozen=True)
class Simulation:
    """An experience and the world's trajectory behind it: one snapshot per action (a
    whole walk, a pick, a place); a snapshot's `step` is the index of the frame that
    shows the same state, and its `time_min` that frame's clock (the frames between two
    snapshots differ from the first only by the robot's pose, and the held item's,
    which moves with it). `header.clock` is the log's clock. `world`: the embedded world
    as the experience left it (the robot where the log ends, the items at their final
    places), where an agent can go on acting (its own clock is a long day, not the
    log's)."""

    experience: Experience
    snapshots: tuple[Snapshot, ...]
    header: TrajectoryHeader
    world: EmbeddedWorld


def simulate_experience(graph: SceneGraph, *, interactions: int = 5, seed: int = 0,
                        scene: str = "", scene_sha256: str | None = None,
                        config: OracleConfig | None = None) -> Experience:
    """The experience log of an oracle robot performing `interactions` pick-and-place
    interactions in `graph`'s scene (deterministic for a seed). `scene` names the scene
    file in the log (default: the scene's name); `scene_sha256` defaults to the hash of
    the scene's canonical JSON, as in trajectory headers. Raises `SimulationError` when
    the scene offers too few feasible relocations, `ValueError` for a negative count."""
    return simulate(graph, interactions=interactions, seed=seed, scene=scene,
                    scene_sha256=scene_sha256, config=config).experience


def simulate(graph: SceneGraph, *, interactions: int = 5, seed: int = 0, scene: str = "",
             scene_sha256: str | None = None, config: OracleConfig | None = None
             ) -> Simulation:
    """`simulate_experience`, with the world's trajectory behind the log."""
    if interactions < 0:
        raise ValueError(f"the number of interactions must be >= 0, not {interactions}")
    cfg = config or OracleConfig()
    if not 0 <= cfg.day_start_min < cfg.day_end_min <= 1440:
        raise ValueError("the day must end after it starts, both within 00:00-24:00")
    robot = _Collector(graph, cfg, seed)
    for k in range(interactions):
        if not robot.interact():
            raise SimulationError(
                f"only {k} of {interactions} interactions are feasible in scene "
                f"`{graph.scene.name}`: no movable item left that the robot can pick and "
                f"put on another reachable surface (tried up to {cfg.item_tries} items, "
                f"{cfg.target_tries} surfaces each)")
    if interactions:
        robot.look_again()
        robot.leave()
    world = robot.world
    name = scene or graph.scene.name
    clock = Clock(start_min=cfg.day_start_min, end_min=cfg.day_end_min,
                  steps_per_day=max(len(robot.rows) - 1, 1))
    header = world.header(name).model_copy(update={"clock": clock})
    log = robot.finish(name, scene_sha256 if scene_sha256 is not None else
                        header.scene_sha256, clock)
    # A snapshot's robot is its frame's (the head tilted as the frame has it).
    snapshots = tuple(s.model_copy(update={"time_min": clock.time_at(s.step),
                                           "agent": log.frames[s.step].agent})
                      for s in world.snapshots)
    return Simulation(experience=log, snapshots=snapshots, header=header, world=world)


# ----------------------------------------------------------------------- the robot


@dataclass(frozen=True)
class _Plan:
    """One relocation, checked against the current state before the robot moves."""

    item: str
    target: str  # the surface
    relation: Relation
    cell: Direction | None
    placement: Placement
    pick_from: list[StandingPoint]
    place_at: list[StandingPoint]


@dataclass
class _FrameRow:
    agent: AgentPose
    action: str | None
    held: str | None
    visible: list[str]
    room: str | None
    events: list[tuple[str, str, str | None, ObjectPose | None]] = field(default_factory=list)


class _Collector:
    """The data-collecting robot of FindingDory's first phase: its choices, its walks
    and the frames it has recorded."""

    def __init__(self, graph: SceneGraph, cfg: OracleConfig, seed: int) -> None:
        self.graph = graph
        self.cfg = cfg
        self.seed = seed
        self.rng = random.Random(seed)
        # One snapshot per action (the frames of a walk come from its moves): a snapshot
        # holds every tracked pose, too much to keep per step in a large scene.
        # It sets items down near the middle of the cell or surface, not packed into a
        # corner (where a later frame could miss them).
        self.placement = dataclasses.replace(graph.config.placement, pack=False)
        self.world = EmbeddedWorld(graph, clock=_WORLD_CLOCK, seed=seed, record_steps=False,
                                   config=WorldConfig(placement=self.placement))
        self.router = GridRouter(graph.nav)
        self.movable = sorted(o.id for o in graph.objects(kind=Kind.MOVABLE))
        self.moved: set[str] = set()
        # Furniture surfaces the robot may put things on (it opens nothing).
        self.targets = sorted(
            s.id for s in graph.surfaces()
            if graph.object(s.object_id).kind in (Kind.FURNITURE, Kind.ARTICULATED)
            and (s.container is None or s.is_open))
        self.walls = graph.layout.walls
        self.rows: list[_FrameRow] = []
        # Per item moved: the row of its last place.
        self.placed: dict[str, int] = {}
        self.sight = SightIndex(self.world.state.posed)
        self._record([(None, self.world.agent_pose())])

    # ----- choosing -------------------------------------------------------------------
    def _stands(self, posed: PosedGraph, what: str, xy: tuple[float, float]
                ) -> list[StandingPoint]:
        """The reachable standing points of `what` with no wall between them and `xy`."""
        pts, _ = posed.standing_points_for(what)
        return self._in_sight([p for p in pts if p.reachable], xy)

    def _in_sight(self, pts: list[StandingPoint], xy: tuple[float, float]
                  ) -> list[StandingPoint]:
        import shapely

        if not pts or self.walls.is_empty:
            return pts
        lines = shapely.linestrings([[p.position, xy] for p in pts])
        blocked = shapely.intersects(lines, self.walls)
        return [p for p, b in zip(pts, blocked.tolist(), strict=True) if not b]

    def _choose(self, posed: PosedGraph) -> _Plan | None:
        fresh = [o for o in self.movable if o not in self.moved]
        again = [o for o in self.movable if o in self.moved]
        self.rng.shuffle(fresh)
        self.rng.shuffle(again)
        if self.moved and self.rng.random() < self.cfg.repeat_category:
            seen = {self.graph.object(o).category for o in self.moved}
            fresh = ([o for o in fresh if self.graph.object(o).category in seen]
                     + [o for o in fresh if self.graph.object(o).category not in seen])
        tried = 0
        for item in fresh + again:
            if tried >= self.cfg.item_tries:
                return None
            if posed.items_carried_by(item) or posed.enclosing_container(item) is not None:
                continue
            source = posed.support_of(item)
            o = posed.object(item)
            pick_from = self._stands(posed, item, (o.position[0], o.position[1]))
            if source is None or not pick_from:
                continue
            tried += 1
            plan = self._target(posed, item, source, pick_from)
            if plan is not None:
                return plan
        return None

    def _target(self, posed: PosedGraph, item: str, source: str | None,
                pick_from: list[StandingPoint], exclude: Sequence[str] = ()) -> _Plan | None:
        """A surface for `item` (not `source`) where a placement exists now: the first
        of the shuffled surfaces with a spot (in the cell drawn, else anywhere on it) that
        the robot looks at from a standing point after the place (`_views`: not hidden
        behind a taller item, near enough); else the first with any spot."""
        # Only surfaces below the eye: the robot sees what it puts down (the board of a
        # shelf above the eye hides what stands on it, from the camera as from the
        # line of sight).
        eye = float(self.graph.scene.agent.eye_height_m)
        cands = [s for s in self.targets if s != source and s not in exclude
                 and posed.surface(s).z < eye]
        self.rng.shuffle(cands)
        cfg = self.placement
        unseen: _Plan | None = None  # the first spot found that no standing point sees
        for s in cands[: self.cfg.target_tries]:
            pts, _ = posed.standing_points_for(s)
            reach = [p for p in pts if p.reachable]
            if not reach:
                continue
            cell = self.rng.choice(_CELLS)
            at: Direction | None  # the cell aimed at (None: anywhere on the surface)
            for relation, at in ((Relation.IN_CELL, cell), (Relation.ON, None)):
                res = place(posed, relation, (item, s) if at is None else (item, s, at), cfg)
                if not res.ok or res.pose is None:
                    continue
                place_at = self._in_sight(reach, (res.pose.position[0], res.pose.position[1]))
                if not place_at:
                    continue
                seen = self._views(self._as_placed(item, res), item, place_at)
                if seen:
                    return _Plan(item, s, relation, at, res, pick_from, seen)
                if unseen is None:
                    unseen = _Plan(item, s, relation, at, res, pick_from, place_at)
        return unseen

    # ----- looking ----------------------------------------------------------------------
    def _as_placed(self, item: str, res: Placement) -> SnapshotState:
        """The world as it is now, with `item` put down where `res` says (hand empty)."""
        assert res.pose is not None
        snap = self.world.snapshot()
        objects = dict(snap.objects)
        objects[item] = ObjectPose(position=res.pose.position, orientation=res.pose.orientation,
                                   size=objects[item].size)
        return SnapshotState(self.graph, snap.model_copy(update={"objects": objects,
                                                                 "held": None}))

    def _looks(self, state: SnapshotState, item: str, poses: Sequence[AgentPose]
               ) -> list[bool]:
        """Whether the robot at each pose looks at `item` in `state`: within
        `look_distance_m` (straight, then walking), facing it within `look_angle_rad`, and
        the item in view of the camera (tilted as the pose says) within `look_range_m`
        (the rule of `robot-at-object`, which a pose passing this passes too)."""
        cfg = self.cfg
        x, y, _ = state.object_pose(item).position
        out = [False] * len(poses)
        near = [k for k, a in enumerate(poses)
                if math.hypot(x - a.x, y - a.y) <= cfg.look_distance_m
                and abs(math.remainder(math.atan2(y - a.y, x - a.x) - a.yaw_rad, math.tau))
                <= cfg.look_angle_rad + 1e-12]
        if not near:
            return out
        seen = state.visible_many([item] * len(near), [poses[k] for k in near], cfg.fov_rad,
                                  min(cfg.look_range_m, cfg.max_range_m))
        # The walking distance by its cheap bound alone (`grid_walk_within`): when that
        # does not decide, the pose does not count (it may, by the exact search: the
        # robot then looks once more than it needs to).
        for k, ok in zip(near, seen, strict=True):
            out[k] = ok and bool(self.graph.grid_walk_within(
                (poses[k].x, poses[k].y), (x, y), cfg.look_distance_m))
        return out

    def _facing(self, p: StandingPoint, point: tuple[float, float, float]) -> AgentPose:
        """The robot at standing point `p`, turned to `point`, its head tilted to it."""
        a = self.world.agent_pose()
        pose = AgentPose(x=p.position[0], y=p.position[1], z=a.z,
                         yaw_rad=_heading(p.position, (point[0], point[1]), a.yaw_rad))
        return self._looking_at(pose, point)

    def _views(self, state: SnapshotState, item: str, pts: list[StandingPoint]
               ) -> list[StandingPoint]:
        """The standing points among `pts` from which the robot, turned to `item` and its
        head tilted to it, looks at it in `state` (`_looks`)."""
        if not pts:
            return []
        point = state.object_pose(item).position
        ok = self._looks(state, item, [self._facing(p, point) for p in pts])
        return [p for p, o in zip(pts, ok, strict=True) if o]

    def _looked_at(self, item: str) -> bool:
        """Whether some frame since `item` was last put down looks at it in the world as
        it is now (the world a memory task's goal frames are judged in, at the end)."""
        poses = list(dict.fromkeys(r.agent for r in self.rows[self.placed[item]:]))
        return any(self._looks(self.world.state, item, poses))

    def _look(self, item: str) -> bool:
        """Walk to a standing point from which the robot looks at `item` in the world as
        it is now, turn to it and tilt the head to it; False when there is none."""
        state = self.world.state
        point = state.object_pose(item).position
        views = self._views(state, item, self._stands(state.posed, item, (point[0], point[1])))
        if not views:
            return False
        self._walk(views, (point[0], point[1]), item, look=point)
        return True

    def look_again(self) -> None:
        """At the end of the day: look again at every item moved that no frame since its
        place looks at in the world as it is now (hidden by an item put down later, or
        never seen from where it was put), nearest first."""
        todo = [i for i in sorted(self.placed) if not self._looked_at(i)]
        while todo:
            a = self.world.agent_pose()
            item = min(todo, key=lambda i: (math.dist(
                (a.x, a.y), self.world.object_pose(i).position[:2]), i))
            todo.remove(item)
            self._look(item)
            todo = [i for i in todo if not self._looked_at(i)]

    # ----- acting ---------------------------------------------------------------------
    def interact(self) -> bool:
        """One pick-and-place; False when no feasible one is left."""
        w = self.world
        posed = w.state.posed
        plan = self._choose(posed)
        if plan is None:
            return False
        item = w.state.posed.object(plan.item)
        self._walk(plan.pick_from, (item.position[0], item.position[1]), plan.item)
        picked = w.pick(plan.item)
        if not picked.ok:  # pragma: no cover - the plan was checked on this state
            raise SimulationError(f"the world refused a planned pick: {picked.reason}")
        source = picked.surface_id
        # The robot looks at what it picks (and below, at where it places it).
        self._record([(picked.action, self._looking_at(w.agent_pose(), item.position))],
                     event=("pick", plan.item, source, None))
        tried: list[str] = []
        while True:
            pose = plan.placement.pose
            assert pose is not None
            self._walk(plan.place_at, (pose.position[0], pose.position[1]), plan.target)
            placed = w.place(plan.target, plan.relation, cell=plan.cell)
            if placed.ok:
                break
            # Refused after all: another surface, from the state as it is now.
            tried.append(plan.target)
            again = self._target(w.state.posed, plan.item, source, [], tried)
            if again is None:
                raise SimulationError(f"`{plan.item}` could not be put down anywhere: "
                                      f"{placed.reason}")
            plan = again
        self.moved.add(plan.item)
        self.sight = SightIndex(w.state.posed)
        final = w.object_pose(plan.item)
        self._record([(placed.action, self._looking_at(w.agent_pose(), final.position))],
                     event=("place", plan.item, placed.surface_id, final))
        self.placed[plan.item] = len(self.rows) - 1
        if not self._looked_at(plan.item):
            # Hidden from where the robot put it down after all: a look from elsewhere.
            self._look(plan.item)
        return True

    def _looking_at(self, pose: AgentPose, point: tuple[float, float, float]) -> AgentPose:
        """`pose` with the head tilted to centre `point` in the camera's image."""
        eye = (pose.x, pose.y, pose.z + float(self.graph.scene.agent.eye_height_m))
        return pose.model_copy(update={"head_tilt_deg": aim_tilt_deg(eye, point)})

    def leave(self) -> None:
        """Walk to the reachable free spot nearest the middle of the robot's room."""
        a = self.world.agent_pose()
        layout = self.graph.layout
        here = int(layout.rooms_at(np.array([[a.x, a.y]]))[0])
        nav = self.graph.nav
        start = nav.nearest_node((a.x, a.y))
        if here < 0 or start < 0:
            return
        nodes = np.flatnonzero((layout.rooms_at(nav.nodes_xy) == here)
                               & (nav.components == nav.components[start]))
        if not len(nodes):
            return
        mid = self.graph.room(layout.room_ids[here]).polygon.point_on_surface()
        xy = nav.nodes_xy[nodes]
        best = nodes[int(np.argmin(np.hypot(xy[:, 0] - mid.x, xy[:, 1] - mid.y)))]
        goal = (float(nav.nodes_xy[best, 0]), float(nav.nodes_xy[best, 1]))
        route = self.router.route((a.x, a.y), [goal])
        if not route:
            return
        done = self.world.follow(self.router.waypoints((a.x, a.y), route),
                                 label=layout.room_ids[here])
        if done.ok:
            self._record(list(done.moves))

    def _walk(self, stands: list[StandingPoint], face: tuple[float, float], label: str,
              look: tuple[float, float, float] | None = None) -> None:
        """Walk to the nearest of `stands` and turn to `face` (and, with `look`, tilt the
        head to that point on the last step)."""
        w = self.world
        a = w.agent_pose()
        route = self.router.route((a.x, a.y), [p.position for p in stands])
        done: ActionResult | None = None
        if route is not None:
            end = route[-1] if route else (a.x, a.y)
            yaw = _heading(end, face, a.yaw_rad)
            done = w.follow(self.router.waypoints((a.x, a.y), route), end_yaw_rad=yaw,
                            label=label)
        if done is None or not done.ok:
            best = min(stands, key=lambda p: math.hypot(p.position[0] - a.x,
                                                        p.position[1] - a.y))
            done = w.navigate(best.id)
            if not done.ok:
                raise SimulationError(f"the robot cannot walk to `{label}`: {done.reason}")
        moves = list(done.moves)
        if look is not None and moves:
            moves[-1] = (moves[-1][0], self._looking_at(moves[-1][1], look))
        self._record(moves)

    # ----- frames ---------------------------------------------------------------------
    def _record(self, steps: list[tuple[str | None, AgentPose]],
                event: tuple[str, str, str | None, ObjectPose | None] | None = None) -> None:
        """One frame per step (its action and the robot's pose after it), in the current
        arrangement of the objects and with the current hand; `event`: a pick or place
        happening at the last of them."""
        if not steps:
            return
        held = self.world.held_object()
        pos = np.array([(a.x, a.y, a.z) for _, a in steps])
        yaws = np.array([a.yaw_rad for _, a in steps])
        tilts = np.array([np.nan if a.head_tilt_deg is None else a.head_tilt_deg
                          for _, a in steps])
        # The held item is in the hand, out of the arrangement: never in the way, always
        # in view.
        seen = self.sight.visible_objects(pos, yaws, self.cfg.fov_rad, self.cfg.max_range_m,
                                          exclude=held, tilts_deg=tilts)
        room_ids = self.graph.layout.room_ids
        rooms = self.graph.layout.rooms_at(pos[:, :2])
        for (action, agent), v, r in zip(steps, seen, rooms.tolist(), strict=True):
            if held is not None:
                v = sorted({*v, held})
            self.rows.append(_FrameRow(agent, action, held, v,
                                       room_ids[r] if r >= 0 else None))
        if event is not None:
            self.rows[-1].events.append(event)

    def finish(self, scene: str, scene_sha256: str | None, clock: Clock) -> Experience:
        g = self.graph
        open_ok = {s.id: s.container is None or s.is_open for s in g.surfaces()}
        rec = ExperienceRecorder(scene=scene, seed=self.seed, scene_sha256=scene_sha256)
        for i, row in enumerate(self.rows):
            surfaces = [s for o in row.visible for s in g.object(o).surfaces if open_ok[s]]
            rec.frame(clock.time_at(i), row.agent, row.action, row.held, row.visible, surfaces,
                      row.room)
            for kind, item, surface, pose in row.events:
                if kind == "pick":
                    rec.pick(item, surface)
                else:
                    assert pose is not None
                    rec.place(item, surface, pose.position, orientation=pose.orientation)
        return rec.finish()


def _heading(start: tuple[float, float], face: tuple[float, float], default: float) -> float:
    dx, dy = face[0] - start[0], face[1] - start[1]
    return math.atan2(dy, dx) if math.hypot(dx, dy) > 1e-6 else default
