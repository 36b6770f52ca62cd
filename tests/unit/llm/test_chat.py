"""The chat-model protocol: every model the pipeline writes with has each member it reads."""

from __future__ import annotations

from collections.abc import Iterator
from threading import Event

from localcrag.crag.answer.style import model_name, resolve_style
from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.llm.endpoint import EndpointLLM
from localcrag.llm.failover import FailoverLLM


class Minimal(ChatModel):
    """A model that writes only the four required members."""

    n_ctx = 512

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        return messages[-1]["content"]

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        yield "ok"


def test_a_model_that_says_nothing_more_gets_the_defaults() -> None:
    model = Minimal()
    model.begin_question()
    model.set_threads(2)
    assert model.take_notices() == [] and model.finish_reason is None
    assert model.facts == ModelFacts() and not model.has_chat_template
    assert model_name(model.facts) == "the model"
    assert resolve_style("auto", model.facts)[0] == "generative"  # unknown size: it writes


def test_a_model_server_and_its_failover_say_where_answers_go() -> None:
    server = EndpointLLM("http://127.0.0.1:9/v1", "qwen2.5-7b")
    assert server.facts.remote and server.facts.url == "http://127.0.0.1:9/v1"
    assert model_name(server.facts) == "qwen2.5-7b" and server.has_chat_template
    local = Minimal()
    failover = FailoverLLM(server, lambda: local)
    assert failover.facts.remote and failover.facts.served_model == "qwen2.5-7b"
    failover.failed = "down"  # the local model writes this question
    facts = failover.facts
    assert not facts.remote and facts.url == server.url and failover.n_ctx == 512
    assert failover.has_chat_template is False
