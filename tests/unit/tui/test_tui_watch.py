"""Pilot tests: the app's Library follows writes by others (a terminal's ingest) within 2 s,
and the "w" toggle watches a folder (real Library and watcher, fake embedder and pipeline).
Waits poll a condition against a wall-clock deadline: the deadlines are the targets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("watchfiles")

from textual.widgets import DataTable, Static

from localcrag.ingest.library import Library
from localcrag.ingest.watch import load_watched
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder
from tests.support.tui_fakes import SIZE, make_app, settle

pytestmark = pytest.mark.anyio


async def within(pilot: Any, cond: Callable[[], bool], deadline_s: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        if cond():
            return time.monotonic() - t0
        await pilot.pause(0.05)
    raise AssertionError(f"not true within {deadline_s} s")


def names(app: Any) -> set[str]:
    return {Path(s.source).name for s in app.sources}


async def test_the_library_shows_a_terminal_ingest_within_2_s(tmp_path: Path) -> None:
    (tmp_path / "robots.md").write_text("# Robots\n\nCobots work beside people.\n")
    (tmp_path / "pets.md").write_text("# Pets\n\nThe office cat is called Miso.\n")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([tmp_path / "robots.md"])
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        assert names(app) == {"robots.md"}
        terminal = Library(Settings(), embedder=FakeEmbedder())  # `localcrag ingest` elsewhere
        done = threading.Event()
        threading.Thread(
            target=lambda: (terminal.ingest([tmp_path / "pets.md"]), done.set())
        ).start()
        await within(pilot, done.is_set, 30)
        await within(pilot, lambda: names(app) == {"robots.md", "pets.md"}, 2.0)
        summary = str(app.screen.query_one("#library-summary", Static).render())
        assert summary.startswith("2 documents")


async def test_w_watches_the_selected_documents_folder(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "robots.md").write_text("# Robots\n\nCobots work beside people.\n")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([folder])
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        app.screen.query_one("#documents", DataTable).focus()
        await pilot.press("w")
        assert app.watched == (str(folder.resolve()),)
        assert load_watched(app.settings.index_dir) == [folder.resolve()]
        await within(
            pilot,
            lambda: (
                "watching 1 folder"
                in str(app.screen.query_one("#library-summary", Static).render())
            ),
            2.0,
        )
        # created while the watcher starts or after: its catch-up ingest or an event finds it
        (folder / "pets.md").write_text("# Pets\n\nThe office cat is called Miso.\n")
        await within(pilot, lambda: "pets.md" in names(app), 5.0)
        (folder / "robots.md").unlink()
        await within(pilot, lambda: names(app) == {"pets.md"}, 5.0)
        await pilot.press("w")  # off again
        assert app.watched == () and load_watched(app.settings.index_dir) == []
