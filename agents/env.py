"""Agents act on compiled tasks: ManiTaskGen's manipulation loop.

`ManipulationEnv` is a Gymnasium environment over fdc's embedded world. It is reset from
a manipulation `TaskRecord` (the world starts in the scene's initial state, the robot at
the scene's start; a memory-manipulation task's, where the experience left the world and
the robot: the env's `after`) and takes `AgentAction`s (ManiTaskGen's action space, as JSON text or
as the model):

- `go_to` a surface: walk to its nearest reachable standing point, facing it;
- `change_view`: walk to the next side of that surface with a standing point (front,
  right, rear, left: counter-clockwise seen from above);
- `pick` an item within reach;
- `show_receptacle` of a surface (or of the surface an item stands on), within reach:
  list its placement regions: the 3x3 cells of an empty surface; the 8 regions around
  each item of an occupied one (`regions.anchor_regions`), then its cells, because fdc's
  goals also name cells of occupied surfaces ("clear the left half");
- `place` the held item on a surface: anywhere (no regions), or in chosen regions;
- `open` / `close` a container with a door or drawer (`kitchen_cabinet|inside`), the
  part that closes it, or articulated furniture (all of its containers), within reach
  and with the hand empty (fdc-home's `(hand-empty)` precondition): fdc's addition
  to ManiTaskGen's action set, whose scenes have no articulated objects;
- `call_end`: stop; the episode ends.

An action either happens whole or is refused with a reason and changes nothing; both
cost a step. The episode is truncated when the step budget (`step_budget`) is spent.
Observations are text: the instruction, the step count, the result of the last action,
where the robot stands, the items on that surface (none shown in a closed container),
the containers of its furniture and whether each is open, what it holds, the last
regions listed. With `observation="image"` (or `"both"`: a dict of the text and the
image) each observation is the view from where the robot stands, rendered on the CPU
(`fdc.sim_bridge.render`): at a surface, from its pose with the camera aimed at the
surface (`view_at` for the surface and the side the robot is at); elsewhere, with the
default camera; after `show_receptacle`, with the listed regions outlined and labelled
(`fdc.agents.images`), while the robot stays at that surface. The reward is 1 on the
step that ends the episode when the task's ground goal verifies on the trajectory
(`fdc.predicates.verify`), else 0.
FindingDory's frame choice is `fdc.agents.frame_selection`.
See docs/agents.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pydantic import ValidationError

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.images import draw_regions
from fdc.compiler.suite import TaskRecord
from fdc.predicates.algebra import children, fewest_to_change
from fdc.predicates.goal import (
    GCount,
    atoms,
)
from fdc.predicates.verify import verify_snapshots
from fdc.sim_bridge.graph.placement import Placement, Relation, place
from fdc.sim_bridge.graph.regions import Region, Side, relative_direction
from fdc.sim_bridge.graph.scene_graph import ObjectInfo
from fdc.sim_bridge.graph.surfaces import Surface
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.embedded import LONG_DAY, ActionResult, EmbeddedWorld, side_of
from fdc.sim_bridge.world.state import AgentPose
from fdc.sim_bridge.world.statics import open_keys

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.predicates.verify import Verdict
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.graph.view import SceneView
    from fdc.sim_bridge.render import Camera, Renderer
    from fdc.sim_bridge.world.posed import PosedGraph
    from fdc.sim_bridge.world.state import Snapshot

#: ManiTaskGen's budgets: 20 actions for a single task, 20 more per further step of a
#: sequence (40 for a two-step THEN task).
STEPS_PER_TASK = 20
#: Outcome tasks (level 4) may ask for many items to move: 10 more actions for each
#: target item past the first (a relocation takes 4 or 5 actions; twice that is slack).
STEPS_PER_EXTRA_TARGET = 10
#: The widest lens of the image after `show_receptacle` (degrees, horizontal): enough to
#: take in a sofa or a counter from where the robot stands at it; `show_lens` widens the
#: head camera's in steps of `SHOW_HFOV_STEP_DEG` (few renderers) up to it.
SHOW_HFOV_DEG = 100.0
SHOW_HFOV_STEP_DEG = 10.0
#: The ring of standing sides `change_view` walks: counter-clockwise seen from above.
SIDE_RING: tuple[Side, ...] = (Side.FRONT, Side.RIGHT, Side.REAR, Side.LEFT)
#: Characters an observation may hold (printable ASCII, Latin-1, general punctuation);
#: anything else is shown as `?`.
CHARSET = frozenset(
    "\t\n"
    + "".join(chr(c) for c in range(0x20, 0x7F))
    + "".join(chr(c) for c in range(0xA0, 0x180))
    + "".join(chr(c) for c in range(0x2010, 0x2040))
)
MAX_TEXT = 1 << 20
#: What an observation holds: the text, the image, or both (a dict).
ObservationMode = Literal["text", "image", "both"]
#: An observation: the text (`observation="text"`), else a dict with `image` (and `text`).
Observation = str | dict[str, Any]


def is_manipulation(task: TaskRecord) -> bool:
    """Manipulation tasks are acted out; memory tasks are answered with frames."""
    return "manipulation" in task.tags or (task.level is not None and task.valid_frames is None)


def step_budget(task: TaskRecord, graph: SceneGraph, start: Snapshot | None = None) -> int:
    """The number of actions an agent may take on `task`: ManiTaskGen's 20 per step of a
    process task; for an outcome task, 20 plus 10 for each item past the first that must
    move (`items_to_move`, from `start`)."""
    if task.goal.kind == "then":
        return STEPS_PER_TASK * len(children(task.goal))
    extra = STEPS_PER_EXTRA_TARGET * state_changes(task, graph, start)
    if task.level == 4 or "outcome" in task.tags:
        n = items_to_move(task, graph, start)
        return STEPS_PER_TASK + STEPS_PER_EXTRA_TARGET * max(0, n - 1) + extra
    return STEPS_PER_TASK + extra


def state_changes(task: TaskRecord, graph: SceneGraph, start: Snapshot | None = None) -> int:
    """How many objects the goal changes a BEHAVIOR state of (`cooked`, `covered` ...:
    `fdc.predicates.checkers.object_states`), at the fewest, from `start`: the objects of
    its state literals false there, a conjunction the union of its parts', a disjunction
    its cheapest part's (counts expanded; 0 for a goal too large to expand)."""
    from fdc.core.limits import current
    from fdc.predicates.algebra import NotExpandable, expand_counts
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.checkers.object_states import STATES
    from fdc.predicates.registry import Context

    if not any(a.predicate in STATES for a in atoms(task.goal)):
        return 0
    try:
        goal = expand_counts(task.goal, current().goal_atoms)
    except NotExpandable:
        return 0
    registry = default_registry()
    ctx = Context(graph=graph, state=EmbeddedWorld(graph, start=start).state)
    return len(fewest_to_change(
        goal, STATES, lambda a: bool(registry.evaluate(a.predicate, a.args, ctx))))


