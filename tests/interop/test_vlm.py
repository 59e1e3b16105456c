"""The VLM questions' pieces: the strict answer reader, the frame budget, and the
client's endpoint and cache key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.agents.vlm import cache_key, chat_endpoint, reply_text, request_body
from fdc.interop.vlm import FrameImage, answer_rule, parse_answer, select_frames

SHOWN = {0, 12, 40, 96}


@pytest.mark.parametrize(("text", "count", "frames"), [
    ('{"frames": [12]}', 1, [12]),
    ('  {"frames":[12]}\n', 1, [12]),
    ('```json\n{"frames": [12, 40]}\n```', 2, [12, 40]),
    ('```\n{"frames": [40, 12]}\n```', 2, [40, 12]),
    ('<think>the mug is on the table in frame 40</think>\n{"frames": [40]}', 1, [40]),
    ("12", 1, [12]),
    ("96, 0", 2, [96, 0]),
])
def test_well_formed_answers(text: str, count: int, frames: list[int]) -> None:
    answer = parse_answer(text, count, SHOWN)
    assert answer.frames == frames and not answer.malformed and answer.problem == ""


@pytest.mark.parametrize(("text", "count", "problem"), [
    ("The mug is in frame 12.", 1, "not JSON"),
    ('Answer: {"frames": [12]}', 1, "not JSON"),
    ('{"frames": [12]} because it shows the mug', 1, "not JSON"),
    ("[12]", 1, 'not an object whose one key is "frames"'),
    ('{"frames": [12], "why": "mug"}', 1, 'not an object whose one key is "frames"'),
    ('{"frame": 12}', 1, 'not an object whose one key is "frames"'),
    ('{"frames": ["12"]}', 1, "\"frames\" is not a list of integers"),
    ('{"frames": [12.0]}', 1, "\"frames\" is not a list of integers"),
    ('{"frames": [true]}', 1, "\"frames\" is not a list of integers"),
    ('{"frames": 12}', 1, "\"frames\" is not a list of integers"),
    ('{"frames": [12, 40]}', 1, "names 2 frame(s); the task takes 1"),
    ('{"frames": []}', 1, "names 0 frame(s); the task takes 1"),
    ("12", 2, "names 1 frame(s); the task takes 2"),
    ('{"frames": [13]}', 1, "frame(s) 13 were not shown"),
    ("twelve", 1, "not JSON"),
    ("", 1, "not JSON"),
    ("12 40", 2, "not JSON"),
    ("-12", 1, "not an object whose one key is \"frames\""),
])
def test_malformed_answers_are_never_guessed(text: str, count: int, problem: str) -> None:
    answer = parse_answer(text, count, SHOWN)
    assert answer.malformed and answer.frames is None
    assert answer.problem.startswith(problem), answer.problem


def test_the_answer_rule_states_the_json_form() -> None:
    assert '{"frames": [F]}' in answer_rule(1, False)
    assert '{"frames": [F1, F2, F3]}' in answer_rule(3, True)
    assert "in the order the task gives them" in answer_rule(3, True)
    assert "in the order you would visit them" in answer_rule(2, False)


def frames(n: int) -> list[FrameImage]:
    return [FrameImage(3 * i, 360.0 + i, "06:00:00", Path(f"{i}.png")) for i in range(n)]


def test_the_budget_spreads_frames_evenly_first_and_last_included() -> None:
    got = [f.frame for f in select_frames(frames(100), 5)]
    assert got == [0, 75, 150, 222, 297]  # positions 0, 25, 50, 74 (49.5 + 24.75), 99
    assert [f.frame for f in select_frames(frames(4), 10)] == [0, 3, 6, 9]
    assert [f.frame for f in select_frames(frames(4), 1)] == [9]
    assert [f.frame for f in select_frames(frames(10), 2)] == [0, 27]
    chosen = select_frames(frames(193), 32)
    assert len({f.frame for f in chosen}) == 32 and chosen == sorted(chosen,
                                                                     key=lambda f: f.frame)


def test_the_endpoint_takes_a_base_a_v1_or_a_full_url() -> None:
    full = "http://h:8000/v1/chat/completions"
    assert chat_endpoint("http://h:8000") == full
    assert chat_endpoint("http://h:8000/") == full
    assert chat_endpoint("http://h:8000/v1") == full
    assert chat_endpoint(full) == full


def test_the_cache_key_is_the_model_and_the_request_not_the_endpoint() -> None:
    messages = [{"role": "user", "content": "hi"}]
    body = request_body("m", messages, max_tokens=10, temperature=0.0)
    assert body == request_body("m", list(messages), max_tokens=10, temperature=0.0)
    assert cache_key("m", body) == cache_key("m", body)
    assert cache_key("m", body) != cache_key("n", body)
    other = request_body("m", messages, max_tokens=11, temperature=0.0)
    assert cache_key("m", body) != cache_key("m", other)


def test_reply_text_reads_the_first_choice() -> None:
    assert reply_text({"choices": [{"message": {"content": "12"}}]}) == "12"
    parts = [{"type": "text", "text": "1"}, {"type": "text", "text": "2"}]
    assert reply_text({"choices": [{"message": {"content": parts}}]}) == "12"
    assert reply_text({"choices": []}) is None
    assert reply_text({"choices": [{"message": {"content": None}}]}) is None
    assert reply_text(["not", "a", "response"]) is None
