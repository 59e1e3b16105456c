"""`fdc export vlm` and `fdc run-agent vlm`: suites a vision-language model can take.

The frames these tests show are a synthetic frames directory written by the fixture in
the documented fdc-frames 1.0 format (docs/formats/frames.md: `index.json` and RGB PNGs
named by frame index), tiny real PNG images, one per frame of the suite's experience;
fdc's renderer, which writes real ones, is not needed. The model is a scripted
OpenAI-compatible server on 127.0.0.1 (`tests.agents.vlm_server`): it answers what the
test says (right frames, wrong frames, malformed text, HTTP 500 then an answer).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from fdc.cli import app
from fdc.compiler.reopen import reopen_suite
from fdc.interop.vlm import VlmQuestion, renderer_available
from tests.agents.vlm_server import scripted_server
from tests.cli.helpers import REPO, runner

TEMPLATES = REPO / "domain" / "templates"
RECALL = TEMPLATES / "memory" / "object-recall.pddl"
ORDERED = TEMPLATES / "memory" / "ordered-revisit.pddl"
LEVEL1 = TEMPLATES / "manipulation" / "level-1.pddl"
PNG = b"\x89PNG\r\n\x1a\n"


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def write_frames(root: Path, suite: Path) -> int:
    """A synthetic frames directory of the suite's experience, in the fdc-frames 1.0
    format: every frame an 8x6 RGB PNG of its own colour. The number of frames."""
    opened = reopen_suite(suite)
    task = next(r for r in opened.records if r.experience is not None)
    log = opened.experience(task)
    (root / "rgb").mkdir(parents=True)
    entries = []
    for f in log.frames:
        pixels = np.zeros((6, 8, 3), np.uint8)
        pixels[..., 0], pixels[..., 1] = f.index % 256, f.index // 256
        Image.fromarray(pixels).save(root / "rgb" / f"{f.index:06d}.png")
        minutes = int(f.clock_min)
        entries.append({
            "frame": f.index, "clock_min": f.clock_min,
            "time": f"{minutes // 60:02d}:{minutes % 60:02d}:00",
            "pose": {"x": f.agent.x, "y": f.agent.y, "yaw": f.agent.yaw_rad},
            "rgb": f"rgb/{f.index:06d}.png", "depth": f"depth/{f.index:06d}.png",
            "ids": f"ids/{f.index:06d}.png", "visible": {}})
    index = {"kind": "fdc-frames", "format_version": "1.0",
             "scene": "../scene.json", "scene_sha256": "0" * 64,
             "experience": "experience.json", "experience_sha256": task.experience,
             "camera": {"width": 8, "height": 6, "hfov_deg": 43.0, "height_m": 1.3,
                        "tilt_deg": 0.0},
             "every": 1, "objects": [], "frames": entries}
    (root / "index.json").write_text(json.dumps(index, indent=1))
    return len(entries)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("vlm")
    assert run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
               "-o", d / "scene.json")[0] == 0
    code, out = run("compile", d / "scene.json", "-T", RECALL, "-T", ORDERED, "-T", LEVEL1,
                    "--interactions", "2", "--max-per-template", "2", "--no-witness",
                    "-o", d / "suite.jsonl")
    assert code == 0, out
    write_frames(d / "frames", d / "suite.jsonl")
    code, out = run("run-baseline", "oracle", d / "suite.jsonl", "-o", d / "oracle.jsonl")
    assert code == 0, out
    return d


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def memory_tasks(compiled: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in records(compiled / "suite.jsonl") if r.get("experience")}


def oracle_frames(compiled: Path) -> dict[str, list[int]]:
    """The oracle baseline's frames (each scores HL-SR 1), by task id."""
    return {p["task_id"]: p["frames"] for p in records(compiled / "oracle.jsonl")
            if "frames" in p}


def instruction_of(body: dict[str, Any]) -> str:
    text = body["messages"][-1]["content"][-1]["text"]
    found = re.match(r"Task: (.*?)\n\n", text, re.DOTALL)
    assert found, text
    return found.group(1)


def answering(compiled: Path, pick: Callable[[str], list[int]]) -> Callable[[dict[str, Any]],
                                                                            str]:
    """A script that answers each question with `pick(task id)` as JSON."""
    by_text = {t["instructions"][0]: i for i, t in memory_tasks(compiled).items()}
    return lambda body: json.dumps({"frames": pick(by_text[instruction_of(body)])})