def items_to_move(task: TaskRecord, graph: SceneGraph, start: Snapshot | None = None) -> int:
    """How many items the goal makes move, at the fewest, from `start` (None: the scene's
    initial state):
    the items of its relocation literals that are false there (an atom that must become
    true, or a negated one that holds), a conjunction the union of its parts', a
    disjunction its cheapest part's, a count the items it must bring or take away."""
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.registry import Context

    registry = default_registry()
    relocating = registry.relocating()
    ctx = Context(graph=graph, state=EmbeddedWorld(graph, start=start).state)
    if task.thresholds:
        ctx = ctx.with_thresholds(task.thresholds, registry)

    def count(g: GCount) -> frozenset[str]:
        if g.relation not in relocating or g.same_other:
            return frozenset()
        # the fewest: items to bring (at least) or to take away (at most), first in order
        true = [x for x in g.items if any(registry.evaluate(g.relation, a.args, ctx)
                                          for a in (g.atom_for(x, y)
                                                    for y in g.others or (None,)))]
        false = [x for x in g.items if x not in true]
        bring = max(0, g.number - len(true)) if g.op != "at-most" else 0
        leave = max(0, len(true) - g.number) if g.op != "at-least" else 0
        return frozenset(false[:bring] + true[:leave])

    return len(fewest_to_change(task.goal, relocating,
                                lambda a: bool(registry.evaluate(a.predicate, a.args, ctx)),
                                count=count, descend=False))


def parse_action(action: AgentAction | Mapping[str, Any] | str) -> AgentAction | str:
    """An `AgentAction`, or the reason the input is not one."""
    if isinstance(action, AgentAction):
        return action
    try:
        if isinstance(action, str):
            return AgentAction.model_validate_json(action)
        return AgentAction.model_validate(action)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the action"
        names = ", ".join(a.value for a in ActionName)
        return (f"not an action: {where}: {first['msg']} (write JSON such as "
                f'{{"action": "go_to", "target": "<surface id>"}}; actions: {names})')


