"""What the browse tests share: a small compiled suite with its reports and two agents'
predictions (built once per session), and a headless Chromium driven by Playwright.

The browser is Debian's `chromium` (`scripts/env.sh` installs it as root when it can;
this set-up tries too), driven by the `playwright` package (the `dev` extra) with the
system executable: Playwright never downloads a browser here. Where no browser can be
found or installed, the browser tests skip and say why."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = [REPO / "domain" / "templates" / "memory" / "object-recall.pddl",
             REPO / "domain" / "templates" / "memory" / "unordered-revisit.pddl",
             REPO / "domain" / "templates" / "manipulation" / "level-1.pddl"]
#: Chromium's flags on a closed network: no background connections, no sandbox (root).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="session")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated three-room scene, a day in it, a suite of memory and manipulation
    tasks (two per template) with its manifest, a validation report with plans, an audit
    report, and the oracle's and a random agent's predictions."""
    d = tmp_path_factory.mktemp("browse-suite")
    steps: list[list[str | Path]] = [
        ["scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
         "-o", d / "scene.json"],
        ["experience", "generate", d / "scene.json", "-n", "3", "-o", d / "log.json"],
        ["compile", d / "scene.json", *[x for t in TEMPLATES for x in ("-T", t)],
         "--history", d / "log.json", "--max-per-template", "2", "-o", d / "suite.jsonl"],
        ["audit", d / "suite.jsonl", "--format", "json", "-o", d / "audit.json"],
        ["run-baseline", "oracle", d / "suite.jsonl", "-o", d / "oracle.jsonl"],
        ["run-baseline", "random", d / "suite.jsonl", "-o", d / "random.jsonl"],
    ]
    for step in steps:
        code, out = run(*step)
        assert code in (0, 1), (step, out)
    result = CliRunner().invoke(app, ["validate", str(d / "suite.jsonl"), "--solve",
                                      "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    (d / "validation.json").write_text(result.stdout, encoding="utf-8")
    return d


def _chromium() -> str | None:
    """The system Chromium, installed with apt-get when missing and possible."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], capture_output=True,
                       timeout=900, check=False, env={**os.environ,
                                                      "DEBIAN_FRONTEND": "noninteractive"})
        return shutil.which("chromium")
    return None


def _playwright() -> bool:
    """Whether Playwright can be imported (installed with pip when missing)."""
    if importlib.util.find_spec("playwright") is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "playwright"],
                       capture_output=True, timeout=600, check=False)
        importlib.invalidate_caches()
    return importlib.util.find_spec("playwright") is not None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium context (a fresh profile), or the test skips saying why.
    Module-scoped: Playwright's sync API keeps an event loop running in this thread
    while it is open, and asyncio tests of other modules (`fdc lsp`'s, pytest-lsp)
    cannot start theirs meanwhile."""
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium: install Debian's `chromium` (apt-get install -y chromium, "
                    "as root; scripts/env.sh does it when it can)")
    if not _playwright():
        pytest.skip("no Playwright: `python -m pip install playwright` (the dev extra)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=executable,
            headless=True, args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
        try:
            yield context
        finally:
            context.close()
