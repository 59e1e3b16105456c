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
# fdc browse's tests drive Debian's chromium headless (Playwright with the system
# browser; it never downloads one): installed here as root when missing, else they skip.
if [[ ",$EXTRAS," == *",dev,"* ]] && ! command -v chromium > /dev/null \
        && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium > /dev/null 2>&1 \
        || echo "warning: could not install chromium; the browser tests will skip" >&2
fi
# fdc render draws on the CPU with Mesa's llvmpipe over headless EGL (moderngl): Debian's
# EGL and Mesa packages, installed here as root when missing; without them the render
# commands exit 2 naming these packages, and their tests skip.
if [ ! -f /usr/share/glvnd/egl_vendor.d/50_mesa.json ] \
        && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 > /dev/null 2>&1 \
        || echo "warning: could not install Mesa's EGL; fdc render will not work" >&2
fi
export PATH="$ROOT/.venv/bin:$PATH"
