"""The predicate registry: each domain predicate and numeric function bound to a checker.

A checker is a plain function, registered by one of the decorators `@static`,
`@history` or `@fluent` (the kind says when it is evaluated: at compile time from the
scene, at compile time from the experience log, or at run time on world-state
snapshots). Everything else comes from the function itself, so no name is written twice:

    @fluent
    def robot_at_object(ctx: Context, o: Movable, *, object_distance_m: float = 2.0,
                        object_angle_rad: float = math.pi / 4) -> bool: ...

- the predicate name is the function name with `-` for `_` (`robot-at-object`);
- the parameters are the positional ones after `ctx`, each annotated with its PDDL type
  (`Annotated[str, PddlType("movable")]`; aliases below);
- the thresholds are the keyword-only parameters, with their defaults; the registry
  passes each call the value of the evaluation context (an override, else the default);
- `-> bool` makes a predicate, `-> float | None` a numeric function (None: undefined);
- parameters annotated with the `...s` aliases (`Movables`: `Annotated[Sequence[str],
  ...]`) make a *batched* checker: it takes one column of ids per parameter and returns
  a numpy array, one entry per atom. `evaluate` calls it with one-long columns, and
  `evaluate_many` with all atoms at once (the fast path for geometric checkers).
- a batched fluent checker of the robot's pose marked `@over_poses` also answers for
  many poses of the robot in one world (`Context.poses`: a row a pose), which
  `evaluate_at_poses` asks (the goal frames of memory tasks: every frame of a log).

The evaluation context is frozen: thresholds are an immutable mapping; a suite or domain
override builds a new context; relaxed evaluation (FindingDory's DTG-SR: no visibility
check; SC-SR: no distance check) is a `Mode` passed per call, never shared state.

See docs/predicates.md.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import inspect
import math
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import numpy as np

from fdc.core.errors import FdcError
from fdc.core.problems import Diagnostic, error
from fdc.predicates.hierarchy import TypeHierarchy, type_text
from fdc.predicates.hierarchy import type_ancestors as type_ancestors  # checkers import it here
from fdc.predicates.meaning import Meaning, Placement, Robot, meaning_of

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.placement import Relation
    from fdc.sim_bridge.graph.regions import Side
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.state import AgentPose, WorldState


# ----------------------------------------------------------------------------- types


@dataclass(frozen=True)
class PddlType:
    """The PDDL type of a checker parameter: one name, or several for `(either ...)`."""

    names: tuple[str, ...]

    def __init__(self, *names: str) -> None:
        if not names:
            raise ValueError("PddlType needs at least one type name")
        object.__setattr__(self, "names", tuple(sorted(names)))


Movable = Annotated[str, PddlType("movable")]
Surface = Annotated[str, PddlType("surface")]
ItemTop = Annotated[str, PddlType("item-top")]
Furniture = Annotated[str, PddlType("furniture")]
Articulated = Annotated[str, PddlType("articulated")]
Room = Annotated[str, PddlType("room")]
Value = Annotated[str, PddlType("value")]
Color = Annotated[str, PddlType("color")]
Material = Annotated[str, PddlType("material")]
Shape = Annotated[str, PddlType("shape")]
Cell = Annotated[str, PddlType("cell")]
ReceptacleOrContainer = Annotated[str, PddlType("receptacle", "container")]

Ids = Sequence[str]
Movables = Annotated[Ids, PddlType("movable")]
Surfaces = Annotated[Ids, PddlType("surface")]
Rooms = Annotated[Ids, PddlType("room")]
Cells = Annotated[Ids, PddlType("cell")]
ReceptaclesOrContainers = Annotated[Ids, PddlType("receptacle", "container")]


class Kind(enum.StrEnum):
    """When a predicate is evaluated (see DESIGN.md, "Predicate kinds")."""

    STATIC = "static"  # scene facts: folded at compile time
    HISTORY = "history"  # facts of the experience log: folded at compile time
    FLUENT = "fluent"  # world state: checked on snapshots at run time


class Mode(enum.Flag):
    """Which checks an evaluation relaxes. FindingDory's DTG-SR drops the visibility
    check, SC-SR drops the distance check (the angle check stays in both)."""

    STRICT = 0
    NO_VISIBILITY = enum.auto()
    NO_DISTANCE = enum.auto()
    DTG_SR = NO_VISIBILITY
    SC_SR = NO_DISTANCE


class EvaluationError(FdcError, ValueError):
    """An atom that cannot be evaluated: unknown predicate or entity, wrong arity, or an
    input the checker's kind needs (world state, experience log) missing."""


