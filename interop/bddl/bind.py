"""A BDDL activity bound into an existing fdc scene (`fdc scene bind SCENE --from-bddl
ACTIVITY`): its furniture and rooms mapped onto the scene's where the categories match,
its movable items placed on and in them as its `:init` says.

- Rooms: each room word of `:init` (`inroom`) goes to a room of the scene whose category,
  in PDDL spelling, is the import's name for it (`living_room` and `living-room` match);
  among several, the seed chooses.
- Furniture: each piece of `:init` goes to a piece of furniture of the scene, in the room
  its `inroom` names, whose category (in PDDL spelling) is the import's type for it or the
  word of one of its synset's ancestors in BEHAVIOR's taxonomy (`breakfast_table.n.01`
  may be a scene's `table`; a `counter` is no `countertop`: no synonyms are guessed); one
  activity piece to one scene piece; among several, the seed chooses. The piece takes the
  activity's category (the scene's is kept in its `source`), so the imported template
  binds on it.
- Items: as `fdc scene generate --from-bddl` hangs them (`scene._Layout.attach`, shared),
  then placed in free cells of the piece's top or of its largest compartment (clear of
  what the scene has there), on free floor of their room, or on the floor in front of the
  piece they are `nextto`. Their sizes, boxes, platforms, states and colours are the
  generated house's. A piece `open` in `:init` is opened.

What cannot be bound raises `BindError` with the `:init` literal, what the scene lacks and
a hint. Deterministic for a seed.

See docs/bddl.md.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fdc.core.errors import InputError
from fdc.interop.bddl.corpus import Activity
from fdc.interop.bddl.scene import (
    ARTICULATED,
    FURNITURE,
    PITCH_SLACK,
    GeneratedScene,
    _Builder,
    _Layout,
    _Thing,
)
from fdc.interop.bddl.vocabulary import Vocabulary, pddl_name, synset_word
from fdc.sim_bridge.scene.schema import Scene

HINT = "use `fdc scene generate --from-bddl` for a house made for the activity"
FLOOR_STEP = 0.25
CELL = 0.05  # the step of the places tried on a top or in a compartment
FLOOR_CLEARANCE = 0.3

#: fdc-home's names for BEHAVIOR's furniture of the same kind that the taxonomy does not
#: relate (a kitchen counter is a countertop; a fridge an electric refrigerator).
SAME_AS: dict[str, tuple[str, ...]] = {
    "countertop": ("counter", "kitchen-counter"),
    "electric-refrigerator": ("fridge",),
    "bookcase": ("bookshelf",),
    "sink": ("sink-cabinet",),
}
#: Ancestors too general to say what a piece is.
ROOTS = frozenset({"entity", "physical-entity", "object", "whole", "artifact", "furniture",
                   "articulated", "movable", "instrumentality", "furnishing", "surface"})

#: Why a bind is refused, as the benchmark tables them.
MISSING_ROOM = "missing room type"
MISSING_FURNITURE = "missing furniture"
TOO_FEW = "too few pieces"
NO_ROOM_ON_PIECE = "no room on piece"
NO_FREE_FLOOR = "no free floor"


class BindError(InputError):
    """An activity that cannot be bound into the scene: `kind` is one of the reasons
    above, the message names the `:init` literal and what the scene lacks."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{message}; {HINT}")
        self.kind = kind


Box = tuple[float, float, float, float, float, float]  # x0, y0, z0, x1, y1, z1


def _yaw(o: dict[str, Any]) -> float:
    w, _, _, z = o["pose"]["orientation"]
    return 2 * math.atan2(z, w)


def _box(x: float, y: float, z0: float, size: tuple[float, float, float] | list[float],
         yaw: float) -> Box:
    sx, sy, sz = size
    c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
    hx, hy = (c * sx + s * sy) / 2, (s * sx + c * sy) / 2
    return (x - hx, y - hy, z0, x + hx, y + hy, z0 + sz)


def _object_box(o: dict[str, Any]) -> Box:
    x, y, z = o["pose"]["position"]
    return _box(x, y, z - o["size"][2] / 2, o["size"], _yaw(o))


