"""Every read from a model server is bounded: a real HTTP server on
127.0.0.1 that misbehaves (a body or a stream that never ends, a stream that never stops,
one that drips a byte at a time, one line without end) is cut by size, by the tokens asked
for (counted on the client) or by ``llm_endpoint_deadline``, and the question falls back
to the local model with one line saying why.

The server stops on its own at a ceiling far past any bound (bytes or seconds), so code
without the bounds finishes too, and fails the size assertions instead of hanging."""

from __future__ import annotations

from collections.abc import Iterator
from threading import Event

import pytest

from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.llm.endpoint import ChatPrompt, EndpointDown, EndpointLLM
from localcrag.llm.failover import endpoint_generator, joined
from localcrag.settings import Settings
from tests.support.modelserver import Misbehaving, misbehaving

DEADLINE = 2.0  # llm_endpoint_deadline in these tests


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

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
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
