"""`python -m fdc`: the command line, as the `fdc` script runs it. See docs/cli.md."""

from fdc.cli import main

main()
