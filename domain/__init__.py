"""fdc's built-in PDDL domain(s) and template library (data), and their loader.
See docs/library.md."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent

#: Where the built-in domain and templates live (records name built-in templates
#: relative to it, as `fdc:domain/templates/...`).
LIBRARY_ROOT = _HERE


def builtin_domain_files() -> list[Path]:
    """The built-in domain files, sorted (`fdc-home.pddl`, ...)."""
    return sorted(_HERE.glob("*.pddl"))


def builtin_template_files() -> list[Path]:
    """The built-in template library, sorted by path."""
    return sorted((_HERE / "templates").rglob("*.pddl"))
