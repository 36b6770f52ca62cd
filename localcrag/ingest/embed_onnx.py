"""The int8 ONNX embedder: the same sentence-transformers weights, exported to ONNX and
quantized per channel (MatMul weights only), run with onnxruntime.

``export_int8`` turns a sentence-transformers folder into ``model_int8.onnx`` once
(torch's TorchScript ONNX exporter, then onnxruntime's dynamic quantization of the MatMul
weights per output channel; word embeddings and attention softmax stay float32). It needs
the ``onnx`` package at export time only. ``OnnxEmbedder`` then runs it with onnxruntime
(already installed: pymupdf depends on it) and the model's own ``tokenizer.json``: no
torch and no sentence-transformers import, so it also starts faster. It implements
``localcrag.ingest.embed.Embedder`` and can be passed to ``Library(settings, embedder=...)``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

ONNX_NAME = "model_int8.onnx"
# One sequence per run for everything computed afresh each time (queries, graders). The
# int8 model quantises activations per run (dynamic quantisation: one scale per tensor), so
# a text batched with others gets a vector that depends on its batch-mates (anthropic-docs
# chunks, batch 8 vs alone: cosine down to 0.974) and borderline decisions flipped between
# runs. Alone, a text always gets the same vector (and one closer to fp32: mean cosine
# 0.9944 vs 0.9940).
BATCH = 1
# Stored chunk vectors are computed once and kept, so ingest batches (embed_groups): within
# one document's chunks only, sorted by token length, so re-ingesting reproduces them bit
# for bit. Measured in bench/batch_sizes.py (see the docstring there for the figures).
INGEST_BATCH = 16
# Spinning worker threads pay off for bulk work and cost for small calls (measured, 2 cores
# under light load: 92 chunks 1.48 s spinning vs 1.98 s not; 20 refinement strips 81 ms
# vs 35 ms; with a busy process beside, one query 6.0 vs 2.2 ms). So: spin for ingestion.
BULK = 64


def export_int8(model_dir: Path, out: Path) -> Path:
    """Export + quantize (slow, ~20 s, once). Raises ImportError without ``onnx``.

    The exporter's and quantizer's advice (warnings, root-logger lines) is silenced: it is
    about their general use, not this model, and would read like an error during `make`.
    """
    import logging
    import warnings

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _export_int8(model_dir, out)
    finally:
        root.setLevel(level)


def _export_int8(model_dir: Path, out: Path) -> Path:
    import onnx  # noqa: F401 - needed by both the exporter and the quantizer
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class Hidden(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    out.parent.mkdir(parents=True, exist_ok=True)
    fp32 = out.with_name(out.stem + "-fp32.onnx")
    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {"b": 0, "s": 1}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(Hidden(model), (ids, ids, torch.zeros_like(ids)), str(fp32), dynamo=False,
                          input_names=names, output_names=["last_hidden_state"], opset_version=17,
                          dynamic_axes={n: {v: k for k, v in axes.items()} for n in names + ["last_hidden_state"]})
    tmp = out.with_suffix(".tmp")
    quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul"],
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    fp32.unlink()
    tmp.replace(out)
    return out


class OnnxEmbedder:
    """Embedder protocol on onnxruntime: mean pooling + L2 norm, as the ST folder says."""

    def __init__(self, model_dir: Path, onnx_path: Path, threads: int = 0, max_tokens: int | None = None,
                 spin: bool | None = None) -> None:
        self.path = Path(model_dir)
        self.onnx_path = Path(onnx_path)
        self.name = self.path.name + "-onnx-int8"
        self.threads = threads
        self.spin = spin  # None: spin only for calls of at least BULK texts
        self.ingest_batch = INGEST_BATCH  # texts per run in embed_groups (stored chunk vectors)
        cfg = json.loads((self.path / "sentence_bert_config.json").read_text())
        self._max = int(max_tokens or cfg.get("max_seq_length", 256))
        self._dim = int(json.loads((self.path / "1_Pooling/config.json").read_text())["word_embedding_dimension"])
        self._tok = self._cut = None
        self._sessions: dict[bool, Any] = {}
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._tok is not None:
                return
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            tok.no_padding()
            tok.no_truncation()  # counting sees every token
            cut = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            cut.no_padding()
            cut.enable_truncation(self._max)  # embedding: [CLS] ... [SEP] within max_tokens, as ST
            self._tok, self._cut = tok, cut

    def _session(self, spin: bool) -> Any:
        """One onnxruntime session per spinning mode, made on first use."""
        with self._lock:
            if spin not in self._sessions:
                import onnxruntime as ort

                so = ort.SessionOptions()
                so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                if self.threads:
                    so.intra_op_num_threads = self.threads
                if not spin:  # idle threads sleep instead of spinning: kinder to a busy machine
                    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
                self._sessions[spin] = ort.InferenceSession(str(self.onnx_path), so,
                                                            providers=["CPUExecutionProvider"])
            return self._sessions[spin]

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max

    def fingerprint(self) -> str:
        h = hashlib.sha256(self.name.encode())
        h.update(str(self.onnx_path.stat().st_size).encode())
        return h.hexdigest()[:10]

    def count_tokens(self, text: str) -> int:
        return self.count_tokens_batch([text])[0]

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        self._load()
        return [len(e.ids) for e in self._tok.encode_batch(list(texts), add_special_tokens=True)]

    def embed(self, texts: Sequence[str], batch_size: int = BATCH) -> np.ndarray:
        """Vectors of texts, one per run by default (queries, graders: see BATCH)."""
        return self.embed_groups([texts], batch_size)

    def embed_groups(self, groups: Sequence[Sequence[str]], batch_size: int | None = None) -> np.ndarray:
        """Vectors of several groups of texts (ingest: one document's chunks per group), in order.

        Each group is sorted by token length (ties: its own order) and cut into runs of
        ``batch_size`` (default ``self.ingest_batch``); a run never mixes groups. A text's
        batch-mates, and so its int8 vector, then depend only on its own group: the same
        document gets the same vectors, bit for bit, whatever was ingested beside it.
        """
        self._load()
        size = batch_size or self.ingest_batch
        flat = [t for g in groups for t in g]
        out = np.zeros((len(flat), self._dim), dtype=np.float32)
        if not flat:
            return out
        sess = self._session(self.spin if self.spin is not None else len(flat) >= BULK)
        encs = self._cut.encode_batch(flat, add_special_tokens=True)
        at = 0
        for g in groups:
            order = sorted(range(at, at + len(g)), key=lambda i: (-len(encs[i].ids), i))
            at += len(g)
            for start in range(0, len(order), size):
                idx = order[start:start + size]
                out[idx] = self._run(sess, [encs[i].ids for i in idx])
        return out

    @staticmethod
    def _run(sess: Any, rows: list[list[int]]) -> np.ndarray:
        """One onnxruntime run over right-padded token ids: mean-pooled, unit-length vectors."""
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, r in enumerate(rows):
            ids[row, :len(r)] = r
            mask[row, :len(r)] = 1
        hidden = sess.run(None, {"input_ids": ids, "attention_mask": mask,
                                 "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[..., None].astype(np.float32)
        v = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        return v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None)


def onnx_path_for(model_dir: Path) -> Path:
    """Where provisioning puts the exported model: next to the folder, in models/."""
    return Path(model_dir).parent / f"{Path(model_dir).name}.int8.onnx"
