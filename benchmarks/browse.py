"""`fdc browse` on a large suite: the time to write the site, and the time until its
index page is interactive in headless Chromium.

    python benchmarks/browse.py [--tasks N] [--suite SUITE] [--work DIR]

The suite of N tasks (default 100,000) is the example apartment's suite (one task per
template, compiled into `--work` unless `--suite` names one) repeated, each copy's ids
suffixed, with the example's manifest beside it. Reported: the size of the suite, the
seconds `fdc browse` takes (reading the suite included, in a fresh process: wall and
CPU, user and system, so that a figure taken on a busy machine can be read), the size of
the site, and, in Debian's chromium driven by Playwright, the seconds from navigation to
the page being interactive (the table drawn, `body[data-ready]`), to a category filter
applied, and to the next page drawn. Timings are reported, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def fdc(*args: str | Path) -> None:
    subprocess.run([sys.executable, "-m", "fdc", *map(str, args)], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL)


def large_suite(small: Path, n: int, out: Path) -> Path:
    """`small` repeated to `n` tasks (ids suffixed `-k`), its manifest beside it."""
    lines = small.read_text(encoding="utf-8").splitlines()
    out.mkdir(parents=True, exist_ok=True)
    with (out / "suite.jsonl").open("w", encoding="utf-8") as f:
        for k in range(n):
            record = json.loads(lines[k % len(lines)])
            record["id"] = f"{record['id']}-{k // len(lines)}"
            f.write(json.dumps(record, sort_keys=True) + "\n")
    shutil.copy(small.parent / "manifest.json", out / "manifest.json")
    return out / "suite.jsonl"


def interactive(site: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("no chromium: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=ARGS,
            viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        t0 = time.perf_counter()
        page.goto(site.joinpath("index.html").as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=120_000)
        ready = time.perf_counter() - t0
        before = page.inner_text("#page-info")
        t0 = time.perf_counter()
        page.locator("fieldset[data-facet=category] input").first.check()
        page.wait_for_function("b => document.querySelector('#page-info').textContent != b",
                               arg=before)
        filtered = time.perf_counter() - t0
        t0 = time.perf_counter()
        page.click("#next")
        page.wait_for_function("document.querySelector('#page-info').textContent"
                               ".startsWith('page 2 ')")
        paged = time.perf_counter() - t0
        context.close()
    return {"interactive_s": ready, "filter_s": filtered, "next_page_s": paged}


def size_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--suite", type=Path, help="the small suite to repeat")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "fdc-browse")
    a = ap.parse_args()
    small = a.suite
    if small is None:
        small = a.work / "example" / "suite.jsonl"
        if not small.is_file():
            fdc("compile", "examples/scenes/apartment.json", "--max-per-template", "1",
                "--seed", "0", "-o", small)
    suite = large_suite(small.resolve(), a.tasks, a.work / "large")
    site = a.work / "site"
    shutil.rmtree(site, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    fdc("browse", suite, "-o", site)
    written = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    print(f"suite: {a.tasks} tasks, {size_mb(suite):.0f} MB")
    print(f"fdc browse: {written:.1f} s wall (a fresh process), {user + system:.1f} s CPU "
          f"({user:.1f} user, {system:.1f} system; load {os.getloadavg()[0]:.1f}), "
          f"site {size_mb(site):.0f} MB, data.js {size_mb(site / 'data.js'):.1f} MB")
    for name, seconds in interactive(site).items():
        print(f"chromium {name}: {seconds:.2f}")


if __name__ == "__main__":
    main()
