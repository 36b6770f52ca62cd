"""Fixtures used in more than one folder of tests (registered by tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder

DOC = """# Robots

Collaborative robots, called cobots, work safely next to people in factories. They are
light and have force sensors.

# Weather

Rain falls when clouds hold too much water. Forecasts use satellites and models.
"""


@pytest.fixture()
def library(tmp_path: Path) -> Library:
    """doc.md (robots, weather), two chunks, indexed with the fake embedder."""
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([tmp_path / "doc.md"])
    return lib


@pytest.fixture()
def generic(tmp_path: Path) -> Path:
    """A folder a user would evaluate: two notes and three questions (one answer-free)."""
    root = tmp_path / "mydata"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "robots.md").write_text(
        "# Robots\n\nCollaborative robots, called cobots, work safely next to people in factories.\n"
    )
    (root / "docs" / "weather.md").write_text(
        "# Weather\n\nRain falls when clouds hold too much water.\n"
    )
    rows = [
        {
            "question": "Where do collaborative robots called cobots work?",
            "answer": "next to people in factories",
            "gold_sources": ["robots.md"],
        },
        {
            "question": "Why does rain fall from clouds?",
            "answer": "clouds hold too much water",
            "gold_sources": ["weather.md"],
        },
        {"question": "Who won the 1998 football world cup?", "answerable": False},
    ]
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root
