"""A scripted OpenAI-style model server on 127.0.0.1 (the ``fake`` fixture): each path
answers from a plan, JSON or server-sent events, and every request is recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

MODEL_LIST = {"object": "list", "data": [{"id": "served-model", "object": "model"}]}


class Scripted:
    """What the fake server does: ``plan`` maps a path to a list of replies, one per
    request (the last repeats): (status, body bytes or a list of SSE pieces)."""

    def __init__(self) -> None:
        self.plan: dict[str, list[tuple[int, object]]] = {"/v1/models": [(200, MODEL_LIST)]}
        self.seen: list[tuple[str, dict, dict]] = []  # (path, headers, body)

    def reply(self, path: str) -> tuple[int, object]:
        replies = self.plan[path]
        return replies.pop(0) if len(replies) > 1 else replies[0]


@pytest.fixture()
def fake() -> Iterator[tuple[Scripted, str]]:
    script = Scripted()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size)) if size else {}
            script.seen.append((self.path, dict(self.headers), body))
            status, payload = script.reply(self.path)
            if isinstance(payload, list):  # server-sent events; a trailing None: cut, no [DONE]
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in payload:
                    if piece is None:
                        return
                    event = {
                        "choices": [
                            {"delta": {"content": piece}, "text": piece, "finish_reason": None}
                        ]
                    }
                    self.wfile.write(b": ping\n\ndata: " + json.dumps(event).encode() + b"\n\n")
                    self.wfile.flush()
                self.wfile.write(
                    b'data: {"choices": [{"delta": {}, "finish_reason": "length"}]}\n\n'
                )
                self.wfile.write(b"data: [DONE]\n\n")
                return
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield script, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
