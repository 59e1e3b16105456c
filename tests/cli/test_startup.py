"""What `fdc` imports before it knows the command: the CLI's modules and what their
options name, not the machinery of any one command."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_starts_without_the_agents_or_the_audit() -> None:
    # `fdc.cli.audit` imported the audit's checks (and with them the agents, the
    # compiler and gymnasium) for one constant: 0.6 CPU-s on every command
    code = ("import sys, fdc.cli; print(' '.join(m for m in ('fdc.agents.baselines', "
            "'fdc.agents.oracle', 'fdc.evaluation.audit.checks', 'gymnasium') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
