"""The model server first, the local GGUF behind it: what ``Pipeline.generator`` is when
``llm_endpoint`` is set.

When the server fails the check at the start of a question, or before it has sent a piece
(after ``EndpointLLM``'s one retry), the rest of the question runs on the local model and ``notices`` gets one line naming the URL:
the pipeline turns it into a ``GeneratorFellBack`` event, so the trace, ``ask`` and
``--json`` say so. A server that stops *mid-answer* is the same, and its fragment is
withdrawn: the stream yields ``RESTART`` (an empty piece the answer stage recognises: it
starts the answer over and says so), then the local model answers the same question from
the start. Each question tries the server again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from threading import Event
from typing import Any
from urllib.parse import urlsplit

from localcrag.errors import LocalcragError
from localcrag.llm import endpoint as _endpoint
from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.llm.endpoint import (
    ChatPrompt,
    EndpointDown,
    EndpointLLM,
    is_loopback,
    loopback_address,
)
from localcrag.settings import Settings


def offline_refusal(settings: Settings) -> str | None:
    """Why ``settings`` may not use its endpoint offline, else None."""
    refused = _offline_refused(settings)
    return refused[0] if refused else None


def _offline_refused(settings: Settings) -> tuple[str, str] | None:
    """(why, fix) when offline forbids the endpoint: a server that is not this machine, or
    a name only a resolver could turn into an address (offline resolves none)."""
    url = settings.endpoint.llm_endpoint
    if not url or not settings.web.offline or is_loopback(url):
        return None
    host = (urlsplit(url).hostname or "").lower()
    online = "or allow the network (ask without --offline; eval with --online)"
    if host.endswith(".localhost"):
        return (
            f"offline: llm_endpoint = {url} names {host}, which {_endpoint.HOSTS_FILE} does not map to "
            "a loopback address, and offline no name is resolved",
            f"point llm_endpoint at 127.0.0.1, map {host} in {_endpoint.HOSTS_FILE}, {online}",
        )
    return (
        f"offline: llm_endpoint = {url} is not on this machine, and the evidence text "
        "would be sent to it",
        f"unset llm_endpoint, point it at 127.0.0.1, {online}",
    )


def endpoint_generator(settings: Settings, load_local: Callable[[], Any]) -> FailoverLLM:
    """The configured server with the local model behind it; refused offline (one line).
    Offline, the client connects to the loopback address itself: no name is resolved."""
    if refused := _offline_refused(settings):
        raise LocalcragError(*refused)
    url = str(settings.endpoint.llm_endpoint)
    env = settings.endpoint.llm_endpoint_key_env
    endpoint = EndpointLLM(
        url,
        settings.endpoint.llm_endpoint_model,
        api_key=os.environ.get(env) if env else None,
        key_env=env,
        n_ctx=settings.generation.n_ctx,
        read_timeout=settings.endpoint.llm_endpoint_timeout,
        deadline=settings.endpoint.llm_endpoint_deadline,
        connect_to=loopback_address(urlsplit(url).hostname or "") if settings.web.offline else None,
    )
    return FailoverLLM(endpoint, load_local)


class Restart(str):
    """An empty piece meaning: forget what this stream yielded so far, it starts over."""


RESTART = Restart("")


def joined(pieces: Iterable[str]) -> str:
    """A streamed completion as one text: what came before a ``RESTART`` was withdrawn."""
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, Restart):
            out.clear()
        else:
            out.append(piece)
    return "".join(out)


class FailoverLLM(ChatModel):
    """Delegates to the endpoint until it fails, then to the local model (this question)."""

    def __init__(self, endpoint: EndpointLLM, load_local: Callable[[], Any]) -> None:
        self.endpoint = endpoint
        self.url = endpoint.url
        self._load_local = load_local
        self._local: Any = None
        self._lock = threading.Lock()
        self.failed: str | None = None  # why this question runs on the local model
        self.notices: list[str] = []  # lines not yet reported (the pipeline drains them)

    def begin_question(self) -> None:
        """A new question asks the server again: a down server is found here, before the
        answer style is chosen, so the whole question runs on (and is labelled as) the
        local model."""
        self.failed = None
        try:
            self.endpoint.check()
        except EndpointDown as exc:
            self._fall_back(exc)

    @property
    def local(self) -> Any:
        with self._lock:
            if self._local is None:
                self._local = self._load_local()
            return self._local

    @property
    def active(self) -> Any:
        return self.local if self.failed else self.endpoint

    @property
    def n_ctx(self) -> int:  # type: ignore[override]
        n: int = self.active.n_ctx
        return n

    @property
    def finish_reason(self) -> str | None:  # type: ignore[override]
        reason: str | None = self.active.finish_reason
        return reason

    @property
    def has_chat_template(self) -> bool:  # type: ignore[override]
        return bool(self.active.has_chat_template)

    @property
    def facts(self) -> ModelFacts:
        """The model that writes now, at the server's address (where answers go first)."""
        facts: ModelFacts = self.active.facts
        return replace(facts, url=self.url, served_model=self.endpoint.model)

    def set_threads(self, n: int) -> None:
        self.active.set_threads(n)

    def __repr__(self) -> str:
        return f"FailoverLLM({self.endpoint!r}, failed={self.failed!r})"

    def _fall_back(self, exc: EndpointDown, mid_answer: bool = False) -> None:
        name = self.local.facts.name
        self.failed = str(exc.message)
        what = (
            "; it stopped mid-answer: what it wrote is withdrawn, and the local model "
            f"{name} answers the question again"
            if mid_answer
            else f"; answering with the local model {name}"
        )
        self.notices.append(f"{exc.message}{what}".rstrip())

    def _for_local(self, prompt: str) -> str:
        """A prompt rendered for the server, re-rendered with the local chat template."""
        return (
            self.local.chat_prompt(list(prompt.messages))
            if isinstance(prompt, ChatPrompt)
            else prompt
        )

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        prompt: str = self.active.chat_prompt(messages)  # a ChatPrompt from the server's side
        return prompt

    def count_tokens(self, text: str) -> int:
        n: int = self.active.count_tokens(text)
        return n

    def fits(self, prompt_tokens: int, max_tokens: int) -> bool:
        fits: bool = self.active.fits(prompt_tokens, max_tokens)
        return fits

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        if not self.failed:
            sent = False
            try:
                for piece in self.endpoint.stream(prompt, max_tokens, sampling, cancel):
                    sent = True
                    yield piece
                return
            except EndpointDown as exc:
                self._fall_back(exc, mid_answer=sent)
                if sent:  # a fragment was yielded: withdrawn, and the answer starts over
                    yield RESTART
        yield from self.local.stream(self._for_local(prompt), max_tokens, sampling, cancel)

    def complete(self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY) -> str:
        return joined(self.stream(prompt, max_tokens, sampling))

    def yes_probability(self, prompt: str) -> float:
        if not self.failed:
            try:
                return self.endpoint.yes_probability(prompt)
            except EndpointDown as exc:
                self._fall_back(exc)
        p: float = self.local.yes_probability(self._for_local(prompt))
        return p

    def take_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out
