"""Pilot tests for what a new user hit in the app: each failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from localcrag import events as ev
from localcrag.tui.widgets.answer import TurnView
from localcrag.tui.widgets.trace import TraceState, render_trace
from tests.support.tui_fakes import (
    SIZE,
    FakePipeline,
    answer_events,
    ask,
    chat,
    make_app,
    settle,
    until,
)

pytestmark = pytest.mark.anyio


def _text(renderable) -> str:  # noqa: ANN001
    console = Console(width=100, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_trace_never_puts_a_duration_and_an_elapsed_time_on_one_line() -> None:
    state = TraceState(question="q")
    for e in answer_events("q"):
        state.add(e)
    lines = _text(render_trace(state, 0.7, 0.5)).splitlines()
    took = next(line for line in lines if "stage took" in line)
    after = next(line for line in lines if "after asking" in line)
    assert "generate 2.1s" in took and "first token" not in took
    assert "first token 900ms" in after and "answer written 2.5s" in after and "done 2.5s" in after


def test_trace_shows_the_rewrite_and_says_when_the_wait_included_loading_models() -> None:
    state = TraceState(question="q")
    for e in [
        ev.StageStarted("load"),
        ev.StageFinished("load", 4200.0),
        ev.StageStarted("rewrite"),
        ev.StageFinished("rewrite", 1300.0),
        *answer_events("q", rewritten="Where do cobots work?"),
    ]:
        state.add(e)
    lines = _text(render_trace(state, 0.7, 0.5)).splitlines()
    took = next(line for line in lines if "stage took" in line)
    after = next(line for line in lines if "after asking" in line)
    assert "loading models 4.2s" in took and "rewrite 1.3s" in took
    assert "first token 900ms (incl. loading models 4.2s)" in after


def _cobot_script(question: str):  # noqa: ANN202
    rewritten = "Where do cobots work?" if question == "Where do they work?" else None
    return answer_events(question, rewritten=rewritten)


async def _ask_a_rewritten_follow_up(pilot) -> None:  # noqa: ANN001
    await settle(pilot)
    for question in ("What are cobots?", "Where do they work?"):
        await ask(pilot, question)
        await settle(pilot)


async def test_a_rewritten_follow_up_shows_a_key_that_asks_it_as_typed(tmp_path: Path) -> None:
    app, pipe, _ = make_app(tmp_path, FakePipeline(_cobot_script))
    async with app.run_test(size=SIZE) as pilot:
        await _ask_a_rewritten_follow_up(pilot)
        view = list(app.screen.query(TurnView))[-1]
        status = str(view.query_one(".turn-status").render())
        assert "understood as: Where do cobots work?" in status and "ctrl+z" in status
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert (
            pipe.calls[-1]["question"] == "Where do they work?"
            and pipe.calls[-1]["rewrite"] is False
        )
        assert "ctrl+z" not in str(view.query_one(".turn-status").render())  # only on the latest
        assert len(chat(app).query(TurnView)) == 3


async def test_a_new_conversation_after_a_rewritten_follow_up_asks_without_crashing(
    tmp_path: Path,
) -> None:
    app, pipe, _ = make_app(tmp_path, FakePipeline(_cobot_script))
    async with app.run_test(size=SIZE) as pilot:
        await _ask_a_rewritten_follow_up(pilot)
        await pilot.press("ctrl+n")  # the rewritten turn's view is removed with its conversation
        await settle(pilot)
        await pilot.press("ctrl+z")  # nothing to undo in the new conversation
        await settle(pilot)
        assert pipe.calls[-1]["question"] == "Where do they work?" and len(pipe.calls) == 2
        await ask(
            pilot, "What is a cobot?"
        )  # crashed: NoMatches '.turn-status' on the removed view
        await settle(pilot)
        assert (
            pipe.calls[-1]["question"] == "What is a cobot?" and len(chat(app).query(TurnView)) == 1
        )


async def test_the_status_bar_knows_there_is_no_network_before_the_first_question(
    tmp_path: Path,
) -> None:
    from localcrag.settings import Settings
    from localcrag.tui.app import NETWORK_POLL_S

    network = {"up": False, "probes": 0}

    def probe() -> bool:
        network["probes"] += 1
        return network["up"]

    app, pipe, _ = make_app(tmp_path, network_probe=probe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert network["probes"] == 1 and pipe.calls == []
        assert app.privacy == "offline (no network)"
        assert 30 <= NETWORK_POLL_S <= 60 and any(t.name == "network" for t in app._timers)
        network["up"] = True  # the network came back: the next poll says so
        app.check_network()
        await settle(pilot)
        assert app.privacy == "ask first"
    network["probes"] = 0
    app, _, _ = make_app(
        tmp_path, settings=Settings(models_dir=tmp_path / "m", offline=True), network_probe=probe
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert network["probes"] == 0 and app.privacy == "offline"  # offline: not even DNS


async def test_an_ingest_from_another_terminal_is_seen_before_the_next_question(
    tmp_path: Path,
) -> None:
    from localcrag.tui.library import INDEX_POLL_S

    app, pipe, lib = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (
            len(app.sources) == 2
            and any(t.name == "index" for t in app._timers)
            and INDEX_POLL_S <= 5
        )
        lib.ingest_from_outside("/notes/pets.md")
        await ask(pilot, "What is the office cat called?")  # before the next question: seen
        await settle(pilot)
        assert lib.refreshed == 1 and "/notes/pets.md" in {s.source for s in app.sources}
        lib.ingest_from_outside("/notes/plants.md")
        app.check_index()  # the poll, without a question
        await settle(pilot)
        assert lib.refreshed == 2 and len(app.sources) == 4
        app.check_index()  # nothing changed: nothing re-read
        await settle(pilot)
        assert lib.refreshed == 2


async def test_conversations_list_restart_and_titles(tmp_path: Path) -> None:
    import itertools

    from textual.widgets import OptionList

    from localcrag.history import History
    from localcrag.settings import Settings
    from localcrag.tui.modals import ConversationsModal

    ticks = itertools.count(
        1_700_000_000, 60
    )  # a clock that moves: the newest chat is listed first
    settings = Settings(models_dir=tmp_path / "models")
    history = History(settings.history_dir, clock=lambda: float(next(ticks)))
    app, _, _ = make_app(tmp_path, settings=settings, history=history)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "What is a cobot?")
        await settle(pilot)
        first = chat(app).conversation.id
        await pilot.press("ctrl+n")
        await settle(pilot)
        await ask(pilot, "What is a cobot?")  # the same first question: a title of its own
        await settle(pilot)
        second = chat(app).conversation
        assert second.id != first and second.title != "What is a cobot?"
        assert second.title.startswith("What is a cobot? · ")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConversationsModal))
        listing = app.screen.query_one(OptionList)
        assert (
            listing.get_option_at_index(listing.highlighted).id == second.id
        )  # the open one, marked
        await pilot.press("down", "enter")  # the first Down leaves the open chat
        await settle(pilot)
        assert chat(app).conversation.id == first
        history_dir = app.backend.history.root
    # restart: the chat that was open comes back, not the one modified last
    app, _, _ = make_app(tmp_path)
    assert app.backend.history.root == history_dir
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert chat(app).conversation.id == first
        await pilot.press("ctrl+n")
        await settle(pilot)
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:  # a new, empty chat was open: it stays new
        await settle(pilot)
        assert chat(app).conversation is None


async def test_esc_with_invalid_settings_asks_discard_or_keep_editing(tmp_path: Path) -> None:
    from textual.widgets import Input

    from localcrag.tui.modals import ConfirmModal
    from localcrag.tui.screens.settings import SettingsScreen

    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        app.screen.query_one("#field-top_k", Input).value = "0"
        await pilot.pause()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("escape")  # keep editing
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        assert app.focused is app.screen.query_one("#field-top_k", Input)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")  # discard
        await until(pilot, lambda: app.current_mode == "chat")
        assert app.settings.retrieval.top_k == 5
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        assert app.screen.query_one("#field-top_k", Input).value == "5"  # the bad edit is gone
        await pilot.press("escape")  # valid: leaves at once
        await until(pilot, lambda: app.current_mode == "chat")


async def test_the_offline_checkbox_is_plain_text_at_160_columns(tmp_path: Path) -> None:
    from localcrag.tui.screens.settings import SettingsScreen
    from localcrag.tui.widgets.checkbox import PlainCheckbox

    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        box = app.screen.query_one("#field-offline", PlainCheckbox)
        shown = str(box.render())
        assert (
            shown == "[ ] off" and shown.isascii() and box.region.width >= len(shown)
        )  # never cut
        box.value = True
        await pilot.pause()
        assert str(box.render()) == "[x] on " and box.region.width >= 7


async def test_the_library_shows_the_file_being_read_and_embedding_speed(tmp_path: Path) -> None:
    import threading

    from textual.widgets import Input, ProgressBar, Static

    from localcrag.ingest.library import IngestProgress, IngestReport
    from localcrag.tui.screens.library import LibraryScreen
    from localcrag.tui.widgets.status import StatusBar
    from tests.support.tui_fakes import FakeLibrary

    class SlowEmbedding(FakeLibrary):
        """Reads three files, then stops half-way through embedding them."""

        def __init__(self) -> None:
            super().__init__()
            self.at_half, self.go_on = threading.Event(), threading.Event()

        def ingest(self, paths, prune=False, on_progress=None, force=False):  # noqa: ANN001, ANN202
            files = sorted(str(p) for p in Path(paths[0]).iterdir())
            for f in files:
                on_progress(IngestProgress(0, 3, f, "reading"))
                on_progress(IngestProgress(0, 3, f, "parsed"))
            on_progress(IngestProgress(0, 3, files[1], "embedding", 48, 96, 40.0))
            self.at_half.set()
            assert self.go_on.wait(10)
            return IngestReport(indexed=files, chunks=96)

    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text("x")
    lib = SlowEmbedding()
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LibraryScreen))
        app.screen.query_one("#path", Input).value = str(folder)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                lib.at_half.is_set()
                and app.ingest_progress is not None
                and app.ingest_progress.stage == "embedding"
            ),
        )
        await pilot.pause()
        status = str(app.screen.query_one("#ingest-status", Static).render())
        assert "0/3 files" in status and "embedding 48/96 chunks · 40 chunks/s · b.md" in status
        assert (
            app.screen.query_one("#progress", ProgressBar).progress == 0.5
        )  # moves while embedding
        assert "embedding 48/96" in _text(app.screen.query_one(StatusBar).content)
        lib.go_on.set()
        await settle(pilot)


@pytest.mark.parametrize("size", [(80, 30), SIZE, (160, 50), (240, 60)])
async def test_a_toast_stays_inside_the_trace_panels_border(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    from textual.geometry import Spacing
    from textual.widgets._toast import Toast

    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        app.notify(
            "Indexed 3, unchanged 0, failed 0; 120 chunks in the library. " * 2,
            title="Indexing done",
        )
        await until(pilot, lambda: bool(app.screen.query(Toast)))
        await pilot.pause()
        trace = app.screen.query_one("#trace")
        inside = trace.region.shrink(Spacing(1, 1, 1, 1))  # within the border
        for toast in app.screen.query(Toast):
            assert inside.contains_region(toast.region), (toast.region, trace.region)


async def test_the_library_marks_files_changed_on_disk_and_u_reindexes_them(tmp_path: Path) -> None:
    import os

    from textual.widgets import DataTable, Static

    from localcrag.ingest.store import SourceInfo
    from localcrag.tui.screens.library import LibraryScreen
    from tests.support.tui_fakes import FROZEN, FakeLibrary

    edited, same = tmp_path / "edited.md", tmp_path / "same.md"
    for f in (edited, same):
        f.write_text("text")
    os.utime(same, (FROZEN - 60, FROZEN - 60))  # untouched since it was indexed at FROZEN
    os.utime(edited, (FROZEN + 60, FROZEN + 60))  # edited after
    lib = FakeLibrary(
        [SourceInfo(str(edited), 1, 2, FROZEN, "h1"), SourceInfo(str(same), 1, 2, FROZEN, "h2")]
    )
    app, _, _ = make_app(tmp_path, library=lib)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LibraryScreen))
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        names = sorted(table.get_row_at(i)[0].plain for i in range(2))
        assert names == ["edited.md  changed", "same.md"]
        summary = str(app.screen.query_one("#library-summary", Static).render())
        assert "1 changed on disk since indexed (u in the table re-indexes it)" in summary
        table.focus()
        await pilot.press("u")
        await settle(pilot)
        assert lib.ingested and str(edited) in lib.ingested[-1]
