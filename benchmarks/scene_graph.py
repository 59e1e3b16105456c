"""Scene-graph build time against scene size, and its growth exponent.

Generates scenes of 100, 300, 1,000 and 3,000 objects (one room per 25 objects, fixed
seed), builds each scene graph a few times, takes the best time, and fits
log(time) = k * log(objects) + c. Targets: k <= 1.3 and 1,000 objects under 5 s.

    .venv/bin/python benchmarks/scene_graph.py [--repeat 3] [--sizes 100 300 1000 3000]

Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.scene.generate import generate_scene


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = []
    print(f"{'objects':>8} {'rooms':>6} {'surfaces':>9} {'regions':>8} {'stands':>7} "
          f"{'nav nodes':>10} {'build s':>8}  slowest passes")
    for n in args.sizes:
        scene = generate_scene(max(2, n // 25), n, seed=args.seed)
        best = float("inf")
        graph = None
        for _ in range(args.repeat):
            t = time.perf_counter()
            graph = build_scene_graph(scene)
            best = min(best, time.perf_counter() - t)
        assert graph is not None
        s = graph.summary()
        top = sorted(graph.timings.items(), key=lambda kv: -kv[1])[:3]
        passes = ", ".join(f"{k} {v:.2f}" for k, v in top)
        print(f"{len(scene.objects):>8} {len(scene.rooms):>6} {s['surfaces']:>9} "
              f"{s['anchor_regions']:>8} {s['standing_points']:>7} {s['nav_nodes']:>10} "
              f"{best:>8.3f}  {passes}")
        rows.append((len(scene.objects), best))
    sizes = np.log([r[0] for r in rows])
    times = np.log([r[1] for r in rows])
    k, _ = np.polyfit(sizes, times, 1)
    print(f"fitted growth exponent: {k:.2f} (target <= 1.3)")
    ok = k <= 1.3
    near_1000 = [t for n, t in rows if 900 <= n <= 1100]
    if near_1000:
        print(f"about 1,000 objects: {near_1000[0]:.2f} s (target < 5 s)")
        ok = ok and near_1000[0] < 5.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
