"""A client for OpenAI-compatible chat-completions servers (vLLM, Ollama, OpenAI), for
vision-language agents: standard library only (urllib).

`ChatClient.complete(messages)` posts one request (temperature 0 by default) and returns
the reply's text. Timeouts, dropped connections, 408, 429 and 5xx answers are tried
again with exponential backoff; a server that cannot be reached at all, or refuses the
client (401, 403, 404: a wrong key, model or path), is a `VlmServerError`, which stops
the run; any other refusal (400, 413, 422: a request too large for the model, say) or a
request still failing after the retries is a `VlmRequestError`, which fails that task
only.

Replies are cached on disk, one file per request, keyed by the sha256 of the model name
and the request's bytes (not the endpoint: the same model behind another URL answers
the same question from the cache), so a rerun asks nothing twice. Only answers the
server gave (HTTP 200) are cached; errors are asked again.

The answer rule and its strict reader belong to the questions (`fdc.interop.vlm`); this
module only asks.
See docs/agents.md.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fdc.core.errors import FdcError, InputError
from fdc.core.files import write_atomic
from fdc.core.jsonl import loads

#: The environment variable whose value, when set, is sent as the bearer token.
API_KEY_ENV = "OPENAI_API_KEY"
#: HTTP statuses tried again (with backoff), besides every 5xx.
RETRY_STATUSES = frozenset({408, 429})
#: HTTP statuses that no retry and no other request can fix: the run stops.
FATAL_STATUSES = frozenset({401, 403, 404})
CACHE_FORMAT = "fdc-vlm-cache 1.0"


class VlmServerError(InputError):
    """The server cannot be used at all (unreachable, or it refuses the client): the
    run stops (the CLI exits 2)."""


class VlmRequestError(FdcError):
    """One request failed (refused, or still failing after every retry): its task is
    not answered."""


@dataclass(frozen=True)
class ChatReply:
    """A server's answer to one request: the text of its first choice (None when the
    response has none), the response as sent, whether it came from the cache."""

    text: str | None
    response: Any
    cached: bool


def chat_endpoint(url: str) -> str:
    """The chat-completions URL of a server given as its base (`http://host:8000`, as
    vLLM prints it; `.../v1`, as OpenAI and Ollama document it) or in full."""
    url = url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/chat/completions"
    return url + "/v1/chat/completions"


def request_body(model: str, messages: Sequence[dict[str, Any]], *, max_tokens: int,
                 temperature: float) -> bytes:
    """A chat-completions request as canonical JSON bytes (sorted keys, no spaces), so
    that equal requests are equal bytes."""
    body = {"model": model, "messages": list(messages), "max_tokens": max_tokens,
            "temperature": temperature}
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def cache_key(model: str, body: bytes) -> str:
    """The hex sha256 of the model name and the request's bytes."""
    digest = hashlib.sha256(model.encode("utf-8"))
    digest.update(b"\0")
    digest.update(body)
    return digest.hexdigest()


def reply_text(response: Any) -> str | None:
    """`choices[0].message.content` of a chat-completions response: its text (a list
    of text parts joined), or None when the response does not have one."""
    try:
        content = response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
            isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)
    return None


class ChatClient:
    """Asks one model on one server; see the module for retries and the cache."""

    def __init__(self, endpoint: str, model: str, *, cache: Path | None,
                 timeout_s: float = 120.0, retries: int = 4, backoff_s: float = 1.0,
                 max_tokens: int = 256, temperature: float = 0.0,
                 api_key: str | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.url = chat_endpoint(endpoint)
        self.model = model
        self.cache = cache
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.api_key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        self.sleep = sleep
        self.asked = 0  # requests sent (each retry counts)
        self.from_cache = 0

    def complete(self, messages: Sequence[dict[str, Any]]) -> ChatReply:
        """The server's reply to `messages`, from the cache when it was asked before."""
        body = request_body(self.model, messages, max_tokens=self.max_tokens,
                            temperature=self.temperature)
        key = cache_key(self.model, body)
        cached = self._cached(key)
        if cached is not None:
            self.from_cache += 1
            return ChatReply(reply_text(cached), cached, True)
        response = self._post(body)
        self._store(key, response)
        return ChatReply(reply_text(response), response, False)

    # ----- the cache ----------------------------------------------------------------

    def _path(self, key: str) -> Path | None:
        return None if self.cache is None else self.cache / key[:2] / f"{key}.json"

    def _cached(self, key: str) -> Any:
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            entry = loads(path.read_bytes())
        except (OSError, ValueError, InputError):
            return None  # a damaged entry is asked again, and replaced
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT:
            return None
        return entry.get("response")

    def _store(self, key: str, response: Any) -> None:
        path = self._path(key)
        if path is not None:
            entry = {"format": CACHE_FORMAT, "model": self.model, "response": response}
            write_atomic(path, json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n")

    # ----- the server ---------------------------------------------------------------

    def _post(self, body: bytes) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(self.backoff_s * 2 ** (attempt - 1))
            self.asked += 1
            request = urllib.request.Request(self.url, data=body, headers=headers,
                                             method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                    data = answer.read()
            except urllib.error.HTTPError as e:
                detail = _error_detail(e)
                if e.code in FATAL_STATUSES:
                    raise VlmServerError(f"{self.url}: HTTP {e.code}: {detail}; hint: "
                                         "check --endpoint, --model and the API key "
                                         f"(${API_KEY_ENV})") from None
                if e.code in RETRY_STATUSES or e.code >= 500:
                    last = f"HTTP {e.code}: {detail}"
                    continue
                raise VlmRequestError(f"HTTP {e.code}: {detail}") from None
            except TimeoutError:
                last = f"no answer within {self.timeout_s:g} s"
                continue
            except urllib.error.URLError as e:
                reason = e.reason
                if isinstance(reason, ConnectionRefusedError | socket.gaierror):
                    if attempt < self.retries:
                        last = str(reason)
                        continue
                    raise VlmServerError(f"{self.url}: cannot connect: {reason}; hint: is "
                                         "the server running? (docs/agents.md)") from None
                last = f"{reason}"
                continue
            except (OSError, http.client.HTTPException) as e:  # reset or cut mid-answer
                last = f"{type(e).__name__}: {e}"
                continue
            try:
                return loads(data)
            except (InputError, ValueError):
                last = "the response is not JSON"
                continue
        raise VlmRequestError(f"no answer after {self.retries + 1} tries: {last}")


def _error_detail(e: urllib.error.HTTPError) -> str:
    """An HTTP error's message: the JSON error's `message`, else the body's start."""
    try:
        raw = e.read()[:2000].decode("utf-8", "replace")
    except OSError:
        return e.reason if isinstance(e.reason, str) else "error"
    try:
        parsed = json.loads(raw)
        message = parsed.get("error", {}).get("message") if isinstance(parsed, dict) else None
        if isinstance(message, str):
            return message
    except (ValueError, AttributeError):
        pass
    return " ".join(raw.split())[:300] or str(e.reason)
