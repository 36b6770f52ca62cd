"""Pilot tests of the app: asyncio, and each test its own LOCALCRAG_HOME under its tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio."""
    return "asyncio"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each pilot test gets its own LOCALCRAG_HOME under its tmp_path."""
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