# ----------------------------------------------------------------------------- context


@dataclass(frozen=True)
class Context:
    """Everything a checker may read. Frozen: derive a new one with the `with_...`
    methods. `thresholds` holds overrides only; defaults come from the checkers."""

    graph: SceneGraph
    state: WorldState | None = None
    experience: Experience | None = None
    thresholds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    mode: Mode = Mode.STRICT
    viewer_side: Side | None = None  # None: the side of the surface the agent is at
    type_parents: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    #: The robot at each of these poses (hand empty) in the state's world, instead of
    #: the state's own pose: what a checker `@over_poses` answers for (a row a pose).
    poses: tuple[AgentPose, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "thresholds",
                           MappingProxyType({k: float(v) for k, v in self.thresholds.items()}))
        object.__setattr__(self, "type_parents", MappingProxyType(
            {k: tuple(v) for k, v in self.type_parents.items()}))

    def with_thresholds(self, overrides: Mapping[str, float], registry: Registry) -> Context:
        """A new context with these thresholds overridden (names checked against the
        registry: a typo is an error, not a silently ignored setting)."""
        known = registry.default_thresholds()
        for name, v in overrides.items():
            if name not in known:
                close = difflib.get_close_matches(name, list(known), n=1)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                raise KeyError(f"unknown threshold `{name}`{hint}")
            if not math.isfinite(float(v)):
                raise ValueError(f"threshold `{name}` must be finite, not {v}")
        return dataclasses.replace(self, thresholds={**self.thresholds, **overrides})

    def with_mode(self, mode: Mode) -> Context:
        return dataclasses.replace(self, mode=mode)

    def with_state(self, state: WorldState | None) -> Context:
        return dataclasses.replace(self, state=state)

    def with_experience(self, experience: Experience | None) -> Context:
        return dataclasses.replace(self, experience=experience)

    def with_viewer_side(self, side: Side | None) -> Context:
        return dataclasses.replace(self, viewer_side=side)

    def with_poses(self, poses: Sequence[AgentPose] | None) -> Context:
        return dataclasses.replace(self, poses=None if poses is None else tuple(poses))

    def threshold(self, name: str, registry: Registry) -> float:
        if name in self.thresholds:
            return self.thresholds[name]
        return registry.default_thresholds()[name]

    def require_state(self) -> WorldState:
        if self.state is None:
            raise EvaluationError("a fluent predicate needs a world state (ctx.state)")
        return self.state

    def require_experience(self) -> Experience:
        if self.experience is None:
            raise EvaluationError("a history predicate needs an experience log "
                                  "(ctx.experience)")
        return self.experience


# ----------------------------------------------------------------------------- checkers


@dataclass(frozen=True)
class Param:
    name: str
    types: tuple[str, ...]


@dataclass(frozen=True)
class Checker:
    """A registered checker, as derived from its function."""

    name: str  # the PDDL name
    kind: Kind
    params: tuple[Param, ...]
    thresholds: Mapping[str, float]  # name -> default
    is_function: bool  # a numeric function (else a predicate)
    batched: bool
    fn: Callable[..., Any] = field(compare=False, repr=False)
    module: str = ""
    doc: str = ""
    over_poses: bool = False  # answers for many poses of the robot (`Context.poses`)
    meaning: Meaning = field(default_factory=Meaning)  # beyond its truth (`predicates/meaning.py`)

    @property
    def arity(self) -> int:
        return len(self.params)

    def signature(self) -> str:
        params = " ".join(f"?{p.name} - {type_text(p.types)}" for p in self.params)
        return f"({self.name}{' ' + params if params else ''})"


def pddl_name(function_name: str) -> str:
    return function_name.strip("_").replace("_", "-")


