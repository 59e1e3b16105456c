"""`fdc render` speed: frames a second on one core at 640x480 (RGB + linear depth +
object ids, read back to numpy), for three scenes, and the peak resident memory.

    python benchmarks/render.py [--frames N] [--work DIR] [--screenshots DIR]

Scenes: the example apartment (boxes), a generated scene with 150 objects (`fdc scene
generate --rooms 4 --objects 170 --seed 0`: 151 objects), and a Habitat fixture scene with meshes
(../shared/fixtures: the simple_room stage, chairs with their texture, donuts, spheres and
the ReplicaCAD fridge, imported with `fdc.sim_bridge.habitat.import_habitat`). Each scene
is rendered from N poses along a walk through it (the robot's own frames when an
experience can be simulated), after one warm-up frame. llvmpipe runs on one thread
(`LP_NUM_THREADS=1`), so a frame uses one core; frames/s are given per wall-clock second
and per CPU second of the process (the second is the machine's speed when other
processes share its cores). Timings are reported, not asserted. `--screenshots DIR`
writes one small PNG of each scene (docs/images/).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURES = REPO.parent / "shared" / "fixtures" / "habitat" / "habitat-sim" / "data" / \
    "test_assets"


def habitat_fixture_scene(work: Path) -> Path:
    """A Habitat scene dataset from the fixtures' assets (copied into `work`, so that the
    scene's mesh paths stay inside its folder), imported into `work`."""
    import shutil

    from fdc.sim_bridge.habitat import import_habitat

    assets = work / "assets"
    for sub in ("scenes", "objects", "urdf"):
        if not (assets / sub).is_dir():
            shutil.copytree(FIXTURES / sub, assets / sub)

    def q_y(deg: float) -> list[float]:
        a = math.radians(deg) / 2
        return [math.cos(a), 0.0, math.sin(a), 0.0]

    objects = []
    for k, (x, z, turn) in enumerate([(1.0, 2.0, 90), (-1.5, 2.2, 200), (2.2, -1.0, 30),
                                      (-2.0, -1.8, 300)]):
        objects.append({"template_name": "chair", "translation": [x, 0.665, z],
                        "rotation": q_y(turn), "translation_origin": "asset_local",
                        "motion_type": "STATIC"})
        del k
    for k in range(12):
        a = 2 * math.pi * k / 12
        objects.append({"template_name": "donut",
                        "translation": [0.9 * math.cos(a) + 0.25, 1.2, 0.9 * math.sin(a) + 0.25],
                        "motion_type": "DYNAMIC"})
    for k in range(4):
        objects.append({"template_name": "sphere",
                        "translation": [-3.0 + 1.2 * k, 0.5, 3.5], "motion_type": "DYNAMIC"})
    instance = {
        "stage_instance": {"template_name": "simple_room"},
        "object_instances": objects,
        "articulated_object_instances": [
            {"template_name": "fridge", "fixed_base": True, "translation": [3.5, 0.96, 3.0],
             "rotation": q_y(-90)}],
    }
    sections = {
        "stages": {"paths": {".json": ["assets/scenes/simple_room.stage_config.json"]}},
        "objects": {"paths": {".json": [f"assets/objects/{n}" for n in (
            "chair.object_config.json", "donut.object_config.json",
            "sphere.object_config.json")]}},
        "articulated_objects": {"paths": {".urdf": ["assets/urdf/fridge"]}},
        "scene_instances": {"paths": {".json": ["scenes"]}},
    }
    (work / "scenes").mkdir(parents=True, exist_ok=True)
    (work / "scenes" / "fixture.scene_instance.json").write_text(json.dumps(instance))
    cfg = work / "fixture.scene_dataset_config.json"
    cfg.write_text(json.dumps(sections))
    r = import_habitat(cfg, "fixture", work)
    if r.scene is None:
        raise SystemExit(f"cannot import the fixture scene: {[f.message for f in r.findings]}")
    out = work / "habitat_fixture.json"
    out.write_text(r.scene.to_json())
    return out


