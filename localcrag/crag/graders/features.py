"""Cheap relevance signals from the embedder and the text (no LLM).

For a question and a chunk:

* ``cos_strip``  max cosine over the chunk's windows of ``strip_sentences`` sentences (a
  chunk's answer usually sits in one or two sentences); by default the windows are the
  non-overlapping strips knowledge refinement scores later, so those come for free;
* ``cos_chunk``  cosine of question and whole chunk (only with ``chunk_cosine=True``);
* ``background`` the question's mean cosine to the corpus (question . corpus centroid);
* ``margin``     ``cos_strip - background``: how much more this chunk matches the question
  than the corpus at large does. Raw cosines drift with the corpus (every chunk of a
  one-topic PDF is close to every on-topic question); the margin does not;
* ``lex``        IDF-weighted share of the question's content terms present in the chunk;
* ``key``        the same share with each term weighted by IDF x its *importance*: how
  much the question's embedding moves when the word is deleted. Generic words of a
  question ("considered", "role", "contribute") weigh little, its subject weighs most;
* ``key_strip``  ``key`` measured on the best-matching window only;
* ``ent_strip``  share of the question's names and numbers (capitalised words after the
  first, tokens with digits) found in the best window; 1 when it has none. Near misses
  often swap one entity, date or number;
* ``ent_idf``    ``ent_strip`` with each name or number weighted by its corpus IDF;
* ``neg_ok``     0 when the question carries a negation ("not", "never") the best window
  lacks, else 1 (kept for the trace; the fusion uses ``cue_ok``, which scopes it);
* ``cue_ok``     product of three contradiction cues on the best window (negation scope,
  numbers, antonyms; see :mod:`localcrag.crag.graders.cues`), with the cues themselves as
  ``negation_ok``, ``numbers_ok``, ``antonyms_ok``. Near misses often edit one detail.

Embeddings are memoised (LRU by text), so refinement strips that were windows of a graded
chunk cost nothing the second time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from localcrag.crag.graders.cues import cue_signals
from localcrag.crag.graders.text import CorpusStats, has_negation, weighted_coverage
from localcrag.textutil import split_sentences, term_spans, terms

DEFAULT_BACKGROUND = 0.2  # question-to-corpus mean cosine used when there is no corpus
MAX_TERMS = 24  # question terms weighed by leave-one-out (one short embedding each)
MAX_WINDOWS = 16  # per chunk; keeps grading time bounded on chunks of many tiny sentences


def windows(text: str, size: int = 2, stride: int = 1) -> list[str]:
    """Windows of ``size`` sentences every ``stride`` sentences (whole text if that short).

    With ``stride == size`` they are exactly the strips refine.decompose makes, so the
    refinement step finds them already embedded.
    """
    sents = [text[a:b].strip() for a, b in split_sentences(text)]
    sents = [s for s in sents if s]
    if len(sents) <= size:
        return [" ".join(sents) or text.strip() or text]
    starts = list(range(0, len(sents) - size + 1, max(1, stride)))
    if stride > 1 and starts[-1] + size < len(sents):
        starts.append(starts[-1] + stride)  # the tail (shorter) strip, as refine keeps it
    out = [" ".join(sents[i : i + size]) for i in starts]
    if len(out) > MAX_WINDOWS:  # sample evenly, keep first and last
        idx = np.linspace(0, len(out) - 1, MAX_WINDOWS).round().astype(int)
        out = [out[i] for i in sorted(set(idx.tolist()))]
    return out


@dataclass(frozen=True)
class QuestionInfo:
    text: str
    vector: np.ndarray
    terms: tuple[str, ...]  # unique content terms, in order
    idf: tuple[float, ...]
    importance: tuple[float, ...]
    negated: bool
    entities: tuple[str, ...]  # terms written as names or numbers
    background: float  # mean cosine of the question to the corpus

    @property
    def idf_weights(self) -> list[float]:
        """IDF per term; uniform when every term is everywhere (or there is no corpus)."""
        return list(self.idf) if sum(self.idf) > 0 else [1.0] * len(self.terms)

    @property
    def key_weights(self) -> list[float]:
        """IDF x importance per term; IDF alone when the importances are all zero."""
        w = [i * f for i, f in zip(self.importance, self.idf_weights)]
        return w if sum(w) > 0 else self.idf_weights


def entity_coverage(q: QuestionInfo, found: set[str]) -> float:
    """Share of the question's names and numbers found in ``found``, each weighted by its
    corpus IDF: a name on most of the library's pages (its product, its subject) says
    little about *this* passage; 1 when the question has none."""
    if not q.entities:
        return 1.0
    idf = dict(zip(q.terms, q.idf_weights))
    return (
        weighted_coverage(list(q.entities), [idf.get(e, 1.0) for e in q.entities], found)
        if sum(idf.get(e, 1.0) for e in q.entities) > 0
        else 1.0
    )


class FeatureExtractor:
    """Computes the signals above; thread-safe; shares one embedding memo per instance."""

    def __init__(
        self,
        embedder: Any,
        corpus_stats: CorpusStats | None = None,
        strip_sentences: int = 2,
        cache_size: int = 4096,
        default_background: float = DEFAULT_BACKGROUND,
        stride: int | None = None,
        chunk_cosine: bool = False,
    ) -> None:
        """``stride``: sentences between window starts (default ``strip_sentences``:
        non-overlapping, the strips refinement scores). ``chunk_cosine``: also embed whole
        chunks for the ``cos_chunk`` signal (the fusion does not use it)."""
        self.embedder = embedder
        self.stats = corpus_stats or CorpusStats()
        self.default_background = float(default_background)
        self._centroid: np.ndarray | None = self.stats.centroid
        self.strip_sentences = max(1, int(strip_sentences))
        self.stride = max(1, int(stride or self.strip_sentences))
        self.chunk_cosine = chunk_cosine
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._questions: OrderedDict[str, QuestionInfo] = OrderedDict()
        self._lock = threading.Lock()

    # --- embeddings --------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``, embedding only those not memoised."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vecs = np.asarray(self.embedder.embed(missing), dtype=np.float32)
            if vecs.shape[0] != len(missing):
                raise ValueError(
                    f"embedder returned {vecs.shape[0]} vectors for {len(missing)} texts"
                )
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = (vecs / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)
            with self._lock:
                for t, v in zip(missing, vecs):
                    self._cache[t] = v
                    self._cache.move_to_end(t)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        with self._lock:
            out = []
            for t in texts:
                v = self._cache.get(t)
                if v is None:  # evicted between the two locks by a concurrent call
                    v = np.asarray(self.embedder.embed([t]), dtype=np.float32)[0]
                    v = v / (np.linalg.norm(v) or 1.0)
                out.append(v)
        return np.stack(out) if out else np.zeros((0, 1), dtype=np.float32)

    def centroid(self) -> np.ndarray | None:
        """The corpus's mean unit embedding (from ``CorpusStats``; embeds its sample once)."""
        if self._centroid is None and self.stats.sample:
            vecs = self.embed(list(self.stats.sample))
            self._centroid = vecs.mean(axis=0)
        return self._centroid

    def background(self, qv: np.ndarray) -> float:
        c = self.centroid()
        return float(c @ qv) if c is not None else self.default_background

    # --- question ----------------------------------------------------------------------

    def question(self, question: str) -> QuestionInfo:
        """Embedding, terms, weights and cues of a question (memoised)."""
        with self._lock:
            info = self._questions.get(question)
        if info is not None:
            return info
        texts = self._question_texts(question)
        return self._question_info(question, self.embed(texts))

    def _question_texts(self, question: str) -> list[str]:
        """The question and its leave-one-term-out variants: delete every occurrence of a
        term and see how far the embedding moves (one short text per term)."""
        spans = term_spans(question)
        variants = []
        for term in list(dict.fromkeys(t for t, _, _ in spans))[:MAX_TERMS]:
            text, cut = question, 0
            for t, a, b in spans:
                if t == term:
                    text = text[: a - cut] + text[b - cut :]
                    cut += b - a
            variants.append(" ".join(text.split()) or ".")
        return [question] + variants

    def _question_info(self, question: str, vecs: np.ndarray) -> QuestionInfo:
        spans = term_spans(question)
        uniq = list(dict.fromkeys(t for t, _, _ in spans))[:MAX_TERMS]
        qv = vecs[0]
        imp = [max(0.0, 1.0 - float(v @ qv)) for v in vecs[1 : 1 + len(uniq)]]
        first = len(question) - len(question.lstrip())  # the opening word is capitalised anyway
        ents = tuple(
            dict.fromkeys(
                t
                for t, a, b in spans
                if t in uniq
                and a != first
                and (question[a].isupper() or any(ch.isdigit() for ch in question[a:b]))
            )
        )
        info = QuestionInfo(
            question,
            qv,
            tuple(uniq),
            tuple(self.stats.idf(t) for t in uniq),
            tuple(imp),
            has_negation(question),
            ents,
            self.background(qv),
        )
        with self._lock:
            self._questions[question] = info
            while len(self._questions) > 64:
                self._questions.popitem(last=False)
        return info

    # --- features ----------------------------------------------------------------------

    def features(self, question: str, texts: Sequence[str]) -> list[dict[str, float]]:
        """One dict of signals per text (same order); one embedder call for all of it."""
        with self._lock:
            q = self._questions.get(question)
        q_texts = [] if q is not None else self._question_texts(question)
        wins = [windows(t, self.strip_sentences, self.stride) for t in texts]
        flat = [w for ws in wins for w in ws]
        if self.chunk_cosine:
            flat += list(texts)
        if self.centroid_pending():
            flat += list(self.stats.sample)
        # Two calls, not one: a batch is padded to its longest text, and the question's
        # short variants padded to window length would cost more than the extra call.
        vecs = self.embed(flat)
        if q is None:
            q = self._question_info(question, self.embed(q_texts))
        pos = 0
        out = []
        for i, text in enumerate(texts):
            wv = vecs[pos : pos + len(wins[i])]
            pos += len(wins[i])
            out.append(self._signals(q, text, wins[i], wv))
        if self.chunk_cosine:
            for sig, v in zip(out, vecs[pos : pos + len(texts)]):
                sig["cos_chunk"] = float(v @ q.vector)
        return out

    def prepare(self) -> None:
        """Embed the corpus sample now (slow part of the first grade); errors stay lazy."""
        try:
            self.centroid()
        except Exception:  # a broken embedder surfaces, per chunk, at grading time
            pass

    def centroid_pending(self) -> bool:
        return self._centroid is None and bool(self.stats.sample)

    def _signals(
        self, q: QuestionInfo, text: str, wins: list[str], wv: np.ndarray
    ) -> dict[str, float]:
        sims = wv @ q.vector
        best = int(np.argmax(sims))
        chunk_terms = set(terms(text))
        best_terms = set(terms(wins[best]))
        key_w = q.key_weights
        strip = wins[best]
        sentences = [strip[a:b] for a, b in split_sentences(strip)] or [strip]
        return {
            "cos_strip": float(sims[best]),
            "background": q.background,
            "margin": float(sims[best]) - q.background,
            "lex": weighted_coverage(q.terms, q.idf_weights, chunk_terms),
            "key": weighted_coverage(q.terms, key_w, chunk_terms),
            "key_strip": weighted_coverage(q.terms, key_w, best_terms),
            "ent_strip": (
                sum(e in best_terms for e in q.entities) / len(q.entities) if q.entities else 1.0
            ),
            "ent_idf": entity_coverage(q, best_terms),
            "neg_ok": 0.0 if q.negated and not has_negation(wins[best]) else 1.0,
            **cue_signals(q.text, strip, sentences),
        }
