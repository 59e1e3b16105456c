"""The receptacle-aware scene graph: its build passes (bodies, rooms, support, surfaces,
regions, navigation, visibility), and the one placement and route search every world
model shares. See docs/scene-graph.md."""
