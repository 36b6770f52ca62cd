"""The one registry of retrieval evaluators (graders): name -> factory + description.

The ``grader`` setting's choices and help text (``localcrag.settings``) and
``localcrag.crag.grade.make_grader`` both come from here, so adding a grader is one entry.
Kept apart from settings (and importing nothing of localcrag) because it sits below every
layer: the factories live in the CRAG layer and are named, not imported, here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GraderSpec:
    """One retrieval evaluator: where its factory lives and what it does.

    ``factory`` is ``"module:function"``, imported only when that grader is built, because
    this module (and settings) sit below the CRAG layer and must not import it. The function takes a
    ``localcrag.crag.graders.factories.GraderContext`` and returns a ``Grader``.
    """

    factory: str
    description: str


_F = "localcrag.crag.graders.factories:"
# The one registry of graders: the `grader` setting's choices, its help text and
# `make_grader` all come from here. The first entry is the default.
GRADERS: dict[str, GraderSpec] = {
    "fusion": GraderSpec(
        _F + "fusion",
        "calibrated fusion of cosine margin, key-term coverage, names "
        "and numbers (fast; no trained reader)",
    ),
    "reader": GraderSpec(
        _F + "reader",
        "a MiniLM cross-encoder trained on 167k question-passage pairs reads "
        "question and passage together: does the passage contain the answer, and where "
        "(default; falls back to fusion, visibly)",
    ),
    "embedding": GraderSpec(_F + "embedding", "calibrated best-strip cosine margin"),
    "lexical": GraderSpec(_F + "lexical", "calibrated IDF-weighted word coverage (no model)"),
    "llm": GraderSpec(
        _F + "llm",
        "yes/no prompt to `grader_llm` (slow; at chance with SmolLM2-135M, the one model measured)",
    ),
}
