"""Putting the held item down on the floor of a room: the embedded world's floor
placement (`EmbeddedWorld.place_on_floor`).

The spot is found as the placement queries find theirs (`fdc.sim_bridge.graph.
placement`): candidate centres on a grid, the item's box (unturned, then turned a
quarter) tested against what is there in one vectorised pass, the best candidate by a
fixed score. A candidate's footprint lies inside the room's polygon, clear by the
placement gap of the walls, fixed objects and items standing in the item's height over
the floor (`PosedGraph.floor_obstacles`) and of the robot's disc; its centre lies within
the robot's arm reach (an item on the floor is picked from there: `EmbeddedWorld.pick`).
The best one is the nearest to the preferred point (beside the robot, or beside an item
on the floor that the item goes next to), then the smallest x, then y. Deterministic.
See docs/world.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from fdc.sim_bridge.geometry import rects, yaw_quaternion
from fdc.sim_bridge.graph.placement import Placement, Relation
from fdc.sim_bridge.scene.schema import Pose

if TYPE_CHECKING:
    from fdc.sim_bridge.world.posed import PosedGraph

#: The grid step of the floor's candidate centres.
FLOOR_STEP_M = 0.05
#: The item's headings tried, in the room's frame (unturned first).
FLOOR_TURNS = (0.0, math.pi / 2)


def floor_spot(posed: PosedGraph, item: str, size: tuple[float, float, float], room: str,
               robot: tuple[float, float], robot_radius_m: float, reach_m: float,
               prefer: tuple[float, float], gap_m: float) -> Placement:
    """A collision-free pose for `item` (of `size`) on the floor of `room` within
    `reach_m` of the robot at `robot`, nearest to `prefer` (module doc); a refusal
    with the reason when there is none."""
    import shapely

    layout = posed.layout
    if room not in layout.room_ids:
        return Placement(item, Relation.ON, None, None, (), f"there is no room `{room}`")
    k = layout.room_ids.index(room)
    floor_z = float(layout.floor_z[k])
    polygon = layout.room_polygons[k]
    sx, sy, sz = (float(v) for v in size)
    reach = shapely.Point(robot).buffer(reach_m + max(sx, sy))
    obstacles = posed.floor_obstacles(shapely.intersection(polygon, reach), floor_z, sz, item)
    blocked = shapely.union_all([shapely.buffer(o, gap_m, join_style="mitre")
                                 for o in obstacles] +
                                [shapely.Point(robot).buffer(robot_radius_m + gap_m)])
    inside = shapely.buffer(polygon, -gap_m, join_style="mitre")
    shapely.prepare(inside)
    n = math.ceil(reach_m / FLOOR_STEP_M)
    ax = np.arange(-n, n + 1) * FLOOR_STEP_M
    gx, gy = np.meshgrid(robot[0] + ax, robot[1] + ax, indexing="ij")
    cx, cy = gx.ravel(), gy.ravel()
    near = np.hypot(cx - robot[0], cy - robot[1]) <= reach_m + 1e-9
    cx, cy = cx[near], cy[near]
    order = np.lexsort((cy, cx, np.hypot(cx - prefer[0], cy - prefer[1]).round(9)))
    cx, cy = cx[order], cy[order]
    for turn in FLOOR_TURNS:
        fps = rects(cx, cy, sx / 2, sy / 2, turn)
        ok = shapely.contains(inside, fps)
        if not blocked.is_empty:
            ok &= ~shapely.intersects(fps, blocked)
        hits = np.nonzero(ok)[0]
        if len(hits):
            j = int(hits[0])
            pose = Pose(position=(float(cx[j]), float(cy[j]), floor_z + sz / 2),
                        orientation=yaw_quaternion(turn))
            return Placement(item, Relation.ON, pose, None, (), "", turn, fps[j])
    return Placement(item, Relation.ON, None, None, (),
                     f"no collision-free spot for `{item}` ({sx:.2f} x {sy:.2f} m) on the "
                     f"floor of `{room}` within {reach_m:g} m of the robot")
