"""Spreadsheets: .xlsx through openpyxl (read-only, streamed row by row) and .csv.

A sheet (or a CSV) is cut into its separate tables (``tables.find_tables``: a data table and
the "SUMMARY OUTPUT" / "ANOVA" blocks beside it are each read under their own header and
title). Each row is a page of unit "row" numbered as the spreadsheet numbers it, scoped by
its sheet and table title, so a chunk's locator reads "sheet Output, ANOVA, rows 12–15".
A row reads as a sentence that stands alone in the index, naming the file, sheet, table,
row and each value's column: "TSLA.csv, row 3: Date: 2010-06-29; Close: 23.83." (empty
cells left out; a column without a header is named by its letter). The sheet name is a
heading and a table's title a heading under it (each starts a new chunk). Characters are
counted as rows stream in, so an oversized sheet stops at the limit, not at the end.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from localcrag.ingest.files import RawPage, bad
from localcrag.ingest.limits import check_chars, check_zip
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


def _grid(
    rows: Iterable[tuple[int, list[str]]], path: Path, ctx: Any
) -> tuple[list[list[str]], list[int]]:
    """(row number, cells) -> the rows with values, padded to one width, and their numbers;
    characters are counted as rows stream in, so an oversized sheet stops at the limit."""
    grid: list[list[str]] = []
    numbers: list[int] = []
    n_chars = 0
    for number, cells in rows:
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        n_chars += sum(len(c) for c in cells)
        check_chars(path, n_chars, ctx.limits, at_least=True)
        if numbers and number > numbers[-1] + 1:  # the blank rows between keep tables apart
            grid.append([])
            numbers.append(numbers[-1] + 1)
        grid.append(cells)
        numbers.append(number)
    width = max((len(r) for r in grid), default=0)
    for r in grid:
        r.extend([""] * (width - len(r)))
    return grid, numbers


def table_pages(
    rows: Iterable[tuple[int, list[str]]], sheet: str | None, path: Path, ctx: Any
) -> list[RawPage]:
    """(row number, cell texts) of one sheet (``sheet``: its name; None for a CSV) -> one
    page per row, table by table (``tables.find_tables``): each row a sentence naming the
    file, sheet, table title, row and column names (``tables.row_line``)."""
    grid, numbers = _grid(rows, path, ctx)
    pages: list[RawPage] = []
    for table in find_tables(grid, numbers):
        scope = ", ".join(
            p for p in (f"sheet {sheet}" if sheet is not None else "", table.title) if p
        )
        where = ", ".join(p for p in (path.name, scope) if p)
        heads = []
        if sheet is not None and not pages:
            heads.append((f"Sheet {sheet}", 1))
        if table.title:
            heads.append((table.title, 2 if sheet is not None else 1))
        if table.header is not None and any(table.header):
            pages.append(
                RawPage(table.header_row, heads + [(header_line(table, where), None)], "row", scope)
            )
            heads = []
        for number, cells in table.rows:
            pages.append(
                RawPage(
                    number, heads + [(row_line(table, number, cells, where), None)], "row", scope
                )
            )
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
    try:
        for sheet in book.worksheets:
            rows = (
                (i, [cell_text(v) for v in r])  # read-only mode fills missing rows: i is the row
                for i, r in enumerate(sheet.iter_rows(min_row=1, values_only=True), start=1)
            )
            pages.extend(table_pages(rows, sheet.title, path, ctx))
    finally:
        book.close()
    return pages, warnings


def read_csv(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    from localcrag.ingest.parse import decode

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
