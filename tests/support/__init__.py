"""What tests share that is not a fixture: the repository's paths, fakes, document builders.

Fixtures shared across folders live in ``tests/conftest.py`` and the plugin modules it
lists (``fixtures``, ``fakehub``, ``modelserver``), so no test imports a fixture by name.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO.parent / "shared" / "data").resolve()  # the shared test data, beside the repo
MODELS = REPO / "models"
DATA = REPO / "tests" / "data"  # small files committed for the tests and eval
CLOSED_PROXY = "http://127.0.0.1:9"  # the discard port, closed: a proxied request fails at once
