"""The report of `fdc check --format json` (its records are `fdc.core.problems`').
See docs/diagnostics.md."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from fdc.core.problems import DiagnosticRecord


class CheckReport(BaseModel):
    """The whole report of `fdc check --format json`."""

    model_config = ConfigDict(frozen=True)

    format_version: int = 1
    files: int
    definitions: int
    errors: int
    warnings: int
    diagnostics: list[DiagnosticRecord]
