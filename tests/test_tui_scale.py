"""Pilot test: the Library screen with 10,000 documents draws one page of rows and filters
(scripted library, waits on conditions, never sleeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable, Input, Static  # noqa: E402

from localcrag.ingest.store import SourceInfo  # noqa: E402
from localcrag.tui.screens.library import LibraryScreen  # noqa: E402
from localcrag.tui.widgets.documents import PAGE_ROWS  # noqa: E402
from tui_fakes import FROZEN, SIZE, FakeLibrary, anyio_backend, home, make_app, settle, until  # noqa: E402,F401

pytestmark = pytest.mark.anyio


async def test_ten_thousand_documents_show_one_page_and_a_filter(tmp_path: Path) -> None:
    docs = [SourceInfo(f"/library/box{i % 100:03d}/paper{i:05d}.pdf", 10, 100, FROZEN, f"h{i}")
            for i in range(10_000)]
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
