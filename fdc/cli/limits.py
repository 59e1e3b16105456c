"""The global option `fdc --limit NAME=VALUE`: the limits in effect for one command.
See docs/cli.md."""

from __future__ import annotations

import typer

from fdc.cli.common import EXIT_USAGE, stderr


def apply_limits(settings: list[str]) -> None:
    """Put the default limits, with each `NAME=VALUE` of `settings` applied, in effect;
    exit 2 on an unknown name or a bad value."""
    from fdc.core.limits import LimitError, Limits, set_current

    limits = Limits()
    for setting in settings:
        try:
            limits = limits.with_setting(setting)
        except LimitError as e:
            stderr().print(f"error: {e.message}" + (f"\n      = hint: {e.hint}" if e.hint
                                                    else ""), markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    set_current(limits)
