"""`fdc browse` in a real browser (headless Chromium, `conftest.browser`): open the site
from disk, filter by a category, open a task, find its instruction shown and its targets
highlighted on the map, page through; the manifest page. Screenshots are written under
each test's temporary folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import run

pytestmark = pytest.mark.slow


def open_site(browser: Any, site: Path, route: str = "") -> Any:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(site.joinpath("index.html").as_uri() + route)
    page.wait_for_selector("body[data-ready='1']", timeout=10_000)
    return page


@pytest.fixture(scope="module")
def site(suite_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    code, text = run("browse", suite_dir / "suite.jsonl", "-o", out, "--audit",
                     suite_dir / "audit.json", "-p", suite_dir / "oracle.jsonl",
                     "-p", suite_dir / "random.jsonl")
    assert code == 0, text
    return out


def records(suite_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (suite_dir / "suite.jsonl").read_text(encoding="utf-8").splitlines()]


def test_filter_by_category_open_a_task_see_its_targets(browser: Any, site: Path,
                                                        suite_dir: Path,
                                                        tmp_path: Path) -> None:
    tasks = records(suite_dir)
    category = "object-recall"
    chosen = [t for t in tasks if t["category"] == category]
    page = open_site(browser, site)
    page.screenshot(path=str(tmp_path / "index.png"))
    page.locator(f"fieldset[data-facet=category] label:has-text('{category}') input").check()
    page.wait_for_function(f"document.querySelectorAll('#tasks tbody tr').length == "
                           f"{len(chosen)}")
    shown = page.locator("#tasks tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.task)")
    assert shown == [t["id"] for t in chosen]
    assert page.inner_text("#page-info").endswith(f"{len(chosen)} of {len(tasks)} tasks")
    # the other facets count within the category
    level = page.locator("fieldset[data-facet=template] label:not(.empty)")
    assert level.count() == len({t["template"] for t in chosen})
    page.screenshot(path=str(tmp_path / "filtered.png"))

    task = chosen[0]
    page.click(f"#tasks a:has-text('{task['id']}')")
    page.wait_for_selector("#instructions li")
    assert page.inner_text("#task-id") == task["id"]
    assert page.locator("#instructions li").all_inner_texts() == task["instructions"]
    highlighted = page.locator("#map .target").evaluate_all(
        "xs => xs.map(x => x.dataset.id)")
    assert sorted(highlighted) == sorted(t.split("|")[0] for t in task["targets"])
    page.hover(f"#map .target[data-id='{highlighted[0]}']", force=True)
    assert highlighted[0] in page.inner_text("#hover")
    page.click("#zoom-in")
    assert page.get_attribute("#map", "viewBox") != page.evaluate(
        "document.querySelector('#map').dataset.full")
    assert page.locator("#timeline .valid-frames").count() > 0
    page.screenshot(path=str(tmp_path / "task.png"), full_page=True)
    page.go_back()
    page.wait_for_selector("#tasks tbody tr")
    assert page.locator("#tasks tbody tr").count() == len(chosen), "the filter is kept"
    assert not page.errors
    page.close()


def test_manipulation_task_shows_the_agents_actions(browser: Any, site: Path,
                                                    suite_dir: Path, tmp_path: Path) -> None:
    task = next(t for t in records(suite_dir) if t["level"] == 1)
    page = open_site(browser, site, "#/task/" + task["id"])
    page.wait_for_selector("#instructions li")
    assert page.locator("#map .target").count() >= 1
    assert "Agent: oracle.jsonl" in page.inner_text("main")
    assert page.locator("#checks tr").count() > 3
    page.screenshot(path=str(tmp_path / "manipulation.png"), full_page=True)
    assert not page.errors
    page.close()


def test_page_through_a_larger_suite_and_read_the_manifest(
        browser: Any, suite_dir: Path, tmp_path: Path) -> None:
    tasks = records(suite_dir)
    copies = -(-120 // len(tasks))
    big = tmp_path / "big"
    big.mkdir()
    lines = [json.dumps({**t, "id": f"{t['id']}-{k}"}) for k in range(copies) for t in tasks]
    (big / "suite.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (big / "manifest.json").write_bytes((suite_dir / "manifest.json").read_bytes())
    code, text = run("browse", big / "suite.jsonl", "-o", big / "site", "--scene",
                     suite_dir / "scene.json", "--history", suite_dir / "log.json")
    assert code == 0, text
    page = open_site(browser, big / "site")
    pages = -(-len(lines) // 50)
    assert page.inner_text("#page-info").startswith(f"page 1 of {pages}")
    seen: list[str] = []
    for k in range(pages):
        seen += page.locator("#tasks tbody tr").evaluate_all("rs => rs.map(r => r.dataset.task)")
        if k < pages - 1:
            page.click("#next")
            page.wait_for_function(f"document.querySelector('#page-info').textContent"
                                   f".startsWith('page {k + 2} ')")
    assert page.locator("#next").is_disabled()
    assert seen == [json.loads(line)["id"] for line in lines]
    page.fill("#search", f"{tasks[0]['id']}-{copies - 1}")
    page.wait_for_function("document.querySelectorAll('#tasks tbody tr').length == 1")
    page.goto(page.url.split("#")[0] + "#/manifest")
    page.wait_for_selector("#per-template")
    assert page.locator("#per-template tr").count() > 1
    page.screenshot(path=str(tmp_path / "manifest.png"), full_page=True)
    assert not page.errors
    page.close()


@pytest.mark.parametrize("category", ["level-1", "object-recall"])
def test_each_agents_path_is_drawn_on_the_map(browser: Any, site: Path, suite_dir: Path,
                                              tmp_path: Path, category: str) -> None:
    """A task with predictions: a polyline per agent whose path can be drawn (the
    oracle's from its actions or trajectory), in its own colour, with a start dot, an
    end square and a legend entry."""
    task = next(t for t in records(suite_dir) if t["category"] == category)
    page = open_site(browser, site, "#/task/" + task["id"])
    page.wait_for_selector("#map .run-path")
    runs = page.locator("#map .run-path").evaluate_all(
        "xs => xs.map(x => [x.dataset.run, x.getAttribute('stroke'),"
        " x.getAttribute('points').split(' ').length])")
    assert runs[0][0] == "0", "the oracle (the first predictions file) has a path"
    assert all(n >= 2 for _, _, n in runs)
    assert len({colour for _, colour, _ in runs}) == len(runs), "a colour per agent"
    for mark in ("run-start", "run-end"):
        assert page.locator(f"#map .{mark}").count() == len(runs)
    legend = page.locator(".legend .run-legend").all_inner_texts()
    assert legend[0] == "oracle.jsonl" and len(legend) == len(runs)
    page.screenshot(path=str(tmp_path / f"paths-{category}.png"), full_page=True)
    assert not page.errors
    page.close()


def test_the_timeline_places_frames_by_their_clock_time(browser: Any, site: Path,
                                                        suite_dir: Path) -> None:
    task = next(t for t in records(suite_dir) if t["category"] == "object-recall")
    page = open_site(browser, site, "#/task/" + task["id"])
    page.wait_for_selector("#timeline .valid-frames")
    assert page.get_attribute("#timeline", "data-axis") == "clock"
    ticks = page.locator("#timeline text[font-size='10']").evaluate_all(
        "xs => xs.map(x => x.textContent)")
    assert len(ticks) == 5 and all(len(t) == 5 and t[2] == ":" for t in ticks), ticks
    assert ticks == sorted(ticks) and ticks[0] < ticks[-1]
    assert not page.errors
    page.close()


def test_a_memory_tasks_target_is_ringed_where_the_experience_left_it(
        browser: Any, site: Path, suite_dir: Path) -> None:
    """The page draws a task about the experience from the experience's `start`: the
    target's ring at the item's place after the log (it was at the scene's)."""
    data = json.loads((site / "data.js").read_text(encoding="utf-8")[len("FDC.index("):-3])
    for task in records(suite_dir):
        start = data["experiences"].get(task.get("experience") or "", {}).get("start")
        moved = [t for t in task["targets"] if start and t in start["items"]]
        if moved:
            break
    else:
        pytest.fail("no memory task whose target the experience moved")
    ring = start["items"][moved[0]][0]
    x, y = sum(ring[0::2]) / (len(ring) / 2), -sum(ring[1::2]) / (len(ring) / 2)
    page = open_site(browser, site, "#/task/" + task["id"])
    page.wait_for_selector("#map .ring-target")
    circles = page.locator("#map .ring-target").evaluate_all(
        "xs => xs.map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')])")
    assert any(abs(cx - x) < 0.01 and abs(cy - y) < 0.01 for cx, cy in circles), circles
    assert not page.errors
    page.close()
