"""Watched folders: real watchfiles, real LanceDB, fake embedder. Every
wait polls a condition with a deadline (never a fixed sleep); the deadlines are the targets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("watchfiles")

from localcrag.ingest.library import Library  # noqa: E402
from localcrag.ingest.watch import WatchService, load_watched, plan, watch  # noqa: E402
from localcrag.settings import Settings  # noqa: E402
from tests.support.fakes import FakeEmbedder  # noqa: E402


def wait_for(cond: Callable[[], bool], deadline_s: float) -> float:
    """Seconds until ``cond()`` held; fails at the deadline."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        if cond():
            return time.monotonic() - t0
        time.sleep(0.05)
    raise AssertionError(f"not true within {deadline_s} s")


def searchable(reader: Library, phrase: str) -> bool:
    """A separate Library (another process's view) finds the phrase by full-text search."""
    reader.refresh()
    if not reader.store.exists():
        return False
    return any(phrase in h.chunk.text for h in reader.store.search(phrase, None, 5, mode="text"))


def sources(reader: Library) -> set[str]:
    reader.refresh()
    return {Path(s.source).name for s in reader.sources()} if reader.store.exists() else set()


@pytest.fixture
def watched(tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "old.md").write_text("# Old\n\nThe lighthouse keeper is called Ada.\n")
    lib = Library(Settings(), embedder=FakeEmbedder())
    reports: list = []
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch, args=(lib, [folder], reports.append, stop, ready), daemon=True
    )
    thread.start()
    assert ready.wait(30), "the watcher never caught up"
    yield folder, Library(Settings(), embedder=FakeEmbedder()), reports
    stop.set()
    thread.join(10)
    assert not thread.is_alive()


def test_catch_up_then_create_change_move_delete_each_within_5_s(watched) -> None:
    folder, reader, reports = watched
    assert sources(reader) == {"old.md"} and reports[0].indexed  # the catch-up ingest
    (folder / "pets.md").write_text("# Pets\n\nThe office cat is called Miso.\n")
    wait_for(lambda: searchable(reader, "Miso"), 5)
    (folder / "pets.md").write_text("# Pets\n\nThe office cat is called Pumpkin.\n")
    wait_for(lambda: searchable(reader, "Pumpkin") and not searchable(reader, "Miso"), 5)
    (folder / "pets.md").rename(folder / "animals.md")
    wait_for(lambda: sources(reader) == {"old.md", "animals.md"}, 5)
    (folder / "animals.md").unlink()
    wait_for(lambda: not searchable(reader, "Pumpkin") and sources(reader) == {"old.md"}, 5)


def test_editor_style_save_and_ignored_files(watched) -> None:
    folder, reader, reports = watched
    tmp = folder / ".old.md.swp"  # a hidden temp file, renamed over the document (atomic save)
    tmp.write_text("# Old\n\nThe lighthouse keeper is called Grace.\n")
    (folder / "notes.odt").write_text("not a supported type")
    tmp.replace(folder / "old.md")
    wait_for(lambda: searchable(reader, "Grace"), 5)
    assert not any(r.failed for r in reports) and sources(reader) == {"old.md"}


def test_a_folder_moved_in_and_out(watched, tmp_path: Path) -> None:
    folder, reader, _ = watched
    outside = tmp_path / "trip"
    outside.mkdir()
    (outside / "plan.txt").write_text("The ferry to the island leaves at noon.")
    outside.rename(folder / "trip")
    wait_for(lambda: "plan.txt" in sources(reader), 5)
    (folder / "trip").rename(tmp_path / "trip-done")
    wait_for(lambda: sources(reader) == {"old.md"}, 5)


def test_plan_filters_and_splits(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / ".git").mkdir(parents=True)
    (root / "a.md").write_text("x")
    (root / ".git" / "b.md").write_text("x")
    (root / "c.odt").write_text("x")
    changes = [
        (1, str(root / "a.md")),
        (1, str(root / ".git" / "b.md")),
        (1, str(root / "c.odt")),
        (3, str(root / "gone.md")),
        (1, str(tmp_path / "elsewhere.md")),
    ]
    add, gone = plan(changes, [root])
    assert add == [(root / "a.md").resolve()] and gone == [root / "gone.md"]


def test_the_watch_service_saves_its_folders(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    lib = Library(Settings(), embedder=FakeEmbedder())
    reports, errors = [], []
    svc = WatchService(lambda: lib, tmp_path / "index", reports.append, errors.append)
    assert svc.toggle(folder) is True and load_watched(tmp_path / "index") == [folder.resolve()]
    assert svc.watching(folder / "a.md") and not svc.watching(tmp_path / "b.md")
    (folder / "a.md").write_text("The ferry leaves at noon.")
    wait_for(lambda: any(r.indexed for r in reports), 10)
    assert svc.toggle(folder) is False and load_watched(tmp_path / "index") == [] and not errors
    svc.stop()
