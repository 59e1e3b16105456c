"""`fdc audit`'s CPU-seconds per task on the example apartment (issue 38), and the ratio to
a baseline revision in the same command.

    python benchmarks/audit_cost.py [--against REV] [--max-per-template N] [--suite PATH]
                                    [--pixels] [--tasks ID ...] [--runs K] [--json PATH]

The suite is the apartment's (`fdc experience generate examples/scenes/apartment.json
--interactions 5 --seed 0`, then `fdc compile ... --seed 0 --max-per-template N`, default
1: 123 tasks), built here unless `--suite` names one (its manifest beside it). Each
revision's `fdc audit SUITE --no-cache --jobs 1 --format json` (with `--no-pixels`
unless `--pixels`) runs in a child process of its own (`--jobs 1`: worker processes would
import the installed fdc, not the revision extracted), and its CPU-seconds (user and
system, of the child and of everything it waited for: the planner's processes) are
read from `RUSAGE_CHILDREN`; the machine may be loaded by others, so CPU-seconds, not
wall, and the ratio of revisions measured alternately in one command (`--runs K`: K
rounds, the median kept). The reports of both revisions are compared byte for byte (the
audit's verdicts must not change). `--against REV` extracts that revision with `git
archive` and imports its code in place of this tree's (`audit_memory.LAUNCHER`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import audit_memory  # a benchmark beside this one

ROOT = Path(__file__).resolve().parent.parent
SCENE = ROOT / "examples" / "scenes" / "apartment.json"


def build_suite(folder: Path, max_per_template: int | None) -> Path:
    """The apartment's suite (module doc) in `folder`, by this tree's code."""
    fdc = [sys.executable, "-m", "fdc"]
    exp = folder / "experience.json"
    subprocess.run([*fdc, "experience", "generate", str(SCENE), "--interactions", "5",
                    "--seed", "0", "-o", str(exp)], cwd=ROOT, check=True,
                   capture_output=True)
    suite = folder / "suite.jsonl"
    cap = [] if max_per_template is None else ["--max-per-template", str(max_per_template)]
    subprocess.run([*fdc, "compile", str(SCENE), "--history", str(exp), "--seed", "0", *cap,
                    "-o", str(suite)], cwd=ROOT, check=True, capture_output=True)
    return suite


def measure(tree: Path, suite: Path, report: Path, pixels: bool,
            tasks: list[str]) -> dict[str, Any]:
    """One `fdc audit` of `tree`'s code in a child: its CPU-seconds and wall seconds."""
    script = ("import resource, subprocess, sys; "
              "r = subprocess.run(sys.argv[2:], cwd=sys.argv[1], capture_output=True); "
              "sys.stderr.write(r.stderr.decode()[-2000:] if r.returncode > 1 else ''); "
              "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
              "print(r.returncode, u.ru_utime + u.ru_stime)")
    args = [sys.executable, "-c", audit_memory.LAUNCHER, str(tree), "-m", "fdc", "audit",
            str(suite),
            "--no-cache", "--jobs", "1", "--format", "json", "-o", str(report),
            "--pixels" if pixels else "--no-pixels"]
    for t in tasks:
        args += ["--task", t]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(ROOT), *args],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    code, cpu = done.stdout.split()
    return {"exit_code": int(code), "cpu_s": float(cpu), "wall_s": round(wall, 1),
            "stderr": done.stderr.strip()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", help="Also measure this git revision (the baseline).")
    ap.add_argument("--max-per-template", type=int, default=1)
    ap.add_argument("--suite", type=Path, help="Audit this suite instead of building one.")
    ap.add_argument("--pixels", action="store_true", help="Run the pixels check too.")
    ap.add_argument("--tasks", nargs="*", default=[], help="Only these task ids.")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", type=Path, help="Also write the figures as JSON.")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite = args.suite.resolve() if args.suite else \
            build_suite(folder, args.max_per_template)
        n = len(args.tasks) or sum(1 for line in suite.read_text().splitlines()
                                   if line.strip())
        trees = {"this tree": ROOT}
        if args.against:
            old = folder / "baseline"
            old.mkdir()
            archive = subprocess.run(["git", "archive", args.against], cwd=ROOT,
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            trees = {args.against: old, **trees}
        cpu: dict[str, list[float]] = {name: [] for name in trees}
        reports: dict[str, bytes] = {}
        for k in range(args.runs):
            for name, tree in trees.items():
                report = folder / f"report-{len(reports)}.json"
                got = measure(tree, suite, report, args.pixels, args.tasks)
                cpu[name].append(got["cpu_s"])
                reports[name] = report.read_bytes()
                print(f"run {k + 1}  {name:>10}  exit {got['exit_code']}  "
                      f"{got['cpu_s']:8.1f} CPU-s  {got['cpu_s'] / n:6.3f} CPU-s/task  "
                      f"wall {got['wall_s']:7.1f} s", flush=True)
                if got["stderr"]:
                    print("  " + got["stderr"].replace("\n", "\n  "), flush=True)
        rows = {name: {"tasks": n, "cpu_s": statistics.median(v),
                       "cpu_s_per_task": round(statistics.median(v) / n, 3)}
                for name, v in cpu.items()}
        if args.against:
            same = reports[args.against] == reports["this tree"]
            ratio = rows["this tree"]["cpu_s"] / rows[args.against]["cpu_s"]
            print(f"ratio this tree / {args.against}: {ratio:.2f}; reports "
                  f"{'identical' if same else 'DIFFER'}")
            rows["compare"] = {"ratio": round(ratio, 3), "reports_identical": same}
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
