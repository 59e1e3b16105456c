"""The root of every error fdc raises on purpose: `FdcError`.

Each layer defines the errors of its own job (`BindError`, `TrajectoryError`,
`RenderError`, ...) as subclasses, so one `except FdcError` catches whatever fdc raises by
design and lets real bugs through. An error that callers catch by a builtin class keeps
that base as well (`TrajectoryError(FdcError, ValueError)`). Problems that a reader or a
checker reports without stopping are not errors: they are `Diagnostic`s (`fdc.core.problems`).
See docs/diagnostics.md.
"""

from __future__ import annotations


class FdcError(Exception):
    """An error fdc raises by design (bad input, a limit reached, an impossible request)."""


class InputError(FdcError):
    """An input file (a suite, a scene, an experience log, a template file, a manifest)
    cannot be read; the message names it. The CLI exits 2."""


class OutputError(InputError):
    """An output the user named cannot be written: a path that is not a regular file or
    a new one, a folder without write permission, names that would collide. The message
    names the path and why; the CLI exits 2, and nothing was half-written."""
