"""PARTNR's evaluation as fdc goals, and back.

An episode's propositions, dependencies and constraints become one `checklist` goal
whose meaning is PARTNR's (`fdc.predicates.verify` judges it as PARTNR's evaluation
engine does):

| PARTNR | fdc |
|---|---|
| `is_on_top(objects, receptacles, number, is_same_receptacle)` | `count` of `on-top-of` |
| `is_inside(...)` | `count` of `inside-of` |
| `is_in_room(objects, room_ids, number, is_same_room)` | `count` of `in-room` |
| `is_on_floor(objects, number)` | `count` of `on-floor` |
| `is_next_to(a, b, number, is_same_b, l2_threshold)` | `count` of `next-to` (`next_to_m`) |
| `is_clustered(*lists, number, l2_threshold)` | `cluster` of `next-to` |
| `is_clean` ... `is_powered_off(objects, number)` | `count` of `is-clean` ... `is-powered-off` |
| dependency `relation_type`, `dependency_mode` | `Dependency` `relation`, `mode` |
| `TemporalConstraint(dag_edges)` | `order` constraint |
| `SameArgConstraint` / `DifferentArgConstraint(indices, arg_names)` | `same` / `different` |
| `TerminalSatisfactionConstraint(indices)` | `terminal` constraint |

Argument names become roles: the first list (`object_handles`, `entity_handles_a`) is
`item`, the second (`receptacle_handles`, `room_ids`, `entity_handles_b`) is `other`,
`*args_i` is `group-i`. Entity ids are the Habitat handles themselves: `fdc import
habitat` names imported instances exactly so.

`export_evaluation` goes back: a checklist, or a plain goal (its conjuncts as
propositions, each required to hold at the end: a terminal constraint over all), when
every part has a PARTNR form; otherwise it says which part has none and why.
See docs/partnr.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from fdc.core.hashing import sha256_text
from fdc.interop.partnr.episodes import (
    ArgMatchArgs,
    ClusterArgs,
    DifferentArgConstraint,
    Episode,
    EvaluationConstraint,
    IsClustered,
    IsInRoom,
    IsInside,
    IsInState,
    IsNextTo,
    IsOnFloor,
    IsOnTop,
    NextToArgs,
    ObjectArgs,
    Proposition,
    PropositionDependency,
    ReceptacleArgs,
    RoomArgs,
    SameArgConstraint,
    TemporalArgs,
    TemporalConstraint,
    TerminalArgs,
    TerminalSatisfactionConstraint,
)
from fdc.predicates.algebra import NotExpressible, is_atom, junction_parts
from fdc.predicates.goal import (
    Constraint,
    Dependency,
    DifferentConstraint,
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
    OrderConstraint,
    SameConstraint,
    TerminalConstraint,
)
from fdc.sim_bridge.habitat.importer import region_id

#: PARTNR's default `l2_threshold`, and the fdc threshold it sets.
L2_THRESHOLD = 0.5
NEXT_TO = "next_to_m"

#: PARTNR function -> fdc relation, for the functions that are one relation each.
RELATIONS: dict[str, str] = {
    "is_on_top": "on-top-of",
    "is_inside": "inside-of",
    "is_in_room": "in-room",
    "is_on_floor": "on-floor",
    "is_next_to": "next-to",
    "is_clean": "is-clean",
    "is_dirty": "is-dirty",
    "is_filled": "is-filled",
    "is_empty": "is-empty",
    "is_powered_on": "is-powered-on",
    "is_powered_off": "is-powered-off",
}
FUNCTIONS = {v: k for k, v in RELATIONS.items()}
_BINARY = {"on-top-of", "inside-of", "in-room", "next-to"}
_NEGATION = {"is-clean": "is-dirty", "is-dirty": "is-clean", "is-filled": "is-empty",
             "is-empty": "is-filled", "is-powered-on": "is-powered-off",
             "is-powered-off": "is-powered-on"}
#: The roles of each function's named arguments.
_ROLE_OF_ARG = {
    "object_handles": "item", "entity_handles_a": "item", "receptacle_handles": "other",
    "room_ids": "other", "entity_handles_b": "other",
}
_ARG_OF_ROLE = {
    "is_on_top": {"item": "object_handles", "other": "receptacle_handles"},
    "is_inside": {"item": "object_handles", "other": "receptacle_handles"},
    "is_in_room": {"item": "object_handles", "other": "room_ids"},
    "is_next_to": {"item": "entity_handles_a", "other": "entity_handles_b"},
}
#: A Habitat instance handle: `<template>_:NNNN`.
HANDLE = re.compile(r"^.+_:\d{4}$")
#: Thresholds PARTNR's predicates do not let an episode change (all but `next_to_m`).
_FIXED = ("on_top_m", "on_below_m", "inside_margin_m", "floor_gap_m", "next_to_vertical_m")


# ----------------------------------------------------------------------------- import
def role_of(arg_name: str) -> str:
    """The fdc role of a PARTNR argument name (`receptacle_handles` -> `other`)."""
    if arg_name.startswith("*args_"):
        return "group-" + arg_name.removeprefix("*args_")
    return _ROLE_OF_ARG[arg_name]


def proposition_goal(p: Proposition) -> GCount | GCluster:
    """One PARTNR proposition as an fdc goal of the same meaning."""
    if isinstance(p, IsClustered):
        a = p.args
        return GCluster(relation="next-to", groups=tuple(tuple(g) for g in a.groups),
                        numbers=tuple(a.number) if a.number is not None else (),
                        thresholds=_l2(a.l2_threshold))
    rel = RELATIONS[p.function_name]
    if isinstance(p, IsOnTop | IsInside):
        r = p.args
        return GCount(relation=rel, items=tuple(r.object_handles),
                      others=tuple(r.receptacle_handles), number=r.number,
                      same_other=r.is_same_receptacle)
    if isinstance(p, IsInRoom):
        m = p.args
        return GCount(relation=rel, items=tuple(m.object_handles),
                      others=tuple(region_id(r) for r in m.room_ids),
                      number=m.number, same_other=m.is_same_room)
    if isinstance(p, IsNextTo):
        n = p.args
        return GCount(relation=rel, items=tuple(n.entity_handles_a),
                      others=tuple(n.entity_handles_b), number=n.number,
                      same_other=n.is_same_b, thresholds=_l2(n.l2_threshold))
    return GCount(relation=rel, items=tuple(p.args.object_handles), number=p.args.number)


def renamed_rooms(episode: Episode) -> dict[str, str]:
    """The room names of an episode that `region_id` changes (the id `fdc import
    habitat` gives the region of that name): fdc id -> PARTNR name."""
    return {region_id(r): r for p in episode.evaluation_propositions
            if isinstance(p, IsInRoom) for r in p.args.room_ids if region_id(r) != r}


def _l2(value: float) -> dict[str, float]:
    return {} if value == L2_THRESHOLD else {NEXT_TO: value}


def import_evaluation(episode: Episode) -> GChecklist:
    """The episode's evaluation as one checklist goal (the episode is valid: its model
    checked indices, argument names and orders)."""
    props = tuple(proposition_goal(p) for p in episode.evaluation_propositions)
    deps = tuple(
        Dependency(propositions=tuple(d.proposition_indices), depends_on=tuple(d.depends_on),
                   relation=d.relation_type.replace("_", "-"),
                   mode=d.dependency_mode)
        for d in episode.evaluation_proposition_dependencies)
    constraints: list[Constraint] = []
    for c in episode.evaluation_constraints:
        if isinstance(c, TemporalConstraint):
            constraints.append(OrderConstraint(edges=tuple(c.args.dag_edges)))
        elif isinstance(c, TerminalSatisfactionConstraint):
            constraints.append(TerminalConstraint(propositions=tuple(c.args.proposition_indices)))
        else:
            kind = SameConstraint if isinstance(c, SameArgConstraint) else DifferentConstraint
            constraints.append(kind(propositions=tuple(c.args.proposition_indices),
                                    roles=tuple(role_of(a) for a in c.args.arg_names)))
    return GChecklist(propositions=props, dependencies=deps, constraints=tuple(constraints))


def unsupported_entities(episode: Episode) -> list[str]:
    """Handles fdc cannot stand for: PARTNR's agents (`agent_0`) are no scene entity."""
    found: list[str] = []
    for p in episode.evaluation_propositions:
        lists = p.args.groups if isinstance(p, IsClustered) else \
            [v for v in p.args.model_dump().values() if isinstance(v, list)]
        found.extend(h for hs in lists for h in hs if isinstance(h, str)
                     and re.fullmatch(r"agent_\d+", h))
    return sorted(set(found))


