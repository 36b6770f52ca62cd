"""The grader that runs a GGUF model: yes/no prompting, for capable models a user adds.

Slow next to the fusion grader (a forward pass over every chunk), so ``score_texts``
(refinement strips) uses the fast fusion grader it wraps, and any per-chunk model failure
falls back to the fusion score with ``Grade.error`` set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from localcrag.crag.graders.base import BaseGrader
from localcrag.crag.graders.fast import FeatureGrader

YESNO_USER = (
    "Document:\n{passage}\n\nQuestion: {question}\n\n"
    "Does the document contain the information needed to answer the question? "
    "Answer yes or no."
)
YESNO_BASE = (
    "Document: {passage}\nQuestion: {question}\n"
    "Does the document contain the answer to the question (yes or no)? Answer:"
)


def yesno_prompt(llm: Any, question: str, passage: str) -> str:
    """The relevance question, in the model's chat template when it has one."""
    if llm.has_chat_template:
        user = YESNO_USER.format(passage=passage.strip(), question=question.strip())
        return str(llm.chat_prompt([{"role": "user", "content": user}]))
    return YESNO_BASE.format(passage=passage.strip(), question=question.strip())


class LazyModel:
    """Loads a GGUF on first use; remembers a load failure instead of retrying per chunk."""

    def __init__(self, loader: Callable[[], Any]) -> None:
        self._loader = loader
        self._model: Any = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._model is None and self._error is None:
                try:
                    self._model = self._loader()
                except Exception as exc:
                    self._error = exc
            if self._error is not None:
                raise self._error
            return self._model


class LLMGrader(BaseGrader):
    """P(yes) / (P(yes) + P(no)) after a relevance prompt; for capable models users add.

    The bundled 135M model is near chance at this (see docs/evaluator.md).
    """

    name = "llm"

    def __init__(self, base: FeatureGrader, model: LazyModel) -> None:
        self.base = base
        self.model = model

    @property
    def fallback_name(self) -> str:
        return self.base.name

    def _fallback(self, question: str, text: str) -> tuple[float, dict[str, float]]:
        score, sig, _ = self.base._score_all(question, [text])[0]
        return score, sig

    def score_texts(self, question: str, texts: Sequence[str]) -> list[float]:
        return self.base.score_texts(question, texts)

    def _score_batch(
        self, question: str, texts: Sequence[str]
    ) -> list[tuple[float, dict[str, float]]]:
        llm = self.model.get()
        out = []
        for text in texts:
            p = float(llm.yes_probability(yesno_prompt(llm, question, text)))
            out.append((p, {"p_yes": p}))
        return out
