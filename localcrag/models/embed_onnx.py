"""The int8 ONNX embedder: the same sentence-transformers weights, exported to ONNX and
quantized per channel (MatMul weights only), run with onnxruntime.

``export_int8`` turns a sentence-transformers folder into ``model_int8.onnx`` once
(torch's TorchScript ONNX exporter, then onnxruntime's dynamic quantization of the MatMul
weights per output channel; word embeddings and attention softmax stay float32). It needs
the ``onnx`` package at export time only. ``OnnxEmbedder`` then runs it with onnxruntime
(already installed: pymupdf depends on it) and the model's own ``tokenizer.json``: no
torch and no sentence-transformers import, so it also starts faster. It implements
``localcrag.models.embed.Embedder`` and can be passed to ``Library(settings, embedder=...)``.
"""

from __future__ import annotations

import hashlib
import json
import platform
import threading
from collections.abc import Sequence, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from localcrag.models.cpu import cpu_flags, usable_cores
from localcrag.models.quantize import int8_matmuls

if TYPE_CHECKING:  # loaded on first use
    from tokenizers import Tokenizer

ONNX_NAME = "model_int8.onnx"
# One sequence per run, everywhere (ingest, queries, graders). The int8 model quantises
# activations per run (dynamic quantisation: one scale per tensor), so a text batched with
# others gets a vector that depends on its batch-mates (anthropic-docs chunks, batch 8 vs
# alone: cosine down to 0.974) and borderline decisions flipped between runs. Alone, a text
# always gets the same vector, closer to fp32 (189 bench PDF chunks: mean cosine 0.99453
# alone, 0.99428 / 0.99409 / 0.99395 / 0.99389 at batch 4 / 8 / 16 / 32), for less work (one
# thread: 1.45 CPU s alone, 1.52 / 1.70 / 2.07 / 2.55 s at batch 4 / 8 / 16 / 32; `python -m
# bench.batch_sizes --no-quality --threads 1`). Batching only looked faster because one
# small run spreads badly over 2 intra-op threads: bulk calls run in streams instead.
BATCH = 1
# A call of at least BULK texts (ingest) runs in streams: one-text runs side by side on a
# single-threaded session, one per core (streams()); same bits as one text per call, and
# 83 chunks/s vs 40 on one session with 2 intra-op threads (189 bench PDF chunks, load ~5;
# `python -m bench.batch_sizes --no-quality`). Smaller calls run on one session, whose idle
# threads do not spin (spinning cost small calls: 20 refinement strips 81 ms vs 35 ms; with
# a busy process beside, one query 6.0 vs 2.2 ms); it spins only with streams() == 1.
BULK = 64

# The int8 MatMuls multiply u8 activations by s8 weights. onnxruntime's u8s8 kernel is chosen
# by the CPU: with AVX512-VNNI, AVX-VNNI (without AVX-512) or AMX it sums the products exactly
# in int32; with AVX2 or AVX-512 without VNNI (and SSE4.1) it adds each adjacent pair into a
# saturating int16 first (vpmaddubsw: 255 x 127 x 2 > 32,767; 10.5% of this model's weights
# exceed 63). The same model then gave other vectors there (20 anthropic-docs chunks: mean
# cosine 0.9918, min 0.9875 to the exact sums) and the README's anthropic-docs retrieval
# figure moved (docs/eval.md, "Embedder vectors across machines";
# scripts/int8_paths.py emulates both kernels bit-exactly). On such a CPU this option makes
# onnxruntime convert the weights to u8 and use its exact u8u8 kernel. It is set only there:
# onnxruntime would also apply it on a VNNI CPU, where it changes no bit and costs 28% of the
# speed (this CPU, 60 chunks, one thread: 42 vs 58 chunks per CPU second).
PRECISE_INT8 = "session.x64quantprecision"


def saturating_int8(flags: Set[str] | None = None, machine: str | None = None) -> bool:
    """Whether onnxruntime's u8s8 kernel saturates on this CPU (its MLAS kernel choice, from
    the CPU flags in /proc/cpuinfo; ``flags``/``machine`` stand in for them in tests). An x86
    CPU whose flags cannot be read counts as saturating: the exact kernel is then chosen."""
    arch = (machine or platform.machine()).lower()
    if arch not in {"x86_64", "amd64", "i386", "i686", "x86"}:
        return False  # ARM and others: exact dot-product kernels; the option does nothing
    if flags is None:
        flags = cpu_flags()
    if flags is None:
        return True
    if {"amx_tile", "amx_int8"} <= flags:
        return False
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:  # MLAS's AVX-512 core kernel
        return "avx512_vnni" not in flags
    return "avx_vnni" not in flags


