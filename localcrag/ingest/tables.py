"""The separate tables on a spreadsheet grid, each with its own title and header row.

A sheet often holds more than one table: Excel's regression output ("SUMMARY OUTPUT",
"Regression Statistics", "ANOVA", the coefficients) placed beside the data it came from,
or several blocks one under another. Reading the sheet as one table labels every block by
the first row's headers ("column K: 0.41"). Here the grid is cut the way a reader sees it
(a recursive XY cut: fully blank rows, then fully blank columns, repeated inside each part),
and each block is read as a table:

* a block of one cell ("SUMMARY OUTPUT"; a merged title cell reads as one cell, its value in
  the top-left) titles the blocks below it that start in its column;
* leading rows of one cell in a wider block ("ANOVA") are the block's own title;
* the next row is the header when its cells are all text (no number) and rows follow; a
  blank first header cell means the first column holds row labels ("Intercept",
  "Regression");
* a block without such a header (label | value: "R Square | 0.91") is read row by row.

A block one wholly blank row apart from the block above it, with the same columns and no
header of its own, continues that table (a gap in the data is not a new table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Grid = list[list[str]]  # rows of cell texts, padded to one width


@dataclass
class Table:
    title: str  # "SUMMARY OUTPUT, ANOVA"; "" for none
    # the column names (a blank first one: row labels), None: label | value rows
    header: list[str] | None
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (sheet row number, cells)
    header_row: int = 0  # its sheet row number (0: no header)
    cols: tuple[int, int] = (0, 0)  # first and last+1 column of the grid


def _runs(used: list[int]) -> list[tuple[int, int]]:
    """Sorted indices -> maximal runs of consecutive ones, as (first, last + 1)."""
    out: list[tuple[int, int]] = []
    for i in used:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def blocks(grid: Grid) -> list[tuple[int, int, int, int]]:
    """Recursive XY cut: (first row, last row + 1, first column, last column + 1) of each
    block of cells with values, in reading order (top to bottom, then left to right)."""
    width = max((len(r) for r in grid), default=0)
    out: list[tuple[int, int, int, int]] = []
    stack = [(0, len(grid), 0, width)]
    while stack:
        r0, r1, c0, c1 = stack.pop()
        rows = _runs([r for r in range(r0, r1) if any(grid[r][c0:c1])])
        if len(rows) > 1:
            stack.extend((a, b, c0, c1) for a, b in reversed(rows))
            continue
        if not rows:
            continue
        a, b = rows[0]
        cols = _runs([c for c in range(c0, c1) if any(grid[r][c] for r in range(a, b))])
        if len(cols) > 1:
            stack.extend((a, b, x, y) for x, y in reversed(cols))
        else:
            out.append((a, b, cols[0][0], cols[0][1]))
    return out


def _is_number(text: str) -> bool:
    t = text.replace(",", "").replace("%", "").replace("$", "").strip()
    try:
        float(t)
    except ValueError:
        return False
    return True


def _is_value(cell: str) -> bool:
    """A number or a date ("2016-01-10"): a value, never a column's name."""
    return _is_number(cell) or (cell[:4].isdigit() and cell[4:5] == "-")


def _is_header(cells: list[str]) -> bool:
    """Column names: at least two cells, each text, none a number or a date."""
    named = [c for c in cells if c]
    return len(named) >= 2 and not any(_is_value(c) for c in named)


def _typed(cells: list[str]) -> bool:
    """Does a row hold a number or a date: a data row, not column names or notes?"""
    return any(c and _is_value(c) for c in cells)


def _notes(cut: list[list[str]], i: int) -> int:
    """How many rows from ``i`` are notes written above a table ("simply cannot resist
    writing" / "at the top of their spreadsheets"): rows of text before the one that names
    the columns, which is the text row right above the first row of numbers or dates and
    fills more cells than the first row does. 0 when the first row names the columns."""
    first = next((j for j in range(i, len(cut)) if _typed(cut[j])), None)
    if first is None or first - 1 <= i:
        return 0
    names = cut[first - 1]
    filled = sum(bool(c) for c in names)
    if not _is_header(names) or filled <= sum(bool(c) for c in cut[i]):
        return 0
    return first - 1 - i


