"""`fdc browse` without a browser: the files it writes, the data they hold (facets and
counts, statuses, plans, agents' outcomes, frames), byte-identical output for the same
input, and bad input exiting 2 with the file and what was expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import run

pytestmark = pytest.mark.slow


def read_js(path: Path) -> list[Any]:
    """The JSON arguments of a data file's one call: `FDC.index({...});`."""
    text = path.read_text(encoding="utf-8")
    return json.loads("[" + text[text.index("(") + 1:text.rindex(")")] + "]")


def browse(d: Path, out: Path, *extra: str | Path) -> tuple[int, str]:
    return run("browse", d / "suite.jsonl", "-o", out, *extra)


@pytest.fixture(scope="module")
def site(suite_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    code, text = browse(suite_dir, out, "--audit", suite_dir / "audit.json", "--validation",
                        suite_dir / "validation.json", "-p", suite_dir / "oracle.jsonl",
                        "-p", suite_dir / "random.jsonl")
    assert code == 0, text
    return out


def test_the_site_is_a_page_its_assets_and_data_files(site: Path) -> None:
    names = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert names == ["app.js", "data.js", "index.html", "style.css", "tasks/0000.js"]
    page = (site / "index.html").read_text(encoding="utf-8")
    assert '<script src="data.js">' in page and "http" not in page.replace(
        "http://www.w3.org", "")  # nothing to fetch from a network


def test_the_index_has_every_task_and_a_facet_per_filter(site: Path, suite_dir: Path) -> None:
    (index,) = read_js(site / "data.js")
    lines = (suite_dir / "suite.jsonl").read_text(encoding="utf-8").splitlines()
    assert index["tasks"] == len(lines) == len(index["ids"]) == len(index["texts"])
    keys = [f["key"] for f in index["facets"]]
    assert keys == ["category", "level", "template", "scene", "experience", "validation",
                    "audit", "run0", "run1"]
    for f in index["facets"]:
        assert len(f["codes"]) == index["tasks"]
        assert sorted(set(f["codes"])) == list(range(len(f["values"])))
    assert index["runs"] == ["oracle.jsonl", "random.jsonl"]
    oracle = next(f for f in index["facets"] if f["key"] == "run0")
    assert "success" in oracle["values"]
    assert {"rooms", "walls", "furniture", "items", "bounds"} <= set(
        next(iter(index["scenes"].values())))
    assert index["manifest"]["templates"] and index["checks"]


def test_a_task_has_its_plan_checks_outcomes_and_frames(site: Path) -> None:
    first, tasks, more = read_js(site / "tasks" / "0000.js")
    assert first == 0 and len(tasks) == len(more)
    tasks = [{**t, **m} for t, m in zip(tasks, more, strict=True)]
    planned = [t for t in tasks if t.get("validation", {}).get("certificate")]
    assert planned and all(t["validation"]["certificate"]["plan"] for t in planned
                           if t["validation"]["certificate"]["status"] == "solved")
    assert all(set(t["audit"]) and len(t["runs"]) == 2 for t in tasks)
    assert any(t.get("valid_frames") for t in tasks), "memory tasks have their frames"
    manipulation = [t for t in tasks if t["runs"][0].get("actions")]
    assert manipulation, "the oracle's actions are shown"
    for t in tasks:  # the oracle's path: from its actions (manipulation) or trajectory
        path = t["runs"][0]["path"]
        assert path["from"] == ("actions" if t in manipulation else "trajectory")
        assert len(path["points"]) >= 4 and len(path["points"]) % 2 == 0
    assert any(t["runs"][1].get("path", {}).get("from") == "frames" for t in tasks), \
        "the random agent's frames are joined from the start"


def test_a_path_comes_from_what_the_prediction_holds(suite_dir: Path, tmp_path: Path
                                                     ) -> None:
    """Frames: from the start to each frame's pose; actions: to each go_to target, along
    the scene's routes; a trajectory: its snapshots; nothing to draw: no path."""
    from fdc.agents.actions import AgentAction
    from fdc.agents.predictions import Prediction
    from fdc.browse.paths import agent_path
    from fdc.compiler.reopen import reopen_suite

    opened = reopen_suite(suite_dir / "suite.jsonl")
    memory = next(r for r in opened.records if r.category == "object-recall")
    frames = opened.experience(memory).frames
    got = agent_path(opened, memory, Prediction(task_id=memory.id, frames=[5]), tmp_path)
    assert got is not None and got["from"] == "frames"
    assert got["points"][:2] == [round(memory.start.x, 2) + 0.0, round(memory.start.y, 2)]
    assert got["points"][-2:] == [round(frames[5].agent.x, 2), round(frames[5].agent.y, 2)]
    manipulation = next(r for r in opened.records if r.level == 1)
    target = next(s.id for s in opened.graph(manipulation).surfaces() if s.id.endswith("|top"))
    acts = [AgentAction(action="go_to", target=target), AgentAction(action="call_end")]
    got = agent_path(opened, manipulation, Prediction(task_id=manipulation.id, actions=acts),
                     tmp_path)
    assert got is not None and got["from"] == "actions" and len(got["points"]) >= 4
    assert agent_path(opened, manipulation, Prediction(
        task_id=manipulation.id, actions=[AgentAction(action="call_end")]), tmp_path) is None
    assert agent_path(opened, memory, Prediction(task_id=memory.id, trajectory="none.jsonl"),
                      tmp_path) is None


def test_the_timeline_has_each_frames_clock_time(site: Path) -> None:
    (index,) = read_js(site / "data.js")
    (timeline,) = index["experiences"].values()
    assert len(timeline["times"]) == timeline["frames"]
    assert timeline["times"][0] == timeline["clock"][0]
    assert timeline["times"] == sorted(timeline["times"])


def test_the_same_input_gives_the_same_bytes(site: Path, suite_dir: Path,
                                             tmp_path: Path) -> None:
    code, text = browse(suite_dir, tmp_path, "--audit", suite_dir / "audit.json",
                        "--validation", suite_dir / "validation.json",
                        "-p", suite_dir / "oracle.jsonl", "-p", suite_dir / "random.jsonl")
    assert code == 0, text
    for path in site.rglob("*"):
        if path.is_file():
            assert (tmp_path / path.relative_to(site)).read_bytes() == path.read_bytes(), path


def test_a_report_that_is_not_one_exits_2_naming_it(suite_dir: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "audit.json"
    wrong.write_text('{"kind": "something else"}', encoding="utf-8")
    code, text = browse(suite_dir, tmp_path / "site", "--audit", wrong)
    assert code == 2
    assert str(wrong) in text and "not an fdc audit report" in text and "fdc audit" in text
    assert not (tmp_path / "site").exists()
    code, text = run("browse", tmp_path / "missing.jsonl", "-o", tmp_path / "site")
    assert code == 2 and "missing.jsonl" in text


def test_a_memory_task_is_drawn_where_the_experience_left_its_target(
        site: Path, suite_dir: Path) -> None:
    """A task about the experience starts in the world the experience left behind: the
    map the page draws for it has each item the log moved where the log left it, and
    the robot where the log ends (the map used to be the scene's initial state: the
    target ringed where it stood before the log moved it)."""
    from fdc.compiler.reopen import reopen_suite
    from fdc.sim_bridge.world.experience import final_positions

    opened = reopen_suite(suite_dir / "suite.jsonl")
    memory = [r for r in opened.records if r.experience is not None]
    log = opened.experience(memory[0])
    moved = final_positions(log)
    task = next(r for r in memory if any(t in moved for t in r.targets))
    target = next(t for t in task.targets if t in moved)
    (index,) = read_js(site / "data.js")
    start = index["experiences"][task.experience]["start"]
    ring = start["items"][target][0]
    x, y = sum(ring[0::2]) / (len(ring) / 2), sum(ring[1::2]) / (len(ring) / 2)
    assert abs(x - moved[target][0]) < 0.02 and abs(y - moved[target][1]) < 0.02
    scene_item = next(o for o in index["scenes"][task.scene]["items"] if o["id"] == target)
    assert scene_item["rings"] != start["items"][target]  # the scene put it elsewhere
    assert start["agent"] == [round(task.start.x, 2) + 0.0, round(task.start.y, 2) + 0.0]
    assert set(start["items"]) <= set(moved)  # only what the log moved
