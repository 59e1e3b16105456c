"""`fdc audit --no-pixels` on a sample of compiled BEHAVIOR-1K tasks: do the models agree?

Samples activities of the corpus `fdc import bddl --corpus` imports check-clean (`--seed`,
one task per activity), generates each one's house (`fdc scene generate --from-bddl`),
compiles its template there (`fdc compile --max-per-template 1`) until `--sample` tasks
are compiled, audits the suite (`fdc audit --no-pixels --format json`) and prints the
agreements and the disagreements by check and reason (the reason: the detail with its
object names left out). The figure in docs/bddl.md comes from this script.

    python benchmarks/bddl_audit.py --sample 100
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.importer import import_files
from fdc.interop.bddl.scene import generate_from_activity
from fdc.interop.bddl.vocabulary import build_vocabulary

FDC = str(Path(sys.executable).parent / "fdc")


def reason(check: str, detail: str) -> str:
    """A disagreement's detail without object names (`apple_0`, `(on-top-of a b)`)."""
    text = re.sub(r"\([a-z-]+( [^()]+)?\)", lambda m: m.group(0).split()[0] + ")", detail)
    text = re.sub(r"`[A-Za-z0-9_|#:.-]*_[0-9]+`", "`ITEM`", text)
    return f"{check}: {text[:110]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, default=100, help="this many tasks")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write the audit's disagreements")
    ap.add_argument("--at", type=str, default="",
                    help="also print the figures of the first N tasks (comma-separated Ns: "
                    "the sample of that size, as the same seed draws it)")
    args = ap.parse_args()
    t0 = time.process_time()
    files = activity_files([], corpus=True)
    activities = {a.name: a for a in read_activities(files) if isinstance(a, Activity)}
    result = import_files(files)
    vocab = build_vocabulary(list(activities.values()), read_home())
    names = sorted(t.activity for t in result.templates)
    random.Random(args.seed).shuffle(names)
    templates = {t.activity: t.name for t in result.templates}
    texts = result.files()
    domain = next(rel for rel in texts if rel.endswith(".pddl") and "/" not in rel)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tasks = agreements = 0
        dis: list[dict[str, object]] = []
        marks = sorted(int(x) for x in args.at.split(",") if x.strip())
        for name in names:
            if tasks >= args.sample:
                break
            gen = generate_from_activity(activities[name], vocab, seed=args.seed)
            here = root / name
            (here / "t" / "templates").mkdir(parents=True)
            (here / "t" / domain).write_text(texts[domain])
            rel = next(r for r in texts if r.endswith(f"/{templates[name]}.pddl"))
            (here / "t" / "templates" / Path(rel).name).write_text(texts[rel])
            (here / "scene.json").write_text(gen.scene.to_json())
            done = subprocess.run([FDC, "compile", "scene.json", "-T", "t",
                                   "--max-per-template", "1", "--seed", str(args.seed),
                                   "-o", "suite.jsonl"], capture_output=True, text=True,
                                  cwd=here)
            suite = here / "suite.jsonl"
            if done.returncode != 0 or not suite.exists() or not suite.read_text().strip():
                continue
            done = subprocess.run([FDC, "audit", "suite.jsonl", "--no-pixels", "--format",
                                   "json"], capture_output=True, text=True, cwd=here)
            report = json.loads(done.stdout)
            tasks += report["tasks"]
            agreements += report["agreements"]
            dis += report["disagreements"]
            while marks and tasks >= marks[0]:
                print(f"first {tasks} tasks: {agreements} agreements, {len(dis)} disagreements "
                      f"on {len({d['task'] for d in dis})} tasks", flush=True)
                marks.pop(0)
            if tasks % 10 == 0:
                print(f"  {tasks} tasks audited", file=sys.stderr)
    by: Counter[str] = Counter(reason(str(d["check"]), str(d["detail"])) for d in dis)
    print(f"fdc audit --no-pixels on {tasks} tasks: {agreements} "
          f"agreements, {len(dis)} disagreements on "
          f"{len({d['task'] for d in dis})} tasks (CPU {time.process_time() - t0:.0f} s "
          "in this process, more in fdc's)")
    for why, n in by.most_common():
        print(f"  {n:4d}  {why}")
    if args.json is not None:
        args.json.write_text(json.dumps(dis, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
