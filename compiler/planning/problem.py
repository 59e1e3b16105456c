"""Planning problems: a task's ground goal as a classical planning problem.

The domain is fdc-home's actions (`domain/fdc-home.pddl`): a symbolic abstraction of the
embedded world in which the robot navigates to any furniture surface or item top, picks
an item from the surface it rests on when nothing stands on it (or, walking to it, from
the floor, where it rests on no surface: `pick-from-floor`), and puts it down with one
placement action per geometric fluent (`place`, `place-in-cell`, `place-around`,
`place-at-side`, `place-between`, `place-inside`) or on another item's top
(`place-on-item`); a fluent becomes true only by the placement that establishes it, and
false when an item it relates is picked up. Receptacles of articulated furniture are
reached only while it is open.

`PlanningWorld` holds what every task of one scene shares: the domain read by
unified-planning (`either` parameter types widened to their closest common supertype,
which unified-planning lacks; numeric functions other than `total-cost` left out), the
scene's facts and its initial state. `PlanningWorld.build` makes one task's problem:

- objects: the scene's furniture and rooms, the surfaces a plan may use (those named,
  those the kept items start on, one spare: see `_objects`), what stands on the items kept
  (`pick` needs an item's tops clear, as the world does) and the items the goal names,
  except items it names only in literals that are false at the start and must stay
  false (`(not (on cup_3 table|top))` for every cup not on the table): no plan needs to
  move them, so leaving them out changes no answer and keeps grounding small;
- initial state: every fluent atom over those objects that the registered checkers
  find true in the scene's initial state, but those judged from where the robot stands
  (`Registry.viewer_relative`, `at-side`: the same spot is "left" of an anchor from the
  table's front and "right" from its rear; where the robot will stand is no part of the
  abstraction, so none holds at the start, and only the placement that makes one, seen
  from where the robot then stands, makes it true), and
  the static facts the actions read;
- actions: fdc-home's, but the placement actions the goal has no use for (each does
  what `place` does plus a fluent neither the goal nor any precondition reads);
- goal: the ground goal, a `same-surface` literal as its definition over `on` (no action
  sets it): `(exists (?s - surface) (and (on a ?s) (on b ?s)))` over the surfaces kept,
  which include every surface its items start `on`, its items kept whatever the
  literal's polarity (moving either item changes it); a sequence (`then`) or
  multi-goal (`targets`) gets one checkpoint action per step, whose precondition is the
  step and the step before it reached, so the plan achieves the steps in order, as
  `verify` judges them; a conjunction of disjunctions is checked conjunct by conjunct
  with the world frozen in between (`_checkpoints`), since a translator would expand
  the product of its parts; so is one holding a positive `same-surface` (each
  existential becomes a parameter of the goal's condition: their product, otherwise).

`holds_initially` says whether the abstraction finds a task's goal reached before any
action (`fdc audit` compares it with the checkers' judgement). The certify loop is
`certify.py`, the planners `solvers.py`.

See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar, assert_never

from fdc.core.errors import FdcError
from fdc.core.limits import current
from fdc.predicates.algebra import (
    NotExpandable,
    children,
    expand_counts,
    is_atom,
    junction_parts,
    subgoals,
)
from fdc.predicates.builtin import default_registry
from fdc.predicates.checkers.attributes import pddl_word
from fdc.predicates.goal import (
    GAnd,
    GAtom,
    GChecklist,
    GCluster,
    GCount,
    GNot,
    Goal,
    GOr,
    GTargets,
    GThen,
    atom,
    atoms,
    joined,
)
from fdc.predicates.registry import Context, Kind, Registry
from fdc.sim_bridge.world.plans import SURFACE_ARG, PlanReplay, PlanStep
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.transitions import recipes_for

from .. import ast as A
from ..printer import print_unit

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot, WorldState

    from ..check import DomainInfo
    from ..scene_facts import SceneFacts


#: The checkpoint actions and fluents a sequence or multi-goal adds (not fdc-home names).
CHECKPOINT = "fdc-reach"
STAGE = "fdc-reached"
#: The goal predicate no action sets, planned as its definition over `on`.
SAME_SURFACE = "same-surface"
# PARTNR's whole-object relations, planned as their definitions over `on` and `inside`
# (`PlanningWorld.whole_parts`): no action of the domain sets them directly
WHOLE = ("on-top-of", "inside-of")
#: BEHAVIOR's states the state actions change (a domain that has them: `bddl-home`).
STATE_ATOMS = frozenset({"cooked", "hot", "frozen", "folded", "unfolded", "covered",
                         "filled", "contains", "saturated", "attached", "is-powered-on",
                         "is-powered-off"})
#: Helper items of each kind a state action may use (`PlanningScene._helpers`).
HELPERS = 2
IN_CELL = "in-cell"
#: Planning only: the item may be in the cell (`_may_be_in_cell`).
MAY_BE_IN_CELL = "fdc-may-be-in-cell"
#: Planning-only fluents of a forbidden placement: `fdc-as-refused-K-J`, occupant J of
#: the surface of the K-th refusal stands as it stood then (`_forbid`).
AS_REFUSED = "fdc-as-refused"

N = TypeVar("N", bound=A.Node)

Status = Literal["solved", "unsolvable", "timeout", "error", "refused"]
#: Why the embedded world refused the plans of a `refused` certificate: `room`, it
#: refused a placement for lack of room (free space, which the abstraction does not
#: model) in every plan; `action`, it refused an action the abstraction allows for
#: another reason (the two models disagree on what the robot can do); `goal`, it
#: carried out every action and the checkers did not judge the goal reached at the end
#: (the abstraction and the checkers disagree on a predicate of the goal).
Cause = Literal["room", "action", "goal"]


class PlanningError(FdcError):
    """A goal the planning abstraction cannot express (a nested multi-goal form)."""


# --------------------------------------------------------------------------- the domain


def planning_domain(info: DomainInfo) -> str:
    """fdc-home as planners read it: `(either a b)` parameters widened to the closest
    common supertype, only the `total-cost` function, no fdc extensions."""

    def widen(names: Sequence[A.TypedName]) -> tuple[A.TypedName, ...]:
        return tuple(
            _with(n, types=(_common_type(info, n.types),)) if len(n.types) > 1 else n
            for n in names)

    d = info.domain
    domain = A.Domain(
        name=d.name,
        requirements=(*(r for r in d.requirements if r != ":numeric-fluents"), ":action-costs"),
        types=d.types,
        constants=d.constants,
        predicates=tuple(_with(p, parameters=widen(p.parameters)) for p in d.predicates),
        functions=tuple(f for f in d.functions if f.name == "total-cost"),
        actions=tuple(_with(a, parameters=widen(a.parameters)) for a in d.actions),
    )
    return print_unit(A.SourceUnit(path="<planning>", definitions=(domain,)))


def _with(node: N, **fields: Any) -> N:
    """A copy of an AST node with some fields replaced (nodes are frozen)."""
    return type(node).make(**{**node.__dict__, **fields})


def _common_type(info: DomainInfo, types: Sequence[str]) -> str:
    """The most specific type above every one of `types`."""
    shared = set.intersection(*(set(info.ancestors(t)) for t in types))
    return max(sorted(shared), key=lambda t: len(info.ancestors(t)))


def _skeleton(domain_name: str) -> str:
    # A problem with the metric makes unified-planning read `total-cost` as action costs.
    return (f"(define (problem skeleton) (:domain {domain_name}) (:init (= (total-cost) 0))"
            " (:goal (and)) (:metric minimize (total-cost)))")


@functools.lru_cache(maxsize=4)
def _parsed(domain_text: str, problem_text: str) -> Any:
    """The domain and problem read by unified-planning, once per process and text (keyed
    by the texts themselves, so nothing goes stale; callers take a `clone`: never
    changed)."""
    from unified_planning.io import PDDLReader

    _quiet()
    return PDDLReader().parse_problem_string(domain_text, problem_text)


def _quiet() -> None:
    import unified_planning.shortcuts as ups

    env = ups.get_environment()
    env.credits_stream = None
    # A scene names rooms and furniture by their category (room `kitchen` of type
    # `kitchen`); SceneFacts already refuses two entities with one name.
    env.error_used_name = False


# --------------------------------------------------------------------------- problems

#: `build`'s refusal of a goal the abstraction cannot state.
NESTED = "a multi-goal or sequence form nested inside a step"


def _nested_forms(goal: Goal) -> None:
    """`PlanningError` for a multi-goal, sequence, count, cluster or checklist inside a
    step of the goal (a sequence's steps, a multi-goal's targets, else the goal itself):
    said by `build`, before its problem is made."""
    steps = children(goal) if goal.kind in ("then", "targets") else (goal,)
    for step in steps:
        if any(g.kind in ("then", "targets", "count", "cluster", "checklist")
               for g in subgoals(step)):
            raise PlanningError(NESTED)


@dataclass
class PlanningProblem:
    """One task's planning problem and how it was made: what it keeps (`items`,
    `left_out`), and the unified-planning `Problem` with its checkpoint action names,
    made when first asked for (`make`): a task whose certificate is the oracle's trace
    (checked on a problem built again with the trace's items) never needs it."""

    task: str
    make: Callable[[], tuple[Any, tuple[str, ...]]] = field(repr=False, compare=False)
    items: tuple[str, ...]  # the items kept as objects
    left_out: int  # items the goal names only in literals that stay false
    goal: Goal | None = None  # what it was built from, to build it again with more items
    reduce: bool = True
    _made: tuple[Any, tuple[str, ...]] | None = field(default=None, init=False, repr=False,
                                                      compare=False)

    def _built(self) -> tuple[Any, tuple[str, ...]]:
        if self._made is None:
            self._made = self.make()
        return self._made

    @property
    def problem(self) -> Any:
        return self._built()[0]

    @property
    def checkpoints(self) -> tuple[str, ...]:
        """Checkpoint action names (not part of the plan)."""
        return self._built()[1]

    def with_problem(self, problem: Any) -> PlanningProblem:
        """The same task on another `Problem` (a copy to change), with these checkpoints."""
        out = replace(self)
        out._made = (problem, self.checkpoints)
        return out




@dataclass
class PlanResult:
    status: Status
    planner: str
    seconds: float
    length: int | None = None  # actions in the plan, checkpoints not counted
    plan: list[PlanStep] = field(default_factory=list)
    message: str = ""
    # placements the embedded world refused for lack of room, forbidden in the
    # abstraction before this plan was found (`item on surface`)
    forbidden: list[str] = field(default_factory=list)
    cause: Cause | None = None  # why a `refused` plan was refused
    # the embedded world's replay of `plan` that certified it (`PlanningWorld._certify`),
    # for a caller that needs it not to act the plan out again (`fdc audit`'s replay)
    replay: PlanReplay | None = field(default=None, repr=False, compare=False)
    replayed: list[PlanStep] = field(default_factory=list, repr=False, compare=False)


class PlanningScene:
    """The planning view of one scene: domain, facts and initial state, shared by tasks,
    and each task's problem built from them (`build`). `certify.PlanningWorld` adds the
    certificates."""

    def __init__(self, facts: SceneFacts, state: WorldState,
                 registry: Registry | None = None) -> None:
        self.facts = facts
        self.graph: SceneGraph = facts.graph
        self.info = facts.domain
        self.registry = registry or default_registry()
        self.context = Context(graph=self.graph, state=state,
                               type_parents=dict(self.info.parents))
        # where plans are acted out: the recorded world the state reads (a memory-
        # manipulation task's world after the experience), else the scene's initial state
        self.start: Snapshot | None = state.snapshot if isinstance(state, SnapshotState) \
            else None
        self._truth: dict[GAtom, bool] = {}

    @cached_property
    def domain_text(self) -> str:
        return planning_domain(self.info)

    @cached_property
    def _base(self) -> Any:
        """The domain read by unified-planning with an empty problem: one parse per
        process and domain text (`_parsed`), shared by scenes; `build` clones it."""
        return _parsed(self.domain_text, _skeleton(self.info.domain.name))

    @cached_property
    def _static_used(self) -> tuple[str, ...]:
        """The static and history predicates the actions read (their facts go in init)."""
        names: set[str] = set()
        for a in self.info.domain.actions:
            for part in (a.precondition, a.effect):
                if part is None:
                    continue
                for n in part.walk():
                    if isinstance(n, A.Atom) and n.predicate in self.registry and \
                            self.registry.checker(n.predicate).kind is not Kind.FLUENT:
                        names.add(n.predicate)
        return tuple(sorted(names))

    def initially(self, wanted: Iterable[GAtom]) -> dict[GAtom, bool]:
        """Whether each atom holds in the initial state (one checker call per predicate;
        none judged from where the robot stands: `Registry.viewer_relative`)."""
        new: dict[str, list[GAtom]] = {}
        for a in wanted:
            if a not in self._truth:
                new.setdefault(a.predicate, []).append(a)
        for predicate, batch in new.items():
            batch = list(dict.fromkeys(batch))
            if predicate in self.registry.viewer_relative():  # none holds at the start
                self._truth.update(dict.fromkeys(batch, False))
                continue
            truth = self.registry.evaluate_many(predicate, [a.args for a in batch], self.context)
            for a, ok in zip(batch, truth.tolist(), strict=True):
                self._truth[a] = bool(ok)
        return self._truth

    # ----- one task ---------------------------------------------------------------------

    def build(self, task: str, goal: Goal, *, reduce: bool = True,
              movable: Iterable[str] = (), extra: Iterable[str] = ()) -> PlanningProblem:
        """The planning problem of a task that starts in the scene's initial state.
        `reduce`: leave out the placement actions the goal has no use for (exact; off
        for export, so that every plain task shares one domain). `movable`: items a plan
        may move besides those the goal needs moved; `extra`: entities (surfaces) kept
        as objects besides `_objects`' (those a given plan uses). A count node is planned
        for as its `and`/`or` expansion, up to the `goal_atoms` limit."""
        try:
            goal = expand_counts(goal, current().goal_atoms)
        except NotExpandable as why:
            raise PlanningError(f"{why}: the planning abstraction states counts as "
                                "`and`/`or`; raise it with `fdc --limit goal_atoms=N`") from None
        named = {x for a in atoms(goal) for x in a.args}
        unknown = sorted(x for x in named if x not in self.facts.types)
        if unknown:
            raise PlanningError(f"the goal names {', '.join(unknown)}, not in the scene")
        items = self._items(goal) | set(movable) | self._helpers(goal)
        keep = self._objects(goal, items, named) | {x for x in extra if x in self.facts.types} \
            | self._state_surfaces(goal)
        mentioned = {a.predicate for a in atoms(goal)}
        if SAME_SURFACE in mentioned:  # planned over `on`: its initial atoms, not its own
            mentioned = (mentioned - {SAME_SURFACE}) | {"on"}
        if mentioned & set(WHOLE):  # planned over `on` and `inside`
            mentioned = (mentioned - set(WHOLE)) | {"on", "inside"}
            keep |= {s for a in atoms(goal) if a.predicate in WHOLE
                     for s in self.whole_parts(a)[0]}
        left_out = {x for x in named if self.facts.has_type(x, ("movable",))} - items
        _nested_forms(goal)

        def make() -> tuple[Any, tuple[str, ...]]:
            problem = self._base.clone()
            problem.name = pddl_name(task)
            # `place` does all that dominated actions do that can matter
            dominated = self._dominated(mentioned) if reduce else set()
            actions = [a for a in problem.actions if a.name not in dominated]
            problem.clear_actions()
            problem.add_actions(actions)
            _set_costs(problem, {a.name: c for a, c in problem.quality_metrics[0].costs.items()
                                 if a.name not in dominated})
            em = problem.environment.expression_manager
            objects: dict[str, Any] = {o.name: o for o in problem.all_objects}
            from unified_planning.model import Object

            for e in sorted(keep):
                if e in objects:
                    continue
                t = self.facts.type_of(e)
                assert t is not None
                objects[e] = Object(e, problem.user_type(t), problem.environment)
                with warnings.catch_warnings():  # a room `kitchen` of type `kitchen` (_quiet)
                    warnings.filterwarnings("ignore", "Name .* already defined", UserWarning)
                    problem.add_object(objects[e])
            for atom_ in self._init(objects, keep, mentioned):
                fluent = problem.fluent(atom_.predicate)
                problem.set_initial_value(fluent(*(objects[x] for x in atom_.args)), True)

            polar = _polar(goal)
            cells = any(a.predicate == IN_CELL and not positive
                        and not any(x in left_out for x in a.args) for a, positive in polar)
            if cells:
                _may_be_in_cell(problem)

            def expr(g: Goal, positive: bool = True) -> Any:
                match g:
                    case GAtom():
                        if any(x in left_out for x in g.args):
                            return em.FALSE()  # stays false: no plan moves the item
                        if g.predicate == SAME_SURFACE:
                            return _same_surface(problem, objects[g.args[0]], objects[g.args[1]])
                        if g.predicate in WHOLE:
                            ons, ins = self.whole_parts(g)
                            o = objects[g.args[0]]
                            return em.Or(*(problem.fluent("on")(o, objects[s]) for s in ons),
                                         *(problem.fluent("inside")(o, objects[c]) for c in ins))
                        name = MAY_BE_IN_CELL if g.predicate == IN_CELL and not positive \
                            else g.predicate
                        return problem.fluent(name)(*(objects[x] for x in g.args))
                    case GNot():
                        return em.Not(expr(g.body, not positive))
                    case GAnd():
                        return em.And(*(expr(p, positive) for p in g.parts)) if g.parts \
                            else em.TRUE()
                    case GOr():
                        return em.Or(*(expr(p, positive) for p in g.parts)) if g.parts \
                            else em.FALSE()
                    case GTargets() | GThen() | GCount() | GCluster() | GChecklist():
                        raise PlanningError(NESTED)  # pragma: no cover - `_nested_forms`
                    case _:
                        assert_never(g)

            simplify = problem.environment.simplifier.simplify
            problem.clear_goals()
            checkpoints: tuple[str, ...] = ()
            if goal.kind in ("then", "targets") or _splits(goal):
                checkpoints = self._checkpoints(problem, goal, lambda g: simplify(expr(g)))
            else:
                problem.add_goal(simplify(expr(goal)))
            return problem, checkpoints

        return PlanningProblem(task, make, tuple(sorted(items)), len(left_out), goal, reduce)

    def whole_parts(self, a: GAtom) -> tuple[list[str], list[str]]:
        """A whole-object relation's definition: the surfaces the item is `on` and the
        containers it is `inside` when it holds (any one). `on-top-of o x`: `on` a
        surface of `x` that is no container floor (a table's top, an item's top);
        `inside-of o x`: `on` a container floor of `x` (a cabinet's shelf, a drawer), or,
        for an item without them that is a container (a basket), `inside` it, as the
        checkers judge them. An item is on top of or inside nothing of itself."""
        o, x = a.args
        if o == x:
            return [], []
        f = self.facts
        mine = [s.id for s in self.graph.surfaces(x) if s.id in f.types]
        if a.predicate == "on-top-of":
            return [s for s in mine if self.graph.surface(s).container is None], []
        floors = [s.id for s in self.graph.containers_of(x) if s.id in f.types]
        if floors:
            return floors, []
        return [], [x] if f.has_type(x, ("container",)) else []

    def _dominated(self, mentioned: set[str]) -> set[str]:
        """Placement actions the goal has no use for: they put the item on the surfaces
        `place` does, and what each makes true for sure beyond `place`'s unconditional
        effects is a fluent the goal does not mention and no precondition reads (`place`
        then does all of it that can matter)."""
        actions = {a.name: a for a in self.info.domain.actions}
        base = _added(actions["place"])
        where = self._surface_types(actions["place"])
        return {name for name, a in actions.items()
                if name != "place" and name.startswith("place")
                and self._surface_types(a) == where  # not `place-on-item`: item tops
                and not (_added(a) - base) & (mentioned | self._read)}

    def _surface_types(self, action: A.Action) -> set[str]:
        """The types of an action's surface parameters (where it puts the item)."""
        return {t for p in action.parameters for t in p.types
                if "surface" in self.info.ancestors(t)}

    @cached_property
    def _read(self) -> set[str]:
        """The predicates some action reads: in its precondition or in the condition of
        one of its conditional effects (`pick` puts the item in the rooms the robot is
        in: `robot-in-room` must hold its initial facts)."""
        read: set[str] = set()
        for a in self.info.domain.actions:
            conditions = [] if a.precondition is None else [a.precondition]
            if a.effect is not None:
                conditions += [n.condition for n in a.effect.walk() if isinstance(n, A.When)]
            read |= {n.predicate for c in conditions for n in c.walk() if isinstance(n, A.Atom)}
        return read

    def _objects(self, goal: Goal, items: set[str], named: set[str]) -> set[str]:
        """The objects of a task's problem: furniture and rooms; the items a plan may
        move; the surfaces the goal names, every one a `same-surface` item is `on`, and
        those of furniture in a room or of furniture the goal names, and one spare open
        surface; the items whose tops the goal names, and the surfaces of every item kept
        with what stands on them or lies in them (`_carried`); the surface each kept item
        stands on (an item on none is on the floor). In the abstraction surfaces
        have no capacity, so a plan never needs another: what it parks elsewhere it can
        park where the item came from, or, when the goal sends the item away from there,
        on the spare surface."""
        f = self.facts
        keep = set(f.entities(("furniture", "room"))) | items
        keep |= {x for x in named if not f.has_type(x, ("movable",))}
        rooms = {x for x in named if f.has_type(x, ("room",))}
        furniture = {x for x in named if f.has_type(x, ("furniture",))}
        for s, owner in f.true_atoms("surface-of"):
            if owner in furniture:
                keep.add(s)
        in_room = f.true_atoms("furniture-in-room")
        owners = {g for g, r in in_room if r in rooms}
        keep |= {s for s, owner in f.true_atoms("surface-of") if owner in owners}
        keep |= self._under(goal)
        # the items whose tops the goal names (a plan may put something there)
        tops = {o for t, o in f.true_atoms("top-of") if t in named}
        keep |= self._carried(items | tops)
        # every item kept with the surface it stands on: an item `on` no kept surface is
        # on the floor to `pick-from-floor`
        state = self.context.require_state()
        keep |= {s for x in keep if f.has_type(x, ("movable",))
                 if (s := state.support_of(x)) is not None and s in f.types}
        # the item whose top a kept surface is, with the surface it stands on, at any
        # depth: `navigate-to-item` walks to the tray in the tray's room
        todo = sorted(keep)
        while todo:
            x = todo.pop()
            if not f.has_type(x, ("item-top",)):
                continue
            carrier = self.graph.surface(x).object_id
            under = state.support_of(carrier)
            for y in (carrier, under):
                if y is not None and y in f.types and y not in keep:
                    keep.add(y)
                    todo.append(y)
        # One spare open surface the goal says nothing about: a place for what must
        # leave the surfaces it names (any other such surface would do as well).
        spare = [s for s, owner in f.true_atoms("surface-of") if s not in keep
                 and not f.has_type(s, ("receptacle",)) and not f.has_type(owner,
                                                                          ("articulated",))]
        keep.update(sorted(spare)[:1])
        return keep

    def _carried(self, items: set[str]) -> set[str]:
        """These items, and what stands on them or lies in them at the start, at any
        depth, with the tops it stands on: `pick` needs an item's tops and insides clear,
        so a plan must see what to take off first (a tray's cups). A top nothing stands
        on is left out unless the goal names it: a plan never needs to park an item on
        another's top (whose free space the abstraction does not model)."""
        f = self.facts
        movables = f.entities(("movable",))
        out: set[str] = set(items)
        todo = sorted(items)
        while todo:
            item = todo.pop()
            surfaces = [s for s in self.graph.object(item).surfaces if s in f.types]
            wanted = [atom("on", x, s) for x in movables for s in surfaces if x != item]
            if f.has_type(item, ("container",)):
                wanted += [atom("inside", x, item) for x in movables if x != item]
            truth = self.initially(wanted)
            for a in wanted:
                if truth[a]:
                    out.add(a.args[1])  # the top (or the container itself)
                    if a.args[0] not in out:
                        out.add(a.args[0])
                        todo.append(a.args[0])
        return out

    def _under(self, goal: Goal) -> set[str]:
        """Every surface the items of the goal's `same-surface` atoms are `on` at the start
        (an item on a tray is on the table below it too): with them, the definition over
        the kept surfaces holds at the start exactly when the atom does."""
        paired = sorted({x for a in atoms(goal) if a.predicate == SAME_SURFACE for x in a.args})
        if not paired:
            return set()
        surfaces = self.facts.entities(("surface",))
        truth = self.initially(atom("on", x, s) for x in paired for s in surfaces)
        return {s for x in paired for s in surfaces if truth[atom("on", x, s)]}

    def _helpers(self, goal: Goal) -> set[str]:
        """Items a state action may need besides those the goal names (a domain with
        BEHAVIOR's states, `bddl-home`): the cleaning tools when the goal says what
        covers something (`wipe`), and the items that contain a substance the goal
        says something is covered with, filled with or contains, or are filled with it
        or a source of it (`pour`, `spread`); at
        most `HELPERS` of each."""
        if "is-cleaning-tool" not in self.info.predicates:
            return set()
        with_substance = [a for a in atoms(goal)
                          if a.predicate in ("covered", "filled", "contains")]
        if not with_substance:
            return set()
        movables = sorted(self.facts.entities(("movable",)))
        out: set[str] = set()
        if any(a.predicate == "covered" for a in with_substance):
            truth = self.initially(atom("is-cleaning-tool", x) for x in movables)
            out.update([x for x in movables if truth[atom("is-cleaning-tool", x)]][:HELPERS])
        wanted = {a.args[1] for a in with_substance}
        inputs, categories = self._recipe_inputs(wanted)
        if "is-mixing-tool" in self.info.predicates and any(
                r.kind == "mix" for s in wanted | inputs for r in recipes_for(self.graph, s)):
            truth = self.initially(atom("is-mixing-tool", x) for x in movables)
            out.update([x for x in movables if truth[atom("is-mixing-tool", x)]][:HELPERS])
        for c in sorted(categories):  # an item of each input category (a butter to melt)
            out.update([x for x in movables
                        if pddl_word(self.graph.object(x).category) == c][:HELPERS])
        for s in sorted(wanted | inputs):
            for state in ("contains", "filled", "insource"):
                if state not in self.info.predicates:
                    continue
                truth = self.initially(atom(state, x, s) for x in movables)
                out.update([x for x in movables if truth[atom(state, x, s)]][:HELPERS])
        return out

    def _recipe_inputs(self, substances: set[str]) -> tuple[set[str], set[str]]:
        """The input substances and item categories of the scene's recipes
        (`Scene.recipes`) for `substances`, and for their inputs, recursively."""
        subs: set[str] = set()
        cats: set[str] = set()
        todo = sorted(substances)
        while todo:
            s = todo.pop()
            for r in recipes_for(self.graph, s):
                cats.update(pddl_word(c) for c in r.items)
                for i in (pddl_word(x) for x in r.substances):
                    if i not in subs:
                        subs.add(i)
                        todo.append(i)
        return subs, cats

    def _state_surfaces(self, goal: Goal) -> set[str]:
        """Surfaces a state action may need the robot at (a domain with BEHAVIOR's
        states): those of the heat sources for `cooked`/`hot`/`frozen` (thawing is
        heating), of the freezers for `frozen`/`hot` (cooling is freezing), of the
        water sources for what water makes (`filled`, `saturated`, `covered`: washing),
        and of the furniture a state atom names (toggled, wiped, attached to)."""
        if "is-heat-source" not in self.info.predicates:
            return set()
        wanted = {a.predicate for a in atoms(goal)}
        statics = {"is-heat-source": {"cooked", "hot", "frozen"},
                   "is-freezer": {"frozen", "hot"},
                   "is-water-source": {"filled", "contains", "saturated", "covered"}}
        furniture = sorted(self.facts.entities(("furniture",)))
        # the furniture a state atom names, and that a `next-to` puts an item by
        # (`place-next-to`: on one of its surfaces)
        owners = {x for a in atoms(goal) if a.predicate in STATE_ATOMS | {"next-to"}
                  for x in a.args if x in furniture}
        made = [a.args for a in atoms(goal) if a.predicate in ("contains", "filled")
                and len(a.args) == 2 and recipes_for(self.graph, a.args[1])]
        if made:  # a substance made by heat, maybe from water (the scene's recipes)
            wanted |= {"hot", "filled"}
        vessels = {x for x, s in made if self._recipe_inputs({s})[1] and
                   self.graph.has(x)}  # an item put inside them (a butter to melt)
        inner = {s for x in sorted(vessels) for s in self.graph.object(x).surfaces
                 if s in self.facts.types}
        for name, uses in statics.items():
            if wanted & uses:
                truth = self.initially(atom(name, f) for f in furniture)
                owners |= {f for f in furniture if truth[atom(name, f)]}
        return inner | {s for f in owners for s in self.graph.object(f).surfaces
                        if s in self.facts.types}

    def _items(self, goal: Goal) -> set[str]:
        """The items a plan may need to move: those in a positive literal, or in a
        negative literal that is true at the start, and both items of a `same-surface`
        literal (moving either one changes it)."""
        polar = _polar(goal)
        truth = self.initially(a for a, positive in polar if not positive)
        out: set[str] = set()
        for a, positive in polar:
            if positive or truth[a] or a.predicate == SAME_SURFACE:
                out.update(x for x in a.args if self.facts.has_type(x, ("movable",)))
        return out

    def _init(self, objects: Mapping[str, Any], keep: set[str], mentioned: set[str]
              ) -> list[GAtom]:
        """Every true initial atom over the kept objects: the fluents the goal or an
        action's precondition reads, by the checkers, and the static facts actions read."""
        out: list[GAtom] = []
        for name in self._static_used:
            # a recipe's substances are the domain's constants: objects, not kept ones
            ok = objects if name in RECIPE_STATICS else keep
            out.extend(atom(name, *row) for row in self.facts.true_atoms(name)
                       if all(x in ok for x in row))
        for c in self.registry.predicates():
            if c.kind is not Kind.FLUENT or c.name not in self.info.predicates or \
                    c.name not in mentioned | self._read or c.meaning.viewer_relative:
                continue
            decl = self.info.predicates[c.name]
            domains = [[e for e in self.facts.entities(p.types) if e in objects]
                       for p in decl.parameters]
            rows = list(itertools.product(*domains))
            if not rows:
                continue
            truth = self.registry.evaluate_many(c.name, rows, self.context)
            out.extend(atom(c.name, *r) for r, ok in zip(rows, truth.tolist(), strict=True)
                       if ok)
        return out

    def _checkpoints(self, problem: Any, goal: Goal, expr: Any) -> tuple[str, ...]:
        """Checkpoint actions: one per step of a sequence (or target of a multi-goal, or
        the goal itself), each step split into its conjuncts when they hold disjunctions
        (a planner's translator would otherwise expand their product). The first check of
        a split step freezes the world (no domain action runs) until its last check, so
        the conjuncts hold at once; the final step stays frozen: the plan ends there."""
        from unified_planning.model import Fluent, InstantaneousAction

        env = problem.environment
        em = env.expression_manager
        boolean = env.type_manager.BoolType()
        match goal:
            case GThen():
                steps, ordered = goal.steps, True
            case GTargets():
                steps, ordered = children(goal), goal.ordered
            case _:
                steps, ordered = (goal,), True
        with _actions_changed(problem) as costs:
            frozen = Fluent(f"{STAGE}-frozen", boolean, environment=env)
            problem.add_fluent(frozen, default_initial_value=False)
            world = list(problem.actions)
            for action in world:
                action.add_precondition(em.Not(frozen()))
            names: list[str] = []
            last: list[Any] = []  # each step's final flag
            for k, step in enumerate(steps, 1):
                parts = junction_parts(step, "and") if _splits(step) else (step,)
                previous = last[-1] if ordered and last else None
                for j, part in enumerate(parts, 1):
                    flag = Fluent(f"{STAGE}-{k}-{j}", boolean, environment=env)
                    problem.add_fluent(flag, default_initial_value=False)
                    action = InstantaneousAction(f"{CHECKPOINT}-{k}-{j}", _env=env)
                    action.add_precondition(expr(part))
                    if previous is not None:
                        action.add_precondition(previous)
                    if j == 1:
                        action.add_precondition(em.Not(frozen()))
                    if len(parts) > 1 and j == 1:
                        action.add_effect(frozen(), em.TRUE())
                    final = k == len(steps) and ordered
                    if len(parts) > 1 and j == len(parts) and not final:
                        action.add_effect(frozen(), em.FALSE())
                    if final and j == len(parts):
                        action.add_effect(frozen(), em.TRUE())
                    action.add_effect(flag(), em.TRUE())
                    problem.add_action(action)
                    names.append(action.name)
                    previous = flag()
                last.append(previous)
            problem.add_goal(last[-1] if ordered else em.And(*last))
            costs.update(dict.fromkeys(names, em.Int(0)))  # checks cost nothing
        return tuple(names)


#: The statics of the scene's recipes (bddl-home's `cook-substance` ...), whose rows name
#: substances, the domain's constants.
RECIPE_STATICS = frozenset({"cooks-into", "cooks-into-2", "melts-into", "mixes-into-2",
                            "mixes-into-3"})


def gathered(goal: Goal, state: WorldState, facts: SceneFacts) -> Goal | None:
    """A stronger goal than a conjunction with positive `same-surface` conjuncts: each
    group of items they join (transitively) `on` one surface, the one most of the group
    stands on now (the lowest name on a tie) among those every one of them `fits`,
    instead of any one. None: the goal has no such conjunct, or no group a surface takes."""
    match goal:
        case GAnd():
            pass
        case _:
            return None
    same = [p for p in goal.parts if is_atom(p) and p.predicate == SAME_SURFACE]
    if not same:
        return None
    fits: dict[str, set[str]] = {}
    for o, s in facts.true_atoms("fits"):
        fits.setdefault(o, set()).add(s)
    ons: list[Goal] = []
    for items in joined((a.args[0], a.args[1]) for a in same):
        counts: dict[str, int] = {}
        for x in items:
            if (s := state.support_of(x)) is not None:
                counts[s] = counts.get(s, 0) + 1
        room = set.intersection(*(fits.get(x, set()) for x in items))
        home = min(room, key=lambda s: (-counts.get(s, 0), s), default=None)
        if home is None:
            return None
        ons += [atom("on", x, home) for x in items]
    return GAnd(parts=tuple(p for p in goal.parts if p not in same) + tuple(ons))


def _polar(goal: Goal) -> list[tuple[GAtom, bool]]:
    """Every atom of a goal with its polarity (False: under an odd number of `not`)."""
    polar: list[tuple[GAtom, bool]] = []
    stack: list[tuple[Goal, bool]] = [(goal, True)]
    while stack:
        g, positive = stack.pop()
        match g:
            case GAtom():
                polar.append((g, positive))
            case GNot():
                stack.append((g.body, not positive))
            case GAnd() | GOr() | GThen() | GTargets():
                stack.extend((p, positive) for p in children(g))
            case GCount() | GCluster() | GChecklist():  # not walked into
                pass
            case _:
                assert_never(g)
    return polar


def _may_be_in_cell(problem: Any) -> None:
    """The fluent a negative `in-cell` literal of the goal reads: `(MAY_BE_IN_CELL ?o ?s
    ?c)`, the item may be in that cell. `in-cell` becomes true only by `place-in-cell`,
    but the world puts an item down anywhere on the surface with any other placement (a
    plain `place` in the centre cell, if there is room): each of them makes the item
    possibly in every cell of its surface, `place-in-cell` in its own cell only, `pick`
    in none; at the start it is `in-cell`. So `(not (MAY_BE_IN_CELL o s c))` holds only
    where the item was taken off the surface or put in another cell."""
    from unified_planning.model import Fluent, Variable

    env = problem.environment
    in_cell = problem.fluent(IN_CELL)
    may = Fluent(MAY_BE_IN_CELL, env.type_manager.BoolType(), in_cell.signature,
                 environment=env)
    problem.add_fluent(may, default_initial_value=False)
    for fnode, value in list(problem.explicit_initial_values.items()):
        if fnode.is_fluent_exp() and fnode.fluent() == in_cell and value.is_true():
            problem.set_initial_value(may(*fnode.args), True)
    surface, cell = problem.user_type("surface"), problem.user_type("cell")
    with _actions_changed(problem):
        for action in problem.actions:
            p = action.parameters
            if action.name == "pick":
                x, c = Variable("x", surface, env), Variable("c", cell, env)
                action.add_effect(may(p[0], x, c), False, forall=(x, c))
            elif action.name == "place-in-cell":
                action.add_effect(may(p[0], p[1], p[2]), True)
            elif action.name in SURFACE_ARG:
                c = Variable("c", cell, env)
                action.add_effect(may(p[0], p[SURFACE_ARG[action.name]], c), True,
                                  forall=(c,))


def _added(action: A.Action) -> set[str]:
    """The predicates an action makes true unconditionally (not under `when`/`forall`)."""
    out: set[str] = set()
    stack = [action.effect] if action.effect is not None else []
    while stack:
        e = stack.pop()
        if isinstance(e, A.And):
            stack.extend(e.parts)
        elif isinstance(e, A.Atom):
            out.add(e.predicate)
    return out


@contextlib.contextmanager
def _actions_changed(problem: Any) -> Iterator[dict[str, Any]]:
    """Change the problem's actions in the block, then set the metric anew, from the
    costs by action name (yielded: add those of new actions). unified-planning's
    metric keys its costs by the action's value (its hash covers preconditions and
    effects): an action changed after the metric was set is no longer found in it, and
    the PDDL writer then crashes on a cost of None (`fdc export pddl` did, on a task
    with a negative `in-cell`). Every change to a problem's actions goes through here."""
    costs = {a.name: c for a, c in problem.quality_metrics[0].costs.items()}
    yield costs
    _set_costs(problem, costs)
    metric = problem.quality_metrics[0]
    missing = [a.name for a in problem.actions if metric.get_action_cost(a) is None]
    assert not missing, f"actions without a cost: {missing}"


def _set_costs(problem: Any, costs: Mapping[str, Any]) -> None:
    """The metric: minimise the sum of these action costs (by action name)."""
    from unified_planning.model.metrics import MinimizeActionCosts

    problem.clear_quality_metrics()
    problem.add_quality_metric(MinimizeActionCosts(
        {problem.action(n): c for n, c in costs.items()}, environment=problem.environment))


def _splits(goal: Goal) -> bool:
    """A conjunction with a disjunction (or a positive `same-surface`: an existential)
    among two or more parts: split it into checks."""
    match goal:
        case GAnd() if len(goal.parts) > 1:
            return any(_splitting(p) for p in goal.parts)
        case _:
            return False


def _splitting(part: Goal) -> bool:
    """A disjunction: an `or`, a negated `and`, a positive `same-surface`."""
    match part:
        case GOr() | GNot(body=GAnd()):
            return True
        case GAtom() if part.predicate == SAME_SURFACE:
            return True
        case _:
            return False


def _same_surface(problem: Any, a: Any, b: Any) -> Any:
    """`(same-surface a b)` by its definition: some surface of the problem both are `on`
    (two different items: an item shares no surface with itself)."""
    from unified_planning.model import Variable

    em = problem.environment.expression_manager
    if a == b:
        return em.FALSE()
    s = Variable("s", problem.user_type("surface"), problem.environment)
    on = problem.fluent("on")
    return em.Exists(em.And(on(a, s), on(b, s)), s)


def holds_initially(pp: PlanningProblem) -> bool:
    """Whether the abstraction judges the task's goal reached before any action: the goal
    in the problem's initial state, the checkpoints of a sequence or multi-goal taken in
    order where they apply (unified-planning's simulator)."""
    from unified_planning.shortcuts import SequentialSimulator

    _quiet()
    with SequentialSimulator(problem=pp.problem) as sim:
        state = sim.get_initial_state()
        for name in pp.checkpoints:
            action = pp.problem.action(name)
            if sim.is_applicable(state, action, ()):
                state = sim.apply_unsafe(state, action, ())
        return bool(sim.is_goal(state))


def pddl_name(text: str) -> str:
    """`text` as a PDDL name: characters other than letters, digits, `-` and `_` become
    `_`, and one that does not start with a letter gets `t-` before it."""
    name = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_"
                   for ch in text)
    return name if name[:1].isalpha() else f"t-{name}"
