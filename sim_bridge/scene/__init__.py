"""The scene format (`scene.json`): its schema, loading it, and generated scenes. See
docs/formats/scene.md and docs/scene-graph.md."""
