"""A compile at scale (issue 18): a family of generated scenes, K simulated days each,
the whole template library, in shards on `--executor local`.

    python benchmarks/scale.py [--size findingdory|ci] [--scenes N] [--experiences K]
                               [--jobs J] [--rooms R] [--objects M] [--interactions I]
                               [--max-per-template K] [--seed S] [--no-witness]
                               [--keep DIR] [--json PATH] [--certify]

`--size findingdory` is FindingDory's size: 100 scenes x 15 experiences (1,500 shards);
`--size ci` (the default) 4 scenes x 2 experiences, a minute or two. The other options
override the size's. The scenes are written by `fdc scene generate --count` (a family:
between a third of `--rooms` and `--rooms` rooms), then compiled with the library calls
`fdc compile` makes (`compiler.shards.compile_sharded`, `emit_sharded`) into a fresh
cache, and compiled a second time from that cache (everything reused). As `fdc compile`
does, it asks the oracle for a witness of every goal that puts items by anchors (the
`witness` pass); `--no-witness` leaves that out, to weigh its cost.

It reports: tasks (and how many are memory tasks) and shards; wall time; CPU seconds
(this process and its workers); tasks per second and tasks per second per core (tasks /
wall / jobs); peak resident memory of this process (which merges and writes the suite)
and of the largest worker; seconds per pass summed over the workers (the pipeline's
`Timings`); and the rerun's wall time. `--json PATH` writes the same as JSON.

`--certify` then certifies the suite as CI would, with the CLI in child processes and no
cache: `fdc validate --solve` and `fdc audit --no-pixels`, each with `--jobs J`; it adds
their wall and CPU seconds (children's), CPU seconds a task and exit codes, and scales
every pass to FindingDory's 1,500 shards (CPU-hours; hours on 32 one-core workers).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIZES = {"findingdory": (100, 15), "ci": (4, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(SIZES), default="ci")
    ap.add_argument("--scenes", type=int)
    ap.add_argument("--experiences", type=int)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rooms", type=int, default=6)
    ap.add_argument("--objects", type=int, default=150)
    ap.add_argument("--interactions", type=int, default=5)
    ap.add_argument("--max-per-template", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Write the scenes, cache and suite here.")
    ap.add_argument("--no-witness", action="store_true",
                    help="Keep goals that put items by anchors without the oracle's trace.")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--certify", action="store_true",
                    help="Also run `fdc validate --solve` and `fdc audit` on the suite.")
    args = ap.parse_args(argv)
    scenes, days = SIZES[args.size]
    scenes = args.scenes or scenes
    days = args.experiences or days
    with tempfile.TemporaryDirectory(prefix="fdc-scale-") as tmp:
        root = args.keep or Path(tmp)
        report = run(root, scenes, days, args)
        if args.certify:
            report["certify"] = certify(root / "suite.jsonl", args.jobs, report)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def run(root: Path, scenes: int, days: int, args: argparse.Namespace) -> dict[str, Any]:
    from fdc.agents.oracle import witness
    from fdc.compiler.executors import LocalExecutor
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.prepare import SceneJob
    from fdc.compiler.shards import FolderCache, compile_sharded, emit_sharded
    from fdc.compiler.templates import is_memory_template, load_entries
    from fdc.core.files import write_atomic
    from fdc.predicates.builtin import default_registry
    from fdc.sim_bridge.scene.generate import family_file, family_scene

    folder = root / "scenes"
    files = []
    for k in range(scenes):
        path = folder / family_file(k)
        if not path.exists():
            write_atomic(path, family_scene(k, args.seed, args.rooms, args.objects).to_json())
        files.append(path)
    entries, _ = load_entries(None)
    options = CompileOptions(seed=args.seed, max_per_template=args.max_per_template or None,
                             witness=None if args.no_witness else witness)
    jobs = [SceneJob(str(p), None, True, args.interactions, day=d + 1)
            for p in files for d in range(days)]
    cache = FolderCache(root / "suite.cache")
    executor = LocalExecutor(args.jobs)
    before, start = os.times(), time.perf_counter()
    done = compile_sharded(jobs, entries, options, cache, executor,
                           on_shard=lambda _o: _tick(len(jobs)))
    compiled_s = time.perf_counter() - start
    manifest, _ = emit_sharded(root / "suite.jsonl", done, entries, options)
    wall_s = time.perf_counter() - start
    after = os.times()
    sys.stderr.write("\n")
    cpu_s = (after.user - before.user) + (after.system - before.system) + \
        (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)
    start = time.perf_counter()
    again = compile_sharded(jobs, entries, options, cache, executor)
    emit_sharded(root / "suite.jsonl", again, entries, options)
    rerun_s = time.perf_counter() - start
    kib = 1 if sys.platform != "darwin" else 1 / 1024
    registry = default_registry()
    memory = {e.name for e in entries if is_memory_template(e.template, registry)}
    return {
        "scenes": scenes, "experiences": days, "shards": len(done.shards),
        "templates": len(entries), "jobs": args.jobs, "tasks": manifest.tasks,
        "memory_tasks": sum(c.tasks for name, c in manifest.per_template.items()
                            if name in memory),
        "max_per_template": args.max_per_template, "rooms": args.rooms,
        "objects": args.objects, "interactions": args.interactions,
        "wall_s": round(wall_s, 2), "compile_wall_s": round(compiled_s, 2),
        "emit_s": round(wall_s - compiled_s, 2), "cpu_s": round(cpu_s, 2),
        "tasks_per_s": round(manifest.tasks / wall_s, 2),
        "tasks_per_s_per_core": round(manifest.tasks / wall_s / max(1, args.jobs), 2),
        "peak_rss_mib_main": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                   * kib / 1024, 1),
        "peak_rss_mib_worker": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
                                     * kib / 1024, 1),
        "suite_mib": round((root / "suite.jsonl").stat().st_size / 2**20, 2),
        "rerun_wall_s": round(rerun_s, 2), "rerun_reused_tasks": again.reused_tasks,
        "passes_s": {p.value: round(t.seconds, 2) for p, t in done.timings.rows()},
    }


def certify(suite: Path, jobs: int, compiled: dict[str, Any]) -> dict[str, Any]:
    """`fdc validate --solve` and `fdc audit` of the suite (child processes, no cache),
    timed, and each pass scaled to FindingDory's 1,500 shards."""
    import subprocess

    scale = SIZES["findingdory"][0] * SIZES["findingdory"][1] / compiled["shards"]
    out: dict[str, Any] = {"findingdory_scale": round(scale, 1)}
    runs = {"validate": ["validate", str(suite), "--solve", "--timeout", "60"],
            "audit": ["audit", str(suite), "--no-pixels"]}
    for name, argv in runs.items():
        before, start = os.times(), time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "fdc", *argv, "--jobs", str(jobs),
                               "--no-cache"], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = os.times()
        cpu = (after.children_user - before.children_user) + \
            (after.children_system - before.children_system)
        out[name] = {"exit": done.returncode, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                     "cpu_s_per_task": round(cpu / max(1, compiled["tasks"]), 3)}
    for name, cpu in (("compile", compiled["cpu_s"]), ("validate", out["validate"]["cpu_s"]),
                      ("audit", out["audit"]["cpu_s"])):
        out.setdefault("findingdory_cpu_h", {})[name] = round(cpu * scale / 3600, 1)
    out["findingdory_h_on_32_workers"] = round(
        sum(out["findingdory_cpu_h"].values()) / 32, 1)
    return out


