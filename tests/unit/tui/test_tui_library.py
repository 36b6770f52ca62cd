"""Pilot tests of the Library screen and ingestion in the app (scripted library, no sleeps):
adding, failures, re-indexing in place, stopping, other-settings documents, demo docs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Markdown, ProgressBar, Static

from localcrag.errors import EmptyIndex, LocalcragError
from localcrag.ingest.store import SourceInfo
from localcrag.settings import Settings
from localcrag.tui.modals import ConfirmModal, MessageModal
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.widgets.answer import TurnView
from tests.support.tui_fakes import (
    FROZEN,
    SIZE,
    FakeLibrary,
    FakePipeline,
    ask,
    demo_sources,
    make_app,
    settle,
    until,
)

pytestmark = pytest.mark.anyio


async def test_empty_library_offers_the_one_key_demo(tmp_path: Path) -> None:
    docs = tmp_path / "repo"
    (docs / "docs").mkdir(parents=True)
    (docs / "README.md").write_text("# readme")
    (docs / "docs" / "architecture.md").write_text("# arch")
    lib, demo = FakeLibrary(), FakeLibrary(chunks=())
    app, _, _ = make_app(tmp_path, library=lib, demo_library=demo)
    app.backend.demo_paths = lambda: [docs / "README.md", docs / "docs"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        welcome = app.screen.query_one("#welcome", Markdown).source
        assert "library is empty" in welcome and "ctrl+g" in welcome
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert len(app.sources) == 2 and demo.ingested and not lib.ingested  # its own index
        assert app.demo_active and app.backend.active_library() is demo
        assert "Ask about the 2 demo documents" in app.screen.query_one("#welcome", Markdown).source


async def test_library_add_lists_failures_reindex_and_remove(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "good.md").write_text("fine")
    (folder / "broken.pdf").write_text("bad")
    lib = FakeLibrary(demo_sources())
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 2
        screen.query_one("#path", Input).value = str(folder)
        screen.query_one("#path", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert table.row_count == 3
        # the failure names the file once (the error's own leading path is dropped)
        failures = str(screen.query_one("#failures").render())
        assert "✗ broken.pdf: could not read (damaged file)" in failures, failures
        assert str(folder) not in failures
        assert app.ingest_report.failed and app.ingest_progress is None
        # a vanished file cannot be re-indexed; an existing one is re-indexed in place
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("r")
        await settle(pilot)
        assert lib.removed == [] and any(
            "no longer exists" in n.message for n in app._notifications
        )
        good = str(folder / "good.md")
        table.move_cursor(row=[table.get_row_at(i)[0].plain for i in range(3)].index("good.md"))
        await pilot.press("r")
        await settle(pilot)
        # forced re-ingest (chunks replaced in one commit), never remove-then-add
        assert lib.removed == [] and lib.ingested[-1] == [good] and lib.forced[-1] is True
        assert table.row_count == 3
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert table.row_count == 2 and lib.removed == [good]


async def test_markup_in_file_names_and_errors_is_shown_literally(tmp_path: Path) -> None:
    draft = "/docs/notes [draft].txt"
    lib = FakeLibrary([SourceInfo(draft, 1, 3, FROZEN, "h"), *demo_sources()])
    pipe = FakePipeline(
        warm_error=LocalcragError("model [b]x[/] not found [/]", "run `make models`")
    )
    app, _, _ = make_app(tmp_path, library=lib, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MessageModal)
        shown = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "model [b]x[/] not found [/]" in shown
        await pilot.press("enter")
        await pilot.press("ctrl+l")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        names = [table.get_row_at(i)[0] for i in range(table.row_count)]
        assert "notes [draft].txt" in [n.plain for n in names]
        assert "notes [draft].txt" in app.export_screenshot().replace("&#160;", " ")
        table.focus()
        table.move_cursor(row=[n.plain for n in names].index("notes [draft].txt"))
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert "Remove notes [draft].txt from" in str(app.screen.query_one(Static).render())
        await pilot.press("escape")


async def test_library_starts_in_the_path_box_and_typed_paths_never_trigger_actions(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.md").write_text("a")
    lib = FakeLibrary(demo_sources())
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        screen = app.screen
        path = screen.query_one("#path", Input)
        assert path.has_focus
        typed = "/work/shared/data/rsuxa"
        await pilot.press(*typed)
        await settle(pilot)
        assert path.value == typed and lib.ingested == [] and lib.removed == []
        assert isinstance(app.screen, LibraryScreen)
        # in the file browser, the letters do nothing either (they only act in the table)
        screen.query_one("#browser").focus()
        await pilot.press("r", "u", "s", "x")
        await settle(pilot)
        assert lib.ingested == [] and lib.removed == [] and isinstance(app.screen, LibraryScreen)
        # the footer still lists them (dimmed outside the table)
        shown = screen.active_bindings
        assert {"r", "u", "x", "s"} <= set(shown) and not any(shown[k].enabled for k in "ruxs")
        # in the table they work
        table = screen.query_one(DataTable)
        table.focus()
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("escape")
        await pilot.pause()
        assert table.has_focus  # a dialog does not move the focus
        # a successful add returns to the path box, not the table
        path.value = str(folder)
        path.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert lib.ingested == [[str(folder / "a.md")]] and path.has_focus
        # leaving with the table focused and coming back starts in the path box again
        table.focus()
        await pilot.press("escape")
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.screen.query_one("#path", Input).has_focus


async def test_reindex_then_stop_keeps_the_document_and_says_stopped(tmp_path: Path) -> None:
    doc = tmp_path / "paper.md"
    doc.write_text("text")
    lib = FakeLibrary([SourceInfo(str(doc), 1, 7, FROZEN, "old")], pause_before=0)
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        screen = app.screen
        screen.query_one(DataTable).focus()
        await pilot.press("r")
        assert await asyncio.to_thread(lib.paused.wait, 10)
        await pilot.press("s")
        lib.resume.set()
        await settle(pilot)
        assert lib.removed == [] and lib.forced == [True]
        assert [(s.source, s.chunks) for s in app.sources] == [(str(doc), 7)]  # old chunks kept
        status = str(screen.query_one("#ingest-status").render())
        assert "Stopped: indexed 0; the rest unchanged" in status
        bar = screen.query_one("#progress", ProgressBar)
        assert bar.percentage is None or bar.percentage < 1  # a stop never reads "100%"
        assert not app.ingesting


async def test_a_stopped_folder_ingest_reports_what_was_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text(name)
    lib = FakeLibrary(pause_before=1)
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        screen = app.screen
        screen.query_one("#path", Input).value = str(folder)
        await pilot.press("enter")
        assert await asyncio.to_thread(lib.paused.wait, 10)
        await until(pilot, lambda: screen.query_one("#stop").display)
        await pilot.click("#stop")
        assert "Stopping" in str(screen.query_one("#ingest-status").render())
        lib.resume.set()
        await settle(pilot)
        assert "Stopped: indexed 1; the rest unchanged." in str(
            screen.query_one("#ingest-status").render()
        )
        assert [Path(s.source).name for s in app.sources] == ["a.md"]
        assert not screen.query_one("#stop").display


def test_forced_ingest_replaces_chunks_in_place(tmp_path: Path, home: Path) -> None:
    """The real Library: a re-index re-embeds an unchanged file, and a stop before its commit
    keeps the old chunks (nothing is removed first)."""
    from localcrag.ingest.library import Library
    from tests.support.fakes import FakeEmbedder

    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nMachine learning learns from data. " * 20)
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert lib.ingest([doc]).indexed == [str(doc)]
    assert lib.ingest([doc]).unchanged == [str(doc)]
    before = lib.count()

    class Stop(BaseException):
        pass

    def stop_when_parsed(p) -> None:
        if p.stage == "parsed":
            raise Stop

    with pytest.raises(Stop):
        lib.ingest([doc], force=True, on_progress=stop_when_parsed)
    assert lib.count() == before and [s.source for s in lib.sources()] == [str(doc)]
    report = lib.ingest([doc], force=True)
    assert report.indexed == [str(doc)] and lib.count() == before


async def test_documents_indexed_with_other_settings_are_offered_for_reindexing(
    tmp_path: Path,
) -> None:
    docs = [tmp_path / "a.md", tmp_path / "b.md"]
    for d in docs:
        d.write_text("x")
    pipe = FakePipeline(
        run_error=EmptyIndex(
            "the index was built with a different embedder or chunking settings",
            "run `localcrag reindex` to re-embed",
        )
    )
    lib = FakeLibrary(previous=[str(d) for d in docs])
    app, _, _ = make_app(tmp_path, library=lib, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        welcome = app.screen.query_one("#welcome", Markdown).source
        assert "2 documents were indexed with other settings" in welcome and "ctrl+r" in welcome
        await ask(pilot, "what is ai?")
        await settle(pilot)
        status = str(app.screen.query_one(TurnView).query_one(".turn-status").render())
        assert "ctrl+l, then ctrl+r" in status and "localcrag reindex" not in status
        await pilot.press("ctrl+l")
        await settle(pilot)
        screen = app.screen
        summary = str(screen.query_one("#library-summary").render())
        assert "2 documents were indexed with other settings" in summary and "ctrl+r" in summary
        assert "No documents yet" not in summary
        assert "ctrl+r" in screen.active_bindings and screen.query_one("#path", Input).has_focus
        await pilot.press("ctrl+r")  # works from the path box
        await settle(pilot)
        assert lib.ingested == [[str(d) for d in docs]]
        assert len(app.sources) == 2 and app.previous_sources == ()
        assert "other settings" not in str(screen.query_one("#library-summary").render())


async def test_demo_documents_are_marked_and_offered_for_removal(tmp_path: Path) -> None:
    """The demo lives in its own index: once the user adds a file, questions go to the user's
    library only (a visible note says so), and ctrl+d still deletes the demo index."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "README.md").write_text("# readme")
    (repo / "docs" / "architecture.md").write_text("# arch")
    mine = tmp_path / "mine.md"
    mine.write_text("mine")
    lib, demo = FakeLibrary(), FakeLibrary(chunks=())
    app, _, _ = make_app(tmp_path, library=lib, demo_library=demo)
    app.backend.demo_paths = lambda: [repo / "README.md", repo / "docs"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert not any(
            "Demo documents" == n.title for n in app._notifications
        )  # not for the demo itself
        await pilot.press("ctrl+l")
        await settle(pilot)
        screen = app.screen
        table = screen.query_one(DataTable)
        assert sorted(table.get_row_at(i)[0].plain for i in range(2)) == [
            "README.md  demo",
            "architecture.md  demo",
        ]
        assert "2 demo documents" in str(screen.query_one("#library-summary").render())
        screen.query_one("#path", Input).value = str(mine)
        await pilot.press("enter")
        await settle(pilot)
        assert [Path(s.source).name for s in app.sources] == ["mine.md"]  # the demo is not searched
        assert not app.demo_active and app.backend.active_library() is lib
        assert any(
            n.title == "Demo documents" and "own index" in n.message for n in app._notifications
        )
        assert lib.ingested == [[str(mine)]] and len(demo.sources()) == 2  # never mixed
        await pilot.press("ctrl+d")  # one key, from the path box: deletes the demo index
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        assert [Path(s.source).name for s in app.sources] == ["mine.md"] and demo.sources() == []
        assert sorted(Path(p).name for p in demo.removed) == ["README.md", "architecture.md"]
        assert lib.removed == []
        assert screen.check_action("remove_demo", ()) is False  # hidden once there is no demo left
        assert screen.active_bindings["ctrl+d"].binding.action != "remove_demo"  # the Input's again
