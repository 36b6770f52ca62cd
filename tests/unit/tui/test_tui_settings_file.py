"""The app after a settings file it could not use: it runs on defaults and never replaces
the user's file; a save writes only what changed, keeps a .bak, and says so."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input

from localcrag.settings import backup_path, config_path
from localcrag.tui.app import load_settings
from localcrag.tui.modals import WebConsentModal
from localcrag.tui.screens.settings import SettingsScreen
from tests.support.tui_fakes import (
    SIZE,
    FakePipeline,
    ask,
    make_app,
    settle,
    until,
)

pytestmark = pytest.mark.anyio


def _start(tmp_path: Path, home: Path, toml: str):  # noqa: ANN202
    home.mkdir(parents=True, exist_ok=True)
    config_path().write_text(toml, encoding="utf-8")
    settings, error = load_settings()
    assert error
    settings.models.models_dir = tmp_path / "models"
    pipe = FakePipeline(web_query="history of artificial intelligence")
    app, _, _ = make_app(tmp_path, pipeline=pipe, settings=settings, settings_error=error)
    return app


async def _always(app, pilot) -> None:  # noqa: ANN001
    await settle(pilot)
    await pilot.press("enter")  # close the "Settings file is invalid" dialog
    await ask(pilot, "q1")
    await until(pilot, lambda: isinstance(app.screen, WebConsentModal))
    await pilot.press("a")  # always: remembered
    await settle(pilot)


async def test_web_choice_after_a_toml_error_leaves_the_file_alone(
    tmp_path: Path, home: Path
) -> None:
    broken = "top_k = [oops\nmodels_dir = '/my/models'\n"
    app = _start(tmp_path, home, broken)
    async with app.run_test(size=SIZE) as pilot:
        await _always(app, pilot)
        assert config_path().read_text(encoding="utf-8") == broken
        assert not backup_path(config_path()).exists()
        notes = [n.message for n in app._notifications]
        assert any(str(config_path()) in n and "not saved" in n and "fix it" in n for n in notes), (
            notes
        )
        assert app.settings.web.web_search == "always"  # for this session


async def test_web_choice_after_a_bad_value_saves_only_that_key(tmp_path: Path, home: Path) -> None:
    invalid = 'top_k = "five"\nthreads = 2\n'
    app = _start(tmp_path, home, invalid)
    async with app.run_test(size=SIZE) as pilot:
        await _always(app, pilot)
        data = tomllib.loads(config_path().read_text(encoding="utf-8"))
        assert data == {  # the older file's flat keys moved into their tables, values kept
            "retrieval": {"top_k": "five"},
            "web": {"web_search": "always"},
            "generation": {"threads": 2},
        }
        assert backup_path(config_path()).read_text(encoding="utf-8") == invalid
        notes = [n.message for n in app._notifications]
        assert any("Saved web_search to" in n and "config.toml.bak" in n for n in notes), notes


async def test_settings_screen_saves_only_the_changed_fields(tmp_path: Path, home: Path) -> None:
    app = _start(tmp_path, home, 'top_k = "five"\n# mine\n')
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.press("ctrl+s")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#field-web_results", Input).value = "6"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        data = tomllib.loads(config_path().read_text(encoding="utf-8"))
        assert data == {"retrieval": {"top_k": "five"}, "web": {"web_results": 6}}
