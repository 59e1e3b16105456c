"""The `fdc` command line: a thin layer over the library.

Exit codes everywhere: 0 ok, 1 findings, 2 usage or input error.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fdc.schemas import MODELS

app = typer.Typer(
    name="fdc",
    help="Compile PDDL task templates into verifiable task suites for embodied agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _register_subcommands() -> None:
    from fdc.cli_scene import import_app, scene_app

    app.add_typer(scene_app, name="scene")
    app.add_typer(import_app, name="import")


_register_subcommands()


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to check.")],
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
    no_builtin: Annotated[
        bool, typer.Option("--no-builtin", help="Do not load fdc's built-in domains.")
    ] = False,
) -> None:
    """Parse and type-check domains, problems and templates; report every problem."""
    from fdc.compiler.check import check_paths
    from fdc.compiler.diagnostics import CheckReport, count, render_text, to_record

    result = check_paths([str(p) for p in paths], builtin=not no_builtin)
    errors, warnings = count(result.diagnostics)
    if output_format is OutputFormat.json:
        report = CheckReport(
            files=len(result.sources),
            definitions=result.definition_count,
            errors=errors,
            warnings=warnings,
            diagnostics=[to_record(d, result.sources) for d in result.diagnostics],
        )
        sys.stdout.write(report.model_dump_json(indent=2, exclude_none=True) + "\n")
    else:
        for d in result.diagnostics:
            sys.stdout.write(render_text(d, result.sources) + "\n")
        summary = (
            f"checked {len(result.sources)} file(s), {result.definition_count} definition(s): "
            f"{errors} error(s), {warnings} warning(s)"
        )
        _stderr().print(summary)
    if result.usage_error:
        raise typer.Exit(EXIT_USAGE)
    if errors or (strict and warnings):
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)


@app.command()
def fmt(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.pddl) to format.")],
    check_only: Annotated[
        bool, typer.Option("--check", help="Exit 1 if a file is not in canonical form.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", "-w", help="Rewrite files in place.")] = False,
) -> None:
    """Print each file in canonical form (or rewrite it, or just check it)."""
    from fdc.compiler.check import expand_paths, missing_message
    from fdc.compiler.diagnostics import SourceFile, render_text
    from fdc.compiler.files import write_atomic
    from fdc.compiler.parse import parse_source
    from fdc.compiler.printer import print_unit

    files, missing = expand_paths([str(p) for p in paths])
    for m in missing:
        _stderr().print(f"{m}: error[P001]: {missing_message(m)}")
    if missing:
        raise typer.Exit(EXIT_USAGE)
    status = EXIT_OK
    for path in files:
        try:
            source = SourceFile.read(path)
        except OSError as e:
            _stderr().print(f"{path}: error[P001]: cannot read the file: {e.strerror}")
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
            _stderr().print(f"{path}: error[P005]: the file nests too deeply to format")
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


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help="The format: " + ", ".join(sorted(MODELS)))],
) -> None:
    """Print the JSON Schema of one of fdc's public formats."""
    from fdc.schemas import schema_json

    if name not in MODELS:
        _stderr().print(f"error: unknown format `{name}`; known: {', '.join(sorted(MODELS))}")
        raise typer.Exit(EXIT_USAGE)
    sys.stdout.write(schema_json(name))


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
