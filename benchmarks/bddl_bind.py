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
import tempfile
import time
from collections import Counter
from pathlib import Path

from fdc.compiler.options import CompileOptions
from fdc.compiler.pipeline import compile_template
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.templates import load_entries
from fdc.interop.bddl.bind import BindError, bind_activity
from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.importer import import_files
from fdc.interop.bddl.vocabulary import build_vocabulary
from fdc.sim_bridge.graph.scene_graph import build_scene_graph, load_scene_graph

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenes", nargs="*", type=Path,
                    default=[ROOT / "examples" / "scenes" / "apartment.json"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write per-activity outcomes")
    args = ap.parse_args()
    t0 = time.process_time()
    files = activity_files([], corpus=True)
    activities = {a.name: a for a in read_activities(files) if isinstance(a, Activity)}
    result = import_files(files)
    vocab = build_vocabulary(list(activities.values()), read_home())
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in result.files().items():
            path = Path(tmp) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        entries, _ = load_entries([tmp])
    by_name = {e.name: e for e in entries}
    templates = {t.activity: t.name for t in result.templates}
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
