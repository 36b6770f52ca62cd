"""The cross-encoder evaluator: question and passage read together by a fine-tuned MiniLM.

The fusion grader measures *topic* (cosines, shared terms); a passage about the right
event in the wrong year scores high there. Here the question and a passage window go
through one transformer (``[CLS] question [SEP] window [SEP]``), so attention can check
that the words the question asks about are actually stated, which is what CRAG needs.

The model is all-MiniLM-L6-v2 fine-tuned by ``scripts/train_evaluator.py`` (seeded, CPU)
on answer-containment pairs, exported to int8 ONNX and shipped as package data
(``localcrag/data/evaluator_int8.onnx`` with its ``evaluator_tokenizer.json``). A chunk is
split into windows of up to 3 sentences (stride 2, so every pair of neighbouring sentences
is read together once); its score is its best window's. Refinement strips are scored
directly. If the model file is missing or fails to load, the grader falls back to the
fusion score and says so in every ``Grade.error``: never silently.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from localcrag.crag.graders.base import BaseGrader, Logistic
from localcrag.ingest.chunking import split_sentences
from localcrag.ingest.embed_onnx import BATCH  # one pair per run: int8 activations are quantised per run

MODEL_FILE = "evaluator_int8.onnx"
TOKENIZER_FILE = "evaluator_tokenizer.json"
MAX_TOKENS = 160  # question + window, as in training
WINDOW, STRIDE = 3, 2  # sentences per window, sentences between window starts
MAX_WINDOWS = 12  # per passage; evenly sampled beyond (bounded cost on long chunks)


def packaged(name: str) -> Path:
    return Path(str(resources.files("localcrag").joinpath("data", name)))


def passage_windows(text: str, size: int = WINDOW, stride: int = STRIDE) -> list[str]:
    """Windows of ``size`` sentences every ``stride`` sentences (whole text if short)."""
    sents = [text[a:b].strip() for a, b in split_sentences(text)]
    sents = [s for s in sents if s]
    if len(sents) <= size:
        return [" ".join(sents) or text.strip() or text]
    starts = list(range(0, len(sents) - size + 1, stride))
    if starts[-1] + size < len(sents):
        starts.append(len(sents) - size)
    out = [" ".join(sents[i:i + size]) for i in starts]
    if len(out) > MAX_WINDOWS:
        idx = np.linspace(0, len(out) - 1, MAX_WINDOWS).round().astype(int)
        out = [out[i] for i in sorted(set(idx.tolist()))]
    return out


class CrossEncoder:
    """The ONNX model: ``logits(question, texts)`` -> one containment logit per text."""

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None,
                 threads: int = 1, max_tokens: int = MAX_TOKENS) -> None:
        self.model_path = Path(model_path) if model_path else packaged(MODEL_FILE)
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else packaged(TOKENIZER_FILE)
        self.threads = threads
        self.max_tokens = max_tokens
        self._session: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Open the session (raises with the file named when it is missing or broken)."""
        with self._lock:
            if self._session is not None:
                return
            for p in (self.model_path, self.tokenizer_path):
                if not p.is_file():
                    raise FileNotFoundError(f"evaluator model file missing: {p}")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.tokenizer_path))
            tok.no_padding()
            tok.enable_truncation(self.max_tokens)
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.intra_op_num_threads = self.threads
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(str(self.model_path), so, providers=["CPUExecutionProvider"])
            self._tok = tok

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        self.load()
        encs = self._tok.encode_batch([(question, t) for t in texts])
        out = np.zeros(len(encs), dtype=np.float32)
        order = sorted(range(len(encs)), key=lambda i: -len(encs[i].ids))
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask, types = np.zeros_like(ids), np.zeros_like(ids)
            for row, i in enumerate(idx):
                e = encs[i]
                ids[row, :len(e.ids)] = e.ids
                mask[row, :len(e.ids)] = 1
                types[row, :len(e.ids)] = e.type_ids
            res = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
            out[idx] = np.asarray(res[0], dtype=np.float32).reshape(-1)
        return out


class CrossGrader(BaseGrader):
    """Best-window cross-encoder logit, through a fitted calibration, optionally fused with
    the fusion grader's signals (the calibration names the features it uses)."""

    name = "cross"

    def __init__(self, encoder: CrossEncoder, model: Logistic,
                 fusion: Callable[[], BaseGrader] | None = None, cache_size: int = 2048) -> None:
        """``fusion``: builds the fusion grader on first need (fallback, or features the
        calibration names); building it embeds the corpus sample, which cross alone skips."""
        self.encoder = encoder
        self.model = model
        self._fusion_factory = fusion
        self._fusion: BaseGrader | None = None
        self._memo: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._cache_size = cache_size
        self._load_error: str | None = None
        try:
            encoder.load()
        except Exception as exc:  # noqa: BLE001 - any load failure means: use the fallback, visibly
            self._load_error = f"cross-encoder unavailable ({type(exc).__name__}: {exc}); fusion score used"

    @property
    def fusion(self) -> BaseGrader | None:
        if self._fusion is None and self._fusion_factory is not None:
            self._fusion = self._fusion_factory()
        return self._fusion

    @property
    def fallback_name(self) -> str:
        return "fusion" if self._fusion_factory is not None else self.name

    @property
    def available(self) -> bool:
        return self._load_error is None

    def window_logits(self, question: str, windows: Sequence[str]) -> list[float]:
        """Logits of texts, memoised (refinement re-scores windows it already saw)."""
        todo = list(dict.fromkeys(w for w in windows if (question, w) not in self._memo))
        if todo:
            for w, v in zip(todo, self.encoder.logits(question, todo)):
                self._memo[(question, w)] = float(v)
            while len(self._memo) > self._cache_size:
                self._memo.popitem(last=False)
        return [self._memo[(question, w)] for w in windows]

    def _score_batch(self, question: str, texts: Sequence[str]) -> list[tuple[float, dict[str, float]]]:
        if self._load_error is not None:
            raise RuntimeError(self._load_error)
        wins = [passage_windows(t) for t in texts]
        flat = self.window_logits(question, [w for ws in wins for w in ws])
        extra = self._fusion_signals(question, texts)
        out, pos = [], 0
        for i, ws in enumerate(wins):
            best = max(flat[pos:pos + len(ws)])
            pos += len(ws)
            sig = {**extra[i], "cross": best, "p_cross": 1.0 / (1.0 + math.exp(-best))}
            out.append((self.model(sig), sig))
        return out

    def _fusion_signals(self, question: str, texts: Sequence[str]) -> list[dict[str, float]]:
        needed = [f for f in self.model.features if f != "cross"]
        if not needed or self.fusion is None:
            return [{} for _ in texts]
        return [dict(sig) for _, sig in self.fusion._score_batch(question, texts)]

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        if self.fusion is None:
            return 0.0, {}
        (score, sig), = self.fusion._score_batch(question, [text])
        return score, sig

    def _recover(self, question: str, text: str, exc: BaseException) -> tuple[float, dict[str, float], str]:
        score, sig, error = super()._recover(question, text, exc)
        return score, sig, (self._load_error or error)
