"""Next-token scoring on a loaded GGUF model, without text generation and without logits_all.

``next_token_probs``: one forward pass, softmax of the last position (the ``llm`` yes/no grader).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from localcrag.errors import LocalcragError


class Owner(Protocol):
    """What the scorer needs of the model wrapper (gguf.LocalLLM), without importing it."""

    name: str
    n_ctx: int
    n_vocab: int
    lock: Any

    def prompt_tokens(self, prompt: str) -> list[int]: ...
    def tokenize(self, text: str, add_bos: bool = False, special: bool = True) -> list[int]: ...


def _variants(word: str) -> set[str]:
    """Case and leading-space forms a model may use to start ``word``."""
    forms = {word, word.lower(), word.capitalize(), word.upper()}
    return forms | {" " + f for f in forms}


class Scorer:
    """Scoring for one LocalLLM."""

    def __init__(self, owner: Owner, llama: Any) -> None:
        import llama_cpp

        self._c = llama_cpp
        self._owner = owner
        self._llama = llama

    def _logits(self, i: int) -> np.ndarray:
        """A copy of the logits row llama.cpp produced for batch index ``i`` (-1: last)."""
        ptr = self._c.llama_get_logits_ith(self._llama.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self._owner.n_vocab,)).copy()

    def next_token_probs(self, prompt: str, candidates: list[str]) -> dict[str, float]:
        """One forward pass; softmax over the full vocabulary at the last position."""
        owner = self._owner
        tokens = owner.prompt_tokens(prompt)
        if not tokens or len(tokens) > owner.n_ctx:
            raise LocalcragError(
                f"the prompt is {len(tokens)} tokens but {owner.name} has a context window of "
                f"{owner.n_ctx} tokens",
                "shorten the text, or raise the n_ctx setting",
            )
        with owner.lock:
            self._llama.reset()
            self._llama.eval(tokens)
            logits = self._logits(-1).astype(np.float64)
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        result: dict[str, float] = {}
        for cand in candidates:
            ids = {t[0] for v in _variants(cand) if (t := owner.tokenize(v, special=False))}
            result[cand] = float(sum(probs[i] for i in ids))
        return result
