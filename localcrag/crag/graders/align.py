"""The ``align`` evaluator: a logistic head over frozen MiniLM token alignments + the fusion.

A chunk is read as windows of up to 3 sentences (as the cross grader reads it); each
window gets the token-alignment features of :mod:`align_features` and the chunk's fusion
signals, a logistic head (``localcrag/data/align_head.json``, written by the seeded
scripts/train_align.py in seconds on frozen features) maps them to P(the answer is here),
each alignment feature takes its best window's value. If the ONNX encoder cannot be loaded the
grader returns the fusion score and says so in every ``Grade.error``: never silently.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from localcrag.crag.graders.align_features import MAX_TOKENS, Encoded, TokenEncoder, alignment
from localcrag.crag.graders.base import BaseGrader, Logistic
from localcrag.crag.graders.cross import MAX_WINDOWS, STRIDE, WINDOW
from localcrag.crag.graders.text import CorpusStats
from localcrag.ingest.chunking import split_sentences

HEAD_FILE = "align_head.json"


def head_path(path: Path | None = None) -> Path:
    return Path(path) if path is not None else Path(str(resources.files("localcrag").joinpath("data", HEAD_FILE)))


def load_head(path: Path | None = None) -> dict[str, Any]:
    """The head file: ``{"calibration": {features, weights, bias}, "thresholds": {...}, ...}``."""
    return json.loads(head_path(path).read_text(encoding="utf-8"))


def window_features(q: Encoded, windows: Sequence[Encoded], stats: CorpusStats) -> list[dict[str, float]]:
    """Alignment features of each window (sentence spans taken from the window's text)."""
    return [alignment(q, w, stats, split_sentences(w.text)) for w in windows]


def sentence_windows(text: str) -> list[list[tuple[int, int]]]:
    """Sentence spans of each window: up to WINDOW sentences every STRIDE (as the cross
    grader reads a chunk), at most MAX_WINDOWS evenly sampled."""
    sents = [(a, b) for a, b in split_sentences(text) if text[a:b].strip()] or [(0, len(text))]
    if len(sents) <= WINDOW:
        return [sents]
    starts = list(range(0, len(sents) - WINDOW + 1, STRIDE))
    if starts[-1] + WINDOW < len(sents):
        starts.append(len(sents) - WINDOW)
    if len(starts) > MAX_WINDOWS:
        starts = sorted({starts[i] for i in np.linspace(0, len(starts) - 1, MAX_WINDOWS).round().astype(int)})
    return [sents[i:i + WINDOW] for i in starts]


def chunk_features(q: Encoded, chunk: Encoded, stats: CorpusStats) -> list[dict[str, float]]:
    """Window features from ONE encoding of the whole chunk (its tokens sliced per window),
    so each token is encoded once, in its chunk's context."""
    starts = np.array([a for a, _ in chunk.offsets], dtype=np.int64)
    out = []
    for spans in sentence_windows(chunk.text):
        keep = np.nonzero((starts >= spans[0][0]) & (starts < spans[-1][1]))[0]
        sub = Encoded(chunk.vectors[keep], tuple(chunk.words[i] for i in keep),
                      tuple(chunk.offsets[i] for i in keep), chunk.text)
        out.append(alignment(q, sub, stats, spans))
    return out


class AlignGrader(BaseGrader):
    """Logistic score over the chunk's fusion signals and, per alignment feature, its best
    window's value (a feature-wise max, so a head fitted on single windows and one fitted
    on whole paragraphs read the same features)."""

    name = "align"

    def __init__(self, encoder: TokenEncoder, model: Logistic, fusion: Any,
                 corpus_stats: CorpusStats | None = None, load_error: str | None = None) -> None:
        """``fusion``: a FeatureGrader (its ``signals`` are features here, its score the fallback)."""
        self.encoder = encoder
        self.model = model
        self.fusion = fusion
        self.stats = corpus_stats or CorpusStats()
        self._load_error = load_error
        if load_error is None:
            try:
                encoder.load()
            except Exception as exc:  # noqa: BLE001 - any load failure: the fusion, visibly
                self._load_error = f"align encoder unavailable ({type(exc).__name__}: {exc}); fusion score used"

    @property
    def available(self) -> bool:
        return self._load_error is None

    def _score_batch(self, question: str, texts: Sequence[str]) -> list[tuple[float, dict[str, float]]]:
        if self._load_error is not None:
            raise RuntimeError(self._load_error)
        q, *encs = self.encoder.encode([question] + list(texts))
        feats = [self._features(q, e) for e in encs]
        needs_fusion = any(f not in feats[0][0] for f in self.model.features) if feats else False
        fus = self.fusion.signals(question, texts) if needs_fusion else [{} for _ in texts]
        out = []
        for i, wins in enumerate(feats):
            sig = {**fus[i], **{k: max(w[k] for w in wins) for k in wins[0]}}
            out.append((self.model(sig), sig))
        return out

    def _features(self, q: Encoded, chunk: Encoded) -> list[dict[str, float]]:
        """Window features; a chunk longer than the encoder's limit is encoded per window."""
        if len(chunk.vectors) < MAX_TOKENS - 2:
            return chunk_features(q, chunk, self.stats)
        texts = [chunk.text[s[0][0]:s[-1][1]] for s in sentence_windows(chunk.text)]
        return window_features(q, self.encoder.encode(texts), self.stats)

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        (score, sig), = self.fusion._score_batch(question, [text])
        return score, sig

    def _recover(self, question: str, text: str, exc: BaseException) -> tuple[float, dict[str, float], str]:
        score, sig, error = super()._recover(question, text, exc)
        return score, sig, (self._load_error or error)
