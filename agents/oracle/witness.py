"""The compile's witness: whether the manipulation oracle's trace certifies a task whose
goal no geometric rule decides (`fdc.compiler.start_checks.needs_witness`). The
compiler never imports it: the commands that compile hand it down
(`CompileOptions.witness`). See docs/architecture.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fdc.agents.oracle.errors import Unsolvable
from fdc.agents.oracle.manipulation import run_oracle
from fdc.compiler.start_checks import placing_atoms
from fdc.predicates.builtin import default_registry

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
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
    try:
        env = run_oracle(task, graph, after)
    except Unsolvable as e:
        return str(e)
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
