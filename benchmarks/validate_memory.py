"""`fdc validate`'s peak memory against the size of the suite (issue 38): the suite is
read a line at a time, the tasks go out in bounded batches, and the report is written a
task at a time, so the peak should not grow with the suite.

    python benchmarks/validate_memory.py [--tasks N ...] [--format json|junit|text]
                                         [--jobs J] [--json PATH]

For each N (default 2,000 and 20,000) a suite of N lightweight tasks is written: the
golden suite's process tasks (tests/golden/suite.jsonl) again and again under new ids,
with no scene (`lightweight_suite`: each task's record and template are checked, its
start is not: the `unchecked-start` warning), in a folder without a manifest. Then `fdc
validate SUITE --no-cache --format F --jobs J` runs in a process of its own from the
repository's root (the records name their template file from there), its output thrown
away, and the benchmark reports the wall time and the peak resident memory of the
process and its workers (`ru_maxrss` of the children: the largest one). No data file is
committed: the inputs are built here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "suite.jsonl"


def lightweight_suite(path: Path, tasks: int, source: Path = GOLDEN, *,
                      keep_scene: bool = False) -> Path:
    """A suite of `tasks` tasks: `source`'s process tasks again and again, each under a
    new id (`<id>-<n>`) and without a scene (with it if `keep_scene`: an audit needs its
    world), written a line at a time."""
    lines = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    lines = [x for x in lines if x["experience"] is None]
    with path.open("w") as f:
        for n in range(tasks):
            record = dict(lines[n % len(lines)])
            record["id"] = f"{record['id']}-{n}"
            if not keep_scene:
                record["scene"] = None
            f.write(json.dumps(record, sort_keys=True) + "\n")
    return path


def run_measured(command: list[str], report: Path) -> dict[str, Any]:
    """`command` in a child process (from the repository's root), its output written to
    `report` and then deleted: exit code, wall seconds, the largest peak resident memory
    of it and its own children in MB, the report's size, and its error output when it
    failed (exit code above 1)."""
    script = ("import resource, subprocess, sys; "
              "r = subprocess.run(sys.argv[3:], stdout=open(sys.argv[1], 'wb'), "
              "stderr=subprocess.PIPE, cwd=sys.argv[2]); "
              "sys.stderr.write(r.stderr.decode()[-2000:] if r.returncode > 1 else ''); "
              "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(report), str(ROOT), *command],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    code, kb = (int(x) for x in done.stdout.split())
    size = report.stat().st_size
    report.unlink()
    return {"exit_code": code, "wall_s": round(wall, 2), "peak_rss_mb": round(kb / 1024, 1),
            "report_mb": round(size / 2**20, 1), "stderr": done.stderr.strip()}


def measure(suite: Path, output_format: str = "json", jobs: int = 1) -> dict[str, Any]:
    """`fdc validate` on the suite (`run_measured`)."""
    return run_measured([sys.executable, "-m", "fdc", "validate", str(suite), "--no-cache",
                         "--format", output_format, "--jobs", str(jobs)],
                        suite.with_suffix(f".{output_format}"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[2_000, 20_000])
    ap.add_argument("--format", dest="output_format", choices=["json", "junit", "text"],
                    default="json")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", type=Path, help="Also write the figures as JSON.")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.tasks:
            suite = lightweight_suite(Path(tmp) / f"suite-{n}.jsonl", n)
            got = measure(suite, args.output_format, args.jobs)
            row = {"tasks": n, "jobs": args.jobs, **got,
                   "tasks_per_s": round(n / got["wall_s"], 1)}
            rows.append(row)
            print(f"{n:>8,} tasks  exit {row['exit_code']}  {row['wall_s']:>8.1f} s  "
                  f"{row['tasks_per_s']:>8.1f} tasks/s  report {row['report_mb']:>6.1f} MB  "
                  f"peak {row['peak_rss_mb']:>7.1f} MB", flush=True)
            if got["stderr"]:
                print("  " + got["stderr"].replace("\n", "\n  "), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
