"""World models: `WorldState` and snapshots, trajectories, the embedded kinematic world,
the experience log and its simulation, and plans acted out. See docs/world.md."""
