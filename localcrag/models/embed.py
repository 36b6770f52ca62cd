"""Embedders: the Protocol and the sentence-transformers implementation (lazy, offline).

``import sentence_transformers`` costs ~10 s here, so it happens on first use, never at
import time of this module.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from localcrag.errors import ModelMissing
from localcrag.models.discovery import hf_offline, require_st


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors; counts tokens the way the model does."""

    name: str

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def fingerprint(self) -> str: ...

    def count_tokens(self, text: str) -> int: ...

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]: ...

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers folder from models/, loaded once, on first use."""

    def __init__(self, path: Path, device: str = "cpu", threads: int = 0) -> None:
        self.path = require_st(Path(path))
        self.name = self.path.name
        self.device = device
        self.threads = threads
        self._model: Any = None  # a SentenceTransformer, loaded on first use
        self._counter: Any = None  # a tokenizer of its own for counting (see ``_counting``)
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:  # a SentenceTransformer, imported lazily
        if self._model is None:
            with self._lock:
                if self._model is None:
                    hf_offline()
                    import torch
                    from sentence_transformers import SentenceTransformer

                    if self.threads:
                        torch.set_num_threads(self.threads)
                    self._model = SentenceTransformer(
                        str(self.path), device=self.device, local_files_only=True
                    )
        return self._model

    def _config(self, rel: str, key: str) -> int | None:
        """Read a number from the model folder without loading torch (keeps `sources` fast)."""
        import json

        try:
            return int(json.loads((self.path / rel).read_text())[key])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @property
    def dim(self) -> int:
        if self._model is None and (
            d := self._config("1_Pooling/config.json", "word_embedding_dimension")
        ):
            return d
        get = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        return int(get())

    @property
    def max_tokens(self) -> int:
        """Largest input in model tokens, including the [CLS]/[SEP] the tokenizer adds."""
        if self._model is None and (
            n := self._config("sentence_bert_config.json", "max_seq_length")
        ):
            return n
        return int(self.model.max_seq_length)

    def fingerprint(self) -> str:
        """Identifies the weights, so a different model never shares a table."""
        h = hashlib.sha256(self.name.encode())
        for f in sorted(self.path.rglob("*")):
            if f.is_file() and f.suffix in {".json", ".safetensors", ".bin", ".txt"}:
                h.update(f.name.encode())
                h.update(str(f.stat().st_size).encode())
        return h.hexdigest()[:10]

    def _counting(self) -> Any:
        """A copy of the model's tokenizer, for counting only. An ingest counts on its reader
        thread while the main thread embeds (ingest/readahead.py), and a fast tokenizer's
        truncation and padding are state its calls set: counting with ``truncation=False``
        on the encoder's own tokenizer made a concurrent encode's batch ragged ("expected
        sequence of length 200 (got 198)")."""
        if self._counter is None:
            model = self.model
            with self._lock:
                if self._counter is None:
                    import copy

                    self._counter = copy.deepcopy(model.tokenizer)
        return self._counter

    def count_tokens(self, text: str) -> int:
        """Token count with special tokens: what the model actually sees."""
        return self.count_tokens_batch([text])[0]

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        enc = self._counting()(list(texts), add_special_tokens=True, truncation=False)
        return [len(ids) for ids in enc["input_ids"]]

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)


_CACHE: dict[tuple[str, int, str], Embedder] = {}


def load_embedder(path: Path, threads: int = 0, backend: str = "auto") -> Embedder:
    """One embedder per folder per process: models are expensive to load.

    ``backend="auto"`` uses the int8 ONNX copy that provisioning exports beside the folder
    (``<folder>.int8.onnx``) when it exists and onnxruntime imports: ~2.7x faster than torch
    fp32 on 2 cores, recall on anthropic-docs within a point, and no torch import (cold
    start ~5 s shorter). ``"torch"`` forces sentence-transformers; ``"onnx"`` insists.
    """
    from localcrag.models.embed_onnx import OnnxEmbedder, onnx_path_for

    folder = require_st(Path(path))
    onnx = onnx_path_for(folder)
    use_onnx = backend != "torch" and onnx.is_file() and _has_onnxruntime()
    if backend == "onnx" and not use_onnx:
        raise ModelMissing(
            f"{onnx}: no int8 ONNX copy of {folder.name}; run `make models` "
            '(python -m localcrag.provision) or set embedder_backend = "torch"'
        )
    key = (str(folder.resolve()), threads, "onnx" if use_onnx else "torch")
    if key not in _CACHE:
        _CACHE[key] = (
            OnnxEmbedder(folder, onnx, threads)
            if use_onnx
            else SentenceTransformerEmbedder(folder, threads=threads)
        )
    return _CACHE[key]


def _has_onnxruntime() -> bool:
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None
