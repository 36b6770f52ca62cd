"""The names and descriptions of the retrieval evaluators (graders), and the answer styles.

The ``grader`` setting's choices and help text (``localcrag.settings``) come from here; the
factory of each name is a function in ``localcrag.crag.graders.factories.FACTORIES``, keyed
by the same names (checked when that module loads, and by a test). Kept apart from the
factories because settings sit below the CRAG layer and must not import it; adding a
grader is one entry here and one function there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args


@dataclass(frozen=True)
class GraderSpec:
    """One retrieval evaluator: what it does, in the settings' help."""

    description: str


# The graders: the `grader` setting's choices and its help text. The first entry is the
# default.
GRADERS: dict[str, GraderSpec] = {
    "fusion": GraderSpec(
        "calibrated fusion of cosine margin, key-term coverage, names "
        "and numbers (fast; no trained reader)",
    ),
    "reader": GraderSpec(
        "a MiniLM cross-encoder trained on 167k question-passage pairs reads "
        "question and passage together: does the passage contain the answer, and where "
        "(falls back to fusion, visibly)",
    ),
    "embedding": GraderSpec("calibrated best-strip cosine margin"),
    "lexical": GraderSpec("calibrated IDF-weighted word coverage (no model)"),
    "llm": GraderSpec(
        "yes/no prompt to `grader_llm` (slow; at chance with SmolLM2-135M, the one model measured)",
    ),
}


# How answers are written: "extractive" quotes the evidence, "generative" lets the model
# write (each sentence checked), "auto" picks one for the model in use. Declared once: the
# setting's type, the command lines' choices and the pipeline's check read these.
AnswerStyle = Literal["auto", "extractive", "generative"]
WrittenStyle = Literal["extractive", "generative"]  # what "auto" resolves to
ANSWER_STYLES: tuple[str, ...] = get_args(AnswerStyle)
WRITTEN_STYLES: tuple[str, ...] = get_args(WrittenStyle)
