"""Spreadsheets: .xlsx through openpyxl (read-only, streamed row by row) and .csv.

Each row is a page of unit "row" numbered as the spreadsheet numbers it (the header is row
1), scoped by its sheet, so a chunk's locator reads "sheet Sales, rows 2–14". A row reads
"Header: value; Header: value." (empty cells left out; a column without a header is named
by its letter), the sheet name is a heading (a new sheet starts a new chunk). Characters
are counted as rows stream in, so an oversized sheet stops at the limit, not at the end.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path
from typing import Any, Iterable

from localcrag.ingest.files import RawPage, bad
from localcrag.ingest.limits import check_chars, check_zip


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(65 + r) + out
    return out


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


def table_pages(rows: Iterable[tuple[int, list[str]]], scope: str, heading: str | None,
                path: Path, ctx: Any) -> list[RawPage]:
    """(row number, cell texts) -> one page per row with values, under the first row
    with values as the header."""
    pages: list[RawPage] = []
    header: list[str] | None = None
    n_chars = 0
    for number, cells in rows:
        if not any(cells):
            continue
        if header is None:
            header = [h or f"column {_letter(i)}" for i, h in enumerate(cells)]
            line = " | ".join(h for h in cells if h)
        else:
            names = header + [f"column {_letter(i)}" for i in range(len(header), len(cells))]
            line = "; ".join(f"{h}: {c}" for h, c in zip(names, cells) if c) + "."
        n_chars += len(line)
        check_chars(path, n_chars, ctx.limits, at_least=True)
        paras = [(line, None)]
        if heading and not pages:
            paras.insert(0, (heading, 1))
        pages.append(RawPage(number, paras, "row", scope))
    return pages


def read_xlsx(path: Path, data: bytes, ctx: Any) -> tuple[list[RawPage], list[str]]:
    import openpyxl

    check_zip(path, data, ctx.limits)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # InvalidFileException, BadZipFile, KeyError, XML errors: all one line
        raise bad(path, "corrupt or unreadable Excel file (.xlsx)", "re-save it from Excel") from None
    pages: list[RawPage] = []
    warnings: list[str] = []
    try:
        for sheet in book.worksheets:
            rows = ((i, [cell_text(v) for v in r])  # read-only mode fills missing rows: i is the row
                    for i, r in enumerate(sheet.iter_rows(min_row=1, values_only=True), start=1))
            pages.extend(table_pages(rows, f"sheet {sheet.title}", f"Sheet {sheet.title}", path, ctx))
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
    return table_pages(rows, "", None, path, ctx), warnings
