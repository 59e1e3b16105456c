"""The support tree and the warnings of physically odd scenes, computed by hand."""

from __future__ import annotations

from fdc.sim_bridge.scene.schema import Kind
from tests.sim_bridge.helpers import graph, obj, on_top

TABLE = obj("table", "table", (2, 2, 0.375), (1.2, 0.8, 0.75))  # top at 0.75, x 1.4-2.6
SHELF = obj(
    "shelf",
    "bookshelf",
    (0.25, 3.0, 0.8),
    (0.4, 1.0, 1.6),
    surfaces=[{"name": "low", "z": -0.4}, {"name": "mid", "z": 0.0}, {"name": "top", "z": 0.8}],
)
CABINET = obj(
    "cabinet",
    "cabinet",
    (3.5, 0.6, 0.45),
    (0.5, 0.8, 0.9),
    containers=[{"name": "inside", "center": [0, 0, 0], "size": [0.44, 0.74, 0.8], "open": True}],
)


def test_support_parents_depths_and_kinds() -> None:
    g = graph(
        [
            TABLE,
            SHELF,
            CABINET,
            on_top("book", "book", (1.8, 2.0), 0.75, (0.2, 0.3, 0.04)),
            on_top("mug", "mug", (1.8, 2.0), 0.79, (0.08, 0.08, 0.1)),  # on the book
            # overhangs the edge x = 2.6: overlap 0.2 x 0.3 = 0.06 > 0.4 x 0.09
            on_top("plate", "plate", (2.55, 2.0), 0.75, (0.3, 0.3, 0.02)),
            on_top("hover", "mug", (2.0, 1.8), 0.79, (0.08, 0.08, 0.1)),  # 4 cm gap: still on
            on_top("vase", "vase", (0.25, 3.0), 0.82, (0.1, 0.1, 0.3)),  # 2 cm above mid shelf
            on_top("cup", "cup", (3.5, 0.6), 0.05, (0.08, 0.08, 0.1)),  # inside the cabinet
        ]
    )
    parent = {o.id: o.parent_surface for o in g.objects()}
    assert parent == {
        "table": None,
        "shelf": None,
        "cabinet": None,
        "book": "table|top",
        "mug": "book|top",
        "plate": "table|top",
        "hover": "table|top",
        "vase": "shelf|mid",
        "cup": "cabinet|inside",
    }
    assert g.object("table").depth == 1 and g.object("book").depth == 2
    assert g.object("mug").depth == 3
    assert g.object("table").kind is Kind.FURNITURE  # inferred: stands on the floor
    assert g.carrier("mug").id == "book" and g.root_carrier("mug").id == "table"
    assert [o.id for o in g.items_on("table|top")] == ["book", "hover", "plate"]
    assert [s.id for s in g.surfaces_of("shelf")] == ["shelf|low", "shelf|mid", "shelf|top"]
    clear = {s.name: round(s.clearance_m, 6) for s in g.surfaces("shelf")}
    assert clear == {"low": 0.4, "mid": 0.8, "top": 1.0}  # room ceiling 2.6 m
    assert g.surface("cabinet|inside").clearance_m == 0.8
    assert not g.findings


def test_too_little_overlap_or_too_big_a_gap_means_floating() -> None:
    g = graph(
        [
            TABLE,
            # overlap 0.05 x 0.3 = 0.015 < 0.4 x 0.09: not supported
            on_top("edge", "box", (2.7, 2.0), 0.75, (0.3, 0.3, 0.1)),
            on_top("high", "mug", (2.0, 2.0), 0.81, (0.08, 0.08, 0.1)),  # 6 cm gap
        ]
    )
    assert g.object("edge").parent_surface is None
    assert g.object("high").parent_surface is None
    floating = sorted(f.entities[0] for f in g.findings if f.code == "W102")
    assert floating == ["edge", "high"]


def test_interpenetration_and_outside_every_room_are_warned_with_names() -> None:
    g = graph(
        [
            TABLE,
            obj("chair", "chair", (2.5, 2.2, 0.45), (0.5, 0.5, 0.9)),  # overlaps the table
            obj("crate", "crate", (6.0, 1.0, 0.2), (0.4, 0.4, 0.4)),  # the room is 4 x 4
        ]
    )
    codes = sorted((f.code, f.entities) for f in g.findings)
    assert codes == [("W101", ("table", "chair")), ("W103", ("crate",))]
    assert "interpenetrate" in g.findings[0].message or "interpenetrate" in g.findings[1].message


def test_rooms_by_polygon_and_lookups() -> None:
    from tests.sim_bridge.helpers import room

    g = graph(
        [
            TABLE,
            on_top("mug", "mug", (2.0, 2.0), 0.75, (0.08, 0.08, 0.1), attributes={"color": "red"}),
            obj("sofa", "sofa", (6.0, 2.0, 0.3), (0.9, 2.0, 0.6)),
        ],
        rooms=[room("kitchen", "kitchen", 0, 0, 4, 4), room("living", "living_room", 4, 0, 8, 4)],
    )
    assert g.object("mug").room == "kitchen" and g.object("sofa").room == "living"
    assert g.room_of((5.0, 1.0)).id == "living" and g.room_of((9.0, 1.0)) is None
    assert g.room_of("table|top").id == "kitchen"
    assert [o.id for o in g.objects(attributes={"color": "red"})] == ["mug"]
    assert [o.id for o in g.objects(room="living")] == ["sofa"]
    assert [o.id for o in g.objects(on="table")] == ["mug"]
    assert [o.id for o in g.by_category("sofa")] == ["sofa"]
    assert g.entity("kitchen").category == "kitchen"
    assert g.entity("table|top").object_id == "table"


def test_nothing_rests_on_what_stands_inside_it() -> None:
    """A box on the floor with a box inside it (an envelope in a mailbox): the inner box's
    floor lies 4 cm above the outer box's bottom, within the gap the support rule allows,
    and the outer box was matched to it (the world then measured the mailbox's room under
    the envelope's floor and refused a second envelope); a support is never above the
    bottom of what it carries."""
    import numpy as np
    import shapely

    from fdc.sim_bridge.graph.support import SupportConfig, match_supports

    outer = shapely.box(0.0, 0.0, 0.66, 0.66)
    inner = shapely.box(0.1, 0.1, 0.34, 0.34)
    footprints = np.array([outer, inner], dtype=object)
    bottoms = np.array([0.0, 0.02])
    floors = np.array([shapely.box(0.02, 0.02, 0.64, 0.64), shapely.box(0.12, 0.12, 0.32, 0.32)],
                      dtype=object)
    parent = match_supports(footprints, bottoms, floors, np.array([0.02, 0.04]),
                            np.array([0, 1]), SupportConfig())
    assert parent.tolist() == [-1, 0]  # before: [1, 0], the mailbox on the envelope's floor
