"""One wrapper around llama_cpp.Llama for every GGUF model localcrag uses.

``llama_cpp`` is imported lazily inside functions so ``localcrag --help`` stays instant.
A llama context is not re-entrant: every call that touches it holds ``LocalLLM.lock``.
Scoring (next-token probabilities, for the yes/no grader) lives in scoring.py.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from threading import Event
from typing import TYPE_CHECKING, Any, cast

from localcrag.errors import LocalcragError, ModelMissing
from localcrag.llm.chat import GREEDY, ChatModel, ModelFacts, Sampling
from localcrag.models.discovery import PROVISION_HINT, require_gguf

if TYPE_CHECKING:
    from localcrag.llm.scoring import Scorer

_CACHE: dict[tuple[str, int], LocalLLM] = {}
_CACHE_LOCK = threading.Lock()
_LOG_CALLBACK: Any = None  # keep the ctypes callback alive for the life of the process
_LOG_ERRORS: deque[str] = deque(maxlen=8)  # recent llama.cpp error lines, for load errors


def _silence_llama_logs() -> None:
    """Route llama.cpp's C logging away (the core never prints); error lines are kept,
    not shown, so a failed load can say why in one line."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    import ctypes
    import logging

    import llama_cpp

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]  # a ctypes CFUNCTYPE
    def _quiet(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level == 4:  # GGML_LOG_LEVEL_ERROR in the ggml bundled with 0.3.36
            line = text.decode("utf-8", errors="replace").strip()
            if line:
                _LOG_ERRORS.append(line)

    _LOG_CALLBACK = _quiet
    llama_cpp.llama_log_set(_quiet, ctypes.c_void_p(0))
    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)


def amx_cpu() -> bool:
    """Whether this CPU advertises AMX tiles (Linux /proc/cpuinfo; False when unknown)."""
    from localcrag.models.cpu import cpu_flags

    return "amx_int8" in (cpu_flags() or ())


@contextmanager
def without_amx(llama_cpp: Any) -> Iterator[None]:
    """Load with llama.cpp's extra CPU buffer types off on AMX CPUs.

    A llama-cpp-python built with GGML_NATIVE on an AMX machine puts Q4/Q8 weights in an
    AMX buffer; in a VM that does not hand AMX tile state to the guest, the first matmul dies
    with a general protection fault (seen here: SIGSEGV in libggml-cpu on the first token).
    Without extra buffer types llama.cpp uses its plain AVX-512/AVX2 kernels. Elsewhere the
    defaults (weight repacking) are kept.
    """
    if not amx_cpu():
        yield
        return
    original = llama_cpp.llama_model_default_params

    def params() -> Any:
        out = original()
        out.use_extra_bufts = False
        return out

    llama_cpp.llama_model_default_params = params
    try:
        yield
    finally:
        llama_cpp.llama_model_default_params = original


def load_llm(path: Path, n_ctx: int = 2048, threads: int = 0) -> LocalLLM:
    """Load (once per process per (path, n_ctx)) a GGUF model; bad files become ModelMissing.

    llama.cpp may round n_ctx up (its minimum is 256): ``LocalLLM.n_ctx`` is the real one.
    ``threads`` > 0 applies to a cached model too (0 keeps its count): the model-server bench
    once ran 2 in-process threads, left by an earlier ``threads=0`` load, against 1 served.
    """
    path = require_gguf(Path(path).expanduser().resolve())
    key = (str(path), int(n_ctx))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is None:
            _CACHE[key] = _load(path, n_ctx, threads)
            return _CACHE[key]
    if threads:
        cached.set_threads(threads)
    return cached


def _load(path: Path, n_ctx: int, threads: int) -> LocalLLM:
    """The one llama.cpp load behind ``load_llm``'s cache."""
    _silence_llama_logs()
    _LOG_ERRORS.clear()
    import llama_cpp

    from localcrag.models.cpu import usable_cores

    n_threads = threads or usable_cores()
    try:
        with without_amx(llama_cpp.llama_cpp):  # the module Llama() reads its defaults from
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_batch=min(512, n_ctx),
                n_threads=n_threads,
                n_threads_batch=n_threads,
                logits_all=False,
                verbose=False,
            )
    except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
        # the first error line is the cause ("failed to read key-value pairs")
        why = _LOG_ERRORS[0].split(": ", 1)[-1] if _LOG_ERRORS else str(exc)
        raise ModelMissing(
            f"{path}: llama.cpp could not load this GGUF file (corrupt, truncated or "
            f"unsupported: {' '.join(why.split())})",
            "replace it, or " + PROVISION_HINT,
        ) from exc
    llm = LocalLLM(llama, path)
    llm.threads = n_threads
    return llm


def _n_params(llama: Any) -> int | None:
    """Parameter count from llama.cpp; None lets the answer style fall back to the file size."""
    import llama_cpp

    fn = getattr(llama_cpp, "llama_model_n_params", None)
    return int(fn(llama.model)) if fn is not None and getattr(llama, "model", None) else None


