"""The OpenGL context fdc renders with: headless EGL on Mesa's llvmpipe, one core.

moderngl has no OSMesa backend on Linux, so the context is EGL's. Another EGL driver (a
GPU's, or Mesa's on a GPU) draws other pixels, so the context is pinned to Mesa's
vendor file (`__EGL_VENDOR_LIBRARY_FILENAMES`), the renderer string is checked to be
llvmpipe, and llvmpipe runs on one thread (`LP_NUM_THREADS=1`): the same input gives the
same bytes on one machine. A machine without EGL gets `RenderUnavailable` (exit 2)
naming the Debian packages to install.
See docs/rendering.md.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from fdc.core.errors import InputError

#: Where glvnd looks for Mesa's EGL vendor file (Debian and Ubuntu, then other layouts).
MESA_VENDOR_FILES = (
    Path("/usr/share/glvnd/egl_vendor.d/50_mesa.json"),
    Path("/etc/glvnd/egl_vendor.d/50_mesa.json"),
    Path("/usr/local/share/glvnd/egl_vendor.d/50_mesa.json"),
)
PACKAGES = "libegl1 libegl-mesa0 libgl1-mesa-dri"
INSTALL_HINT = (f"install Mesa's EGL and llvmpipe (Debian/Ubuntu: `apt-get install {PACKAGES}`; "
                "`scripts/env.sh` does it when run as root)")


class RenderUnavailable(InputError):
    """This machine cannot render: no EGL, no Mesa, or a renderer other than llvmpipe.
    The message names what to install; the CLI exits 2."""


def mesa_vendor_file() -> Path | None:
    """Mesa's EGL vendor file, or None when Mesa's EGL is not installed."""
    return next((p for p in MESA_VENDOR_FILES if p.is_file()), None)


@cache
def gl_context() -> Any:
    """The process's one moderngl context (made on first use): headless EGL, Mesa's
    llvmpipe, one thread. `RenderUnavailable` when it cannot be made."""
    return make_context()


def make_context() -> Any:
    """A new headless EGL context on Mesa's llvmpipe (`gl_context` shares one)."""
    vendor = mesa_vendor_file()
    if vendor is None:
        raise RenderUnavailable(f"rendering needs Mesa's EGL, which is not installed (no "
                                f"{MESA_VENDOR_FILES[0]}): {INSTALL_HINT}")
    # Read by glvnd and llvmpipe when the context is made: set before it, pinned.
    os.environ["__EGL_VENDOR_LIBRARY_FILENAMES"] = str(vendor)
    os.environ["LP_NUM_THREADS"] = "1"
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    try:
        import moderngl
    except ImportError as e:  # pragma: no cover - a dependency of fdc
        raise RenderUnavailable(f"rendering needs the Python package moderngl ({e}); "
                                "reinstall fdc") from None
    try:
        ctx = moderngl.create_context(standalone=True, backend="egl",  # type: ignore[arg-type]
                                      require=330)
    except Exception as e:  # glcontext raises plain Exceptions for a missing libEGL
        raise RenderUnavailable(f"cannot make a headless EGL context ({e}): "
                                f"{INSTALL_HINT}") from None
    renderer = str(ctx.info.get("GL_RENDERER", ""))
    if "llvmpipe" not in renderer:
        ctx.release()
        raise RenderUnavailable(
            f"the EGL context renders with `{renderer}`, not Mesa's llvmpipe: fdc's frames "
            f"are defined on llvmpipe (the same bytes on every run); {INSTALL_HINT}")
    return ctx


def renderer_name() -> str:
    """The GL renderer string of the context (`llvmpipe (LLVM 15.0.6, 256 bits)`)."""
    return str(gl_context().info.get("GL_RENDERER", ""))
