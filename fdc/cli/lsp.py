"""`fdc lsp`: the language server for editors (stdio), see docs/editor.md."""

from __future__ import annotations

from typing import Annotated

import typer


def lsp_command(
    stdio: Annotated[bool, typer.Option(
        "--stdio", show_default=False,
        help="Talk over standard input and output (the default; editors pass it).",
    )] = True,
) -> None:
    """Run the language server for .pddl templates and instruction files."""
    from fdc.lsp.server import serve

    serve()
