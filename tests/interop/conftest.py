"""Fixtures of the interop tests: habitat-lab's PDDL classes, loaded without
habitat-sim."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _missing_habitat_lab() -> str:
    needed = ("habitat", "yaml", "hydra", "omegaconf")
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        return ("habitat-lab's PDDL classes need " + ", ".join(missing)
                + " (pip install --no-deps habitat-lab; pip install hydra-core omegaconf "
                "pyyaml)")
    return ""


@pytest.fixture
def habitat_pddl() -> Iterator[Any]:
    """habitat-lab's real `pddl_domain` module from the installed wheel. Its package
    `__init__`s (which import the simulator stack) are skipped, and the modules that need
    habitat-sim (`rearrange_sim`, `rearrange_task`, `marker_info`, the receptacle sampler)
    are stand-ins holding only the names the PDDL modules import; sys.modules is restored
    afterwards."""
    reason = _missing_habitat_lab()
    if reason:
        pytest.skip(reason)
    spec = importlib.util.find_spec("habitat")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations)))
    saved = dict(sys.modules)
    try:
        for name in ("habitat", "habitat.tasks", "habitat.tasks.rearrange",
                     "habitat.tasks.rearrange.multi_task", "habitat.datasets",
                     "habitat.datasets.rearrange", "habitat.datasets.rearrange.samplers"):
            package = types.ModuleType(name)
            package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
            sys.modules[name] = package
        for name, cls in (("habitat.tasks.rearrange.rearrange_sim", "RearrangeSim"),
                          ("habitat.tasks.rearrange.rearrange_task", "RearrangeTask"),
                          ("habitat.tasks.rearrange.marker_info", "MarkerInfo"),
                          ("habitat.datasets.rearrange.samplers.receptacle", "Receptacle")):
            module = types.ModuleType(name)
            setattr(module, cls, type(cls, (), {"__doc__": "simulator-side stand-in"}))
            sys.modules[name] = module
        yield importlib.import_module("habitat.tasks.rearrange.multi_task.pddl_domain")
    finally:
        sys.modules.clear()
        sys.modules.update(saved)
