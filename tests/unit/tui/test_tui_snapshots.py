"""SVG snapshots of each screen (pytest-textual-snapshot). Update with --snapshot-update.

Deterministic: fixed terminal size, fakes with frozen times and timings, no cursor blink,
no notifications, and a models/ folder and file browser with fixed contents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytest_textual_snapshot")

from textual.widgets import Input  # noqa: E402

from localcrag.history import History  # noqa: E402
from localcrag.settings import Settings  # noqa: E402
from localcrag.tui.app import LocalcragApp  # noqa: E402
from tests.support.tui_fakes import FROZEN, FakeLibrary, FakePipeline, ask, demo_sources, settle  # noqa: E402

SIZE = (110, 34)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalcragApp:
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # models_dir on the settings screen reads "models", not a tmp path
    models = Path("models")
    (models / "all-MiniLM-L6-v2").mkdir(parents=True)
    (models / "all-MiniLM-L6-v2" / "modules.json").write_text("[]")
    (models / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF" + b"\0" * 16)
    papers = tmp_path / "papers"
    (papers / "notes").mkdir(parents=True)
    for name in ("AI_Information.pdf", "crag.md", "notes/reading.txt"):
        (papers / name).write_text("x")
    settings = Settings(models_dir=models)
    library = FakeLibrary(demo_sources())
    pipeline = FakePipeline()
    return LocalcragApp(
        settings,
        pipeline_factory=lambda s, lib: pipeline,
        library_factory=lambda s: library,
        browse_root=papers,
        network_probe=lambda: True,
        demo_library_factory=lambda s, user: FakeLibrary(chunks=()),
        history=History(settings.history_dir, clock=lambda: FROZEN),
    )


async def _steady(pilot) -> None:
    await settle(pilot)
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    pilot.app.clear_notifications()
    await pilot.pause()


def test_chat_with_a_finished_answer_and_trace(snap_compare, app: LocalcragApp) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await ask(pilot, "What is artificial intelligence?")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_library(snap_compare, app: LocalcragApp) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_settings(snap_compare, app: LocalcragApp) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_settings_offline_checkbox_at_160_columns(snap_compare, app: LocalcragApp) -> None:
    """The offline switch in plain characters ("[ ] off"), where half-block glyphs broke."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        pilot.app.screen.query_one("#field-offline").focus()
        await _steady(pilot)

    assert snap_compare(app, terminal_size=(160, 40), run_before=run_before)


def test_settings_index_location_with_a_bad_value(snap_compare, app: LocalcragApp) -> None:
    """The groups added late (index location, OCR), one refused value marked under its field."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        pilot.app.screen.query_one("#field-index_uri", Input).value = "ftp://files/team"
        pilot.app.screen.query_one("#field-index_refresh_seconds").focus()
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare, app: LocalcragApp) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_web_consent_dialog(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    pipeline = FakePipeline(web_query="history of artificial intelligence Dartmouth")
    app = LocalcragApp(
        Settings(models_dir=tmp_path / "models"),
        pipeline_factory=lambda s, lib: pipeline,
        library_factory=lambda s: FakeLibrary(demo_sources()),
        browse_root=tmp_path,
        network_probe=lambda: True,
        demo_library_factory=lambda s, user: FakeLibrary(chunks=()),
        history=History(tmp_path / "history", clock=lambda: FROZEN),
    )

    async def run_before(pilot) -> None:
        from localcrag.tui.modals import WebConsentModal
        from tests.support.tui_fakes import until

        await settle(pilot)
        await ask(pilot, "Who coined the term?")
        await until(pilot, lambda: isinstance(pilot.app.screen, WebConsentModal))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    app.exit()


def test_chat_with_a_quoted_answer(snap_compare, tmp_path: Path, app: LocalcragApp) -> None:
    from tests.support.tui_fakes import answer_events

    quote = (
        "Artificial intelligence (AI) is the **simulation of human intelligence** by machines [1]. "
        "Deep learning uses neural networks with many layers [2]."
    )
    app.backend.pipeline_factory = lambda s, lib: FakePipeline(
        lambda q: answer_events(q, answer=quote, style="extractive")
    )

    async def run_before(pilot) -> None:
        await settle(pilot)
        await ask(pilot, "What is artificial intelligence?")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_models(snap_compare, app: LocalcragApp) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("f3")
        await _steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
