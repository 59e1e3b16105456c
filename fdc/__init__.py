"""fdc: compiles PDDL task templates into verifiable task suites for embodied agents."""

__version__ = "0.1.0"
