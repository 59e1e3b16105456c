#!/usr/bin/env bash
# The test command: lint and type-check; check the built-in domain, library and example
# templates; compile the example apartment (one task per template), validate that suite
# with planner certificates and audit it (`fdc audit`: every task judged alike by the
# planner, the embedded world, the agents and the checkers); then the whole test suite.
# Arguments go to pytest. Daily work: `bash scripts/test.sh -m "not slow"` leaves out the
# slow tests, the planner certificates and the audit (a suite still compiles and validates);
# CI runs everything.
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
# The audit of the whole suite (118 tasks, about 5 minutes of CPU). The models agree on
# every task but a few where the planner finds no plan the embedded world carries out
# within its rounds and timeout, though the oracle solves the task (free space on crowded
# surfaces, which the abstraction learns only from the world's refusals): until those
# are fixed no more disagreements than AUDIT_KNOWN may be found; at 0 let `fdc audit`'s
# exit code decide alone.
AUDIT_KNOWN=6
if [[ " $* " != *"not slow"* ]]; then
    status=0
    fdc audit "$SUITE_DIR/suite.jsonl" --format json -o "$SUITE_DIR/audit.json" || status=$?
    (( status <= 1 )) || exit "$status"
    python - "$SUITE_DIR/audit.json" "$AUDIT_KNOWN" <<'PY'
import json, sys
report, known = json.load(open(sys.argv[1])), int(sys.argv[2])
if report["disagreeing"] > known:
    for d in report["disagreements"]:
        print(f"{d['task']} [{d['check']}]: {d['detail']}\n  $ {d['commands'][0]}")
    sys.exit(f"fdc audit: {report['disagreeing']} disagreements, more than the "
             f"{known} known")
PY
fi
python -m pytest "$@"
