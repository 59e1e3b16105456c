"""fdc's own checkers, registered: the registry every command uses.

Registration is explicit: this module names the checker modules and a `Registry` takes
what each marks, so the registry module never imports its plugins back.
See docs/predicates.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from fdc.core.problems import Diagnostic
from fdc.predicates.checkers import agent, attributes, memory, object_states, spatial, states
from fdc.predicates.registry import Context, Mode, Registry

#: The checker modules, by theme, in the order they register.
CHECKER_MODULES = (agent, attributes, memory, spatial, states, object_states)


@cache
def default_registry() -> Registry:
    """fdc's registry: every checker of `CHECKER_MODULES`."""
    registry = Registry()
    for module in CHECKER_MODULES:
        registry.register_module(module)
    return registry


def evaluate(name: str, args: Sequence[str], ctx: Context, mode: Mode | None = None) -> bool:
    return default_registry().evaluate(name, args, ctx, mode)


def value(name: str, args: Sequence[str], ctx: Context, mode: Mode | None = None
          ) -> float | None:
    return default_registry().value(name, args, ctx, mode)


def evaluate_many(name: str, atoms: Iterable[Sequence[str]], ctx: Context,
                  mode: Mode | None = None) -> np.ndarray:
    return default_registry().evaluate_many(name, atoms, ctx, mode)


def signature_problems(domain_predicates: Any, domain_functions: Any = (),
                       type_parents: Mapping[str, Sequence[str]] | None = None
                       ) -> list[Diagnostic]:
    return default_registry().signature_problems(domain_predicates, domain_functions,
                                                 type_parents)
