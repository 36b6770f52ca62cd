"""The embedder backends: the int8 ONNX copy (default) must stand in for torch fp32."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from localcrag.errors import ModelMissing
from localcrag.models.embed import SentenceTransformerEmbedder, load_embedder
from localcrag.models.embed_onnx import OnnxEmbedder, onnx_path_for
from tests.support import MODELS

MINILM = MODELS / "all-MiniLM-L6-v2"
TEXTS = [
    "What is a cobot?",
    "Collaborative robots work alongside people on factory floors, sharing the workspace safely.",
    "The Normans were descended from Norse raiders who settled in northern France in the 10th century.",
    "Prompt caching lowers the price of repeated prefixes. "
    * 30,  # past 256 tokens: truncated like ST
    "",
]


@pytest.fixture(scope="module")
def both() -> tuple[OnnxEmbedder, SentenceTransformerEmbedder]:
    if not onnx_path_for(MINILM).is_file():
        pytest.skip("models/ not provisioned with the ONNX copy (run `make models`)")
    onnx = load_embedder(MINILM, backend="auto")
    torch = load_embedder(MINILM, backend="torch")
    assert isinstance(onnx, OnnxEmbedder) and isinstance(torch, SentenceTransformerEmbedder)
    return onnx, torch


def test_onnx_vectors_match_torch(both) -> None:
    onnx, torch = both
    a, b = onnx.embed(TEXTS), torch.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    cos = (a * b).sum(axis=1)
    assert cos.min() > 0.97, cos  # int8 weights; measured mean 0.994 on real chunks
    # the ranking a search relies on is kept: question closest to the cobot passage in both
    assert np.argmax(a[1:4] @ a[0]) == np.argmax(b[1:4] @ b[0]) == 0


def test_onnx_vector_does_not_depend_on_batch_mates(both) -> None:
    """The int8 model quantises activations per run: a text must get the same vector alone,
    with other texts, and in another order (else decisions flip between runs)."""
    onnx, _ = both
    alone = np.stack([onnx.embed([t])[0] for t in TEXTS])
    together = onnx.embed(TEXTS)
    reversed_ = onnx.embed(TEXTS[::-1])[::-1]
    np.testing.assert_array_equal(alone, together)
    np.testing.assert_array_equal(alone, reversed_)


def test_bulk_calls_run_in_streams_with_the_same_bits(both) -> None:
    """A call of BULK texts or more (ingest) runs single-threaded runs side by side: each
    vector must be bit for bit the one a query-sized call gives, in any order and company."""
    from localcrag.models.embed_onnx import BULK

    onnx, _ = both
    texts = [f"{t} ({i})" for i in range(BULK // len(TEXTS) + 1) for t in TEXTS]
    assert len(texts) >= BULK and onnx.streams() >= 1
    bulk = onnx.embed(texts)
    alone = np.stack([onnx.embed([t])[0] for t in texts[:12]])
    np.testing.assert_array_equal(bulk[:12], alone)
    np.testing.assert_array_equal(onnx.embed(texts[::-1])[::-1], bulk)


def test_token_counts_identical(both) -> None:
    onnx, torch = both
    assert onnx.max_tokens == torch.max_tokens == 256
    assert [onnx.count_tokens(t) for t in TEXTS] == [torch.count_tokens(t) for t in TEXTS]


def test_backends_get_their_own_table(both) -> None:
    onnx, torch = both
    assert onnx.fingerprint() != torch.fingerprint()  # a changed backend never mixes vectors


def test_onnx_backend_without_export_says_how(tmp_path: Path) -> None:
    if not MINILM.exists():
        pytest.skip("models/ not provisioned")
    folder = tmp_path / "my-model"
    shutil.copytree(MINILM.resolve(), folder)
    with pytest.raises(ModelMissing, match="make models"):
        load_embedder(folder, backend="onnx")
    assert isinstance(load_embedder(folder, backend="auto"), SentenceTransformerEmbedder)
