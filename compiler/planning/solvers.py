"""Solving a planning problem and writing it as PDDL.

`solve` runs Fast Downward (up-fast-downward), or pyperplan (up-pyperplan) on the problem
compiled to STRIPS by unified-planning's compilers when Fast Downward is not available;
`write_pddl` writes a problem's domain and problem text (`fdc export pddl`). The
problems are `problem.py`'s.

See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from unified_planning.exceptions import UPException

from fdc.sim_bridge.world.plans import PlanStep

from .problem import CHECKPOINT, PlanningProblem, PlanResult, _quiet


def available_planners() -> list[str]:
    """The installed planners fdc can use, preferred first."""
    _quiet()
    from unified_planning.shortcuts import get_environment

    known = get_environment().factory.engines
    return [p for p in ("fast-downward", "pyperplan") if p in known]


def solve(pp: PlanningProblem, timeout_s: float, planner: str | None = None) -> PlanResult:
    """Solve with Fast Downward (or pyperplan, after compiling to STRIPS)."""
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.shortcuts import OneshotPlanner

    _quiet()
    names = [planner] if planner else available_planners()
    if not names:
        return PlanResult("error", "none", 0.0, message="no planner installed "
                          "(install up-fast-downward or up-pyperplan)")
    name = names[0]
    simplify = pp.problem.environment.simplifier.simplify
    if any(simplify(g).is_false() for g in pp.problem.goals):
        # a goal literal no action makes true (no heat source to cook on): the PDDL
        # writer refuses the constant, and no planner is needed to say so
        return PlanResult("unsolvable", name, 0.0, message="the goal is unreachable in the "
                          "planning abstraction (no action makes one of its facts true)")
    problem, back = ((_closed_world(pp.problem), None) if name == "fast-downward"
                     else _strips(pp.problem))

    started = time.perf_counter()
    # LAMA's first iteration; when it finds no plan (its landmark heuristic is not exact
    # with conditional effects), greedy search with the FF heuristic alone, whose dead
    # ends are real: a complete search, so its "unsolvable" is a proof
    configs: list[dict[str, str]] = [{}]
    if name == "fast-downward":
        configs.append({"fast_downward_search_config": "lazy_greedy([ff()])"})
    try:
        # Fast Downward writes its translation (`output.sas`) in the working folder:
        # each run gets its own, or runs side by side read each other's tasks.
        with tempfile.TemporaryDirectory(prefix="fdc-plan.") as folder, _cwd(folder):
            for params in configs:
                left = max(timeout_s - (time.perf_counter() - started), 0.1)
                with OneshotPlanner(name=name, params=params) as engine:
                    result = engine.solve(problem, timeout=left)
                if result.status not in (S.UNSOLVABLE_INCOMPLETELY, S.UNSOLVABLE_PROVEN):
                    break
    except UPException as e:  # the planner answered something unified-planning cannot read
        return PlanResult("error", name, time.perf_counter() - started,
                          message=f"unified-planning could not use the planner's answer: {e}")
    seconds = time.perf_counter() - started
    status = result.status
    if status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
        plan = result.plan
        if back is not None:
            plan = plan.replace_action_instances(back)
        found = [_plan_step(a) for a in plan.actions]
        if pp.checkpoints:  # nothing after the last checkpoint is needed
            found = found[:max(k for k, s in enumerate(found)
                               if s.action.startswith(CHECKPOINT)) + 1]
        steps = [s for s in found if not s.action.startswith(CHECKPOINT)]
        return PlanResult("solved", name, seconds, len(steps), steps)
    if status is S.UNSOLVABLE_PROVEN:
        return PlanResult("unsolvable", name, seconds,
                          message="the goal is unreachable in the planning abstraction")
    if status is S.UNSOLVABLE_INCOMPLETELY:
        return PlanResult("unsolvable", name, seconds, message="the search ended without "
                          "a plan (an incomplete search: not a proof)")
    if status is S.TIMEOUT or seconds >= timeout_s:
        return PlanResult("timeout", name, seconds, message=f"no plan within {timeout_s:g} s")
    log = " ".join(m.message for m in result.log_messages or [])[-300:]
    return PlanResult("error", name, seconds, message=f"the planner failed ({status.name}) {log}")


@contextlib.contextmanager
def _cwd(folder: str) -> Iterator[None]:
    """Run the block in `folder` (the planner's scratch files go there)."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _strips(problem: Any) -> tuple[Any, Any]:
    """The problem compiled to what pyperplan reads (STRIPS with typing), and the map
    from its plan's actions back to the problem's."""
    from unified_planning.engines import CompilationKind
    from unified_planning.shortcuts import Compiler

    kinds = [CompilationKind.QUANTIFIERS_REMOVING,
             CompilationKind.GROUNDING,  # equalities become constants
             CompilationKind.CONDITIONAL_EFFECTS_REMOVING,
             CompilationKind.DISJUNCTIVE_CONDITIONS_REMOVING,
             CompilationKind.NEGATIVE_CONDITIONS_REMOVING]
    p = problem.clone()
    p.clear_quality_metrics()
    maps = []
    for kind in kinds:
        with Compiler(problem_kind=p.kind, compilation_kind=kind) as compiler:
            res = compiler.compile(p, kind)
        p = res.problem
        maps.append(res.map_back_action_instance)

    def back(ai: Any) -> Any:
        for m in reversed(maps):
            ai = m(ai)
            if ai is None:
                return None
        return ai

    return p, back


def _plan_step(ai: Any) -> PlanStep:
    """A unified-planning action instance as a plan step."""
    return PlanStep(ai.action.name, tuple(str(p) for p in ai.actual_parameters))


# --------------------------------------------------------------------------- PDDL files


def write_pddl(pp: PlanningProblem, domain_name: str | None = None,
               problem_name: str | None = None) -> tuple[str, str]:
    """The problem's domain and problem as PDDL text (unified-planning's writer: names
    that are not PDDL names, such as `fridge|lower`, become `fridge_lower`), objects
    keeping their names where they are PDDL names (`_ObjectNamesKept`).
    `domain_name`, `problem_name`: the names the text defines (default the writer's,
    `<problem's name>-domain` and `-problem`); the problem names its domain by the
    domain's."""
    from unified_planning.io.pddl_writer import _get_pddl_name

    writer = _writer_class()(_closed_world(pp.problem))
    domain, problem = writer.get_domain(), writer.get_problem()
    written = _get_pddl_name(pp.problem, writer.pddl_keywords) if pp.problem.name \
        else "pddl"
    head_d = f"(define (domain {written}-domain)\n"
    head_p = f"(define (problem {written}-problem)\n (:domain {written}-domain)\n"
    assert domain.startswith(head_d) and problem.startswith(head_p), "writer changed"
    d = domain_name or f"{written}-domain"
    p = problem_name or f"{written}-problem"
    return (f"(define (domain {d})\n{domain[len(head_d):]}",
            f"(define (problem {p})\n (:domain {d})\n{problem[len(head_p):]}")


@functools.cache
def _writer_class() -> type:
    from unified_planning.io import PDDLWriter
    from unified_planning.io.pddl_writer import _get_pddl_name
    from unified_planning.model import Object

    class _ObjectNamesKept(PDDLWriter):
        """unified-planning's PDDL writer, but an object whose name is a PDDL name keeps
        it when a type, predicate or action has the same name: PDDL keeps objects apart
        from those (the room `kitchen` of type `kitchen`; the writer, with one namespace
        for every name, wrote `kitchen_0`). Objects still get names unique among
        objects; unified-planning's reader reads them back with the environment's
        `error_used_name` off, as fdc's is (`_quiet`)."""

        def _get_mangled_name(self, item: Any) -> str:
            if not isinstance(item, Object):
                return str(super()._get_mangled_name(item))
            kept: dict[Any, str] = self.__dict__.setdefault("_kept_objects", {})
            taken: set[str] = self.__dict__.setdefault("_kept_names", set())
            if item in kept:
                return kept[item]
            name: str = _get_pddl_name(item, self.pddl_keywords)
            if name != item.name or name in taken:
                return str(super()._get_mangled_name(item))  # renamed, as the writer does
            kept[item] = name
            taken.add(name)
            return name

    return _ObjectNamesKept


def _closed_world(problem: Any) -> Any:
    """`problem` (shallow-copied) as the PDDL writer reads it: its `initial_values` are
    what the writer writes, the values set and the defaults that are not false.
    unified-planning's own lists every grounding of every fluent, mostly false (about
    0.13 s of Python a task on the apartment), and writes none of those down; the text
    is the same."""
    view = copy.copy(problem)
    view.__class__ = _closed_world_class()
    return view


@functools.cache
def _closed_world_class() -> type:
    from unified_planning.model import Problem
    from unified_planning.model.fluent import get_all_fluent_exp

    class ClosedWorldProblem(Problem):
        @property
        def initial_values(self) -> dict[Any, Any]:
            out = dict(self.explicit_initial_values)
            defaults = self.fluents_defaults
            for f in self.fluents:
                default = defaults.get(f)
                if default is not None and default.is_false():
                    continue  # what was set is in `out`; the rest is false, not written
                for exp in get_all_fluent_exp(self, f):
                    if exp not in out:
                        value = self.initial_value(exp)
                        if value is not None:
                            out[exp] = value
            return out

    return ClosedWorldProblem
