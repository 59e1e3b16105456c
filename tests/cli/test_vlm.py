"""`fdc export vlm` and `fdc run-agent vlm`: suites a vision-language model can take.

The frames these tests show are real: the suite's experience rendered by
`fdc render experience` (fdc's CPU renderer, small images to stay fast) into an
fdc-frames directory; manipulation tasks' first views are rendered by the export. The
model is a scripted OpenAI-compatible server on 127.0.0.1 (`tests.agents.vlm_server`):
it answers what the test says (right frames, wrong frames, malformed text, HTTP 500
then an answer). Skipped, with the reason, on a machine without EGL.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from fdc.agents.env import ManipulationEnv
from fdc.cli import app
from fdc.compiler.reopen import reopen_suite
from fdc.compiler.start import start_snapshots
from fdc.interop.vlm import VlmQuestion, first_view_png, renderer_unavailable
from fdc.sim_bridge.render import Renderer
from tests.agents.vlm_server import scripted_server
from tests.cli.helpers import REPO, runner

TEMPLATES = REPO / "domain" / "templates"
RECALL = TEMPLATES / "memory" / "object-recall.pddl"
ORDERED = TEMPLATES / "memory" / "ordered-revisit.pddl"
LEVEL1 = TEMPLATES / "manipulation" / "level-1.pddl"
PUT_BACK = TEMPLATES / "memory-manipulation" / "put-back.pddl"
PNG = b"\x89PNG\r\n\x1a\n"
#: The size the fixture renders the experience at (the export's first views are 640x480).
FRAME_SIZE = (64, 48)


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-room scene, a 2-interaction day, a suite of memory, level-1 and put-back
    (memory-manipulation) tasks about it, the day rendered by `fdc render experience`,
    the oracle's answers."""
    why = renderer_unavailable()
    if why is not None:
        pytest.skip(f"no EGL rendering on this machine: {why}")
    d = tmp_path_factory.mktemp("vlm")
    assert run("scene", "generate", "--rooms", "3", "--objects", "60", "--seed", "2",
               "-o", d / "scene.json")[0] == 0
    assert run("experience", "generate", d / "scene.json", "-n", "2", "-o",
               d / "day.json")[0] == 0
    code, out = run("compile", d / "scene.json", "-T", RECALL, "-T", ORDERED, "-T", LEVEL1,
                    "-T", PUT_BACK, "--history", d / "day.json", "--max-per-template", "2",
                    "--no-witness",
                    "-o", d / "suite.jsonl")
    assert code == 0, out
    w, h = FRAME_SIZE
    code, out = run("render", "experience", d / "day.json", "--scene", d / "scene.json",
                    "-o", d / "frames", "--size", f"{w}x{h}")
    assert code == 0, out
    code, out = run("run-baseline", "oracle", d / "suite.jsonl", "-o", d / "oracle.jsonl")
    assert code == 0, out
    return d


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def memory_tasks(compiled: Path) -> dict[str, dict[str, Any]]:
    """The tasks answered with frames (about the experience, not acted out)."""
    return {r["id"]: r for r in records(compiled / "suite.jsonl")
            if r.get("experience") and "manipulation" not in r["tags"]}


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


def manipulation_tasks(compiled: Path) -> dict[str, dict[str, Any]]:
    """The tasks acted out (memory-manipulation ones too)."""
    return {r["id"]: r for r in records(compiled / "suite.jsonl")
            if not r.get("experience") or "manipulation" in r["tags"]}


