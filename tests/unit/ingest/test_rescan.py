"""Re-scanning a library: unchanged files are recognised by size and mtime without being
read; changed ones (even with the same size) are hashed and re-indexed; progress has an ETA."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from localcrag.ingest import filestat, walk
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder


def _folder(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    old = time.time() - 3600  # well before the racy window
    for i in range(n):
        p = folder / f"note{i:03d}.txt"
        p.write_text(f"Note {i}: the pump in room {i} was serviced.\n", encoding="utf-8")
        os.utime(p, (old, old))
    return folder


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = walk.content_hash

    def spy(path: Path) -> str:
        calls.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(walk, "content_hash", spy)
    return calls


def test_unchanged_files_are_not_read_and_changed_ones_are(
    tmp_path: Path, hashed: list[str]
) -> None:
    folder = _folder(tmp_path, 30)
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert len(lib.ingest([folder]).indexed) == 30 and len(hashed) == 30
    hashed.clear()
    report = lib.ingest([folder], prune=True)
    assert len(report.unchanged) == 30 and hashed == []  # size and mtime: nothing read
    same_size = folder / "note005.txt"
    same_size.write_text(same_size.read_text().replace("pump", "PUMP"), encoding="utf-8")
    (folder / "note007.txt").unlink()
    report = lib.ingest([folder], prune=True)
    assert hashed == ["note005.txt"] and [Path(p).name for p in report.indexed] == ["note005.txt"]
    assert [Path(p).name for p in report.removed] == ["note007.txt"]
    hits = lib.store.search("PUMP room 5", None, 3, "text")
    assert "PUMP" in hits[0].chunk.text


def test_a_file_changed_in_the_same_tick_as_its_record_is_hashed(tmp_path: Path) -> None:
    p = tmp_path / "a.txt"
    p.write_text("x", encoding="utf-8")
    stats = filestat.FileStats(tmp_path / "s.json")
    stats.record(str(p), p.stat(), "h")  # recorded right after a write: racy
    assert stats.known_hash(str(p), p.stat()) is None
    stats.entries[str(p)][3] += 10  # as if recorded 10 s after the write
    assert stats.known_hash(str(p), p.stat()) == "h"
    stats.save({str(p)})
    assert filestat.FileStats(tmp_path / "s.json").known_hash(str(p), p.stat()) == "h"


def test_progress_reports_rate_and_eta(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 12)
    seen = []
    Library(Settings(), embedder=FakeEmbedder()).ingest([folder], on_progress=seen.append)
    done = [p for p in seen if p.stage == "indexed"]
    assert done and all(p.files_per_s > 0 for p in done)
    assert done[-1].eta_s == 0 and any(p.eta_s and p.eta_s > 0 for p in done[:-1])


def test_sources_lists_filtered_and_limited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import json

    from localcrag.cli import main as cli

    folder = _folder(tmp_path, 12)
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([folder])
    args = cli.build_parser(cli.Backends(library=lambda s: lib)).parse_args(
        ["sources", "--json", "--filter", "note01", "--limit", "2"]
    )
    assert cli.cmd_sources(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == 12 and out["matching"] == 2 and len(out["sources"]) == 2
    assert all("note01" in s["source"] and s["chunks"] == 1 for s in out["sources"])