def _derive(fn: Callable[..., Any], kind: Kind) -> Checker:
    hints = typing.get_type_hints(fn, include_extras=True)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    where = f"{fn.__module__}.{fn.__qualname__}"
    if not params or params[0].name != "ctx":
        raise TypeError(f"{where}: a checker's first parameter is `ctx: Context`")
    out: list[Param] = []
    thresholds: dict[str, float] = {}
    batched: set[bool] = set()
    for p in params[1:]:
        hint = hints.get(p.name)
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            if p.default is inspect.Parameter.empty or isinstance(p.default, bool) or \
                    not isinstance(p.default, int | float):
                raise TypeError(f"{where}: threshold `{p.name}` needs a numeric default")
            thresholds[p.name] = float(p.default)
            continue
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          inspect.Parameter.POSITIONAL_ONLY):
            raise TypeError(f"{where}: parameter `{p.name}` must be positional or "
                            "keyword-only")
        meta = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, PddlType)]
        if not meta:
            raise TypeError(f"{where}: parameter `{p.name}` needs a PDDL type "
                            "(Annotated[str, PddlType(...)])")
        base = typing.get_origin(hint.__origin__) or hint.__origin__  # type: ignore[union-attr]
        batched.add(base is not str)
        out.append(Param(p.name, meta[0].names))
    if len(batched) > 1:
        raise TypeError(f"{where}: parameters are all single ids or all id columns")
    ret = hints.get("return")
    if ret is bool:
        is_function = False
    elif typing.get_origin(ret) is np.ndarray:
        dtype = typing.get_args(typing.get_args(ret)[1])[0]
        if dtype not in (np.bool_, np.float64):
            raise TypeError(f"{where}: a batched checker returns NDArray[np.bool_] or "
                            "NDArray[np.float64]")
        is_function = dtype is np.float64
    else:
        args = set(typing.get_args(ret)) - {type(None)}
        if args and args <= {float, int}:
            is_function = True
        else:
            raise TypeError(f"{where}: return `bool` (a predicate), `float | None` (a "
                            "function) or an NDArray (batched)")
    posed = bool(getattr(fn, OVER_POSES, False))
    if posed and (kind is not Kind.FLUENT or batched != {True} or is_function):
        raise TypeError(f"{where}: only a batched fluent predicate answers over poses")
    return Checker(
        name=pddl_name(fn.__name__), kind=kind, params=tuple(out),
        thresholds=MappingProxyType(thresholds), is_function=is_function,
        batched=batched == {True}, fn=fn, module=fn.__module__,
        doc=inspect.cleandoc(fn.__doc__ or ""), over_poses=posed,
        meaning=meaning_of(fn, [p.name for p in out], where),
    )


F = TypeVar("F", bound=Callable[..., Any])


