"""The retrieval evaluator (CRAG's "is this chunk relevant?"), behind the Grader protocol.

Strategies (``settings.evaluator.grader``; the registry is ``localcrag.registry.GRADERS``):

* ``fusion`` (default): a calibrated logistic model over cheap signals, namely question/chunk
  cosine, best two-sentence window cosine, and coverage of the question's key terms
  (IDF x leave-one-out importance). Needs only the embedder; tens of ms per chunk.
* ``reader``: a MiniLM cross-encoder trained for answer containment and answer
  spans (:mod:`localcrag.crag.graders.reader`); falls back to ``fusion``, visibly.
* ``embedding``: calibrated best-window cosine alone.
* ``lexical``: calibrated IDF-weighted coverage of the question's content words.
* ``llm``: yes/no prompting of a GGUF model (``grader_llm``, default the generator).

Scores are calibrated probabilities in [0, 1] (weights in ``localcrag/data/grader_fusion.json``,
fitted by ``scripts/fit_grader.py``; see docs/evaluator.md for how they were measured).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from localcrag.crag.graders.base import BaseGrader, Grader, Logistic, calibration, load_params
from localcrag.crag.graders.fast import FeatureGrader, LexicalGrader
from localcrag.crag.graders.features import FeatureExtractor
from localcrag.crag.graders.llm import LLMGrader
from localcrag.crag.graders.text import CorpusStats, idf_coverage
from localcrag.registry import GRADERS
from localcrag.settings import Settings
from localcrag.textutil import terms

__all__ = [
    "BaseGrader",
    "CorpusStats",
    "FeatureExtractor",
    "FeatureGrader",
    "GRADERS",
    "Grader",
    "LLMGrader",
    "LexicalGrader",
    "Logistic",
    "calibration",
    "idf_coverage",
    "load_params",
    "make_grader",
    "terms",
]


def make_grader(
    settings: Settings,
    embedder: Any,
    corpus_stats: CorpusStats | None = None,
    llm_loader: Callable[[Path], Any] | None = None,
) -> Grader:
    """The evaluator ``settings.evaluator.grader`` names, built by its factory
    (``graders.factories.FACTORIES``). GGUF models load lazily, on first grade.

    ``corpus_stats``: document frequencies over the indexed chunks (build once with
    ``CorpusStats.from_texts(store.all_texts())``); without them every term weighs 1.
    ``llm_loader``: ``path -> LocalLLM``; defaults to ``localcrag.llm.gguf.load_llm``.
    """
    from localcrag.crag.graders.factories import FACTORIES, GraderContext

    factory = FACTORIES.get(settings.evaluator.grader)
    if factory is None:
        raise ValueError(
            f"unknown grader {settings.evaluator.grader!r}; choose one of {', '.join(GRADERS)}"
        )
    return factory(GraderContext(settings, embedder, corpus_stats, llm_loader))
