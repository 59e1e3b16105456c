"""The oracles: agents that know the task's goal and act for it.

- The manipulation oracle (`oracle_actions`): an action trace planned from a task's
  ground goal in the agent environment (`trace.TracePlanner`): for each relocation
  atom, a closed destination container opened first (with the hand empty, as
  fdc-home's `open` requires), `go_to` the item's surface (`open` its container when it
  is closed), `pick`, `go_to` the destination, `show_receptacle` when regions are
  needed, `place` in the regions that make the atom true (checked on the state the
  placement would make: `placements`); for a negated atom, the item goes to the
  nearest furniture surface where no conjunct of the goal is broken; `is-open` literals
  last; a sequence step by step; `call_end`. A disjunction takes the part with the
  fewest atoms still false, and the next one if that part cannot be achieved
  (`manipulation.run_oracle`). When nothing fits, room is made (items the goal does not
  name moved away, or the anchor moved); several items bound for one surface are
  packed (`TracePlanner.packing`), stacked if need be.
- The plan translation (`oracle_plan`): that trace as fdc-home's actions, a
  `PlanStep` each (`fdc.sim_bridge.world.plans`).
- The compile's witness (`witness`): whether that trace certifies a task whose goal no
  geometric rule decides; the commands that compile hand it to the compiler.
- One task's oracle run shared by the checks that need it (`TaskOracle`: the trace, its
  plan, the witness), made per task by `fdc validate` and `fdc audit`.
- The memory oracle (`oracle_frames`, `oracle_run`): frames on the shortest walk L*
  measures, and the embedded world's walk to them.

The random agents and the runner of both kinds of agent are `fdc.agents.baselines`.
See docs/agents.md and docs/architecture.md.
"""

from __future__ import annotations

from fdc.agents.oracle.errors import Refused, Unsolvable
from fdc.agents.oracle.manipulation import oracle_actions, run_oracle
from fdc.agents.oracle.memory import oracle_frames, oracle_run
from fdc.agents.oracle.placements import (
    Spot,
    choose_placement,
    clear_destinations,
    destinations,
    placements,
)
from fdc.agents.oracle.plan import oracle_plan
from fdc.agents.oracle.witness import TaskOracle, witness

__all__ = [
    "Refused",
    "Spot",
    "TaskOracle",
    "Unsolvable",
    "choose_placement",
    "clear_destinations",
    "destinations",
    "oracle_actions",
    "oracle_frames",
    "oracle_plan",
    "oracle_run",
    "placements",
    "run_oracle",
    "witness",
]
