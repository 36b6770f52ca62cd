"""Pilot test: the Library screen with 10,000 documents draws one page of rows and filters
(scripted library, waits on conditions, never sleeps)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from localcrag.ingest.store import SourceInfo
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.widgets.answer import TurnView
from localcrag.tui.widgets.documents import PAGE_ROWS
from tests.support.tui_fakes import (
    FROZEN,
    SIZE,
    FakeLibrary,
    ask,
    make_app,
    settle,
    until,
)

pytestmark = pytest.mark.anyio


async def test_ten_thousand_documents_show_one_page_and_a_filter(tmp_path: Path) -> None:
    docs = [
        SourceInfo(f"/library/box{i % 100:03d}/paper{i:05d}.pdf", 10, 100, FROZEN, f"h{i}")
        for i in range(10_000)
    ]
    app, _, _ = make_app(tmp_path, library=FakeLibrary(docs))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        table = screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == PAGE_ROWS)
        summary = str(screen.query_one("#library-summary", Static).render())
        assert f"Showing {PAGE_ROWS} of 10,000" in summary
        box = screen.query_one("#doc-filter", Input)
        assert box.display
        box.value = "paper09999"
        await until(pilot, lambda: table.row_count == 1)
        box.value = "box007/"
        await until(pilot, lambda: table.row_count == 100)
        assert all("box007" in str(table.get_row_at(i)[4]) for i in range(table.row_count))


async def test_a_small_library_has_no_filter_box(tmp_path: Path) -> None:
    docs = [SourceInfo(f"/library/paper{i}.pdf", 1, 3, FROZEN, f"h{i}") for i in range(3)]
    app, _, _ = make_app(tmp_path, library=FakeLibrary(docs))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: app.screen.query_one(DataTable).row_count == 3)
        assert not app.screen.query_one("#doc-filter", Input).display


async def test_questions_are_answered_while_an_ingest_is_still_running(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text(name)
    lib = FakeLibrary([SourceInfo("/library/old.pdf", 3, 9, FROZEN, "h")], pause_before=1)
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        app.screen.query_one("#path", Input).value = str(folder)
        await pilot.press("enter")
        assert await asyncio.to_thread(lib.paused.wait, 10)  # the ingest is half-way
        await pilot.press("ctrl+l")  # back to the chat
        await ask(pilot, "what is ai?")
        await until(
            pilot, lambda: bool(app.screen.query(TurnView)) and app.screen.query_one(TurnView).done
        )
        assert "simulation of human intelligence" in app.screen.query_one(TurnView).text
        assert app.ingesting  # answered from what was indexed, the ingest still running
        lib.resume.set()
        await until(pilot, lambda: not app.ingesting)