def generated_scene(work: Path) -> Path:
    from fdc.sim_bridge.scene.generate import generate_scene

    out = work / "generated_150.json"
    out.write_text(generate_scene(4, 170, seed=0).to_json())  # 151 objects
    return out


def walk(scene_path: Path, n: int) -> list:
    """N robot poses: the frames of a simulated day (2 interactions), else a turn in place
    at the scene's agent."""
    from fdc.sim_bridge.graph.scene_graph import load_scene_graph
    from fdc.sim_bridge.world.simulate import SimulationError, simulate_experience
    from fdc.sim_bridge.world.state import AgentPose

    g = load_scene_graph(scene_path)
    try:
        log = simulate_experience(g, interactions=2, seed=0)
        frames = [f.agent for f in log.frames]
    except SimulationError:
        frames = []
    if len(frames) < 2:
        a = g.scene.agent
        frames = [AgentPose(x=a.position[0], y=a.position[1], z=a.position[2],
                            yaw_rad=2 * math.pi * k / 36) for k in range(36)]
    step = max(len(frames) / n, 1.0)
    return [frames[int(k * step) % len(frames)] for k in range(n)]


def measure(name: str, scene_path: Path, n: int, screenshots: Path | None) -> dict:
    from fdc.sim_bridge.render import Camera, Renderer
    from fdc.sim_bridge.scene.load import load_scene

    scene = load_scene(scene_path).scene
    assert scene is not None
    poses = walk(scene_path, n)
    t0 = time.perf_counter()
    r = Renderer(scene, Camera(), base_dir=scene_path.parent)
    setup_s = time.perf_counter() - t0
    r.render(None, poses[0])  # warm-up: shader compilation, first upload
    wall, cpu = time.perf_counter(), time.process_time()
    pixels = 0
    for pose in poses:
        f = r.render(None, pose)
        pixels += len(f.visible)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if screenshots is not None:
        from fdc.sim_bridge.world.state import AgentPose

        x, y, yaw, tilt = SHOTS[name]
        with Renderer(scene, Camera(tilt_deg=tilt), base_dir=scene_path.parent) as shot:
            frame = shot.render(None, AgentPose(x=x, y=y, yaw_rad=yaw))
        _screenshot(frame, screenshots / f"render_{name}.png")
    triangles = sum(d.vao.vertices for d in r._static) // 3 + sum(
        d.vao.vertices for draws in r._dynamic.values() for d, _ in draws) // 3
    r.release()
    return {"scene": name, "objects": len(scene.objects), "triangles": triangles,
            "frames": n, "setup_s": round(setup_s, 3),
            "fps_wall": round(n / wall, 1), "fps_cpu": round(n / cpu, 1),
            "ms_per_frame_cpu": round(1000 * cpu / n, 2),
            "mean_objects_in_view": round(pixels / n, 1)}


#: The views of docs/images/render_*.png: x, y, yaw (rad), camera tilt (deg).
SHOTS = {"apartment": (9.3, 2.4, math.pi, -22.0),
         "generated_150": (4.03, 2.1, -math.pi / 2, -30.0),
         "habitat_fixture": (-1.0, 3.3, -1.0, -22.0)}


def _screenshot(frame, path: Path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(frame.rgb).resize((320, 240), Image.LANCZOS).save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--screenshots", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="fdc-render-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    scenes = [("apartment", REPO / "examples" / "scenes" / "apartment.json"),
              ("generated_150", generated_scene(work)),
              ("habitat_fixture", habitat_fixture_scene(work))]
    rows = [measure(name, path, args.frames, args.screenshots) for name, path in scenes]
    from fdc.sim_bridge.render.context import renderer_name

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"renderer": renderer_name(), "size": "640x480", "rows": rows,
                      "peak_rss_mb": round(peak_mb, 1)}, indent=2))


if __name__ == "__main__":
    main()
