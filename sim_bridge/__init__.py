"""fdc's bridge to simulated worlds (layer 1), itself in layers: geometry, the scene
format, the scene graph, world models, Habitat, pictures and the renderer. See
docs/scene-graph.md, docs/world.md and docs/architecture.md ("Layers")."""
