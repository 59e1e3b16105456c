"""`fdc fmt`: print PDDL files in canonical form, rewrite them, or check them.

Exit codes: 0 ok, 1 a file not in canonical form (`--check`), 2 a file that cannot be
read or parsed.
See docs/cli.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, stderr


def fmt_command(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to format.")],
    check_only: Annotated[
        bool, typer.Option("--check", help="Exit 1 if a file is not in canonical form.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", "-w", help="Rewrite files in place.")] = False,
) -> None:
    """Print each file in canonical form (or rewrite it, or just check it)."""
    from fdc.compiler.check import expand_paths, missing_message
    from fdc.compiler.parse import parse_source
    from fdc.compiler.printer import print_unit
    from fdc.core.files import write_atomic
    from fdc.core.inputs import InputFileError
    from fdc.core.problems import SourceFile, render_text

    files, missing = expand_paths([str(p) for p in paths])
    for m in missing:
        stderr().print(f"{m}: error[P001]: {missing_message(m)}")
    if missing:
        raise typer.Exit(EXIT_USAGE)
    status = EXIT_OK
    for path in files:
        try:
            source = SourceFile.read(path)
        except InputFileError as e:
            stderr().print(f"{path}: error[P001]: cannot read the file: {e}", markup=False)
            status = EXIT_USAGE
            continue
        result = parse_source(source)
        if result.unit is None or result.diagnostics:
            for d in result.diagnostics:
                sys.stderr.write(render_text(d, {path: source}) + "\n")
            status = EXIT_USAGE
            continue
        try:
            text = print_unit(result.unit, comments_from=source.text)
        except RecursionError:
            stderr().print(f"{path}: error[P005]: the file nests too deeply to format")
            status = EXIT_USAGE
            continue
        if check_only:
            if text != source.text:
                sys.stdout.write(f"{path}: not in canonical form\n")
                status = max(status, EXIT_FINDINGS)
        elif write:
            if text != source.text:
                write_atomic(Path(path), text)
        else:
            sys.stdout.write(text)
    raise typer.Exit(status)
