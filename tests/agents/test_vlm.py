"""`fdc.agents.vlm.ChatClient` against the scripted server: retries on 5xx and timeouts,
refusals, the cache and its key."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from fdc.agents.vlm import ChatClient, VlmRequestError, VlmServerError
from tests.agents.vlm_server import scripted_server

ASK = [{"role": "user", "content": [{"type": "text", "text": "Which frame?"}]}]


def client(url: str, cache: Path | None = None, **options: Any) -> ChatClient:
    waits: list[float] = []
    made = ChatClient(url, "m", cache=cache, sleep=waits.append, **options)
    made.waits = waits  # type: ignore[attr-defined]
    return made


def test_500s_are_tried_again_with_doubling_waits() -> None:
    statuses = iter([500, 502, 429])

    def script(body: dict[str, Any]) -> str | tuple[int, str]:
        status = next(statuses, None)
        return (status, "busy") if status else '{"frames": [3]}'

    with scripted_server(script) as server:
        c = client(server.url, retries=3, backoff_s=0.5)
        reply = c.complete(ASK)
    assert reply.text == '{"frames": [3]}' and not reply.cached
    assert len(server.requests) == 4 and c.asked == 4
    assert c.waits == [0.5, 1.0, 2.0]  # type: ignore[attr-defined]


def test_a_timeout_is_tried_again() -> None:
    slow = [True]

    def script(body: dict[str, Any]) -> str:
        if slow.pop() if slow else False:
            time.sleep(1.0)
        return "12"

    with scripted_server(script) as server:
        c = client(server.url, timeout_s=0.3, retries=1)
        assert c.complete(ASK).text == "12"
    assert len(server.requests) == 2


def test_retries_run_out_and_refusals_are_not_retried() -> None:
    out_of_memory = (500, '{"error": {"message": "out of memory"}}')
    with scripted_server(lambda body: out_of_memory) as server, pytest.raises(
            VlmRequestError, match="no answer after 3 tries: HTTP 500: out of memory"):
        client(server.url, retries=2).complete(ASK)
    too_many = (400, '{"error": {"message": "too many images"}}')
    with scripted_server(lambda body: too_many) as server:
        with pytest.raises(VlmRequestError, match="HTTP 400: too many images"):
            client(server.url).complete(ASK)
        assert len(server.requests) == 1
    with scripted_server(lambda body: (401, "bad key")) as server, pytest.raises(
            VlmServerError, match="HTTP 401: bad key"):
        client(server.url).complete(ASK)


def test_the_cache_answers_the_same_request_on_any_endpoint(tmp_path: Path) -> None:
    with scripted_server(lambda body: "12") as first:
        assert client(first.url, tmp_path).complete(ASK).text == "12"
    with scripted_server(lambda body: "other") as second:
        c = client(second.url + "/v1", tmp_path)
        reply = c.complete(ASK)
        assert reply.text == "12" and reply.cached and c.from_cache == 1 and c.asked == 0
        assert c.complete([*ASK, {"role": "user", "content": "and?"}]).text == "other"
    entries = sorted(tmp_path.rglob("*.json"))
    assert len(entries) == 2
    entry = json.loads(entries[0].read_text())
    assert entry["format"] == "fdc-vlm-cache 1.0" and entry["model"] == "m"


def test_errors_are_not_cached(tmp_path: Path) -> None:
    with scripted_server(lambda body: (400, "no")) as server, pytest.raises(VlmRequestError):
        client(server.url, tmp_path).complete(ASK)
    assert not list(tmp_path.rglob("*.json"))
