"""Pilot test of the app's library switcher (the command palette's "Library: NAME")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tui_fakes import (
    SIZE,
    make_app,
    settle,
)

pytestmark = pytest.mark.anyio


async def test_the_palette_offers_each_other_library_and_choosing_one_closes_to_reopen(
    tmp_path: Path, home: Path
) -> None:
    from localcrag.settings.paths import libraries_dir

    (libraries_dir() / "work" / "index").mkdir(parents=True)
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        offered = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Library: work" in offered and "Library: default" not in offered  # in use
        offered["Library: work"].callback()
        await pilot.pause()
    assert app.switch_to == "work"
