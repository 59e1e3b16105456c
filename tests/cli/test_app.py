"""The app: each command and group registered once, in the order `fdc --help` lists them."""

from __future__ import annotations

from typer.main import get_group

from fdc.cli import app


def test_commands_and_groups_in_order() -> None:
    group = get_group(app)
    assert list(group.commands) == [
        "validate", "audit", "compile", "explain", "evaluate", "run-baseline", "check", "fmt", "lsp",
        "verify", "schema", "scene", "import", "experience", "export"]
    subcommands = {name: list(getattr(group.commands[name], "commands", {}))
                   for name in ("scene", "import", "experience", "export")}
    assert subcommands == {"scene": ["inspect", "render", "generate"],
                           "import": ["habitat", "partnr"],
                           "experience": ["generate", "render"],
                           "export": ["habitat", "partnr", "pddl"]}
