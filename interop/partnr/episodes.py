"""PARTNR's collaboration episodes: the evaluation part of the format, as pydantic models.

A PARTNR dataset (`*.json.gz`, habitat-lab's `CollaborationDataset`) is
`{"config": ..., "episodes": [...]}`; each episode is a RearrangeDataset-v0 episode plus
`instruction`, `evaluation_propositions`, `evaluation_proposition_dependencies` and
`evaluation_constraints`. These models check the evaluation fields exactly (every
proposition function with its own arguments, every dependency relation, every
constraint type, proposition indices in range, acyclic orders, argument names the
function has) and keep every other field of an episode as it is. Entities are Habitat
instance handles (`<template>_:NNNN`), which are also the ids `fdc import habitat`
gives the instances it imports; rooms are region ids.

`read_episodes` never raises on bad input: it returns `Diagnostic`s with the file and the
JSON path of each fault. `episodes_bytes` renders a dataset as gzip-compressed JSON,
byte-identical for equal datasets. The meaning of the evaluation, and its translation
to fdc's goals, is in `fdc.interop.partnr.goals`.
See docs/partnr.md.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from fdc.core.inputs import InputFileError, InputKind, read_input_text
from fdc.core.jsonl import loads
from fdc.core.jsonpath import json_path
from fdc.core.problems import Diagnostic, error


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


#: What a Habitat handle (and so an fdc entity id, and a PDDL name) may be made of.
SAFE_NAME = re.compile(r"[A-Za-z0-9_.:\-]+")


def _handle(value: str) -> str:
    if not SAFE_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a Habitat handle: a handle is letters, digits "
                         "and `_ . : -` (as `chair_:0000`)")
    return value


#: Object and receptacle handles: checked, since they become entity ids in fdc's goals.
Handles = Annotated[list[Annotated[str, Field(min_length=1), AfterValidator(_handle)]],
                    Field(min_length=1)]
#: Room names, as PARTNR writes them (`living room`): fdc maps them to room ids
#: (`fdc.sim_bridge.habitat.importer.region_id`).
RoomNames = Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]
Count = Annotated[int, Field(ge=1)]


# ----- propositions: one model per function -------------------------------------------
class ReceptacleArgs(_Strict):
    object_handles: Handles
    receptacle_handles: Handles
    number: Count = 1
    is_same_receptacle: bool = False


class RoomArgs(_Strict):
    object_handles: Handles
    room_ids: RoomNames
    number: Count = 1
    is_same_room: bool = False


class ObjectArgs(_Strict):
    object_handles: Handles
    number: Count = 1


class NextToArgs(_Strict):
    entity_handles_a: Handles
    entity_handles_b: Handles
    number: Count = 1
    is_same_b: bool = False
    l2_threshold: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.5


class ClusterArgs(_Strict):
    groups: Annotated[list[Handles], Field(alias="*args", min_length=1)]
    number: list[Count] | None = None
    l2_threshold: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.5

    @model_validator(mode="after")
    def _one_number_per_group(self) -> ClusterArgs:
        if self.number is not None and len(self.number) != len(self.groups):
            raise ValueError(f"`number` has {len(self.number)} entries for "
                             f"{len(self.groups)} handle lists")
        return self


class IsOnTop(_Strict):
    function_name: Literal["is_on_top"]
    args: ReceptacleArgs


class IsInside(_Strict):
    function_name: Literal["is_inside"]
    args: ReceptacleArgs


class IsInRoom(_Strict):
    function_name: Literal["is_in_room"]
    args: RoomArgs


class IsOnFloor(_Strict):
    function_name: Literal["is_on_floor"]
    args: ObjectArgs


class IsNextTo(_Strict):
    function_name: Literal["is_next_to"]
    args: NextToArgs


class IsClustered(_Strict):
    function_name: Literal["is_clustered"]
    args: ClusterArgs


#: The object-state functions, each a boolean state or its negation.
STATE_FUNCTIONS = ("is_clean", "is_dirty", "is_filled", "is_empty", "is_powered_on",
                   "is_powered_off")


class IsInState(_Strict):
    function_name: Literal["is_clean", "is_dirty", "is_filled", "is_empty", "is_powered_on",
                           "is_powered_off"]
    args: ObjectArgs


Proposition = Annotated[
    IsOnTop | IsInside | IsInRoom | IsOnFloor | IsNextTo | IsClustered | IsInState,
    Field(discriminator="function_name"),
]

#: The argument names a same/different constraint may name, per function.
ARG_NAMES: dict[str, tuple[str, ...]] = {
    "is_on_top": ("object_handles", "receptacle_handles"),
    "is_inside": ("object_handles", "receptacle_handles"),
    "is_in_room": ("object_handles", "room_ids"),
    "is_on_floor": ("object_handles",),
    "is_next_to": ("entity_handles_a", "entity_handles_b"),
    **{f: ("object_handles",) for f in STATE_FUNCTIONS},
}


def arg_names(p: Proposition) -> tuple[str, ...]:
    if isinstance(p, IsClustered):
        return tuple(f"*args_{i}" for i in range(len(p.args.groups)))
    return ARG_NAMES[p.function_name]


# ----- dependencies and constraints ---------------------------------------------------
Index = Annotated[int, Field(ge=0)]


class PropositionDependency(_Strict):
    proposition_indices: Annotated[list[Index], Field(min_length=1)]
    depends_on: Annotated[list[Index], Field(min_length=1)]
    relation_type: Literal["while_satisfied", "after_satisfied", "after_unsatisfied",
                           "before_satisfied"]
    dependency_mode: Literal["all", "any"] = "all"


class TemporalArgs(_Strict):
    dag_edges: list[tuple[Index, Index]] = Field(default_factory=list)
    n_propositions: Index | None = None


class ArgMatchArgs(_Strict):
    proposition_indices: Annotated[list[Index], Field(min_length=1)]
    arg_names: Annotated[list[str], Field(min_length=1)]
    n_propositions: Index | None = None

    @model_validator(mode="after")
    def _one_name_per_proposition(self) -> ArgMatchArgs:
        if len(self.arg_names) != len(self.proposition_indices):
            raise ValueError(f"{len(self.arg_names)} arg_names for "
                             f"{len(self.proposition_indices)} proposition_indices")
        return self


class TerminalArgs(_Strict):
    proposition_indices: Annotated[list[Index], Field(min_length=1)]
    n_propositions: Index | None = None


class TemporalConstraint(_Strict):
    type: Literal["TemporalConstraint"]
    args: TemporalArgs


class SameArgConstraint(_Strict):
    type: Literal["SameArgConstraint"]
    args: ArgMatchArgs


class DifferentArgConstraint(_Strict):
    type: Literal["DifferentArgConstraint"]
    args: ArgMatchArgs


class TerminalSatisfactionConstraint(_Strict):
    type: Literal["TerminalSatisfactionConstraint"]
    args: TerminalArgs


EvaluationConstraint = Annotated[
    TemporalConstraint | SameArgConstraint | DifferentArgConstraint
    | TerminalSatisfactionConstraint,
    Field(discriminator="type"),
]


# ----- episodes -----------------------------------------------------------------------
class Episode(BaseModel):
    """One collaboration episode: the evaluation fields checked, the others kept."""

    model_config = ConfigDict(extra="allow", frozen=True)

    episode_id: str
    scene_id: str = ""
    instruction: str = ""
    evaluation_propositions: Annotated[list[Proposition], Field(min_length=1)]
    evaluation_proposition_dependencies: list[PropositionDependency] = Field(
        default_factory=list)
    evaluation_constraints: list[EvaluationConstraint] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _id_as_text(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("episode_id"), int):
            return {**data, "episode_id": str(data["episode_id"])}
        return data

    @model_validator(mode="after")
    def _indices_in_range(self) -> Episode:
        n = len(self.evaluation_propositions)

        def check(where: str, indices: list[int]) -> None:
            bad = [i for i in indices if i >= n]
            if bad:
                raise ValueError(f"{where} names proposition {bad[0]}, but there are {n}")

        for k, d in enumerate(self.evaluation_proposition_dependencies):
            check(f"evaluation_proposition_dependencies[{k}]",
                  [*d.proposition_indices, *d.depends_on])
        for k, c in enumerate(self.evaluation_constraints):
            where = f"evaluation_constraints[{k}] ({c.type})"
            if isinstance(c, TemporalConstraint):
                check(where, [i for e in c.args.dag_edges for i in e])
                _check_acyclic(c.args.dag_edges, where)
                continue
            check(where, c.args.proposition_indices)
            if isinstance(c, SameArgConstraint | DifferentArgConstraint):
                for i, name in zip(c.args.proposition_indices, c.args.arg_names, strict=True):
                    known = arg_names(self.evaluation_propositions[i])
                    if name not in known:
                        raise ValueError(f"{where}: proposition {i} "
                                         f"({self.evaluation_propositions[i].function_name}) "
                                         f"has no argument `{name}` (it has "
                                         f"{', '.join(known)})")
        return self


def _check_acyclic(edges: list[tuple[int, int]], where: str) -> None:
    import networkx as nx

    g = nx.DiGraph(edges)
    if not nx.is_directed_acyclic_graph(g):
        loop = [a for a, _ in nx.find_cycle(g)]
        raise ValueError(f"{where}: dag_edges has a cycle "
                         f"({' -> '.join(str(a) for a in [*loop, loop[0]])})")


class Dataset(BaseModel):
    """A PARTNR episodes file."""

    model_config = ConfigDict(extra="allow", frozen=True)

    config: Any = None
    episodes: list[Episode]


# ----- files --------------------------------------------------------------------------
def read_episodes(path: str | Path) -> tuple[Dataset | None, list[Diagnostic]]:
    """Read a PARTNR episodes file (gzip-compressed or plain JSON). On any fault: None
    and the findings, each with the file and the JSON path of the value."""
    p = Path(path)
    try:
        text = read_input_text(p, InputKind.EPISODES)
    except InputFileError as e:
        return None, [error("PN001", f"cannot read the file: {e.reason}", file=str(p),
                             hint=e.hint)]
    try:
        data = loads(text)
    except json.JSONDecodeError as e:
        return None, [error("PN002", f"not valid JSON: {e.msg} (line {e.lineno}, column "
                             f"{e.colno})", file=str(p))]
    return parse_episodes(data, str(p))


def parse_episodes(data: Any, file: str = "") -> tuple[Dataset | None, list[Diagnostic]]:
    """Validate decoded JSON as a PARTNR dataset (see `read_episodes`)."""
    if not isinstance(data, dict) or not isinstance(data.get("episodes"), list):
        found = type(data).__name__ if not isinstance(data, dict) else "no `episodes` list"
        return None, [error("PN003", f"expected an object with an `episodes` list, found "
                            f"{found}", "episodes" if isinstance(data, dict) else "", file=file)]
    try:
        dataset = Dataset.model_validate(data)
    except ValidationError as e:
        findings = []
        for err in e.errors():
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            findings.append(error("PN003", msg, json_path(_in_document(data, err["loc"])),
                                  file=file))
        return None, findings
    ids: dict[str, int] = {}
    repeats = []
    for k, ep in enumerate(dataset.episodes):
        if ep.episode_id in ids:
            repeats.append(error("PN003", f"episode_id `{ep.episode_id}` repeats episodes"
                                 f"[{ids[ep.episode_id]}]", f"episodes[{k}].episode_id",
                                 file=file))
        ids.setdefault(ep.episode_id, k)
    if repeats:
        return None, repeats
    return dataset, []


def _in_document(data: Any, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """A pydantic error location as a path into the document: a tagged union's tag
    (`is_on_top`, `TemporalConstraint`) names no value there and is left out."""
    out: list[int | str] = []
    for part in loc:
        if isinstance(data, dict) and part in (data.get("function_name"), data.get("type")):
            continue
        out.append(part)
        if isinstance(data, dict):
            data = data.get(str(part))
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            data = None
    return tuple(out)


def episodes_bytes(dataset: Dataset) -> bytes:
    """The dataset as gzip-compressed JSON (no timestamp: equal datasets, equal bytes)."""
    text = json.dumps(dataset.model_dump(mode="json", by_alias=True), ensure_ascii=False,
                      separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), mtime=0)


__all__ = ["ARG_NAMES", "STATE_FUNCTIONS", "ArgMatchArgs", "ClusterArgs", "Dataset",
           "DifferentArgConstraint", "Episode", "EvaluationConstraint", "IsClustered",
           "IsInRoom", "IsInState", "IsInside", "IsNextTo", "IsOnFloor", "IsOnTop",
           "NextToArgs", "ObjectArgs", "Proposition", "PropositionDependency",
           "ReceptacleArgs", "RoomArgs", "SameArgConstraint", "TemporalArgs",
           "TemporalConstraint", "TerminalArgs", "TerminalSatisfactionConstraint",
           "arg_names", "episodes_bytes", "parse_episodes", "read_episodes"]
