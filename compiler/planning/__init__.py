"""Planning certificates: a task's ground goal as a classical planning problem, solved,
and the plan acted out in the embedded world.

Three modules, one job each: `problem` (fdc-home as planners read it, `PlanningScene`
and each task's `PlanningProblem`), `certify` (`PlanningWorld`: the certify loop, a
plan found elsewhere accepted) and `solvers` (the planners, PDDL text). What other
modules use is named here; see docs/architecture.md ("Certificates").
"""

from __future__ import annotations

from .certify import PlanningWorld, Refusal
from .problem import (
    CHECKPOINT,
    Cause,
    PlanningError,
    PlanningProblem,
    PlanningScene,
    PlanResult,
    Status,
    gathered,
    holds_initially,
    pddl_name,
    planning_domain,
)
from .solvers import available_planners, solve, write_pddl

__all__ = [
    "CHECKPOINT",
    "Cause",
    "PlanResult",
    "PlanningError",
    "PlanningProblem",
    "PlanningScene",
    "PlanningWorld",
    "Refusal",
    "Status",
    "available_planners",
    "gathered",
    "holds_initially",
    "pddl_name",
    "planning_domain",
    "solve",
    "write_pddl",
]
