"""The app end to end with the real models: ingest the shared AI PDF, ask, get a cited answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.settings import Settings
from localcrag.tui.app import LocalcragApp
from localcrag.tui.widgets.answer import TurnView
from localcrag.tui.widgets.trace import TracePanel
from tests.support import REPO
from tests.support.tui_fakes import ask, settle

PDF = REPO.parent / "shared" / "data" / "ai-information" / "AI_Information.pdf"
pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_real_models_ingest_ask_and_cite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not PDF.exists():
        pytest.skip(f"shared data not found: {PDF}")
    monkeypatch.setenv("LOCALCRAG_HOME", str(tmp_path / "home"))
    settings = Settings(offline=True)  # the guarantee under test too: nothing leaves the machine
    if (
        not settings.model_path(settings.models.embedder).exists()
        or not settings.model_path(settings.models.generator).exists()
    ):
        pytest.skip("models/ not provisioned (run `make models`)")
    app = LocalcragApp(settings, browse_root=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.model_state == "ready", app.model_error
        assert app.start_ingest([PDF])
        await settle(pilot)
        assert [Path(s.source).name for s in app.sources] == ["AI_Information.pdf"]
        assert app.ingest_report is not None and not app.ingest_report.failed
        await ask(pilot, "What is machine learning?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert view.done and len(view.text) > 20
        trace = app.screen.query_one(TracePanel).state
        assert trace.hits and trace.decision is not None and trace.done
        assert trace.web_query is None or trace.web_skipped  # offline: no query was sent
        turn = app.backend.history.last().turns[0]
        assert turn.answer == view.text
        if view.evidence:  # open the first source: the passage comes from the real index
            await pilot.press("ctrl+r", "enter")
            await pilot.pause()
            assert app.screen.__class__.__name__ == "PassageModal"