def within_reach(posed: PosedGraph, agent: AgentPose, what: str, *, reach_m: float,
                 arm_reach_m: float) -> bool:
    """Whether a robot at `agent` can pick or place at `what` (a surface or an object,
    where it is now): within `reach_m` of a standing point that serves it, or, when
    none does, within `arm_reach_m` of the thing (the embedded world's rule)."""
    pts, point = posed.standing_points_for(what)
    if pts:
        return min(math.hypot(p.position[0] - agent.x, p.position[1] - agent.y)
                   for p in pts) <= reach_m + 1e-9
    if point is None:
        return True
    return math.hypot(point[0] - agent.x, point[1] - agent.y) <= arm_reach_m + 1e-9


def listed_regions(posed: SceneView, surface_id: str) -> list[Region]:
    """What `show_receptacle` lists for a surface now: the regions around each item on
    it, then its 3x3 cells (only the cells when it is empty)."""
    around = posed.anchor_regions(surface_id) if posed.items_on(surface_id) else []
    around.sort(key=lambda r: r.anchor_id or "")  # each item's 8, in ring order
    return around + posed.cells(surface_id)


def preview_place(posed: SceneView, item: str, surface_id: str, labels: Sequence[str]
                  ) -> tuple[Placement | None, str, dict[str, Any]]:
    """Where `place(surface_id, labels)` would put `item`, without doing it: the
    placement (None and the reason when there is none) and the embedded world's `place`
    arguments that put it there. The rules:

    - no labels: anywhere on the surface (`on`);
    - cells: the item's centre in the first chosen cell it fits in (its footprint
      anywhere on the surface, as ManiTaskGen judges cells);
    - regions around one item: its centre in the first chosen region it fits in, its
      footprint within the chosen regions (adjacent ones merged);
    - regions around two items: between them, its centre within the chosen regions.
    """
    import shapely

    cfg = posed.config.placement
    if not labels:
        return place(posed, Relation.ON, (item, surface_id), cfg), "", {
            "target": surface_id, "relation": Relation.ON}
    regions = {r.id: r for r in listed_regions(posed, surface_id)}
    unknown = [x for x in labels if x not in regions]
    if unknown:
        return None, (f"{', '.join(f'`{x}`' for x in unknown)} is not a region of "
                      f"`{surface_id}` now (show_receptacle lists them)"), {}
    chosen = [regions[x] for x in dict.fromkeys(labels)]
    cells = [r for r in chosen if r.anchor_id is None]
    if cells and len(cells) != len(chosen):
        return None, "choose cells or regions around items, not both", {}
    last = ""
    if cells:
        for r in cells:
            res = place(posed, Relation.IN_CELL, (item, surface_id, r.direction), cfg)
            if res.ok:
                return res, "", {"target": surface_id, "relation": Relation.IN_CELL,
                                 "cell": r.direction}
            last = res.reason
        return None, last, {}
    anchors = list(dict.fromkeys(r.anchor_id for r in chosen if r.anchor_id is not None))
    if item in anchors:
        return None, f"`{item}` cannot go next to itself", {}
    names = {r.id for r in chosen}
    if len(anchors) == 1:
        for r in chosen:
            res = place(posed, Relation.DIRECTION, (item, anchors[0], r.direction), cfg)
            if res.ok and set(res.region_ids) <= names:
                return res, "", {"target": anchors[0], "relation": Relation.DIRECTION,
                                 "direction": r.direction}
            last = res.reason if not res.ok else (
                f"`{item}` fits {r.direction.value} of `{anchors[0]}` only across "
                + ", ".join(f"`{x}`" for x in res.region_ids) + ": choose those regions")
        return None, last, {}
    if len(anchors) == 2:
        res = place(posed, Relation.BETWEEN, (item, anchors[0], anchors[1]), cfg)
        if not res.ok or res.pose is None:
            return None, res.reason, {}
        union = shapely.union_all([r.polygon for r in chosen]).buffer(1e-6)
        x, y = res.pose.position[0], res.pose.position[1]
        if not shapely.contains_xy(union, x, y):
            return None, (f"between `{anchors[0]}` and `{anchors[1]}` the item's centre "
                          f"would be at ({x:.2f}, {y:.2f}), outside the chosen regions"), {}
        return res, "", {"target": anchors[0], "relation": Relation.BETWEEN,
                         "second": anchors[1]}
    return None, "choose regions around one item, or around two to go between them", {}


@dataclass(frozen=True)
class StepRecord:
    """One action the agent took and what came of it."""

    action: AgentAction | None  # None: the input was not an action
    ok: bool
    reason: str
    snapshot: int  # the world's last snapshot after the action


