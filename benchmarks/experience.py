"""Simulated-experience time against scene size, as a ratio of the scene-graph build time.

Builds the example apartment and generated scenes of 300, 1,000 and 3,000 objects (one
room per 25 objects, fixed seed), then simulates an oracle's experience on each
(`simulate_experience`, 5 interactions by default), and prints per scene: frames, the
build time, the experience time, their ratio, and the time per frame (also as a ratio
of the build time per object). Both times are the best of `--repeat` runs in this
process, so the ratios hold from one machine to the next. Target: from 1,000 objects
on, the experience costs no more than building the scene graph it runs in.

    .venv/bin/python benchmarks/experience.py [--sizes 300 1000 3000] [--interactions 5]

Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.generate import generate_scene
from fdc.sim_bridge.scene.load import load_scene
from fdc.sim_bridge.scene.schema import Scene
from fdc.sim_bridge.world.simulate import simulate_experience

APARTMENT = Path(__file__).parents[1] / "examples" / "scenes" / "apartment.json"
TARGET_RATIO = 1.0
T = TypeVar("T")


def best(repeat: int, run: Callable[[], T]) -> tuple[float, T]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t)
    assert out is not None
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 3000])
    ap.add_argument("--interactions", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    scenes: list[tuple[str, Scene]] = []
    loaded = load_scene(APARTMENT)
    if loaded.scene is not None:
        scenes.append(("apartment", loaded.scene))
    scenes += [(f"generated {n}", generate_scene(max(2, n // 25), n, seed=args.seed))
               for n in args.sizes]
    print(f"{'scene':>15} {'objects':>8} {'frames':>7} {'build s':>8} {'exp s':>7} "
          f"{'exp/build':>10} {'ms/frame':>9} {'frame/(build/object)':>21}")
    ok = True
    for name, scene in scenes:
        t_build, graph = best(args.repeat, lambda s=scene: build_scene_graph(s))  # type: ignore[misc]
        assert isinstance(graph, SceneGraph)
        t_exp, log = best(args.repeat, lambda g=graph: simulate_experience(  # type: ignore[misc]
            g, interactions=args.interactions, seed=args.seed))
        n_obj, n_frames = len(scene.objects), len(log.frames)
        per_frame = t_exp / n_frames
        ratio = t_exp / t_build
        print(f"{name:>15} {n_obj:>8} {n_frames:>7} {t_build:>8.2f} {t_exp:>7.2f} "
              f"{ratio:>10.2f} {per_frame * 1e3:>9.2f} {per_frame / (t_build / n_obj):>21.2f}")
        if n_obj >= 900 and ratio > TARGET_RATIO:
            print(f"  missed: the experience takes {ratio:.2f} x the build (target "
                  f"<= {TARGET_RATIO})")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
