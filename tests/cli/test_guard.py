"""The top-level guard: an unexpected exception is an internal error (exit 3, a short
message, the command, fdc's version, a hint), its traceback only with `fdc --debug`; an
`InputError` exits 2 with its message; an interrupt 130; typer's usage errors stay 2; a
closed output pipe ends quietly."""

from __future__ import annotations

import pytest

import fdc.schemas
from fdc.cli import app
from fdc.core.errors import InputError, OutputError
from fdc.core.version import __version__
from tests.cli.helpers import runner


def raising(exc: BaseException) -> object:
    def schema_json(_name: str) -> str:
        raise exc

    return schema_json


def test_an_unexpected_exception_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fdc.schemas, "schema_json", raising(RuntimeError("boom\n  at x")))
    result = runner.invoke(app, ["schema", "check-report"])
    assert result.exit_code == 3
    assert result.output.splitlines() == [
        "fdc: internal error: RuntimeError: boom at x",
        "  command: fdc schema check-report",
        f"  fdc version: {__version__}",
        "  hint: this is a bug in fdc; please report it with the output of the same command "
        "run as `fdc --debug ...` (it shows the traceback)"]
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fdc.schemas, "schema_json", raising(KeyError("k")))
    result = runner.invoke(app, ["--debug", "schema", "check-report"])
    assert result.exit_code == 3
    assert "Traceback (most recent call last)" in result.output
    assert "in schema_json" in result.output
    assert "fdc: internal error: KeyError: 'k'" in result.output
    assert "command: fdc --debug schema check-report" in result.output


@pytest.mark.parametrize("error", [InputError("x.json: error: bad"),
                                   OutputError("cannot write /x: Permission denied")])
def test_an_input_or_output_error_exits_2_with_its_message(
        monkeypatch: pytest.MonkeyPatch, error: InputError) -> None:
    monkeypatch.setattr(fdc.schemas, "schema_json", raising(error))
    result = runner.invoke(app, ["schema", "check-report"])
    assert (result.exit_code, result.output) == (2, f"error: {error}\n")


def test_an_interrupt_exits_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fdc.schemas, "schema_json", raising(KeyboardInterrupt()))
    result = runner.invoke(app, ["schema", "check-report"])
    assert (result.exit_code, result.output) == (130, "fdc: interrupted\n")


@pytest.mark.parametrize("args", [["schema"], ["--nope"], ["schema", "a", "b"], ["nope"]])
def test_usage_errors_stay_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "internal error" not in result.output


def test_a_closed_output_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fdc audit --help | head -40`: the reader went away while fdc still wrote; click's
    own quiet exit 1, not an internal error."""
    monkeypatch.setattr(fdc.schemas, "schema_json", raising(BrokenPipeError(32, "Broken pipe")))
    result = runner.invoke(app, ["schema", "check-report"])
    assert (result.exit_code, result.output) == (1, "")
