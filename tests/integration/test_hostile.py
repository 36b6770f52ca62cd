"""Hostile and broken inputs, built at test time: bounded memory, one line per limit, the
rest of the folder still indexed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from localcrag.errors import BadDocument
from localcrag.ingest.chunking import chunk_pages
from localcrag.ingest.library import Library
from localcrag.ingest.limits import Limits, check_pixels, check_zip
from localcrag.ingest.parse import parse_document
from localcrag.settings import Settings
from localcrag.textutil import split_sentences
from tests.support import REPO
from tests.support.documents import epub, single_line
from tests.support.fakes import FakeEmbedder


def _count(texts: list[str]) -> list[int]:
    return [len(t.split()) + 2 for t in texts]


def _peak_chunking(path: Path) -> int:
    tracemalloc.start()
    try:
        chunk_pages(parse_document(path), _count, 128, 1, "d", str(path))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("periods", [False, True])
def test_single_line_text_chunks_in_memory_proportional_to_the_text(
    tmp_path: Path, periods: bool
) -> None:
    """Peak Python memory grows by a small multiple of the text (it held every word's span and
    string at once, and the tokenizer's encodings of the whole file: ~290 MB per MB)."""
    small = _peak_chunking(single_line(tmp_path / "s.txt", 200_000, periods))
    big = _peak_chunking(single_line(tmp_path / "b.txt", 1_200_000, periods))
    assert (big - small) / 1_000_000 < 12  # bytes of peak per byte of text


def test_run_on_sentences_are_cut_at_a_blank() -> None:
    text = " ".join(["word"] * 3000)  # 14,999 characters, no terminator
    spans = split_sentences(text)
    assert len(spans) > 5 and max(b - a for a, b in spans) <= 2000
    assert all(text[a - 1] == " " for a, _ in spans[1:])  # never inside a word


def test_single_line_rss_in_a_subprocess_stays_bounded(tmp_path: Path, real_embedder) -> None:
    """The real tokenizer in a fresh process: 4 MB of single-line text chunks in well under
    the 290 MB per MB it took (its encodings of the whole file were held at once)."""
    f = single_line(tmp_path / "big.txt", 4_000_000)
    code = (
        "import resource,sys;from localcrag.models.embed import load_embedder;"
        "from localcrag.ingest.parse import parse_document;from localcrag.ingest.chunking import chunk_pages;"
        f"e=load_embedder({str(REPO / 'models' / 'all-MiniLM-L6-v2')!r});e.count_tokens_batch(['x']);"
        "r0=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss;"
        f"c=chunk_pages(parse_document({str(f)!r}),e.count_tokens_batch,200,1,'d','s');"
        "print(len(c),(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss-r0)//1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    ).stdout.split()
    chunks, grown_mb = int(out[0]), int(out[1])
    assert chunks > 1000 and grown_mb < 150


def test_over_the_character_limit_is_one_line_and_the_folder_goes_on(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    single_line(tmp_path / "docs" / "huge.txt", 60_000)
    (tmp_path / "docs" / "good.md").write_text("# Cats\n\nThe office cat is called Miso.\n")
    far = single_line(tmp_path / "docs" / "far.txt", 250_000)  # > 4x the limit: never read
    lib = Library(Settings(max_file_chars=50_000), embedder=FakeEmbedder())
    report = lib.ingest([tmp_path / "docs"])
    assert [Path(p).name for p in report.indexed] == ["good.md"]
    errors = dict(report.failed)
    huge = errors[str((tmp_path / "docs" / "huge.txt").resolve())]
    assert re.search(
        r"huge.txt: 60,000 characters, over the limit of 50,000 characters.*max_file_chars", huge
    )
    assert (
        "0.2 MB of text (at least 62,500 characters), over the limit of 50,000"
        in errors[str(far.resolve())]
    )
    assert all("\n" not in e for e in errors.values())


def test_epub_zip_bomb_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    bomb = epub(docs / "bomb.epub", {"c1": "a" * 60_000_000})  # 60 MB chapter in ~60 KB
    epub(docs / "fine.epub", {"c1": "The lighthouse keeper is called Ada. " * 50})
    assert bomb.stat().st_size < 1_000_000
    report = Library(Settings(), embedder=FakeEmbedder()).ingest([docs])
    assert [Path(p).name for p in report.indexed] == ["fine.epub"]
    [(src, err)] = report.failed
    assert src.endswith("bomb.epub") and "max_archive_ratio" in err and "zip bomb" in err
    with pytest.raises(
        BadDocument, match="expands to 60 MB, over the limit of 10 MB.*max_archive_bytes"
    ):
        check_zip(bomb, None, Limits(max_archive_bytes=10_000_000))


def test_pixels_and_pages_limits_name_their_setting(tmp_path: Path) -> None:
    import pymupdf

    with pytest.raises(BadDocument, match="12000x10000 image.*max_image_pixels"):
        check_pixels(tmp_path / "scan.png", 12000, 10000, Limits())
    doc = pymupdf.open()
    for i in range(4):
        doc.new_page().insert_text((72, 72), f"Page {i} says hello.")
    doc.save(tmp_path / "four.pdf")
    with pytest.raises(BadDocument, match="4 pages, over the limit of 3 pages.*max_pages"):
        parse_document(tmp_path / "four.pdf", Limits(max_pages=3))
    assert len(parse_document(tmp_path / "four.pdf", Limits(max_pages=4)).pages) == 4


def test_truncated_pdf_is_indexed_with_a_repair_warning(tmp_path: Path, ai_pdf: Path) -> None:
    data = ai_pdf.read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[:40_000])  # 40 of 113 KB: the probe that once failed
    report = Library(Settings(), embedder=FakeEmbedder()).ingest([cut])
    assert report.indexed == [str(cut.resolve())]
    [(src, warning)] = [w for w in report.warnings if "repaired" in w[1]]
    assert "truncated PDF" in warning and "text recovered from 9 of 15 page(s)" in warning
    assert not any("repaired" in w for w in parse_document(ai_pdf).warnings)


def test_path_inside_an_unreadable_folder_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulated (root can read anything): stat raises PermissionError for that folder."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "ok.md").write_text("# Ok\n\nThe ferry leaves at noon.\n")
    real_stat = Path.stat

    def stat(self: Path, *a, **kw):  # noqa: ANN202
        if str(self).startswith(str(locked)) and self != locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *a, **kw)

    monkeypatch.setattr(Path, "stat", stat)
    report = Library(Settings(), embedder=FakeEmbedder()).ingest(
        [locked / "a.md", tmp_path / "ok.md"]
    )
    assert [Path(p).name for p in report.indexed] == ["ok.md"]
    [(src, err)] = report.failed
    assert src.endswith("a.md") and "Permission denied" in err and "\n" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_chmod_000_folder(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.md").write_text("# A\n\nText.\n")
    locked.chmod(0)
    try:
        report = Library(Settings(), embedder=FakeEmbedder()).ingest([locked / "a.md"])
    finally:
        locked.chmod(0o755)
    [(src, err)] = report.failed
    assert "a.md" in src and "ermission denied" in err
