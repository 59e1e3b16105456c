"""One error root: every exception class fdc defines derives from `FdcError`.

The classes are found by importing every module of the package (from pyproject's
mapping, as the layer test reads them), so a new error cannot be forgotten."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from fdc.core.errors import FdcError, InputError
from tests.test_layers import modules


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for name in sorted(modules()):
        if name.endswith(".__main__"):
            continue  # running it is running the CLI
        module = importlib.import_module(name)
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, BaseException) and c.__module__ == name]
    return found


def test_every_fdc_exception_derives_from_fdc_error() -> None:
    classes = _exception_classes()
    assert len(classes) >= 20  # the discovery found them (today: 22)
    assert [c.__qualname__ for c in classes if not issubclass(c, FdcError)] == []


def test_errors_keep_the_builtin_bases_callers_catch() -> None:
    from fdc.compiler.ground import GroundError, GroundLimitError
    from fdc.instructions.render import RenderError
    from fdc.interop.habitat.pddl_yaml import NotExpressible as HabitatNotExpressible
    from fdc.interop.partnr.goals import NotExpressible as PartnrNotExpressible
    from fdc.predicates.registry import EvaluationError
    from fdc.sim_bridge.habitat.live import HabitatStateError
    from fdc.sim_bridge.world.simulate import SimulationError
    from fdc.sim_bridge.world.trajectory import TrajectoryError

    for cls in (EvaluationError, RenderError, SimulationError, TrajectoryError,
                HabitatNotExpressible, PartnrNotExpressible):
        assert issubclass(cls, ValueError) and issubclass(cls, FdcError)
    assert issubclass(HabitatStateError, LookupError)
    assert issubclass(GroundLimitError, GroundError)
    with pytest.raises(ValueError):
        raise TrajectoryError([], "run.jsonl")


def test_one_input_error_for_every_unreadable_input(tmp_path: Path) -> None:
    from fdc.compiler.prepare import load_experience
    from fdc.compiler.validate import ValidateOptions, validate_suite

    with pytest.raises(InputError, match="cannot read the experience log"):
        load_experience(str(tmp_path / "log.json"))
    with pytest.raises(InputError, match="cannot read the suite"):
        validate_suite(tmp_path / "suite.jsonl", ValidateOptions())
