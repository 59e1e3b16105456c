"""Interop (layer 5): compiled suites out to and in from other systems (PDDL, Habitat
episodes and PDDL YAML, PARTNR, BEHAVIOR's BDDL, VLM-ready exports). See
docs/habitat.md, docs/partnr.md and docs/bddl.md."""
