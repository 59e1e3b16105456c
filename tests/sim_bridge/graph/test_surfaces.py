"""Platforms from meshes (trimesh): upward faces, growth, small pieces, concave splits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely

from fdc.sim_bridge.graph.surfaces import (
    SurfaceConfig,
    component_labels,
    mesh_platforms,
    split_concave,
)
from tests.sim_bridge.helpers import graph, obj


def _box(lo: tuple[float, float, float], hi: tuple[float, float, float]):
    import trimesh

    m = trimesh.creation.box(extents=np.subtract(hi, lo))
    m.apply_translation(np.add(lo, hi) / 2)
    return m


def test_a_box_has_one_platform_its_top() -> None:
    m = _box((0, 0, 0), (1.0, 0.5, 0.7))
    ((z, poly),) = mesh_platforms(m.vertices, m.faces, SurfaceConfig())
    assert z == pytest.approx(0.7)
    assert poly.bounds == pytest.approx((0.0, 0.0, 1.0, 0.5))


def test_steps_give_platforms_and_tiny_ones_are_dropped() -> None:
    import trimesh

    low = _box((0, 0, 0), (1.0, 1.0, 0.4))
    high = _box((1.0, 0, 0), (1.5, 1.0, 0.9))
    knob = _box((0.2, 0.2, 0.4), (0.22, 0.22, 0.5))  # 4 cm2 top: under 25 cm2
    m = trimesh.util.concatenate([low, high, knob])
    found = mesh_platforms(m.vertices, m.faces, SurfaceConfig())
    assert [(round(z, 6), round(p.area, 6)) for z, p in found] == [(0.4, 1.0), (0.9, 0.5)]


def test_a_surface_modelled_twice_is_one_platform() -> None:
    """A 1 mm slab over a table's top (as Habitat's test donut and platform meshes are
    modelled: two platforms 1 mm apart): one platform, at the slab's height; a 5 cm step
    stays two."""
    import trimesh

    table = _box((0, 0, 0), (1.0, 0.5, 0.7))
    slab = _box((0.1, 0, 0.7), (1.0, 0.5, 0.701))
    m = trimesh.util.concatenate([table, slab])
    found = mesh_platforms(m.vertices, m.faces, SurfaceConfig())
    assert [(round(z, 6), round(p.area, 6)) for z, p in found] == [(0.701, 0.5)]
    m = trimesh.util.concatenate([table, _box((0.1, 0, 0.7), (1.0, 0.5, 0.75))])
    found = mesh_platforms(m.vertices, m.faces, SurfaceConfig())
    assert [round(z, 6) for z, _ in found] == [0.7, 0.75]


def test_gently_sloped_neighbours_join_the_platform() -> None:
    # A flat square with a strip bent down by 10 degrees along one edge.
    v = np.array(
        [
            [0, 0, 0],
            [1, 0, 0],
            [1, 1, 0],
            [0, 1, 0],
            [1.2, 0, -0.2 * np.tan(np.radians(10))],
            [1.2, 1, -0.2 * np.tan(np.radians(10))],
        ],
        dtype=float,
    )
    f = np.array([[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]])
    ((_, poly),) = mesh_platforms(v, f, SurfaceConfig())
    assert poly.area == pytest.approx(1.2)


def test_concave_platforms_are_split() -> None:
    ell = shapely.Polygon([(0, 0), (2, 0), (2, 0.4), (0.4, 0.4), (0.4, 2), (0, 2)])
    assert ell.area / ell.convex_hull.area < 0.8
    pieces = split_concave(ell, 0.0, SurfaceConfig())
    assert len(pieces) > 2
    assert sum(p.area for p in pieces) == pytest.approx(ell.area)
    # Cuts run through the outline's own corners, so an L falls into rectangles.
    assert all(p.area / p.convex_hull.area > 0.999 for p in pieces)


def test_objects_with_meshes_get_mesh_surfaces(tmp_path: Path) -> None:
    import trimesh

    m = trimesh.util.concatenate(
        [_box((0.0, -0.3, -0.4), (0.5, 0.3, 0.0)), _box((-0.5, -0.3, -0.4), (0.0, 0.3, 0.4))]
    )
    m.export(tmp_path / "desk.ply")
    s = obj("desk", "desk", (2.0, 2.0, 0.4), (1.0, 0.6, 0.8), mesh={"path": "desk.ply"})
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from tests.sim_bridge.helpers import scene

    g = build_scene_graph(scene([s]), base_dir=tmp_path)
    got = [
        (x.source, round(x.z, 6), tuple(round(b, 6) for b in x.polygon.bounds))
        for x in g.surfaces("desk")
    ]
    assert got == [("mesh", 0.4, (2.0, 1.7, 2.5, 2.3)), ("mesh", 0.8, (1.5, 1.7, 2.0, 2.3))]
    assert g.surface("desk|platform_0").clearance_m == pytest.approx(2.2)


def test_box_tops_and_movable_tops() -> None:
    g = graph(
        [
            obj("table", "table", (2, 2, 0.375), (1.2, 0.8, 0.75)),
            obj("tray", "tray", (2, 2, 0.765), (0.45, 0.32, 0.03), kind="movable"),
            obj("pen", "pen", (2.5, 2, 0.76), (0.15, 0.02, 0.02), kind="movable"),
        ]
    )
    assert [s.id for s in g.surfaces()] == ["table|top", "tray|top"]  # a pen is too small


def test_component_labels() -> None:
    labels = component_labels(6, np.array([[0, 1], [1, 2], [4, 5]]))
    assert labels.tolist() == [0, 0, 0, 3, 4, 4]
