"""Spreadsheets and CSV held to the per-file limits as rows stream in: a
workbook counted as the same rows written as CSV, cells (rows x widest row) against
``max_sheet_cells``, the row sentences made against ``max_file_chars``; and a large
accepted sheet committed in parts, so a killed ingest keeps what it did. Files are built
at test time; the limits are lowered through settings so each test stays small."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from localcrag.errors import BadDocument
from localcrag.ingest import library as library_module
from localcrag.ingest import sheets
from localcrag.ingest.context import ReadContext
from localcrag.ingest.library import PARTIAL, Library
from localcrag.ingest.limits import Limits
from localcrag.ingest.parse import parse_document
from localcrag.ingest.walk import content_hash
from localcrag.settings import Settings
from tests.support.fakes import FakeEmbedder

COLUMNS = ["Date", "Open", "High", "Low", "Close"]


def _rows(n: int) -> list[list[str]]:
    return [
        [f"2020-{1 + i % 12:02d}-{1 + i % 28:02d}", f"{i % 97}.5", f"{i % 89}", f"{i % 83}", "7"]
        for i in range(n)
    ]


def write_xlsx(path: Path, rows: Sequence[Sequence[str]], header: Sequence[str]) -> Path:
    """A workbook written row by row (openpyxl's write-only mode: never all in memory)."""
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Prices")
    sheet.append(list(header))
    for row in rows:
        sheet.append(list(row))
    book.save(path)
    return path


def write_csv(path: Path, rows: Sequence[Sequence[str]], header: Sequence[str]) -> Path:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


def _indexed(lib: Library) -> set[str]:
    return {Path(s).name for s in lib.store.file_hashes()}


def test_a_long_workbook_is_refused_like_the_same_rows_as_csv_and_nothing_is_indexed(
    tmp_path: Path,
) -> None:
    """The workbook's cells alone are under the limit; written as CSV (commas, line ends)
    they are over it, and the CSV was refused while the workbook was indexed whole."""
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = _rows(1_200)
    cell_chars = sum(len(c) for r in [COLUMNS, *rows] for c in r)
    limit = cell_chars + 2_000
    csv = write_csv(docs / "prices.csv", rows, COLUMNS)
    assert cell_chars < limit < len(csv.read_text())  # the case: cells under, CSV text over
    book = write_xlsx(docs / "prices.xlsx", rows, COLUMNS)
    (docs / "good.md").write_text("# Cats\n\nThe office cat is called Miso.\n")
    lib = Library(Settings(max_file_chars=limit), embedder=FakeEmbedder())
    report = lib.ingest([docs])
    assert [Path(p).name for p in report.indexed] == ["good.md"]
    errors = dict(report.failed)
    for f in (csv, book):
        line = errors[str(f.resolve())]
        assert re.search(
            rf"{f.name}: (more than )?[\d,]+ characters, over the limit of {limit:,} "
            r"characters.*limits\.max_file_chars",
            line,
        ), line
        assert "\n" not in line
    assert _indexed(lib) == {"good.md"}  # nothing of either sheet, not half of one


def test_row_text_that_outgrows_the_limit_is_refused_before_embedding(tmp_path: Path) -> None:
    """Short values under long column names: the CSV is small, the sentences it becomes
    (every value with its column's name) are several times larger."""
    header = [f"measured_quantity_number_{i}_in_units" for i in range(8)]
    rows = [[str(i % 10)] * 8 for i in range(400)]
    f = write_csv(tmp_path / "wide_names.csv", rows, header)
    limit = 3 * len(f.read_text())
    with pytest.raises(BadDocument) as exc:
        parse_document(f, ctx=ReadContext(Limits(max_file_chars=limit)))
    assert "characters of row text" in str(exc.value) and "max_file_chars" in str(exc.value)
    doc = parse_document(f, ctx=ReadContext(Limits(max_file_chars=100 * limit)))
    assert len(doc.text) > limit  # what the limit measured is what would be indexed


def test_a_5000_column_csv_is_refused_by_its_cells_before_its_tables_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "wide.csv"
    f.write_text("\n".join(",".join(str(c % 10) for c in range(5_000)) for _ in range(3)) + "\n")
    tabled: list[int] = []
    real = sheets.find_tables
    monkeypatch.setattr(sheets, "find_tables", lambda g, n: tabled.append(len(g)) or real(g, n))
    with pytest.raises(BadDocument) as exc:
        parse_document(f, ctx=ReadContext(Limits(max_sheet_cells=10_000)))
    message = str(exc.value)
    assert re.search(r"wide.csv: at least [\d,]+ cells \(\d rows, 5,000 columns", message)
    assert "over the limit of 10,000 cells" in message
    assert "limits.max_sheet_cells" in message and "\n" not in message
    assert tabled == []  # refused while its rows were read, not after


def test_empty_cells_handed_over_count_so_a_padded_sheet_stops_at_the_limit(
    tmp_path: Path,
) -> None:
    """A sheet whose rows are 1,000 empty cells (a forged size, or a stray cell far right
    with no value) has no characters to count: its cells stop it, the rest never read."""
    pulled = 0

    def rows() -> Iterator[tuple[int, list[str]]]:
        nonlocal pulled
        for i in range(1, 100_001):
            pulled += 1
            yield i, [""] * 1_000

    ctx = ReadContext(Limits(max_sheet_cells=20_000))
    with pytest.raises(BadDocument, match="max_sheet_cells"):
        sheets.table_pages(rows(), "Sheet1", tmp_path / "padded.xlsx", ctx)
    assert pulled <= 21


def test_the_cell_limit_holds_for_a_workbook_s_sheets_together(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    for s in range(4):
        sheet = book.create_sheet(f"S{s}")
        for r in range(100):
            sheet.append([f"v{r}", r, r * 2, r * 3, r * 4])  # 500 cells a sheet
    book.save(tmp_path / "four.xlsx")
    with pytest.raises(BadDocument, match="over the limit of 1,500 cells"):
        parse_document(tmp_path / "four.xlsx", ctx=ReadContext(Limits(max_sheet_cells=1_500)))
    doc = parse_document(tmp_path / "four.xlsx", ctx=ReadContext(Limits(max_sheet_cells=2_000)))
    assert "sheet S3, row 100" in doc.text


class _Killed(Exception):
    """Stands for a kill in the middle of an ingest."""


class _CountingEmbedder(FakeEmbedder):
    """Counts the texts it embeds; raises _Killed on call number ``die_at`` (1-based)."""

    def __init__(self, die_at: int = 0) -> None:
        self.calls = 0
        self.texts = 0
        self.die_at = die_at

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        self.calls += 1
        if self.calls == self.die_at:
            raise _Killed
        self.texts += len(texts)
        return super().embed(texts, batch_size)


def test_a_large_sheet_is_committed_in_parts_and_a_killed_ingest_resumes_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_module, "PART_CHUNKS", 20)
    book = write_xlsx(tmp_path / "prices.xlsx", _rows(300), COLUMNS)
    source = str(book.resolve())
    killed = _CountingEmbedder(die_at=4)
    lib = Library(Settings(), embedder=killed)
    with pytest.raises(_Killed):
        lib.ingest([book])
    kept = lib.store.columns(["source", "doc_hash"])
    assert len(kept["source"]) == 3 * 20  # the three parts done before the kill
    assert set(kept["doc_hash"]) == {PARTIAL + content_hash(book)}  # not taken as whole

    again = _CountingEmbedder()
    lib = Library(Settings(), embedder=again)
    report = lib.ingest([book])
    assert report.indexed == [source] and not report.failed
    total = lib.store.count()
    assert total > 5 * 20  # it took more than five parts
    assert again.texts == total - 3 * 20  # the committed parts were not embedded again
    assert lib.store.file_hashes() == {source: content_hash(book)}
    assert [s.chunks for s in lib.sources()] == [total]
    assert lib.ingest([book]).unchanged == [source]
    from localcrag.ingest import doctor, rowsums

    assert rowsums.read(lib.store) and source in rowsums.read(lib.store)  # its digest, whole
    up = doctor.check(lib.store)
    assert up.ok and not up.rotten, up.lines


def test_a_re_indexed_large_sheet_keeps_its_old_rows_until_the_last_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_module, "PART_CHUNKS", 20)
    book = write_xlsx(tmp_path / "prices.xlsx", _rows(300), COLUMNS)
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([book])
    before = lib.store.count()
    write_xlsx(book, _rows(301), COLUMNS)  # changed: new chunk ids
    lib = Library(Settings(), embedder=_CountingEmbedder(die_at=2))
    with pytest.raises(_Killed):
        lib.ingest([book])
    assert lib.store.count() == before + 20  # the old version whole, one new part beside it
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([book])
    assert set(lib.store.file_hashes().values()) == {content_hash(book)}
    assert "row 302" in " ".join(lib.store.columns(["text"])["text"])
