"""Text utilities for the lexical signals: content terms, corpus IDF, weighted coverage.

Terms are :func:`localcrag.textutil.terms`: lower-cased content words in their base form
("grids" -> "grid", "Norman's" -> "norman"), so a question and a chunk meet on one form.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from localcrag.textutil import terms

# Negations are stop words for coverage, but a question that negates something the
# passage states plainly is a classic near miss, so they are tracked separately.
NEGATIONS = frozenset("not no never nor cannot without n't none".split())


def has_negation(text: str) -> bool:
    low = text.lower().replace("\u2019", "'")
    return "n't" in low or any(w in NEGATIONS for w in re.findall(r"[a-z]+", low))


SAMPLE_SIZE = 64  # chunk texts kept to estimate the corpus's mean embedding


@dataclass(frozen=True)
class CorpusStats:
    """What the grader needs to know about the indexed corpus, built once per index.

    * ``df`` / ``n_docs``: document frequencies of content terms, for IDF. A term never
      seen in the corpus gets the largest IDF, which is what makes "the question's rare
      word is missing" visible.
    * ``sample``: up to 64 chunk texts, evenly spaced; the grader embeds them once to
      get the corpus's mean embedding, so that a chunk's cosine can be compared with the
      question's *typical* cosine to this corpus (in a one-topic corpus every chunk looks
      similar to every on-topic question).
    * ``centroid``: that mean of unit chunk vectors, when the caller already has the
      vectors (pass ``vectors=`` to :meth:`from_texts`); then ``sample`` is not needed.
    """

    df: Mapping[str, int] = field(default_factory=dict)
    n_docs: int = 0
    sample: tuple[str, ...] = ()
    centroid: np.ndarray | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], vectors: np.ndarray | None = None, sample_size: int = SAMPLE_SIZE
    ) -> CorpusStats:
        df: Counter[str] = Counter()
        kept: list[str] = []
        for text in texts:
            kept.append(text)
            df.update(set(terms(text)))
        n = len(kept)
        if n > sample_size:
            idx = np.linspace(0, n - 1, sample_size).round().astype(int)
            sample = tuple(kept[i] for i in sorted(set(idx.tolist())))
        else:
            sample = tuple(kept)
        centroid = None
        if vectors is not None and len(vectors):
            v = np.asarray(vectors, dtype=np.float32)
            v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
            centroid = v.mean(axis=0)
        return cls(dict(df), n, tuple(t for t in sample if t.strip()), centroid)

    def idf(self, term: str) -> float:
        """Smoothed IDF, >= 0; 1.0 for every term when there is no corpus."""
        if self.n_docs <= 0:
            return 1.0
        return max(0.0, math.log((self.n_docs + 1) / (self.df.get(term, 0) + 0.5)))


def weighted_coverage(
    q_terms: Sequence[str], weights: Sequence[float], text_terms: set[str]
) -> float:
    """Share of the question's term weight found in ``text_terms`` (0 when no weight)."""
    total = sum(weights)
    if total <= 0:
        return 0.0
    return sum(w for t, w in zip(q_terms, weights) if t in text_terms) / total


def idf_coverage(question: str, text: str, stats: CorpusStats | None = None) -> float:
    """IDF-weighted share of the question's content terms that occur in ``text``.

    Without corpus statistics every term weighs 1 (plain share of content words).
    """
    stats = stats or CorpusStats()
    q_terms = list(dict.fromkeys(terms(question)))
    weights = [stats.idf(t) for t in q_terms]
    if q_terms and sum(weights) <= 0:
        weights = [1.0] * len(q_terms)
    return weighted_coverage(q_terms, weights, set(terms(text)))
