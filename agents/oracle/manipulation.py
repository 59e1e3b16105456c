"""The manipulation oracle run on a task: its trace (`oracle_actions`), planned by
`TracePlanner` again and again, each time without the choice that failed last.
See docs/agents.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fdc.agents.actions import ActionName
from fdc.agents.env import ManipulationEnv, step_budget
from fdc.agents.oracle.errors import Refused, Unsolvable
from fdc.agents.oracle.trace import PLACED, TracePlanner
from fdc.core.limits import current
from fdc.predicates.algebra import NotExpandable, children, expand_counts
from fdc.predicates.goal import Goal

if TYPE_CHECKING:
    from fdc.agents.actions import AgentAction
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.state import Snapshot

#: Choices (disjuncts, placements) the oracle may abandon before it gives up on a task.
ORACLE_RETRIES = 10
#: Placements banned in a row before the oracle abandons the disjunct they serve.
PLACEMENT_RETRIES = 3
#: The oracle's planning budget (the task's budget is checked afterwards).
PLANNING_BUDGET = 10_000


def oracle_actions(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
                   ) -> list[AgentAction]:
    """The oracle's trace for a manipulation task (`Unsolvable` with the reason when it
    finds none within the task's budget); `after`: the world the experience left
    behind, where a memory-manipulation task starts (`ManipulationEnv`)."""
    env = run_oracle(task, graph, after)
    return [r.action for r in env.records if r.action is not None]


def run_oracle(task: TaskRecord, graph: SceneGraph, after: Snapshot | None
               ) -> ManipulationEnv:
    """The environment at the end of the oracle's trace (`oracle_actions`): the planner
    run again, each time with the last choice that failed banned (a placement; after
    `PLACEMENT_RETRIES` of them in a row, the disjunct they serve), at most
    `ORACLE_RETRIES` times; the trace verified, and within the task's budget."""
    banned: set[str] = set()
    first = ""  # the first attempt's failure: the root cause, when every attempt fails
    placements_banned = 0
    try:  # the oracle reasons in connectives: a count is planned as its expansion
        goal = expand_counts(task.goal, current().goal_atoms)
    except NotExpandable as e:
        raise Unsolvable(str(e)) from None
    for _ in range(ORACLE_RETRIES + 1):
        env = ManipulationEnv(graph, budget=PLANNING_BUDGET, after=after)
        env.reset(options={"task": task})
        planner = TracePlanner(env, banned)
        steps: Sequence[Goal] = children(goal) if goal.kind == "then" else (goal,)
        try:
            for step in steps:
                if step.kind in ("targets", "then"):
                    raise Unsolvable(f"a {type(step).__name__} step")
                planner.achieve(step)
            planner.act(ActionName.CALL_END)
        except Unsolvable as e:
            first = first or str(e)
            if isinstance(e, Refused) or not planner.chosen:
                raise Unsolvable(first) from None
            last = planner.chosen[-1]
            parts = [c for c in planner.chosen if PLACED not in c]  # the disjuncts taken
            if PLACED in last and parts and placements_banned >= PLACEMENT_RETRIES:
                banned.add(parts[-1])  # that part's placements keep failing: another part
                placements_banned = 0
            else:
                banned.add(last)
                placements_banned += PLACED in last
            continue
        verdict = env.verdict()
        if not verdict.success:
            raise Unsolvable(f"the trace does not verify: {verdict.reason}")
        steps_taken = sum(r.action is not None for r in env.records)
        budget = step_budget(task, graph, env.start_of(task))
        if steps_taken > budget:
            raise Unsolvable(f"the plan takes {steps_taken} actions; the budget is {budget}")
        return env
    raise Unsolvable(first)
