"""Every read bounded (issue 38, cases 11 and 12): a PDF page's table finder under a cell
and a time limit, and the text patterns run on document lines in time linear in them.

The pattern tests bound work, not time: each function runs on 100,000- and
200,000-character hostile lines under a deadline (``deadline``, a SIGALRM the test sets)
that the quadratic patterns exceeded many times over (a 60,000-space line took 77 s)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from localcrag.ingest.limits import Limits
from localcrag.ingest.parse import parse_document

GRID_TEXT = "Plot grid of the survey field, one cell per square metre."


def ruled_grid_pdf(path: Path, n: int = 100) -> Path:
    """A one-page PDF: a sentence, then an n x n grid of ruled lines with a label in each
    row's first cell ("r0" ... "r99") and its number in every tenth cell (drawn in one shape
    and one text writer: a call per cell rewrites the page's content each time)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((20, 80), GRID_TEXT, fontsize=10)
    x0, y0, w, h = 20.0, 100.0, 572 / n, 600 / n
    shape = page.new_shape()
    for i in range(n + 1):
        shape.draw_line((x0, y0 + i * h), (x0 + n * w, y0 + i * h))
        shape.draw_line((x0 + i * w, y0), (x0 + i * w, y0 + n * h))
    shape.finish(width=0.3)
    shape.commit()
    writer = pymupdf.TextWriter(page.rect)
    size = min(4.0, h * 0.6)
    for i in range(n):
        for j in range(n):
            if j and (i + j) % 10:
                continue
            label = f"r{i}" if j == 0 else str(i)
            writer.append((x0 + j * w + 0.5, y0 + i * h + h * 0.8), label, fontsize=size)
    writer.write_text(page)
    doc.save(path)
    return path


def _count_finder(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count calls of PyMuPDF's table finder; each finds nothing, at once (the real one ran
    over 300 s on the 100x100 grid)."""
    import pymupdf

    calls: list[int] = []

    def find_tables(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return SimpleNamespace(tables=[], textpage=None)

    monkeypatch.setattr(pymupdf.Page, "find_tables", find_tables)
    return calls


def test_a_100x100_ruled_grid_is_indexed_as_text_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_finder(monkeypatch)
    doc = parse_document(ruled_grid_pdf(tmp_path / "grid.pdf"))
    assert calls == []  # the finder never ran on 10,000 cells
    text = " ".join(doc.text.split())
    assert GRID_TEXT in text and "r0" in text and "r99" in text  # the page is not lost
    lines = [w for w in doc.warnings if "max_table_cells" in w]
    assert len(lines) == 1, doc.warnings
    assert "grid.pdf: page(s) 1 indexed as plain text, not as a table" in lines[0]
    assert "~10,000 cells" in lines[0] and "\n" not in lines[0]


def test_a_grid_within_the_cell_limit_is_still_read_as_a_table(tmp_path: Path) -> None:
    doc = parse_document(ruled_grid_pdf(tmp_path / "small.pdf", n=8))
    assert "small.pdf, p. 1, row 2: r1" in doc.text
    assert not [w for w in doc.warnings if "max_table" in w]


def test_a_page_over_the_table_time_budget_is_read_as_text(tmp_path: Path) -> None:
    """The budget is checked at each row the reader reads: a budget spent before the first
    row (1 ns) reads the page's tables as text, with the setting named."""
    from localcrag.ingest.pdftables import TableTooLarge, load_pymupdf, page_tables

    pymupdf = load_pymupdf()
    with pymupdf.open(ruled_grid_pdf(tmp_path / "small.pdf", n=8)) as pdf:
        assert page_tables(pdf[0], "small.pdf", Limits())  # read as a table within it
        with pytest.raises(TableTooLarge, match="max_table_seconds"):
            page_tables(pdf[0], "small.pdf", Limits(max_table_seconds=1e-9))
