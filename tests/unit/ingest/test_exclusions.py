"""A document the user removed stays out of folder ingests and watched folders until the
user ingests that file by name (ingest/exclusions.py)."""

from __future__ import annotations

from pathlib import Path

from localcrag.ingest.library import Library
from localcrag.ingest.watch import apply
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder


def test_a_removed_file_stays_out_until_it_is_ingested_by_name(
    isolated_home: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (docs / name).write_text(f"The {name[0]} value is {ord(name[0])}.\n", encoding="utf-8")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([docs])
    b, c = str((docs / "b.txt").resolve()), str((docs / "c.txt").resolve())
    assert lib.remove(b, keep_out=True) == 1
    (docs / "c.txt").unlink()
    assert lib.remove(c, keep_out=True) == 1  # its file is gone: nothing to keep out
    assert lib.exclusions.sources == {b}
    again = lib.ingest([docs], prune=True)  # a folder's ingest, as a watcher's catch-up runs it
    assert again.excluded == [b] and b not in {s.source for s in lib.sources()}
    (docs / "b.txt").write_text("The b value is now 99.\n", encoding="utf-8")
    burst = apply(lib, [(2, str(docs / "b.txt"))], [docs.resolve()])  # saved in a watched folder
    assert burst.excluded == [b] and b not in {s.source for s in lib.sources()}
    named = lib.ingest([docs / "b.txt"])  # the user names it: it comes back, for good
    assert named.indexed == [b] and lib.exclusions.sources == set()
    assert lib.ingest([docs]).excluded == []
    lib.remove(b)  # removed by a program, not the user (a watcher's deletion): nothing kept out
    assert lib.exclusions.sources == set()
