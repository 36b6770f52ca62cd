"""Answer style: auto picks quoting for small generators; the setting, env and run override it."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.crag.answer.style import (
    SMALL_MODEL_BYTES,
    parse_size_label,
    resolve_style,
    style_label,
)
from localcrag.errors import LocalcragError
from localcrag.llm.chat import ModelFacts
from localcrag.settings import Settings


def Model(  # noqa: N802 - stands for the model the facts describe
    n_params: int | None = None,
    size_label: str | None = None,
    path: Path | None = None,
    name: str = "SmolLM2-135M-Instruct.Q4_1.gguf",
) -> ModelFacts:
    return ModelFacts(name, path, n_params, size_label)


def test_auto_quotes_for_a_small_model_and_writes_for_a_large_one() -> None:
    assert resolve_style("auto", Model(n_params=134_515_008))[0] == "extractive"
    style, why = resolve_style("auto", Model(n_params=1_700_000_000))
    assert style == "generative" and "1.7B" in why


def test_size_label_then_file_size_stand_in_for_the_parameter_count(tmp_path: Path) -> None:
    assert parse_size_label("135M") == 135_000_000 and parse_size_label("8x7B") == 56_000_000_000
    assert parse_size_label("large") is None
    assert resolve_style("auto", Model(size_label="360M"))[0] == "extractive"
    small, big = tmp_path / "s.gguf", tmp_path / "b.gguf"
    small.write_bytes(b"\0" * 1000)
    with open(big, "wb") as f:
        f.truncate(SMALL_MODEL_BYTES + 1)  # sparse: no disk used
    assert resolve_style("auto", Model(path=small))[0] == "extractive"
    assert resolve_style("auto", Model(path=big))[0] == "generative"
    assert resolve_style("auto", ModelFacts())[0] == "generative"  # unknown: let it write, checked


def test_an_explicit_style_wins() -> None:
    assert resolve_style("generative", Model(n_params=1))[0] == "generative"
    assert resolve_style("extractive", Model(n_params=10**10))[0] == "extractive"


def test_labels_say_what_the_answer_is() -> None:
    assert style_label("extractive", "x") == "Quoted from your documents"
    assert style_label("generative", "Qwen") == "Written by Qwen, checked against your documents"
    assert style_label("generative", "Qwen", web=True).endswith("checked against the sources")


def test_env_overrides_the_setting_and_a_bad_value_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALCRAG_ANSWER_STYLE", "generative")
    assert Settings.load(tmp_path / "none.toml").generation.answer_style == "generative"
    monkeypatch.setenv("LOCALCRAG_ANSWER_STYLE", "poetic")
    with pytest.raises(LocalcragError, match="LOCALCRAG_ANSWER_STYLE"):
        Settings.load(tmp_path / "none.toml")
