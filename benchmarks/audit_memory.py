"""`fdc audit`'s client memory against the size of the suite (issue 38): the suite is
read a line at a time and the report written a task at a time, so the client's peak
should not grow with the suite.

    python benchmarks/audit_memory.py [--tasks N ...] [--format json|junit|text]
                                      [--against REV] [--json PATH]

For each N (default 2,000 and 20,000) a suite of N lightweight tasks is written: the
golden suite's process tasks (tests/golden/suite.jsonl) again and again under new ids
(`validate_memory.lightweight_suite`, their kitchen scene kept), and a result cache is
filled with an audit for each (every check agrees: `synthetic_cache`, made by the code
measured, whose hash the cache key holds), so that `fdc audit SUITE --cache C --format F
--no-pixels` audits nothing and measures the client alone: reading the suite, reading
the audits back and writing the report (a cold run's audits are made by workers in
bounded batches, `compiler.suite_runs`). It runs in a process of its own from the
repository's root, its output thrown away; the benchmark reports the peak resident
memory (`ru_maxrss` of the child). `--against REV` measures that revision's code too
(extracted with `git archive`, imported in place of this tree's): the baseline, run in
the same command. No data file is committed: the inputs are built here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_memory  # a benchmark beside this one

ROOT = Path(__file__).resolve().parent.parent

#: Run in the child before anything of fdc is imported: `fdc` and its top-level packages
#: from the tree given (argv[1]) rather than the installed one, then argv[2:] run as a
#: script (`-m fdc ...` or a file) with its own argv.
LAUNCHER = """
import importlib.abc, importlib.util, runpy, sys, tomllib
from pathlib import Path
tree = Path(sys.argv[1])
dirs = tomllib.loads((tree / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
class Tree(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in dirs:
            where = tree / dirs[name]
            return importlib.util.spec_from_file_location(
                name, where / "__init__.py", submodule_search_locations=[str(where)])
        return None
sys.meta_path.insert(0, Tree())
args = sys.argv[2:]
if args[0] == "-m":
    sys.argv = [args[1], *args[2:]]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
"""

#: Fills the cache (argv: suite, cache folder) with an audit per task on which every
#: check agrees, keyed as `fdc audit SUITE --no-pixels` keys them.
FILL = """
import sys
from dataclasses import asdict
from pathlib import Path
from fdc.compiler.reopen import reopen_inputs
from fdc.compiler.suite_runs import ResultCache, TaskKeys, suite_records
from fdc.evaluation.audit.checks import CHECKS, AuditOptions, Outcome, TaskAudit
from fdc.evaluation.audit.workers import encode
suite, folder = Path(sys.argv[1]), Path(sys.argv[2])
options = AuditOptions(pixels=False, pixels_off="not asked for (--no-pixels)")
keys = TaskKeys(reopen_inputs(suite, []), "audit", asdict(options))
cache = ResultCache(folder)
agree = {k: Outcome("agree", "") for k in CHECKS}
for n, r in suite_records(suite):
    cache.put("audit", keys.key(r), encode(TaskAudit(r, n, agree)))
"""


def lightweight_suite(path: Path, tasks: int) -> Path:
    """`validate_memory.lightweight_suite` with each task's scene kept (an audit needs
    its world)."""
    return validate_memory.lightweight_suite(path, tasks, keep_scene=True)


def _in_tree(tree: Path, *args: str) -> list[str]:
    return [sys.executable, "-c", LAUNCHER, str(tree), *args]


def synthetic_cache(suite: Path, folder: Path, tree: Path = ROOT) -> None:
    """Fill `folder` with an agreeing audit per task of `suite`, by `tree`'s code."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(FILL)
    try:
        subprocess.run(_in_tree(tree, f.name, str(suite), str(folder)), cwd=ROOT,
                       check=True)
    finally:
        Path(f.name).unlink()


def measure(suite: Path, output_format: str = "json", tree: Path = ROOT) -> dict[str, Any]:
    """`fdc audit` (of `tree`'s code) on the suite with its filled cache in a child process
    (from the repository's root): exit code, wall seconds, its peak resident memory in
    MB, and the report's size."""
    cache = suite.with_suffix(f".{tree.name}.cache")
    synthetic_cache(suite, cache, tree)
    fdc = _in_tree(tree, "-m", "fdc", "audit", str(suite), "--cache", str(cache),
                   "--format", output_format, "--no-pixels")
    return validate_memory.run_measured(fdc, suite.with_suffix(f".{output_format}"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[2_000, 20_000])
    ap.add_argument("--format", dest="output_format", choices=["json", "junit", "text"],
                    default="json")
    ap.add_argument("--against", help="Also measure this git revision's code (the "
                    "baseline), e.g. main.")
    ap.add_argument("--json", type=Path, help="Also write the figures as JSON.")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this tree": ROOT}
        if args.against:
            old = Path(tmp) / "baseline"
            old.mkdir()
            archive = subprocess.run(["git", "archive", args.against], cwd=ROOT,
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            trees = {args.against: old, **trees}
        for n in args.tasks:
            suite = lightweight_suite(Path(tmp) / f"suite-{n}.jsonl", n)
            for name, tree in trees.items():
                got = measure(suite, args.output_format, tree)
                row = {"tasks": n, "code": name, **got}
                rows.append(row)
                print(f"{n:>8,} tasks  {name:>10}  exit {row['exit_code']}  "
                      f"{row['wall_s']:>8.1f} s  report {row['report_mb']:>6.1f} MB  "
                      f"peak {row['peak_rss_mb']:>7.1f} MB", flush=True)
                if got["stderr"]:
                    print("  " + got["stderr"].replace("\n", "\n  "), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
