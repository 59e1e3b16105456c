"""The manipulation oracle's trace written as a plan of fdc-home's actions (`oracle_plan`),
for `fdc validate --solve` and `fdc audit` to check in the planning abstraction when no
planner's plan is carried out by the world. See docs/architecture.md ("Validation and
planning certificates") and `fdc.sim_bridge.world.plans` (what each step does)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.env import ManipulationEnv
from fdc.agents.oracle.errors import Unsolvable
from fdc.agents.oracle.manipulation import PLANNING_BUDGET, oracle_actions
from fdc.core.limits import current
from fdc.predicates.algebra import expand_counts
from fdc.predicates.builtin import default_registry
from fdc.predicates.goal import GAtom, atoms
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.regions import Direction
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world import transitions as T
from fdc.sim_bridge.world.embedded import side_of
from fdc.sim_bridge.world.plans import At, PlanStep

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot

def oracle_plan(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
                ) -> list[PlanStep]:
    """The oracle's trace (`oracle_actions`) written as a plan of fdc-home's actions (as
    a planner's), for `fdc validate --solve` to check in the planning abstraction when
    no planner's plan is carried out by the world. Acted out step by step: a pick is
    `pick` from the surface the item stands on (`pick-from-floor` from none); a
    placement on furniture the action whose effect the goal needs (`place-between`,
    `place-at-side`, `place-around`, `place-in-cell`: the first relation of the goal's
    about the item that holds after it, the item's last placement judged at the end;
    where an anchor of it moved after that placement, the item is picked and put down
    by it once more at the end, as the abstraction forgets the relations of what is
    picked), else `place-in-cell` in the cell the item went to (a plain `place` may put
    it in any cell, for the abstraction), `place-on-item` onto an item's top,
    `place-inside` into a container item on furniture (`place-in-item`, bddl-home's,
    at its floor, into one on the floor or on an item), each with the pose the oracle
    put the item at (`At`: written `; at SURFACE X Y YAW`, and on furniture `from
    SIDE`, the side of the surface the robot stood at, which the world's replay follows:
    `fdc.sim_bridge.world.plans`); the robot walks (`navigate-to-receptacle`,
    `navigate-to-item`, `navigate-to-item-inside` to the floor of an item's inside)
    to each surface it picks from, places on, or opens, when it is
    not there; looking around is no action there; a placement on the floor is
    bddl-home's `place-on-floor` (`place-on-floor-next-to` beside an item on the floor,
    walked to by `navigate-to-object`).
    `Unsolvable` when the oracle finds no trace."""
    trace = oracle_actions(task, graph, after)
    env = ManipulationEnv(graph, budget=PLANNING_BUDGET, after=after)
    env.reset(options={"task": task})
    writer = _PlanWriter(task, graph, env)
    for act in trace:
        writer.act(act)
    return writer.finish()


@dataclass(frozen=True)
class _FurniturePlacement:
    """A placement on furniture, written as an action when the plan is complete: the
    item, the surface, the relation of the goal's it made then (None: none of them), the
    cell it went to (written when it made none) and where it put the item."""

    item: str
    surface: str
    made: GAtom | None
    cell: GAtom | None
    pose: At


@dataclass(frozen=True)
class _PutBack:
    """An item put down once more at the end of the plan, by its anchors: the relation
    that placement makes, the surface, and the placement's step."""

    relation: GAtom
    surface: str
    step: PlanStep


class _PlanWriter:
    """The oracle's trace acted out again in `env`, each action written as fdc-home's
    (`oracle_plan`)."""

    def __init__(self, task: TaskRecord, graph: SceneGraph, env: ManipulationEnv) -> None:
        self.task, self.graph, self.env = task, graph, env
        self.registry = default_registry()
        goal_atoms = atoms(expand_counts(task.goal, current().goal_atoms))
        self.wanted = [a for a in goal_atoms
                       if a.predicate in self.registry.placed_in_region()]
        self.next_to = [a for a in goal_atoms if a.predicate == "next-to"]
        self.steps: list[PlanStep | _FurniturePlacement] = []
        self.at: str | None = None  # the surface the robot is at, in the abstraction
        self.last: dict[str, int] = {}  # item -> the step of its last furniture placement

    # ----- what holds now -------------------------------------------------------------

    def context(self) -> Context:
        ctx = Context(graph=self.graph, state=self.env.world.state)
        return ctx.with_thresholds(self.task.thresholds, self.registry) \
            if self.task.thresholds else ctx

    def room_of(self, item: str) -> str | None:
        """The room the `in-room` checker puts the item in now (the abstraction's); None
        outside every room."""
        rooms = sorted(r.id for r in self.graph.rooms())
        truth = self.registry.evaluate_many("in-room", [(item, r) for r in rooms],
                                            self.context())
        found = [r for r, ok in zip(rooms, truth.tolist(), strict=True) if ok]
        return found[0] if found else None

    def made_by(self, item: str, on: str) -> GAtom | None:
        """The first relation of the goal's about `item` (on furniture surface `on`)
        that holds now, in the order a placement is written as fdc-home's action
        (`Registry.placed_in_region`; none: a plain `place`)."""
        ctx = self.context()
        made = [a for a in self.wanted if a.args[0] == item and
                (a.predicate != "in-cell" or a.args[1] == on)
                and self.registry.evaluate(a.predicate, a.args, ctx)]
        order = self.registry.placed_in_region()
        return min(made, key=lambda a: order.index(a.predicate)) if made else None

    def cell_of(self, item: str, on: str) -> GAtom | None:
        """The cell of furniture surface `on` that `item` is in now, by the checkers."""
        ctx = self.context()
        for d in Direction:
            a = GAtom(predicate="in-cell", args=(item, on, d.value))
            if self.registry.evaluate(a.predicate, a.args, ctx):
                return a
        return None

    # ----- steps ----------------------------------------------------------------------

    def furniture(self, surface: str) -> tuple[str, str]:
        """The furniture a surface belongs to and its room (fdc-home's last arguments)."""
        owner = self.graph.object(self.graph.surface(surface).object_id)
        return owner.id, f"{owner.room}"

    def walk(self, surface: str) -> list[PlanStep]:
        """The walk to `surface` (none when the robot is there)."""
        if self.at == surface:
            return []
        self.at = surface
        owner = self.graph.object(self.graph.surface(surface).object_id)
        if owner.kind is not Kind.MOVABLE:
            return [PlanStep("navigate-to-receptacle", (surface, owner.id, f"{owner.room}"))]
        room = self.room_of(owner.id)
        if self.graph.surface(surface).container is not None:  # the floor of its inside
            if room is None:
                raise Unsolvable(f"`{owner.id}` is in no room")
            return [PlanStep("navigate-to-item-inside", (surface, owner.id, room))]
        return [PlanStep("navigate-to-item", (surface, owner.id, room)) if room else
                PlanStep("navigate-to-item-outside", (surface, owner.id))]

    def next_to_made(self, item: str, on: str) -> PlanStep | None:
        """bddl-home's placement that makes a `next-to` of the goal's about `item`,
        just put on furniture surface `on`, when one holds now: `place-next-to` on a
        surface of the furniture it names, `place-next-to-item` beside an item on
        `on` (None: neither)."""
        world = self.env.world
        posed = world.state.posed
        ctx = self.context()
        pose = world.object_pose(item)
        w, _, _, z = pose.orientation
        put = At(on, pose.position[0], pose.position[1], 2 * math.atan2(z, w),
                 side_of(posed.surface(on), world.agent_pose()))
        owner, room = self.furniture(on)
        for a in self.next_to:
            if a.args[0] != item or not self.registry.evaluate(a.predicate, a.args, ctx):
                continue
            if a.args[1] == owner:
                return PlanStep("place-next-to", (item, owner, on, room), put)
            if posed.support_of(a.args[1]) == on:
                return PlanStep("place-next-to-item", (item, a.args[1], on, owner, room), put)
        return None

    def placing(self, item: str, on: str, rel: GAtom | None, pose: At) -> PlanStep:
        """The placement of `item` on furniture surface `on` that makes `rel` (None: a
        plain `place`)."""
        if rel is None:
            return PlanStep("place", (item, on, *self.furniture(on)), pose)
        if rel.predicate == "in-cell":
            return PlanStep("place-in-cell", (item, on, rel.args[2], *self.furniture(on)),
                            pose)
        return PlanStep(f"place-{rel.predicate}", (*rel.args, on, *self.furniture(on)), pose)

    def act(self, act: AgentAction) -> None:
        """Write one action of the trace, then take it in the environment."""
        world = self.env.world
        posed = world.state.posed
        held = world.held_object()
        if act.action is ActionName.PICK and act.target is not None:
            self.write_pick(act.target)
        elif act.action in (ActionName.OPEN, ActionName.CLOSE) and act.target is not None:
            doors = [s.id for s in posed.surfaces() if s.container is not None
                     and (s.id == act.target or s.object_id == act.target)]
            if not doors:
                raise Unsolvable(f"`{act.action.value} {act.target}` opens nothing")
            where = self.at if self.at in doors else doors[0]
            assert where is not None
            self.steps += self.walk(where)
            self.steps.append(PlanStep(act.action.value,
                                       (self.graph.surface(where).object_id, where)))
        elif act.action is ActionName.CHANGE and act.target is not None and act.rule:
            self.steps += self.change_steps(act.rule, act.target, act.other)
        self.env.step(act)
        if not self.env.records[-1].ok:
            raise Unsolvable(f"the oracle's trace is refused: {self.env.records[-1].reason}")
        if act.action is ActionName.PLACE and held is not None:
            if self.env.world.state.posed.support_of(held) is None:
                self.write_floor(held, act.target or "")
            else:
                self.write_placement(held)

    def write_floor(self, held: str, target: str) -> None:
        """Write the placement that just put `held` down on the floor: bddl-home's
        `place-on-floor` in the room `target` (from the surface the robot stands at),
        or `place-on-floor-next-to` the item `target` (the robot walked to it)."""
        if target in self.graph.layout.room_ids:
            if self.env.at_surface is not None:
                self.steps += self.walk(self.env.at_surface)
            self.steps.append(PlanStep("place-on-floor", (held, target)))
            return
        room = self.room_of(target)
        if room is None:
            raise Unsolvable(f"`{target}` is in no room")
        self.steps.append(PlanStep("navigate-to-object", (target, room)))
        self.at = None
        self.steps.append(PlanStep("place-on-floor-next-to", (held, target, room)))

    def change_steps(self, rule: str, target: str, other: str | None) -> list[PlanStep]:
        """A state change (`change`) as bddl-home's action (`transitions.PLAN_ACTIONS`),
        with the walk it needs: to the surface the robot stands at for furniture, to the
        item (`navigate-to-object`) for an item not in the hand."""
        world = self.env.world
        posed = world.state.posed
        held = world.held_object()
        here = self.env.at_surface

        def at_surface_of(f: str) -> list[PlanStep]:
            if here is None or posed.surface(here).object_id != f:
                raise Unsolvable(f"`{rule} {target}`: the robot is at no surface of `{f}`")
            return [*self.walk(here)]

        def at_item(x: str) -> list[PlanStep]:
            room = self.room_of(x)
            if room is None:
                raise Unsolvable(f"`{rule} {target}`: `{x}` is in no room")
            self.at = None
            return [PlanStep("navigate-to-object", (x, room))]

        movable = self.graph.object(target).kind is Kind.MOVABLE
        if rule in ("toggle-on", "toggle-off"):
            if movable:
                return [PlanStep(f"{rule}-item", (target,))]
            assert here is not None
            return [*at_surface_of(target), PlanStep(rule, (target, here))]
        if rule in ("cook", "heat", "freeze"):
            on = posed.support_of(target)
            if on is None:
                raise Unsolvable(f"`{rule} {target}`: it stands on no surface")
            return [*self.walk(on), PlanStep(rule, (target, on, posed.surface(on).object_id))]
        if rule == "make" and other:
            args = self.recipe_args(target, other)
            if args[0].startswith("mix-") and held is not None:
                return [*at_item(target), PlanStep(args[0], (target, held, *args[1:], other))]
            on = posed.support_of(target)
            if on is None:
                raise Unsolvable(f"`make {target}`: it stands on no surface")
            return [*self.walk(on), PlanStep(args[0], (target, *args[1:], other, on,
                                                       posed.surface(on).object_id))]
        if rule in ("fill", "soak", "wash", "empty"):
            if here is None:
                raise Unsolvable(f"`{rule} {target}`: the robot is at no water source")
            source = posed.surface(here).object_id
            args = (target, *([other] if rule in ("wash", "empty") and other else []), here,
                    source)
            return [*self.walk(here), PlanStep(rule, args)]
        if rule == "wipe" and held is not None and other:
            if movable:
                return [*at_item(target), PlanStep("wipe-item", (target, held, other))]
            return [*at_surface_of(target), PlanStep("wipe", (target, held, other, here or ""))]
        if rule in ("pour", "spread") and held is not None and other:
            ctx = self.context()
            has = {s for s in T.GIVING if self.registry.evaluate(s, (held, other), ctx)}
            if movable:
                name = rule if "contains" in has else f"{rule}-filled" if "filled" in has \
                    else f"{rule}-source"
                return [*at_item(target), PlanStep(name, (held, target, other))]
            if rule == "spread":
                name = "spread-on-furniture" if "contains" in has else \
                    "spread-source-on-furniture"
                return [*at_surface_of(target), PlanStep(name, (held, target, other, here or ""))]
        if rule == "empty-into" and held is not None and other:
            return [*at_item(target), PlanStep("empty-into", (held, target, other))]
        if rule in ("fold", "unfold"):
            return [PlanStep(rule, (target,))]
        if rule == "attach" and other:
            if self.graph.object(other).kind is Kind.MOVABLE:
                return [*at_item(other), PlanStep("attach", (target, other))]
            return [*at_surface_of(other), PlanStep("attach-to-furniture",
                                                    (target, other, here or ""))]
        if rule == "detach" and other:  # held, or where it stands (`robot-at-object`)
            return [*([] if held == target else at_item(target)),
                    PlanStep("detach", (target, other))]
        raise Unsolvable(f"`{rule} {target}` has no action in the planning abstraction")

    def recipe_args(self, target: str, output: str) -> tuple[str, ...]:
        """bddl-home's action for making `output` in `target` by the scene's recipe its
        inputs satisfy now, and its arguments before the output: `cook-substance` and
        the substance, `cook-substance-2` and both (in name order), `melt`, the item
        inside and the floor it stands on, `mix-2`/`mix-3` and the substances (the tool
        held goes before them)."""
        world = self.env.world
        posed = world.state.posed
        ctx = self.context()
        for r in T.recipes_for(self.graph, output):
            form = T.recipe_form(r)
            if form is None or not all(self.registry.evaluate("contains", (target, sub), ctx)
                                       for sub in form.substances):
                continue
            if form.item is None:
                return (form.action, *form.substances)
            b = T.inside_item(self.graph, posed, form.item, target)
            s = posed.parent_surface(b) if b is not None else None
            if b is not None and s is not None:
                return (form.action, b, s.id)
        raise Unsolvable(f"`make {target}`: no recipe of {output} has an action in the "
                         "planning abstraction")

    def write_pick(self, item: str) -> None:
        src = self.env.world.state.posed.support_of(item)
        if src is None:
            room = self.room_of(item)
            self.steps.append(PlanStep("pick-from-floor", (item, room)) if room else
                              PlanStep("pick-from-floor-outside", (item,)))
            self.at = None
        else:
            self.steps += self.walk(src)
            self.steps.append(PlanStep("pick", (item, src)))

    def write_placement(self, held: str) -> None:
        """Write the placement that just put `held` down, with its pose."""
        world = self.env.world
        posed = world.state.posed
        on = posed.support_of(held)
        if on is None:
            raise Unsolvable(f"`{held}` was put down on no surface")
        owner = self.graph.object(posed.surface(on).object_id)
        pose = world.object_pose(held)
        w, _, _, z = pose.orientation
        put = At(on, pose.position[0], pose.position[1], 2 * math.atan2(z, w))
        if owner.kind is Kind.MOVABLE:  # on an item's top, or inside a container item
            under = posed.support_of(owner.id)
            if posed.surface(on).container is not None and under is not None and \
                    self.graph.object(posed.surface(under).object_id).kind \
                    is not Kind.MOVABLE:
                self.steps += self.walk(under)
                self.steps.append(PlanStep("place-inside", (held, owner.id, under,
                                                            *self.furniture(under)), put))
            elif posed.surface(on).container is not None:
                # a container on the floor or on an item: bddl-home's action, at its floor
                self.steps += self.walk(on)
                self.steps.append(PlanStep("place-in-item", (held, on, owner.id), put))
            else:
                self.steps += self.walk(on)
                self.steps.append(PlanStep("place-on-item", (held, on, owner.id), put))
            self.last.pop(held, None)
            return
        self.steps += self.walk(on)
        # where the robot stood: `at-side` is judged in its words there
        put = replace(put, side=side_of(posed.surface(on), world.agent_pose()))
        beside = self.next_to_made(held, on)
        if beside is not None:
            self.last.pop(held, None)
            self.steps.append(beside)
            return
        made = self.made_by(held, on)  # a relation the placement makes (a step of a sequence)
        # else in the cell it went to: the abstraction then knows it is in no other
        # (a plain `place` may put it in any, as for the cups put down beside the
        # centrepiece that the goal keeps out of the centre)
        cell = None if made is not None else self.cell_of(held, on)
        self.last[held] = len(self.steps)
        self.steps.append(_FurniturePlacement(held, on, made, cell, put))

    def finish(self) -> list[PlanStep]:
        """The plan: each furniture placement written as the relation it makes.

        An item's last placement makes the goal's relations about it that hold at the
        end; where an anchor moved after it, or the placement made another relation (a
        step of a sequence), the abstraction no longer has it (it forgets the relations
        of what is picked): the item is put down by it once more at the end, after its
        anchors."""
        picked = {s.args[0]: k for k, s in enumerate(self.steps)
                  if isinstance(s, PlanStep) and s.action.startswith("pick")}
        relation: dict[int, GAtom] = {}  # a last placement written as the end's relation
        again: list[_PutBack] = []
        for item, k in sorted(self.last.items(), key=lambda kv: kv[1]):
            placed = self.steps[k]
            assert isinstance(placed, _FurniturePlacement)
            rel = self.made_by(item, placed.surface)
            if rel is None or (rel == placed.made and not _moved_after(rel, picked, k)):
                continue
            if placed.made is None and not _moved_after(rel, picked, k):
                relation[k] = rel
            else:  # where it stands at the end: where it was put last
                again.append(_PutBack(rel, placed.surface, self.placing(
                    item, placed.surface, rel, placed.pose)))
        plan = [s if isinstance(s, PlanStep) else
                self.placing(s.item, s.surface, relation.get(k, s.made or s.cell), s.pose)
                for k, s in enumerate(self.steps)]
        for back in _anchors_first(again):
            plan += self.walk(back.surface)
            plan += [PlanStep("pick", (back.relation.args[0], back.surface)), back.step]
        return plan


def _moved_after(rel: GAtom, picked: dict[str, int], k: int) -> bool:
    """Whether an anchor of `rel` is picked after step `k`."""
    return any(picked.get(x, -1) > k for x in rel.args[1:])


def _anchors_first(again: Sequence[_PutBack]) -> list[_PutBack]:
    """The put-backs in `again` ordered so that an item put down by another item of
    `again` comes after it (picking an anchor forgets what stands by it)."""
    done: list[_PutBack] = []
    todo = list(again)
    while todo:
        waiting = {p.relation.args[0] for p in todo}
        ready = [p for p in todo if not waiting & set(p.relation.args[1:])] or todo[:1]
        done += ready
        todo = [p for p in todo if p not in ready]
    return done