def run_agent(compiled: Path, url: str, out: Path, *extra: str | Path) -> tuple[int, str]:
    return run("run-agent", "vlm", compiled / "suite.jsonl", "--endpoint", url, "--model",
               "test-vlm", "--frames", compiled / "frames", "--max-frames", "1000",
               "--backoff", "0", "-o", out, *extra)


def evaluate(compiled: Path, predictions: Path, report: Path) -> tuple[int, dict[str, Any]]:
    code, out = run("evaluate", compiled / "suite.jsonl", "-p", predictions, "-o", report)
    assert code in (0, 1), out
    return code, json.loads(report.read_text())


def overall(report: dict[str, Any]) -> dict[str, Any]:
    return next(x for x in report["summary"] if x["kind"] == "memory" and x["by"] == "overall")


def hl_sr(report: dict[str, Any]) -> float:
    return float(overall(report)["metrics"]["hl_sr"])


# ----------------------------------------------------------------------------- export


def test_export_writes_chat_requests_with_images_and_answer_sets(compiled: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--frames",
                     compiled / "frames", "--max-frames", "20")
    assert code == 0, text
    lines = records(out / "vlm.jsonl")
    tasks = memory_tasks(compiled)
    assert {x["task_id"] for x in lines} == set(tasks)
    folders = {p.parent for p in (out / "frames").rglob("*.png")}
    assert len(folders) == 1  # one experience: its frames copied once, not once per task
    assert len(list((out / "frames").rglob("*.png"))) == 20
    for q in lines:
        VlmQuestion.model_validate(q)  # the format `fdc schema vlm` describes
        task = tasks[q["task_id"]]
        system, user = q["messages"]
        assert system["role"] == "system" and isinstance(system["content"], str)
        assert user["role"] == "user"
        images = [p for p in user["content"] if p["type"] == "image_url"]
        labels = [p["text"] for p in user["content"][:-1] if p["type"] == "text"]
        assert len(images) == len(labels) == len(q["frames"]) == 20
        assert labels[0].startswith(f"Frame {q['frames'][0]}, time of day 06:00")
        for image, frame in zip(images, q["frames"], strict=True):
            path = out / image["image_url"]["url"]
            assert path.name == f"{frame:06d}.png" and path.read_bytes().startswith(PNG)
        assert task["instructions"][0] in user["content"][-1]["text"]
        answer = q["answer"]
        assert answer["valid_frames"] == task["valid_frames"]
        shown = set(q["frames"])
        assert answer["valid_frames_shown"] == [[f for f in v if f in shown]
                                               for v in task["valid_frames"]]
        assert answer["count"] == len(task["valid_frames"])
        assert answer["answerable"] == all(answer["valid_frames_shown"])
    assert ("skipped" in text and "manipulation" in text) or renderer_available()


def test_export_inlines_images_as_data_urls(compiled: Path, tmp_path: Path) -> None:
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--frames",
                     compiled / "frames", "--max-frames", "3", "--inline-images")
    assert code == 0, text
    assert not (out / "frames").exists()
    q = records(out / "vlm.jsonl")[0]
    urls = [p["image_url"]["url"] for p in q["messages"][1]["content"]
            if p["type"] == "image_url"]
    assert len(urls) == 3
    for url in urls:
        prefix = "data:image/png;base64,"
        assert url.startswith(prefix) and base64.b64decode(url[len(prefix):]).startswith(PNG)


@pytest.mark.skipif(renderer_available(), reason="fdc's renderer renders missing frames")
def test_without_frames_or_renderer_the_error_names_the_render_command(
        compiled: Path, tmp_path: Path) -> None:
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm")
    assert code == 2 and "fdc render experience" in text and "--frames" in text
    assert not (tmp_path / "vlm").exists()
    code, text = run("run-agent", "vlm", compiled / "suite.jsonl", "--endpoint",
                     "http://127.0.0.1:9", "--model", "m", "-o", tmp_path / "p.jsonl")
    assert code == 2 and "fdc render experience" in text


def test_a_frames_directory_that_is_not_one_is_refused(compiled: Path,
                                                       tmp_path: Path) -> None:
    (tmp_path / "index.json").write_text('{"kind": "fdc-frames", "format_version": "1.0", '
                                         '"experience_sha256": "x", "frames": [{"frame": -1}]}')
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm",
                     "--frames", tmp_path)
    assert code == 2 and "$.frames[0].frame" in text


# ----------------------------------------------------------------------------- run-agent


