"""GGUF headers read without llama.cpp, and what a generator's size decides (crag/capability)."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.crag.answer.capability import is_capable, model_choices
from localcrag.llm.chat import ModelFacts
from localcrag.llm.ggufmeta import GGUFError, read_meta
from localcrag.settings import Settings
from tests.support import MODELS

SMOL = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"


def write_gguf(path: Path, kv: dict[str, str | int], tensors: dict[str, tuple[int, ...]]) -> Path:
    """A GGUF v3 header (strings and uint32 values, tensor infos) and no weights: what
    read_meta reads, without a real model."""
    import struct

    def text(s: str) -> bytes:
        return struct.pack("<Q", len(s.encode())) + s.encode()

    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, value in kv.items():
        out += text(key) + (
            struct.pack("<I", 8) + text(value)
            if isinstance(value, str)
            else struct.pack("<II", 4, value)
        )
    for name, dims in tensors.items():
        out += (
            text(name)
            + struct.pack("<I", len(dims))
            + struct.pack(f"<{len(dims)}Q", *dims)
            + struct.pack("<IQ", 0, 0)
        )
    path.write_bytes(out)
    return path


def test_header_agrees_with_llama_cpp(smollm) -> None:
    meta = read_meta(SMOL)
    assert meta.n_params == smollm.n_params  # llama.cpp's own count, from the loaded model
    assert meta.context_length == 8192 and meta.has_chat_template and meta.size_label == "135M"
    assert meta.params_label == "135M"


def test_base_model_has_no_chat_template(tmp_path: Path) -> None:
    kv = {"general.architecture": "llama", "llama.context_length": 4096}
    base = read_meta(write_gguf(tmp_path / "base.gguf", kv, {"a": (4, 8), "b": (8,)}))
    assert not base.has_chat_template and base.architecture == "llama"
    assert base.context_length == 4096 and base.n_params == 40
    chat = read_meta(
        write_gguf(tmp_path / "chat.gguf", {**kv, "tokenizer.chat_template": "{{ x }}"}, {})
    )
    assert chat.has_chat_template


def test_truncated_and_foreign_files_are_refused(tmp_path: Path) -> None:
    if not SMOL.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(SMOL.read_bytes()[:100_000])
    with pytest.raises(GGUFError, match="truncated"):
        read_meta(cut)
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(GGUFError, match="not a GGUF file"):
        read_meta(text)


def _gen(n: int | None, name: str = "m.gguf") -> ModelFacts:
    return ModelFacts(name, n_params=n)


def test_a_capable_model_writes_and_keeps_the_fusion_grader_until_measured(tmp_path: Path) -> None:
    s = Settings(models_dir=tmp_path)
    big, small = _gen(1_540_000_000, "qwen2.5-1.5b-instruct-q4_k_m.gguf"), _gen(134_515_008)
    assert is_capable(big) and not is_capable(small)
    answers, rewrite, grader = model_choices(s, big)
    assert answers.choice.startswith("written by the model") and "1.5B parameters" in answers.why
    assert rewrite.choice == "written by qwen2.5-1.5b-instruct-q4_k_m" and "1B+" in rewrite.why
    assert (
        grader.choice == "fusion"
        and "--grader llm --generator qwen2.5-1.5b-instruct-q4_k_m" in grader.why
    )
    answers, rewrite, grader = model_choices(s, small)
    assert answers.choice == "quoted from the documents" and "under 1B" in answers.why
    assert (
        "at chance with SmolLM2-135M-Instruct" in grader.why and "one model" in grader.why
    )  # what was measured
    # follow-ups: grammar comes first (rewrite.standalone_question), a lone "it" too when quoting
    assert "'And the decoder?'" in rewrite.why and "lone 'it'" in rewrite.why
    assert (
        "'And the decoder?'" in model_choices(s, big)[1].why
        and "lone 'it'" not in model_choices(s, big)[1].why
    )
    llm = Settings(models_dir=tmp_path, grader="llm")
    assert model_choices(llm, big)[2].choice == f"llm yes/no with {llm.models.generator}"
    forced = Settings(models_dir=tmp_path, answer_style="extractive")
    assert model_choices(forced, big)[0].why == "answer_style = extractive"


def test_choices_read_the_generator_file_without_loading_it(tmp_path: Path) -> None:
    if not SMOL.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    (tmp_path / SMOL.name).symlink_to(SMOL)
    answers = model_choices(Settings(models_dir=tmp_path))[0]
    assert "135M parameters (parameter count)" in answers.why
