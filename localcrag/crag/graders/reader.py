"""The reader: question and passage read together, for answer containment and the answer span.

The fusion grader measures *topic* (cosines, shared terms): an on-topic passage that lacks
the answer scores high there. The reader is a cross-encoder (``[CLS] question [SEP] window
[SEP]``) initialised from the bundled all-MiniLM-L6-v2 and trained by
``scripts/train_reader.py`` on the ``ship_ok`` rows of ``../shared/data/qa-pairs`` (166,936
labelled question-passage pairs from 15 public sources; docs/evaluator.md has the data, the
runs and the held-out figures). Two heads: a *contains the answer* logit and start/end
logits per token for the *answer span* (pointed at [CLS] when the passage lacks it).

It ships as int8 ONNX package data (``localcrag/data/reader_int8.onnx`` with its tokenizer
and ``reader_int8.json``: training record, calibration, trained-on families). A chunk
longer than the model's window is read in windows of whole sentences (neighbours share a
sentence); its score is its best window's. If the model file is missing or broken the
grader falls back to the fusion score and says so in every ``Grade.error``: never silently.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from localcrag.crag.graders.base import BaseGrader, Logistic, ReadSpans, Span
from localcrag.ingest.chunking import split_sentences
from localcrag.models.embed_onnx import cpu_session

MODEL_FILE = "reader_int8.onnx"
TOKENIZER_FILE = "reader_tokenizer.json"
MAX_TOKENS = 256  # question + window: a chunk (<= 200 embedder tokens by default) is one window
# (training read 192; scripts/fit_reader.py --read-tokens measures 192 against 256)
MAX_QUESTION = 64  # a longer question is cut: the passage keeps most of the window
MAX_WINDOWS = 12  # per passage; evenly sampled beyond (bounded cost on long chunks)
MAX_SPAN = 30  # tokens in an answer span


def packaged(name: str) -> Path:
    return Path(str(resources.files("localcrag").joinpath("data", name)))


@dataclass(frozen=True)
class Reading:
    """What the reader made of one passage: its best window's containment logit and the
    best answer span found in any window (None when no window has one)."""

    logit: float
    span: Span | None


def read_sidecar(model: Path) -> dict[str, Any]:
    """``<model>.json`` ({} when missing or unreadable: the grader then uses the raw logit)."""
    try:
        meta: dict[str, Any] = json.loads(model.with_suffix(".json").read_text(encoding="utf-8"))
        return meta
    except (OSError, ValueError):
        return {}


class ReaderModel:
    """The ONNX reader: ``read(question, texts)`` -> one :class:`Reading` per text."""

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int = 0,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        self.model_path = Path(model_path) if model_path else packaged(MODEL_FILE)
        self.tokenizer_path = (
            Path(tokenizer_path) if tokenizer_path else self.model_path.with_name(TOKENIZER_FILE)
        )
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
                    raise FileNotFoundError(f"reader model file missing: {p}")
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.tokenizer_path))
            tok.no_padding()
            tok.no_truncation()
            self._session = cpu_session(self.model_path, self.threads, spin=False)
            self._tok = tok

    def windows(self, question: str, text: str) -> list[tuple[int, int]]:
        """Character spans of ``text`` that fit beside the question: the whole text when it
        fits, else runs of whole sentences (a sentence longer than a window is cut by tokens);
        neighbouring windows share one sentence, so a fact across two is read together."""
        self.load()
        q_len = min(len(self._tok.encode(question, add_special_tokens=False).ids), MAX_QUESTION)
        budget = self.max_tokens - q_len - 3
        enc = self._tok.encode(text, add_special_tokens=False)
        if len(enc.ids) <= budget:
            return [(0, len(text))]
        offs = enc.offsets
        sents = [(a, b) for a, b in split_sentences(text) if text[a:b].strip()] or [(0, len(text))]
        units: list[tuple[int, int, int]] = []  # (start char, end char, tokens)
        for a, b in sents:
            toks = [i for i, (s, e) in enumerate(offs) if s >= a and e <= b and e > s]
            if len(toks) <= budget:
                units.append((a, b, len(toks)))
                continue
            for k in range(0, len(toks), budget):  # an over-long sentence: cut by tokens
                part = toks[k : k + budget]
                units.append((offs[part[0]][0], offs[part[-1]][1], len(part)))
        out: list[tuple[int, int]] = []
        i = 0
        while i < len(units):
            j, used = i, 0
            while j < len(units) and used + units[j][2] <= budget:
                used += units[j][2]
                j += 1
            j = max(j, i + 1)
            out.append((units[i][0], units[j - 1][1]))
            if j >= len(units):
                break
            i = j - 1 if j - 1 > i else j  # share the last sentence with the next window
        if len(out) > MAX_WINDOWS:
            idx = np.linspace(0, len(out) - 1, MAX_WINDOWS).round().astype(int)
            out = [out[k] for k in sorted(set(idx.tolist()))]
        return out

    def _run(self, question: str, text: str) -> tuple[float, Span | None]:
        """One window: containment logit and the best span (char offsets within ``text``)."""
        q = self._tok.encode(question, add_special_tokens=False)
        q_ids = q.ids[:MAX_QUESTION]
        p = self._tok.encode(text, add_special_tokens=False)
        room = self.max_tokens - len(q_ids) - 3
        p_ids, p_offs = p.ids[:room], p.offsets[:room]
        cls_id, sep_id = self._tok.token_to_id("[CLS]"), self._tok.token_to_id("[SEP]")
        ids = [cls_id] + q_ids + [sep_id] + p_ids + [sep_id]
        types = [0] * (len(q_ids) + 2) + [1] * (len(p_ids) + 1)
        arr = np.array([ids], dtype=np.int64)
        logit, start, end = self._session.run(
            None,
            {
                "input_ids": arr,
                "attention_mask": np.ones_like(arr),
                "token_type_ids": np.array([types], dtype=np.int64),
            },
        )
        start, end = np.asarray(start[0], dtype=np.float64), np.asarray(end[0], dtype=np.float64)
        first = len(q_ids) + 2
        null = start[0] + end[0]
        best, where = -math.inf, None
        s_pass, e_pass = start[first : first + len(p_ids)], end[first : first + len(p_ids)]
        for i in np.argsort(-s_pass)[:10]:
            stop = min(len(p_ids), i + MAX_SPAN)
            j = i + int(np.argmax(e_pass[i:stop]))
            score = s_pass[i] + e_pass[j]
            if score > best:
                best, where = score, (int(i), int(j))
        span = None
        if where is not None and p_offs[where[0]][1] > p_offs[where[0]][0]:
            span = Span(p_offs[where[0]][0], p_offs[where[1]][1], float(best - null))
        return float(np.asarray(logit).reshape(-1)[0]), span

    def read(self, question: str, texts: Sequence[str]) -> list[Reading]:
        self.load()
        out = []
        for text in texts:
            best_logit, best_span = -math.inf, None
            for a, b in self.windows(question, text):
                logit, span = self._run(question, text[a:b])
                best_logit = max(best_logit, logit)
                if span is not None and (best_span is None or span.margin > best_span.margin):
                    best_span = Span(a + span.start, a + span.end, span.margin)
            out.append(Reading(best_logit, best_span))
        return out


class ReaderGrader(BaseGrader):
    """The reader's best-window logit through a fitted calibration (optionally stacked with
    the fusion signals the calibration names); answer spans for the extractive answer."""

    name = "reader"

    def __init__(
        self,
        model: ReaderModel,
        calib: Logistic,
        fusion: Callable[[], BaseGrader] | None = None,
        trained_on: Sequence[str] = (),
        span_margin: float = 0.0,
        cache_size: int = 2048,
    ) -> None:
        """``fusion``: builds the fusion grader on first need (fallback, or features the
        calibration names). ``trained_on``: the qa-pairs source families the weights saw
        (``localcrag eval --exclude-trained`` reports only the others). ``span_margin``:
        the fitted margin a span needs to be shown as the answer."""
        self.reader = model
        self.model = calib
        self.trained_on = tuple(trained_on)
        self.span_margin = span_margin
        self._fusion_factory = fusion
        self._fusion: BaseGrader | None = None
        self._memo: OrderedDict[tuple[str, str], Reading] = OrderedDict()
        self._cache_size = cache_size
        self._load_error: str | None = None
        try:
            model.load()
        except Exception as exc:  # noqa: BLE001 - any load failure means: use the fallback, visibly
            self._load_error = (
                f"reader unavailable ({type(exc).__name__}: {exc}); fusion score used"
            )

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

    def readings(self, question: str, texts: Sequence[str]) -> list[Reading]:
        """Readings of texts, memoised (refinement and the answer re-read what grading read)."""
        if self._load_error is not None:
            raise RuntimeError(self._load_error)
        todo = list(dict.fromkeys(t for t in texts if (question, t) not in self._memo))
        if todo:
            for t, r in zip(todo, self.reader.read(question, todo)):
                self._memo[(question, t)] = r
            while len(self._memo) > self._cache_size:
                self._memo.popitem(last=False)
        return [self._memo[(question, t)] for t in texts]

    def reader_spans(self) -> ReadSpans | None:
        return self.answer_spans

    def answer_spans(self, question: str, texts: Sequence[str]) -> list[Span | None]:
        """The answer span of each text when its margin clears the fitted one, else None."""
        try:
            reads = self.readings(question, texts)
        except Exception:  # noqa: BLE001 - no reader, no spans: the answer quotes sentences
            return [None for _ in texts]
        return [
            r.span if r.span is not None and r.span.margin >= self.span_margin else None
            for r in reads
        ]

    def _score_batch(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float]]]:
        reads = self.readings(question, texts)
        extra = self._fusion_signals(question, texts)
        out = []
        for i, r in enumerate(reads):
            sig = {**extra[i], "reader": r.logit}
            out.append((self.model(sig), sig))
        return out

    def _fusion_signals(self, question: str, texts: Sequence[str]) -> list[dict[str, float]]:
        needed = [f for f in self.model.features if f != "reader"]
        if not needed or self.fusion is None:
            return [{} for _ in texts]
        return [dict(sig) for _, sig in self.fusion._score_batch(question, texts)]

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        if self.fusion is None:
            return 0.0, {}
        ((score, sig),) = self.fusion._score_batch(question, [text])
        return score, sig

    def _recover(
        self, question: str, text: str, exc: BaseException
    ) -> tuple[float, dict[str, float], str]:
        score, sig, error = super()._recover(question, text, exc)
        return score, sig, (self._load_error or error)
