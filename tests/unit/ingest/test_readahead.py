"""Files parsed on a reader thread ahead of the embedding: same index, same order, bounded,
errors and cancels where they were."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from localcrag.ingest import library as library_module
from localcrag.ingest.library import Library
from localcrag.ingest.readahead import ReadAhead, Stopped
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder


def test_results_come_in_order_and_the_reader_stays_within_its_depth() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def work(i: int) -> int:
        with lock:
            started.append(i)
        return i * i

    reader = ReadAhead(range(50), work, depth=3)
    got = []
    with reader:
        for n, value in enumerate(reader):
            with lock:  # queued (3) + one waiting to be queued, beyond the ones taken
                assert len(started) <= n + 1 + 3 + 1
            got.append(value)
    assert got == [i * i for i in range(50)]


def test_a_keyboard_interrupt_in_the_reader_reaches_the_consumer() -> None:
    def work(i: int) -> int:
        if i == 2:
            raise KeyboardInterrupt
        return i

    reader = ReadAhead(range(5), work)
    got = []
    with pytest.raises(KeyboardInterrupt), reader:
        got.extend(reader)
    assert got == [0, 1]


def test_a_consumer_that_leaves_stops_the_reader() -> None:
    release, seen = threading.Event(), threading.Event()
    checks: list[str] = []

    def work(i: int) -> int:
        if i == 1:
            seen.set()
            release.wait(10)
            try:
                reader.check()  # what the reader's progress callback does at each page
            except Stopped:
                checks.append("stopped")
                raise
        return i

    reader = ReadAhead(range(100), work, depth=1)
    with pytest.raises(RuntimeError), reader:
        for _ in reader:
            assert seen.wait(10)
            raise RuntimeError("the consumer failed")
    release.set()
    reader._thread.join(10)
    assert not reader._thread.is_alive()
    assert checks == ["stopped"]


def _files(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for i in range(n):
        p = folder / f"note{i:02d}.md"
        p.write_text(
            f"# Note {i}\n\n" + f"Paragraph about topic {i} and its details. " * (5 + 3 * i),
            encoding="utf-8",
        )
        paths.append(p)
    return paths


def test_files_parsed_on_the_reader_give_the_index_of_files_read_in_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows, their order of commit and their vectors as each file's own chunks embedded
    alone; parsing ran on the reader thread; a bad file among them is one failure line."""
    paths = _files(tmp_path / "docs", 12)
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf")
    threads: set[str] = set()
    real = Library._chunk_file

    def chunk_file(self, path, doc_hash, on_page=None):  # noqa: ANN001, ANN202
        threads.add(threading.current_thread().name)
        return real(self, path, doc_hash, on_page)

    monkeypatch.setattr(Library, "_chunk_file", chunk_file)
    monkeypatch.setattr(library_module, "EMBED_BATCH_CHUNKS", 8)  # several commit rounds
    monkeypatch.setattr(library_module, "EMBED_AHEAD_CHUNKS", 2)  # and embedding ahead
    emb = FakeEmbedder()
    lib = Library(Settings(), embedder=emb)
    stages: list[tuple[str, str]] = []
    report = lib.ingest([tmp_path / "docs"], on_progress=lambda p: stages.append((p.path, p.stage)))
    assert threads == {"ingest-read"}
    assert len(report.failed) == 1 and "broken.pdf" in report.failed[0][0]
    assert report.indexed == [str(p) for p in paths]  # in the files' order
    for p in paths:  # each file read before it was indexed
        assert stages.index((str(p), "reading")) < stages.index((str(p), "indexed"))
    d = lib.store.columns(["chunk_id", "source", "text", "vector"])
    order = np.argsort(d["chunk_id"])
    want = [(c.source, c.text) for p in paths for c in real(lib, p, "x" * 20).chunks]
    texts = [d["text"][i] for i in order]
    assert sorted(zip([d["source"][i] for i in order], texts)) == sorted(want)
    stored = np.asarray(d["vector"], np.float32)[order]
    assert np.array_equal(stored, emb.embed(texts))


def test_a_cancel_while_a_file_is_read_ends_the_ingest_and_its_reader(
    tmp_path: Path,
) -> None:
    """The app's cancel raises from the progress callback, here while the reader reads the
    third file: the ingest raises it, and the reader thread ends."""

    class Cancelled(Exception):
        pass

    paths = _files(tmp_path / "docs", 6)
    cancel = threading.Event()

    def progress(p) -> None:  # noqa: ANN001
        if p.stage == "reading" and p.path == str(paths[2]):
            cancel.set()
        if cancel.is_set():
            raise Cancelled

    lib = Library(Settings(), embedder=FakeEmbedder())
    with pytest.raises(Cancelled):
        lib.ingest(paths, on_progress=progress)
    for t in threading.enumerate():
        if t.name == "ingest-read":
            t.join(10)
    assert not any(t.name == "ingest-read" for t in threading.enumerate())
    assert lib.ingest(paths).indexed  # the index is still writable and whole after it
