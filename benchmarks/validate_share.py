"""What `fdc validate --solve --jobs J` costs a task (issue 38), before and after its two
savings, measured in one command:

    python benchmarks/validate_share.py SUITE [--jobs J] [--timeout S]

- before: each state a task meets builds its own posed graph (`ValidateOptions.share_posed`
  0) and this process waits beside J spawned workers (`LocalExecutor(here=False)`);
- after: the tasks a process checks on a world share their posed graphs
  (`SceneWorlds.posed`) and this process takes batches beside J - 1 workers (what
  `fdc validate` does).

Each variant runs in a child process (`--variant`), with the calls `fdc validate` makes
(`suite_runs.validate_run`, the oracle as a second source of plans, no cache), so each
pays its imports and its workers' starts; its CPU seconds are the child's and its
workers' (`RUSAGE_CHILDREN`). It prints the CPU seconds a task of each, their ratio,
and whether the two JSON reports are the same bytes (exit 1 if not).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_variant(suite: Path, out: Path, variant: str, jobs: int, timeout_s: float) -> None:
    """One variant, in this process: the JSON report written to `out`."""
    from fdc.agents.oracle import oracle_plan
    from fdc.compiler.executors import LocalExecutor
    from fdc.compiler.suite_runs import ResultCache, validate_run
    from fdc.compiler.validate import ValidateOptions

    after = variant == "after"
    options = ValidateOptions(solve=True, timeout_s=timeout_s, oracle=oracle_plan,
                              share_posed=512 if after else 0)
    report, _ = validate_run(suite, options, ResultCache(None),
                             LocalExecutor(jobs, here=after), jobs)
    out.write_text("".join(report.json_chunks()) + "\n", encoding="utf-8")


def measure(suite: Path, out: Path, variant: str, jobs: int, timeout_s: float
            ) -> tuple[float, float]:
    """CPU seconds (the child and its workers) and wall seconds of one variant."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, __file__, str(suite), "--jobs", str(jobs), "--timeout",
                    str(timeout_s), "--variant", variant, "--out", str(out)], check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--variant", choices=["before", "after"], help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.variant is not None:
        run_variant(args.suite, args.out, args.variant, args.jobs, args.timeout)
        return 0
    tasks = sum(1 for line in args.suite.read_text(encoding="utf-8").splitlines()
                if line.strip())
    with tempfile.TemporaryDirectory() as tmp:
        got: dict[str, tuple[float, float, bytes]] = {}
        for variant in ("before", "after"):
            out = Path(tmp) / f"{variant}.json"
            cpu, wall = measure(args.suite, out, variant, args.jobs, args.timeout)
            got[variant] = cpu, wall, out.read_bytes()
            print(f"{variant:6}: {cpu:7.2f} CPU-s, {cpu / tasks:.3f} CPU-s/task, "
                  f"{wall:6.1f} s wall ({tasks} tasks, --jobs {args.jobs})")
    same = got["before"][2] == got["after"][2]
    print(f"after/before: {got['after'][0] / got['before'][0]:.2f} of the CPU seconds; "
          f"reports {'the same bytes' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