class ManipulationEnv(gymnasium.Env[Observation, str]):
    """ManiTaskGen's benchmark loop over fdc's embedded world (see the module doc).

    `tasks`: the tasks `reset` draws from when not given one (`options={"task": ...}`,
    a `TaskRecord` or the id of one of `tasks`). `budget`: a fixed step budget instead
    of `step_budget(task)` (None: the task's). `after`: the world the experience left
    behind (`fdc.compiler.start.start_snapshots`), where a memory-manipulation task
    starts; resetting to one without it is a `ValueError`.

    `observation`: "text" (the default: a `str`, `spaces.Text`), "image" (a dict with
    `image`, an (H, W, 3) uint8 array) or "both" (a dict with `text` and `image`):
    `observation_space` is then a `spaces.Dict` of `spaces.Text` and/or
    `spaces.Box(0, 255, (H, W, 3), uint8)`. `camera`: the camera of the images (default
    `Camera()`, 640x480); `base_dir`: the folder the scene's mesh paths are relative to
    (the scene file's). The renderer is made at the first image and reused; `close()`
    frees it. Rendering needs EGL (`RenderUnavailable` names what to install)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium's)

    def __init__(self, graph: SceneGraph, tasks: Sequence[TaskRecord] = (), *,
                 budget: int | None = None, render_mode: str | None = None,
                 after: Snapshot | None = None, observation: ObservationMode = "text",
                 camera: Camera | None = None, base_dir: Path | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if observation not in ("text", "image", "both"):
            raise ValueError(f"observation must be 'text', 'image' or 'both', not "
                             f"{observation!r}")
        self.observation_mode: ObservationMode = observation
        self.camera = camera
        self.base_dir = base_dir
        self._renderers: dict[float, Renderer] = {}  # by horizontal field of view
        self.render_mode = render_mode
        self.graph = graph
        self.tasks = [t for t in tasks if is_manipulation(t)]
        self._budget_override = budget
        self.after = after
        text_space = spaces.Text(max_length=MAX_TEXT, min_length=1, charset=CHARSET)
        self.observation_space: spaces.Space[Any] = text_space
        if observation != "text":
            from fdc.sim_bridge.render.camera import Camera

            cam = camera or Camera()
            image = spaces.Box(0, 255, (cam.height, cam.width, 3), np.uint8)
            self.observation_space = spaces.Dict(
                {"image": image} if observation == "image" else
                {"text": text_space, "image": image})
        self.action_space = spaces.Text(max_length=4096, min_length=1, charset=CHARSET)
        self._world: EmbeddedWorld | None = None
        self._task: TaskRecord | None = None
        self._at: str | None = None  # the surface the robot went to
        self._shown: tuple[str, list[Region]] | None = None
        self._records: list[StepRecord] = []
        self._done = False
        self._last = ""
        self._obs = ""
        self.budget = 0

    # ----- read-only views ---------------------------------------------------------------
    @property
    def world(self) -> EmbeddedWorld:
        if self._world is None:
            raise RuntimeError("call reset() first")
        return self._world

    @property
    def task(self) -> TaskRecord:
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    @property
    def records(self) -> tuple[StepRecord, ...]:
        return tuple(self._records)

    @property
    def steps(self) -> int:
        return len(self._records)

    @property
    def done(self) -> bool:
        return self._done

    @property
    def at_surface(self) -> str | None:
        return self._at

    def reachable(self, what: str) -> bool:
        w = self.world
        return within_reach(w.state.posed, w.agent_pose(), what, reach_m=w.config.reach_m,
                            arm_reach_m=w.config.arm_reach_m)

    def floor_items(self) -> list[str]:
        """The movable items that stand on no surface (on the floor), not in the hand."""
        posed = self.world.state.posed
        held = self.world.held_object()
        return [o.id for o in posed.objects() if o.kind is Kind.MOVABLE and o.id != held
                and posed.support_of(o.id) is None]

    def regions(self, surface_id: str) -> list[Region]:
        return listed_regions(self.world.state.posed, surface_id)

    def doors(self, object_id: str) -> list[Surface]:
        """The containers of `object_id` that open and close (those with a door or a
        drawer), as they are now."""
        return [c for c in self.world.state.posed.containers_of(object_id)
                if c.part is not None]

    def valid_actions(self) -> list[AgentAction]:
        """Well-formed actions that name things that exist and fit the robot's state now
        (the world may still refuse some: an item out of reach, a full surface)."""
        w = self.world
        posed = w.state.posed
        out = [AgentAction(action=ActionName.GO_TO, target=s.id)
               for s in self.graph.surfaces() if s.object_id != w.held_object()]
        floor = self.floor_items()
        out += [AgentAction(action=ActionName.GO_TO, target=x) for x in floor]
        if w.held_object() is None:
            out += [AgentAction(action=ActionName.PICK, target=x) for x in floor
                    if self.reachable(x)]
        here = self._at
        if here is not None:
            out.append(AgentAction(action=ActionName.CHANGE_VIEW))
            out.append(AgentAction(action=ActionName.SHOW_RECEPTACLE, target=here))
            held = w.held_object()
            for c in self.doors(posed.surface(here).object_id) if held is None else ():
                name = ActionName.CLOSE if c.is_open else ActionName.OPEN
                out.append(AgentAction(action=name, target=c.id))
            if held is None:
                out += [AgentAction(action=ActionName.PICK, target=o.id)
                        for o in posed.items_on(here) if o.kind is Kind.MOVABLE]
            else:
                out.append(AgentAction(action=ActionName.PLACE, target=here))
                if self._shown is not None and self._shown[0] == here:
                    out += [AgentAction(action=ActionName.PLACE, target=here, regions=[r.id])
                            for r in self._shown[1]]
        out.append(AgentAction(action=ActionName.CALL_END))
        return out

    # ----- gymnasium ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        task = self._choose_task((options or {}).get("task"))
        start = self.start_of(task)
        self._task = task
        self._world = EmbeddedWorld(self.graph, clock=LONG_DAY, seed=seed or 0, start=start)
        self.budget = self._budget_override if self._budget_override is not None \
            else step_budget(task, self.graph, start)
        self._at = None
        self._shown = None
        self._records = []
        self._done = False
        self._last = "none yet"
        self._obs = self._observe(first=True)
        return self._observation(), self._info(None)

    def step(self, action: AgentAction | Mapping[str, Any] | str
             ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        parsed = parse_action(action)
        act = parsed if isinstance(parsed, AgentAction) else None
        ok, reason = self._act(parsed) if isinstance(parsed, AgentAction) else (False, parsed)
        self._records.append(StepRecord(act, ok, reason, len(self.world.snapshots) - 1))
        label = _describe(act) if act is not None else "(not an action)"
        self._last = f"{label}: " + ("done" + (f" ({reason})" if reason else "") if ok
                                     else f"refused: {reason}")
        terminated = act is not None and act.action is ActionName.CALL_END and ok
        truncated = not terminated and self.steps >= self.budget
        verdict = None
        if terminated or truncated:
            self._done = True
            verdict = self.verdict()
        reward = 1.0 if verdict is not None and verdict.success else 0.0
        self._obs = self._observe()
        return self._observation(), reward, terminated, truncated, self._info(verdict)

    def start_of(self, task: TaskRecord) -> Snapshot | None:
        """The world `task` starts in: the env's `after` for a task that starts where
        the experience ends, else the scene's initial state (None)."""
        if task.experience is None:
            return None
        if self.after is None:
            raise ValueError(f"task `{task.id}` starts where the experience ends: give the "
                             "env the world after it (`after`)")
        return self.after

    def render(self) -> str | None:
        return self._obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        for r in self._renderers.values():
            r.release()
        self._renderers.clear()
        super().close()

    # ----- images ------------------------------------------------------------------------
    def _observation(self) -> Observation:
        if self.observation_mode == "text":
            return self._obs
        image = self.image()
        return {"image": image} if self.observation_mode == "image" else \
            {"text": self._obs, "image": image}

    def renderer(self, hfov_deg: float | None = None) -> Renderer:
        """The env's renderer of the scene with the camera's field of view, or another
        (`hfov_deg`; each made on first use, then reused)."""
        from fdc.sim_bridge.render import Renderer
        from fdc.sim_bridge.render.camera import Camera

        cam = self.camera or Camera()
        if hfov_deg is not None:
            cam = cam.model_copy(update={"hfov_deg": hfov_deg})
        found = self._renderers.get(cam.hfov_deg)
        if found is None:
            found = self._renderers[cam.hfov_deg] = Renderer(self.graph.scene, cam,
                                                             base_dir=self.base_dir)
        return found

    def view(self) -> tuple[AgentPose, Camera, str | None, bool]:
        """The view the image observation shows now: the robot's pose, the camera (aimed
        at the surface in view by `view_at` for it and the side the robot is at), that
        surface (None: at no surface), and whether its regions are drawn (after
        `show_receptacle`, while the robot stays there: then through a lens at least
        `SHOW_HFOV_DEG` wide, so that the receptacle the robot stands at is in view whole
        as ManiTaskGen's platform images show it, and not only the part before the head
        camera)."""
        from fdc.sim_bridge.render import ViewError, view_at

        w = self.world
        pose = w.agent_pose()
        cam = self.renderer().camera
        last = self._records[-1] if self._records else None
        just_shown = last is not None and last.ok and last.action is not None and \
            last.action.action is ActionName.SHOW_RECEPTACLE
        shown = self._shown is not None and (just_shown or self._shown[0] == self._at)
        sid = self._shown[0] if shown and self._shown is not None else self._at
        if sid is None:
            return pose, cam, None, False
        if shown:
            cam = self.renderer(show_lens(w.state.posed.surface(sid), pose, cam.hfov_deg)
                                ).camera
        side = side_of(w.state.posed.surface(sid), pose).value
        for ask in (side, None):
            try:
                _, aimed = view_at(self.graph, sid, ask, cam)
            except ViewError:
                continue
            return pose, aimed, sid, shown
        return pose, cam, sid, shown

    def image(self) -> np.ndarray:
        """The image observation now: (H, W, 3) uint8, the view from where the robot
        stands (`view`), the listed regions drawn after `show_receptacle`."""
        pose, cam, sid, shown = self.view()
        rgb = self.renderer(cam.hfov_deg).render(self.world.snapshot(), pose, cam).rgb
        if shown and sid is not None and self._shown is not None:
            z = self.world.state.posed.surface(sid).z
            rgb = draw_regions(rgb, self._shown[1], z, pose, cam)
        return rgb

    def verdict(self) -> Verdict:
        """The task's goal judged on the trajectory so far (`fdc.predicates.verify`;
        imported here: the one place sim_bridge reads compiled goals)."""
        t = self.task
        return verify_snapshots({t.id: t.goal}, self.graph, self.world.snapshots,
                                thresholds={t.id: t.thresholds})[t.id]

    # ----- actions -----------------------------------------------------------------------
    def _act(self, a: AgentAction) -> tuple[bool, str]:
        name = a.action
        if name is not ActionName.PLACE and a.regions:
            return False, f"only place takes regions, not {name.value}"
        if name is not ActionName.CHANGE and (a.rule or a.other):
            return False, f"only change takes a rule, not {name.value}"
        needs_target = name in (ActionName.GO_TO, ActionName.PICK, ActionName.SHOW_RECEPTACLE,
                                ActionName.PLACE, ActionName.OPEN, ActionName.CLOSE,
                                ActionName.CHANGE)
        if needs_target and not a.target:
            return False, f"{name.value} needs a target"
        if not needs_target and a.target:
            return False, f"{name.value} takes no target"
        if name is ActionName.GO_TO:
            return self._go_to(a.target or "")
        if name is ActionName.CHANGE_VIEW:
            return self._change_view()
        if name is ActionName.PICK:
            return self._result(self.world.pick(a.target or ""))
        if name is ActionName.SHOW_RECEPTACLE:
            return self._show(a.target or "")
        if name is ActionName.PLACE:
            return self._place(a.target or "", a.regions)
        if name in (ActionName.OPEN, ActionName.CLOSE):
            return self._open(a.target or "", name is ActionName.OPEN)
        if name is ActionName.CHANGE:
            if not a.rule:
                return False, "change needs a rule (`toggle-on`, `cook`, `fill`, ...)"
            return self._result(self.world.change(a.rule, a.target or "", a.other))
        return self._result(self.world.stop())

    def _result(self, res: ActionResult) -> tuple[bool, str]:
        if res.ok:
            self._shown = None if res.action.startswith(("pick", "place")) else self._shown
        return res.ok, res.reason

    def _surface(self, target: str) -> tuple[Surface | None, str]:
        """The surface a go_to / show_receptacle / place target names now: a surface id;
        an item: the surface it stands on; furniture with one surface: that one."""
        g = self.graph
        if not g.has(target):
            return None, f"there is no `{target}` in the scene"
        posed = self.world.state.posed
        e = g.entity(target)
        if isinstance(e, Surface):
            return posed.surface(target), ""
        if isinstance(e, ObjectInfo):
            if e.kind is Kind.MOVABLE:
                sid = posed.support_of(target)
                if sid is None:
                    return None, f"`{target}` stands on no surface"
                return posed.surface(sid), ""
            if len(e.surfaces) == 1:
                return posed.surface(e.surfaces[0]), ""
            if e.surfaces:
                return None, (f"`{target}` has several surfaces: name one of "
                              + ", ".join(f"`{s}`" for s in e.surfaces))
            return None, f"`{target}` has no surface"
        return None, f"`{target}` is a room, not a surface"

    def _go_to(self, target: str) -> tuple[bool, str]:
        if target in self.floor_items():  # beside the item, at no surface
            res = self.world.navigate(target)
            if res.ok:
                self._at = None
            return res.ok, res.reason
        s, why = self._surface(target)
        if s is None:
            return False, why
        if s.object_id == self.world.held_object():
            return False, f"`{s.id}` is on `{s.object_id}`, in the robot's hand"
        res = self.world.navigate(s.id)
        if res.ok:
            self._at = s.id
        return res.ok, res.reason

    def _change_view(self) -> tuple[bool, str]:
        if self._at is None:
            return False, "go_to a surface first"
        w = self.world
        posed = w.state.posed
        pts, _ = posed.standing_points_for(self._at)
        pts = [p for p in pts if p.reachable]
        if not pts:
            return False, f"`{self._at}` has no standing points to change between"
        here = w.agent_pose()
        current = min(pts, key=lambda p: math.hypot(p.position[0] - here.x,
                                                    p.position[1] - here.y))
        sides = {p.side for p in pts}
        if len(sides) < 2:
            return False, f"`{self._at}` can be reached from its {current.side.value} side only"
        k = SIDE_RING.index(current.side)
        for j in range(1, len(SIDE_RING)):
            side = SIDE_RING[(k + j) % len(SIDE_RING)]
            if side in sides:
                nxt = next(p for p in pts if p.side is side)
                return self._result(w.navigate(nxt.id))
        return False, "no other side"  # pragma: no cover - two sides exist

    def _show(self, target: str) -> tuple[bool, str]:
        s, why = self._surface(target)
        if s is None:
            return False, why
        if not self.reachable(s.id):
            return False, f"`{s.id}` is out of reach: go_to it first"
        self._shown = (s.id, self.regions(s.id))
        return True, ""

    def _place(self, target: str, labels: Sequence[str]) -> tuple[bool, str]:
        w = self.world
        item = w.held_object()
        if item is None:
            return False, "the hand is empty: pick something first"
        if target in self.graph.layout.room_ids or target in self.floor_items():
            # a room: on its floor, by the robot; an item on the floor: beside it
            if labels:
                return False, "a place on the floor takes no regions"
            if target in self.graph.layout.room_ids:
                return self._result(w.place_on_floor(target))
            here = w.room_of((w.agent_pose().x, w.agent_pose().y))
            return self._result(w.place_on_floor(here or "", near=target))
        s, why = self._surface(target)
        if s is None:
            return False, why
        if s.object_id == item:
            return False, f"`{item}` cannot go on itself"
        res, reason, kwargs = preview_place(w.state.posed, item, s.id, labels)
        if res is None or not res.ok:
            return False, reason or (res.reason if res is not None else "no place found")
        target_id = kwargs.pop("target")
        return self._result(w.place(target_id, **kwargs))

    def _open(self, target: str, value: bool) -> tuple[bool, str]:
        """Open or close what `target` names (the embedded world's `open` / `close`);
        a container without a door or a drawer (a box without a lid) has nothing to
        close."""
        keys = open_keys(self.graph, target)
        posed = self.world.state.posed
        if keys and all(posed.surface(k).part is None for k in keys):
            return False, (f"`{target}` has no door or drawer: it is always open")
        w = self.world
        held = w.held_object()
        if held is not None:  # fdc-home's `open` / `close` need (hand-empty)
            verb = "open" if value else "close"
            return False, (f"the hand holds `{held}`: put it down first (the one-armed "
                           f"robot needs its hand to {verb} a door or drawer)")
        return self._result(w.open(target) if value else w.close(target))

    # ----- observations ------------------------------------------------------------------
    def _choose_task(self, given: Any) -> TaskRecord:
        if isinstance(given, TaskRecord):
            task = given
        elif isinstance(given, str):
            found = [t for t in self.tasks if t.id == given]
            if not found:
                raise ValueError(f"no manipulation task `{given}` among the env's tasks")
            task = found[0]
        elif given is None:
            if not self.tasks:
                raise ValueError("no task: pass options={'task': TaskRecord} or give the "
                                 "env manipulation tasks")
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        else:
            raise TypeError(f"options['task'] must be a TaskRecord or a task id, not "
                            f"{type(given).__name__}")
        if not is_manipulation(task):
            raise ValueError(f"task `{task.id}` is a memory task: use FrameSelection")
        return task

    def _info(self, verdict: Verdict | None) -> dict[str, Any]:
        w = self.world
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "steps": self.steps,
            "budget": self.budget,
            "held": w.held_object(),
            "at": self._at,
            "last_ok": self._records[-1].ok if self._records else None,
            "last_reason": self._records[-1].reason if self._records else "",
        }
        if verdict is not None:
            info["success"] = verdict.success
            info["verdict"] = verdict.reason
        return info

    def _observe(self, first: bool = False) -> str:
        w = self.world
        t = self.task
        posed = w.state.posed
        lines = [f"Task: {t.instructions[0] if t.instructions else t.goal_pddl}",
                 f"Step {self.steps} of {self.budget}. Last action: {self._last}."]
        if self._at is None:
            where = "where the experience ended" if t.experience is not None else "the start"
            lines.append(f"You stand at {where}, at no surface.")
        else:
            s = posed.surface(self._at)
            side = side_of(s, w.agent_pose())
            owner = self.graph.object(s.object_id)
            room = posed.room_of_object(owner.id) or "no room"
            lines.append(f"You stand at the {side.value} side of `{s.id}` ({owner.name}, "
                         f"in {room}).")
            items = [o for o in posed.items_on(s.id) if o.kind is Kind.MOVABLE]
            if s.container is not None and not s.is_open:
                lines.append(f"`{s.id}` is closed: open it to see inside.")
            elif items:
                lines.append(f"On `{s.id}`: " + "; ".join(_item_text(o) for o in items) + ".")
            else:
                lines.append(f"`{s.id}` is empty.")
            containers = posed.containers_of(owner.id)
            if containers:
                lines.append(f"`{owner.id}` has " + ", ".join(
                    f"`{c.id}` ({_open_text(c)})" for c in containers) + ".")
        held = w.held_object()
        lines.append("You hold " + (_item_text(self.graph.object(held)) if held else
                                    "nothing") + ".")
        if self._shown is not None:
            sid, regions = self._shown
            side = side_of(posed.surface(sid), w.agent_pose())
            lines.append(f"Regions of `{sid}` (place in them by id):")
            for r in regions:
                if r.anchor_id is None:
                    lines.append(f"  {r.id}: the {r.direction.value} cell (the surface's own "
                                 "words, as seen from its front)")
                else:
                    seen = relative_direction(r.direction, side).value
                    lines.append(f"  {r.id}: {seen} of `{r.anchor_id}` as you see it")
        if first:
            lines.append("Surfaces: " + ", ".join(f"`{s.id}`" for s in self.graph.surfaces())
                         + ".")
            floor = self.floor_items()
            if floor:
                lines.append("On the floor: " + "; ".join(
                    _item_text(self.graph.object(x)) for x in floor) + ".")
            containers = [s for s in posed.surfaces() if s.container is not None]
            if containers:
                lines.append("Containers: " + ", ".join(
                    f"`{c.id}` ({_open_text(c)})" for c in containers) + ".")
            lines.append("Actions (JSON): go_to{target}, change_view, pick{target}, "
                         "show_receptacle{target}, place{target, regions}, open{target}, "
                         "close{target}, call_end.")
        text = "\n".join(lines)
        return "".join(c if c in CHARSET else "?" for c in text)[:MAX_TEXT]