def test_a_correct_server_scores_full_marks(compiled: Path, tmp_path: Path) -> None:
    right = oracle_frames(compiled)
    with scripted_server(answering(compiled, lambda t: right[t])) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    assert code == 0, text
    tasks = memory_tasks(compiled)
    assert len(server.requests) == len(tasks)
    assert all(p == "/v1/chat/completions" for p in server.paths)
    body = server.requests[0]
    assert body["model"] == "test-vlm" and body["temperature"] == 0
    image = next(p for p in body["messages"][1]["content"] if p["type"] == "image_url")
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert f"{len(tasks)} answered, 0 malformed" in text
    code, report = evaluate(compiled, tmp_path / "p.jsonl", tmp_path / "r.json")
    assert hl_sr(report) == 1.0


def test_a_wrong_server_scores_nothing(compiled: Path, tmp_path: Path) -> None:
    tasks = memory_tasks(compiled)

    def wrong(task_id: str) -> list[int]:  # for each target a frame not valid for it
        return [next(f for f in range(1000) if f not in v)
                for v in tasks[task_id]["valid_frames"]]

    with scripted_server(answering(compiled, wrong)) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    assert code == 0, text
    _, report = evaluate(compiled, tmp_path / "p.jsonl", tmp_path / "r.json")
    assert hl_sr(report) == 0.0


def test_malformed_replies_are_failures_and_counted(compiled: Path, tmp_path: Path) -> None:
    with scripted_server(lambda body: "I believe it is frame twelve.") as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    n = len(memory_tasks(compiled))
    assert code == 1 and f"0 answered, {n} malformed" in " ".join(text.split())
    predictions = records(tmp_path / "p.jsonl")
    assert len(predictions) == n and all(p["frames"] == [] for p in predictions)
    replies = records(tmp_path / "p.replies.jsonl")
    assert {r["status"] for r in replies} == {"malformed"}
    assert replies[0]["reply"] == "I believe it is frame twelve."
    assert "not JSON" in replies[0]["problem"]
    code, report = evaluate(compiled, tmp_path / "p.jsonl", tmp_path / "r.json")
    assert hl_sr(report) == 0.0
    assert overall(report)["tasks"] == n
    # no answer is the agent's failure, not a malformed predictions file: warnings, exit 0
    assert code == 0 and report["errors"] == 0
    memory = [f for f in report["findings"] if f["task_id"] in memory_tasks(compiled)]
    assert len(memory) == n and {f["code"] for f in memory} == {"no-answer"}


def test_a_rerun_asks_nothing_twice(compiled: Path, tmp_path: Path) -> None:
    right = oracle_frames(compiled)
    with scripted_server(answering(compiled, lambda t: right[t])) as server:
        assert run_agent(compiled, server.url, tmp_path / "a.jsonl")[0] == 0
        asked = len(server.requests)
        code, text = run_agent(compiled, server.url, tmp_path / "b.jsonl", "--cache",
                               tmp_path / "a.vlm-cache")
        assert code == 0, text
        assert len(server.requests) == asked  # the second run sent nothing
    assert "0 request(s) sent" in text
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


def test_server_errors_are_tried_again(compiled: Path, tmp_path: Path) -> None:
    right = oracle_frames(compiled)
    answer = answering(compiled, lambda t: right[t])
    seen: set[str] = set()

    def flaky(body: dict[str, Any]) -> str | tuple[int, str]:
        key = instruction_of(body)
        if key not in seen:
            seen.add(key)
            return 500, '{"error": {"message": "busy"}}'
        return answer(body)

    with scripted_server(flaky) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    n = len(memory_tasks(compiled))
    assert code == 0, text
    assert len(server.requests) == 2 * n
    _, report = evaluate(compiled, tmp_path / "p.jsonl", tmp_path / "r.json")
    assert hl_sr(report) == 1.0

    with scripted_server(lambda body: (503, "overloaded")) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "q.jsonl", "--retries", "2")
    assert code == 1 and f"{n} failed requests" in " ".join(text.split())
    assert len(server.requests) == 3 * n
    assert records(tmp_path / "q.jsonl") == []
    assert "HTTP 503: overloaded" in records(tmp_path / "q.replies.jsonl")[0]["problem"]


def test_an_unusable_server_stops_the_run(compiled: Path, tmp_path: Path) -> None:
    with scripted_server(lambda body: (404, '{"error": {"message": "no model m"}}')
                         ) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    assert code == 2 and "HTTP 404: no model m" in text and len(server.requests) == 1
    assert not (tmp_path / "p.jsonl").exists()
    with scripted_server(lambda body: "{}") as server:
        url = server.url  # the port is free again once the server stops
    code, text = run_agent(compiled, url, tmp_path / "p.jsonl", "--retries", "0")
    assert code == 2 and "cannot connect" in text


