"""Likelihood scoring on a loaded GGUF model, without text generation and without logits_all.

* ``next_token_probs``: one forward pass, softmax of the last position (LLM yes/no grader).
* ``continuation_logprob``: log P(continuation | prefix) in one decode that asks llama.cpp
  for logits only at the positions predicting continuation tokens (query-likelihood grader,
  Sachan et al. 2022). ``logits_all=True`` would allocate n_ctx x n_vocab floats: 2 GB for
  Gemma's 262k vocabulary at n_ctx 2048.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from localcrag.errors import LocalcragError



class Owner(Protocol):
    """What the scorer needs of the model wrapper (gguf.LocalLLM), without importing it."""

    name: str
    n_ctx: int
    n_vocab: int
    _kv_prefix: Any

    def prompt_tokens(self, prompt: str) -> list[int]: ...
    def tokenize(self, text: str, add_bos: bool = False, special: bool = True) -> list[int]: ...

_MEMO_SIZE = 512


def _variants(word: str) -> set[str]:
    """Case and leading-space forms a model may use to start ``word``."""
    forms = {word, word.lower(), word.capitalize(), word.upper()}
    return forms | {" " + f for f in forms}


def _log_softmax_at(logits: np.ndarray, token: int) -> float:
    """log softmax(logits)[token], computed stably in float64."""
    row = logits.astype(np.float64)
    top = row.max()
    return float(row[token] - top - np.log(np.exp(row - top).sum()))


class Scorer:
    """Scoring state for one LocalLLM: a reusable batch, the cached KV prefix, a memo."""

    def __init__(self, owner: Owner, llama: Any) -> None:
        import llama_cpp

        self._c = llama_cpp
        self._owner = owner
        self._llama = llama
        self._n_batch: int = llama.n_batch
        self._batch = llama_cpp.llama_batch_init(self._n_batch, 0, 1)
        self._prefix_last: np.ndarray | None = None  # logits of the cached prefix's last token
        self._memo: OrderedDict[tuple[str, str], tuple[float, int]] = OrderedDict()

    def __del__(self) -> None:
        batch = getattr(self, "_batch", None)
        if batch is not None:
            self._c.llama_batch_free(batch)
            self._batch = None

    # --- helpers -----------------------------------------------------------------------

    def _logits(self, i: int) -> np.ndarray:
        """A copy of the logits row llama.cpp produced for batch index ``i`` (-1: last)."""
        ptr = self._c.llama_get_logits_ith(self._llama.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self._owner.n_vocab,)).copy()

    def _too_long(self, n: int, what: str) -> LocalcragError:
        return LocalcragError(
            f"{what} is {n} tokens but {self._owner.name} has a context window of "
            f"{self._owner.n_ctx} tokens",
            "shorten the text, or raise the n_ctx setting",
        )

    def _clear_kv(self) -> None:
        self._c.llama_memory_clear(self._c.llama_get_memory(self._llama.ctx), True)
        self._owner._kv_prefix = None

    def _decode(self, tokens: list[int], start: int, want: set[int]) -> dict[int, np.ndarray]:
        """Decode ``tokens`` at positions start.. in n_batch slices; logits for ``want`` only."""
        out: dict[int, np.ndarray] = {}
        b = self._batch
        for lo in range(0, len(tokens), self._n_batch):
            piece = tokens[lo : lo + self._n_batch]
            flagged = []
            for j, tok in enumerate(piece):
                b.token[j] = tok
                b.pos[j] = start + lo + j
                b.n_seq_id[j] = 1
                b.seq_id[j][0] = 0
                b.logits[j] = (lo + j) in want
                if b.logits[j]:
                    flagged.append(j)
            b.n_tokens = len(piece)
            rc = self._c.llama_decode(self._llama.ctx, b)
            if rc != 0:
                self._clear_kv()
                raise LocalcragError(f"llama.cpp decode failed (code {rc}) on {self._owner.name}")
            for j in flagged:
                out[lo + j] = self._logits(j)
        return out

    # --- public ------------------------------------------------------------------------

    def next_token_probs(self, prompt: str, candidates: list[str]) -> dict[str, float]:
        """One forward pass; softmax over the full vocabulary at the last position."""
        owner = self._owner
        tokens = owner.prompt_tokens(prompt)
        if not tokens or len(tokens) > owner.n_ctx:
            raise self._too_long(len(tokens), "the prompt")
        with owner.lock:
            owner._kv_prefix = None
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

    def continuation_logprob(self, prefix: str, continuation: str) -> tuple[float, int]:
        """Sum of log P(continuation tokens | prefix) and the token count.

        Prefix and continuation are tokenized separately, so a question gets the same
        tokens under every passage. The prefix's KV is kept: the next call with the same
        prefix decodes only the new continuation. Results are memoized (LRU).
        """
        key = (prefix, continuation)
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        owner = self._owner
        p_toks = owner.tokenize(prefix, add_bos=owner._add_bos, special=False)
        if not p_toks:
            if owner._bos < 0:
                raise LocalcragError(f"{owner.name}: continuation_logprob needs a prefix")
            p_toks = [owner._bos]
        c_toks = owner.tokenize(continuation, add_bos=False, special=False)
        if not c_toks:
            return 0.0, 0
        total_len = len(p_toks) + len(c_toks) - 1
        if total_len > owner.n_ctx:
            raise self._too_long(total_len, "passage plus question")
        with owner.lock:
            self._llama.reset()  # the high-level Llama state no longer matches the KV cache
            n_p = len(p_toks)
            if owner._kv_prefix == tuple(p_toks) and self._prefix_last is not None:
                mem = self._c.llama_get_memory(self._llama.ctx)
                if not self._c.llama_memory_seq_rm(mem, 0, n_p, -1):
                    self._clear_kv()
            if owner._kv_prefix == tuple(p_toks) and self._prefix_last is not None:
                tail = c_toks[:-1]
                rows = self._decode(tail, n_p, set(range(len(tail))))
                rows = {n_p - 1: self._prefix_last} | {n_p + j: r for j, r in rows.items()}
            else:
                self._clear_kv()
                seq = p_toks + c_toks[:-1]
                rows = self._decode(seq, 0, set(range(n_p - 1, len(seq))))
                self._prefix_last = rows[n_p - 1]
                owner._kv_prefix = tuple(p_toks)
        total = sum(_log_softmax_at(rows[n_p - 1 + j], tok) for j, tok in enumerate(c_toks))
        result = (total, len(c_toks))
        self._memo[key] = result
        if len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return result
