"""Named libraries: each its own index, history and settings under the data dir, chosen by
``--library`` / ``LOCALCRAG_LIBRARY``; the default library is the data dir as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localcrag.errors import LocalcragError
from localcrag.settings import Settings


def test_a_named_library_keeps_its_own_index_history_and_settings(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from localcrag.cli.main import main
    from localcrag.ingest.library import Library
    from tests.support.fakes import FakeEmbedder

    (isolated_home / "config.toml").write_text("[retrieval]\ntop_k = 7\n", encoding="utf-8")
    default = Settings.load()
    assert default.index_dir == isolated_home / "index"  # as it always was
    assert main(["libraries", "create", "work"]) == 0
    monkeypatch.setenv("LOCALCRAG_LIBRARY", "work")
    work = Settings.load()
    assert work.index_dir == isolated_home / "libraries" / "work" / "index"
    assert work.history_dir == isolated_home / "libraries" / "work" / "history"
    assert work.retrieval.top_k == 7  # it started with a copy of the default's settings ...
    work.merged({"top_k": 3}).save()
    assert Settings.load().retrieval.top_k == 3  # ... which are its own from then on
    docs = isolated_home.parent / "docs"
    docs.mkdir()
    (docs / "w.txt").write_text("Work notes: the budget is 12.\n", encoding="utf-8")
    Library(Settings.load(), embedder=FakeEmbedder()).ingest([docs / "w.txt"])
    monkeypatch.delenv("LOCALCRAG_LIBRARY")
    assert Settings.load().retrieval.top_k == 7
    assert Library(Settings.load(), embedder=FakeEmbedder()).sources() == []  # not in default
    capsys.readouterr()
    assert main(["libraries", "--json"]) == 0
    listed = {x["name"]: x for x in json.loads(capsys.readouterr().out)["libraries"]}
    assert listed["work"]["documents"] == 1 and listed["default"]["current"]
    assert main(["libraries", "remove", "work"]) == 1  # no terminal to ask: --yes needed
    assert main(["libraries", "remove", "work", "--yes"]) == 0
    assert not (isolated_home / "libraries" / "work").exists() and docs.exists()


def test_a_library_that_does_not_exist_or_a_bad_name_is_one_line(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from localcrag.cli.main import main

    monkeypatch.setenv("LOCALCRAG_LIBRARY", "nope")
    with pytest.raises(LocalcragError, match="no library named 'nope'"):
        Settings.load()
    monkeypatch.setenv("LOCALCRAG_LIBRARY", "../escape")
    with pytest.raises(LocalcragError, match="is not a library name"):
        Settings.load()
    monkeypatch.setenv("LOCALCRAG_LIBRARY", "")  # --library sets it for the process: restored
    assert main(["--library", "nope", "sources"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "libraries create nope" in err[0]
    assert main(["libraries", "remove", "default", "--yes"]) == 1


def test_the_app_offers_the_other_libraries_and_reopens_in_the_chosen_one(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from localcrag.cli.main import main
    from localcrag.tui import app as app_module

    assert main(["libraries", "create", "work"]) == 0
    seen: list[str | None] = []  # LOCALCRAG_LIBRARY as each app opened

    class Recorded:
        def __init__(self, settings: Settings, settings_error: str | None = None) -> None:
            import os

            seen.append(os.environ.get("LOCALCRAG_LIBRARY"))
            self.index_dir = settings.index_dir
            self.switch_to = "work" if len(seen) == 1 else None
            self.return_code = 0

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "LocalcragApp", Recorded)
    monkeypatch.setenv("LOCALCRAG_LIBRARY", "")  # run() sets it for the process: restored
    assert app_module.run() == 0
    assert seen == ["", "work"]
