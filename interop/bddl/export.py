"""`fdc export bddl`: compiled tasks as BDDL problems (BEHAVIOR-1K's language).

A task becomes one problem: `:objects`, each object the goal names and what it stands on
or in at the task's start (down to the furniture), with BEHAVIOR's synset for its
category (`names.BddlNames`), a floor per room used, and the robot; `:init`, where those
objects are at the start (`ontop`, `inside`, `inroom` for furniture and floors, the
robot on the floor of its room) and the object states that hold there (`cooked`,
`covered ... dust.n.01_1`, `open`, `toggled_on`); `:goal`, the task's ground goal in
BDDL's words (counts expanded to connectives). fdc's checkers relate whole objects
where BDDL does (`on-top-of`, `inside-of`, `next-to`), and a surface where the object
has only one of its kind (`on ?mug counter|top` is `ontop` of the counter). What BDDL
cannot say (a surface of an object with several, a region, the robot's pose, a
sequence or a multi-goal task, a category with no synset) is `NotExpressible`, and the
task is named once with why.

`goal_from_bddl` reads a problem's goal back (through the names the export chose), the
round trip the tests hold the export to.

See docs/bddl.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fdc.compiler.reopen import ReopenedSuite, ReopenError, imported, reopen_suite
from fdc.compiler.suite import TaskRecord
from fdc.core.errors import FdcError
from fdc.core.files import FileNames, Outputs
from fdc.core.problems import render_line
from fdc.interop.bddl.names import BddlNames, corpus_names
from fdc.predicates.algebra import CountTooLarge, NotExpandable, NotExpressible, expand_counts
from fdc.predicates.checkers.object_states import UNARY, WITH_SUBSTANCE
from fdc.predicates.goal import GAnd, GAtom, GNot, Goal, GOr, atom
from fdc.predicates.registry import Context
from fdc.sim_bridge.graph.scene_graph import SceneGraph, SceneLoadError
from fdc.sim_bridge.scene.schema import Kind
from fdc.sim_bridge.world.snapshot import SnapshotState

DOMAIN = "omnigibson"
INDEX_FILE = "index.json"
#: The most atoms a count may expand to.
COUNT_LIMIT = 2000

#: fdc's fluent predicates BDDL has, over whole objects: fdc -> BDDL.
OBJECT_RELATIONS = {"on-top-of": "ontop", "inside-of": "inside", "next-to": "nextto",
                    "attached": "attached"}
#: fdc's object states -> BDDL's (`unfolded` and the negated PARTNR states too).
STATES = {**{s: s.replace("-", "_") for s in (*UNARY, "unfolded")},
          "is-open": "open", "is-powered-on": "toggled_on"}
NEGATED_STATES = {"is-powered-off": "toggled_on"}
SUBSTANCE_STATES = {s: s for s in WITH_SUBSTANCE}
#: BDDL -> fdc, for reading a goal back (`ontop` of the floor is `on-floor`).
BACK = {**{b: f for f, b in OBJECT_RELATIONS.items()},
        **{b: f for f, b in STATES.items()}, **SUBSTANCE_STATES}


class BddlExportError(FdcError):
    """The suite cannot be read, or no task of it can be written (the CLI's exit 2)."""


@dataclass(frozen=True)
class Problem:
    """One task as a BDDL problem: its text and which instance is which fdc entity."""

    task: str
    text: str
    instances: dict[str, str]  # BDDL instance -> fdc entity id (a substance: its constant)


@dataclass
class BddlExport:
    problems: list[Problem] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (task id, why)


class _Problem:
    """The instances, facts and goal of one problem under construction."""

    def __init__(self, record: TaskRecord, graph: SceneGraph, state: SnapshotState,
                 names: BddlNames) -> None:
        self.record = record
        self.g = graph
        self.state = state
        self.names = names
        self.instance: dict[str, str] = {}  # fdc entity -> BDDL instance
        self.synset_of: dict[str, str] = {}  # BDDL instance -> synset
        self.counts: dict[str, int] = {}
        self.floors: dict[str, str] = {}  # room id -> floor instance
        self.init: list[str] = []

    def _new(self, entity: str, synset: str) -> str:
        n = self.counts.get(synset, 0) + 1
        self.counts[synset] = n
        inst = f"{synset}_{n}"
        self.instance[entity] = inst
        self.synset_of[inst] = synset
        return inst

    def obj(self, entity: str) -> str:
        """The instance of a scene object (furniture or item)."""
        found = self.instance.get(entity)
        if found is not None:
            return found
        if not self.g.has(entity):
            raise NotExpressible(f"`{entity}` is no object of the scene")
        cat = self.g.object(entity).category
        synset = self.names.synset(cat)
        if synset is None:
            raise NotExpressible(f"the category `{cat}` has no synset in BEHAVIOR's "
                                 "taxonomy")
        return self._new(entity, synset)

    def substance(self, constant: str) -> str:
        found = self.instance.get(constant)
        if found is not None:
            return found
        synset = self.names.substance(constant)
        if synset is None:
            raise NotExpressible(f"the substance `{constant}` has no synset")
        return self._new(constant, synset)

    def floor(self, room: str) -> str:
        found = self.floors.get(room)
        if found is None:
            found = self.floors[room] = self._new(f"floor@{room}", "floor.n.01")
        return found

    def whole(self, surface: str, inside: bool) -> str:
        """The object a surface or receptacle belongs to, when BDDL's whole-object
        relation says the same (the object has one surface of that kind)."""
        try:
            s = self.g.surface(surface)
        except KeyError:
            return self.obj(surface)  # an item as a container
        kin = [t for t in self.g.surfaces(s.object_id) if (t.container is not None) == inside]
        if len(kin) > 1:
            raise NotExpressible(f"`{surface}` is one of {len(kin)} "
                                 f"{'containers' if inside else 'surfaces'} of "
                                 f"`{s.object_id}`; BDDL relates whole objects")
        return self.obj(s.object_id)

    # -- the goal
    def goal(self, g: Goal) -> str:
        match g:
            case GAtom():
                return self.atom(g)
            case GNot():
                return f"(not {self.goal(g.body)})"
            case GAnd() if g.parts:
                return "(and " + " ".join(self.goal(p) for p in g.parts) + ")"
            case GOr() if g.parts:
                return "(or " + " ".join(self.goal(p) for p in g.parts) + ")"
            case GAnd() | GOr():
                raise NotExpressible("an empty junction (BDDL has no true or false)")
            case _:
                raise NotExpressible(f"a `{g.kind}` goal (BDDL's goals are formulas over "
                                     "the final state)")

    def atom(self, a: GAtom) -> str:
        p, args = a.predicate, a.args
        if p in OBJECT_RELATIONS:
            return f"({OBJECT_RELATIONS[p]} {self.obj(args[0])} {self.obj(args[1])})"
        if p in ("on", "inside"):
            return (f"({'ontop' if p == 'on' else 'inside'} {self.obj(args[0])} "
                    f"{self.whole(args[1], p == 'inside')})")
        if p == "on-floor":
            room = self.state.room_of(args[0]) or self.g.object(args[0]).room
            if room is None:
                raise NotExpressible(f"`{args[0]}` is in no room: no floor to name")
            return f"(ontop {self.obj(args[0])} {self.floor(room)})"
        if p == "in-room":
            raise NotExpressible("`in-room`: BDDL's `inroom` places scene objects in `:init`; "
                                 "no backend of BDDL evaluates it in a goal")
        if p in STATES:
            return f"({STATES[p]} {self.obj(args[0])})"
        if p in NEGATED_STATES:
            return f"(not ({NEGATED_STATES[p]} {self.obj(args[0])}))"
        if p in SUBSTANCE_STATES:
            return f"({p} {self.obj(args[0])} {self.substance(args[1])})"
        raise NotExpressible(f"`{p}` has no counterpart in BDDL")

    # -- the start
    def room_word(self, room: str) -> str:
        return self.names.room(self.g.room(room).category)

    def place(self) -> None:
        """Where every object named so far is at the start, down to the furniture and
        the floors; then the robot."""
        done: set[str] = set()
        todo = [e for e in self.instance if self.g.has(e)]
        while todo:
            e = todo.pop(0)
            if e in done:
                continue
            done.add(e)
            o = self.g.object(e)
            inst = self.instance[e]
            if o.kind is not Kind.MOVABLE:
                room = o.room or self.state.room_of(e)
                if room is not None:
                    self.init.append(f"(inroom {inst} {self.room_word(room)})")
                continue
            if self.state.held_object() == e:
                continue
            sid = self.state.support_of(e)
            if sid is None:
                room = self.state.room_of(e)
                if room is not None:
                    self.init.append(f"(ontop {inst} {self.floor(room)})")
                continue
            s = self.g.surface(sid)
            try:
                under = self.obj(s.object_id)
            except NotExpressible as why:
                raise NotExpressible(f"what `{e}` stands on at the start: {why}") from None
            self.init.append(f"({'inside' if s.container is not None else 'ontop'} "
                             f"{inst} {under})")
            todo.append(s.object_id)
        for room, floor in sorted(self.floors.items()):
            self.init.append(f"(inroom {floor} {self.room_word(room)})")
        pose = self.state.agent_pose()
        room = self.state.room_of((pose.x, pose.y, pose.z))
        agent = self._new("robot", "agent.n.01")
        if room is not None:
            self.init.append(f"(ontop {agent} {self.floor(room)})")
            if not any(f.startswith(f"(inroom {self.floors[room]} ") for f in self.init):
                self.init.append(f"(inroom {self.floors[room]} {self.room_word(room)})")

    def states(self, registry: Any) -> None:
        """The object states that hold at the start, for the objects named."""
        ctx = Context(graph=self.g, state=self.state)
        substances = [c for c in self.instance if not self.g.has(c) and "@" not in c
                      and c != "robot"]
        objects = [e for e in self.instance if self.g.has(e)]
        asks: list[tuple[str, tuple[str, ...], str]] = []
        for e in objects:
            kind = self.g.object(e).kind
            for p in (*UNARY, "is-powered-on"):
                asks.append((p, (e,), f"({STATES[p]} {self.instance[e]})"))
            if kind is Kind.ARTICULATED:
                asks.append(("is-open", (e,), f"(open {self.instance[e]})"))
            for p in WITH_SUBSTANCE:
                for c in substances:
                    asks.append((p, (e, c), f"({p} {self.instance[e]} {self.instance[c]})"))
        by_pred: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for p, args, text in asks:
            by_pred.setdefault(p, []).append((args, text))
        for p, rows in by_pred.items():
            truth = registry.evaluate_many(p, [a for a, _ in rows], ctx)
            self.init.extend(text for (_, text), ok in zip(rows, truth.tolist(), strict=True)
                             if ok)

    def text(self, goal: str) -> str:
        by_synset: dict[str, list[str]] = {}
        for inst, synset in self.synset_of.items():
            by_synset.setdefault(synset, []).append(inst)
        objects = "\n".join(f"        {' '.join(insts)} - {synset}"
                            for synset, insts in by_synset.items())
        init = "\n".join(f"        {f}" for f in self.init)
        return (f"(define (problem {problem_name(self.record.id)})\n"
                f"    (:domain {DOMAIN})\n\n    (:objects\n{objects}\n    )\n\n"
                f"    (:init\n{init}\n    )\n\n    (:goal\n        {goal}\n    )\n)\n")


def problem_name(task_id: str) -> str:
    return task_id.replace(" ", "_")


def export_record(record: TaskRecord, graph: SceneGraph, state: SnapshotState, registry: Any,
                  names: BddlNames) -> Problem:
    """The task as a BDDL problem; `NotExpressible` with why it cannot be."""
    try:
        goal = expand_counts(record.goal, COUNT_LIMIT)
    except (CountTooLarge, NotExpandable) as e:
        raise NotExpressible(f"a count BDDL would need spelled out: {e}") from None
    p = _Problem(record, graph, state, names)
    said = p.goal(goal)
    if not said.startswith("(and "):
        said = f"(and {said})"
    p.place()
    p.states(registry)
    inverse = {inst: e for e, inst in p.instance.items()}
    return Problem(record.id, p.text(said), inverse)


def export_suite(suite: str | Path, folder: str | Path,
                 names: BddlNames | None = None) -> BddlExport:
    """Write `<task id>.bddl` for each task BDDL can express and `index.json` (each
    problem's file and instances; each task not written and why). Nothing is written when
    no task can be (`BddlExportError`, said once)."""
    try:
        opened = reopen_suite(suite)
    except ReopenError as e:
        raise BddlExportError(str(e)) from None
    if opened.problems:
        raise BddlExportError(f"{suite}: {render_line(opened.problems[0])} (`fdc validate` "
                              "lists every problem)")
    result = export_opened(opened, names or corpus_names())
    if not result.problems:
        reasons = "; ".join(dict.fromkeys(why for _, why in result.refused)) or "it is empty"
        raise BddlExportError(f"no task of the suite can be written as BDDL, nothing was: "
                              f"{reasons}")
    folder = Path(folder)
    files = FileNames(folder, INDEX_FILE)
    with Outputs() as out:
        out.folder(folder)
        written = []
        for p in result.problems:
            path = files.path(p.task, ".bddl")
            out.write(path, p.text)
            written.append({"task": p.task, "problem": path.name, "instances": p.instances})
        index = {"format": "fdc-bddl-export", "version": 1, "domain": DOMAIN,
                 "problems": written,
                 "not_expressible": [{"task": t, "reason": why} for t, why in result.refused]}
        out.write(folder / INDEX_FILE, json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    return result


def export_opened(opened: ReopenedSuite, names: BddlNames) -> BddlExport:
    result = BddlExport()
    for r in opened.records:
        source = imported(r)
        if source is not None:
            result.refused.append((r.id, f"imported from {source}: `fdc export "
                                   f"{source.lower()}` writes it back"))
            continue
        try:
            graph = opened.graph(r)
            state = SnapshotState(graph, opened.start_state(r))
            registry = opened.compiler(r).registry
        except (ReopenError, SceneLoadError) as e:
            raise BddlExportError(str(e)) from None
        try:
            result.problems.append(export_record(r, graph, state, registry, names))
        except NotExpressible as e:
            result.refused.append((r.id, str(e)))
    return result


# ----------------------------------------------------------------------------- reading back
def goal_from_bddl(goal: Sequence[Any], instances: dict[str, str], floors_are: str = "on-floor"
                   ) -> Goal:
    """A goal BDDL's parser read (`parse_problem`'s conjuncts) as an fdc conjunction over the
    entities `instances` names: the round trip of `export_record` (`ontop` of a floor is
    `on-floor`; `ontop`/`inside` of an object with one surface of the kind reads as the
    whole-object relation)."""
    def term(x: Any) -> str:
        return instances[str(x).lstrip("?")]

    def one(e: Any) -> Goal:
        head = e[0]
        if head == "and":
            return GAnd(parts=tuple(one(x) for x in e[1:]))
        if head == "or":
            return GOr(parts=tuple(one(x) for x in e[1:]))
        if head == "not":
            return GNot(body=one(e[1]))
        args = [term(x) for x in e[1:]]
        if head == "ontop" and args[1].startswith("floor@"):
            return atom(floors_are, args[0])
        if head in SUBSTANCE_STATES:
            return atom(head, *args)
        return atom(BACK[head], *args)

    return GAnd(parts=tuple(one(c) for c in goal))