def png_pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_export_writes_chat_requests_with_images_and_answer_sets(compiled: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--frames",
                     compiled / "frames", "--max-frames", "20")
    assert code == 0, text
    lines = records(out / "vlm.jsonl")
    tasks = memory_tasks(compiled)
    manipulation = manipulation_tasks(compiled)
    assert tasks and manipulation
    memory = [q for q in lines if q["kind"] == "memory"]
    assert {x["task_id"] for x in memory} == set(tasks)
    assert {x["task_id"] for x in lines if x["kind"] == "manipulation"} == set(manipulation)
    frames = {p.parent for p in (out / "frames").rglob("*.png") if p.parent.name != "views"}
    assert len(frames) == 1  # one experience: its frames copied once, not once per task
    assert len(list(next(iter(frames)).glob("*.png"))) == 20
    rendered = json.loads((compiled / "frames" / "index.json").read_text())
    clock = {f["frame"]: f["time"] for f in rendered["frames"]}
    for q in memory:
        VlmQuestion.model_validate(q)  # the format `fdc schema vlm` describes
        task = tasks[q["task_id"]]
        system, user = q["messages"]
        assert system["role"] == "system" and isinstance(system["content"], str)
        assert user["role"] == "user"
        images = [p for p in user["content"] if p["type"] == "image_url"]
        labels = [p["text"] for p in user["content"][:-1] if p["type"] == "text"]
        assert len(images) == len(labels) == len(q["frames"]) == 20
        for label, image, frame in zip(labels, images, q["frames"], strict=True):
            assert label == f"Frame {frame}, time of day {clock[frame]}"
            path = out / image["image_url"]["url"]
            assert path.name == f"{frame:06d}.png"
            # the renderer's frame, copied byte for byte
            assert path.read_bytes() == (compiled / "frames" / "rgb" / path.name).read_bytes()
            assert png_pixels(path.read_bytes()).shape == (*FRAME_SIZE[::-1], 3)
        assert task["instructions"][0] in user["content"][-1]["text"]
        answer = q["answer"]
        assert answer["valid_frames"] == task["valid_frames"]
        shown = set(q["frames"])
        assert answer["valid_frames_shown"] == [[f for f in v if f in shown]
                                               for v in task["valid_frames"]]
        assert answer["count"] == len(task["valid_frames"])
        assert answer["answerable"] == all(answer["valid_frames_shown"])
    opened = reopen_suite(compiled / "suite.jsonl")
    by_id = {r.id: r for r in opened.records}
    compared: set[str] = set()
    renderer = Renderer(opened.graph(by_id[lines[0]["task_id"]]).scene, base_dir=compiled)
    for q in lines:
        if q["kind"] != "manipulation":
            continue
        VlmQuestion.model_validate(q)
        task = manipulation[q["task_id"]]
        (user,) = q["messages"]
        image, instruction = user["content"]
        assert instruction["text"] == f"Task: {task['instructions'][0]}"
        data = (out / image["image_url"]["url"]).read_bytes()
        # the view where the robot starts, as the renderer draws it: the image the
        # agent environment's image observation starts with
        record = by_id[q["task_id"]]
        kind = "memory-manipulation" if record.experience else "manipulation"
        if kind not in compared:  # one of each kind (rendering each again is slow)
            compared.add(kind)
            assert data == first_view_png(opened, record, renderer)
            graph = opened.graph(record)
            after = start_snapshots(graph, opened.experience(record))[1] \
                if record.experience else None
            env = ManipulationEnv(graph, observation="image", base_dir=compiled,
                                  after=after)
            assert np.array_equal(png_pixels(data),
                                  env.reset(options={"task": record})[0]["image"])
            env.close()
        pixels = png_pixels(data)
        # a room with things in it, not one colour
        assert pixels.shape == (480, 640, 3) and len(np.unique(pixels.reshape(-1, 3),
                                                               axis=0)) > 5
    # both kinds start where the environment starts them (the world after the day for a
    # memory-manipulation task)
    assert compared == {"manipulation", "memory-manipulation"}
    renderer.release()
    assert "skipped" not in text


def test_export_inlines_images_as_data_urls(compiled: Path, tmp_path: Path) -> None:
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--frames",
                     compiled / "frames", "--max-frames", "3", "--inline-images")
    assert code == 0, text
    assert not (out / "frames").exists()
    lines = records(out / "vlm.jsonl")
    q = next(x for x in lines if x["kind"] == "memory")
    urls = [p["image_url"]["url"] for p in q["messages"][1]["content"]
            if p["type"] == "image_url"]
    assert len(urls) == 3
    q = next(x for x in lines if x["kind"] == "manipulation")
    urls += [p["image_url"]["url"] for p in q["messages"][0]["content"]
             if p["type"] == "image_url"]
    assert len(urls) == 4
    for url in urls:
        prefix = "data:image/png;base64,"
        assert url.startswith(prefix) and base64.b64decode(url[len(prefix):]).startswith(PNG)


def test_without_frames_or_renderer_the_error_names_the_render_command(
        compiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fdc.interop.vlm as vlm

    monkeypatch.setattr(vlm, "renderer_unavailable", lambda: "no EGL (a test says so)")
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm")
    assert code == 2 and "fdc render experience" in text and "--frames" in text
    assert "no EGL (a test says so)" in " ".join(text.split())
    assert not (tmp_path / "vlm").exists()
    code, text = run("run-agent", "vlm", compiled / "suite.jsonl", "--endpoint",
                     "http://127.0.0.1:9", "--model", "m", "-o", tmp_path / "p.jsonl")
    assert code == 2 and "fdc render experience" in text
    # with frames but no renderer the manipulation tasks are skipped, counted
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm",
                     "--frames", compiled / "frames")
    assert code == 0, text
    lines = records(tmp_path / "vlm" / "vlm.jsonl")
    assert {q["kind"] for q in lines} == {"memory"}
    assert "skipped" in text and "manipulation" in text


