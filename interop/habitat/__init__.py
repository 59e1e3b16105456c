"""Compiled suites as Habitat episodes (RearrangeDataset-v0) and habitat-lab's PDDL, and
judging them with habitat-lab's own classes. See docs/habitat.md."""
