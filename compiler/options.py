"""What a compile is asked for (`CompileOptions`: the seed, the sample size, the limits,
the witness), and the one way a compile draws at random (`seeded_rng`).

Everything a compile decides at random comes from `random.Random` seeded by a hash of
the seed and a stable name, so the same inputs give the same bytes
([architecture.md](../docs/architecture.md), "The compile pipeline").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fdc.core.hashing import sha256_text
from fdc.core.limits import current
from fdc.sim_bridge.world.state import Snapshot

from .suite import TaskRecord

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


#: Why no agent of fdc's is known to achieve a task from where it starts (None: one
#: is): the manipulation oracle's answer (`fdc.agents.oracle.witness`). The agents
#: sit above the compiler, so the commands that compile hand it down (`CompileOptions`).
Witness = Callable[[TaskRecord, "SceneGraph", Snapshot | None], str | None]


@dataclass(frozen=True)
class CompileOptions:
    seed: int = 0
    max_per_template: int | None = None
    max_atoms: int = field(default_factory=lambda: current().goal_atoms)  # per ground goal
    bind_limit: int = field(default_factory=lambda: current().template_bindings)
    #: Asked of a task whose goal the geometric rules cannot decide (`start_checks.
    #: needs_witness`); None: such tasks are kept unasked.
    witness: Witness | None = field(default=None, compare=False)


def seeded_rng(*parts: object) -> random.Random:
    """A random generator seeded by a hash of `parts` (the seed and stable names)."""
    digest = sha256_text("\0".join(str(p) for p in parts))
    return random.Random(int(digest[:16], 16))
