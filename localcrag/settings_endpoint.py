"""The model-server settings (``llm_endpoint`` and its options), mixed into ``Settings``.

In a module of their own so settings.py stays under the size limit; ``Settings`` inherits
them, so they are ordinary settings everywhere (TOML, ``LOCALCRAG_LLM_ENDPOINT``,
``localcrag config``, the settings screen).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class EndpointSettings(BaseModel):
    """An OpenAI-compatible server that writes instead of the local generator."""

    llm_endpoint: str | None = Field(
        None,
        description=(
            "Base URL of an OpenAI-compatible model server (llama.cpp server, vLLM, "
            "Ollama; e.g. http://gpu-box:8080/v1) that writes answers, web queries and "
            "`llm` grader verdicts instead of the local generator. The question and the "
            "evidence text are sent to it; offline, a server that is not on this "
            "machine is refused. If it fails, the local generator answers. "
            "Unset: the local GGUF."
        ),
    )
    llm_endpoint_model: str | None = Field(
        None,
        description="Model name sent to llm_endpoint (default: the first one it lists).",
    )
    llm_endpoint_key_env: str | None = Field(
        None,
        description=(
            "Name of the environment variable that holds llm_endpoint's API key, sent "
            "as a Bearer token (the key itself is never stored in the settings)."
        ),
    )
    llm_endpoint_timeout: float = Field(
        60.0,
        gt=0.0,
        le=600.0,
        description=(
            "Seconds llm_endpoint may take to send its next piece (connecting: at most "
            "5); after one retry the question falls back to the local generator."
        ),
    )

    @field_validator("llm_endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip().rstrip("/")
        scheme, _, rest = value.partition("://")
        if scheme.lower() not in ("http", "https") or not rest.split("/")[0]:
            raise ValueError(
                "must be an http:// or https:// base URL such as http://gpu-box:8080/v1"
            )
        return value
