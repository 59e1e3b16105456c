"""Compile-time benchmarks of fdc: `grounding` (fdc's ground pass beside BDDL's) and
`library` (the built-in library on generated scenes of growing size).

    python benchmarks/compile.py [--section grounding|library|counting|all] [--repeat N]
                                 [--quick]
                                 [--json PATH]
    python benchmarks/compile.py --check [--instances N] [--seed S]

The sections live in sibling modules: `grounding` and `--check` in
`compile_grounding.py` and `compile_check.py` (their docstrings say what they measure
and how), `library` and `counting` here.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from compile_check import run_check
from compile_grounding import section_grounding
from rich.console import Console
from rich.table import Table

# ---------------------------------------------------------------------------- library

#: Generated scenes for the library section: objects -> rooms.
LIBRARY_SIZES = {300: 4, 1000: 10, 3000: 30}
LIBRARY_EXPONENT_TARGET = 1.3


def library_run(objects: int, rooms: int, seed: int) -> dict[str, Any]:
    """Build a generated scene, simulate its experience, compile the built-in library
    with `fdc compile`'s defaults; seconds of each stage (CPU time of this process)."""
    from fdc.cli.compile import DEFAULT_MAX_PER_TEMPLATE
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.pipeline import compile_templates
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries
    from fdc.core.hashing import scene_sha256, sha256_text
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.generate import generate_scene
    from fdc.sim_bridge.world.simulate import simulate_experience

    entries, result = load_entries(None)
    assert not result.errors
    scene = generate_scene(rooms=rooms, objects=objects, seed=seed)
    t0 = time.process_time()
    graph = build_scene_graph(scene)
    t1 = time.process_time()
    sha = scene_sha256(graph.scene)
    log = simulate_experience(graph, interactions=5, seed=seed, scene="bench", scene_sha256=sha)
    t2 = time.process_time()
    options = CompileOptions(seed=seed, max_per_template=DEFAULT_MAX_PER_TEMPLATE)
    compiler = SceneCompiler(graph, "bench", sha, log, sha256_text(log.to_json()), options)
    out = compile_templates(compiler, entries)
    t3 = time.process_time()
    return {
        "objects": len(scene.objects), "templates": len(entries), "tasks": len(out.records),
        "errors": sum(1 for r in out.reports if r.error), "build_s": t1 - t0,
        "experience_s": t2 - t1, "compile_s": t3 - t2, "frames": len(log.frames),
    }


def _library_worker(objects: int, rooms: int, seed: int, conn: Connection) -> None:
    try:
        conn.send(library_run(objects, rooms, seed))
    except BaseException as e:
        conn.send(f"{type(e).__name__}: {e}")
    finally:
        conn.close()


def _fit_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The slope of log y against log x (least squares)."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx)


def section_library(args: argparse.Namespace, console: Console) -> tuple[bool, dict[str, Any]]:
    """Compile time of the built-in library on generated scenes of growing size, each in a
    fresh worker process, and the fitted growth exponent of compile time."""
    sizes = {300: 4, 1000: 10} if args.quick else LIBRARY_SIZES
    ctx = mp.get_context("spawn")
    rows: list[dict[str, Any]] = []
    for objects, rooms in sizes.items():
        best: dict[str, Any] | None = None
        for _ in range(max(1, args.repeat)):
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_library_worker, args=(objects, rooms, 0, child))
            proc.start()
            child.close()
            got = parent.recv() if parent.poll(args.timeout) else "timed out"
            proc.join(5)
            if isinstance(got, str):
                console.print(f"[red]library, {objects} objects: {got}")
                return False, {"error": got}
            if best is None or got["compile_s"] < best["compile_s"]:
                best = got
        assert best is not None
        rows.append(best)
    table = Table(title="the built-in library on generated scenes (fdc compile's defaults)")
    for col in ("objects", "templates", "tasks", "scene graph s", "experience s",
                "compile s", "compile / graph", "ms per task"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r["objects"]), str(r["templates"]), str(r["tasks"]),
                      f"{r['build_s']:.2f}", f"{r['experience_s']:.2f}",
                      f"{r['compile_s']:.2f}", f"{r['compile_s'] / r['build_s']:.2f}",
                      f"{1000 * r['compile_s'] / max(1, r['tasks']):.1f}")
    console.print(table)
    xs = [r["objects"] for r in rows]
    exponent = _fit_exponent(xs, [r["compile_s"] for r in rows])
    total = _fit_exponent(xs, [r["build_s"] + r["experience_s"] + r["compile_s"] for r in rows])
    met = exponent <= LIBRARY_EXPONENT_TARGET and not any(r["errors"] for r in rows)
    colour = "green" if met else "red"
    console.print(
        f"[{colour}]growth exponent of compile time: {exponent:.2f} (target <= "
        f"{LIBRARY_EXPONENT_TARGET}); of scene graph + experience + compile: {total:.2f}"
    )
    return met, {"rows": rows, "exponent": exponent, "exponent_total": total}


# ---------------------------------------------------------------------------- counting

#: The counting goal of the comparison (issue 16): before count nodes it was expanded
#: into every 3-subset of the apartment's movables.
COUNTING_GOAL = "(at-least 3 (?x - movable) (on ?x ?s))"
#: The raised atom limit the old expansion is also timed under, to finish at all, and
#: the surfaces it is timed on (each of its goals takes most of a second).
COUNTING_RAISED_LIMIT = 1_000_000
COUNTING_EXPANDED_SURFACES = 3


