"""The torch embedder counts tokens on an ingest's reader thread while the main thread
embeds (ingest/readahead.py): neither may disturb the other."""

from __future__ import annotations

import threading

import pytest

from tests.support import MODELS


@pytest.mark.slow
def test_counting_on_one_thread_while_embedding_on_another() -> None:
    from localcrag.models.embed import SentenceTransformerEmbedder

    folder = MODELS / "all-MiniLM-L6-v2"
    if not folder.is_dir():
        pytest.skip("no sentence-transformers folder in models/ (run `make models`)")
    emb = SentenceTransformerEmbedder(folder)
    texts = [("word " * n).strip() + "." for n in range(5, 300, 7)]  # ragged, some over 256
    errors: list[BaseException] = []
    stop = threading.Event()

    def count() -> None:
        try:
            while not stop.is_set():
                assert emb.count_tokens_batch(texts[::-1])[0] > 256  # never truncated
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        for _ in range(3):
            assert emb.embed(texts, batch_size=16).shape == (len(texts), emb.dim)
    finally:
        stop.set()
        counter.join(30)
    assert errors == []
