#!/usr/bin/env bash
# The test command: lint and type-check; check the built-in domain, library and example
# templates; compile the example apartment (one task per template), validate that suite
# with planner certificates and audit it (`fdc audit`: every task judged alike by the
# planner, the embedded world, the agents and the checkers); then the whole test suite.
# Arguments go to pytest. Daily work: `bash scripts/test.sh -m "not slow"` leaves out the
# slow tests, the planner certificates and the audit (a suite still compiles and validates);
# CI runs everything.
FDC_EXTRAS=dev,dask source "$(dirname "$0")/env.sh"
ruff check .
mypy compiler
fdc check domain examples/templates
SUITE_DIR="$(mktemp -d)"
trap 'rm -rf "$SUITE_DIR"' EXIT
fdc compile examples/scenes/apartment.json --max-per-template 1 --seed 0 \
    -o "$SUITE_DIR/suite.jsonl" > /dev/null
SOLVE=(--solve --timeout 60)
[[ " $* " == *"not slow"* ]] && SOLVE=()
# --jobs 2: the tasks in this process and a worker process (the report is the same for any
# number)
fdc validate "$SUITE_DIR/suite.jsonl" "${SOLVE[@]}" --jobs 2 > "$SUITE_DIR/validation.txt" \
    || { cat "$SUITE_DIR/validation.txt"; exit 1; }
# The audit of the whole suite (123 tasks, about 2.5 minutes of CPU): every task judged
# alike by the planner, the embedded world, the agents and the checkers, or the run fails.
if [[ " $* " != *"not slow"* ]]; then
    # --no-pixels: rendering the memory tasks' frames is covered by the slow tests of
    # tests/evaluation/test_audit_pixels.py on a small suite.
    fdc audit "$SUITE_DIR/suite.jsonl" --no-pixels --jobs 2 > "$SUITE_DIR/audit.txt" \
        || { cat "$SUITE_DIR/audit.txt"; exit 1; }
fi
python -m pytest "$@"