# ----------------------------------------------------------------------------- the renderer


def fake_renderer(calls: list[dict[str, Any]]) -> Any:
    """A stand-in for `fdc.sim_bridge.render` with the API of its contract
    (`render_experience` writing an fdc-frames directory, `Renderer(scene,
    camera).render(state, pose).rgb`): tiny frames of one colour each."""
    import importlib.machinery
    import types

    module = types.ModuleType("fdc.sim_bridge.render")
    module.__spec__ = importlib.machinery.ModuleSpec("fdc.sim_bridge.render", None)

    def render_experience(scene: Any, experience: Any, out_dir: Path, every: int = 1,
                          **_: Any) -> Path:
        from fdc.core.hashing import sha256_text

        calls.append({"every": every, "frames": len(experience.frames)})
        (out_dir / "rgb").mkdir(parents=True)
        entries = []
        for f in experience.frames[::every]:
            Image.fromarray(np.full((6, 8, 3), f.index % 256, np.uint8)).save(
                out_dir / "rgb" / f"{f.index:06d}.png")
            entries.append({"frame": f.index, "clock_min": f.clock_min, "time": "06:00:00",
                            "rgb": f"rgb/{f.index:06d}.png"})
        (out_dir / "index.json").write_text(json.dumps({
            "kind": "fdc-frames", "format_version": "1.0",
            "experience_sha256": sha256_text(experience.to_json()), "frames": entries}))
        return out_dir / "index.json"

    class Camera:
        pass

    class Renderer:
        def __init__(self, scene: Any, camera: Camera) -> None:
            self.scene = scene

        def render(self, state: Any, pose: Any) -> Any:
            calls.append({"view": (round(pose.x, 3), round(pose.y, 3)),
                          "held": state.held})
            return types.SimpleNamespace(rgb=np.full((6, 8, 3), 128, np.uint8))

    module.render_experience = render_experience  # type: ignore[attr-defined]
    module.Camera = Camera  # type: ignore[attr-defined]
    module.Renderer = Renderer  # type: ignore[attr-defined]
    return module


def test_with_the_renderer_frames_and_first_views_are_rendered(
        compiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    calls: list[dict[str, Any]] = []
    monkeypatch.setitem(sys.modules, "fdc.sim_bridge.render", fake_renderer(calls))
    assert renderer_available()
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--max-frames",
                     "10")
    assert code == 0, text
    renders = [c for c in calls if "every" in c]
    assert len(renders) == 1  # one experience, rendered once for all its tasks
    n = renders[0]["frames"]
    assert renders[0]["every"] == -(-n // 10)
    lines = records(out / "vlm.jsonl")
    manipulation = [q for q in lines if q["kind"] == "manipulation"]
    suite = records(compiled / "suite.jsonl")
    assert len(manipulation) == sum(1 for r in suite if not r.get("experience")) > 0
    assert len([c for c in calls if "view" in c]) == len(manipulation)
    for q in manipulation:
        image, instruction = q["messages"][0]["content"]
        assert (out / image["image_url"]["url"]).read_bytes().startswith(PNG)
        assert instruction["text"] == f"Task: {q['instruction']}"
    memory = [q for q in lines if q["kind"] == "memory"]
    assert memory and all(len(q["frames"]) <= 10 for q in memory)
    assert "skipped" not in text


def test_ctrl_c_writes_nothing_and_a_rerun_resumes(compiled: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from fdc.agents.vlm import ChatClient

    right = oracle_frames(compiled)
    complete = ChatClient.complete
    answered: list[int] = []

    def interrupted(self: ChatClient, messages: Any) -> Any:
        if len(answered) == 2:
            raise KeyboardInterrupt
        answered.append(1)
        return complete(self, messages)

    n = len(memory_tasks(compiled))
    with scripted_server(answering(compiled, lambda t: right[t])) as server:
        monkeypatch.setattr(ChatClient, "complete", interrupted)
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
        assert code == 130 and "interrupted after 2 of" in text and "a rerun resumes" in text
        assert not (tmp_path / "p.jsonl").exists()
        assert not (tmp_path / "p.replies.jsonl").exists()
        assert len(list((tmp_path / "p.vlm-cache").rglob("*.json"))) == 2
        monkeypatch.setattr(ChatClient, "complete", complete)
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
        assert code == 0, text
        assert len(server.requests) == n  # the two answered before Ctrl-C were not asked again
    assert "2 from the cache" in text
