"""Agents (layer 5): the Gymnasium environment, the action vocabulary, the oracles, the
random agents, VLM clients and the predictions file. See docs/agents.md."""
