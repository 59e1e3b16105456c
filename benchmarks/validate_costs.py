"""Where `fdc validate --solve` spends its time, per task (issue 38: about 2 s a task).

    python benchmarks/validate_costs.py SUITE [--tasks N] [--skip K] [--no-profile]
                                              [--json PATH] [--keep DIR]

The first N tasks (default 20, after skipping K) that `--solve` plans (process tasks, and
memory-manipulation tasks) are written to a suite of their own beside a copy of SUITE's
manifest, and `fdc validate SUB --solve --format json` runs on it in this process, twice:

* plain, timed: wall and CPU seconds of this process and of the planner processes it
  starts (`resource.getrusage`), and each planner call's own account (`--log-level
  info` output of Fast Downward: the translator's phases, the search, the driver);
* under cProfile (not with `--no-profile`), timed by this process's CPU clock (waits
  for the planner process and for a busy machine's cores count nothing; the planner's
  own CPU is the plain run's): cumulative seconds of the functions each
  step of a certificate runs in (problem building, the PDDL the planner reads, waiting
  for the planner process, the world's replay of the plan, the goal judged at its end,
  the manipulation oracle and its trace's check), and of the checks that are not the
  planner's.

It prints a table of seconds per task for each, which docs/scale.md ("Certify at
scale") records. The profile's absolute figures are inflated by cProfile for Python-heavy
steps (the plain run's total is the real one); their shares are what it is for.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import re
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: (label, module path suffix, function name): the steps whose cumulative time is shown.
STEPS = [
    ("fdc validate, whole (CLI)", "fdc/cli/validate.py", "validate_command"),
    ("validate, whole", "compiler/validate.py", "validate_suite"),
    ("reopen: scene, experience, compiler", "compiler/reopen.py", "compiler"),
    ("checks other than the planner's", "compiler/validate.py", "check_task"),
    ("goal types", "compiler/validate.py", "check_goal_types"),
    ("certify (all of it)", "compiler/validate.py", "certify"),
    ("  planning abstraction per domain (once)", "compiler/validate.py", "planning"),
    ("  problem building (PlanningWorld.build)", "compiler/planning/problem.py", "build"),
    ("  planner calls (solve)", "compiler/planning/solvers.py", "solve"),
    ("    closed-world copy of the problem", "compiler/planning/solvers.py", "_closed_world"),
    ("    PDDL written for the planner", "unified_planning/io/pddl_writer.py", "write_domain"),
    ("    PDDL problem written", "unified_planning/io/pddl_writer.py", "write_problem"),
    ("    waiting for the planner process", "unified_planning/engines/pddl_planner.py",
     "run_command"),
    ("    plan read back", "unified_planning/engines/pddl_planner.py", "_plan_from_file"),
    ("  replay in the embedded world", "sim_bridge/world/plans.py", "replay_plan"),
    ("  goal judged at the replay's end", "predicates/verify.py", "reached"),
    ("  oracle's plan (fallback)", "agents/", "oracle_plan"),
    ("  oracle's plan checked (accept)", "compiler/planning/certify.py", "accept"),
    ("    stepped in the abstraction (acceptor, steps)", "compiler/planning/acceptor.py",
     "apply"),
    ("    stepped in unified-planning's simulator (fallback)",
     "unified_planning/engines/sequential_simulator.py", "apply_unsafe"),
]

_PHASES = {  # Fast Downward's translator phases, as its log names them
    "Parsing": "parse", "Normalizing task": "normalize",
    "Computing model": "ground: model", "Completing instantiation": "ground: instantiate",
    "Instantiating": "ground (instantiate, all)", "Finding invariants": "invariants",
    "Translating task": "translate to SAS", "Writing output": "write SAS",
}


class _PlannerCalls:
    """Each planner process: wall seconds, CPU seconds of the child, and its log."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from unified_planning.engines import pddl_planner

        original = pddl_planner.run_command

        def run_command(engine: Any, cmd: Any, *args: Any, **kwargs: Any) -> Any:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            got = original(engine, cmd, *args, **kwargs)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            self.calls.append({"wall": wall, "cpu": cpu, "log": "".join(got[1][0])})
            return got

        pddl_planner.run_command = run_command
        try:
            yield
        finally:
            pddl_planner.run_command = original

    def summary(self) -> dict[str, float]:
        out: dict[str, float] = {"calls": len(self.calls),
                                 "process wall": sum(c["wall"] for c in self.calls),
                                 "process CPU": sum(c["cpu"] for c in self.calls)}
        for c in self.calls:
            log = c["log"]
            for name, label in _PHASES.items():
                m = re.search(rf"^{re.escape(name)}\.*: \[([\d.]+)s CPU, ([\d.]+)s wall",
                              log, re.M)
                if m:
                    out[f"translate: {label}"] = out.get(f"translate: {label}", 0.0) + \
                        float(m.group(2))
            done = re.search(r"^Done! \[([\d.]+)s CPU, ([\d.]+)s wall-clock\]", log, re.M)
            if done:
                out["translate (whole, its own clock)"] = \
                    out.get("translate (whole, its own clock)", 0.0) + float(done.group(2))
            search = re.findall(r"^\[t=([\d.]+)s, [\d.]+ KB\] Search time: ([\d.]+)s", log,
                                re.M) or re.findall(r"Search time: ([\d.]+)s", log)
            if search:
                last = search[-1]
                value = float(last[1] if isinstance(last, tuple) else last)
                out["search (its own clock)"] = out.get("search (its own clock)", 0.0) + value
            total = re.findall(r"Total time: ([\d.]+)s", log)
            if total:
                out["search process (its own clock)"] = \
                    out.get("search process (its own clock)", 0.0) + float(total[-1])
        out["process start and driver (CPU less translate and search)"] = out["process CPU"] - \
            out.get("translate (whole, its own clock)", 0.0) - \
            out.get("search process (its own clock)", 0.0)
        return out


