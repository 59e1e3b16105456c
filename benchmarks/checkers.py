"""Checker throughput: atom evaluations per second on a generated 1,000-object scene.

Geometric checkers (`on`, `in-room`, `in-cell`, `robot-in-room`) are run batched
(`Registry.evaluate_many`, one numpy pass per predicate) and against a plain per-atom
Python loop in the same process (scalar maths and one shapely point test per atom: the
way a checker is written without batching); `registry.evaluate` called atom by atom is
shown too. Symbolic checkers (static, history) are atom-by-atom by design. The state is
a recorded snapshot (`SnapshotState`) of the scene as generated.

    .venv/bin/python benchmarks/checkers.py [--objects 1000] [--atoms 20000] [--seed 0]

Target: batched geometric atoms at least 10x the per-atom loop (exit code 1 otherwise).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context, Registry
from fdc.sim_bridge.geometry import quaternion_to_matrix
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.scene.generate import generate_scene
from fdc.sim_bridge.world.experience import ExperienceRecorder
from fdc.sim_bridge.world.snapshot import SnapshotState
from fdc.sim_bridge.world.state import AgentPose, Snapshot

Atom = tuple[str, ...]


def best_rate(fn: Callable[[], object], atoms: int, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return atoms / best


# ----- the plain per-atom loop (scalar maths, one shapely test per atom) -------------------
def loop_on(ctx: Context, atoms: Sequence[Atom], top: float = 0.15, below: float = 0.02
            ) -> list[bool]:
    import shapely

    g, st = ctx.graph, ctx.state
    assert st is not None
    out = []
    for o, s in atoms:
        p = st.object_pose(o)
        m = quaternion_to_matrix(p.orientation)
        half_z = sum(abs(m[2, k]) * p.size[k] for k in range(3)) / 2
        surf = g.surface(s)
        gap = p.position[2] - half_z - surf.z
        out.append(st.held_object() != o and -below <= gap <= top and
                   bool(surf.polygon.contains(shapely.Point(p.position[0], p.position[1]))))
    return out


def loop_in_room(ctx: Context, atoms: Sequence[Atom]) -> list[bool]:
    import shapely

    g, st = ctx.graph, ctx.state
    assert st is not None
    out = []
    for o, r in atoms:
        p = st.object_pose(o).position
        room = g.room(r)
        out.append(bool(room.polygon.contains(shapely.Point(p[0], p[1])))
                   and room.floor_z - 0.05 <= p[2] <= room.floor_z + room.height_m)
    return out


def loop_in_cell(ctx: Context, atoms: Sequence[Atom]) -> list[bool]:
    from fdc.sim_bridge.graph.regions import STEP, Direction

    g, st = ctx.graph, ctx.state
    assert st is not None
    on = loop_on(ctx, [(o, s) for o, s, _ in atoms])
    out = []
    for ok, (o, s, c) in zip(on, atoms, strict=True):
        surf = g.surface(s)
        p = st.object_pose(o).position
        dx, dy = p[0] - surf.origin[0], p[1] - surf.origin[1]
        cs, sn = math.cos(surf.yaw_rad), math.sin(surf.yaw_rad)
        uv = (cs * dx + sn * dy, -sn * dx + cs * dy)
        good = ok
        for k, step in enumerate(STEP[Direction(c)]):
            h = surf.half_extents[k]
            lo, hi = {1: (h / 3, h), 0: (-h / 3, h / 3), -1: (-h, -h / 3)}[step]
            good = good and lo - 1e-9 <= uv[k] <= hi + 1e-9
        out.append(good)
    return out


def loop_robot_in_room(ctx: Context, atoms: Sequence[Atom]) -> list[bool]:
    import shapely

    st = ctx.state
    assert st is not None
    out = []
    for (r,) in atoms:
        a = st.agent_pose()
        room = ctx.graph.room(r)
        out.append(bool(room.polygon.contains(shapely.Point(a.x, a.y)))
                   and room.floor_z - 0.05 <= a.z <= room.floor_z + room.height_m)
    return out


def atoms_for(g: SceneGraph, n: int, rng: np.random.Generator) -> dict[str, list[Atom]]:
    movable = [o.id for o in g.objects() if o.is_movable]
    surfaces = [s.id for s in g.surfaces()]
    rooms = [r.id for r in g.rooms()]
    cells = ["front-left", "front", "front-right", "left", "center", "right", "rear-left",
             "rear", "rear-right"]
    parent = {o: g.object(o).parent_surface or surfaces[0] for o in movable}

    def pick(seq: Sequence[str], k: int) -> list[str]:
        return [seq[i] for i in rng.integers(0, len(seq), k)]

    half = n // 2  # half the atoms true-ish (the item's own surface), half random
    mv = pick(movable, n)
    own = [(o, parent[o]) for o in mv[:half]] + list(zip(mv[half:], pick(surfaces, n - half),
                                                        strict=True))
    return {
        "on": own,
        "in-room": list(zip(mv, [g.object(o).room or rooms[0] for o in mv[:half]]
                            + pick(rooms, n - half), strict=True)),
        "in-cell": [(o, s, c) for (o, s), c in zip(own, pick(cells, n), strict=True)],
        "robot-in-room": [(r,) for r in pick(rooms, n)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", type=int, default=1000)
    ap.add_argument("--atoms", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t = time.perf_counter()
    scene = generate_scene(max(2, args.objects // 25), args.objects, seed=args.seed)
    g = build_scene_graph(scene)
    build_s = time.perf_counter() - t
    a = scene.agent
    snap = Snapshot(step=0, time_min=600.0,
                    agent=AgentPose(x=a.position[0], y=a.position[1], yaw_rad=a.yaw_rad))
    state = SnapshotState(g, snap)
    reg: Registry = default_registry()
    movable = [o.id for o in g.objects() if o.is_movable]
    rec = ExperienceRecorder(scene=scene.name)
    pose = snap.agent
    for k in range(40):
        rec.frame(600 + k, pose, room=g.rooms()[k % len(g.rooms())].id)
        if k % 4 == 1:
            rec.pick(movable[k], g.object(movable[k]).parent_surface)
        elif k % 4 == 2:
            rec.place(movable[k - 1], g.object(movable[k - 1]).parent_surface)
    ctx = Context(graph=g, state=state, experience=rec.finish())
    print(f"scene: {len(scene.objects)} objects, {len(g.rooms())} rooms, "
          f"{len(g.surfaces())} surfaces (built in {build_s:.1f} s); {args.atoms} atoms "
          "per predicate; best of", args.repeat)
    print(f"{'geometric':<16} {'batched/s':>12} {'loop/s':>10} {'evaluate/s':>11} "
          f"{'batch:loop':>11} {'true':>6}")
    loops = {"on": loop_on, "in-room": loop_in_room, "in-cell": loop_in_cell,
             "robot-in-room": loop_robot_in_room}
    atoms = atoms_for(g, args.atoms, rng)
    ratios = []
    for name, fn in loops.items():
        rows = atoms[name]
        batched = reg.evaluate_many(name, rows, ctx)
        plain = fn(ctx, rows)
        if batched.tolist() != plain:
            print(f"{name}: batched and loop disagree on "
                  f"{int(np.sum(batched != np.array(plain)))} atoms")
            return 1
        rb = best_rate(lambda n=name, r=rows: reg.evaluate_many(n, r, ctx), len(rows), args.repeat)
        rl = best_rate(lambda f=fn, r=rows: f(ctx, r), len(rows), args.repeat)
        few = rows[:2000]
        re = best_rate(lambda n=name, r=few: [reg.evaluate(n, x, ctx) for x in r], len(few), 1)
        ratios.append(rb / rl)
        print(f"{name:<16} {rb:>12,.0f} {rl:>10,.0f} {re:>11,.0f} {rb / rl:>10.1f}x "
              f"{int(batched.sum()):>6}")
    print(f"{'symbolic':<16} {'evaluate/s':>12}")
    colors = ["red", "blue", "white", "green", "brown"]
    sym = {
        "has-color": [(o, colors[i % 5]) for i, o in enumerate(movable[:args.atoms])],
        "is-category": [(o, "mug") for o in movable[:args.atoms]],
        "interacted": [(o,) for o in movable[:args.atoms]],
    }
    for name, rows in sym.items():
        r = best_rate(lambda n=name, x=rows: [reg.evaluate(n, a, ctx) for a in x], len(rows),
                      args.repeat)
        print(f"{name:<16} {r:>12,.0f}")
    worst = min(ratios)
    print(f"batched geometric vs per-atom loop: worst {worst:.1f}x, "
          f"geometric mean {math.exp(np.mean(np.log(ratios))):.1f}x (target >= 10x)")
    return 0 if worst >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
