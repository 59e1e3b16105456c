"""3x3 cells and the 8 regions around an anchor, cut at neighbours and walls; all computed
by hand for a 1.2 x 0.8 table top centred at (2, 2)."""

from __future__ import annotations

import pytest

from fdc.sim_bridge.graph.regions import Direction, Side, relative_direction, surface_direction
from tests.sim_bridge.helpers import graph, obj, on_top

T = 1 / 3


def bounds(region) -> tuple[float, ...]:
    return tuple(round(v, 4) for v in region.polygon.bounds)


def table(yaw: float = 0.0, y: float = 2.0) -> dict:
    return obj("table", "table", (2.0, y, 0.375), (1.2, 0.8, 0.75), yaw)


def test_cells_of_an_empty_surface() -> None:
    g = graph([table()])
    cells = {c.direction: bounds(c) for c in g.cells("table|top")}
    assert len(cells) == 9
    assert cells[Direction.FRONT_RIGHT] == (2.2, round(2 + 0.4 * T, 4), 2.6, 2.4)
    assert cells[Direction.CENTER] == (1.8, round(2 - 0.4 * T, 4), 2.2, round(2 + 0.4 * T, 4))
    assert cells[Direction.REAR_LEFT] == (1.4, 1.6, 1.8, round(2 - 0.4 * T, 4))
    assert g.regions("table|top") == g.cells("table|top")  # empty: the grid


def test_cells_follow_a_rotated_surface() -> None:
    g = graph([table(yaw=90.0)])  # front now faces +y, right faces -x
    cells = {c.direction: bounds(c) for c in g.cells("table|top")}
    assert cells[Direction.FRONT_RIGHT] == (1.6, 2.2, round(2 - 0.4 * T, 4), 2.6)
    assert cells[Direction.REAR] == (round(2 - 0.4 * T, 4), 1.4, round(2 + 0.4 * T, 4), 1.8)
    assert cells[Direction.LEFT] == (round(2 + 0.4 * T, 4), 1.8, 2.4, 2.2)


def test_eight_regions_around_an_anchor() -> None:
    g = graph([table(), on_top("mug", "mug", (2.0, 2.0), 0.75, (0.1, 0.1, 0.1))])
    r = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "mug")}
    assert set(r) == set(Direction) - {Direction.CENTER}
    assert r[Direction.FRONT] == (2.05, 1.95, 2.6, 2.05)
    assert r[Direction.REAR] == (1.4, 1.95, 1.95, 2.05)
    assert r[Direction.RIGHT] == (1.95, 2.05, 2.05, 2.4)
    assert r[Direction.LEFT] == (1.95, 1.6, 2.05, 1.95)
    assert r[Direction.REAR_RIGHT] == (1.4, 2.05, 1.95, 2.4)
    assert r[Direction.FRONT_LEFT] == (2.05, 1.6, 2.6, 1.95)
    assert [x.anchor_id for x in g.regions("table|top")] == ["mug"] * 8


def test_regions_of_a_rotated_surface() -> None:
    g = graph([table(yaw=90.0), on_top("mug", "mug", (2.0, 2.0), 0.75, (0.1, 0.1, 0.1))])
    r = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "mug")}
    assert r[Direction.FRONT] == (1.95, 2.05, 2.05, 2.6)  # +y
    assert r[Direction.RIGHT] == (1.6, 1.95, 1.95, 2.05)  # -x
    assert r[Direction.FRONT_LEFT] == (2.05, 2.05, 2.4, 2.6)


def test_regions_are_cut_at_the_first_neighbour() -> None:
    g = graph(
        [
            table(),
            on_top("mug", "mug", (2.0, 2.0), 0.75, (0.1, 0.1, 0.1)),
            on_top("book", "book", (2.3, 2.0), 0.75, (0.1, 0.2, 0.03)),
        ]
    )
    r = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "mug")}
    assert r[Direction.FRONT] == (2.05, 1.95, 2.25, 2.05)  # stops at the book (x = 2.25)
    # The corner keeps the larger of its two possible cuts: x up to 2.25.
    assert r[Direction.FRONT_RIGHT] == (2.05, 2.05, 2.25, 2.4)
    assert r[Direction.REAR] == (1.4, 1.95, 1.95, 2.05)  # nothing behind: uncut
    book = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "book")}
    assert book[Direction.REAR] == (2.05, 1.9, 2.25, 2.1)  # back to the mug's front (2.05)
    # Moving the mug itself: its own regions are not cut by it.
    free = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "book", exclude="mug")}
    assert free[Direction.REAR] == (1.4, 1.9, 2.25, 2.1)


def test_regions_are_cut_at_walls() -> None:
    # The table pokes 3 cm into the south wall (inner face y = 0.05).
    g = graph([table(y=0.42), on_top("mug", "mug", (2.0, 0.42), 0.75, (0.1, 0.1, 0.1))])
    assert round(g.surface("table|top").polygon.bounds[1], 4) == 0.02
    r = {x.direction: bounds(x) for x in g.anchor_regions("table|top", "mug")}
    assert r[Direction.LEFT] == (1.95, 0.05, 2.05, 0.37)
    assert r[Direction.RIGHT] == (1.95, 0.47, 2.05, 0.82)


@pytest.mark.parametrize(
    ("direction", "side", "expected"),
    [
        (Direction.FRONT, Side.FRONT, Direction.FRONT),
        (Direction.LEFT, Side.FRONT, Direction.LEFT),  # the words are a front viewer's
        (Direction.FRONT, Side.REAR, Direction.REAR),
        (Direction.LEFT, Side.LEFT, Direction.FRONT),
        (Direction.FRONT_LEFT, Side.RIGHT, Direction.REAR_LEFT),
        (Direction.REAR_LEFT, Side.FRONT, Direction.REAR_LEFT),
        (Direction.RIGHT, Side.REAR, Direction.LEFT),
    ],
)
def test_direction_words_relative_to_the_viewer(
    direction: Direction, side: Side, expected: Direction
) -> None:
    assert relative_direction(direction, side) is expected
    assert surface_direction(expected, side) is direction


def test_corner_cuts_through_the_index_equal_the_direct_ones() -> None:
    """On a crowded surface corners are cut through an STRtree, ring by ring: the same
    boxes in the same order as the pass over every obstacle, so the same regions."""
    import numpy as np
    import shapely

    from fdc.sim_bridge.graph.regions import _cut_corner, _cut_corner_indexed

    rng = np.random.default_rng(0)
    for trial in range(20):
        n = int(rng.integers(2, 600))
        lo = rng.uniform(0, 3 if trial % 2 else 30, size=(n, 2))
        # some boxes share corners and sizes exactly (ties in distance)
        lo[: n // 4] = np.round(lo[: n // 4], 1)
        size = rng.uniform(0.01, 0.5, size=(n, 2))
        obs = np.concatenate([lo, lo + size], axis=1)
        tree = shapely.STRtree(shapely.box(obs[:, 0], obs[:, 1], obs[:, 2], obs[:, 3]))
        others = np.ones(n, dtype=bool)
        for i in range(n):
            region = np.array([obs[i, 2], obs[i, 3], obs[:, 2].max() + 1, obs[:, 3].max() + 1])
            others[i] = False
            direct = _cut_corner(region, obs[others], 1e-6)
            others[i] = True
            indexed = _cut_corner_indexed(region, obs, tree, i, 1e-6)
            assert np.array_equal(direct, indexed), (trial, i)
