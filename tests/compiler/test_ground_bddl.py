"""fdc's ground goals against BDDL's (the `bddl` package), on small random goals and states,
through the translation `benchmarks/compile.py` measures with (in compile_grounding.py);
skipped without `bddl`."""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("bddl")

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Iterator[SimpleNamespace]:
    """benchmarks/compile_grounding.py and compile_check.py, which import each other by
    their names (the benchmarks folder on the path, as when compile.py runs)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        grounding = importlib.import_module("compile_grounding")
        checking = importlib.import_module("compile_check")
        yield SimpleNamespace(**vars(grounding), **{k: v for k, v in vars(checking).items()
                                                    if k not in vars(grounding)})
    finally:
        sys.path.remove(str(BENCHMARKS))
        for name in ("compile_grounding", "compile_check"):
            sys.modules.pop(name, None)


def test_random_goals_mean_what_bddl_evaluates(bench: SimpleNamespace) -> None:
    report = bench.check(instances=150, seed=1)
    assert report.ok, report.mismatches[:3]
    assert report.instances == 150 and report.option_instances > 50


def test_bddl_forpairs_is_a_covering_and_fdc_forpairs_a_matching(bench: SimpleNamespace) -> None:
    assert bench.matching_is_not_covering() == {
        "bddl forpairs": True,
        "fdc covering form": True,
        "fdc forpairs": False,
    }


@pytest.mark.parametrize("key", ["forall-exists", "four-pairs"])
def test_benchmark_goals_agree_with_bddl_on_small_scenes(bench: SimpleNamespace, key: str) -> None:
    w = bench.workloads(quick=True)[key]
    counts = {c: 3 for c in w.scene.counts if c not in bench.FILLER}
    scene = bench.Scene({**counts, "book": 2}, {**w.scene.parents})
    universe = sorted(set().union(*(bench.ground_atoms(c, scene) for c in w.conjuncts)))
    rng = random.Random(key)
    states = [{a for a in universe if rng.random() < p} for p in (0.3, 0.6, 0.8, 0.9, 0.95) * 8]
    report = bench.CheckReport()
    bench.check_instance(w.conjuncts, scene, [set(), set(universe), *states], report)
    assert report.ok, report.mismatches[:3]


@pytest.mark.parametrize(("key", "atoms"), [("forall-exists", 60 * 60), ("four-pairs", 8 * 60**2)])
def test_benchmark_ground_goals_are_complete(bench: SimpleNamespace, key: str, atoms: int) -> None:
    figures = bench.run_fdc(bench.workloads(quick=True)[key])  # asserts every atom is there
    assert figures["atoms"] == atoms
