"""A small scripted OpenAI-compatible chat-completions server for the VLM tests: an
`http.server` in a thread on 127.0.0.1 (port 0: the system picks one).

The test gives it a script: a function from the request's JSON body to either a reply
text (sent as a chat-completions response, HTTP 200) or an `(HTTP status, body)` pair.
It records every request it receives, so a test can count them (the cache: a second
run sends none) and read them (the messages, their images).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], "str | tuple[int, str]"]


@dataclass
class ScriptedServer:
    """The running server: its base URL and the requests it received (JSON bodies)."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def completion(text: str, model: str) -> str:
    """A chat-completions response whose one choice says `text`."""
    return json.dumps({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


@contextmanager
def scripted_server(script: Script) -> Iterator[ScriptedServer]:
    """Serve `script` on 127.0.0.1 until the block ends."""
    state = ScriptedServer("")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with lock:
                state.requests.append(body)
                state.paths.append(self.path)
            answer = script(body)  # unlocked: a slow reply does not hold up the next
            status, text = (200, completion(answer, body.get("model", ""))) \
                if isinstance(answer, str) else answer
            data = text.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except BrokenPipeError:  # the client gave up waiting (a timeout test)
                pass

        def log_message(self, *_: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
