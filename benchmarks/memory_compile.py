"""The cost of one memory episode (issue 18): a generated scene, one simulated day, the
whole memory library; this tree beside a baseline checkout, in one run.

    python benchmarks/memory_compile.py [--baseline DIR] [--objects N] [--rooms R]
                                        [--interactions K] [--seed S] [--days D]
                                        [--max-per-template K] [--repeat N]
                                        [--keep DIR] [--json PATH]

A scene of about `--objects` objects is generated (with this tree's generator, so both
trees compile the same file). Each tree then runs in a fresh worker process of its own,
importing `fdc` from its own folders (`--baseline DIR` is a git worktree or checkout,
e.g. `git worktree add /tmp/fdc-base HEAD~1`), and times, in CPU seconds
(`time.process_time`, which a busy machine disturbs less than wall time):

* **scene**: loading `scene.json` and building its scene graph, which the days of a
  scene can share, so it is reported apart;
* **episode**: the rest of one day: simulating the experience (`--interactions`
  pick-and-place interactions), the start states, and compiling every template of
  `domain/templates/memory` of the tree (bind, ground, render, goal frames and L*, ...).

With `--days D` the worker compiles D days of the scene one after another on the one
graph (day d simulated with the seed of `fdc compile --experiences`'s day d), as a shard
worker does, and also reports **later days**: the mean episode of days 2 to D, which
pays no first-use costs (lazy imports, memoised route searches of the graph).

Both workers write the suite's records (`suite.jsonl`, the lines `fdc compile` would
write; no manifest); the run reports
whether the two are byte-identical and otherwise the ids of the tasks that differ. With
`--repeat N` each tree runs N times, alternating, and its fastest run counts. Exit code 1
when the suites differ.

The worker calls the pipeline's stages (`compiler.prepare.load_graph` and `experience`,
`SceneCompiler`, `compile_templates`, `suite.suite_lines`) rather than the CLI, to time
the scene apart: a baseline must have them (every commit since issue 14's layout does;
`SceneCompiler` and `load_entries` are found where issue 37 put them, or in
`compiler/compile.py` before it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def use_tree(root: Path) -> None:
    """Import `fdc` from the tree at `root`: the package is `fdc/`, its subpackages the
    top-level folders (what the editable install maps; see pyproject.toml)."""
    spec = importlib.util.spec_from_file_location(
        "fdc", root / "fdc" / "__init__.py",
        submodule_search_locations=[str(root / "fdc"), str(root)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fdc"] = module
    spec.loader.exec_module(module)


def generate(root: Path, out: Path, rooms: int, objects: int, seed: int) -> None:
    use_tree(root)
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.scene.generate import generate_scene

    write_atomic(out, generate_scene(rooms, objects, seed).to_json())


def episode(root: Path, scene: Path, out: Path, interactions: int, seed: int,
            max_per_template: int, days: int = 1) -> dict[str, Any]:
    """`days` days of the scene with the tree's memory library, on one graph; the
    suite of every day at `out`."""
    use_tree(root)
    if (root / "compiler" / "compile.py").is_file():  # a tree before issue 37
        from fdc.compiler.compile import (
            CompileOptions,
            SceneCompiler,
            load_entries,
        )
    else:  # the modules `compiler/compile.py` was split into
        from fdc.compiler.options import CompileOptions
        from fdc.compiler.scene_compiler import SceneCompiler
        from fdc.compiler.templates import load_entries
    from fdc.compiler.pipeline import compile_templates
    from fdc.compiler.prepare import SceneJob, day_seed, experience, load_graph
    from fdc.compiler.suite import suite_lines
    from fdc.compiler.timings import Timings
    from fdc.core.files import write_atomic

    entries, result = load_entries([str(root / "domain" / "templates" / "memory")])
    if not entries:
        raise SystemExit(f"{root}: the memory library does not check: {result}")
    options = CompileOptions(seed=seed, max_per_template=max_per_template or None)
    t0 = time.process_time()
    graph, sha = load_graph(str(scene))
    scene_s = time.process_time() - t0
    timings = Timings()
    done, seconds = [], []
    for day in range(1, days + 1):
        t1 = time.process_time()
        job = SceneJob(str(scene), None, True, interactions, day=day)
        log, ref = experience(job, graph, sha, day_seed(seed, job.day), True)
        assert log is not None and ref is not None
        compiler = SceneCompiler(graph, job.path, sha, log, ref.sha256, options, None, None)
        done.append(compile_templates(compiler, entries, timings=timings))
        seconds.append(time.process_time() - t1)
    records = [r for d in done for r in d.records]
    write_atomic(out, "".join(suite_lines(records)))
    later = seconds[1:]
    return {"scene_s": scene_s, "episode_s": seconds[0], "tasks": len(done[0].records),
            "days": days, "later_s": sum(later) / len(later) if later else None,
            "later_tasks": (len(records) - len(done[0].records)) / len(later) if later else None}


def differing(a: Path, b: Path) -> list[str]:
    """Ids of the tasks whose lines differ (or that only one suite has)."""
    def by_id(p: Path) -> dict[str, str]:
        return {json.loads(line)["id"]: line for line in p.read_text().splitlines()}

    x, y = by_id(a), by_id(b)
    return sorted(k for k in x.keys() | y.keys() if x.get(k) != y.get(k))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", type=Path, help="a checkout of the commit to compare with")
    p.add_argument("--objects", type=int, default=120)
    p.add_argument("--rooms", type=int, default=6)
    p.add_argument("--interactions", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-per-template", type=int, default=25)
    p.add_argument("--days", type=int, default=1, help="days of the scene, on one graph")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--keep", type=Path, help="write the scene and the suites here")
    p.add_argument("--json", type=Path, help="write the figures here")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:  # --worker ROOT generate OUT | --worker ROOT episode SCENE OUT
        root, what, *rest = a.worker
        if what == "generate":
            generate(Path(root), Path(rest[0]), a.rooms, a.objects, a.seed)
            print("{}")
        else:
            print(json.dumps(episode(Path(root), Path(rest[0]), Path(rest[1]),
                                     a.interactions, a.seed, a.max_per_template, a.days)))
        return 0
    work = a.keep or Path(tempfile.mkdtemp(prefix="fdc-memory-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    scene = work / "scene.json"
    common = ["--rooms", str(a.rooms), "--objects", str(a.objects), "--seed", str(a.seed),
              "--interactions", str(a.interactions),
              "--max-per-template", str(a.max_per_template), "--days", str(a.days)]
    _worker(ROOT, common, "generate", scene)
    trees = {"current": ROOT, **({"baseline": a.baseline.resolve()} if a.baseline else {})}
    best: dict[str, dict[str, Any]] = {}
    for _ in range(a.repeat):
        for name, root in trees.items():
            (work / name).mkdir(exist_ok=True)
            got = _worker(root, common, "episode", scene, work / name / "suite.jsonl")
            if name not in best:
                best[name] = got
            for k in ("episode_s", "later_s"):  # the fastest run of each
                if got[k] is not None and got[k] < best[name][k]:
                    best[name][k] = got[k]
    report: dict[str, Any] = {"scene": {"objects": a.objects, "rooms": a.rooms,
                                        "interactions": a.interactions, "seed": a.seed,
                                        "max_per_template": a.max_per_template,
                                        "days": a.days},
                              "trees": {k: str(v) for k, v in trees.items()}, **best}
    for name, got in best.items():
        later = "" if got["later_s"] is None else \
            f"   later days {got['later_s']:7.2f} s ({got['later_tasks']:.0f} tasks)"
        print(f"{name:9s} scene {got['scene_s']:7.2f} s   episode {got['episode_s']:7.2f} s   "
              f"{got['tasks']} tasks{later}   (CPU seconds)")
    if "baseline" in best:
        ratio = best["baseline"]["episode_s"] / best["current"]["episode_s"]
        diff = differing(work / "baseline" / "suite.jsonl", work / "current" / "suite.jsonl")
        same = (work / "baseline" / "suite.jsonl").read_bytes() == \
            (work / "current" / "suite.jsonl").read_bytes()
        report.update(ratio=ratio, identical=same, differing=diff)
        print(f"episode: {ratio:.1f}x faster than the baseline; suites "
              + ("byte-identical" if same else f"differ in {len(diff)} task(s): "
                 + ", ".join(diff[:20]) + (" ..." if len(diff) > 20 else "")))
        if best["current"]["later_s"] is not None:
            report["later_ratio"] = best["baseline"]["later_s"] / best["current"]["later_s"]
            print(f"later days: {report['later_ratio']:.1f}x faster than the baseline")
    if a.json:
        a.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report.get("identical", True) else 1


def _worker(root: Path, common: list[str], *job: str | Path) -> dict[str, Any]:
    """This script's `--worker` in a fresh interpreter (the tree's own imports): its
    figures (the last line it prints)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *common,
           "--worker", str(root), *map(str, job)]
    found = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
    got: dict[str, Any] = json.loads(found.stdout.strip().splitlines()[-1])
    return got


if __name__ == "__main__":
    sys.exit(main())
