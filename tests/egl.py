"""The tests that render need a headless EGL context (scripts/env.sh installs Debian's
EGL and Mesa packages). A test module imports `_egl` to skip all its tests, with the
reason, on a machine where no context can be made."""

from __future__ import annotations

import pytest

from fdc.sim_bridge.render import RenderUnavailable
from fdc.sim_bridge.render import context as render_context


@pytest.fixture(scope="module", autouse=True)
def _egl() -> None:
    try:
        render_context.gl_context()
    except RenderUnavailable as e:
        pytest.skip(f"no EGL rendering on this machine: {e}")
