"""The graders' factories, by the names of the registry (``localcrag.registry.GRADERS``):
``FACTORIES``. Each takes a :class:`GraderContext` and returns a ``Grader``. The context builds the
shared parts (the lexical grader, the feature extractor, the fusion grader) once and only
when a factory asks for them, so the lexical grader never embeds anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from localcrag.crag.graders.base import (
    BaseGrader,
    Grader,
    Logistic,
    calibration,
    load_params,
    trained_on_families,
)
from localcrag.crag.graders.fast import FeatureGrader, LexicalGrader
from localcrag.crag.graders.features import FeatureExtractor
from localcrag.crag.graders.llm import LazyModel, LLMGrader
from localcrag.crag.graders.reader import (
    MODEL_FILE,
    ReaderGrader,
    ReaderModel,
    packaged,
    read_sidecar,
)
from localcrag.crag.graders.text import CorpusStats
from localcrag.errors import LocalcragError
from localcrag.registry import GRADERS
from localcrag.settings import Settings


@dataclass
class GraderContext:
    settings: Settings
    embedder: Any
    corpus_stats: CorpusStats | None = None
    llm_loader: Callable[[Path], Any] | None = None
    params: dict[str, Any] = field(default_factory=load_params)

    @cached_property
    def lexical(self) -> LexicalGrader:
        return declared(
            LexicalGrader(calibration("lexical", self.params), self.corpus_stats), self.params
        )

    @cached_property
    def extractor(self) -> FeatureExtractor:
        fx = FeatureExtractor(
            self.embedder,
            self.corpus_stats,
            self.settings.evaluator.strip_sentences,
            default_background=self.params.get("background_default", 0.2),
        )
        fx.prepare()  # embeds the corpus sample once, here (warm-up) rather than mid-answer
        return fx

    @cached_property
    def fusion(self) -> FeatureGrader:
        return declared(
            FeatureGrader(
                "fusion", self.extractor, calibration("fusion", self.params), self.lexical
            ),
            self.params,
        )

    def gguf(self, name: str) -> LazyModel:
        """A GGUF from models/, loaded on first use."""
        path = self.settings.model_path(name)
        if self.llm_loader is not None:
            loader = self.llm_loader
            return LazyModel(lambda: loader(path))
        s = self.settings

        def load() -> Any:
            from localcrag.llm.gguf import load_llm

            return load_llm(path, n_ctx=s.generation.n_ctx, threads=s.generation.threads)

        return LazyModel(load)


G = TypeVar("G", bound=BaseGrader)


def declared(grader: G, meta: dict[str, Any], where: Path | str = "the shipped params") -> G:
    """``grader`` with the qa-pairs families its file declares it was trained on
    (``trained_on_families``, read by ``localcrag eval qa-pairs --exclude-trained``)."""
    try:
        grader.trained_on = trained_on_families(meta)
    except (ValueError, TypeError) as exc:
        raise LocalcragError(
            f"{where}: {exc}", 'write e.g. "trained_on_families": ["squad_v2.0"]'
        ) from None
    return grader


def lexical(ctx: GraderContext) -> Grader:
    return ctx.lexical


def embedding(ctx: GraderContext) -> Grader:
    return declared(
        FeatureGrader(
            "embedding", ctx.extractor, calibration("embedding", ctx.params), ctx.lexical
        ),
        ctx.params,
    )


def fusion(ctx: GraderContext) -> Grader:
    """The shipped fusion, or the one in ``grader_model`` (a params file in the format of
    ``localcrag/data/grader_fusion.json``, e.g. written by ``scripts/fit_withheld.py``)."""
    s = ctx.settings
    if not s.evaluator.grader_model:
        return ctx.fusion
    path = s.model_path(s.evaluator.grader_model)
    try:
        params = json.loads(path.read_text(encoding="utf-8"))
        calib = calibration("fusion", params)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LocalcragError(
            f"{path}: not a fusion params file ({type(exc).__name__}: {exc})",
            "give a .json written by scripts/fit_grader.py or scripts/fit_withheld.py, "
            "or unset grader_model",
        ) from None
    return declared(FeatureGrader("fusion", ctx.extractor, calib, ctx.lexical), params, path)


def llm(ctx: GraderContext) -> Grader:
    s = ctx.settings
    return LLMGrader(ctx.fusion, ctx.gguf(s.models.grader_llm or s.models.generator))


def reader(ctx: GraderContext) -> Grader:
    """The reader (answer containment + span), calibrated by its sidecar ``<model>.json``;
    the fusion is its fallback (visibly) and, when the calibration names fusion signals,
    its stacked features. ``grader_model`` may name another reader .onnx."""
    s = ctx.settings
    model = (
        s.model_path(s.evaluator.grader_model) if s.evaluator.grader_model else packaged(MODEL_FILE)
    )
    meta = read_sidecar(model)
    calib = (
        Logistic.from_dict(meta["calibration"])
        if "calibration" in meta
        else Logistic(("reader",), (1.0,), 0.0)
    )
    return ReaderGrader(
        ReaderModel(model, threads=s.generation.threads),
        calib,
        lambda: ctx.fusion,
        trained_on=meta.get("trained_on_families", ()),
        span_margin=float(meta.get("span_margin", 0.0)),
    )


# name (``localcrag.registry.GRADERS``, whose descriptions the settings show) -> factory
FACTORIES: dict[str, Callable[[GraderContext], Grader]] = {
    "fusion": fusion,
    "reader": reader,
    "embedding": embedding,
    "lexical": lexical,
    "llm": llm,
}
if set(FACTORIES) != set(GRADERS):  # a grader named in one place and not the other
    raise ImportError(f"grader factories {sorted(FACTORIES)} != registry {sorted(GRADERS)}")