# ----------------------------------------------------------------------------- export
@dataclass(frozen=True)
class Evaluation:
    """The evaluation fields of a PARTNR episode."""

    propositions: list[Proposition]
    dependencies: list[PropositionDependency]
    constraints: list[EvaluationConstraint]

    def fields(self) -> dict[str, Any]:
        """As the episode's JSON fields."""
        return {
            "evaluation_propositions": [p.model_dump(mode="json", by_alias=True)
                                        for p in self.propositions],
            "evaluation_proposition_dependencies": [d.model_dump(mode="json")
                                                    for d in self.dependencies],
            "evaluation_constraints": [c.model_dump(mode="json") for c in self.constraints],
        }


def export_evaluation(goal: Goal, thresholds: Mapping[str, float] | None = None) -> Evaluation:
    """The goal as PARTNR evaluation, judged the same; `thresholds` are the task's
    overrides. Raises `NotExpressible` naming the first part PARTNR cannot state."""
    task = dict(thresholds or {})
    fixed = sorted(t for t in task if t in _FIXED)
    if fixed:
        raise NotExpressible(f"the task sets `{fixed[0]}`, which PARTNR's predicates fix")
    match goal:
        case GTargets():
            raise NotExpressible("a multi-goal task (`targets`) is judged at explicit stops; "
                                 "PARTNR has no stops")
        case GThen():
            raise NotExpressible("a sequence (`then`) lets a later step hold before an "
                                 "earlier one so long as it holds again after; PARTNR orders "
                                 "first satisfactions")
        case GChecklist():
            return _checklist(goal, task)
        case _:
            parts = junction_parts(goal, "and")
    if not parts:
        raise NotExpressible("the goal is always true: PARTNR needs a proposition")
    props = [_proposition(p, k, task) for k, p in enumerate(parts)]
    n = len(props)
    return Evaluation(props, [], [
        TemporalConstraint(type="TemporalConstraint", args=TemporalArgs(n_propositions=n)),
        TerminalSatisfactionConstraint(type="TerminalSatisfactionConstraint",
                                       args=TerminalArgs(proposition_indices=list(range(n)),
                                                         n_propositions=n))])