def cpu_session(path: Path, threads: int, spin: bool) -> Any:
    """An onnxruntime CPU session of the embedder's and the reader's shape: full graph
    optimisation, exact int8 sums where the CPU needs them (see PRECISE_INT8), ``threads``
    intra-op threads (0: onnxruntime's choice) whose idle ones sleep unless ``spin``."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if saturating_int8():  # the same int8 sums on every x86 CPU
        so.add_session_config_entry(PRECISE_INT8, "1")
    if threads:
        so.intra_op_num_threads = threads
    if not spin:  # idle threads sleep instead of spinning: kinder to a busy machine
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


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
    fp32 = export_fp32(model_dir, out.with_name(out.stem + "-fp32.onnx"))
    int8_matmuls(fp32, out)
    fp32.unlink()
    return out


def export_fp32(model_dir: Path, out: Path) -> Path:
    """The sentence-transformers folder's encoder as a float32 ONNX graph (its last hidden
    state; pooling stays in numpy), dynamic in batch and length: what ``int8_matmuls``
    quantizes."""
    import onnx  # noqa: F401 - needed by the exporter
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class Hidden(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.m(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    out.parent.mkdir(parents=True, exist_ok=True)
    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {"b": 0, "s": 1}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(
            Hidden(model),
            (ids, ids, torch.zeros_like(ids)),
            str(out),
            dynamo=False,
            input_names=names,
            output_names=["last_hidden_state"],
            opset_version=17,
            dynamic_axes={
                n: {v: k for k, v in axes.items()} for n in names + ["last_hidden_state"]
            },
        )
    return out


class OnnxEmbedder:
    """Embedder protocol on onnxruntime: mean pooling + L2 norm, as the ST folder says."""

    def __init__(
        self,
        model_dir: Path,
        onnx_path: Path,
        threads: int = 0,
        max_tokens: int | None = None,
        spin: bool | None = None,
    ) -> None:
        self.path = Path(model_dir)
        self.onnx_path = Path(onnx_path)
        self.name = self.path.name + "-onnx-int8"
        self.threads = threads
        self.spin = spin  # None: spin only for calls of at least BULK texts (when not in streams)
        cfg = json.loads((self.path / "sentence_bert_config.json").read_text())
        self._max = int(max_tokens or cfg.get("max_seq_length", 256))
        self._dim = int(
            json.loads((self.path / "1_Pooling/config.json").read_text())[
                "word_embedding_dimension"
            ]
        )
        self._tok: Tokenizer | None = None
        self._cut: Tokenizer | None = None
        self._sessions: dict[object, Any] = {}
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

    def _session(self, kind: bool | str) -> Any:
        """One onnxruntime session per kind, made on first use: spinning (True) or not (False)
        intra-op threads, or "stream": one thread, run from several Python threads at once."""
        with self._lock:
            if kind not in self._sessions:
                threads = 1 if kind == "stream" else self.threads
                self._sessions[kind] = cpu_session(self.onnx_path, threads, spin=kind is not False)
            return self._sessions[kind]

    def streams(self) -> int:
        """Runs side by side for a bulk call: the thread setting, else the usable cores."""
        return self.threads or usable_cores()

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
        return [len(e.ids) for e in _ids_only(self._tok)(list(texts), add_special_tokens=True)]

    def embed(self, texts: Sequence[str], batch_size: int = BATCH) -> np.ndarray:
        """Unit vectors of texts, one per run by default (see BATCH): a text's vector is then
        the same whatever it is embedded with. Longest first, so runs of ``batch_size`` > 1
        (measuring only) pad little. A call of BULK texts or more runs in streams."""
        self._load()
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        encs = _ids_only(self._cut)(list(texts), add_special_tokens=True)
        order = sorted(range(len(encs)), key=lambda i: (-len(encs[i].ids), i))
        runs = [order[a : a + batch_size] for a in range(0, len(order), batch_size)]
        bulk = self.spin if self.spin is not None else len(texts) >= BULK
        streams = min(self.streams(), len(runs)) if bulk else 1
        sess = self._session("stream" if streams > 1 else bulk)

        def one(idx: list[int]) -> None:
            out[idx] = self._run(sess, [encs[i].ids for i in idx])

        if (
            streams > 1
        ):  # onnxruntime releases the GIL in run(); the pool hands out runs as cores free up
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(streams, thread_name_prefix="embed") as pool:
                list(pool.map(one, runs))
        else:
            for idx in runs:
                one(idx)
        return out

    @staticmethod
    def _run(sess: Any, rows: list[list[int]]) -> np.ndarray:
        """One onnxruntime run over right-padded token ids: mean-pooled, unit-length vectors."""
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, r in enumerate(rows):
            ids[row, : len(r)] = r
            mask[row, : len(r)] = 1
        hidden = sess.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        m = mask[..., None].astype(np.float32)
        v = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        unit: np.ndarray = v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None)
        return unit


def _ids_only(tok: Any) -> Any:
    """The tokenizer's batch encoder that skips character offsets (tokenizers >= 0.20), else
    the full one: only ids are used here (measured ~12% less tokenizing time)."""
    return getattr(tok, "encode_batch_fast", None) or tok.encode_batch


def onnx_path_for(model_dir: Path) -> Path:
    """Where provisioning puts the exported model: next to the folder, in models/."""
    return Path(model_dir).parent / f"{Path(model_dir).name}.int8.onnx"
