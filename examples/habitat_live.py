"""Check an fdc task live in habitat-lab, and record the run for `fdc verify`.

Needs habitat-sim and habitat-lab (see docs/habitat.md) and a rearrangement config whose
episodes you have, e.g.:

    python examples/habitat_live.py \\
        --config benchmark/rearrange/skills/pick.yaml --out runs/pick \\
        --override habitat.environment.max_episode_steps=500

Steps:
1. habitat-lab's `Env` loads the first episode into its `RearrangeSim`;
2. fdc imports that episode's scene (`scene.json`) and compiles ManiTaskGen's level-1
   "move an item to an empty surface" template on it (`suite.jsonl`);
3. the first task is carried out with oracle (kinematic) moves: the base goes to the
   navmesh beside the item, the grasp manager snaps the item into the hand, the base goes
   beside the surface, the item is set on it and physics settles it; each move is
   recorded by `HabitatWorldState`;
4. the goal is checked live with fdc's checkers, the agent stops, and the run is written
   to `run.jsonl`, which `fdc verify OUT/suite.jsonl -t OUT/run.jsonl` judges offline.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from fdc.compiler.options import CompileOptions
from fdc.compiler.prepare import SceneJob
from fdc.compiler.shards import compile_sharded, emit_sharded, suite_records
from fdc.compiler.suite import TaskRecord
from fdc.compiler.templates import load_entries
from fdc.core.problems import render_text
from fdc.predicates.builtin import default_registry
from fdc.predicates.registry import Context
from fdc.predicates.verify import evaluate
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.habitat import import_habitat
from fdc.sim_bridge.habitat.dataset import short_name
from fdc.sim_bridge.habitat.importer import zup_to_yup_point
from fdc.sim_bridge.habitat.live import HabitatWorldState

TEMPLATE = "l1-to-surface"
STEP_M = 0.25  # one clock step per 0.25 m walked, as fdc's embedded world counts


def import_scene(episode: Any, out: Path) -> tuple[Path, SceneGraph]:
    """The episode's scene as fdc's scene.json and scene graph."""
    result = import_habitat(episode.scene_dataset_config, short_name(episode.scene_id), out)
    for f in result.findings:
        print(render_text(f), file=sys.stderr)
    if not result.ok or result.scene is None:
        raise SystemExit(f"cannot import {episode.scene_id}")
    path = out / "scene.json"
    path.write_text(result.scene.to_json(), encoding="utf-8")
    return path, build_scene_graph(result.scene, base_dir=out)


def compile_tasks(scene_path: Path, out: Path) -> list[TaskRecord]:
    """The level-1 surface template of fdc's built-in library, compiled on the scene."""
    entries, _ = load_entries(None)
    entries = [e for e in entries if e.name == TEMPLATE]
    options = CompileOptions(seed=0, max_per_template=25)
    run = compile_sharded([SceneJob(str(scene_path), simulate=False)], entries, options)
    emit_sharded(out / "suite.jsonl", run, entries, options)
    return suite_records(run, entries)


def goal_holds(task: TaskRecord, live: HabitatWorldState) -> bool:
    """The task's goal on the simulator as it is now, by fdc's registered checkers."""
    registry = default_registry()
    ctx = Context(graph=live.graph).with_state(live)
    if task.thresholds:
        ctx = ctx.with_thresholds(task.thresholds, registry)
    return evaluate(task.goal, 0, lambda a, _i: registry.evaluate(a.predicate, a.args, ctx))


def walk_to(sim: Any, live: HabitatWorldState, target: np.ndarray, label: str) -> None:
    """Put the base on the navmesh beside a Habitat point, facing it; record the walk."""
    agent = sim.articulated_agent
    start = np.array(agent.base_pos, dtype=np.float64)
    stand = np.array(sim.pathfinder.snap_point(target), dtype=np.float64)
    if not np.all(np.isfinite(stand)):
        raise SystemExit(f"no navmesh near {label}")
    agent.base_pos = stand
    # base_rot turns the agent's forward +X about +Y: heading (cos r, 0, -sin r).
    agent.base_rot = math.atan2(-(target[2] - stand[2]), target[0] - stand[0])
    walked = float(np.linalg.norm((stand - start)[[0, 2]]))
    live.record(f"navigate {label}", steps=max(1, math.ceil(walked / STEP_M)))


def run(task: TaskRecord, sim: Any, live: HabitatWorldState) -> None:
    item, surface = task.bindings["?o"], task.bindings["?s"]
    obj = sim.get_rigid_object_manager().get_object_by_handle(live.names.handle(item))
    walk_to(sim, live, np.array(obj.translation, dtype=np.float64), item)
    sim.grasp_mgr.snap_to_obj(obj.object_id)
    live.record(f"pick {item}")
    s = live.graph.surface(surface)
    top = zup_to_yup_point((s.origin[0], s.origin[1], s.z))
    walk_to(sim, live, top, surface)
    sim.grasp_mgr.desnap(force=True)
    lowest = float(obj.aabb.min[1])
    obj.translation = top + np.array([0.0, 0.02 - lowest, 0.0])
    sim.step_physics(1.0)  # let it settle
    live.record(f"place {item} on {surface}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--config", required=True, help="a habitat-lab rearrangement config")
    parser.add_argument("--override", action="append", default=[], help="KEY=VALUE")
    parser.add_argument("--out", type=Path, default=Path("habitat_run"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    import habitat  # the `fdc[habitat]` extra, with habitat-sim from conda

    env = habitat.Env(config=habitat.get_config(args.config, overrides=args.override))
    env.reset()
    sim = env.sim
    scene_path, graph = import_scene(env.current_episode, args.out)
    tasks = compile_tasks(scene_path, args.out)
    if not tasks:
        raise SystemExit(f"{TEMPLATE} makes no task on {scene_path}")
    task = tasks[0]
    print(f"task {task.id}: {task.instructions[0]}  goal {task.goal_pddl}")

    live = HabitatWorldState(sim, graph)
    print(f"before: goal holds = {goal_holds(task, live)}")
    run(task, sim, live)
    item = task.bindings["?o"]
    print(f"after:  goal holds = {goal_holds(task, live)} ({item} rests on "
          f"{live.support_of(item)})")
    live.record("stop")
    live.write(args.out / "run.jsonl", scene="scene.json")
    print(f"wrote {args.out / 'run.jsonl'}; check it offline with:\n"
          f"  fdc verify {args.out / 'suite.jsonl'} -t {args.out / 'run.jsonl'} "
          f"--task {task.id}")
    env.close()


if __name__ == "__main__":
    main()
