"""habitat-lab judging fdc's goals with fdc's checkers.

The YAML domain (`pddl_yaml.domain_document`) gives every predicate an `is_valid_fn`
that habitat-lab resolves with its own `_target_` mechanism (`pddl_domain._parse_callable`:
import the module, take the function, bind the other keys as keyword arguments):

    is_valid_fn:
      _target_: fdc.interop.habitat.judge.holds
      fdc_predicate: on
      fdc_params: [o, s]

habitat-lab calls it as `holds(sim_info=..., o=<PddlEntity>, s=<PddlEntity>)` whenever
a `Predicate.is_true` is asked, so `PddlProblem.is_expr_true(problem.goal)` evaluates each
atom with fdc's registered checker on a `HabitatWorldState` reading the simulator now:
the same checkers, on the same readings, as `fdc verify` on the recorded trajectory.

Binding. habitat-lab's `bind_to_instance` looks every entity up in the simulator
(`PddlSimInfo.search_for_entity`), but fdc's goals also name rooms, grid cells and
surfaces derived from meshes, which a `RearrangeSim` does not have. `bind(problem, sim,
world)` binds through a `FdcSim`, a view of the simulator that adds fdc's entities to
the receptacles habitat-lab resolves names in (the simulator itself is not changed) and
carries the world state that reads it. The domain declares fdc's types under
habitat-lab's `static_receptacle_entity_type`, the type whose entities are resolved there.

habitat-lab is imported by nobody here: `bind` is handed the problem and the simulator.
See docs/habitat.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fdc.core.errors import FdcError
from fdc.sim_bridge.habitat.live import HabitatWorldState

#: The function habitat-lab calls for every fdc predicate (`is_valid_fn._target_`).
TARGET = "fdc.interop.habitat.judge.holds"
#: habitat-lab's simulator entity type whose entities it resolves by name in
#: `sim.receptacles`: fdc's root type is declared under it.
ENTITY_TYPE = "static_receptacle_entity_type"


class JudgeError(FdcError, RuntimeError):
    """habitat-lab asked an fdc predicate on a simulator bound without fdc's world."""


def is_valid_fn(predicate: str, params: Iterable[str]) -> dict[str, Any]:
    """The `is_valid_fn` entry of a predicate in the YAML domain."""
    return {"_target_": TARGET, "fdc_predicate": predicate, "fdc_params": list(params)}


class FdcSim:
    """A habitat-lab simulator as fdc binds problems to it: every attribute is the
    simulator's, but for `receptacles`, which also holds fdc's entities (by name, so
    that habitat-lab resolves them), and `fdc_world`, the world state that reads it."""

    def __init__(self, sim: Any, world: HabitatWorldState, entities: Iterable[str],
                 thresholds: Mapping[str, float] | None = None) -> None:
        self._sim = sim
        self._entities = tuple(entities)
        self.fdc_world = world
        self.fdc_thresholds = dict(thresholds or {})

    @property
    def receptacles(self) -> dict[str, Any]:
        return {**{e: e for e in self._entities}, **dict(self._sim.receptacles)}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)


def bind(problem: Any, sim: Any, world: HabitatWorldState, env: Any = None,
         thresholds: Mapping[str, float] | None = None) -> FdcSim:
    """Bind a habitat-lab `PddlProblem` (or `PddlDomain`) to a simulator with habitat-lab's
    own `bind_to_instance`, through a `FdcSim` carrying `world` (a `HabitatWorldState`
    over `sim`). `thresholds`: the task's overrides of the checkers' thresholds."""
    view = FdcSim(sim, world, problem.all_entities, thresholds)
    problem.bind_to_instance(view, env)
    return view


def holds(sim_info: Any, fdc_predicate: str, fdc_params: list[str], **args: Any) -> bool:
    """Whether the fdc predicate holds of the entities habitat-lab passes (by the
    predicate's parameter names), judged by fdc's checker on the bound world state's
    current reading (`HabitatWorldState.state`): the state `fdc verify` judges when the
    run is recorded, so both give one verdict."""
    from fdc.predicates.builtin import default_registry
    from fdc.predicates.registry import Context

    sim = sim_info.sim
    world = getattr(sim, "fdc_world", None)
    if not isinstance(world, HabitatWorldState):
        raise JudgeError(
            f"habitat-lab asked fdc's `{fdc_predicate}` on a simulator bound without fdc's "
            "world state; hint: bind the problem with fdc.interop.habitat.judge.bind(problem, "
            "sim, HabitatWorldState(sim, graph))")
    names = [str(args[p].name) for p in fdc_params]
    registry = default_registry()
    ctx = Context(graph=world.graph, state=world.state)
    overrides = getattr(sim, "fdc_thresholds", None)
    if overrides:
        ctx = ctx.with_thresholds(overrides, registry)
    return registry.evaluate(fdc_predicate, names, ctx)


__all__ = ["ENTITY_TYPE", "TARGET", "FdcSim", "JudgeError", "bind", "holds", "is_valid_fn"]
