"""Procedural scenes: a grid of rooms joined by doors, furniture along the walls (facing
into the room), items on the furniture's surfaces and in its open containers.

Deterministic for a seed (numpy's PCG64). Also the catalogue and the small helpers the
example apartment is written with (`furniture_spec`, `item_spec`).
See docs/formats/scene.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fdc.sim_bridge.geometry import yaw_quaternion
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene


@dataclass(frozen=True)
class FurnitureType:
    category: str
    size: tuple[float, float, float]  # x: depth (front), y: width, z: height
    shelves: tuple[float, ...] = ()  # explicit shelf heights above the floor (besides the top)
    top: bool = True
    containers: tuple[tuple[str, float, float], ...] = ()  # (name, bottom, top) above floor
    materials: tuple[str, ...] = ("wood",)
    colors: tuple[str, ...] = ("brown", "white", "black", "grey")
    kind: str = "furniture"


@dataclass(frozen=True)
class ItemType:
    category: str
    size: tuple[float, float, float]
    colors: tuple[str, ...]
    materials: tuple[str, ...]
    function: str = ""


FURNITURE: dict[str, FurnitureType] = {
    f.category: f
    for f in (
        FurnitureType("table", (0.8, 1.4, 0.75)),
        FurnitureType("coffee_table", (0.6, 1.0, 0.45), materials=("wood", "glass")),
        FurnitureType("desk", (0.7, 1.2, 0.75)),
        FurnitureType("counter", (0.6, 1.8, 0.9), materials=("stone", "wood"),
                      colors=("white", "grey", "black")),
        FurnitureType("sideboard", (0.45, 1.6, 0.8)),
        FurnitureType("nightstand", (0.4, 0.45, 0.55)),
        FurnitureType("tv_stand", (0.45, 1.5, 0.5)),
        FurnitureType("bookshelf", (0.35, 0.9, 1.8), shelves=(0.4, 0.8, 1.2), top=True),
        FurnitureType("shelf", (0.35, 1.2, 1.2), shelves=(0.4, 0.8)),
        FurnitureType("cabinet", (0.5, 0.8, 0.9), top=True,
                      containers=(("inside", 0.05, 0.85),), kind="articulated"),
        FurnitureType("fridge", (0.7, 0.7, 1.8), top=False,
                      containers=(("lower", 0.05, 1.05), ("upper", 1.1, 1.75)),
                      materials=("metal",), colors=("white", "silver"), kind="articulated"),
        FurnitureType("bed", (2.0, 1.6, 0.55), materials=("fabric",),
                      colors=("white", "blue", "grey")),
        FurnitureType("sofa", (0.9, 2.0, 0.45), materials=("fabric", "leather"),
                      colors=("grey", "blue", "green", "brown")),
        FurnitureType("wardrobe", (0.6, 1.2, 2.0), top=False,
                      containers=(("hanging", 0.05, 1.95),), kind="articulated"),
        FurnitureType("sink_cabinet", (0.5, 0.8, 0.85), materials=("stone",),
                      colors=("white",)),
        FurnitureType("washing_machine", (0.6, 0.6, 0.85), materials=("metal",),
                      colors=("white",)),
    )
}

ITEMS: dict[str, ItemType] = {
    i.category: i
    for i in (
        ItemType("mug", (0.09, 0.09, 0.1), ("red", "blue", "white", "green"),
                 ("ceramic",), "drinking"),
        ItemType("cup", (0.08, 0.08, 0.09), ("white", "yellow", "blue"), ("ceramic", "plastic"),
                 "drinking"),
        ItemType("plate", (0.25, 0.25, 0.02), ("white", "blue"), ("ceramic",), "eating"),
        ItemType("bowl", (0.16, 0.16, 0.07), ("white", "red", "green"), ("ceramic", "wood"),
                 "eating"),
        ItemType("book", (0.16, 0.24, 0.04), ("red", "blue", "green", "black", "yellow"),
                 ("paper",), "reading"),
        ItemType("vase", (0.12, 0.12, 0.3), ("white", "blue", "green"), ("glass", "ceramic"),
                 "decoration"),
        ItemType("lamp", (0.2, 0.2, 0.4), ("white", "black"), ("metal",), "lighting"),
        ItemType("bottle", (0.08, 0.08, 0.28), ("green", "clear"), ("glass", "plastic"),
                 "drinking"),
        ItemType("remote", (0.05, 0.18, 0.02), ("black", "grey"), ("plastic",), "control"),
        ItemType("laptop", (0.24, 0.34, 0.03), ("silver", "black"), ("metal",), "working"),
        ItemType("apple", (0.08, 0.08, 0.08), ("red", "green"), ("organic",), "eating"),
        ItemType("banana", (0.2, 0.06, 0.05), ("yellow",), ("organic",), "eating"),
        ItemType("toy_car", (0.12, 0.06, 0.05), ("red", "blue", "yellow"), ("plastic",),
                 "playing"),
        ItemType("candle", (0.07, 0.07, 0.12), ("white", "red"), ("wax",), "decoration"),
        ItemType("clock", (0.2, 0.07, 0.2), ("black", "white"), ("metal", "wood"), "timekeeping"),
        ItemType("towel", (0.3, 0.2, 0.05), ("white", "blue", "pink"), ("cotton",), "drying"),
        ItemType("soap", (0.09, 0.06, 0.04), ("white", "green"), ("soap",), "cleaning"),
        ItemType("pen", (0.15, 0.02, 0.02), ("blue", "black", "red"), ("plastic",), "writing"),
        ItemType("plant", (0.2, 0.2, 0.35), ("green",), ("ceramic",), "decoration"),
        ItemType("tray", (0.45, 0.32, 0.03), ("brown", "black"), ("wood", "metal"), "serving"),
        ItemType("box", (0.3, 0.2, 0.15), ("brown", "white"), ("cardboard",), "storage"),
        ItemType("glass", (0.07, 0.07, 0.12), ("clear",), ("glass",), "drinking"),
    )
}

ROOM_TYPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # category: (furniture along the walls, in order of preference; item categories)
    "kitchen": (("counter", "fridge", "cabinet", "counter", "shelf", "table"),
                ("mug", "cup", "plate", "bowl", "bottle", "apple", "banana", "glass", "tray")),
    "living_room": (("sofa", "tv_stand", "bookshelf", "sideboard", "coffee_table", "shelf"),
                    ("book", "vase", "lamp", "remote", "candle", "clock", "plant", "mug")),
    "bedroom": (("bed", "nightstand", "wardrobe", "desk", "nightstand", "shelf"),
                ("book", "lamp", "clock", "laptop", "pen", "glass", "toy_car", "box")),
    "bathroom": (("sink_cabinet", "washing_machine", "shelf", "cabinet"),
                 ("towel", "soap", "bottle", "candle", "cup", "plant")),
    "office": (("desk", "bookshelf", "cabinet", "shelf", "sideboard"),
               ("book", "laptop", "pen", "mug", "lamp", "box", "clock")),
    "dining_room": (("table", "sideboard", "cabinet", "shelf"),
                    ("plate", "bowl", "glass", "vase", "candle", "bottle", "tray")),
}


#: (surface id, centre x, centre y, half depth, half width, yaw, height, clearance)
SurfaceSlot = tuple[str, float, float, float, float, float, float, float]


def _fmt(x: float) -> float:
    return round(float(x), 4)


def furniture_spec(
    ident: str, ftype: FurnitureType, x: float, y: float, yaw_rad: float, floor_z: float,
    attributes: dict[str, str], room: str | None = None, name: str | None = None,
    size: tuple[float, float, float] | None = None,
) -> dict[str, Any]:
    """A furniture object dict (scene.json), standing on the floor at (x, y), front at yaw."""
    sx, sy, sz = size or ftype.size
    surfaces: list[dict[str, Any]] | None = None
    if ftype.shelves or not ftype.top:
        surfaces = [{"name": f"shelf_{k}", "z": _fmt(h - sz / 2)}
                    for k, h in enumerate(ftype.shelves)]
        if ftype.top:
            surfaces.append({"name": "top", "z": _fmt(sz / 2)})
    containers = []
    parts = []
    for name_, bottom, top in ftype.containers:
        door = f"{name_}_door"
        containers.append({
            "name": name_, "center": [0.0, 0.0, _fmt((bottom + top) / 2 - sz / 2)],
            "size": [_fmt(sx - 0.06), _fmt(sy - 0.06), _fmt(top - bottom)],
            "part": door, "open": True,
        })
        parts.append({
            "name": door, "center": [_fmt(sx / 2 - 0.01), 0.0, _fmt((bottom + top) / 2 - sz / 2)],
            "size": [0.02, _fmt(sy), _fmt(top - bottom)],
            "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0], "lower": 0.0,
                      "upper": 1.9, "position": 1.57},
        })
    out: dict[str, Any] = {
        "id": ident,
        "category": ftype.category,
        "kind": ftype.kind,
        "pose": {"position": [_fmt(x), _fmt(y), _fmt(floor_z + sz / 2)],
                 "orientation": [_fmt(c) for c in yaw_quaternion(yaw_rad)]},
        "size": [_fmt(sx), _fmt(sy), _fmt(sz)],
        "attributes": attributes,
    }
    if name:
        out["name"] = name
    if room:
        out["room"] = room
    if surfaces is not None:
        out["surfaces"] = surfaces
    if containers:
        out["containers"] = containers
        out["parts"] = parts
    return out


def item_spec(ident: str, itype: ItemType, x: float, y: float, z_surface: float, yaw_rad: float,
              attributes: dict[str, str]) -> dict[str, Any]:
    sx, sy, sz = itype.size
    return {
        "id": ident,
        "category": itype.category,
        "kind": "movable",
        "pose": {"position": [_fmt(x), _fmt(y), _fmt(z_surface + sz / 2)],
                 "orientation": [_fmt(c) for c in yaw_quaternion(yaw_rad)]},
        "size": [sx, sy, sz],
        "attributes": attributes,
    }


def _pick(rng: np.random.Generator, seq: tuple[str, ...]) -> str:
    return seq[int(rng.integers(len(seq)))]


def generate_scene(rooms: int, objects: int, seed: int = 0, name: str | None = None) -> Scene:
    """A scene of `rooms` rooms and about `objects` objects (furniture and items)."""
    rng = np.random.default_rng(seed)
    rooms = max(1, rooms)
    cols = math.ceil(math.sqrt(rooms))
    rows = math.ceil(rooms / cols)
    widths = rng.uniform(4.0, 6.5, cols)
    heights = rng.uniform(4.0, 6.0, rows)
    xs = np.r_[0.0, np.cumsum(widths)]
    ys = np.r_[0.0, np.cumsum(heights)]
    kinds = list(ROOM_TYPES)
    room_dicts: list[dict[str, Any]] = []
    cell_of: dict[int, tuple[int, int]] = {}
    for k in range(rooms):
        r, c = divmod(k, cols)
        cat = kinds[k % len(kinds)] if k < len(kinds) else _pick(rng, tuple(kinds))
        room_dicts.append({
            "id": f"room_{k:03d}", "category": cat,
            "polygon": [[_fmt(xs[c]), _fmt(ys[r])], [_fmt(xs[c + 1]), _fmt(ys[r])],
                        [_fmt(xs[c + 1]), _fmt(ys[r + 1])], [_fmt(xs[c]), _fmt(ys[r + 1])]],
        })
        cell_of[k] = (r, c)
    # Doors: a random spanning tree of the grid plus a few extra links.
    pairs = []
    for k in range(rooms):
        r, c = cell_of[k]
        if c + 1 < cols and k + 1 < rooms:
            pairs.append((k, k + 1))
        if k + cols < rooms:
            pairs.append((k, k + cols))
    order = rng.permutation(len(pairs))
    parent = list(range(rooms))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    doors: list[dict[str, Any]] = []
    door_points: dict[int, list[tuple[float, float]]] = {k: [] for k in range(rooms)}
    for j in order.tolist():
        a, b = pairs[j]
        extra = rng.random() < 0.25
        if find(a) == find(b) and not extra:
            continue
        parent[find(a)] = find(b)
        (ra, ca), (rb, cb) = cell_of[a], cell_of[b]
        if ra == rb:  # side by side: the wall is vertical at xs[cb]
            y0, y1 = ys[ra], ys[ra + 1]
            pos = (float(xs[cb]), float(rng.uniform(y0 + 1.0, y1 - 1.0)))
        else:
            x0, x1 = xs[ca], xs[ca + 1]
            pos = (float(rng.uniform(x0 + 1.0, x1 - 1.0)), float(ys[rb]))
        doors.append({"id": f"door_{len(doors):03d}",
                      "rooms": [room_dicts[a]["id"], room_dicts[b]["id"]],
                      "position": [_fmt(pos[0]), _fmt(pos[1])], "width_m": 0.9})
        door_points[a].append(pos)
        door_points[b].append(pos)
    # Furniture: about 30% of the objects, spread over the rooms.
    n_furn = max(rooms, round(objects * 0.3))
    n_items = max(0, objects - n_furn)
    per_room = np.full(rooms, n_furn // rooms)
    per_room[: n_furn % rooms] += 1
    objs: list[dict[str, Any]] = []
    surfaces: list[SurfaceSlot] = []
    for k in range(rooms):
        r, c = cell_of[k]
        cat = room_dicts[k]["category"]
        box = (xs[c] + 0.05, ys[r] + 0.05, xs[c + 1] - 0.05, ys[r + 1] - 0.05)
        objs_k, surfs_k = _furnish(rng, f"room_{k:03d}", cat, box, door_points[k],
                                   int(per_room[k]))
        objs.extend(objs_k)
        surfaces.extend(surfs_k)
    objs.extend(_populate(rng, surfaces, n_items, room_dicts, objs))
    r0, c0 = cell_of[0]
    start = ((xs[c0] + xs[c0 + 1]) / 2, (ys[r0] + ys[r0 + 1]) / 2)
    data = {
        "format_version": FORMAT_VERSION,
        "name": name or f"generated-r{rooms}-n{objects}-s{seed}",
        "rooms": room_dicts,
        "doors": doors,
        "objects": objs,
        "agent": {"position": [_fmt(start[0]), _fmt(start[1]), 0.0], "yaw_rad": 0.0},
        "source": {"generator": "fdc.sim_bridge.generate", "seed": str(seed)},
    }
    return Scene.model_validate(data)


def _furnish(
    rng: np.random.Generator, room_id: str, category: str,
    box: tuple[float, float, float, float], doors: list[tuple[float, float]], count: int,
) -> tuple[list[dict[str, Any]], list[SurfaceSlot]]:
    """Furniture along the walls of one room, then in its middle; surfaces as
    (surface id, centre x, centre y, half depth, half width, yaw, z)."""
    x0, y0, x1, y1 = box
    wanted, _ = ROOM_TYPES[category]
    # The four walls, as (start point, direction, inward normal yaw, length).
    walls = [
        ((x0, y0), (1.0, 0.0), math.pi / 2, x1 - x0),
        ((x1, y0), (0.0, 1.0), math.pi, y1 - y0),
        ((x1, y1), (-1.0, 0.0), -math.pi / 2, x1 - x0),
        ((x0, y1), (0.0, -1.0), 0.0, y1 - y0),
    ]
    cursor = [0.4, 0.4, 0.4, 0.4]
    objs: list[dict[str, Any]] = []
    surfs: list[SurfaceSlot] = []
    placed = 0
    attempts = 0
    footprints: list[tuple[float, float, float, float]] = []
    w_i = int(rng.integers(4))
    while placed < count and attempts < count * 6:
        attempts += 1
        ftype = FURNITURE[wanted[(placed + attempts) % len(wanted)]]
        sx, sy, _sz = ftype.size
        w_i = (w_i + 1) % 4
        (ox, oy), (dx, dy), yaw, length = walls[w_i]
        start = cursor[w_i] + float(rng.uniform(0.0, 0.3))
        end = start + sy
        if end > length - 0.4:
            continue
        # Keep 1.2 m clear around doors along this wall.
        along_doors = [((px - ox) * dx + (py - oy) * dy) for px, py in doors
                       if abs((px - ox) * -dy + (py - oy) * dx) < 0.2]
        if any(start - 0.6 < a + 0.45 and end + 0.6 > a - 0.45 for a in along_doors):
            cursor[w_i] = max(a + 1.1 for a in along_doors
                              if start - 0.6 < a + 0.45 and end + 0.6 > a - 0.45)
            continue
        mid = (start + end) / 2
        nx_, ny_ = math.cos(yaw), math.sin(yaw)
        cx = ox + dx * mid + nx_ * (sx / 2 + 0.01)
        cy = oy + dy * mid + ny_ * (sx / 2 + 0.01)
        hx_ = abs(nx_) * sx / 2 + abs(dx) * sy / 2
        hy_ = abs(ny_) * sx / 2 + abs(dy) * sy / 2
        rect = (cx - hx_ - 0.05, cy - hy_ - 0.05, cx + hx_ + 0.05, cy + hy_ + 0.05)
        if any(r[0] < rect[2] and rect[0] < r[2] and r[1] < rect[3] and rect[1] < r[3]
               for r in footprints):
            cursor[w_i] = end + 0.15
            continue
        footprints.append(rect)
        cursor[w_i] = end + 0.15
        ident = f"{room_id}/{ftype.category}_{placed:02d}"
        attrs = {"color": _pick(rng, ftype.colors), "material": _pick(rng, ftype.materials)}
        spec = furniture_spec(ident, ftype, cx, cy, yaw, 0.0, attrs, room_id)
        objs.append(spec)
        _collect_surfaces(spec, ftype, surfs)
        placed += 1
    return objs, surfs


def _collect_surfaces(spec: dict[str, Any], ftype: FurnitureType,
                      out: list[SurfaceSlot]) -> None:
    x, y, zc = spec["pose"]["position"]
    w, _, _, qz = spec["pose"]["orientation"]
    yaw = 2 * math.atan2(qz, w)
    sx, sy, sz = spec["size"]
    explicit = spec.get("surfaces")
    levels = [*sorted(s["z"] for s in explicit or []), sz / 2]
    for s in explicit if explicit is not None else [{"name": "top", "z": sz / 2}]:
        above = [h for h in levels if h > s["z"] + 1e-6]
        clearance = (min(above) - s["z"] - 0.02) if above else 1.0
        out.append((f"{spec['id']}|{s['name']}", x, y, sx / 2 - 0.02, sy / 2 - 0.02, yaw,
                    zc + s["z"], clearance))
    for c in spec.get("containers", []):
        _, _, cz_ = c["center"]
        out.append((f"{spec['id']}|{c['name']}", x, y, c["size"][0] / 2 - 0.02,
                    c["size"][1] / 2 - 0.02, yaw, zc + cz_ - c["size"][2] / 2,
                    c["size"][2] - 0.02))


def _populate(
    rng: np.random.Generator,
    surfaces: list[SurfaceSlot],
    count: int,
    rooms: list[dict[str, Any]],
    furniture: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Items on surfaces, without overlaps (rejection sampling in each surface's frame)."""
    if not surfaces or count <= 0:
        return []
    room_cat = {r["id"]: r["category"] for r in rooms}
    furn_room = {f["id"]: f.get("room", "") for f in furniture}
    areas = np.array([4 * s[3] * s[4] for s in surfaces])
    weights = areas / areas.sum()
    taken: dict[int, list[tuple[float, float, float, float]]] = {}
    out: list[dict[str, Any]] = []
    counter: dict[str, int] = {}
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        k = int(rng.choice(len(surfaces), p=weights))
        sid, x, y, hu, hv, yaw, z, clearance = surfaces[k]
        cat = room_cat.get(furn_room.get(sid.split("|")[0], ""), "living_room")
        itype = ITEMS[_pick(rng, ROOM_TYPES[cat][1])]
        ex, ey = itype.size[0] / 2, itype.size[1] / 2
        if ex > hu or ey > hv or itype.size[2] > clearance:
            continue
        u = float(rng.uniform(-hu + ex, hu - ex))
        v = float(rng.uniform(-hv + ey, hv - ey))
        box = (u - ex - 0.02, v - ey - 0.02, u + ex + 0.02, v + ey + 0.02)
        if any(b[0] < box[2] and box[0] < b[2] and b[1] < box[3] and box[1] < b[3]
               for b in taken.get(k, [])):
            continue
        taken.setdefault(k, []).append(box)
        c, s = math.cos(yaw), math.sin(yaw)
        wx, wy = x + c * u - s * v, y + s * u + c * v
        n = counter.get(itype.category, 0)
        counter[itype.category] = n + 1
        attrs = {"color": _pick(rng, itype.colors), "material": _pick(rng, itype.materials)}
        if itype.function:
            attrs["function"] = itype.function
        out.append(item_spec(f"{itype.category}_{n:04d}", itype, wx, wy, z, yaw, attrs))
    return out


def family_scene(index: int, seed: int, rooms: int = 6, objects: int = 150) -> Scene:
    """Scene `index` (from 0) of the family of seed `seed`: between about a third of
    `rooms` and `rooms` rooms, and about `objects / rooms` objects a room, both drawn
    from `(seed, index)` alone, so a scene does not depend on how many the family has."""
    rng = np.random.default_rng([seed, index])
    n_rooms = int(rng.integers(max(1, math.ceil(rooms / 3)), rooms + 1))
    per_room = max(1.0, objects / rooms) * float(rng.uniform(0.7, 1.3))
    n_objects = max(n_rooms, round(per_room * n_rooms))
    return generate_scene(n_rooms, n_objects, int(rng.integers(2**31)),
                          name=f"family-s{seed}-{index:03d}")


def family_file(index: int) -> str:
    """The file name of scene `index` of a family (sorted names are the family's order)."""
    return f"scene-{index:03d}.json"
