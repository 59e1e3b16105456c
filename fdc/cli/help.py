"""How `fdc --help` and every command's help read: paragraphs that wrap at the width of
the screen (a docstring's own line breaks never cut a sentence short), and values named
by what they are (`SCENES`, `PATH`, `N`), never by a Python type (`<list[Path]>`, `<bool>`).
See docs/cli.md."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, get_args

#: The name shown for a value of each Python type; a flag shows none.
METAVARS: dict[type, str] = {Path: "PATH", int: "N", float: "NUMBER", str: "TEXT"}


#: The panels of `fdc --help`, in the order of a user's three jobs, then exchange.
WRITE = "Write templates"
COMPILE = "Compile suites"
VALIDATE = "Validate and evaluate"
EXCHANGE = "Formats and exchange"


def tidy(command: Any) -> None:
    """Tidy the help of a click command and of every command under it."""
    if command.help:
        command.help = paragraphs(command.help)
    for param in command.params:
        if param.metavar is None:
            param.metavar = metavar(param)
        if type(param).__name__ == "TyperArgument":
            # The name column shows the argument's name; typer would show its Python
            # type beside it.
            param.display_type_rich = _no_type
    command.get_help_option = _flag_help(command.get_help_option)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)


def _no_type(ctx: Any) -> None:
    return None


def _flag_help(get_help_option: Any) -> Any:
    """`--help`, made by click when help is asked for, shown as the flag it is."""

    def get(ctx: Any) -> Any:
        option = get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    return get


def paragraphs(text: str) -> str:
    """`text` with each paragraph on one line (`\\b` paragraphs kept as written)."""
    parts = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in parts)


def metavar(param: Any) -> str | None:
    """What a parameter's value is called in help: an argument by its name (`SCENES`),
    an option by its type (`PATH`, `N`), a flag by nothing, a choice by its choices
    (None: typer's own)."""
    if type(param).__name__ == "TyperArgument":
        return str(param.name).upper().replace("_", "-")
    if getattr(param, "is_flag", False):
        return ""
    desc = param.type_descriptor
    if desc.is_choice:  # one of them (typer's own), or any of them
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices or ()) \
            if desc.is_list else None
    annotation = get_args(desc.annotation)[0] if desc.is_list else desc.annotation
    return METAVARS.get(annotation)
