"""A small hand-made kitchen for the compile-pass tests, and a way to compile templates
written inline on it.

kitchen (0..6 x 0..4) | door at (6, 2) | living room (6..10 x 0..4)
- table (brown wood) at (2, 2): red mug, blue mug, two identical white plates, a banana
- counter (white stone) at (4.5, 0.6): a blue mug, an apple
- sofa in the living room, a shelf there with a book on it
"""

from __future__ import annotations

import functools
from pathlib import Path

from fdc.compiler.options import CompileOptions
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.compiler.templates import TemplateEntry, load_entries
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph
from fdc.sim_bridge.world.experience import Experience, ExperienceRecorder
from fdc.sim_bridge.world.state import AgentPose
from tests.sim_bridge.helpers import obj, on_top, room, scene

TABLE_TOP = 0.75
COUNTER_TOP = 0.9


@functools.cache
def kitchen() -> SceneGraph:
    objects = [
        obj("table", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), kind="furniture",
            attributes={"color": "brown", "material": "wood"}),
        obj("counter", "counter", (4.5, 0.6, 0.45), (1.6, 0.6, 0.9), kind="furniture",
            attributes={"color": "white", "material": "stone"}),
        on_top("mug_red", "mug", (1.7, 2.2), TABLE_TOP, (0.1, 0.1, 0.1),
               attributes={"color": "red"}),
        on_top("mug_blue", "mug", (2.0, 2.2), TABLE_TOP, (0.1, 0.1, 0.1),
               attributes={"color": "blue"}),
        on_top("plate_0", "plate", (1.8, 1.8), TABLE_TOP, (0.2, 0.2, 0.02),
               attributes={"color": "white"}),
        on_top("plate_1", "plate", (2.2, 1.8), TABLE_TOP, (0.2, 0.2, 0.02),
               attributes={"color": "white"}),
        on_top("banana_0", "banana", (2.4, 2.2), TABLE_TOP, (0.15, 0.05, 0.04),
               attributes={"color": "yellow"}),
        on_top("mug_counter", "mug", (4.2, 0.6), COUNTER_TOP, (0.1, 0.1, 0.1),
               attributes={"color": "blue"}),
        on_top("apple_0", "apple", (4.8, 0.6), COUNTER_TOP, (0.08, 0.08, 0.08),
               attributes={"color": "red"}),
        obj("sofa", "sofa", (8.5, 3.4, 0.225), (0.9, 2.0, 0.45), -90.0, kind="furniture"),
        obj("shelf", "shelf", (9.6, 1.0, 0.5), (0.4, 1.0, 1.0), 180.0, kind="furniture"),
        on_top("book_0", "book", (9.6, 1.0), 1.0, (0.15, 0.2, 0.03),
               attributes={"color": "green"}),
    ]
    rooms = [room("kitchen", "kitchen", 0, 0, 6, 4), room("living", "living_room", 6, 0, 10, 4)]
    doors = [{"id": "door", "rooms": ["kitchen", "living"], "position": [6.0, 2.0]}]
    return build_scene_graph(scene(objects, rooms=rooms, doors=doors, agent=(0.6, 3.4)))


def experience() -> Experience:
    """The robot moved the red mug from the table to the counter (frames 2-5), then the
    apple from the counter to the table (frames 6-9); 12 frames, 06:00 to 06:11."""
    rec = ExperienceRecorder(scene="kitchen", seed=None)
    poses = [(0.6, 3.4, 0.0), (1.0, 2.2, 0.0), (1.05, 2.2, 0.0), (2.5, 1.0, 0.0),
             (3.5, 1.2, 0.0), (4.5, 1.4, -1.57), (4.6, 1.4, -1.57), (4.6, 1.4, -1.57),
             (3.0, 1.2, 3.14), (2.0, 1.05, 1.57), (2.0, 1.05, 1.57), (1.0, 3.0, 0.0)]
    actions: dict[int, str] = {2: "pick mug_red", 5: "place mug_red", 6: "pick apple_0",
                               9: "place apple_0"}
    for i, (x, y, yaw) in enumerate(poses):
        held = "mug_red" if 2 <= i < 5 else "apple_0" if 6 <= i < 9 else None
        rec.frame(360.0 + i, AgentPose(x=x, y=y, yaw_rad=yaw), action=actions.get(i),
                  held=held, room="kitchen")
        if i == 2:
            rec.pick("mug_red", "table|top", start_min=360.0 + i)
        if i == 5:
            rec.place("mug_red", "counter|top", position=(4.5, 0.6, COUNTER_TOP + 0.05))
        if i == 6:
            rec.pick("apple_0", "counter|top", start_min=360.0 + i)
        if i == 9:
            rec.place("apple_0", "table|top", position=(2.3, 1.9, TABLE_TOP + 0.04))
    return rec.finish()


def entries(tmp_path: Path, source: str, name: str = "t.pddl") -> list[TemplateEntry]:
    """The templates of `source` (over fdc-home), checked; fails the test on any error."""
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    found, result = load_entries([str(path)])
    assert not result.errors, [str(d) for d in result.diagnostics]
    return found


def compiler(log: Experience | None = None, **options: object) -> SceneCompiler:
    return SceneCompiler(kitchen(), "kitchen.json", "0" * 64, log, "e" * 64 if log else None,
                         CompileOptions(**options))  # type: ignore[arg-type]


def template(name: str, body: str, params: str = "", instruction: str = "Do it.",
             extra: str = "") -> str:
    return (f"(define (template {name}) (:domain fdc-home) (:version 1) {extra}\n"
            f"  (:parameters {params})\n  {body}\n  (:instruction \"{instruction}\"))\n")
