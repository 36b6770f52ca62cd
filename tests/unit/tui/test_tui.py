"""Pilot tests of the Textual app with a scripted pipeline and an in-memory library.

Nothing sleeps: tests wait for workers (``workers.wait_for_complete``), for the message
queue (``pilot.pause()``), or poll a condition between message-queue pauses.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Markdown, OptionList, Select

from localcrag import events as ev
from localcrag.errors import EmptyIndex, LocalcragError, ModelMissing
from localcrag.settings import Settings, field
from localcrag.tui.app import LocalcragApp
from localcrag.tui.modals import (
    ConversationsModal,
    MessageModal,
    PassageModal,
    WebConsentModal,
)
from localcrag.tui.screens.chat import ChatScreen
from localcrag.tui.screens.help import HelpScreen, binding_rows
from localcrag.tui.screens.library import LibraryScreen
from localcrag.tui.screens.settings import SettingsScreen
from localcrag.tui.widgets.answer import TurnView, link_citations
from localcrag.tui.widgets.trace import TracePanel
from localcrag.types import Action
from tests.support.tui_fakes import (
    SIZE,
    FakeLibrary,
    FakePipeline,
    answer_events,
    ask,
    chat,
    make_app,
    settle,
    until,
)

pytestmark = pytest.mark.anyio


async def test_first_screen_loads_models_in_a_worker_and_shows_the_library(tmp_path: Path) -> None:
    app, pipe, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ChatScreen)
        await settle(pilot)
        assert app.model_state == "ready" and pipe.warmed == 1
        assert len(app.sources) == 2
        assert "2 documents" in str(app.screen.query_one("#welcome", Markdown).source)
        assert app.screen.query_one("#question", Input).has_focus


async def test_ask_streams_a_cited_answer_fills_the_trace_and_saves_history(tmp_path: Path) -> None:
    app, pipe, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert view.done and "simulation of human intelligence" in view.text
        source = view.query_one(".answer", Markdown).source
        assert "(cite:1)" in source and "(cite:2)" in source
        trace = app.screen.query_one(TracePanel).state
        assert trace.decision.action is Action.CORRECT and len(trace.hits) == 3
        assert trace.refined == (2, 6) and trace.web_skipped == "not needed"
        assert trace.timings["generate"] == 2100.0
        assert trace.evidence_n == {0: (1,), 1: (2,)}  # retrieved rows 1 and 2 became [1] and [2]
        sources = view.query_one(".sources", OptionList)
        assert sources.display and sources.option_count == 2
        conv = app.backend.history.last()
        assert conv.turns[0].question == "what is ai?" and conv.turns[0].action == "correct"
        assert conv.turns[0].chunk_id(1) == "c1"
        assert app.conversation_title == "what is ai?"


async def test_citation_opens_the_passage_with_the_used_part_highlighted(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        await pilot.press("ctrl+r")
        assert isinstance(app.focused, OptionList)
        await pilot.press("down", "enter")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, PassageModal)
        assert modal.evidence.n == 2 and modal.chunk.chunk_id == "c2"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        # clicking [1] in the answer text posts the same request
        view = app.screen.query_one(TurnView)
        view.query_one(".answer", Markdown).post_message(
            Markdown.LinkClicked(view.query_one(".answer", Markdown), "cite:1")
        )
        await pilot.pause()
        assert isinstance(app.screen, PassageModal) and app.screen.evidence.n == 1


async def test_escape_cancels_a_running_answer_and_keeps_the_partial_text(tmp_path: Path) -> None:
    pipe = FakePipeline(block_after=3)
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        assert await asyncio.to_thread(pipe.blocked.wait, 10)
        await until(pilot, lambda: app.screen.query_one(TurnView).text.count(" ") >= 3)
        # the UI stays responsive while the worker runs: switch screens and back
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, LibraryScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, ChatScreen)
        await pilot.press("escape")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert view.done and view.text == "Artificial intelligence is "
        assert "Cancelled" in app.screen.query_one(TracePanel).state.note
        assert app.backend.history.last().turns[0].cancelled
        assert chat(app).run is None


async def test_web_consent_modal_shows_the_query_and_remembers_always(
    tmp_path: Path, home: Path
) -> None:
    pipe = FakePipeline(web_query="history of artificial intelligence")
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "q1")
        await until(pilot, lambda: isinstance(app.screen, WebConsentModal))
        assert app.screen.query_text == "history of artificial intelligence"
        await pilot.press("escape")  # not now = deny
        await settle(pilot)
        await ask(pilot, "q2")
        await until(pilot, lambda: isinstance(app.screen, WebConsentModal))
        await pilot.press("y")  # allow once
        await settle(pilot)
        assert app.settings.web.web_search == "ask"
        await ask(pilot, "q3")
        await until(pilot, lambda: isinstance(app.screen, WebConsentModal))
        await pilot.press("a")  # always: saved, not asked again
        await settle(pilot)
        await ask(pilot, "q4")
        await settle(pilot)
        assert pipe.web_allowed == [False, True, True, True]
        assert Settings.load().web.web_search == "always"
        assert app.privacy == "always"


async def test_offline_never_asks_and_never_allows(tmp_path: Path) -> None:
    pipe = FakePipeline(web_query="anything")
    settings = Settings(models_dir=tmp_path / "models", offline=True, web_search="always")
    app, _, _ = make_app(tmp_path, pipeline=pipe, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.privacy == "offline"
        await ask(pilot, "q")
        await settle(pilot)
        assert pipe.web_allowed == [False]
        assert not isinstance(app.screen, WebConsentModal)


async def test_follow_up_passes_history_and_shows_the_rewritten_question(tmp_path: Path) -> None:
    def script(q: str) -> list:
        return answer_events(
            q, rewritten="What is deep learning used for?" if q == "and it?" else None
        )

    pipe = FakePipeline(script)
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        await ask(pilot, "and it?")
        await settle(pilot)
        assert pipe.calls[0]["history"] == []
        assert pipe.calls[1]["history"][0][0] == "what is ai?"
        assert app.screen.query_one(TracePanel).state.rewritten == "What is deep learning used for?"
        assert app.backend.history.last().turns[1].rewritten == "What is deep learning used for?"


async def test_conversations_reopen_on_start_and_switch(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        first = app.backend.history.last().id
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert not app.screen.query(TurnView) and app.screen.query("#welcome")
        await ask(pilot, "second topic")
        await settle(pilot)
        assert len(app.backend.history.list()) == 2
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, ConversationsModal)
        listing = app.screen.query_one(OptionList)
        listing.highlighted = [listing.get_option_at_index(i).id for i in range(2)].index(first)
        await pilot.press("enter")
        await settle(pilot)
        assert [v.question for v in app.screen.query(TurnView)] == ["what is ai?"]
    # a damaged file is listed by name, cannot be opened, and can be deleted
    (app.backend.history.root / "broken.json").write_text("{not json", encoding="utf-8")
    app3, _, _ = make_app(tmp_path)
    async with app3.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        listing = app3.screen.query_one(OptionList)
        labels = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert len(labels) == 3 and "broken.json" in labels[2] and "damaged" in labels[2]
        listing.highlighted = 2
        await pilot.press("enter")  # not opened: says which file and what to do
        await pilot.pause()
        assert isinstance(app3.screen, ConversationsModal)
        assert any(
            "broken.json" in n.message and "delete it" in n.message for n in app3._notifications
        )
        await pilot.press("d")
        await pilot.pause()
        assert (
            not (app3.backend.history.root / "broken.json").exists() and listing.option_count == 2
        )
    # a new app reopens the last conversation, with working citations
    app2, _, _ = make_app(tmp_path)
    async with app2.run_test(size=SIZE) as pilot:
        await settle(pilot)
        views = list(app2.screen.query(TurnView))
        assert len(views) == 1 and {n: e.chunk_id for n, e in views[0].evidence.items()} == {
            1: "c1",
            2: "c2",
        }
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert isinstance(app2.screen, PassageModal) and app2.screen.chunk.chunk_id == "c1"


async def test_settings_validate_inline_and_save_to_toml(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        top_k = screen.query_one("#field-top_k", Input)
        top_k.value = "0"
        await pilot.pause()
        error = screen.query_one("#error-top_k")
        assert error.display and "greater than or equal to 1" in str(error.render())
        await pilot.press("ctrl+s")  # refused: stays on settings with the error
        await pilot.pause()
        assert not Settings.load().retrieval.top_k == 0
        top_k.value = "8"
        screen.query_one("#field-lower_threshold", Input).value = "0.9"
        await pilot.pause()
        assert screen.query_one("#error-lower_threshold").display
        screen.query_one("#field-lower_threshold", Input).value = "0.3"
        screen.query_one("#field-web_search", Select).value = "never"
        screen.query_one("#field-offline", Checkbox).value = True
        await pilot.pause()
        assert not screen.query_one("#error-top_k").display
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = Settings.load()
        assert (
            saved.retrieval.top_k,
            saved.evaluator.lower_threshold,
            saved.web.web_search,
            saved.web.offline,
        ) == (
            8,
            0.3,
            "never",
            True,
        )
        assert app.settings.retrieval.top_k == 8 and app.privacy == "offline"
        descriptions = [str(s.render()) for s in screen.query(".field-help")]
        assert field("top_k").info.description in descriptions


async def test_changing_the_generator_reloads_models(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for name in ("a.gguf", "b.gguf"):
        (models / name).write_bytes(b"GGUF" + b"\0" * 16)
    pipe = FakePipeline()
    app, _, _ = make_app(
        tmp_path, pipeline=pipe, settings=Settings(models_dir=models, generator="a.gguf")
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        select = app.screen.query_one("#field-generator", Select)
        assert {str(o[1]) for o in select._options} >= {"a.gguf", "b.gguf"}
        select.value = "b.gguf"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pipe.warmed == 2 and Settings.load().models.generator == "b.gguf"


async def test_missing_models_show_what_to_do_and_the_app_survives(tmp_path: Path) -> None:
    pipe = FakePipeline(
        warm_error=ModelMissing("model file not found: x.gguf", "run `make models`")
    )
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.model_state == "error"
        assert isinstance(app.screen, MessageModal) and "make models" in app.screen.message
        await pilot.press("enter")
        assert isinstance(app.screen, ChatScreen)


@pytest.mark.parametrize(
    "error, expected",
    [
        (
            LocalcragError("nothing has been ingested yet", "add documents"),
            "nothing has been ingested yet",
        ),
        (
            RuntimeError("boom\nsecond line"),
            "unexpected error: RuntimeError: boom (set LOCALCRAG_DEBUG=1",
        ),
    ],
)
async def test_errors_in_a_run_become_one_line_notifications(
    tmp_path: Path, error: Exception, expected: str
) -> None:
    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(run_error=error))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "q")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any(m.startswith(expected) for m in messages), messages
        assert "Traceback" not in " ".join(messages)
        assert chat(app).run is None  # ready for the next question
        await ask(pilot, "again")
        await settle(pilot)
        assert app.is_running


async def test_web_error_is_notified(tmp_path: Path) -> None:
    def script(q: str) -> list:
        events = answer_events(q, action=Action.AMBIGUOUS)
        events.insert(-3, ev.WebError("ai", "the search timed out after 5 s"))
        return events

    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(script))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "q")
        await settle(pilot)
        assert any("timed out" in n.message for n in app._notifications)
        assert app.screen.query_one(TracePanel).state.web_error == "the search timed out after 5 s"


async def test_help_lists_every_binding(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, ChatScreen)
    listed = {keys for _, rows in binding_rows(LocalcragApp) for keys, _ in rows}
    settings_help = " ".join(
        text for _, rows in binding_rows(LocalcragApp) for keys, text in rows if keys == "ctrl+s"
    )
    assert (
        "Model server" in settings_help
        and "OCR" in settings_help
        and "Limits per file" in settings_help
    )
    for cls in (LocalcragApp, ChatScreen, LibraryScreen, SettingsScreen):
        for b in cls.BINDINGS:
            assert any(
                b.key.split(",")[0].replace("escape", "esc").replace("delete", "del") in k
                for k in listed
            ), b.key


def test_link_citations_only_links_known_numbers() -> None:
    assert link_citations("a [1] b [9]", [1, 2]) == "a [\\[1\\]](cite:1) b \\[9]"


def test_importing_the_app_is_light() -> None:
    code = (
        "import sys, time; t = time.perf_counter(); import localcrag.tui.app; "
        "print(round(time.perf_counter() - t, 2), sorted(m for m in "
        "['torch', 'sentence_transformers', 'llama_cpp', 'lancedb', 'pymupdf', 'fitz', 'ddgs'] "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, heavy = out.stdout.split(" ", 1)
    assert heavy.strip() == "[]"


async def test_short_answers_sit_at_the_top_and_long_ones_stay_in_view(tmp_path: Path) -> None:
    long = " ".join(f"word{i}" for i in range(300)) + " [1]"
    pipe = FakePipeline(lambda q: answer_events(q, answer=long if q == "long" else "Short [1]."))
    app, _, _ = make_app(tmp_path, pipeline=pipe)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#conversation")
        await ask(pilot, "short")
        await settle(pilot)
        assert box.max_scroll_y == 0 and box.scroll_y == 0 and not box.is_anchored
        await ask(pilot, "long")
        await settle(pilot)
        assert box.max_scroll_y > 0 and box.scroll_y == box.max_scroll_y


async def test_a_damaged_last_conversation_does_not_stop_the_app(
    tmp_path: Path, home: Path
) -> None:
    app, _, _ = make_app(tmp_path)
    conv = app.backend.history.create()
    path = app.backend.history.root / f"{conv.id}.json"
    path.write_text(
        path.read_text().replace(
            '"turns": []', '"turns": [{"question": "q", "answer": "a", "action": "bogus"}]'
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.screen.query("#welcome")
        assert any("could not be reopened" in n.message for n in app._notifications)


def test_unexpected_errors_are_one_line_unless_debugging(monkeypatch: pytest.MonkeyPatch) -> None:
    from localcrag.errors import describe_error

    try:
        raise KeyError("chunk")
    except KeyError as exc:
        monkeypatch.delenv("LOCALCRAG_DEBUG", raising=False)
        line, details = describe_error(exc)
        assert details is None and "\n" not in line and "LOCALCRAG_DEBUG=1" in line
        monkeypatch.setenv("LOCALCRAG_DEBUG", "1")
        line, details = describe_error(exc)
        assert "Traceback" in details and "KeyError" in line


# --- defects found by a new-user test --------------------------------------------------------

PYDANTIC_LIKE = (
    "config.toml: 1 validation error for Settings\ntop_k\n  Input should be a valid integer "
    "[type=int_parsing, input_value='five', input_type=str] [/]"
)


@pytest.mark.parametrize(
    "toml",
    [
        'top_k = "five"\n',
        "upper_threshold = 0.3\nlower_threshold = 0.6\n",
        "top_k = [1, 2]\n",
        'top_k = 5\nretrieval_mode = "[bold]x"\n',
        "top_k = \n",
    ],
)
async def test_any_bad_settings_value_shows_the_dialog_never_a_markup_traceback(
    tmp_path: Path, home: Path, toml: str
) -> None:
    from localcrag.tui.app import load_settings

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(toml)
    settings, error = load_settings()
    assert error and "invalid settings" in error and settings == Settings()
    for message in (error, PYDANTIC_LIKE):  # whatever the core says, it is shown as plain text
        app, _, _ = make_app(tmp_path, settings_error=message)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert (
                isinstance(app.screen, MessageModal)
                and app.screen.title_text == "Settings file is invalid"
            )
            shown = " ".join(str(s.render()) for s in app.screen.query("Static"))
            assert message.splitlines()[-1] in shown
            await pilot.press("enter")
            assert isinstance(app.screen, ChatScreen) and app.is_running


async def test_passage_title_keeps_brackets_in_file_names(tmp_path: Path) -> None:
    from localcrag.types import Evidence

    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(PassageModal(Evidence(1, "some text", "/docs/a [v2].pdf", 3), None))
        await pilot.pause()
        title = str(app.screen.query_one(".dialog-title").render())
        assert "a [v2].pdf" in title


async def test_a_question_with_an_empty_library_points_to_keys_not_the_cli(tmp_path: Path) -> None:
    pipe = FakePipeline(
        run_error=EmptyIndex("no documents indexed yet", "add some first: localcrag ingest PATH")
    )
    app, _, _ = make_app(tmp_path, library=FakeLibrary(), pipeline=pipe)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        status = str(app.screen.query_one(TurnView).query_one(".turn-status").render())
        assert "ctrl+l" in status and "ctrl+g" in status and "localcrag ingest" not in status
        assert not any("localcrag ingest" in n.message for n in app._notifications)
        assert chat(app).run is None


async def test_no_network_shows_offline_in_the_status_bar_until_the_next_check(
    tmp_path: Path,
) -> None:
    from localcrag.crag.web import SKIP_DNS

    def script(q: str) -> list:
        events = answer_events(q, web="ai history" if q == "online" else None)
        if q == "offline":
            events = [
                ev.WebSkipped(SKIP_DNS) if isinstance(e, ev.WebSkipped) else e for e in events
            ]
        return events

    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(script))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.privacy == "ask first"
        await ask(pilot, "offline")
        await settle(pilot)
        assert app.privacy == "offline (no network)"
        assert "web: offline (no network)" in app.export_screenshot().replace("&#160;", " ")
        await ask(pilot, "not needed")
        await settle(pilot)
        assert app.privacy == "offline (no network)"  # no check this time: still offline
        await ask(pilot, "online")
        await settle(pilot)
        assert app.privacy == "ask first"


async def test_closing_a_passage_returns_to_the_question_box(tmp_path: Path) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await ask(pilot, "what is ai?")
        await settle(pilot)
        await pilot.press("ctrl+r", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PassageModal)
        await pilot.press("escape")
        await pilot.pause()
        question = app.screen.query_one("#question", Input)
        assert question.has_focus
        await pilot.press("w", "h", "y")
        assert question.value == "why"


def test_strip_sentences_rebuilds_the_grader_and_is_not_an_index_setting(tmp_path: Path) -> None:
    from localcrag.ingest.store import table_name
    from localcrag.tui.backend import LIBRARY_FIELDS, Backend
    from localcrag.tui.screens.settings import SECTIONS

    backend = Backend(
        Settings(models_dir=tmp_path),
        pipeline_factory=lambda s, lib: object(),
        library_factory=lambda s: FakeLibrary(),
    )
    backend.pipeline()
    assert backend.apply(Settings(models_dir=tmp_path, strip_sentences=3)) == {"strip_sentences"}
    assert backend._pipeline is None and backend._library is not None  # new grader, same index
    assert (
        "strip_sentences" not in LIBRARY_FIELDS
        and "strip_sentences" not in table_name.__code__.co_varnames
    )
    indexing = next(names for title, names in SECTIONS.items() if title.startswith("Indexing"))
    assert "strip_sentences" not in indexing


def test_trace_thresholds_before_a_question_are_the_settings_defaults() -> None:
    panel = TracePanel()
    assert (panel.upper, panel.lower) == (
        Settings().evaluator.upper_threshold,
        Settings().evaluator.lower_threshold,
    )
