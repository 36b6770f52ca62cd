"""OpenAI-style model servers on 127.0.0.1: a scripted one (the ``fake`` fixture: each path
answers from a plan, JSON or server-sent events, and every request is recorded) and a
misbehaving one (``misbehaving``: the reads a client must bound)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


CEILING = 256 * 1024 * 1024  # bytes the server sends at most (the client stops long before)
CEILING_S = 30.0  # seconds the slow behaviours last at most
LISTED = json.dumps({"object": "list", "data": [{"id": "served-model"}]}).encode()
PIECE = b'data: {"choices": [{"delta": {"content": "word "}, "finish_reason": null}]}\n\n'


class Misbehaving:
    """What the server does for each path, and how many bytes it got to send."""

    def __init__(self) -> None:
        self.models = "ok"  # ok | endless | endless-error
        self.chat = "endless-stream"  # endless-stream | pings | drip | long-line | endless-error
        self.sent = 0


@contextmanager
def misbehaving(state: Misbehaving) -> Iterator[str]:
    """A model server on 127.0.0.1 doing what ``state`` says (a body or a stream that never
    ends, one that drips, one line without end): its /v1 URL. It stops on its own at a
    ceiling far past any bound (``CEILING`` bytes, ``CEILING_S`` seconds), so a client
    without bounds finishes too. Also bench/hostile_reads.py's server."""

    class Handler(BaseHTTPRequestHandler):  # HTTP/1.0: a body runs until the connection closes
        def log_message(self, *args: object) -> None:
            pass

        def _write(self, data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()
            state.sent += len(data)

        def _head(self, status: int, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.end_headers()

        def _endless(self, start: bytes, item: bytes) -> None:
            self._write(start)
            block = item * max(1, 65536 // len(item))
            while state.sent < CEILING:
                self._write(block)

        def _slow(self, item: bytes, pause: float) -> None:
            end = time.monotonic() + CEILING_S
            while time.monotonic() < end:
                self._write(item)
                time.sleep(pause)

        def _behave(self, what: str) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            if size:
                self.rfile.read(size)
            try:
                if what == "ok":
                    self._head(200, "application/json")
                    self._write(LISTED)
                elif what == "endless":
                    self._head(200, "application/json")
                    self._endless(b'{"object": "list", "data": [', b'{"id": "m"}, ')
                elif what == "endless-error":
                    self._head(500, "application/json")
                    self._endless(b'{"error": {"message": "', b"x")
                else:
                    self._head(200, "text/event-stream")
                    if what == "endless-stream":  # tokens past any max_tokens, then [DONE]
                        for _ in range(200_000 // 500):  # (in blocks: ``sent`` counts them)
                            self._write(PIECE * 500)
                        self._write(b"data: [DONE]\n\n")
                    elif what == "pings":  # alive, never a token, never [DONE]
                        self._slow(b": ping\n\n", 0.05)
                    elif what == "drip":  # one event, a byte at a time
                        for byte in PIECE * 4 + b"data: [DONE]\n\n":
                            self._write(bytes([byte]))
                            time.sleep(CEILING_S / len(PIECE * 4))
                    elif what == "long-line":
                        self._endless(b'data: {"choices": [{"delta": {"content": "', b"x")
            except OSError:
                pass  # the client hung up: what a bound is for

        def do_GET(self) -> None:
            self._behave(state.models)

        def do_POST(self) -> None:
            self._behave(state.chat)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