def _checklist(goal: GChecklist, task: Mapping[str, float]) -> Evaluation:
    props = [_proposition(p, k, task) for k, p in enumerate(goal.propositions)]
    n = len(props)
    deps = [PropositionDependency(proposition_indices=list(d.propositions),
                                  depends_on=list(d.depends_on),
                                  relation_type=d.relation.replace("-", "_"),
                                  dependency_mode=d.mode)
            for d in goal.dependencies]
    out: list[EvaluationConstraint] = []
    for c in goal.constraints:
        match c:
            case OrderConstraint():
                out.append(TemporalConstraint(type="TemporalConstraint", args=TemporalArgs(
                    dag_edges=[(a, b) for a, b in c.edges], n_propositions=n)))
            case TerminalConstraint():
                out.append(TerminalSatisfactionConstraint(
                    type="TerminalSatisfactionConstraint",
                    args=TerminalArgs(proposition_indices=list(c.propositions),
                                      n_propositions=n)))
            case SameConstraint() | DifferentConstraint():
                names = [_arg_name(props[i], role)
                         for i, role in zip(c.propositions, c.roles, strict=True)]
                args = ArgMatchArgs(proposition_indices=list(c.propositions),
                                    arg_names=names, n_propositions=n)
                if c.kind == "same":
                    out.append(SameArgConstraint(type="SameArgConstraint", args=args))
                else:
                    out.append(DifferentArgConstraint(type="DifferentArgConstraint",
                                                      args=args))
            case _:
                assert_never(c)
    return Evaluation(props, deps, out)


def _arg_name(p: Proposition, role: str) -> str:
    if role.startswith("group-"):
        return "*args_" + role.removeprefix("group-")
    if role == "item" and p.function_name not in _ARG_OF_ROLE:
        return "object_handles"
    return _ARG_OF_ROLE[p.function_name][role]


def _proposition(g: Goal, k: int, task: Mapping[str, float]) -> Proposition:
    try:
        return _as_proposition(g, task)
    except NotExpressible as e:
        raise NotExpressible(f"proposition {k}: {e}") from None


