# Sourced by the scripts: creates .venv with Python 3.11 if missing and installs fdc
# (editable, with the given extras) when pyproject.toml changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
fi
EXTRAS="${FDC_EXTRAS:-}"
STAMP=".venv/.fdc-installed${EXTRAS:+-$EXTRAS}"
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    .venv/bin/python -m pip install -q -e ".${EXTRAS:+[$EXTRAS]}"
    touch "$STAMP"
fi
# The tests load exported PDDL with habitat-lab's own classes: its wheel pins numpy 1.x
# and a simulator stack, none of which those classes need, so it comes without them.
if [[ ",$EXTRAS," == *",dev,"* ]] && [ ! -f .venv/.fdc-habitat-lab ]; then
    .venv/bin/python -m pip install -q --no-deps "habitat-lab==0.3.320260507"
    touch .venv/.fdc-habitat-lab
fi
export PATH="$ROOT/.venv/bin:$PATH"
