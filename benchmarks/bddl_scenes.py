"""How many BEHAVIOR-1K activities compile to tasks on the house generated from their
`:init` (`fdc scene generate --from-bddl`), and why the others do not.

Every activity `fdc import bddl --corpus` imports check-clean (or a sample of them, with
`--sample N`, drawn with `--seed`): its house generated, its template compiled there with
one task at most, as `fdc compile` does it (the oracle's witness asked of the goals the
geometric rules cannot decide; `--no-witness` as `fdc compile --no-witness`); an activity
counts when at least one task comes out. The others are
counted by the first reason the compile gives (a template error, the drop that removed
the most bindings, or no binding at all). Prints a table and, with `--json`, the
per-activity outcomes. The figure in docs/bddl.md comes from this script.

    python benchmarks/bddl_scenes.py            # the whole corpus (about 15 min on 2 cores)
    python benchmarks/bddl_scenes.py --sample 200
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

from fdc.compiler.options import CompileOptions
from fdc.compiler.pipeline import compile_template
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.interop.bddl.scene import generate_from_activity
from fdc.sim_bridge.graph.scene_graph import build_scene_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bddl_corpus import read_corpus  # a benchmark beside this one


def outcome(report) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    if report.error:
        return 0, f"error: {report.error.split(':')[0]}"
    if report.tasks:
        return report.tasks, "ok"
    if report.drops:
        key, _ = report.drops.most_common(1)[0]
        return 0, key
    return 0, "no binding"


def round_trip(record, compiler) -> str:  # type: ignore[no-untyped-def]
    """`same goal`, or why the task did not come back from BDDL as it went."""
    import contextlib
    import io

    from bddl.parsing import parse_problem

    from fdc.interop.bddl.export import COUNT_LIMIT, export_record, goal_from_bddl
    from fdc.interop.bddl.names import corpus_names
    from fdc.predicates.algebra import NotExpressible, expand_counts, junction_parts
    from fdc.predicates.goal import GAnd

    try:
        p = export_record(record, compiler.graph, compiler.states["initial"],
                          compiler.registry, corpus_names())
    except NotExpressible as e:
        why = str(e)
        return "not expressible: " + (why if "no counterpart" in why
                                      else re.sub(r"`[^`]*`", "X", why))
    with contextlib.redirect_stdout(io.StringIO()):
        _, _, _, goal = parse_problem("export", 0, "omnigibson", predefined_problem=p.text)
    goal_sent = expand_counts(record.goal, COUNT_LIMIT)  # BDDL has no counts: connectives
    want = GAnd(parts=tuple(junction_parts(goal_sent, "and")))
    if goal_from_bddl(goal, p.instances) == want:
        return "same goal"
    return f"goal differs: {record.id}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, default=None, help="this many activities at most")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write per-activity outcomes")
    ap.add_argument("--export", action="store_true", help="also export each task to BDDL "
                    "(`fdc export bddl`), read it back with the `bddl` package's parser and "
                    "compare its goal with the task's")
    ap.add_argument("--no-witness", action="store_true", help="keep the goals `fdc compile` "
                    "asks the oracle's witness of (a state to change, items by anchors) "
                    "unasked, as `fdc compile --no-witness`")
    args = ap.parse_args()
    t0 = time.perf_counter()
    corpus = read_corpus()
    activities, result, vocab, by_name = (corpus.activities, corpus.result, corpus.vocab,
                                          corpus.entries)
    names = sorted(t.activity for t in result.templates)
    total = len(names)
    if args.sample is not None and args.sample < total:
        names = sorted(random.Random(args.seed).sample(names, args.sample))
    print(f"{total} activities imported check-clean; compiling {len(names)} "
          f"({time.perf_counter() - t0:.0f} s to import)", file=sys.stderr)
    templates = corpus.templates
    outcomes: dict[str, dict[str, object]] = {}
    reasons: Counter[str] = Counter()
    exports: Counter[str] = Counter()
    from fdc.agents.oracle import witness  # as `fdc compile` hands it down

    options = CompileOptions(seed=args.seed, max_per_template=1,
                             witness=None if args.no_witness else witness)
    for i, name in enumerate(names):
        gen = generate_from_activity(activities[name], vocab, seed=args.seed)
        text = gen.scene.to_json()
        graph = build_scene_graph(gen.scene)
        compiler = SceneCompiler(graph, f"{name}.json",
                                 hashlib.sha256(text.encode()).hexdigest(), options=options)
        report = compile_template(compiler, by_name[templates[name]])
        tasks, why = outcome(report)
        if args.export:
            for r in report.records:
                exports[round_trip(r, compiler)] += 1
        reasons[why] += 1
        outcomes[name] = {"tasks": tasks, "reason": why, "left_out": gen.left_out}
        if (i + 1) % 50 == 0:
            print(f"  {i + 1}/{len(names)}: {reasons['ok']} with a task "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    ok = reasons.pop("ok", 0)
    print(f"{ok} of {len(names)} activities ({100 * ok / len(names):.1f}%) compile to at "
          f"least one task on their generated house ({time.perf_counter() - t0:.0f} s)")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    if args.export:
        same = exports.pop("same goal", 0)
        print(f"exported to BDDL: {same} of {same + sum(exports.values())} tasks parse in "
              "BDDL and read back as their goal")
        for why, n in exports.most_common():
            print(f"  {n:4d}  {why}")
    if args.json is not None:
        args.json.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