class LocalLLM(ChatModel):
    """A loaded GGUF model: tokenization, chat rendering, streaming, and scoring."""

    def __init__(self, llama: Any, path: Path) -> None:
        self._llm = llama
        self.path = path
        self.name = path.name
        self.n_ctx: int = llama.n_ctx()
        self.n_vocab: int = llama.n_vocab()
        self.lock = threading.Lock()  # held by every call that uses the llama context
        self.threads: int | None = None  # as loaded (load_llm sets it), then set_threads
        self.finish_reason: str | None = None  # of the last stream: "stop" or "length"
        self._template: str | None = llama.metadata.get("tokenizer.chat_template")
        self.has_chat_template = bool(self._template)
        self.size_label: str | None = llama.metadata.get("general.size_label")
        self.n_params: int | None = _n_params(llama)
        self._bos: int = llama.token_bos()
        self._add_bos: bool = bool(llama._model.add_bos_token())
        self._scoring: Scorer | None = None

    @property
    def facts(self) -> ModelFacts:
        return ModelFacts(self.name, self.path, self.n_params, self.size_label)

    def set_threads(self, n: int) -> None:
        """Threads for the next prompt and generation (``localcrag.models.cpu`` picks them)."""
        import llama_cpp

        n = max(1, int(n))
        if n != self.threads:
            with self.lock:
                llama_cpp.llama_set_n_threads(self._llm._ctx.ctx, n, n)
            self.threads = n

    def __repr__(self) -> str:
        return f"LocalLLM({self.name!r}, n_ctx={self.n_ctx})"

    # --- tokens ------------------------------------------------------------------------

    def tokenize(self, text: str, add_bos: bool = False, special: bool = True) -> list[int]:
        """Token ids; ``add_bos`` only adds BOS when the model's GGUF asks for one."""
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def detokenize(self, tokens: list[int]) -> str:
        data: bytes = self._llm.detokenize(list(tokens))
        return data.decode("utf-8", errors="replace")

    def prompt_tokens(self, prompt: str) -> list[int]:
        """Tokens exactly as ``stream`` feeds them: model BOS (once) + prompt with specials."""
        toks = self.tokenize(prompt, add_bos=self._add_bos, special=True)
        if len(toks) >= 2 and toks[0] == toks[1] == self._bos:
            toks = toks[1:]  # the chat template already wrote the BOS text
        return toks

    def fits(self, prompt_tokens: int, max_tokens: int) -> bool:
        """Would a prompt of this many tokens plus ``max_tokens`` of answer fit n_ctx?"""
        return prompt_tokens + max_tokens <= self.n_ctx

    # --- chat --------------------------------------------------------------------------

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        """Render messages with the model's own chat template, ready for the reply."""
        if not self._template:
            raise LocalcragError(
                f"{self.name} is a base model without a chat template; "
                "choose a chat model as generator",
                "set `generator` to a chat GGUF such as SmolLM2-135M-Instruct",
            )
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        from llama_cpp.llama_types import ChatCompletionRequestMessage

        model = self._llm._model
        fmt = Jinja2ChatFormatter(
            template=self._template,
            eos_token=model.token_get_text(self._llm.token_eos()),
            bos_token=model.token_get_text(self._bos) if self._bos >= 0 else "",
            add_generation_prompt=True,
        )
        # role/content dicts are what llama_cpp's message TypedDicts describe
        return fmt(messages=cast(list[ChatCompletionRequestMessage], messages)).prompt

    # --- generation --------------------------------------------------------------------

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        """Stream text pieces (greedy at temperature 0) until EOS, a stop string, or cancel.

        Checks the context budget eagerly (before the first piece) so the caller gets a
        clear error; ``max_tokens`` is reduced to what is left of n_ctx.
        """
        tokens = self.prompt_tokens(prompt)
        if len(tokens) >= self.n_ctx:
            raise LocalcragError(
                f"prompt is {len(tokens)} tokens but {self.name} has a context window of "
                f"{self.n_ctx} tokens",
                "trim the evidence first, or raise the n_ctx setting",
            )
        budget = max(1, min(max_tokens, self.n_ctx - len(tokens)))
        return self._stream(tokens, budget, sampling, cancel)

    def _stream(
        self,
        tokens: list[int],
        max_tokens: int,
        sampling: Sampling,
        cancel: Event | None,
    ) -> Iterator[str]:
        with self.lock:
            # Always decode the whole prompt: reusing a cached prefix changes the batch
            # split, and the float differences can flip a greedy choice (measured).
            self._llm.reset()
            chunks = self._llm.create_completion(
                tokens,
                max_tokens=max_tokens,
                temperature=sampling.temperature,
                stop=list(sampling.stop),
                stream=True,
                repeat_penalty=sampling.repeat_penalty,
                seed=0,
            )
            self.finish_reason = None
            with closing(chunks):
                for chunk in chunks:
                    if cancel is not None and cancel.is_set():
                        return
                    choice = chunk["choices"][0]
                    self.finish_reason = choice.get("finish_reason") or self.finish_reason
                    if choice["text"]:
                        yield choice["text"]

    # --- scoring (see scoring.py) ------------------------------------------------------

    def _scorer(self) -> Scorer:
        if self._scoring is None:
            from localcrag.llm.scoring import Scorer

            self._scoring = Scorer(self, self._llm)
        return self._scoring

    def next_token_probs(self, prompt: str, candidates: list[str]) -> dict[str, float]:
        """P(next token starts each candidate), summed over case/space variants."""
        return self._scorer().next_token_probs(prompt, candidates)

    def yes_probability(self, prompt: str) -> float:
        """P(yes) / (P(yes) + P(no)) for the token right after ``prompt``."""
        p = self.next_token_probs(prompt, ["yes", "no"])
        total = p["yes"] + p["no"]
        return p["yes"] / total if total > 0 else 0.5