def show_lens(surface: Surface, pose: AgentPose, hfov_deg: float) -> float:
    """The horizontal field of view (degrees) that takes in the whole of `surface` seen
    from `pose`, with a margin: `hfov_deg` (the head camera's) when it does already, else
    wider by steps of `SHOW_HFOV_STEP_DEG`, at most `SHOW_HFOV_DEG`."""
    xy = np.asarray(surface.polygon.exterior.coords)[:, :2]
    bearing = np.arctan2(xy[:, 1] - pose.y, xy[:, 0] - pose.x) - pose.yaw_rad
    half = float(np.max(np.abs((bearing + math.pi) % (2 * math.pi) - math.pi)))
    need = math.degrees(2 * half) * 1.15
    if need <= hfov_deg:
        return hfov_deg
    return min(SHOW_HFOV_DEG, hfov_deg + math.ceil((need - hfov_deg) / SHOW_HFOV_STEP_DEG)
               * SHOW_HFOV_STEP_DEG)


def _describe(a: AgentAction) -> str:
    parts = [a.action.value] + ([a.rule] if a.rule else []) + ([a.target] if a.target else []) \
        + ([a.other] if a.other else [])
    if a.regions:
        parts.append("[" + ", ".join(a.regions) + "]")
    return " ".join(parts)


def _open_text(c: Surface) -> str:
    if c.part is None:
        return "open, no door"
    return "open" if c.is_open else "closed"


def _item_text(o: ObjectInfo) -> str:
    attrs = ", ".join(f"{k} {v}" for k, v in sorted(o.attributes.items()))
    return f"`{o.id}` ({o.name}{'; ' + attrs if attrs else ''})"


__all__ = [
    "CHARSET",
    "ManipulationEnv",
    "StepRecord",
    "is_manipulation",
    "items_to_move",
    "listed_regions",
    "parse_action",
    "preview_place",
    "step_budget",
    "within_reach",
]
