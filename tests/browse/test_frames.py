"""`fdc browse --frames DIR` (DIR from `fdc render suite`): a thumbnail of each rendered
frame written once into the site, the experience strip referencing them with the valid
frames marked, each task's valid frames and each manipulation task's first view; in a
real browser (headless Chromium, `conftest.browser`) the images load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fdc.sim_bridge.render import FramesIndex
from tests.egl import _egl  # noqa: F401 (skips the module without EGL)

from .conftest import TEMPLATES, run


def read_js(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return json.loads("[" + text[text.index("(") + 1:text.rindex(")")] + "]")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small suite of memory and manipulation tasks, rendered (every 5th frame, 64x48)
    and browsed with its frames."""
    d = tmp_path_factory.mktemp("browse-frames")
    steps: list[list[str | Path]] = [
        ["scene", "generate", "--rooms", "2", "--objects", "30", "--seed", "4",
         "-o", d / "scene.json"],
        ["experience", "generate", d / "scene.json", "-n", "2", "-o", d / "log.json"],
        ["compile", d / "scene.json", *[x for t in TEMPLATES for x in ("-T", t)],
         "--history", d / "log.json", "--max-per-template", "2", "-o", d / "suite.jsonl"],
        ["render", "suite", d / "suite.jsonl", "-o", d / "frames", "--every", "5",
         "--size", "64x48"],
        ["browse", d / "suite.jsonl", "-o", d / "site", "--frames", d / "frames"],
    ]
    for step in steps:
        code, out = run(*step)
        assert code == 0, (step, out)
    return d


def records(d: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (d / "suite.jsonl").read_text().splitlines()]


def test_the_site_references_a_thumbnail_of_each_rendered_frame_and_valid_frame(
        rendered: Path) -> None:
    site = rendered / "site"
    index = read_js(site / "data.js")[0]
    tasks = records(rendered)
    memory = [t for t in tasks if t["experience"] is not None and t.get("valid_frames")]
    assert memory
    frames_index = json.loads((rendered / "frames" / "suite-frames.json").read_text())
    shown_valid = 0
    for t in memory:
        strip = index["experiences"][t["experience"]]["thumbs"]
        key = frames_index["tasks"][t["id"]]["frames"]
        assert strip["dir"] == f"thumbs/{key}"
        frames = FramesIndex.model_validate_json(
            (rendered / "frames" / key / "index.json").read_text())
        assert strip["frames"] == [f.frame for f in frames.frames]
        # one thumbnail per rendered frame, once, whatever the number of tasks
        jpgs = sorted(p.name for p in (site / strip["dir"]).iterdir())
        assert jpgs == [f"{f:06d}.jpg" for f in strip["frames"]]
        for f in {f for fs in t["valid_frames"] for f in fs} & set(strip["frames"]):
            data = (site / strip["dir"] / f"{f:06d}.jpg").read_bytes()
            assert data[:3] == b"\xff\xd8\xff"  # a JPEG
            shown_valid += 1
    assert shown_valid > 0
    # each manipulation task's first view
    details = read_js(site / "tasks" / "0000.js")
    by_id = dict(zip([r["id"] for r in details[1]], details[2], strict=True))
    manipulation = [t for t in tasks if t["experience"] is None]
    assert manipulation
    for t in manipulation:
        view = by_id[t["id"]]["view"]
        assert (site / view).read_bytes()[:3] == b"\xff\xd8\xff"


def test_a_folder_without_an_index_exits_2(rendered: Path, tmp_path: Path) -> None:
    code, out = run("browse", rendered / "suite.jsonl", "-o", tmp_path / "site",
                    "--frames", tmp_path)
    assert code == 2 and "suite-frames.json" in out and "fdc render suite" in out
    assert not (tmp_path / "site").exists()


def test_the_browser_shows_the_strip_and_the_valid_frames(browser: Any, rendered: Path,
                                                          tmp_path: Path) -> None:
    site = rendered / "site"
    index = read_js(site / "data.js")[0]
    task = next(t for t in records(rendered) if t["experience"] is not None
                and set(index["experiences"][t["experience"]]["thumbs"]["frames"])
                & {f for fs in t.get("valid_frames") or [] for f in fs})
    strip = index["experiences"][task["experience"]]["thumbs"]["frames"]
    valid = {f for fs in task["valid_frames"] for f in fs}
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site.joinpath("index.html").as_uri() + "#/task/" + task["id"])
    page.wait_for_selector("#strip figure")
    assert page.locator("#strip figure").count() == len(strip)
    marked = page.locator("#strip figure.valid").evaluate_all(
        "xs => xs.map(x => +x.dataset.frame)")
    assert marked == sorted(valid & set(strip))
    shown = page.locator(".valid-thumbs figure").evaluate_all(
        "xs => xs.map(x => +x.dataset.frame)")
    assert sorted(shown) == sorted(valid & set(strip))
    page.locator(".valid-thumbs img").first.scroll_into_view_if_needed()
    page.wait_for_function("[...document.querySelectorAll('.valid-thumbs img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    page.screenshot(path=str(tmp_path / "memory.png"), full_page=True)
    other = next(t for t in records(rendered) if t["experience"] is None)
    page.goto(site.joinpath("index.html").as_uri() + "#/task/" + other["id"])
    page.wait_for_selector("#first-view")
    page.wait_for_function("document.querySelector('#first-view').naturalWidth == 64")
    assert not errors
    page.close()