def pick(suite: Path, out: Path, n: int, skip: int) -> int:
    """The first `n` tasks (after `skip`) of `suite` that `--solve` plans, written to
    `out` with a copy of the manifest beside it; how many there are."""
    from fdc.compiler.suite import is_memory_manipulation, parse_suite

    records, problems = parse_suite(suite.read_text())
    assert not problems, problems
    acted = [r for r in records if r.experience is None or is_memory_manipulation(r)]
    chosen = acted[skip:skip + n]
    out.write_text("".join(line for r in chosen for line in [
        json.dumps(r.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n"]))
    shutil.copy(suite.parent / "manifest.json", out.parent / "manifest.json")
    return len(chosen)


def run(sub: Path, profile: cProfile.Profile | None) -> tuple[float, float, float, int]:
    """`fdc validate SUB --solve --no-cache --format json` in this process: wall, CPU of
    this process, CPU of its children, exit code (`--no-cache`: the profiled run checks
    every task again, not the plain run's results read back)."""
    from fdc.cli import app

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    sink = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(sink):
        if profile is not None:
            profile.enable()
        try:
            app(["validate", str(sub), "--solve", "--no-cache", "--format", "json"],
                standalone_mode=False)
        except SystemExit as e:
            code = int(e.code or 0)
        finally:
            if profile is not None:
                profile.disable()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(sink.getvalue() or "{}")
    return wall, cpu, child, int(report.get("certified", -1)) if code in (0, 1) else code


def steps(profile: cProfile.Profile) -> dict[str, float]:
    """Cumulative seconds of each of `STEPS` (summed over functions that match)."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for label, where, name in STEPS:
        total = 0.0
        for (path, _, func), (_, _, _, cumulative, _) in stats.items():
            if func == name and where in path.replace("\\", "/"):
                total += cumulative
        out[label] = total
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="Keep the sub-suite and the profile here.")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        sub = work / "suite.jsonl"
        n = pick(args.suite.resolve(), sub, args.tasks, args.skip)
        figures: dict[str, Any] = {"tasks": n}
        calls = _PlannerCalls()
        with calls.installed():
            wall, cpu, child, certified = run(sub, None)
        figures["plain"] = {"wall": wall, "cpu": cpu, "planner CPU": child,
                            "certified": certified, **calls.summary()}
        print(f"{n} tasks, {certified} certified: {wall:.1f} s wall, {cpu:.1f} s CPU here, "
              f"{child:.1f} s CPU in planner processes ({len(calls.calls)} calls)")
        print(f"{'plain run, per task':<48} {'s/task':>8}")
        for key, value in figures["plain"].items():
            if key not in ("certified", "calls"):
                print(f"  {key:<46} {value / n:>8.3f}")
        if not args.no_profile:
            profile = cProfile.Profile(time.process_time)  # CPU: a busy machine's waits
            calls = _PlannerCalls()
            with calls.installed():
                wall_p, *_ = run(sub, profile)
            figures["profiled"] = {"wall": wall_p, **steps(profile)}
            print(f"{'under cProfile (cumulative), per task':<48} {'s/task':>8}")
            for key, value in figures["profiled"].items():
                print(f"  {key:<46} {value / n:>8.3f}")
            if args.keep:
                profile.dump_stats(str(work / "validate.prof"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
