"""Which answer style a run uses, and the plain words that tell the user what it means.

``auto`` quotes (extractive) when the generator is small and lets it write (generative,
every sentence checked) when it is capable. "Small" is under ``SMALL_MODEL_PARAMS``:
measured on the bundled SmolLM2-135M, a model this size writes fluent sentences with
invented numbers and names ("three attention heads", "a BLEU score of 57.1") even from the
right evidence, while models from about 1B parameters paraphrase evidence faithfully
often enough for the sentence check to be the exception rather than the rule.
"""

from __future__ import annotations

import re

from localcrag.llm.chat import ModelFacts
from localcrag.registry import WRITTEN_STYLES
from localcrag.textutil.labels import style_label

__all__ = ["model_name", "model_size", "parse_size_label", "resolve_style", "style_label"]

SMALL_MODEL_PARAMS = 1_000_000_000
# With no parameter count in the GGUF, its file size stands in: ~1B parameters at the
# 4-5 bits per weight of the usual Q4 quantisations is about 0.6 GB.
SMALL_MODEL_BYTES = 600_000_000
_LABEL = re.compile(r"^\s*(?:(\d+)x)?(\d+(?:\.\d+)?)\s*([KMBT])\b", re.IGNORECASE)
_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def parse_size_label(label: str | None) -> int | None:
    """GGUF ``general.size_label`` ("135M", "1.7B", "8x7B") as a parameter count."""
    m = _LABEL.match(label or "")
    if not m:
        return None
    experts = int(m.group(1) or 1)
    return int(experts * float(m.group(2)) * _SCALE[m.group(3).lower()])


def model_size(facts: ModelFacts) -> tuple[int | None, str]:
    """(parameter count or None, how it was found) for a chat model."""
    if facts.n_params:
        return int(facts.n_params), "parameter count"
    if n := parse_size_label(facts.size_label):
        return n, "size label"
    if facts.path is not None and facts.path.is_file():
        size = facts.path.stat().st_size
        return int(size * SMALL_MODEL_PARAMS / SMALL_MODEL_BYTES), "file size"
    return None, "unknown"


def model_name(facts: ModelFacts) -> str:
    """The model's name for "Written by <model>" (the file name without .gguf)."""
    name = facts.name or "the model"
    return name[:-5] if name.lower().endswith(".gguf") else name


def resolve_style(setting: str, facts: ModelFacts) -> tuple[str, str]:
    """("extractive" | "generative", why) for the ``answer_style`` setting and this model."""
    if setting in WRITTEN_STYLES:
        return setting, f"answer_style = {setting}"
    if facts.remote:  # a model server: a model sized for writing answers
        return (
            "generative",
            f"auto: written on the model server {facts.url}, counted as capable",
        )
    n, how = model_size(facts)
    if n is None:
        return "generative", "auto: the generator's size is unknown"
    size = f"{n / 1e9:.1f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"
    if n < SMALL_MODEL_PARAMS:
        return (
            "extractive",
            f"auto: {model_name(facts)} has {size} parameters ({how}), under 1B",
        )
    return "generative", f"auto: {model_name(facts)} has {size} parameters ({how})"