def find_tables(grid: Grid, numbers: list[int]) -> list[Table]:
    """The tables of a grid; ``numbers[i]`` is the sheet row number of ``grid[i]``."""
    tables: list[Table] = []
    above: dict[int, str] = {}  # column -> the lone title cell last seen there
    for r0, r1, c0, c1 in blocks(grid):
        cut = [row[c0:c1] for row in grid[r0:r1]]
        if r1 - r0 == 1 and sum(bool(c) for c in cut[0]) == 1:
            above[c0] = next(c for c in cut[0] if c)
            continue
        own, i = [], 0
        while i < len(cut) - 1 and c1 - c0 > 1 and sum(bool(c) for c in cut[i]) == 1 and cut[i][0]:
            own.append(cut[i][0])
            i += 1
        notes = _notes(cut, i)
        if notes:  # lines written above the table: their own rows, then the table
            title = ", ".join(t for t in [above.get(c0, "")] + own if t)
            rows = [(numbers[r0 + j], cut[j]) for j in range(i, i + notes) if any(cut[j])]
            tables.append(Table(title, None, rows, 0, (c0, c1)))
            i += notes
        header = cut[i] if i < len(cut) - 1 and _is_header(cut[i]) else None
        prev = tables[-1] if tables else None
        if (
            prev is not None
            and prev.rows
            and not own
            and header is None
            and prev.cols == (c0, c1)
            and prev.header is not None
            and numbers[r0] - prev.rows[-1][0] <= 2
        ):
            prev.rows.extend((numbers[r0 + j], row) for j, row in enumerate(cut))
            continue
        title = ", ".join(t for t in [above.get(c0, "")] + own if t)
        table = Table(title, header, [], numbers[r0 + i] if header else 0, (c0, c1))
        start = i + 1 if header else i
        table.rows = [(numbers[r0 + j], cut[j]) for j in range(start, len(cut)) if any(cut[j])]
        tables.append(table)
    return tables


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(65 + r) + out
    return out


def row_line(table: Table, number: int, cells: list[str], where: str) -> str:
    """One row as a sentence that stands alone in the index: where it is (file, sheet,
    table title), its row number and label, each value with its column's name:
    "TSLA.csv, row 3: Date: 2010-06-29; Open: 19; Close: 23.83."
    "stats.xlsx, sheet Output, ANOVA, row 13 (Regression): df: 1; SS: 2.3; F: 85.2."
    "stats.xlsx, sheet Output, Regression Statistics, row 5: R Square: 0.91."."""
    place = f"{where}, row {number}"
    if table.header is None:
        named = [c for c in cells if c]
        if len(named) == 1:
            return f"{place}: {named[0]}."
        return f"{place}: {named[0]}: {'; '.join(named[1:])}."
    names = table.header + [
        f"column {_letter(table.cols[0] + i)}" for i in range(len(table.header), len(cells))
    ]
    label = cells[0] if not names[0] and cells[0] else ""
    pairs = [
        f"{h or 'column ' + _letter(table.cols[0] + i)}: {c}"
        for i, (h, c) in enumerate(zip(names, cells))
        if c and not (i == 0 and label)
    ]
    if label:
        place += f" ({label})"
    return f"{place}: {'; '.join(pairs)}." if pairs else f"{place}."


# how the index's text reads those lines back: (where, row and label: ) (the cells), and
# (where, columns: ) (the names)
ROW_LINE = re.compile(r"^(.+?, row \d+(?: \(.*?\))?: )(.*)$", re.M)
HEADER_LINE = re.compile(r"^(.+?, columns: )(.*)$", re.M)


def header_line(table: Table, where: str) -> str:
    """The header as a line of its own: "TSLA.csv, columns: Date | Open | Close"."""
    return f"{where}, columns: {' | '.join(h for h in table.header or [] if h)}"
