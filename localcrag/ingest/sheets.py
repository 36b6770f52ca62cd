"""Spreadsheets: .xlsx through openpyxl (read-only, streamed row by row) and .csv.

A sheet (or a CSV) is cut into its separate tables (``tables.find_tables``: a data table and
the "SUMMARY OUTPUT" / "ANOVA" blocks beside it are each read under their own header and
title). Each row is a page of unit "row" numbered as the spreadsheet numbers it, scoped by
its sheet and table title, so a chunk's locator reads "sheet Output, ANOVA, rows 12–15".
A row reads as a sentence that stands alone in the index, naming the file, sheet, table,
row and each value's column: "TSLA.csv, row 3: Date: 2010-06-29; Close: 23.83." (empty
cells left out; a column without a header is named by its letter). The sheet name is a
heading and a table's title a heading under it (each starts a new chunk).

A workbook is bounded like a CSV, as rows stream in (openpyxl's read-only parser, one row
at a time): its characters counted as the same rows written as CSV would be (cells,
separators, line ends) against ``max_file_chars``, and its cells (rows x widest row, all
sheets together) against ``max_sheet_cells``; then the row sentences it becomes (each value
with its column's name, which a wide table repeats on every row) against
``max_file_chars`` before anything is embedded. Over any of them the file is one line,
never a half-indexed sheet.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localcrag.ingest.files import RawPage, bad
from localcrag.ingest.limits import check_cells, check_chars, check_zip
from localcrag.ingest.tables import find_tables, header_line, row_line


def cell_text(value: Any) -> str:
    """A cell as a person reads it: 3 not 3.0, a date without midnight, no stray spaces."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    return " ".join(str(value).split())


@dataclass
class Tally:
    """What a file's sheets have cost so far, all sheets together (the limits are per file)."""

    chars: int = 0  # as CSV text: cells, separators and line ends
    cells: int = 0  # sheets done: rows x widest row of each grid
    text: int = 0  # characters of the row sentences made


def _grid(
    rows: Iterable[tuple[int, list[str]]], path: Path, ctx: Any, tally: Tally
) -> tuple[list[list[str]], list[int]]:
    """(row number, cells) -> the rows with values, padded to one width, and their numbers;
    characters and cells are counted as rows stream in, so an oversized sheet stops at the
    limit, not at the end. Cells count the cells handed over (empty ones too: each cost a
    step) and the padded grid (every row as wide as the widest)."""
    grid: list[list[str]] = []
    numbers: list[int] = []
    width = read = 0
    for number, cells in rows:
        read += len(cells)
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            tally.chars += sum(len(c) for c in cells) + len(cells)  # separators, line end
            check_chars(path, tally.chars, ctx.limits, at_least=True)
            if numbers and number > numbers[-1] + 1:  # the blank rows between keep tables apart
                grid.append([])
                numbers.append(numbers[-1] + 1)
            grid.append(cells)
            numbers.append(number)
            width = max(width, len(cells))
        check_cells(path, len(grid), width, tally.cells + max(read, len(grid) * width), ctx.limits)
    tally.cells += len(grid) * width
    for r in grid:
        r.extend([""] * (width - len(r)))
    return grid, numbers


def table_pages(
    rows: Iterable[tuple[int, list[str]]],
    sheet: str | None,
    path: Path,
    ctx: Any,
    tally: Tally | None = None,
) -> list[RawPage]:
    """(row number, cell texts) of one sheet (``sheet``: its name; None for a CSV) -> one
    page per row, table by table (``tables.find_tables``): each row a sentence naming the
    file, sheet, table title, row and column names (``tables.row_line``). ``tally``: what
    the file's earlier sheets cost (the limits hold for the whole file)."""
    tally = tally if tally is not None else Tally()
    grid, numbers = _grid(rows, path, ctx, tally)
    pages: list[RawPage] = []

    def add(number: int, heads: list[tuple[str, int | None]], line: str, scope: str) -> None:
        tally.text += len(line) + 1
        check_chars(
            path,
            tally.text,
            ctx.limits,
            at_least=True,
            of=" of row text (each value with its column's name)",
        )
        pages.append(RawPage(number, heads + [(line, None)], "row", scope))

    for table in find_tables(grid, numbers):
        scope = ", ".join(
            p for p in (f"sheet {sheet}" if sheet is not None else "", table.title) if p
        )
        where = ", ".join(p for p in (path.name, scope) if p)
        heads: list[tuple[str, int | None]] = []
        if sheet is not None and not pages:
            heads.append((f"Sheet {sheet}", 1))
        if table.title:
            heads.append((table.title, 2 if sheet is not None else 1))
        if table.header is not None and any(table.header):
            add(table.header_row, heads, header_line(table, where), scope)
            heads = []
        for number, cells in table.rows:
            add(number, heads, row_line(table, number, cells, where), scope)
            heads = []
    return pages


def read_xlsx(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    import openpyxl

    check_zip(path, data, ctx.limits)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # InvalidFileException, BadZipFile, KeyError, XML errors: all one line
        raise bad(
            path, "corrupt or unreadable Excel file (.xlsx)", "re-save it from Excel"
        ) from None
    pages: list[RawPage] = []
    warnings: list[str] = []
    tally = Tally()
    try:
        for sheet in book.worksheets:
            # the declared size is not trusted ("A1:XFD1048576" would pad every row to 16,384
            # cells): each row is as wide as its last cell
            sheet.reset_dimensions()
            rows = (
                (i, [cell_text(v) for v in r])  # read-only mode fills missing rows: i is the row
                for i, r in enumerate(sheet.iter_rows(min_row=1, values_only=True), start=1)
            )
            pages.extend(table_pages(rows, sheet.title, path, ctx, tally))
    finally:
        book.close()
    return pages, warnings


def read_csv(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    from localcrag.ingest.files import decode

    text, warnings = decode(path, data)
    check_chars(path, len(text), ctx.limits)
    try:
        dialect: Any = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        reader = csv.reader(io.StringIO(text, newline=""), dialect)
        rows = [(i, [cell_text(c) for c in row]) for i, row in enumerate(reader, start=1)]
    except csv.Error as exc:
        raise bad(path, f"malformed CSV ({exc})", "check its quoting") from None
    return table_pages(rows, None, path, ctx), warnings
