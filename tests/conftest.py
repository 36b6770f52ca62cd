"""Shared fixtures: an isolated LOCALCRAG_HOME for every test, the shared data, real models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared" / "data").resolve()
MODELS = REPO / "models"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tests never touch a user's real config, index or history."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("LOCALCRAG_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared test data not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def ai_pdf(shared_data: Path) -> Path:
    return shared_data / "ai-information" / "AI_Information.pdf"


@pytest.fixture(scope="session")
def real_embedder():
    from localcrag.ingest.embed import load_embedder

    path = MODELS / "all-MiniLM-L6-v2"
    if not path.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    return load_embedder(path)


@pytest.fixture(scope="session")
def smollm():
    from localcrag.llm.gguf import load_llm

    path = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        pytest.skip("models/ not provisioned (run `make models`)")
    return load_llm(path, n_ctx=2048)
