"""fdc: compiles PDDL task templates into verifiable task suites for embodied agents.
See docs/cli.md."""

from fdc.core.version import __version__

__all__ = ["__version__"]