_done = [0]


def _tick(total: int) -> None:
    _done[0] += 1
    sys.stderr.write(f"\r{_done[0]}/{total} shards")
    sys.stderr.flush()


def print_report(r: dict[str, Any]) -> None:
    print(f"{r['scenes']} scenes x {r['experiences']} experiences = {r['shards']} shards, "
          f"{r['templates']} templates, --jobs {r['jobs']}: {r['tasks']} tasks "
          f"({r['memory_tasks']} memory tasks; {r['suite_mib']} MiB)")
    print(f"wall {r['wall_s']} s (emit {r['emit_s']} s), CPU {r['cpu_s']} s; "
          f"{r['tasks_per_s']} tasks/s, {r['tasks_per_s_per_core']} tasks/s/core")
    print(f"peak RSS: main {r['peak_rss_mib_main']} MiB, largest worker "
          f"{r['peak_rss_mib_worker']} MiB")
    print(f"rerun from the cache: {r['rerun_wall_s']} s ({r['rerun_reused_tasks']} reused)")
    for name, seconds in r["passes_s"].items():
        print(f"  {name:14} {seconds:10.2f} s")
    c = r.get("certify")
    if c:
        for name in ("validate", "audit"):
            v = c[name]
            print(f"{name}: exit {v['exit']}, wall {v['wall_s']} s, CPU {v['cpu_s']} s "
                  f"({v['cpu_s_per_task']} CPU-s a task)")
        hours = ", ".join(f"{k} {h}" for k, h in c["findingdory_cpu_h"].items())
        print(f"at FindingDory's size (x{c['findingdory_scale']}): CPU-hours {hours}; "
              f"{c['findingdory_h_on_32_workers']} h on 32 workers")


if __name__ == "__main__":
    raise SystemExit(main())