def _overlap(a: Box, b: Box, margin: float = 0.0) -> bool:
    return (a[0] < b[3] + margin and b[0] < a[3] + margin and a[1] < b[4] + margin
            and b[1] < a[4] + margin and a[2] < b[5] - 1e-6 and b[2] < a[5] - 1e-6)


def _inside(poly: list[list[float]], x: float, y: float) -> bool:
    hit = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


@dataclass(frozen=True)
class _Region:
    """A rectangle things stand on: its centre, yaw, depth (local x), width, height."""

    x: float
    y: float
    yaw: float
    depth: float
    width: float
    z: float
    height: float = math.inf  # of a compartment

    def cells(self, size: tuple[float, float, float]) -> Iterator[tuple[float, float]]:
        """Centres where an item of `size` lies within the rectangle, every `CELL` m, row
        by row from one corner (first fit packs them)."""
        du, dv = self.depth - size[0], self.width - size[1]
        if du < 0 or dv < 0:
            return
        nu, nv = int(du // CELL) + 1, int(dv // CELL) + 1
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        for j in range(nv):
            for i in range(nu):
                u = -du / 2 + i * CELL
                v = -dv / 2 + j * CELL
                yield self.x + c * u - s * v, self.y + s * u + c * v


class _Binder:
    def __init__(self, scene: Scene, activity: Activity, vocab: Vocabulary, seed: int
                 ) -> None:
        self.data = scene.model_dump(mode="json")
        self.v = vocab
        self.rng = random.Random(seed)
        self.b = _Builder(activity, vocab)
        ids = {o["id"] for o in self.data["objects"]}
        for t in self.b.things.values():  # fresh ids, clear of the scene's
            (base, _, n), k = t.ident.rpartition("_"), 0
            while t.ident in ids:  # the number stays last: it picks the colour
                k += 1
                t.ident = f"{base}_b{k}_{n}"
        self.b.read()
        self.layout = _Layout(self.b, vocab)
        self.facts = self.b.facts
        self.boxes: list[Box] = [_object_box(o) for o in self.data["objects"]]
        self.box_ids: list[str] = [o["id"] for o in self.data["objects"]]
        self.left_out: list[str] = []

    def _literal(self, inst: str, head: str | None = None) -> str:
        for neg, f in self.facts:
            if not neg and len(f) >= 2 and (head is None or f[0] == head) and inst in f[1:]:
                return "(" + " ".join(f) + ")"
        return inst

    # -- rooms and furniture
    def bind(self) -> GeneratedScene:
        b = self.b
        floor = self.layout.attach()
        pieces = [t for t in b.things.values() if t.role in (FURNITURE, ARTICULATED)]
        named = [r for r in b.rooms if any(f[0] == "inroom" and f[2] == r
                                           for neg, f in self.facts if len(f) == 3)]
        room_of: dict[str, dict[str, Any]] = {}
        for r in named:
            want = self.v.rooms.get(r, pddl_name(r))
            options = [room for room in self.data["rooms"]
                       if pddl_name(room["category"]) == want]
            if not options:
                lit = next(("(" + " ".join(f) + ")" for neg, f in self.facts
                            if not neg and f[0] == "inroom" and f[-1] == r), r)
                raise BindError(MISSING_ROOM, f"{lit}: the scene has no room of type "
                                f"`{want}` (it has "
                                + ", ".join(sorted({pddl_name(x['category'])
                                                    for x in self.data['rooms']})) + ")")
            self.rng.shuffle(options)
            room_of[r] = self._choose_room(r, options, pieces)
        self.room_of = room_of
        used: set[str] = set()
        self.piece_of: dict[str, dict[str, Any]] = {}
        for t in pieces:
            self.piece_of[t.inst] = self._bind_piece(t, used)
        for t in pieces:
            if t.beside is not None and t.beside in self.piece_of:
                self.left_out.append(f"(nextto {t.inst} {t.beside}): the scene's furniture "
                                     "stays where it is")
        for r, items in floor.items():
            for o in items:
                self._on_floor(o, r or b.start_room())
        for t in b.things.values():  # nextto a piece of furniture or a floor item
            if t.role == "movable" and t.parent is None and t.ident not in self._placed():
                self._beside(t)
        self._agent()
        scene = Scene.model_validate(self.data)
        placed = self._placed()
        ids = {t.inst: t.ident for t in b.things.values() if t.ident in placed}
        ids.update({i: o["id"] for i, o in self.piece_of.items()})
        missing = [t.inst for t in b.things.values() if t.inst not in ids]
        return GeneratedScene(scene, ids, b.left_out + self.left_out
                              + [f"{m}: not placed" for m in missing])

    def _placed(self) -> set[str]:
        return {o["id"] for o in self.layout.objects}

    def _choose_room(self, r: str, options: list[dict[str, Any]], pieces: list[_Thing]
                     ) -> dict[str, Any]:
        """The first room (in seeded order) with a match for each piece `inroom` it."""
        mine = [t for t in pieces if t.room == r]
        for room in options:
            if all(self._matches(t, room["id"]) for t in mine):
                return room
        return options[0]

    def _categories(self, t: _Thing) -> set[str]:
        """The scene categories (PDDL spelling) a piece of `t`'s type may be: the type,
        its ancestors in the generated domain and in BEHAVIOR's taxonomy (not the roots),
        and fdc-home's names for the same thing (`SAME_AS`)."""
        from fdc.interop.bddl.vocabulary import _taxonomy

        names = {t.category, *SAME_AS.get(t.category, ())}
        cur = t.category
        while cur in self.v.parents and self.v.parents[cur] not in names:
            cur = self.v.parents[cur]
            names.add(cur)
        names |= self.layout.home.ancestors.get(t.category, frozenset())
        tax = _taxonomy()
        if tax.is_valid_synset(t.synset):
            names |= {pddl_name(synset_word(a)) for a in tax.get_ancestors(t.synset)}
        return names - ROOTS

    def _matches(self, t: _Thing, room_id: str | None) -> list[dict[str, Any]]:
        """The scene's pieces (in `room_id`) that can be `t`: of one of `_categories`, or
        of a kind fdc-home declares under `t`'s type (a `coffee_table` is a `table`)."""
        names = self._categories(t)
        home = self.layout.home.ancestors
        out = []
        for o in self.data["objects"]:
            cat = pddl_name(o["category"])
            if o["kind"] in (FURNITURE, ARTICULATED) and \
                    (cat in names or t.category in home.get(cat, frozenset())) and \
                    (room_id is None or self._room_id(o) == room_id):
                out.append(o)
        return out

    def _room_id(self, o: dict[str, Any]) -> str | None:
        if o.get("room"):
            return str(o["room"])
        x, y, _ = o["pose"]["position"]
        return next((r["id"] for r in self.data["rooms"] if _inside(r["polygon"], x, y)), None)

    def _bind_piece(self, t: _Thing, used: set[str]) -> dict[str, Any]:
        room = self.room_of.get(t.room or "") if t.room else None
        room_id = room["id"] if room is not None else None
        lit = self._literal(t.inst, "inroom")
        where = f"the scene's {room['category']} ({room_id})" if room is not None \
            else "the scene"
        options = self._matches(t, room_id)
        if not options:
            raise BindError(MISSING_FURNITURE, f"{lit}: no piece of furniture of category "
                            f"`{t.category}` (or of a kind it is in BEHAVIOR's taxonomy) "
                            f"in {where}")
        free = [o for o in options if o["id"] not in used]
        if not free:
            raise BindError(TOO_FEW, f"{lit}: {len(options)} piece(s) of `{t.category}` in "
                            f"{where}, all bound to other objects of the activity")
        self.rng.shuffle(free)
        for o in free:
            if self._place_on_piece(t, o):
                used.add(o["id"])
                return o
        what = " and ".join(x for x, kids in (("on", t.on_top), ("in", t.in_it)) if kids)
        raise BindError(NO_ROOM_ON_PIECE, f"{self._literal(t.inst)}: no `{t.category}` in "
                        f"{where} has room {what} it for the activity's "
                        f"{len(t.on_top) + len(t.in_it)} item(s)")

    def _place_on_piece(self, t: _Thing, o: dict[str, Any]) -> bool:
        x, y, z = o["pose"]["position"]
        sx, sy, sz = o["size"]
        yaw = _yaw(o)
        regions: list[tuple[list[str], list[_Region]]] = []
        if t.on_top:
            regions.append((t.on_top, [_Region(x, y, yaw, sx - 0.04, sy - 0.04, z + sz / 2)]))
        if t.in_it:
            conts = sorted(o.get("containers") or [], key=lambda k: (
                -k["size"][0] * k["size"][1] * k["size"][2], k["name"]))
            if not conts:
                return False
            cs, sn = math.cos(yaw), math.sin(yaw)
            regions.append((t.in_it, [
                _Region(x + cs * c["center"][0] - sn * c["center"][1],
                        y + sn * c["center"][0] + cs * c["center"][1], yaw,
                        c["size"][0] - 0.02, c["size"][1] - 0.02,
                        z + c["center"][2] - c["size"][2] / 2 + 0.005, c["size"][2] - 0.01)
                for c in conts]))
        marks = len(self.boxes), len(self.layout.objects), len(self.data["objects"])
        for kids, options in regions:
            for k in kids:
                if not any(self._put(self.b.things[k], r, o["id"]) for r in options):
                    del self.boxes[marks[0]:]
                    del self.box_ids[marks[0]:]
                    del self.layout.objects[marks[1]:]
                    del self.data["objects"][marks[2]:]
                    return False
        # the piece is now the activity's
        o["source"] = {**o.get("source", {}), "bddl": t.inst, "category": o["category"]}
        o["category"] = t.category
        attrs = self.layout._attrs(t)
        for key in ("state", "abilities"):
            if attrs.get(key):
                o.setdefault("attributes", {})[key] = attrs[key]
        if t.open:
            for c in o.get("containers") or []:
                c["open"] = True
            for part in o.get("parts") or []:
                if "joint" in part:
                    part["joint"]["position"] = part["joint"].get("upper", 1.57)
        return True

    def _put(self, t: _Thing, region: _Region, piece: str) -> bool:
        """`t` in the first free place of `region`, as the piece faces or turned a
        quarter (its children, if any, on or in it as generation puts them)."""
        size = self.layout.item_size(t)
        if size[2] > region.height:
            return False
        others = [b for b, ident in zip(self.boxes, self.box_ids, strict=True)
                  if ident != piece]  # in its compartment: within the piece's own box
        for turn, local in ((0.0, size), (math.pi / 2, (size[1], size[0], size[2]))):
            for cx, cy in region.cells(local):
                yaw = region.yaw + turn
                box = _box(cx, cy, region.z, size, yaw)
                if any(_overlap(box, other, PITCH_SLACK / 2) for other in others):
                    continue
                self._emit(t, cx, cy, region.z, yaw, box)
                return True
        return False

    def _emit(self, t: _Thing, x: float, y: float, z: float, yaw: float, box: Box) -> None:
        start = len(self.layout.objects)
        self.layout._item(t, x, y, z, yaw)
        self.data["objects"].extend(copy.deepcopy(self.layout.objects[start:]))
        self.boxes.append(box)
        self.box_ids.append(t.ident)

    # -- the floor
    def _floor_cells(self, room: dict[str, Any]) -> list[tuple[float, float]]:
        poly = room["polygon"]
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        out = []
        nx = int((max(xs) - min(xs)) / FLOOR_STEP)
        ny = int((max(ys) - min(ys)) / FLOOR_STEP)
        for i in range(1, nx):
            for j in range(1, ny):
                x, y = min(xs) + i * FLOOR_STEP, min(ys) + j * FLOOR_STEP
                if _inside(poly, x, y):
                    out.append((x, y))
        return out

    def _room_dict(self, word: str) -> dict[str, Any]:
        if word in self.room_of:
            return self.room_of[word]
        agent = self.data["agent"]["position"]
        rooms: list[dict[str, Any]] = self.data["rooms"]
        return next((r for r in rooms if _inside(r["polygon"], agent[0], agent[1])), rooms[0])

    def _floor_spot(self, room: dict[str, Any], size: tuple[float, float, float],
                    near: tuple[float, float] | None) -> tuple[float, float] | None:
        cells = self._floor_cells(room)
        self.rng.shuffle(cells)
        if near is not None:
            cells.sort(key=lambda p: (p[0] - near[0]) ** 2 + (p[1] - near[1]) ** 2)
        poly = room["polygon"]
        for x, y in cells:
            box = _box(x, y, 0.0, size, 0.0)
            corners = ((box[0] - 0.1, box[1] - 0.1), (box[3] + 0.1, box[1] - 0.1),
                       (box[0] - 0.1, box[4] + 0.1), (box[3] + 0.1, box[4] + 0.1))
            if not all(_inside(poly, cx, cy) for cx, cy in corners):
                continue
            if any(_overlap(box, o, FLOOR_CLEARANCE) for o in self.boxes):
                continue
            return x, y
        return None

    def _on_floor(self, t: _Thing, word: str) -> None:
        room = self._room_dict(word)
        near = None
        if t.beside is not None and t.beside in self.b.things:
            other = self.b.things[t.beside]
            spec = next((o for o in self.data["objects"] if o["id"] == other.ident), None)
            near = (spec["pose"]["position"][0], spec["pose"]["position"][1]) if spec else None
        size = self.layout.item_size(t)
        spot = self._floor_spot(room, size, near)
        if spot is None:
            raise BindError(NO_FREE_FLOOR, f"{self._literal(t.inst)}: no free floor for "
                            f"`{t.category}` in the scene's {room['category']} ({room['id']})")
        self._emit(t, spot[0], spot[1], 0.0, 0.0, _box(spot[0], spot[1], 0.0, size, 0.0))

    def _beside(self, t: _Thing) -> None:
        other = self.b.things.get(t.beside or "")
        if other is None:
            return
        spec = self.piece_of.get(other.inst) or next(
            (o for o in self.data["objects"] if o["id"] == other.ident), None)
        if spec is None:
            return
        x, y, _ = spec["pose"]["position"]
        yaw = _yaw(spec)
        ahead = spec["size"][0] / 2 + 0.45
        front = (x + math.cos(yaw) * ahead, y + math.sin(yaw) * ahead)
        room = next((r for r in self.data["rooms"] if _inside(r["polygon"], *front)), None)
        if room is None:
            room = next((r for r in self.data["rooms"] if _inside(r["polygon"], x, y)),
                        self.data["rooms"][0])
        size = self.layout.item_size(t)
        spot = self._floor_spot(room, size, front)
        if spot is None:
            raise BindError(NO_FREE_FLOOR, f"{self._literal(t.inst, 'nextto')}: no free "
                            f"floor beside `{spec['id']}`")
        self._emit(t, spot[0], spot[1], 0.0, 0.0, _box(spot[0], spot[1], 0.0, size, 0.0))

    def _agent(self) -> None:
        b = self.b
        if b.agent_floor is None or b.agent_floor not in b.floor_room:
            return
        room = self.room_of.get(b.floor_room[b.agent_floor])
        agent = self.data["agent"]["position"]
        if room is None or _inside(room["polygon"], agent[0], agent[1]):
            return
        spot = self._floor_spot(room, (0.5, 0.5, 1.5), None)
        if spot is None:
            raise BindError(NO_FREE_FLOOR, f"{self._literal(b.agent_floor, 'ontop')}: no "
                            f"free floor for the robot in the scene's {room['category']}")
        self.data["agent"]["position"] = [round(spot[0], 4), round(spot[1], 4), 0.0]


def bind_activity(scene: Scene, activity: Activity, vocab: Vocabulary, seed: int = 0
                  ) -> GeneratedScene:
    """`scene` with `activity` bound into it (names from `vocab`, the import's); a
    `BindError` where it cannot be."""
    return _Binder(scene, activity, vocab, seed).bind()


def activity_bound(scene: Scene, ref: str, seed: int = 0) -> GeneratedScene:
    """`bind_activity` for activity `ref` as `fdc scene generate --from-bddl` takes it."""
    from fdc.interop.bddl.scene import load_activity

    activity, vocab = load_activity(ref)
    return bind_activity(scene, activity, vocab, seed)