def test_a_renderer_error_mid_export_is_an_input_error(
        compiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The renderer's own errors (here: the context lost after the check) exit 2 with
    its message, never a traceback, and write nothing."""
    from fdc.interop.vlm import FrameSources
    from fdc.sim_bridge.render import RenderUnavailable

    def broken(self: FrameSources, task: Any) -> Any:
        raise RenderUnavailable("cannot make a headless EGL context (a test says so)")

    monkeypatch.setattr(FrameSources, "renderer", broken)
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm",
                     "--frames", compiled / "frames")
    assert code == 2 and "a test says so" in text and "Traceback" not in text
    assert not (tmp_path / "vlm").exists()


def test_a_frames_directory_that_is_not_one_is_refused(compiled: Path,
                                                       tmp_path: Path) -> None:
    index = json.loads((compiled / "frames" / "index.json").read_text())
    index["frames"][0]["frame"] = -1
    (tmp_path / "index.json").write_text(json.dumps(index))
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm",
                     "--frames", tmp_path)
    assert code == 2 and "$.frames[0].frame" in text
    (tmp_path / "index.json").write_text('{"kind": "fdc-frames", "format_version": "2.0"}')
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", tmp_path / "vlm",
                     "--frames", tmp_path)
    assert code == 2 and "format 2.0" in text


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


def test_with_the_renderer_frames_and_first_views_are_rendered(
        compiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --frames the export renders the experience itself, once, at a stride
    that gives about the budget of frames."""
    import fdc.sim_bridge.render as render

    real = render.render_experience
    calls: list[int] = []

    def counted(*args: Any, every: int = 1, **kwargs: Any) -> Path:
        calls.append(every)
        return real(*args, every=every, **kwargs)

    monkeypatch.setattr(render, "render_experience", counted)
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--max-frames",
                     "10")
    assert code == 0, text
    n = len(json.loads((compiled / "day.json").read_text())["frames"])
    assert calls == [-(-n // 10)]  # one experience, rendered once for all its tasks
    lines = records(out / "vlm.jsonl")
    manipulation = [q for q in lines if q["kind"] == "manipulation"]
    assert len(manipulation) == len(manipulation_tasks(compiled)) > 0
    memory = [q for q in lines if q["kind"] == "memory"]
    assert memory and all(len(q["frames"]) == 10 for q in memory)
    image = next(p for p in memory[0]["messages"][1]["content"] if p["type"] == "image_url")
    assert png_pixels((out / image["image_url"]["url"]).read_bytes()).shape == (480, 640, 3)
    assert "skipped" not in text


def test_render_export_ask_and_score_end_to_end(compiled: Path, tmp_path: Path) -> None:
    """`fdc render experience` (the fixture) -> `fdc export vlm --frames` -> `fdc
    run-agent vlm` against the test's server -> `fdc evaluate`: the server is asked
    exactly the exported memory questions, and its answers are scored."""
    out = tmp_path / "vlm"
    code, text = run("export", "vlm", compiled / "suite.jsonl", "-o", out, "--frames",
                     compiled / "frames", "--max-frames", "1000", "--inline-images")
    assert code == 0, text
    exported = {q["task_id"]: q for q in records(out / "vlm.jsonl") if q["kind"] == "memory"}
    # the server answers each question with the first valid frame shown per target, as
    # the export's answer set gives it, and a wrong frame for one task
    by_messages = {json.dumps(q["messages"], sort_keys=True): q for q in exported.values()}
    wrong = sorted(exported)[0]

    def answer(body: dict[str, Any]) -> str:
        q = by_messages[json.dumps(body["messages"], sort_keys=True)]
        shown = q["answer"]["valid_frames_shown"]
        if q["task_id"] == wrong:
            valid = set(shown[0])
            return json.dumps({"frames": [next(f for f in q["frames"] if f not in valid)]
                               + [v[0] for v in shown[1:]]})
        return json.dumps({"frames": [v[0] for v in shown]})

    assert all(q["answer"]["answerable"] for q in exported.values())
    with scripted_server(answer) as server:
        code, text = run_agent(compiled, server.url, tmp_path / "p.jsonl")
    assert code == 0, text
    assert len(server.requests) == len(exported)
    predictions = {p["task_id"]: p["frames"] for p in records(tmp_path / "p.jsonl")}
    assert set(predictions) == set(exported)
    _, report = evaluate(compiled, tmp_path / "p.jsonl", tmp_path / "r.json")
    assert overall(report)["tasks"] == len(exported)
    assert hl_sr(report) == pytest.approx((len(exported) - 1) / len(exported), abs=1e-4)


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
