"""Token-alignment features for the ``align`` grader (issue 12, the frozen-encoder route).

The fusion measures topic with whole-text cosines; a passage about the right event that
lacks the answer sentence still scores high there. Here the question and a passage window
are encoded *separately* by the bundled int8 ONNX all-MiniLM-L6-v2 (its
``last_hidden_state``), token vectors are L2-normalised, and each question content word is
matched to its most similar passage token (ColBERT-style MaxSim). Summaries of those
matches (IDF-weighted mean, min, share matched above levels, best single sentence) and an
answer-shape check are the features a small logistic head weighs; the encoder stays frozen,
so the head trains in seconds (scripts/train_align.py).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from localcrag.crag.graders.text import CorpusStats
from localcrag.ingest.embed_onnx import BATCH  # one text per run: its vector is its own
from localcrag.textutil import STOPWORDS, terms

LEVELS = (0.6, 0.75, 0.9)  # cosine levels for the "share matched" features
MAX_TOKENS = 256  # the embedder's own limit
# General English number words (a closed class, not taken from any data set).
NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve twenty
    thirty forty fifty hundred thousand million billion trillion dozen half""".split())
FEATURES = ("a_mean", "a_min", "a_q25", "a_sent") + tuple(f"a_share{int(v * 100)}" for v in LEVELS) + ("shape_ok",)


@dataclass(frozen=True)
class Encoded:
    """One text's tokens: unit vectors (n x d), the word each token belongs to, char
    offsets; special tokens dropped."""

    vectors: np.ndarray
    words: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    text: str


class TokenEncoder:
    """Frozen MiniLM token states from the provisioned int8 ONNX file (own session, 1 thread)."""

    def __init__(self, model_dir: Path, onnx_path: Path, threads: int = 1, cache_size: int = 4096) -> None:
        self.model_dir, self.onnx_path, self.threads = Path(model_dir), Path(onnx_path), threads
        self._tok: Any = None
        self._sess: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Encoded] = OrderedDict()
        self._cache_size = cache_size

    def load(self) -> None:
        """Open tokenizer and session (raises naming the missing file)."""
        with self._lock:
            if self._sess is not None:
                return
            for p in (self.model_dir / "tokenizer.json", self.onnx_path):
                if not p.is_file():
                    raise FileNotFoundError(f"align grader needs {p} (run `make models` to provision it)")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tok.no_padding()
            tok.enable_truncation(MAX_TOKENS)
            so = ort.SessionOptions()
            so.intra_op_num_threads = self.threads
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._sess = ort.InferenceSession(str(self.onnx_path), so, providers=["CPUExecutionProvider"])
            self._tok = tok

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        """Token states of each text, memoised (passages repeat across questions)."""
        self.load()
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            encs = self._tok.encode_batch(todo)
            order = sorted(range(len(todo)), key=lambda i: -len(encs[i].ids))
            done: dict[str, Encoded] = {}
            for start in range(0, len(order), BATCH):
                idx = order[start:start + BATCH]
                width = max(len(encs[i].ids) for i in idx)
                ids = np.zeros((len(idx), width), dtype=np.int64)
                mask = np.zeros_like(ids)
                for r, i in enumerate(idx):
                    ids[r, :len(encs[i].ids)] = encs[i].ids
                    mask[r, :len(encs[i].ids)] = 1
                hid = self._sess.run(None, {"input_ids": ids, "attention_mask": mask,
                                            "token_type_ids": np.zeros_like(ids)})[0]
                for r, i in enumerate(idx):
                    done[todo[i]] = _encoded(todo[i], encs[i], hid[r, :len(encs[i].ids)])
            with self._lock:
                for t, e in done.items():
                    self._cache[t] = e
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        with self._lock:
            return [self._cache[t] if t in self._cache else done[t] for t in texts]


def _encoded(text: str, enc: Any, hidden: np.ndarray) -> Encoded:
    keep = [i for i, s in enumerate(enc.special_tokens_mask) if not s]
    vec = hidden[keep].astype(np.float32)
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
    offs = tuple(enc.offsets[i] for i in keep)
    words = []
    for i in keep:  # the whole word a wordpiece belongs to
        w = enc.word_ids[i]
        span = [enc.offsets[j] for j in range(len(enc.ids)) if enc.word_ids[j] == w]
        words.append(text[span[0][0]:span[-1][1]])
    return Encoded(vec, tuple(words), offs, text)


def answer_shape(question: str) -> str | None:
    """The shape the answer must have, from the wh-phrase (general English, not fitted)."""
    q = question.lower()
    if re.search(r"\b(what|which) year\b|\bwhen\b|\bwhat century\b", q):
        return "year"
    if re.search(r"\bhow (many|much|long|old|far|large|big)\b|\bwhat (number|percentage|amount)\b", q):
        return "number"
    if re.search(r"^\s*(who|whom)\b|\bwho (is|was|were|did)\b", q):
        return "name"
    return None


def _shape_hit(shape: str, word: str, sent_start: bool) -> bool:
    if shape in ("year", "number"):  # a date or a quantity holds a digit (number words too)
        return any(c.isdigit() for c in word) or (shape == "number" and word.lower() in NUMBER_WORDS)
    return word[:1].isupper() and not sent_start and word.lower() not in STOPWORDS


def _idf(stats: CorpusStats, word: str) -> float:
    """IDF of a word under the corpus's own term normalisation (0 for a stop word)."""
    t = terms(word)
    return stats.idf(t[0]) if t else 0.0


def alignment(q: Encoded, p: Encoded, stats: CorpusStats, sentences: Sequence[tuple[int, int]]) -> dict[str, float]:
    """The features of FEATURES for one (question, passage window) pair."""
    content = [i for i, w in enumerate(q.words)
               if any(c.isalnum() for c in w) and w.lower() not in STOPWORDS]
    out = dict.fromkeys(FEATURES, 0.0)
    out["shape_ok"] = 1.0
    if not content or not len(p.vectors):
        return out
    sims = q.vectors[content] @ p.vectors.T  # (question content tokens x passage tokens)
    best = sims.max(axis=1)
    wts = np.array([max(_idf(stats, q.words[i]), 0.1) for i in content])
    wts = wts / wts.sum()
    out["a_mean"] = float(best @ wts)
    out["a_min"] = float(best.min())
    out["a_q25"] = float(np.quantile(best, 0.25))
    for v in LEVELS:
        out[f"a_share{int(v * 100)}"] = float(wts @ (best >= v))
    starts = np.array([a for a, _ in p.offsets])
    sent = 0.0
    for a, b in sentences:  # the question's match within one sentence (the answer's)
        cols = np.nonzero((starts >= a) & (starts < b))[0]
        if len(cols):
            sent = max(sent, float(sims[:, cols].max(axis=1) @ wts))
    out["a_sent"] = sent
    shape = answer_shape(q.text)
    if shape is not None:
        qwords = {w.lower() for w in q.words}
        bounds = {a for a, _ in sentences}
        hits = [w for w, (a, _) in zip(p.words, p.offsets)
                if w.lower() not in qwords and _shape_hit(shape, w, a in bounds)]
        out["shape_ok"] = 1.0 if hits else 0.0
    return out
