"""`fdc export ...`: write compiled suites in other systems' formats.

Each format's command lives beside the library code it wraps and is registered on
`export_app` in `fdc.cli._register_subcommands`.
"""

from __future__ import annotations

import typer

export_app = typer.Typer(
    help="Export task suites to other formats (PDDL, Habitat, PARTNR).", no_args_is_help=True
)
