"""Instructions (layer 3): referring expressions, the listener, instruction variants,
lint, and the sandboxed Jinja renderer with its filters. See docs/instructions.md."""
