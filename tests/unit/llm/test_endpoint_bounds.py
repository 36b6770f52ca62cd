"""Every read from a model server is bounded: a real HTTP server on
127.0.0.1 that misbehaves (a body or a stream that never ends, a stream that never stops,
one that drips a byte at a time, one line without end) is cut by size, by the tokens asked
for (counted on the client) or by ``llm_endpoint_deadline``, and the question falls back
to the local model with one line saying why.

The server stops on its own at a ceiling far past any bound (bytes or seconds), so code
without the bounds finishes too, and fails the size assertions instead of hanging."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from localcrag.llm.chat import ChatModel, ModelFacts
from localcrag.llm.endpoint import ChatPrompt, EndpointDown, EndpointLLM
from localcrag.llm.failover import endpoint_generator, joined
from localcrag.settings import Settings

CEILING = 256 * 1024 * 1024  # bytes the server sends at most (the client stops long before)
CEILING_S = 30.0  # seconds the slow behaviours last at most
DEADLINE = 2.0  # llm_endpoint_deadline in these tests
MODELS = json.dumps({"object": "list", "data": [{"id": "served-model"}]}).encode()
PIECE = b'data: {"choices": [{"delta": {"content": "word "}, "finish_reason": null}]}\n\n'


class Misbehaving:
    """What the server does for each path, and how many bytes it got to send."""

    def __init__(self) -> None:
        self.models = "ok"  # ok | endless | endless-error
        self.chat = "endless-stream"  # endless-stream | pings | drip | long-line | endless-error
        self.sent = 0


@contextmanager
def misbehaving(state: Misbehaving) -> Iterator[str]:
    """A model server on 127.0.0.1 doing what ``state`` says: its /v1 URL (also
    bench/hostile_reads.py's server)."""

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
                    self._write(MODELS)
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


@pytest.fixture()
def bad() -> Iterator[tuple[Misbehaving, str]]:
    state = Misbehaving()
    with misbehaving(state) as url:
        yield state, url


class Local(ChatModel):
    facts = ModelFacts("local.gguf", n_params=135_000_000)
    n_ctx = 2048

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        return messages[-1]["content"]

    def stream(self, prompt: str, max_tokens: int, **kw: object) -> Iterator[str]:
        yield "local answer."


PROMPT = ChatPrompt([{"role": "user", "content": "Say hi."}])
MAX_TOKENS = 32
# what a bounded client may have let the server write: the largest bound (8 MiB) plus what
# the sockets' buffers hold
SENT_BOUND = 64 * 1024 * 1024


def failover(url: str, **settings: object):  # noqa: ANN201
    s = Settings(llm_endpoint=url, llm_endpoint_deadline=DEADLINE, **settings)
    return endpoint_generator(s, Local)


@pytest.mark.parametrize("what", ["endless", "endless-error"])
def test_an_endless_model_list_is_cut_and_the_local_model_answers(bad, what: str) -> None:
    state, url = bad
    state.models = what
    gen = failover(url)
    gen.begin_question()
    [notice] = gen.take_notices()
    assert state.sent < SENT_BOUND, state.sent
    assert url in notice and "answering with the local model local.gguf" in notice
    assert ("sent more than 8192 KiB for its model list" in notice) or what == "endless-error"
    assert joined(gen.stream(PROMPT, MAX_TOKENS)) == "local answer."


@pytest.mark.parametrize(
    "what, why",
    [
        ("endless-error", "HTTP 500"),
        ("endless-stream", f"sent more than the {MAX_TOKENS} tokens asked for"),
        ("long-line", "sent an event longer than 1024 KiB"),
        ("pings", f"took more than {DEADLINE:g} s"),
        ("drip", f"took more than {DEADLINE:g} s"),
    ],
)
def test_a_stream_that_never_ends_is_cut_and_the_local_model_answers(
    bad, what: str, why: str
) -> None:
    state, url = bad
    state.chat = what
    gen = failover(url)
    gen.begin_question()
    assert not gen.take_notices()  # the model list was fine
    pieces = list(gen.stream(PROMPT, MAX_TOKENS))
    assert state.sent < SENT_BOUND, state.sent
    assert joined(pieces) == "local answer."
    [notice] = gen.take_notices()
    assert url in notice and why in notice and "local model local.gguf" in notice


def test_the_deadline_is_a_setting_from_the_environment(bad, monkeypatch) -> None:
    state, url = bad
    state.chat = "pings"
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT", url)
    monkeypatch.setenv("LOCALCRAG_LLM_ENDPOINT_DEADLINE", "1.5")
    s = Settings.load()
    assert s.endpoint.llm_endpoint_deadline == 1.5
    llm = EndpointLLM(url, deadline=s.endpoint.llm_endpoint_deadline, read_timeout=60)
    with pytest.raises(EndpointDown, match=r"took more than 1.5 s .*llm_endpoint_deadline"):
        llm.complete(PROMPT, MAX_TOKENS)
    assert state.sent < 1024 * 1024  # pings for 1.5 s, not for the server's 30