def counting_run(scene_path: str, limit: int | None) -> dict[str, Any]:
    """Ground `COUNTING_GOAL` on every surface of the scene, natively and by the old
    subset expansion (under the default atom limit, and `limit` when given), in this
    process: seconds (CPU) and atom occurrences per goal, or the limit error (the raised
    expansion on the first `COUNTING_EXPANDED_SURFACES` surfaces only)."""
    import tempfile

    from fdc.compiler.ground import GroundLimitError, ground
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries
    from fdc.core.hashing import scene_sha256
    from fdc.predicates.goal import atoms
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "counting.pddl"
        path.write_text(f"""(define (template three-on)
  (:domain fdc-home)
  (:parameters ?s - surface)
  (:goal {COUNTING_GOAL})
  (:instruction "Put three things on {{{{ s | ref }}}}."))
""")
        entries, result = load_entries([str(path)])
    assert not result.errors, result.errors
    [entry] = entries
    graph = load_scene_graph(scene_path)
    compiler = SceneCompiler(graph, scene_path, scene_sha256(graph.scene))
    facts = compiler.facts(entry.domain)
    assert entry.template.goal is not None
    surfaces = list(facts.entities(("surface",)))

    def run(expand: bool, max_atoms: int | None, n: int = len(surfaces)) -> dict[str, Any]:
        size = 0
        t0 = time.process_time()
        try:
            for s in surfaces[:n]:
                g = ground(entry.template.goal, {"s": s}, facts, max_atoms=max_atoms,
                           expand_counts=expand).goal
                size += 0 if g is None else sum(1 for _ in atoms(g))
        except GroundLimitError as e:
            return {"seconds": time.process_time() - t0, "error": str(e), "count": e.count}
        return {"seconds": (time.process_time() - t0) / n, "atoms": size / n}

    run(False, None)  # warm-up: imports, the facts' tables
    out = {"surfaces": len(surfaces), "movables": len(facts.entities(("movable",))),
           "native": run(False, None), "expanded": run(True, None)}
    if limit is not None:
        out["expanded_raised"] = run(True, limit, COUNTING_EXPANDED_SURFACES)
    return out


def section_counting(args: argparse.Namespace, console: Console) -> tuple[bool, dict[str, Any]]:
    """`COUNTING_GOAL` on the bundled apartment: count nodes against the old expansion,
    as ratios measured in one process."""
    scene = str(Path(__file__).resolve().parents[1] / "examples" / "scenes" / "apartment.json")
    got = counting_run(scene, None if args.quick else COUNTING_RAISED_LIMIT)
    native = got["native"]
    table = Table(title=f"{COUNTING_GOAL} on the apartment, per surface "
                        f"({got['surfaces']} surfaces, {got['movables']} movables)")
    for col in ("encoding", "ms per goal", "atoms per goal", "time / native", "size / native"):
        table.add_column(col, justify="right")
    table.add_row("count node", f"{1000 * native['seconds']:.3f}", f"{native['atoms']:.0f}",
                  "1", "1")
    for key, label in (("expanded", "expansion, default limit"),
                       ("expanded_raised", f"expansion, limit {COUNTING_RAISED_LIMIT:,}")):
        r = got.get(key)
        if r is None:
            continue
        if "error" in r:
            table.add_row(label, "-", f"over the limit (needs {r['count']:,})", "-", "-")
        else:
            table.add_row(label, f"{1000 * r['seconds']:.1f}", f"{r['atoms']:,.0f}",
                          f"{r['seconds'] / native['seconds']:.1f}",
                          f"{r['atoms'] / native['atoms']:.1f}")
    console.print(table)
    return "error" not in native, got


# ---------------------------------------------------------------------------- main

Section = Callable[[argparse.Namespace, Console], tuple[bool, dict[str, Any]]]

#: The benchmark's sections, run in this order by `--section all`. Each takes the parsed
#: arguments and the console, prints its own table, and returns whether its targets
#: are met and a JSON-able record. A new section registers here (and adds its options
#: to `main`'s parser).
SECTIONS: dict[str, Section] = {"grounding": section_grounding, "library": section_library,
                                "counting": section_counting}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--section", choices=[*SECTIONS, "all"], default="all")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tool (best counts)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a run may take")
    parser.add_argument("--quick", action="store_true", help="smaller goals: a smoke run")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check fdc's ground goals against BDDL on small random goals",
    )
    parser.add_argument("--instances", type=int, default=300, help="random goals for --check")
    parser.add_argument("--seed", type=int, default=0, help="seed for --check")
    args = parser.parse_args(argv)

    console = Console(highlight=False, width=max(Console().width, 170))
    console.print(
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs"
    )
    if args.check:
        return 0 if run_check(args, console) else 1
    chosen = list(SECTIONS) if args.section == "all" else [args.section]
    met_all = True
    records: dict[str, Any] = {}
    for name in chosen:
        met, records[name] = SECTIONS[name](args, console)
        met_all &= met
    if args.json is not None:
        args.json.write_text(json.dumps(records, indent=2, default=str) + "\n")
    console.print("[green]targets met" if met_all else "[red]targets missed")
    return 0 if met_all else 1


if __name__ == "__main__":
    sys.exit(main())