class Registry:
    """Checkers by PDDL name. The default registry (`default_registry()`) holds fdc's
    checkers; tests build their own."""

    def __init__(self) -> None:
        self._checkers: dict[str, Checker] = {}
        self._thresholds: dict[str, float] = {}
        self._threshold_owner: dict[str, str] = {}
        self._meanings: dict[str, Any] = {}  # the answers of the meaning queries, cached

    # ----- registration ----------------------------------------------------------------
    def register(self, fn: F, kind: Kind) -> F:
        c = _derive(fn, kind)
        if c.name in self._checkers:
            other = self._checkers[c.name]
            raise ValueError(f"`{c.name}` is registered twice ({other.module} and {c.module})")
        for t, default in c.thresholds.items():
            if t in self._thresholds and self._thresholds[t] != default:
                raise ValueError(
                    f"threshold `{t}` of `{c.name}` defaults to {default}, but "
                    f"`{self._threshold_owner[t]}` declares {self._thresholds[t]}; "
                    "a threshold has one default")
        order = c.meaning.placement.order if c.meaning.placement else None
        for other in self._checkers.values():
            if order is not None and other.meaning.placement is not None and \
                    other.meaning.placement.order == order:
                raise ValueError(f"`{c.name}` and `{other.name}` declare one placement "
                                 f"order ({order}); an order is one predicate's")
        self._checkers[c.name] = c
        self._meanings.clear()
        for t, default in c.thresholds.items():
            self._thresholds.setdefault(t, default)
            self._threshold_owner.setdefault(t, c.name)
        return fn

    def static(self, fn: F) -> F:
        return self.register(fn, Kind.STATIC)

    def history(self, fn: F) -> F:
        return self.register(fn, Kind.HISTORY)

    def fluent(self, fn: F) -> F:
        return self.register(fn, Kind.FLUENT)

    def declare_thresholds(self, fn: F) -> F:
        """Register the keyword-only thresholds of a helper that is not a checker (the
        arg-extreme helpers), so contexts can override them."""
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.kind is inspect.Parameter.KEYWORD_ONLY and isinstance(p.default, int | float):
                if p.name in self._thresholds and self._thresholds[p.name] != p.default:
                    raise ValueError(f"threshold `{p.name}` has two defaults")
                self._thresholds.setdefault(p.name, float(p.default))
                self._threshold_owner.setdefault(p.name, fn.__name__)
        return fn

    def register_module(self, module: ModuleType) -> None:
        """Register every function `module` marks (`static`, `history`, `fluent`,
        `declare_thresholds`), in the order the module defines them."""
        for fn in vars(module).values():
            mark = getattr(fn, MARK, None)
            if mark is None or getattr(fn, "__module__", None) != module.__name__:
                continue
            if mark == THRESHOLDS:
                self.declare_thresholds(fn)
            else:
                self.register(fn, Kind(mark))

    # ----- look-up ----------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return name in self._checkers

    def __len__(self) -> int:
        return len(self._checkers)

    def checker(self, name: str) -> Checker:
        try:
            return self._checkers[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._checkers), n=1)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            raise EvaluationError(f"no checker for `{name}`{hint}") from None

    def checkers(self) -> list[Checker]:
        return [self._checkers[k] for k in sorted(self._checkers)]

    def predicates(self) -> list[Checker]:
        return [c for c in self.checkers() if not c.is_function]

    def functions(self) -> list[Checker]:
        return [c for c in self.checkers() if c.is_function]

    def default_thresholds(self) -> Mapping[str, float]:
        return MappingProxyType(dict(sorted(self._thresholds.items())))

    # ----- meaning (declared with `fdc.predicates.meaning.means`) ------------------------
    def meaning(self, name: str) -> Meaning:
        """What the predicate `name` means (the empty meaning for a name with no checker)."""
        c = self._checkers.get(name)
        return Meaning() if c is None else c.meaning

    def _names(self, query: str, test: Callable[[Meaning], bool]) -> frozenset[str]:
        found = self._meanings.get(query)
        if found is None:
            found = self._meanings[query] = frozenset(
                c.name for c in self._checkers.values() if test(c.meaning))
        return typing.cast(frozenset[str], found)

    def relocating(self) -> frozenset[str]:
        """Predicates that relocate an item (`Meaning.relocates`): the atoms whose items
        a task moves (the agents' actions change no other fluent of an item)."""
        return self._names("relocating", lambda m: m.relocates is not None)

    def anchored(self) -> frozenset[str]:
        """Predicates that put their item by anchors (`Meaning.anchors`)."""
        return self._names("anchored", lambda m: bool(m.anchors))

    def packed(self) -> frozenset[str]:
        """Predicates that put their item on one surface or receptacle an argument names
        (`Meaning.onto`): items bound for one surface are packed together there."""
        return self._names("packed", lambda m: m.onto is not None)

    def spread(self) -> frozenset[str]:
        """Predicates any of many surfaces satisfies (`Meaning.any_surface`)."""
        return self._names("spread", lambda m: m.any_surface)

    def viewer_relative(self) -> frozenset[str]:
        """Predicates judged in the words of the robot where it stands."""
        return self._names("viewer_relative", lambda m: m.viewer_relative)

    def about_robot(self) -> frozenset[str]:
        """Predicates about the robot (`Meaning.robot`): where it is, what it holds."""
        return self._names("about_robot", lambda m: m.robot is not None)

    def robot_place(self) -> frozenset[str]:
        """Predicates of where the robot is (`Robot.PLACE`)."""
        return self._names("robot_place", lambda m: m.robot is Robot.PLACE)

    def placement_order(self) -> tuple[str, ...]:
        """Predicates a placement makes (`Meaning.placement`), the most specific first."""
        return self._ordered("placement_order", lambda m: True)

    def placed_in_region(self) -> tuple[str, ...]:
        """Predicates a placement makes in a region of its surface (`Placement.in_region`),
        the most specific first."""
        return self._ordered("placed_in_region", lambda m: m.in_region)

    def placement_relations(self) -> Mapping[str, Relation]:
        """The placement relation each predicate of `placement_order` names."""
        found = self._meanings.get("placement_relations")
        if found is None:
            placed = {c.name: c.meaning.placement.relation for c in self._checkers.values()
                      if c.meaning.placement is not None}
            found = self._meanings["placement_relations"] = MappingProxyType(
                {name: placed[name] for name in self.placement_order()})
        return typing.cast(Mapping[str, "Relation"], found)

    def _ordered(self, query: str, test: Callable[[Placement], bool]) -> tuple[str, ...]:
        found = self._meanings.get(query)
        if found is None:
            placed = [(c.meaning.placement.order, c.name) for c in self._checkers.values()
                      if c.meaning.placement is not None and test(c.meaning.placement)]
            found = self._meanings[query] = tuple(name for _, name in sorted(placed))
        return typing.cast(tuple[str, ...], found)

    # ----- evaluation -------------------------------------------------------------------
    def _call(self, c: Checker, columns: list[Any], ctx: Context, mode: Mode | None) -> Any:
        if mode is not None and mode != ctx.mode:
            ctx = ctx.with_mode(mode)
        if c.kind is Kind.FLUENT:
            ctx.require_state()
        elif c.kind is Kind.HISTORY:
            ctx.require_experience()
        kw = {t: ctx.thresholds.get(t, d) for t, d in c.thresholds.items()}
        try:
            return c.fn(ctx, *columns, **kw)
        except KeyError as e:
            raise EvaluationError(f"`{c.name}`: unknown entity {e}") from None

    def _check_args(self, c: Checker, args: Sequence[str]) -> None:
        if isinstance(args, str) or len(args) != c.arity:
            given = args if isinstance(args, str) else list(args)
            raise EvaluationError(f"`{c.name}` takes {c.arity} argument(s) "
                                  f"{c.signature()}, given {given!r}")

    def evaluate(self, name: str, args: Sequence[str], ctx: Context,
                 mode: Mode | None = None) -> bool:
        """Whether the ground atom `(name args...)` holds in `ctx`."""
        c = self.checker(name)
        if c.is_function:
            raise EvaluationError(f"`{name}` is a numeric function: use `value`")
        self._check_args(c, args)
        if c.batched:
            return bool(self._call(c, [[a] for a in args], ctx, mode)[0])
        return bool(self._call(c, list(args), ctx, mode))

    def value(self, name: str, args: Sequence[str], ctx: Context,
              mode: Mode | None = None) -> float | None:
        """The value of the ground numeric term `(name args...)`, None when undefined."""
        c = self.checker(name)
        if not c.is_function:
            raise EvaluationError(f"`{name}` is a predicate: use `evaluate`")
        self._check_args(c, args)
        if c.batched:
            v = float(self._call(c, [[a] for a in args], ctx, mode)[0])
            return None if math.isnan(v) else v
        out = self._call(c, list(args), ctx, mode)
        return None if out is None else float(out)

    def evaluate_many(self, name: str, atoms: Iterable[Sequence[str]], ctx: Context,
                      mode: Mode | None = None) -> np.ndarray:
        """Truth of many ground atoms of one predicate (a bool array, atom order). A
        batched checker sees all atoms at once."""
        c = self.checker(name)
        rows = atoms if isinstance(atoms, list) else list(atoms)
        if set(map(len, rows)) - {c.arity} or str in set(map(type, rows)):
            for r in rows:
                self._check_args(c, r)
        if not rows:
            return np.zeros(0, dtype=bool)
        if c.batched:
            columns = [list(col) for col in zip(*rows, strict=True)] if c.arity else []
            out = np.asarray(self._call(c, columns, ctx, mode))
            if c.is_function:
                return out.astype(np.float64)
            return out.astype(bool)
        if c.is_function:
            vals = [self._call(c, list(r), ctx, mode) for r in rows]
            return np.array([np.nan if v is None else float(v) for v in vals])
        return np.array([bool(self._call(c, list(r), ctx, mode)) for r in rows], dtype=bool)

    def evaluate_at_poses(self, name: str, atoms: Sequence[Sequence[str]], ctx: Context,
                          poses: Sequence[AgentPose]) -> np.ndarray:
        """Truth of many ground atoms of one predicate `@over_poses` with the robot at
        each of `poses` (hand empty) in the world of `ctx.state`: a bool array, a row an
        atom and a column a pose, from one call of its checker."""
        c = self.checker(name)
        if not c.over_poses:
            raise EvaluationError(f"`{name}` does not answer over poses")
        for r in atoms:
            self._check_args(c, r)
        if not atoms or not poses:
            return np.zeros((len(atoms), len(poses)), dtype=bool)
        columns = [list(col) for col in zip(*atoms, strict=True)]
        out = np.asarray(self._call(c, columns, ctx.with_poses(poses), None), dtype=bool)
        return out.T

    def values_many(self, name: str, atoms: Iterable[Sequence[str]], ctx: Context,
                    mode: Mode | None = None) -> np.ndarray:
        """Values of many ground terms of one function (float array, NaN: undefined)."""
        return self.evaluate_many(name, atoms, ctx, mode)

    # ----- agreement with a domain ------------------------------------------------------
    def signature_problems(self, domain_predicates: Any, domain_functions: Any = (),
                           type_parents: Mapping[str, Sequence[str]] | None = None
                           ) -> list[Diagnostic]:
        """Every domain predicate or function without a checker, and every checker whose
        arity or parameter types disagree with the domain's declaration.

        `domain_predicates` / `domain_functions`: a mapping name -> parameter types (each
        a type name, or a sequence of names for `either`; `()` or "object": untyped), or
        objects with `.name` and `.parameters` (each with `.types`), as the compiler's
        AST has them. With `type_parents`, a checker whose parameter type is a supertype
        of the domain's is accepted (it handles more than the domain asks).

        Each is an error whose code says what disagrees (`no-checker`, `not-a-predicate`,
        `not-a-function`, `arity`, `parameter-type`), about the predicate or function
        (its one entity), with a hint saying what the domain and the checker each have."""
        problems: list[Diagnostic] = []
        hierarchy = None if type_parents is None else \
            TypeHierarchy({k: tuple(v) for k, v in type_parents.items()})
        for want_function, decls in ((False, domain_predicates), (True, domain_functions)):
            for name, types in _declarations(decls):
                problems.extend(self._compare(name, types, want_function, hierarchy))
        return problems

    def _compare(self, name: str, types: tuple[tuple[str, ...], ...], want_function: bool,
                 hierarchy: TypeHierarchy | None) -> list[Diagnostic]:
        what = "function" if want_function else "predicate"
        c = self._checkers.get(name)
        if c is None:
            return [error("no-checker", f"the domain {what} `{name}` has no checker",
                          entities=[name], hint="register a checker for it in fdc.predicates "
                          "(see docs/predicates.md), or drop it from the domain")]
        if c.is_function != want_function:
            has = "function" if c.is_function else "predicate"
            return [error("not-a-" + what, f"`{name}` is a {what} in the domain but its "
                          f"checker ({c.module}) is a {has}", entities=[name],
                          hint=_disagree(what, has))]
        if c.arity != len(types):
            return [error("arity", f"`{name}` takes {len(types)} argument(s) in the domain "
                          f"but {c.arity} in its checker ({c.module})", entities=[name],
                          hint=_disagree(str(len(types)), str(c.arity)))]
        out = []
        for i, (want, p) in enumerate(zip(types, c.params, strict=True)):
            have = p.types
            if _same_types(want, have) or (hierarchy is not None
                                           and hierarchy.subtype(want, have)):
                continue
            out.append(error(
                "parameter-type", f"parameter {i + 1} of `{name}` is `{type_text(want)}` in "
                f"the domain but `{type_text(have)}` in its checker ({c.module}, `{p.name}`)",
                entities=[name], hint=_disagree(type_text(want), type_text(have))))
        return out