def _as_proposition(g: Goal, task: Mapping[str, float]) -> Proposition:
    match g:
        case GCount():
            return _count(g, task)
        case GCluster():
            if g.relation != "next-to":
                raise NotExpressible(f"PARTNR clusters by `next-to`, not `{g.relation}`")
            _check_thresholds(g.thresholds, "a cluster")
            for e in g.entities:
                _check_handle(e)
            return IsClustered(function_name="is_clustered", args=ClusterArgs.model_validate(
                {"*args": [list(x) for x in g.groups], "number": list(g.numbers),
                 "l2_threshold": _l2_of(g.thresholds, task)}))
        case GAtom():
            return _count(_atom_count(g), task)
        case GNot(body=GAtom() as body) if body.predicate in _NEGATION:
            return _count(_atom_count(body, _NEGATION[body.predicate]), task)
        case GOr():
            return _count(_disjunction(g), task)
        case GNot() | GAnd() | GTargets() | GThen() | GChecklist():
            pass
        case _:
            assert_never(g)
    what = {"not": "a negation (PARTNR negates object states only)",
            "and": "a conjunction inside a proposition",
            "checklist": "a checklist inside a checklist"}.get(g.kind, f"a `{g.kind}`")
    raise NotExpressible(f"{what} has no PARTNR form")


def _no_form(relation: str) -> NotExpressible:
    if relation == "on":
        return NotExpressible("`on` names one surface; PARTNR's is_on_top names whole "
                              "objects (use `on-top-of`)")
    if relation == "inside":
        return NotExpressible("`inside` names one receptacle; PARTNR's is_inside names "
                              "whole objects (use `inside-of`)")
    return NotExpressible(f"PARTNR has no proposition for `{relation}`")


def _atom_count(a: GAtom, relation: str | None = None) -> GCount:
    rel = relation or a.predicate
    if rel not in FUNCTIONS:
        raise _no_form(rel)
    if len(a.args) == 2:
        return GCount(relation=rel, items=(a.args[0],), others=(a.args[1],))
    return GCount(relation=rel, items=(a.args[0],))


def _disjunction(g: GOr) -> GCount:
    """`(or (r a1 b1) (r a1 b2) (r a2 b1) ...)` over every pair of two lists: a count of 1."""
    atoms = [p for p in g.parts if is_atom(p)]
    if not g.parts or len(atoms) != len(g.parts):
        raise NotExpressible("a disjunction has a PARTNR form only over atoms of one relation")
    rels = {a.predicate for a in atoms}
    if len(rels) != 1:
        raise NotExpressible(f"a disjunction over several relations ({', '.join(sorted(rels))})"
                             " has no PARTNR form")
    items = tuple(dict.fromkeys(a.args[0] for a in atoms))
    others = tuple(dict.fromkeys(a.args[1] for a in atoms if len(a.args) > 1))
    pairs = {a.args for a in atoms}
    want = {(i, o) for i in items for o in others} if others else {(i,) for i in items}
    if pairs != want:
        raise NotExpressible("a disjunction has a PARTNR form only when it pairs every item "
                             "with every receptacle (any of these on any of those)")
    base = _atom_count(atoms[0])
    return base.model_copy(update={"items": items, "others": others})


def _count(g: GCount, task: Mapping[str, float]) -> Proposition:
    if g.op != "at-least":
        raise NotExpressible(f"an `{g.op}` count: PARTNR's propositions count at least n")
    fn = FUNCTIONS.get(g.relation)
    if fn is None:
        raise _no_form(g.relation)
    if (g.relation in _BINARY) != bool(g.others):
        raise NotExpressible(f"`{g.relation}` takes {2 if g.relation in _BINARY else 1} "
                             "argument(s)")
    _check_thresholds(g.thresholds, f"the count of `{g.relation}`")
    for e in g.items:
        _check_handle(e)
    if g.relation != "in-room":
        for e in g.others:
            _check_handle(e)
    items, others, n, same = list(g.items), list(g.others), g.number, g.same_other
    if fn in ("is_on_top", "is_inside"):
        return (IsOnTop if fn == "is_on_top" else IsInside)(
            function_name=fn, args=ReceptacleArgs(object_handles=items, receptacle_handles=others,
                                                  number=n, is_same_receptacle=same))
    if fn == "is_in_room":
        return IsInRoom(function_name=fn, args=RoomArgs(object_handles=items, room_ids=others,
                                                        number=n, is_same_room=same))
    if fn == "is_next_to":
        return IsNextTo(function_name=fn, args=NextToArgs(
            entity_handles_a=items, entity_handles_b=others, number=n, is_same_b=same,
            l2_threshold=_l2_of(g.thresholds, task)))
    if fn == "is_on_floor":
        return IsOnFloor(function_name=fn, args=ObjectArgs(object_handles=items, number=n))
    return IsInState(function_name=fn, args=ObjectArgs(object_handles=items,
                                                       number=n))


def _check_thresholds(own: Mapping[str, float], what: str) -> None:
    other = sorted(t for t in own if t != NEXT_TO)
    if other:
        raise NotExpressible(f"{what} sets `{other[0]}`, which PARTNR's predicates fix")


