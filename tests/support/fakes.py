"""Deterministic fakes for unit tests (integration tests use the real models)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from threading import Event
from typing import TYPE_CHECKING

import numpy as np

from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.types import Chunk, Grade, WebResult

if TYPE_CHECKING:
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.store import LanceStore
    from localcrag.record import RunRecord

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Bag-of-words hashing into 64 dims: similar texts get similar vectors, instantly."""

    name = "fake-embedder"
    dim = 64
    max_tokens = 64

    def fingerprint(self) -> str:
        return "fake0001"

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text)) + 2

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        return [self.count_tokens(t) for t in texts]

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _WORD.findall(t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class FakeGrader:
    """Scores by word overlap with the question, or from a fixed table of chunk scores."""

    name = "fake"
    trained_on: tuple[str, ...] = ()

    def __init__(self, fixed: dict[str, float] | None = None, fail: bool = False) -> None:
        self.fixed = fixed or {}
        self.fail = fail

    def _score(self, q: str, text: str) -> float:
        qw = {w for w in _WORD.findall(q.lower()) if len(w) > 3}
        tw = set(_WORD.findall(text.lower()))
        return len(qw & tw) / max(1, len(qw))

    def grade(self, question: str, chunks: Sequence[Chunk]) -> list[Grade]:
        if self.fail:
            raise RuntimeError("grader exploded")
        return [
            Grade(c, self.fixed.get(c.chunk_id, self._score(question, c.text)), self.name)
            for c in chunks
        ]

    def score_texts(self, question: str, texts: Sequence[str]) -> list[float]:
        return [self._score(question, t) for t in texts]

    def reader_spans(self) -> None:
        return None  # scores only


class FakeGenerator(ChatModel):
    """A chat model that streams a scripted answer word by word."""

    facts = ModelFacts()  # a test sets what the model is (its size picks the answer style)

    def __init__(
        self, answer: str = "Machine learning learns from data [1].", n_ctx: int = 2048
    ) -> None:
        self.answer = answer
        self.n_ctx = n_ctx
        self.prompts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 1

    def tokenize(self, text: str, add_bos: bool = False, special: bool = True) -> list[int]:
        return list(range(self.count_tokens(text)))

    def fits(self, prompt_tokens: int, max_tokens: int) -> bool:
        return prompt_tokens + max_tokens <= self.n_ctx

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        self.prompts.append(prompt)
        for i, word in enumerate(self.answer.split(" ")):
            if cancel is not None and cancel.is_set():
                return
            yield word if i == 0 else " " + word


KIWI = WebResult("Kiwi birds", "https://example.org/kiwi", "Kiwis are flightless birds.")


class FakeWeb:
    """A web searcher (crag/web.WebSearch) that answers every query with ``results`` and
    records the queries: no network (no host: no DNS lookup)."""

    host: str | None = None

    def __init__(self, *results: WebResult) -> None:
        self.results = list(results)
        self.queries: list[str] = []

    def search(self, query: str, max_results: int) -> list[WebResult]:
        self.queries.append(query)
        return self.results[:max_results]


def chunk(text: str, cid: str = "c1", source: str = "/docs/a.pdf", page: int = 1) -> Chunk:
    return Chunk(cid, source, text, page, page, 0, len(text), None, len(text.split()))


def quoting_pipeline(docs: Path, generator: object = None, **settings: object) -> Pipeline:
    """The real index over ``docs`` (fake embedder) and the real pipeline quoting from it,
    offline, with the fake grader: what a run over files a test builds needs. ``generator``:
    a fake, or None for the shipped GGUF; ``settings``: thresholds and the like."""
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings

    library = Library(Settings(), embedder=FakeEmbedder())
    assert not library.ingest([docs]).failed
    options = Settings(offline=True, answer_style="extractive", **settings)
    return Pipeline(options, library=library, grader=FakeGrader(), generator=generator)


def asked(pipe: Pipeline, question: str, **run: object) -> RunRecord:
    """The record of one question run through ``pipe`` (``run``: e.g. ``k``)."""
    from localcrag.record import RunRecord

    record = RunRecord(question, "crag")
    for event in pipe.run(question, **run):
        record.add(event)
    return record


def index_dirs(table_dir: Path, kind: str) -> list[Path]:
    """A table's derived index folders of one kind: "fts" (full text) or "source" (the
    bitmap index a scope's prefilter reads), told apart by the source index's lookup file."""
    dirs = [d for d in (table_dir / "_indices").iterdir() if d.is_dir()]
    bitmap = {d for d in dirs if (d / "bitmap_page_lookup.lance").exists()}
    return sorted(bitmap if kind == "source" else set(dirs) - bitmap)


def texts_as_chunks(source: str, texts: list[str], tag: str) -> list[Chunk]:
    """One chunk per text, page i+1, ids ``tag-i``."""
    return [
        Chunk(f"{tag}-{i}", source, t, i + 1, i + 1, 0, len(t), None, len(t.split()))
        for i, t in enumerate(texts)
    ]


def put_texts(store: LanceStore, source: str, texts: list[str], tag: str) -> None:
    """Index ``texts`` as the file ``source`` (version ``tag``) with the fake embedder."""
    chunks = texts_as_chunks(source, texts, tag)
    store.replace_file(
        source, tag, len(texts), chunks, FakeEmbedder().embed([c.text for c in chunks])
    )
