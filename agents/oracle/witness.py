"""The compile's witness: whether the manipulation oracle's trace certifies a task whose
goal no geometric rule decides (`fdc.compiler.start_checks.needs_witness`). The
compiler never imports it: the commands that compile hand it down
(`CompileOptions.witness`). `TaskOracle`: one task's oracle run, shared by every check
of one process that needs it (the trace, its plan, the witness): made per task, dropped
with it. See docs/architecture.md and docs/scale.md ("Certify at scale")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fdc.agents.env import ManipulationEnv
from fdc.agents.oracle.errors import Unsolvable
from fdc.agents.oracle.manipulation import PLANNING_BUDGET, run_oracle
from fdc.compiler.start_checks import placing_atoms
from fdc.predicates.builtin import default_registry

if TYPE_CHECKING:
    from fdc.agents.actions import AgentAction
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.plans import PlanStep
    from fdc.sim_bridge.world.state import Snapshot


def witness(task: TaskRecord, graph: SceneGraph, after: Snapshot | None = None
            ) -> str | None:
    """Why the oracle finds no trace for `task` that certifies it (None: it finds one,
    it verifies, and it is one the planning abstraction can follow): the compile's
    `CompileOptions.witness`, so that a task whose goal the geometric rules cannot
    decide (`needs_witness`) is emitted only when an agent of fdc's achieves it, and
    `fdc audit`'s oracle, which runs the same trace, agrees. A trace that leaves an item
    the goal puts in a cell or by an anchor standing on another item's top certifies
    nothing: that item is on the surface under the top (`low-top`), but in which cell,
    or on which side of the anchor, depends on where on the top it stands, which the
    abstraction does not know (`fdc.sim_bridge.graph.feasible.pack`'s `STACKED`), so
    no plan of its would agree."""
    return TaskOracle(task, graph, after).witness()


class TaskOracle:
    """One task's manipulation oracle, run at most once (`run_oracle`) however many
    checks ask: its trace (`actions`, as `oracle_actions`), that trace as a plan of
    fdc-home's actions (`plan`, as `oracle_plan`, from the same run) and the witness's
    verdict (`witness`). A scope made per task by the check that runs the task's checks
    and passed down; never kept beyond the task (no module-level cache). `Unsolvable`,
    when the oracle finds no trace, is raised again to each caller."""

    def __init__(self, task: TaskRecord, graph: SceneGraph, after: Snapshot | None
                 ) -> None:
        self.task = task
        self.graph = graph
        self.after = after
        self.runs = 0  # oracle runs made (0 or 1)
        self._env: ManipulationEnv | Unsolvable | None = None

    def env(self) -> ManipulationEnv:
        """The environment at the end of the oracle's trace (`run_oracle`), once."""
        if self._env is None:
            self.runs += 1
            try:
                self._env = run_oracle(self.task, self.graph, self.after)
            except Unsolvable as e:
                self._env = e
        if isinstance(self._env, Unsolvable):
            raise Unsolvable(str(self._env))
        return self._env

    def actions(self) -> list[AgentAction]:
        """The oracle's trace (`oracle_actions`)."""
        return [r.action for r in self.env().records if r.action is not None]

    def plan(self) -> list[PlanStep]:
        """The trace as fdc-home's actions (`oracle_plan`'s translation, of this run)."""
        from fdc.agents.oracle.plan import _PlanWriter

        trace = self.actions()
        env = ManipulationEnv(self.graph, budget=PLANNING_BUDGET, after=self.after)
        env.reset(options={"task": self.task})
        writer = _PlanWriter(self.task, self.graph, env)
        for act in trace:
            writer.act(act)
        return writer.finish()

    def witness(self) -> str | None:
        """`witness`'s answer, from this run."""
        try:
            env = self.env()
        except Unsolvable as e:
            return str(e)
        return _leaves_on_top(self.task, env)


def _leaves_on_top(task: TaskRecord, env: ManipulationEnv) -> str | None:
    """Why the trace ending in `env` certifies nothing (an item the goal places in a cell
    or by an anchor left on another item's top: `witness`), or None."""
    posed = env.world.state.posed
    for a in placing_atoms(task.goal):
        if a.predicate not in default_registry().placed_in_region() or not a.args:
            continue
        carrier = posed.carrier(a.args[0])
        if carrier is not None and carrier.is_movable:
            return (f"the oracle's trace leaves `{a.args[0]}` on `{carrier.id}`'s top, "
                    f"where no plan can say whether ({a.predicate} {' '.join(a.args)}) "
                    "holds")
    return None
