#!/usr/bin/env bash
# The test command: lint, type-check, then the whole test suite.
FDC_EXTRAS=dev source "$(dirname "$0")/env.sh"
ruff check .
mypy compiler
python -m pytest "$@"
