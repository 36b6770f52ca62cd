"""Graders that need only the embedder (and the text): embedding, lexical, fusion.

Each maps its raw signals through a logistic calibration fitted on held-out SQuAD 2.0
pairs (scripts/fit_grader.py), so a score is an estimate of P(chunk is relevant) and the
Correct/Incorrect thresholds mean the same thing whichever of them is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence

from localcrag.crag.graders.base import BaseGrader, Logistic
from localcrag.crag.graders.features import FeatureExtractor
from localcrag.crag.graders.text import CorpusStats, idf_coverage


class LexicalGrader(BaseGrader):
    """Calibrated IDF-weighted coverage of the question's content words. No model at all."""

    name = "lexical"

    def __init__(self, model: Logistic, corpus_stats: CorpusStats | None = None) -> None:
        self.model = model
        self.stats = corpus_stats or CorpusStats()

    def _score_batch(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float]]]:
        out = []
        for text in texts:
            sig = {"lex": idf_coverage(question, text, self.stats)}
            out.append((self.model(sig), sig))
        return out


class FeatureGrader(BaseGrader):
    """A logistic model over :class:`FeatureExtractor` signals (all are kept in ``signals``).

    When a chunk cannot be embedded, it falls back to the lexical grader's score.
    """

    def __init__(
        self,
        name: str,
        extractor: FeatureExtractor,
        model: Logistic,
        fallback: BaseGrader | None = None,
    ) -> None:
        self.name = name
        self.extractor = extractor
        self.model = model
        self.fallback = fallback

    def signals(self, question: str, texts: Sequence[str]) -> list[dict[str, float]]:
        return self.extractor.features(question, texts)

    def _score_batch(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float]]]:
        return [(self.model(f), f) for f in self.signals(question, texts)]

    @property
    def fallback_name(self) -> str:
        return self.fallback.name if self.fallback is not None else self.name

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        if self.fallback is None:
            return 0.0, {}
        ((score, sig),) = self.fallback._score_batch(question, [text])
        return score, sig
