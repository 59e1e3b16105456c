"""The compile passes, and the wall-clock time each took, summed over calls, templates,
scenes and worker processes.

The pipeline runs every pass through `Timings.run` (and the lazily drawn bindings
through `Timings.each`), so timing costs two clock reads a call and never touches what
a pass computes. Worker processes return their `Timings` with their results, and
`merge` adds them up; `fdc compile --timings` prints the table, passes in `Pass` order.
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from time import perf_counter
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class Pass(StrEnum):
    """The compile passes, in the order they run (`compiler.pipeline`)."""

    SCENE = "scene"  # load the scene, build its graph
    EXPERIENCE = "experience"  # load or simulate the experience
    START_STATES = "start states"  # the states tasks start in
    BIND = "bind"
    DESCRIBE = "describe"
    GROUND = "ground"
    START_CHECKS = "start checks"
    RENDER = "render"
    FRAMES = "frames"  # a memory task's goal frames and L*
    RECORD = "record"
    WITNESS = "witness"  # the oracle's trace for a goal the geometric rules cannot decide
    EMIT = "emit"  # build the manifest, write the suite


@dataclass
class PassTime:
    seconds: float = 0.0
    calls: int = 0


@dataclass
class Timings:
    """Seconds and calls per pass."""

    passes: dict[Pass, PassTime] = field(default_factory=dict)

    def add(self, name: Pass, seconds: float, calls: int = 1) -> None:
        found = self.passes.setdefault(name, PassTime())
        found.seconds += seconds
        found.calls += calls

    def run(self, name: Pass, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """`fn(*args, **kwargs)`, its time added to pass `name`."""
        start = perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.add(name, perf_counter() - start)

    def each(self, name: Pass, items: Iterable[T]) -> Iterator[T]:
        """`items`, the time spent producing each added to pass `name` (the call that
        made `items` counted as the pass's call)."""
        it = iter(items)
        while True:
            start = perf_counter()
            try:
                item = next(it)
            except StopIteration:
                self.add(name, perf_counter() - start, calls=0)
                return
            self.add(name, perf_counter() - start, calls=0)
            yield item

    def merge(self, other: Timings) -> None:
        for name, t in other.passes.items():
            self.add(name, t.seconds, t.calls)

    def rows(self) -> list[tuple[Pass, PassTime]]:
        """The passes that ran, in the order passes run."""
        return [(p, self.passes[p]) for p in Pass if p in self.passes]
