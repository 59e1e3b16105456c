"""`fdc verify`'s peak memory against the size of the suite (issue 38): a hostile input of
the held-out harness is a 200,000-task suite, and `fdc verify` must judge it within 2 GB.

    python benchmarks/verify_memory.py [--tasks N ...] [--format text|json] [--keep DIR]
                                       [--json PATH]

For each N (default 2,000, 20,000 and 200,000) a suite of N tasks is written by repeating
the golden suite's kitchen tasks (tests/golden/suite.jsonl) under new ids
(`big_suite`), and a short run in the kitchen is recorded (`kitchen_run`: the robot walks
to an item, picks it and stops). Then `fdc verify SUITE -t RUN --format F` runs in a
process of its own, its output thrown away, and the benchmark reports the suite's size,
the wall time, the tasks judged per second, and the process's peak resident memory
(`ru_maxrss` of the child, as `/usr/bin/time -v` reports it). No data file is committed:
the inputs are built here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "suite.jsonl"
KITCHEN = ROOT / "tests" / "golden" / "scenes" / "kitchen.json"


def big_suite(path: Path, tasks: int, source: Path = GOLDEN,
              goal: dict[str, Any] | None = None) -> Path:
    """A suite of `tasks` tasks: the kitchen's lines of `source` again and again, each
    under a new id (`<id>-<n>`) (and with `goal` in place of its own, when given: a
    test's cheap one), written a line at a time."""
    lines = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    lines = [x for x in lines if Path(x["scene"]).name == KITCHEN.name]
    with path.open("w") as f:
        for n in range(tasks):
            record = dict(lines[n % len(lines)])
            record["id"] = f"{record['id']}-{n}"
            if goal is not None:
                record["goal"] = goal
            f.write(json.dumps(record, sort_keys=True) + "\n")
    return path


def kitchen_run(path: Path) -> Path:
    """A recorded run in the golden kitchen: walk to the red mug, pick it, stop."""
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.load import load_scene
    from fdc.sim_bridge.world.embedded import EmbeddedWorld

    scene = load_scene(KITCHEN).scene
    assert scene is not None
    world = EmbeddedWorld(build_scene_graph(scene, base_dir=KITCHEN.parent))
    world.navigate("mug_red")
    world.pick("mug_red")
    assert world.stop()
    world.record(path, scene=str(KITCHEN))
    return path


def measure(suite: Path, run: Path, output_format: str) -> dict[str, Any]:
    """`fdc verify` on the suite in a child process: exit code, wall seconds and the
    child's peak resident memory in MB."""
    script = ("import resource, subprocess, sys; "
              "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
              "stderr=subprocess.PIPE); "
              "sys.stderr.write(r.stderr.decode()[-2000:] if r.returncode > 1 else ''); "
              "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    fdc = [sys.executable, "-m", "fdc", "verify", str(suite), "-t", str(run), "--scene",
           str(KITCHEN), "--format", output_format]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, *fdc], capture_output=True,
                          text=True, check=True)
    wall = time.perf_counter() - start
    code, kb = (int(x) for x in done.stdout.split())
    return {"exit_code": code, "wall_s": round(wall, 2), "peak_rss_mb": round(kb / 1024, 1),
            "stderr": done.stderr.strip()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[2_000, 20_000, 200_000])
    ap.add_argument("--format", dest="output_format", choices=["text", "json"],
                    default="json")
    ap.add_argument("--keep", type=Path, help="Write the inputs here and keep them.")
    ap.add_argument("--json", type=Path, help="Also write the figures as JSON.")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        run = kitchen_run(work / "run.jsonl")
        rows = []
        for n in args.tasks:
            suite = big_suite(work / f"suite-{n}.jsonl", n)
            got = measure(suite, run, args.output_format)
            row = {"tasks": n, "suite_mb": round(os.path.getsize(suite) / 2**20, 1), **got,
                   "tasks_per_s": round(n / got["wall_s"], 1)}
            rows.append(row)
            print(f"{n:>8,} tasks  {row['suite_mb']:>7.1f} MB suite  exit {row['exit_code']}  "
                  f"{row['wall_s']:>8.1f} s  {row['tasks_per_s']:>8.1f} tasks/s  "
                  f"peak {row['peak_rss_mb']:>8.1f} MB", flush=True)
            if got["stderr"]:
                print("  " + got["stderr"].replace("\n", "\n  "), flush=True)
            if not args.keep:
                suite.unlink()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(this process: peak {peak:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
