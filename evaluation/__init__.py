"""Scoring agents on compiled suites: FindingDory's memory metrics, ManiTaskGen's
success rate and intermediate points, per-task feedback, reports and plots.
See docs/evaluation.md."""
