"""The Grader protocol, the fitted logistic calibrations, and per-chunk error handling."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from localcrag.errors import exc_summary
from localcrag.settings.thresholds import shipped_grader_params
from localcrag.types import Chunk, Grade


@dataclass(frozen=True)
class Span:
    """An answer span in a passage: characters ``start:end`` of the text, and how far its
    start+end logits stand above the no-answer ([CLS]) pair (> 0: the reader prefers it)."""

    start: int
    end: int
    margin: float


# a reader's answer spans: (question, texts) -> one Span or None per text
ReadSpans = Callable[[str, Sequence[str]], list[Span | None]]

load_params = shipped_grader_params  # the one loader of the shipped fit (settings read it too)

RANK_GRADER = "retrieval order"  # Grade.grader when the grader failed as a whole


@runtime_checkable
class Grader(Protocol):
    """The retrieval evaluator: one relevance score in [0, 1] per chunk (or text)."""

    name: str
    # the qa-pairs families (or exact sources) its weights were fitted on (``BaseGrader``)
    trained_on: tuple[str, ...]

    def grade(self, question: str, chunks: Sequence[Chunk]) -> list[Grade]: ...

    def score_texts(self, question: str, texts: Sequence[str]) -> list[float]: ...

    def reader_spans(self) -> ReadSpans | None:
        """The reader's answer spans for a grader that reads answers (``reader``); None
        for one that only scores."""
        ...


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True)
class Logistic:
    """P(relevant | signals) = sigmoid(bias + sum(w * signal)), fitted by scripts/fit_grader.py."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Logistic:
        feats = tuple(d["features"])
        weights = tuple(float(w) for w in d["weights"])
        if len(feats) != len(weights):
            raise ValueError("features and weights differ in length")
        return cls(feats, weights, float(d["bias"]))

    def __call__(self, signals: Mapping[str, float]) -> float:
        z = self.bias + sum(w * float(signals[f]) for f, w in zip(self.features, self.weights))
        return sigmoid(z)


def trained_on_families(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``trained_on_families`` a params file, head or sidecar declares (() when absent)."""
    raw = meta.get("trained_on_families") or ()
    if isinstance(raw, str) or not all(isinstance(x, str) for x in raw):
        raise ValueError("trained_on_families must be a list of source family names")
    return tuple(raw)


def calibration(name: str, params: Mapping[str, Any] | None = None) -> Logistic:
    params = params if params is not None else load_params()
    return Logistic.from_dict(params["graders"][name])


class BaseGrader:
    """Batch scoring with per-item recovery: a failure costs one score, never the batch.

    Subclasses implement ``_score_batch(question, texts) -> list[(score, signals)]`` and
    may override ``_fallback(question, text) -> (score, signals)``.
    """

    name = "base"
    # The qa-pairs families (or exact sources) this grader's weights were fitted on, as its
    # params file or sidecar declares them (``trained_on_families``): ``localcrag eval
    # qa-pairs --exclude-trained`` drops them, and the report marks them in-sample.
    trained_on: tuple[str, ...] = ()

    def reader_spans(self) -> ReadSpans | None:
        return None  # scores only; the reader's grader reads spans too

    def _score_batch(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float]]]:
        raise NotImplementedError

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        raise RuntimeError(f"{self.name} grader has no fallback score")

    def _score_all(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float], str | None]]:
        if not texts:
            return []
        try:
            batch = self._score_batch(question, texts)
            if len(batch) != len(texts):
                raise ValueError(f"{len(batch)} scores for {len(texts)} texts")
            return [(_clip(s), sig, None) for s, sig in batch]
        except Exception:  # retry one by one so only the bad item falls back
            pass
        out: list[tuple[float, dict[str, float], str | None]] = []
        for text in texts:
            try:
                ((s, sig),) = self._score_batch(question, [text])
                out.append((_clip(s), sig, None))
            except Exception as exc:
                out.append(self._recover(question, text, exc))
        return out

    def _recover(
        self, question: str, text: str, exc: BaseException
    ) -> tuple[float, dict[str, float], str]:
        error = exc_summary(exc)
        try:
            s, sig = self._fallback(question, text)
            return _clip(s), sig, error
        except Exception as exc2:  # no score at all: NaN, never a 0.0 that reads as "irrelevant"
            return math.nan, {}, f"{error}; fallback failed: {exc_summary(exc2)}"

    def grade(self, question: str, chunks: Sequence[Chunk]) -> list[Grade]:
        """One grade per chunk; raises GradingFailed when a chunk got no score at all (the
        pipeline then answers from retrieval order and says so)."""
        scored = self._score_all(question, [c.text for c in chunks])
        if bad := next((err for s, _, err in scored if math.isnan(s)), None):
            raise GradingFailed(bad)
        return [
            Grade(c, s, self.name if err is None else self.fallback_name, dict(sig), err)
            for c, (s, sig, err) in zip(chunks, scored)
        ]

    @property
    def fallback_name(self) -> str:
        """Who scores a chunk this grader could not: Grade.grader names it, never silently."""
        return self.name

    def score_texts(self, question: str, texts: Sequence[str]) -> list[float]:
        """Strip scores for refinement; a strip that got no score counts as 0.0 (dropped first)."""
        return [0.0 if math.isnan(s) else s for s, _, _ in self._score_all(question, list(texts))]


class GradingFailed(RuntimeError):
    """A chunk could be scored neither by the grader nor by its fallback."""


def _clip(x: float) -> float:
    x = float(x)
    if math.isnan(x):
        raise ValueError("score is NaN")
    return min(1.0, max(0.0, x))


def grade_or_rank(
    grader: Grader,
    question: str,
    chunks: Sequence[Chunk],
    upper: float,
    lower: float,
    idf: Any = None,
) -> tuple[list[Grade], str | None]:
    """(grades, None); or, when the grader fails as a whole, scores from retrieval rank and
    the reason: a score of 0.0 would be a verdict ("irrelevant") nobody made. A passage that
    binds the whole question is raised to ``upper`` (``binding.raise_bound``; ``idf``: the
    corpus's document frequencies, ``binding.corpus_idf``)."""
    try:
        from localcrag.crag.answer.binding import raise_bound

        return raise_bound(question, list(grader.grade(question, chunks)), upper, idf), None
    except Exception as exc:  # noqa: BLE001 - any grader bug: answer ungraded, and say so
        error = exc_summary(exc)
    n = len(chunks)  # strictly between the thresholds, best first: no verdict either way
    scores = [lower + (upper - lower) * (n - i) / (n + 1) for i in range(n)]
    return [Grade(c, sc, RANK_GRADER, error=error) for c, sc in zip(chunks, scores)], error


LLMLoader = Callable[[Any], Any]
