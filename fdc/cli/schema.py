"""`fdc schema`: the JSON Schema of one of fdc's public formats.

Exit codes: 0 ok, 2 an unknown format.
See docs/cli.md.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from fdc.cli.common import EXIT_USAGE, stderr
from fdc.schemas import MODELS


def schema_command(
    name: Annotated[str, typer.Argument(help="The format: " + ", ".join(sorted(MODELS)))],
) -> None:
    """Print the JSON Schema of one of fdc's public formats."""
    from fdc.schemas import schema_json

    if name not in MODELS:
        stderr().print(f"error: unknown format `{name}`; known: {', '.join(sorted(MODELS))}")
        raise typer.Exit(EXIT_USAGE)
    sys.stdout.write(schema_json(name))
