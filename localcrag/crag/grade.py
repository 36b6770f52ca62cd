"""The retrieval evaluator (CRAG's "is this chunk relevant?"), behind the Grader protocol.

Strategies (``settings.grader``):

* ``fusion`` (default): a calibrated logistic model over cheap signals, namely question/chunk
  cosine, best two-sentence window cosine, and coverage of the question's key terms
  (IDF x leave-one-out importance). Needs only the embedder; tens of ms per chunk.
* ``embedding``: calibrated best-window cosine alone.
* ``lexical``: calibrated IDF-weighted coverage of the question's content words.
* ``likelihood``: query likelihood with a local GGUF (Sachan et al. 2022) fused with the
  fast signals; slow (a forward pass per chunk).
* ``llm``: yes/no prompting of a GGUF model (``grader_llm``, default the generator).

Scores are calibrated probabilities in [0, 1] (weights in ``localcrag/data/grader_fusion.json``,
fitted by ``scripts/fit_grader.py``; see docs/evaluator.md for how they were measured).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from localcrag.crag.graders.base import BaseGrader, Grader, Logistic, calibration, load_params
from localcrag.crag.graders.fast import FeatureGrader, LexicalGrader
from localcrag.crag.graders.features import FeatureExtractor
from localcrag.crag.graders.llm import LazyModel, LikelihoodGrader, LLMGrader
from localcrag.crag.graders.text import CorpusStats, idf_coverage
from localcrag.textutil import terms
from localcrag.settings import Settings

__all__ = [
    "BaseGrader", "CorpusStats", "FeatureExtractor", "FeatureGrader", "Grader", "LLMGrader",
    "LexicalGrader", "LikelihoodGrader", "Logistic", "idf_coverage", "load_params",
    "make_grader", "terms",
]

GRADERS = ("fusion", "embedding", "lexical", "likelihood", "llm")


def make_grader(settings: Settings, embedder: Any, corpus_stats: CorpusStats | None = None,
                llm_loader: Callable[[Path], Any] | None = None) -> Grader:
    """The evaluator ``settings.grader`` names. GGUF models load lazily, on first grade.

    ``corpus_stats``: document frequencies over the indexed chunks (build once with
    ``CorpusStats.from_texts(store.all_texts())``); without them every term weighs 1.
    ``llm_loader``: ``path -> LocalLLM``; defaults to ``localcrag.llm.gguf.load_llm``.
    """
    kind = settings.grader
    if kind not in GRADERS:
        raise ValueError(f"unknown grader {kind!r}; choose one of {', '.join(GRADERS)}")
    params = load_params()
    lexical = LexicalGrader(calibration("lexical", params), corpus_stats)
    if kind == "lexical":
        return lexical
    extractor = FeatureExtractor(embedder, corpus_stats, settings.strip_sentences,
                                 default_background=params.get("background_default", 0.2))
    extractor.prepare()  # embeds the corpus sample once, here (warm-up) rather than mid-answer
    if kind == "embedding":
        return FeatureGrader("embedding", extractor, calibration("embedding", params), lexical)
    fusion = FeatureGrader("fusion", extractor, calibration("fusion", params), lexical)
    if kind == "fusion":
        return fusion

    def loader_for(name: str) -> LazyModel:
        path = settings.model_path(name)
        if llm_loader is not None:
            return LazyModel(lambda: llm_loader(path))

        def load() -> Any:
            from localcrag.llm.gguf import load_llm

            return load_llm(path, n_ctx=settings.n_ctx, threads=settings.threads)

        return LazyModel(load)

    if kind == "likelihood":
        if "likelihood" in params["graders"]:
            calib = calibration("likelihood", params)
        else:  # not fitted (e.g. fit_grader.py --skip-llm on a fresh checkout): add qlik unweighted
            base = fusion.model
            calib = Logistic(base.features + ("qlik",), base.weights + (1.0,), base.bias)
        return LikelihoodGrader(fusion, loader_for(settings.scorer), calib)
    return LLMGrader(fusion, loader_for(settings.grader_llm or settings.generator))
