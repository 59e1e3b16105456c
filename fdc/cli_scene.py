"""`fdc scene ...` and `fdc import habitat`: scene commands (issue 3 fills these in)."""

from __future__ import annotations

import typer

scene_app = typer.Typer(help="Generate, inspect and render scenes.", no_args_is_help=True)
import_app = typer.Typer(help="Import scenes and tasks from other formats.", no_args_is_help=True)
