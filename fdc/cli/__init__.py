"""The `fdc` command line: a thin layer over the library, one module per command group.

This module builds the app, registers each command and group in the order `fdc --help`
lists them, and holds the one top-level guard (`GuardedGroup`). Exit codes everywhere: 0
ok, 1 findings (or the output's reader gone), 2 usage or input error, 3 internal error,
130 interrupted.
See docs/cli.md.
"""

from __future__ import annotations

import shlex
import sys
import traceback
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from fdc.cli.agent import run_agent_app
from fdc.cli.audit import audit_command
from fdc.cli.baseline import run_baseline_command
from fdc.cli.browse import browse_command
from fdc.cli.check import check_command
from fdc.cli.common import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE
from fdc.cli.compile import compile_command, explain_command
from fdc.cli.evaluate import evaluate_command
from fdc.cli.experience import experience_app
from fdc.cli.export import export_app
from fdc.cli.fmt import fmt_command
from fdc.cli.help import COMPILE, EXCHANGE, VALIDATE, WRITE, tidy
from fdc.cli.imports import import_app
from fdc.cli.limits import apply_limits
from fdc.cli.lsp import lsp_command
from fdc.cli.render import render_app
from fdc.cli.scene import scene_app
from fdc.cli.schema import schema_command
from fdc.cli.validate import validate_command
from fdc.cli.verify import verify_command


class GuardedGroup(TyperGroup):
    """The `fdc` group: whatever a command lets escape ends as an exit code and a short
    message, never a traceback (unless `fdc --debug`); its help and every command's is
    tidied (`fdc.cli.help`). An `InputError` (a bad input or
    output the user named) exits 2 with its message; an interrupt exits 130; any other
    exception is an internal error, exit 3. Typer's own exits and usage errors pass, and so
    does a reader that closed the pipe (`fdc ... | head`): click ends quietly, exit 1."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy(self)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: Any = None, **extra: Any) -> Any:
        argv = list(args)
        ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta["fdc.argv"] = argv
        return ctx

    def invoke(self, ctx: Any) -> Any:
        from typer._click.exceptions import ClickException

        from fdc.core.errors import InputError

        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, ClickException, BrokenPipeError):
            raise  # a broken pipe (`fdc ... | head`): click ends quietly, exit 1
        except KeyboardInterrupt:
            _echo("fdc: interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except InputError as e:
            _echo(f"error: {e}")
            raise typer.Exit(EXIT_USAGE) from None
        except Exception as e:
            _internal_error(e, ctx.meta.get("fdc.argv", []), bool(ctx.params.get("debug")))
            raise typer.Exit(EXIT_INTERNAL) from None


def _echo(line: str) -> None:
    sys.stderr.write(line + "\n")


def _internal_error(e: Exception, argv: Sequence[str], debug: bool) -> None:
    """Say what went wrong, in which command and fdc version, and how to report it."""
    from fdc.core.version import __version__

    message = " ".join(str(e).split())
    if len(message) > 300:
        message = message[:300] + "..."
    if debug:
        traceback.print_exception(e)
    _echo(f"fdc: internal error: {type(e).__name__}: {message}")
    _echo(f"  command: {shlex.join(['fdc', *argv])}")
    _echo(f"  fdc version: {__version__}")
    if not debug:
        _echo("  hint: this is a bug in fdc; please report it with the output of the same "
              "command run as `fdc --debug ...` (it shows the traceback)")


app = typer.Typer(
    cls=GuardedGroup,
    name="fdc",
    help="Compile PDDL task templates into verifiable task suites for embodied agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from fdc.core.version import __version__

        sys.stdout.write(f"fdc {__version__}\n")
        raise typer.Exit()


@app.callback()
def fdc_options(
    version: Annotated[bool, typer.Option(
        "--version", help="Print fdc's version and exit.", is_eager=True, callback=_version,
    )] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="On an internal error (exit 3), print the full traceback.")] = False,
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", metavar="NAME=VALUE",
        help="Raise (or lower) one of fdc's input limits; repeatable. See docs/limits.md.",
    )] = None,
) -> None:
    """fdc's global options, given before the command (`fdc --debug compile ...`)."""
    apply_limits(limit or [])


# Commands and groups in the order of a user's three jobs: write templates, compile
# suites, validate; then formats and exchange (`fdc --help` shows one panel each).
_COMMANDS: tuple[tuple[str, str, Any], ...] = (
    (WRITE, "check", check_command), (WRITE, "fmt", fmt_command), (WRITE, "lsp", lsp_command),
    (COMPILE, "compile", compile_command), (COMPILE, "explain", explain_command),
    (COMPILE, "scene", scene_app), (COMPILE, "experience", experience_app),
    (COMPILE, "render", render_app),
    (VALIDATE, "validate", validate_command), (VALIDATE, "audit", audit_command),
    (VALIDATE, "verify", verify_command), (VALIDATE, "run-baseline", run_baseline_command),
    (VALIDATE, "run-agent", run_agent_app),
    (VALIDATE, "evaluate", evaluate_command), (VALIDATE, "browse", browse_command),
    (EXCHANGE, "import", import_app), (EXCHANGE, "export", export_app),
    (EXCHANGE, "schema", schema_command),
)
for _panel, _name, _command in _COMMANDS:
    if isinstance(_command, typer.Typer):
        app.add_typer(_command, name=_name, rich_help_panel=_panel)
    else:
        app.command(_name, rich_help_panel=_panel)(_command)


def main() -> None:  # pragma: no cover - console entry point
    app()
