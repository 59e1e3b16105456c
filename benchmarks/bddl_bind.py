"""How many BEHAVIOR-1K activities bind into an existing fdc scene (`fdc scene bind SCENE
--from-bddl ACTIVITY`), how many of those compile to a task there, and why the others
refuse.

Every activity `fdc import bddl --corpus` imports check-clean: bound into each scene given
(by default examples/scenes/apartment.json), then its imported template compiled on the
bound scene with one task at most (as benchmarks/bddl_scenes.py does on the generated
houses). Refusals are counted by their reason (`BindError.kind`). The figures in
docs/bddl.md come from this script.

    python benchmarks/bddl_bind.py                         # the apartment
    python benchmarks/bddl_bind.py SCENE.json [SCENE.json ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

from fdc.compiler.options import CompileOptions
from fdc.compiler.pipeline import compile_template
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.interop.bddl.bind import BindError, bind_activity
from fdc.sim_bridge.graph.scene_graph import build_scene_graph, load_scene_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bddl_corpus import read_corpus  # a benchmark beside this one

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenes", nargs="*", type=Path,
                    default=[ROOT / "examples" / "scenes" / "apartment.json"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write per-activity outcomes")
    args = ap.parse_args()
    t0 = time.process_time()
    corpus = read_corpus()
    activities, vocab, by_name, templates = (corpus.activities, corpus.vocab, corpus.entries,
                                             corpus.templates)
    names = sorted(templates)
    options = CompileOptions(seed=args.seed, max_per_template=1)
    outcomes: dict[str, dict[str, object]] = {}
    for scene_path in args.scenes:
        scene = load_scene_graph(scene_path).scene
        refusals: Counter[str] = Counter()
        compile_fail: Counter[str] = Counter()
        bound = compiled = 0
        for name in names:
            try:
                gen = bind_activity(scene, activities[name], vocab, seed=args.seed)
            except BindError as e:
                refusals[e.kind] += 1
                outcomes[f"{scene_path.name}:{name}"] = {"refused": e.kind, "why": str(e)}
                continue
            bound += 1
            text = gen.scene.to_json()
            graph = build_scene_graph(gen.scene)
            compiler = SceneCompiler(graph, f"{name}.json",
                                     hashlib.sha256(text.encode()).hexdigest(),
                                     options=options)
            report = compile_template(compiler, by_name[templates[name]])
            if report.tasks:
                compiled += 1
            else:
                why = (f"error: {report.error.split(':')[0]}" if report.error else
                       report.drops.most_common(1)[0][0] if report.drops else "no binding")
                compile_fail[why] += 1
            outcomes[f"{scene_path.name}:{name}"] = {"tasks": report.tasks,
                                                     "left_out": gen.left_out}
        n = len(names)
        print(f"{scene_path}: {bound} of {n} activities ({100 * bound / n:.1f}%) bind; "
              f"{compiled} of those compile to at least one task "
              f"({time.process_time() - t0:.0f} CPU s so far)")
        for why, k in refusals.most_common():
            print(f"  refused {k:4d}  {why}")
        for why, k in compile_fail.most_common():
            print(f"  bound, no task {k:4d}  {why}")
    if args.json is not None:
        args.json.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
