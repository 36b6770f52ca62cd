"""LocalLLM on the real GGUF models: loading, streaming, chat templates, scoring."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from localcrag.errors import LocalcragError, ModelMissing
from localcrag.llm.chat import Sampling
from localcrag.llm.gguf import load_llm
from localcrag.settings import REPO_MODELS

SMOL = REPO_MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
PASSAGE = (
    "The Dartmouth Workshop in 1956 is widely considered the birthplace of artificial "
    "intelligence. Early AI research focused on problem-solving and symbolic methods."
)
OTHER = "In finance, AI is used for fraud detection, algorithmic trading and risk management."

pytestmark = pytest.mark.slow


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path.name} not provisioned")
    return path


@pytest.fixture(scope="module")
def smol():
    return load_llm(_need(SMOL), n_ctx=2048)


def test_load_is_cached_and_describes_model(smol):
    assert load_llm(SMOL, n_ctx=2048) is smol
    assert smol.name == SMOL.name and smol.n_ctx == 2048 and smol.has_chat_template
    toks = smol.tokenize("Hello world")
    assert smol.count_tokens("Hello world") == len(toks) > 0
    assert smol.detokenize(toks) == "Hello world"


def test_cached_load_applies_the_threads_asked_for(smol):
    """A cached model keeps no earlier caller's thread count (llama.cpp's own, read back)."""
    import llama_cpp

    def running() -> tuple[int, int]:
        ctx = smol._llm._ctx.ctx
        return llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx)

    before = smol.threads
    assert before and running() == (before, before)  # load_llm records what it loaded with
    other = 1 if before != 1 else 2
    try:
        assert load_llm(SMOL, n_ctx=2048, threads=other) is smol
        assert smol.threads == other and running() == (other, other)
        assert load_llm(SMOL, n_ctx=2048) is smol and running() == (other, other)  # 0 keeps it
    finally:
        smol.set_threads(before)
    assert smol.fits(2000, 48) and not smol.fits(2000, 49)


def test_chat_prompt_uses_model_template(smol):
    prompt = smol.chat_prompt([{"role": "user", "content": "Hi"}])
    assert "<|im_start|>user\nHi<|im_end|>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_stream_is_deterministic_and_cancellable(smol):
    prompt = smol.chat_prompt([{"role": "user", "content": "Name three colours."}])
    first = list(smol.stream(prompt, max_tokens=8))
    second = list(smol.stream(prompt, max_tokens=8))
    assert first and "".join(first) == "".join(second)
    cancel = threading.Event()
    pieces = []
    for piece in smol.stream(prompt, max_tokens=8, cancel=cancel):
        pieces.append(piece)
        cancel.set()
    assert len(pieces) == 1
    assert smol.complete(prompt, 8, Sampling(stop=(",",))) == "".join(first).split(",")[0]


def test_prompt_too_long_raises_before_streaming(smol):
    with pytest.raises(LocalcragError, match="context window of 2048") as info:
        smol.stream("word " * 3000, max_tokens=10)
    assert "n_ctx" in str(info.value)


def test_max_tokens_is_reduced_to_fit():
    small = load_llm(SMOL, n_ctx=256)  # llama.cpp's smallest context
    prompt = "word " * 250
    room = small.n_ctx - len(small.prompt_tokens(prompt))
    assert 0 < room < 10
    text = small.complete(prompt, max_tokens=500)  # must not overflow the context
    assert len(small.tokenize(text)) <= room + 1  # +1: re-tokenizing may split differently


def test_yes_probability(smol):
    def ask(passage: str) -> str:
        return smol.chat_prompt(
            [
                {
                    "role": "user",
                    "content": (
                        f"Passage: {passage}\nQuestion: When was the Dartmouth Workshop?\n"
                        "Does the passage answer the question? Answer yes or no."
                    ),
                }
            ]
        )

    rel, irr = smol.yes_probability(ask(PASSAGE)), smol.yes_probability(ask(OTHER))
    assert 0.0 < rel < 1.0 and 0.0 < irr < 1.0
    assert rel != irr
    probs = smol.next_token_probs(ask(PASSAGE), ["yes", "no"])
    assert 0.0 < probs["yes"] + probs["no"] <= 1.0


def test_scoring_and_streaming_interleave(smol):
    prompt = smol.chat_prompt([{"role": "user", "content": "Say hello."}])
    before = smol.complete(prompt, 8)
    smol.next_token_probs(prompt, ["yes"])
    assert smol.complete(prompt, 8) == before


def test_concurrent_calls_are_serialized(smol):
    prompt = f"Passage: {PASSAGE}\nIs it about AI? Answer:"
    expected = smol.yes_probability(prompt)
    results: list[float] = []
    threads = [
        threading.Thread(target=lambda: results.append(smol.yes_probability(prompt)))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == pytest.approx([expected] * 3, abs=1e-6)


def test_a_base_model_cannot_be_chatted_with(smol, monkeypatch):
    """A GGUF without a chat template (a base model) is refused as a generator, in one line."""
    monkeypatch.setattr(smol, "_template", None)
    with pytest.raises(LocalcragError, match="base model without a chat template"):
        smol.chat_prompt([{"role": "user", "content": "Hi"}])


def test_corrupt_gguf_is_model_missing(tmp_path):
    garbage = tmp_path / "broken.gguf"
    garbage.write_bytes(b"this is not a model" * 100)
    with pytest.raises(ModelMissing) as info:
        load_llm(garbage)
    assert str(garbage) in str(info.value) and "\n" not in str(info.value)
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(SMOL.read_bytes()[:4096] if SMOL.exists() else b"GGUF" + b"\0" * 64)
    with pytest.raises(ModelMissing) as info:
        load_llm(truncated)
    message = str(info.value)
    assert str(truncated) in message and "\n" not in message and "make models" in message


def test_missing_model_is_model_missing(tmp_path):
    with pytest.raises(ModelMissing, match="not found"):
        load_llm(tmp_path / "absent.gguf")


def test_core_never_prints(capfd, smol):
    capfd.readouterr()
    llm = load_llm(SMOL, n_ctx=384)  # a fresh load: llama.cpp logs a lot by default
    llm.complete(llm.chat_prompt([{"role": "user", "content": "Hi"}]), 4)
    llm.next_token_probs("Question: Why?", ["yes", "no"])
    out, err = capfd.readouterr()
    assert out == "" and err == ""
