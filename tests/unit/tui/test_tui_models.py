"""The Models screen: lists, a pull with its progress bar against the fake hub, offline, and the
settings screen seeing the pulled file and saying what the generator will be used for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localcrag.history import History
from localcrag.settings import Settings
from localcrag.tui.app import LocalcragApp
from localcrag.tui.screens.models import ModelsScreen, PullUpdate
from tests.support.fakehub import SMOL, SPEC, FakeHub
from tests.support.tui_fakes import FROZEN, FakeLibrary, FakePipeline, settle

pytestmark = pytest.mark.anyio


def _app(models: Path, offline: bool = False) -> LocalcragApp:
    (models / "all-MiniLM-L6-v2").mkdir(parents=True, exist_ok=True)
    (models / "all-MiniLM-L6-v2" / "modules.json").write_text("[]")
    (models / "my-chat-model.gguf").write_bytes(b"GGUF" + b"\0" * 16)
    settings = Settings(models_dir=models, offline=offline, generator="my-chat-model.gguf")
    pipeline = FakePipeline()
    return LocalcragApp(
        settings,
        pipeline_factory=lambda s, lib: pipeline,
        library_factory=lambda s: FakeLibrary(),
        network_probe=lambda: True,
        demo_library_factory=lambda s, user: FakeLibrary(chunks=()),
        history=History(settings.history_dir, clock=lambda: FROZEN),
    )


async def _pull(pilot, spec: str) -> None:
    await pilot.press("f3")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ModelsScreen)
    pilot.app.screen.query_one("#pull-spec").value = spec
    pilot.app.screen.query_one("#pull-spec").focus()
    await pilot.press("enter")
    await settle(pilot)  # waits for the pull worker and the messages it posted


async def test_pull_from_the_models_screen_shows_progress_and_lists_the_model(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert os.environ["HF_ENDPOINT"] == hub.url and hub.url.startswith("http://127.0.0.1:")
    seen: list[tuple[int, int | None, str]] = []
    original = ModelsScreen.on_pull_update

    def record(self: ModelsScreen, msg: PullUpdate) -> None:
        seen.append((msg.done, msg.total, msg.stage))
        original(self, msg)

    monkeypatch.setattr(ModelsScreen, "on_pull_update", record)
    models = tmp_path / "models"
    app = _app(models)
    async with app.run_test(size=(120, 40)) as pilot:
        await _pull(pilot, SPEC)
        screen = pilot.app.screen
        status = str(screen.query_one("#pull-status").render())
        assert status.startswith(f"saved {SMOL.name}") and "verified" in status, status
        assert (models / SMOL.name).read_bytes() == SMOL.read_bytes()
        size = SMOL.stat().st_size
        assert seen[-1] == (size, size, "verify")
        assert any(stage == "download" and 0 < done < size for done, _, stage in seen)
        table = screen.query_one("#local-models")
        row = table.get_row(SMOL.name)
        assert row[3] == "135M" and row[4] == "8192" and row[5] == "yes"
        # the settings screen, opened after the pull, offers it and says what it would do
        await pilot.press("ctrl+s")
        await settle(pilot)
        select = pilot.app.screen.query_one("#field-generator")
        select.value = SMOL.name
        await settle(pilot)
        choices = str(pilot.app.screen.query_one("#model-choices").render())
        assert "quoted from the documents" in choices and "135M parameters" in choices
        assert "measured at chance with SmolLM2-135M-Instruct" in " ".join(choices.split())


async def test_pull_offline_is_one_line_and_sends_nothing(hub: FakeHub, tmp_path: Path) -> None:
    app = _app(tmp_path / "models", offline=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await _pull(pilot, "qwen2.5-1.5b")
        status = str(pilot.app.screen.query_one("#pull-status").render())
        assert status.startswith("offline: not pulling") and "\n" not in status
    assert hub.requests == []


async def test_c_stops_a_pull_and_the_next_pull_resumes_it(hub: FakeHub, tmp_path: Path) -> None:
    from tests.support.tui_fakes import until

    hub.throttle = 0.05  # ~5 s for the whole file: time to press c
    models = tmp_path / "models"
    part = models / f".{SMOL.name}.part"
    app = _app(models)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        screen = pilot.app.screen
        screen.start_pull(SPEC)
        await until(pilot, lambda: part.is_file() and part.stat().st_size > 0)
        screen.query_one("#catalogue").focus()
        await pilot.press("c")
        await settle(pilot)
        status = str(screen.query_one("#pull-status").render())
        assert status.startswith("pull cancelled; the partial file is kept"), status
        kept = part.stat().st_size
        assert 0 < kept < SMOL.stat().st_size and not (models / SMOL.name).exists()
        hub.throttle = 0.0
        screen.start_pull(SPEC)
        await settle(pilot)
        assert str(screen.query_one("#pull-status").render()).startswith(f"saved {SMOL.name}")
    assert hub.gets()[-1][2] == f"bytes={kept}-"
    assert (models / SMOL.name).read_bytes() == SMOL.read_bytes()


async def test_typing_a_name_on_the_models_screen_filters_the_catalogue(tmp_path: Path) -> None:
    """Typing before Tab did nothing: the keys now go to the name field, which
    filters the catalogue as it is typed; p and c keep their meaning."""
    app = _app(tmp_path / "models")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        table = pilot.app.screen.query_one("#catalogue")
        everything = table.row_count
        await pilot.press("l", "l", "a")
        await settle(pilot)
        assert pilot.app.screen.query_one("#pull-spec").value == "lla"
        names = [str(k.value) for k in table.rows]
        assert 0 < len(names) < everything and all("lla" in n.lower() for n in names), names
