"""What the CLI tests share: the runner and a file writer."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path
