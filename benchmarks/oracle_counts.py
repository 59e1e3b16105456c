"""How many times one fdc command runs the manipulation oracle and replays a plan in the
embedded world (issue 38, "Certify at scale": one oracle run and one replay per task).

    python benchmarks/oracle_counts.py -- compile examples/scenes/apartment.json \
        --max-per-template 1 --seed 0 -o out/suite.jsonl --jobs 1
    python benchmarks/oracle_counts.py -- validate out/suite.jsonl --solve --jobs 1 --no-cache
    python benchmarks/oracle_counts.py -- audit out/suite.jsonl --no-pixels --jobs 1 --no-cache

The command runs in this process (`--jobs 1`: worker processes would not be counted),
with `run_oracle` (each oracle run, whichever caller) and `replay_plan` (each world
replay) wrapped by counters; the counts are printed on stderr at the end. The figures
are in docs/scale.md ("Certify at scale").
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

COUNTS: Counter[str] = Counter()


def _counted(module: Any, name: str, label: str) -> None:
    inner = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        COUNTS[label] += 1
        return inner(*args, **kwargs)

    setattr(module, name, wrapper)


def main(argv: list[str]) -> int:
    import importlib

    for mod in ("fdc.agents.oracle.manipulation", "fdc.agents.oracle.witness",
                "fdc.agents.oracle"):
        m = importlib.import_module(mod)
        if hasattr(m, "run_oracle"):
            _counted(m, "run_oracle", "oracle runs")
    for mod in ("fdc.compiler.planning.certify", "fdc.evaluation.audit.checks",
                "fdc.compiler.suite_runs", "fdc.sim_bridge.world.plans"):
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        if hasattr(m, "replay_plan"):
            _counted(m, "replay_plan", "replays")
    from fdc.cli import app

    args = argv[1:] if argv and argv[0] == "--" else argv
    try:
        app(args, standalone_mode=False)
    except SystemExit:
        pass
    finally:
        print(dict(COUNTS), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