def _disagree(domain: str, checker: str) -> str:
    return f"the domain says {domain}, the checker {checker}"


def _declarations(decls: Any) -> list[tuple[str, tuple[tuple[str, ...], ...]]]:
    out = []
    items = decls.items() if isinstance(decls, Mapping) else \
        ((d.name, [tuple(p.types) for p in d.parameters]) for d in decls)
    for name, params in items:
        types = tuple((t,) if isinstance(t, str) else tuple(t) for t in params)
        out.append((str(name), tuple(tuple(sorted(t)) if t != ("object",) else () for t in types)))
    return out


def _same_types(a: Sequence[str], b: Sequence[str]) -> bool:
    norm = [tuple(sorted(set(x) - {"object"})) for x in (a, b)]
    return norm[0] == norm[1]


# ----------------------------------------------------------------------------- marks

#: The attribute a checker module's decorators set: the kind, or THRESHOLDS for a helper
#: whose keyword-only thresholds a registry declares (`Registry.register_module`).
MARK = "__fdc_checker__"
THRESHOLDS = "thresholds"
#: The attribute `over_poses` sets.
OVER_POSES = "__fdc_over_poses__"


def _mark(kind: Kind | str) -> Callable[[F], F]:
    def mark(fn: F) -> F:
        setattr(fn, MARK, kind)
        return fn
    return mark


#: Decorators of checker modules: they mark a function; a registry takes the marked
#: functions of the modules it is given (see `fdc.predicates.builtin`).
static = _mark(Kind.STATIC)
history = _mark(Kind.HISTORY)
fluent = _mark(Kind.FLUENT)
declare_thresholds = _mark(THRESHOLDS)


def over_poses(fn: F) -> F:
    """Mark a batched fluent checker of the robot's pose that answers for every pose of
    `Context.poses` at once (an array, a row a pose), and for the state's own pose as
    any batched checker when the context has none."""
    setattr(fn, OVER_POSES, True)
    return fn
