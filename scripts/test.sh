#!/usr/bin/env bash
# The test command: lint and type-check; check the built-in domain, library and example
# templates; compile the example apartment (one task per template) and validate that
# suite with planner certificates; then the whole test suite. Arguments go to pytest.
# Daily work: `bash scripts/test.sh -m "not slow"` leaves out the slow tests and the
# planner certificates (a suite still compiles and validates); CI runs everything.
FDC_EXTRAS=dev source "$(dirname "$0")/env.sh"
ruff check .
mypy compiler
fdc check domain examples/templates
SUITE_DIR="$(mktemp -d)"
trap 'rm -rf "$SUITE_DIR"' EXIT
fdc compile examples/scenes/apartment.json --max-per-template 1 --seed 0 \
    -o "$SUITE_DIR/suite.jsonl" > /dev/null
SOLVE=(--solve --timeout 60)
[[ " $* " == *"not slow"* ]] && SOLVE=()
fdc validate "$SUITE_DIR/suite.jsonl" "${SOLVE[@]}" > "$SUITE_DIR/validation.txt" \
    || { cat "$SUITE_DIR/validation.txt"; exit 1; }
python -m pytest "$@"
