"""Pilot tests of asking within documents: marked in the Library, shown above the question
box, passed to every question of the conversation, cleared with one key (no sleeps)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from localcrag.ingest.store import SourceInfo
from localcrag.tui.screens.chat import ChatScreen
from localcrag.tui.screens.library import LibraryScreen
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

DOCS = [
    SourceInfo("/docs/reports/2019 report.pdf", 12, 40, FROZEN, "h1"),
    SourceInfo("/docs/reports/2020 report.pdf", 14, 44, FROZEN, "h2"),
    SourceInfo("/docs/data/sales.csv", 300, 90, FROZEN, "h3"),
]


def _row_of(table: DataTable, name: str) -> int:
    return [table.get_row_at(i)[0].plain.removeprefix("✓ ") for i in range(table.row_count)].index(
        name
    )


async def test_mark_documents_ask_about_them_and_clear_the_scope(tmp_path: Path) -> None:
    lib = FakeLibrary(DOCS)
    app, pipe, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chat = app.screen
        assert isinstance(chat, ChatScreen)
        assert not chat.query_one("#scope-bar", Static).display  # no scope: no line
        await pilot.press("ctrl+l")
        library = app.screen
        assert isinstance(library, LibraryScreen)
        table = library.query_one(DataTable)
        table.focus()
        for name in ("2019 report.pdf", "sales.csv"):
            table.move_cursor(row=_row_of(table, name))
            await pilot.press("space")
        marked = [table.get_row_at(i)[0].plain for i in range(table.row_count)]
        assert sorted(n for n in marked if n.startswith("✓ ")) == [
            "✓ 2019 report.pdf",
            "✓ sales.csv",
        ]
        table.move_cursor(row=_row_of(table, "sales.csv"))
        await pilot.press("space")  # unmarked again
        await pilot.press("q")
        await settle(pilot)
        assert app.screen is chat and app.scope is not None
        assert app.scope.sources == ("/docs/reports/2019 report.pdf",)
        bar = str(chat.query_one("#scope-bar", Static).render())
        assert chat.query_one("#scope-bar", Static).display
        assert "Asking within: 2019 report.pdf (40 passages)" in bar and "ctrl+b" in bar
        await ask(pilot, "What were the total expenses?")
        await until(pilot, lambda: len(pipe.calls) == 1 and chat.run is None)
        await ask(pilot, "And in the year before?")  # later questions keep the scope
        await until(pilot, lambda: len(pipe.calls) == 2 and chat.run is None)
        assert [c["scope"].sources for c in pipe.calls] == [app.scope.sources] * 2
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert app.scope is None and not chat.query_one("#scope-bar", Static).display
        await ask(pilot, "What were the total expenses?")
        await until(pilot, lambda: len(pipe.calls) == 3 and chat.run is None)
        assert pipe.calls[-1]["scope"] is None


async def test_a_scope_follows_removals_and_the_selected_row_is_a_scope_of_one(
    tmp_path: Path,
) -> None:
    lib = FakeLibrary(DOCS)
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=_row_of(table, "2020 report.pdf"))
        await pilot.press("q")  # nothing marked: the selected document
        await settle(pilot)
        assert app.scope is not None and app.scope.sources == ("/docs/reports/2020 report.pdf",)
        await pilot.press("ctrl+l")
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=_row_of(table, "2020 report.pdf"))
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        await until(pilot, lambda: app.scope is None)  # its only document is gone
        assert any("no longer indexed" in n.message for n in app._notifications)


async def test_enter_on_a_document_shows_its_overview_and_q_asks_about_it(tmp_path: Path) -> None:
    from textual.widgets import Markdown

    from localcrag.tui.modals import OverviewModal

    lib = FakeLibrary(DOCS)
    app, pipe, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        table = app.screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=_row_of(table, "sales.csv"))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, OverviewModal))
        body = app.screen.query_one(Markdown).source
        assert "**sales.csv**: About sales." in body and "Sections: Introduction." in body
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LibraryScreen))
        assert app.scope is None  # closed: nothing changed
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, OverviewModal))
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert app.scope is not None and app.scope.sources == ("/docs/data/sales.csv",)


async def test_a_question_that_names_a_document_says_so_and_ctrl_b_asks_everywhere(
    tmp_path: Path,
) -> None:
    from localcrag import events as ev
    from localcrag.types import Scope
    from tests.support.tui_fakes import FakePipeline, answer_events

    named = Scope(("the 2019 report",), ("/docs/reports/2019 report.pdf",), 40, "the 2019 report")

    def script(question: str) -> list:
        events = answer_events(question)
        return [
            ev.Retrieved(e.hits, e.fallback, named) if isinstance(e, ev.Retrieved) else e
            for e in events
        ]

    pipe = FakePipeline(script)
    app, _, _ = make_app(tmp_path, pipeline=pipe, library=FakeLibrary(DOCS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chat = app.screen
        await ask(pilot, "In the 2019 report, what were the total expenses?")
        await until(pilot, lambda: len(pipe.calls) == 1 and chat.run is None)
        status = str(chat.query("TurnView").last().query_one(".turn-status", Static).render())
        assert "asked within 2019 report.pdf: the question names it" in status
        assert "ctrl+b" in status and pipe.calls[0]["named_scope"] is True
        await pilot.press("ctrl+b")  # the same words, every document
        await until(pilot, lambda: len(pipe.calls) == 2 and chat.run is None)
        assert pipe.calls[1]["question"] == pipe.calls[0]["question"]
        assert pipe.calls[1]["named_scope"] is False and app.scope is None