def _l2_of(own: Mapping[str, float], task: Mapping[str, float]) -> float:
    return float(own.get(NEXT_TO, task.get(NEXT_TO, L2_THRESHOLD)))


def _check_handle(entity: str) -> None:
    if not HANDLE.match(entity):
        raise NotExpressible(f"`{entity}` is not a Habitat instance handle "
                             "(`<template>_:NNNN`): the task's scene was not imported from "
                             "Habitat")


def normalised(fields: Mapping[str, Any]) -> dict[str, Any]:
    """An episode's evaluation fields in a canonical form, for comparing two evaluations:
    every default written out, `n_propositions` set, edges, dependencies and
    constraints sorted, empty orders dropped."""
    ep = Episode.model_validate({"episode_id": "0", **{
        k: fields.get(k, []) for k in ("evaluation_propositions",
                                        "evaluation_proposition_dependencies",
                                        "evaluation_constraints")}})
    n = len(ep.evaluation_propositions)
    props = [p.model_dump(mode="json", by_alias=True) for p in ep.evaluation_propositions]
    for p in props:
        if p["function_name"] == "is_clustered" and p["args"]["number"] is None:
            p["args"]["number"] = [1] * len(p["args"]["*args"])
    deps = sorted((d.model_dump(mode="json") for d in ep.evaluation_proposition_dependencies),
                  key=repr)
    cons = []
    for c in ep.evaluation_constraints:
        d = c.model_dump(mode="json")
        d["args"]["n_propositions"] = n
        if c.type == "TemporalConstraint":
            d["args"]["dag_edges"] = sorted(d["args"]["dag_edges"])
            if not d["args"]["dag_edges"]:
                continue
        cons.append(d)
    return {"evaluation_propositions": props, "evaluation_proposition_dependencies": deps,
            "evaluation_constraints": sorted(cons, key=repr)}


def episode_id(task_id: str, template: str, kept: Mapping[str, str] | None = None) -> str:
    """The episode id a task is exported under: an imported task's own (`kept`, the
    names the import renamed, holds it when the task id could not), else the task id."""
    if template != "partnr":
        return task_id
    return (kept or {}).get(EPISODE_ID, task_id.removeprefix("partnr-"))


#: Task ids fdc writes and reads (letters, digits, `. _ -`; at most 128 characters).
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
#: The key of `TaskRecord.bindings` that keeps an episode id the task id could not carry.
EPISODE_ID = "episode_id"
#: The prefix of the keys of `TaskRecord.bindings` that keep renamed rooms.
ROOM = "room:"


def task_id(episode: Episode) -> str:
    """`partnr-EPISODE_ID`; an episode id that would make an unsafe task id (`../../x`,
    spaces, over 128 characters) becomes its safe characters and a hash of the whole id,
    `partnr-x-1a2b3c4d5e6f`: deterministic, and distinct for distinct episode ids."""
    plain = f"partnr-{episode.episode_id}"
    if SAFE_ID.fullmatch(plain):
        return plain
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", episode.episode_id).strip("._-")[:80]
    digest = sha256_text(episode.episode_id)[:12]
    return f"partnr-{safe}-{digest}" if safe else f"partnr-{digest}"


def kept_names(episode: Episode) -> dict[str, str]:
    """The PARTNR names the import changes, for the task record's `bindings`, so the
    export writes them back: the episode id (when the task id cannot carry it) and each
    renamed room (`room:living_room` -> `living room`)."""
    kept = {f"{ROOM}{k}": v for k, v in renamed_rooms(episode).items()}
    if task_id(episode) != f"partnr-{episode.episode_id}":
        kept[EPISODE_ID] = episode.episode_id
    return kept


def restore_rooms(fields: dict[str, Any], kept: Mapping[str, str]) -> dict[str, Any]:
    """Evaluation fields with each renamed room under its PARTNR name again."""
    for p in fields["evaluation_propositions"]:
        if p["function_name"] == "is_in_room":
            p["args"]["room_ids"] = [kept.get(f"{ROOM}{r}", r) for r in p["args"]["room_ids"]]
    return fields


__all__ = ["EPISODE_ID", "FUNCTIONS", "HANDLE", "RELATIONS", "ROOM", "SAFE_ID", "Evaluation",
           "NotExpressible", "episode_id", "export_evaluation", "import_evaluation",
           "kept_names", "normalised", "proposition_goal", "renamed_rooms", "restore_rooms",
           "role_of", "task_id", "unsupported_entities"]
