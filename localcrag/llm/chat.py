"""The chat model the pipeline writes answers with: one protocol, its optional members given.

``LocalLLM`` (a GGUF in process), ``EndpointLLM`` (a model server), ``FailoverLLM`` (the
server, the local model when it fails) and the tests' fakes all subclass :class:`ChatModel`,
so every member the pipeline reads exists on each of them: what a model has nothing to say
about keeps the default here (no notices, no question to prepare for, no chat template, a
thread count it does not take). :class:`ModelFacts` is what the answer style, the settings
screen and ``ask --json`` read of a model without loading it: its name, size and where it
runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from threading import Event
from typing import Protocol


@dataclass(frozen=True)
class Sampling:
    """How a stream picks its tokens and where it stops: one value, so the protocol and each
    model name the options once."""

    temperature: float = 0.0  # 0: greedy, the same text every time
    stop: tuple[str, ...] = ()  # strings that end the stream (not yielded)
    repeat_penalty: float = 1.0  # 1: none (a model server's own default applies)


GREEDY = Sampling()


@dataclass(frozen=True)
class ModelFacts:
    """What a chat model is, as the answer style and the run record name it."""

    name: str = ""  # "Written by <name>": the model's file name, or the server's model
    path: Path | None = None  # a GGUF on this machine
    n_params: int | None = None  # from the GGUF's tensors
    size_label: str | None = None  # the GGUF's general.size_label ("135M")
    remote: bool = False  # a model server: evidence text leaves the process
    url: str | None = None  # the model server's base URL
    served_model: str | None = None  # the model name the server is asked for, once known


class ChatModel(Protocol):
    """What answering needs from a chat model. Subclass it: the optional members below have
    their defaults here, the four above them (``n_ctx``, ``count_tokens``, ``chat_prompt``,
    ``stream``) each model writes."""

    n_ctx: int
    finish_reason: str | None = None  # of the last stream: "stop" or "length"
    has_chat_template: bool = False  # the model renders chat messages itself

    def count_tokens(self, text: str) -> int: ...

    def chat_prompt(self, messages: list[dict[str, str]]) -> str: ...

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]: ...

    def complete(self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY) -> str:
        """The whole streamed text at once (short internal prompts, tests)."""
        return "".join(self.stream(prompt, max_tokens, sampling))

    @property
    def facts(self) -> ModelFacts:
        """Its name, size and where it runs (nothing known by default)."""
        return ModelFacts()

    def begin_question(self) -> None:
        """Called before each question (a model server is checked again here)."""
        return None

    def take_notices(self) -> list[str]:
        """Lines to report once (a model server's failure), emptied as they are taken."""
        return []

    def set_threads(self, n: int) -> None:
        """Threads for the next prompt and generation (a model in process takes them)."""
        return None
