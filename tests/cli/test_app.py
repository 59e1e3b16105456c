"""The app: each command and group registered once (typer keeps commands before groups;
`fdc --help` shows them in the panels of the three jobs, tests/cli/test_help.py)."""

from __future__ import annotations

from typer.main import get_group

from fdc.cli import app


def test_commands_and_groups_in_order() -> None:
    group = get_group(app)
    assert list(group.commands) == [
        "check", "fmt", "lsp", "compile", "explain", "validate", "audit", "verify",
        "run-baseline", "evaluate", "browse", "schema", "scene", "experience", "render",
        "run-agent", "import", "export"]
    subcommands = {name: list(getattr(group.commands[name], "commands", {}))
                   for name in ("scene", "import", "experience", "render", "run-agent", "export")}
    assert subcommands == {"scene": ["inspect", "render", "generate", "bind"],
                           "import": ["habitat", "partnr", "bddl"],
                           "experience": ["generate", "render"],
                           "render": ["view", "experience", "suite"],
                           "run-agent": ["vlm"],
                           "export": ["habitat", "partnr", "pddl", "bddl", "vlm"]}
