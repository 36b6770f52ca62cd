"""The settings in the groups a user looks for them in: the one declared order.

``Settings`` inherits its model-server, OCR and limit fields from mixins, so pydantic lists
those first; ``localcrag config`` and the TUI settings screen both read this order instead.
tests/test_settings.py fails when a field of ``Settings`` is in no group (or in two), so a
new setting cannot be left off the screen or out of ``config``.
"""

from __future__ import annotations

from collections.abc import Iterable

from localcrag.settings_limits import LIMIT_FIELDS

GROUPS: dict[str, tuple[str, ...]] = {
    "Models": ("generator", "embedder", "embedder_backend", "grader_llm", "models_dir"),
    "Model server (instead of the local generator)": (
        "llm_endpoint",
        "llm_endpoint_model",
        "llm_endpoint_key_env",
        "llm_endpoint_timeout",
    ),
    "Retrieval evaluator": (
        "grader",
        "grader_model",
        "upper_threshold",
        "lower_threshold",
        "strip_threshold",
        "strip_sentences",
        "calibrate",
    ),
    "Retrieval": ("top_k", "retrieval_mode"),
    "Web search and privacy": ("web_search", "offline", "web_timeout", "web_results", "web_region"),
    "Generation": (
        "answer_style",
        "max_answer_tokens",
        "temperature",
        "repeat_penalty",
        "n_ctx",
        "evidence_tokens",
        "threads",
    ),
    "Indexing (changing these re-indexes into a new table)": ("chunk_tokens", "chunk_overlap"),
    "Index location and versions": (
        "index_uri",
        "index_storage_options",
        "index_refresh_seconds",
        "index_keep_minutes",
    ),
    "OCR (scanned pages and images)": ("ocr", "ocr_dpi", "ocr_page_seconds"),
    "Limits per file (hostile or broken inputs)": LIMIT_FIELDS,
}
OTHER = "Other"  # where a field no group names still shows up (the test keeps it empty)


def grouped(fields: Iterable[str]) -> dict[str, list[str]]:
    """``fields`` (e.g. ``Settings.model_fields``) by group in the declared order; a field
    no group names goes under ``OTHER`` rather than disappear."""
    fields = list(fields)
    out = {title: [n for n in names if n in fields] for title, names in GROUPS.items()}
    named = {n for names in GROUPS.values() for n in names}
    out[OTHER] = [n for n in fields if n not in named]
    return {title: names for title, names in out.items() if names}
