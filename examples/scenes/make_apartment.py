"""Write `apartment.json`: a six-room apartment, laid out by hand, furnished from fdc's
catalogue, its items placed by fdc's own placement queries (so nothing overlaps).

Run from the repository root: `.venv/bin/python examples/scenes/make_apartment.py`.
The output is deterministic.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.scene.generate import FURNITURE, ITEMS, FurnitureType, furniture_spec
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene

N, S, E, W = -math.pi / 2, math.pi / 2, math.pi, 0.0  # yaw so the front faces into the room

ROOMS = [
    ("living_room", "living_room", "living room", [[0, 0], [6, 0], [6, 5], [0, 5]]),
    ("kitchen", "kitchen", "kitchen", [[6, 0], [10, 0], [10, 4], [6, 4]]),
    ("hallway", "hallway", "hallway", [[6, 4], [10, 4], [10, 5.4], [6, 5.4]]),
    ("bedroom", "bedroom", "bedroom", [[0, 5], [4.5, 5], [4.5, 9], [0, 9]]),
    ("office", "office", "office",
     [[4.5, 5], [6, 5], [6, 5.4], [7, 5.4], [7, 9], [4.5, 9]]),
    ("bathroom", "bathroom", "bathroom", [[7, 5.4], [10, 5.4], [10, 9], [7, 9]]),
]

DOORS = [
    ("door_living_kitchen", ["living_room", "kitchen"], [6.0, 2.0], 1.0),
    ("door_living_hallway", ["living_room", "hallway"], [6.0, 4.5], 0.9),
    ("door_kitchen_hallway", ["kitchen", "hallway"], [8.5, 4.0], 0.9),
    ("door_hallway_bathroom", ["hallway", "bathroom"], [8.5, 5.4], 0.8),
    ("door_hallway_office", ["hallway", "office"], [6.5, 5.4], 0.8),
    ("door_living_bedroom", ["living_room", "bedroom"], [3.8, 5.0], 0.9),
]

SIDE_TABLE = FurnitureType("side_table", (0.4, 0.45, 0.55))
CONSOLE = FurnitureType("console_table", (0.35, 1.0, 0.8))

# id, type, (x, y), yaw, colour, material, room
FURNITURE_LAYOUT: list[tuple[str, FurnitureType, tuple[float, float], float, str, str, str]] = [
    ("sofa", FURNITURE["sofa"], (2.5, 0.51), S, "grey", "fabric", "living_room"),
    ("coffee_table", FURNITURE["coffee_table"], (2.5, 1.9), S, "brown", "wood", "living_room"),
    ("tv_stand", FURNITURE["tv_stand"], (1.8, 4.715), N, "black", "wood", "living_room"),
    ("living_bookshelf", FURNITURE["bookshelf"], (0.235, 2.5), W, "white", "wood",
     "living_room"),
    ("sideboard", FURNITURE["sideboard"], (0.285, 3.9), W, "brown", "wood", "living_room"),
    ("living_shelf", FURNITURE["shelf"], (0.235, 1.2), W, "white", "wood", "living_room"),
    ("side_table", SIDE_TABLE, (4.0, 0.26), S, "black", "metal", "living_room"),
    ("kitchen_counter", FURNITURE["counter"], (7.6, 0.36), S, "white", "stone", "kitchen"),
    ("fridge", FURNITURE["fridge"], (9.5, 0.41), S, "silver", "metal", "kitchen"),
    ("kitchen_counter_east", FURNITURE["counter"], (9.64, 2.0), E, "white", "stone",
     "kitchen"),
    ("kitchen_cabinet", FURNITURE["cabinet"], (9.69, 3.45), E, "white", "wood", "kitchen"),
    ("dining_table", FURNITURE["table"], (7.6, 2.2), W, "brown", "wood", "kitchen"),
    ("kitchen_shelf", FURNITURE["shelf"], (6.235, 3.3), W, "white", "metal", "kitchen"),
    ("hall_console", CONSOLE, (9.765, 4.7), E, "black", "wood", "hallway"),
    ("bed", FURNITURE["bed"], (2.0, 7.94), N, "blue", "fabric", "bedroom"),
    ("nightstand_left", FURNITURE["nightstand"], (0.85, 8.74), N, "white", "wood", "bedroom"),
    ("nightstand_right", FURNITURE["nightstand"], (3.15, 8.74), N, "white", "wood", "bedroom"),
    ("wardrobe", FURNITURE["wardrobe"], (0.36, 5.75), W, "white", "wood", "bedroom"),
    ("bedroom_desk", FURNITURE["desk"], (4.09, 6.6), E, "white", "wood", "bedroom"),
    ("bedroom_bookshelf", FURNITURE["bookshelf"], (3.95, 8.765), N, "brown", "wood",
     "bedroom"),
    ("office_desk", FURNITURE["desk"], (5.75, 8.59), N, "black", "wood", "office"),
    ("office_bookshelf", FURNITURE["bookshelf"], (4.735, 7.0), W, "brown", "wood", "office"),
    ("office_cabinet", FURNITURE["cabinet"], (6.69, 7.2), E, "grey", "metal", "office"),
    ("office_shelf", FURNITURE["shelf"], (4.735, 5.9), W, "white", "wood", "office"),
    ("sink_cabinet", FURNITURE["sink_cabinet"], (8.5, 8.69), N, "white", "stone", "bathroom"),
    ("washing_machine", FURNITURE["washing_machine"], (9.64, 7.0), E, "white", "metal",
     "bathroom"),
    ("bathroom_shelf", FURNITURE["shelf"], (7.235, 7.2), W, "white", "wood", "bathroom"),
    ("bathroom_cabinet", FURNITURE["cabinet"], (9.69, 8.3), E, "white", "wood", "bathroom"),
]

# surface, category, colour, material, extra attributes, 3x3 cell (in the words of a
# viewer in front of the furniture, as `place_in_cell` reads them; None: anywhere)
ITEM_PLAN: list[tuple[str, str, str, str, dict[str, str], str | None]] = [
    ("coffee_table|top", "tray", "brown", "wood", {}, "center"),
    ("tray_0|top", "cup", "white", "ceramic", {}, "right"),
    ("tray_0|top", "cup", "yellow", "ceramic", {}, "left"),
    ("coffee_table|top", "remote", "black", "plastic", {}, "front-left"),
    ("coffee_table|top", "book", "red", "paper", {"print": "cookbook"}, "rear-right"),
    ("coffee_table|top", "candle", "white", "wax", {}, "front-right"),
    ("tv_stand|top", "clock", "black", "metal", {"shape": "round"}, "right"),
    ("tv_stand|top", "vase", "blue", "glass", {"shape": "tall"}, "left"),
    ("tv_stand|top", "plant", "green", "ceramic", {}, "center"),
    ("living_bookshelf|shelf_0", "book", "blue", "paper", {"print": "atlas"}, "right"),
    ("living_bookshelf|shelf_0", "book", "green", "paper", {"print": "novel"}, "left"),
    ("living_bookshelf|shelf_1", "book", "yellow", "paper", {"print": "novel"}, None),
    ("bed|top", "box", "white", "cardboard", {}, "right"),
    ("living_bookshelf|shelf_2", "vase", "white", "ceramic", {"shape": "round"}, None),
    ("living_bookshelf|top", "plant", "green", "ceramic", {}, None),
    ("sideboard|top", "lamp", "white", "metal", {}, "right"),
    ("sideboard|top", "bowl", "red", "wood", {}, "left"),
    ("sideboard|top", "candle", "red", "wax", {}, "center"),
    ("living_shelf|shelf_0", "toy_car", "red", "plastic", {}, None),
    ("living_shelf|shelf_1", "toy_car", "blue", "plastic", {}, None),
    ("living_shelf|top", "clock", "white", "wood", {"shape": "square"}, None),
    ("side_table|top", "lamp", "black", "metal", {}, None),
    ("side_table|top", "glass", "clear", "glass", {}, None),
    ("kitchen_counter|top", "bowl", "white", "ceramic", {}, "right"),
    ("kitchen_counter|top", "plate", "white", "ceramic", {}, "center"),
    ("kitchen_counter|top", "bottle", "green", "glass", {"print": "olive oil"}, "left"),
    ("kitchen_counter|top", "mug", "red", "ceramic", {"print": "heart"}, "front-right"),
    ("fridge|lower", "bottle", "clear", "plastic", {"print": "milk"}, None),
    ("fridge|lower", "apple", "red", "organic", {}, None),
    ("fridge|upper", "bowl", "green", "ceramic", {}, None),
    ("kitchen_counter_east|top", "mug", "blue", "ceramic", {}, "right"),
    ("kitchen_counter_east|top", "banana", "yellow", "organic", {}, "center"),
    ("kitchen_counter_east|top", "apple", "green", "organic", {}, "left"),
    ("kitchen_counter_east|top", "glass", "clear", "glass", {}, "front-left"),
    ("kitchen_cabinet|inside", "plate", "blue", "ceramic", {}, None),
    ("kitchen_cabinet|inside", "cup", "blue", "plastic", {}, None),
    ("kitchen_cabinet|top", "tray", "black", "metal", {}, None),
    ("dining_table|top", "plate", "white", "ceramic", {}, "right"),
    ("dining_table|top", "plate", "blue", "ceramic", {}, "left"),
    ("dining_table|top", "glass", "clear", "glass", {}, "rear-right"),
    ("dining_table|top", "vase", "green", "glass", {"shape": "round"}, "center"),
    ("dining_table|top", "mug", "white", "ceramic", {"print": "stripes"}, "front-left"),
    ("kitchen_shelf|shelf_0", "bowl", "white", "wood", {}, None),
    ("kitchen_shelf|shelf_1", "cup", "yellow", "plastic", {}, None),
    ("kitchen_shelf|top", "bottle", "green", "glass", {"print": "wine"}, None),
    ("hall_console|top", "box", "brown", "cardboard", {"print": "parcel"}, "right"),
    ("hall_console|top", "lamp", "white", "metal", {}, "left"),
    ("bed|top", "towel", "white", "cotton", {}, "center"),
    ("bed|top", "book", "black", "paper", {"print": "diary"}, "left"),
    ("nightstand_left|top", "lamp", "white", "metal", {}, None),
    ("nightstand_left|top", "glass", "clear", "glass", {}, None),
    ("nightstand_right|top", "clock", "black", "metal", {"shape": "round"}, None),
    ("nightstand_right|top", "book", "green", "paper", {"print": "poetry"}, None),
    ("wardrobe|hanging", "box", "white", "cardboard", {"print": "shoes"}, None),
    ("bedroom_desk|top", "laptop", "silver", "metal", {}, "center"),
    ("bedroom_desk|top", "pen", "blue", "plastic", {}, "right"),
    ("bedroom_desk|top", "mug", "green", "ceramic", {}, "left"),
    ("bedroom_bookshelf|shelf_0", "book", "red", "paper", {"print": "novel"}, None),
    ("bedroom_bookshelf|shelf_1", "toy_car", "yellow", "plastic", {}, None),
    ("bedroom_bookshelf|top", "candle", "white", "wax", {}, None),
    ("office_desk|top", "laptop", "black", "metal", {}, "center"),
    ("office_desk|top", "pen", "red", "plastic", {}, "right"),
    ("office_desk|top", "lamp", "black", "metal", {}, "rear-left"),
    ("office_desk|top", "mug", "black", "ceramic", {"print": "logo"}, "front-left"),
    ("office_bookshelf|shelf_0", "book", "blue", "paper", {"print": "manual"}, None),
    ("office_bookshelf|shelf_1", "book", "red", "paper", {"print": "manual"}, None),
    ("office_bookshelf|shelf_2", "box", "brown", "cardboard", {}, None),
    ("office_cabinet|top", "plant", "green", "ceramic", {}, None),
    ("office_cabinet|inside", "box", "white", "cardboard", {"print": "files"}, None),
    ("office_shelf|shelf_0", "clock", "white", "wood", {"shape": "square"}, None),
    ("office_shelf|top", "vase", "white", "glass", {"shape": "tall"}, None),
    ("sink_cabinet|top", "soap", "green", "soap", {}, "right"),
    ("sink_cabinet|top", "cup", "white", "plastic", {}, "left"),
    ("washing_machine|top", "towel", "blue", "cotton", {}, None),
    ("bathroom_shelf|shelf_0", "towel", "pink", "cotton", {}, None),
    ("bathroom_shelf|shelf_1", "bottle", "white", "plastic", {"print": "shampoo"}, None),
    ("bathroom_shelf|top", "candle", "white", "wax", {}, None),
    ("bathroom_cabinet|inside", "soap", "white", "soap", {}, None),
]

CLOSED = {"kitchen_cabinet": "inside", "office_cabinet": "inside"}

# A storage box without a lid, larger than the catalogue's box: items go inside it (a
# container floor 2 cm above its bottom, walls 1 cm thick) and it offers no top to put
# things on. It stands on a bed: on a shelf, the shelf above would be in the way of
# whatever is put in. The other boxes (a parcel, a shoe box, boxes on shelves) keep
# their lids.
OPEN_BOXES = {"box_0": (0.4, 0.3, 0.25)}


def base_scene() -> dict[str, Any]:
    objects = [
        furniture_spec(ident, ftype, x, y, yaw, 0.0, {"color": c, "material": m}, room,
                       name=ident.replace("_", " "))
        for ident, ftype, (x, y), yaw, c, m, room in FURNITURE_LAYOUT
    ]
    for o in objects:  # the name is what instructions say: "the kitchen counter"
        o["name"] = o["category"].replace("_", " ")
    return {
        "format_version": FORMAT_VERSION,
        "name": "apartment",
        "rooms": [{"id": i, "category": c, "name": n, "polygon": p} for i, c, n, p in ROOMS],
        "doors": [{"id": i, "rooms": r, "position": p, "width_m": w} for i, r, p, w in DOORS],
        "objects": objects,
        "agent": {"position": [3.0, 3.0, 0.0], "yaw_rad": 0.0, "radius_m": 0.25},
        "source": {"generator": "examples/scenes/make_apartment.py"},
    }


def furnish_items(data: dict[str, Any]) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    for surface, category, colour, material, extra, cell in ITEM_PLAN:
        itype = ITEMS[category]
        ident = f"{category}_{counts[category]}"
        counts[category] += 1
        attrs = {"color": colour, "material": material, **extra}
        if itype.function:
            attrs["function"] = itype.function
        # A provisional pose off the map; the placement query decides where it goes.
        spec: dict[str, Any] = {
            "id": ident, "category": category, "kind": "movable",
            "pose": {"position": [-50.0, -50.0, itype.size[2] / 2]},
            "size": list(itype.size), "attributes": attrs}
        if ident in OPEN_BOXES:
            sx, sy, sz = OPEN_BOXES[ident]
            spec["size"] = [sx, sy, sz]
            spec["pose"]["position"][2] = sz / 2
            spec["surfaces"] = []
            spec["containers"] = [{"name": "inside", "center": [0.0, 0.0, 0.01],
                                   "size": [round(sx - 0.02, 4), round(sy - 0.02, 4),
                                            round(sz - 0.02, 4)],
                                   "open": True}]
        data["objects"].append(spec)
        g = build_scene_graph(Scene.model_validate(data))
        res = g.place_in_cell(ident, surface, cell) if cell else g.place_on(ident, surface)
        if not res.ok:
            raise SystemExit(f"cannot place {ident} on {surface}: {res.reason}")
        assert res.pose is not None
        spec["pose"] = {"position": [round(v, 4) for v in res.pose.position],
                        "orientation": [round(v, 6) for v in res.pose.orientation]}
    for o in data["objects"]:
        if o["id"] in CLOSED:
            for c in o["containers"]:
                if c["name"] == CLOSED[o["id"]]:
                    c["open"] = False
            for p in o["parts"]:
                p["joint"]["position"] = 0.0
    return data


def main() -> None:
    data = furnish_items(base_scene())
    scene = Scene.model_validate(data)
    out = Path(__file__).with_name("apartment.json")
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(scene.to_json(), encoding="utf-8")
    tmp.replace(out)
    print(f"wrote {out}: {len(scene.rooms)} rooms, {len(scene.objects)} objects")


if __name__ == "__main__":
    main()
