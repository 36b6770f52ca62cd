"""Tables on a PDF page through PyMuPDF's table finder, indexed like a sheet's tables.

Two readers, both without PyMuPDF's layout model: ``page.find_tables(use_layout=False)``
reads a grid table from its ruling lines; a booktabs table (horizontal rules only, which
that finder cannot read) is read in the box its rules span, its columns found by MuPDF from
the text's alignment (``fz_find_table_within_bounds``: what PyMuPDF's layout path runs on
the table boxes its model finds). Each table is indexed the way a spreadsheet's table is
(``ingest/tables``): one sentence per row naming the file, the page, the table's caption
and each value's column, "report.pdf, p. 3, Table 2: Results, row 2 (Regression): df: 1;
F: 85.2.", so ``crag/cells`` answers a cell of it as of a sheet. The text the table's cells
hold is taken off the page's running text, where it would be read as a run of unlabelled
words.

The readers run only on a page drawn with at least three horizontal rules (a ruled table
has them; most text pages have none: reading the drawings costs milliseconds), the line
finder only on one that also draws a vertical edge (it reads every character of the page
first, most of its cost). Cost (``python -m bench.pdf_tables``, process CPU seconds, the
minimum of 3 runs, 2026-12-01): 0.07-0.08 s per ruled page of the attention paper (4 ruled
pages, its 4 tables found: 2 booktabs, 2 grids), 0.01 s for AI_Information.pdf's one ruled
page (no table); PyMuPDF's ``find_tables()`` with its layout model (``--layout``; what this
module ran before) 0.58-0.62 s and 0.28 s, the same tables found. PyMuPDF is imported
without the layout model (``load_pymupdf``): loading it costs 0.4 CPU s and 53 MB of RSS
a process, and running it 250 MB more (peak RSS 381-387 MB against 130 MB). A cell holding
several lines where each cell of the row holds as many is a booktabs block of rows without
rules between them, and is read as that many rows.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from localcrag.ingest import aligned
from localcrag.ingest.files import Paragraphs
from localcrag.ingest.limits import Limits
from localcrag.ingest.tables import Table, _is_header, header_line, row_line

MIN_RULES = 3  # horizontal rules on a page before the table finder is tried
# mean words per text line from which the text between two rules is prose, not a booktabs
# table (the attention paper's Tables 1 and 2: 1.9 and 2.1; a page of prose: 9 to 13)
PROSE_WORDS = 5
Rect = tuple[float, float, float, float]
Rule = tuple[float, float, float]  # x0, y, x1 of a horizontal rule


def load_pymupdf() -> Any:
    """``import pymupdf`` without its layout model. PyMuPDF 2 imports ``pymupdf.layout``
    (the pymupdf-layout package, one of its dependencies) when it is imported, and that
    loads an ONNX model: about 0.4 CPU s and 53 MB of peak RSS per process that reads a PDF
    (measured in a process with onnxruntime already imported), for a model localcrag never
    runs (``find_tables(use_layout=False)``). Blocked only if PyMuPDF is not yet imported."""
    if "pymupdf" not in sys.modules:
        sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    import pymupdf

    if hasattr(pymupdf, "no_recommend_layout"):
        pymupdf.no_recommend_layout()  # else find_tables prints "Consider using ... layout"
    return pymupdf


def _rules(page: Any) -> list[Rule]:
    """Horizontal lines (or hairline rectangles) at least 20 pt long drawn on the page, as
    (x0, y, x1), top to bottom."""
    out: list[Rule] = []
    for drawing in page.get_cdrawings():
        for item in drawing.get("items", ()):
            if item[0] == "l":
                (x0, y0), (x1, y1) = item[1][:2], item[2][:2]
                if abs(y0 - y1) < 1 and abs(x0 - x1) > 20:
                    out.append((min(x0, x1), (y0 + y1) / 2, max(x0, x1)))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1][:4]
                if abs(y1 - y0) < 2 and abs(x1 - x0) > 20:
                    out.append((min(x0, x1), (y0 + y1) / 2, max(x0, x1)))
    return sorted(out, key=lambda r: (r[1], r[0]))


class TableTooLarge(Exception):
    """A page whose ruled grid is over ``limits.max_table_cells`` or whose tables took
    longer than ``limits.max_table_seconds`` to read: its text is read as running text."""


def _grid_cells(page: Any) -> int:
    """The cells the page's straight lines could bound: (distinct rule heights - 1) x
    (distinct vertical edges - 1), read from the drawings alone (linear in them). The line
    finder's cost grows with the cells (a 100x100 ruled grid ran over 300 s), so this is
    checked before it runs."""
    ys: set[int] = set()
    xs: set[int] = set()
    for drawing in page.get_cdrawings():
        for item in drawing.get("items", ()):
            if item[0] == "l":
                (x0, y0), (x1, y1) = item[1][:2], item[2][:2]
                if abs(y0 - y1) < 1:
                    ys.add(round(y0))
                elif abs(x0 - x1) < 1:
                    xs.add(round(x0))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1][:4]
                ys.update((round(y0), round(y1)))
                xs.update((round(x0), round(x1)))
    return max(len(ys) - 1, 0) * max(len(xs) - 1, 0)


def _upright(page: Any) -> bool:
    """Is anything drawn on the page that gives the line finder a vertical edge (a vertical
    line, a box, a curve)? Reading a page's characters is most of the finder's cost, and a
    page of horizontal rules only (booktabs tables) has no table it can find."""
    for drawing in page.get_cdrawings():
        for item in drawing.get("items", ()):
            if item[0] == "l":
                if abs(item[1][1] - item[2][1]) >= 1:
                    return True
            elif item[0] != "re" or abs(item[1][3] - item[1][1]) >= 2:
                return True
    return False


def _booktabs(rules: list[Rule], lines: list[tuple[str, Rect]]) -> list[Rect]:
    """The boxes of booktabs tables among ``rules`` (the rules no grid table explains): a
    run of at least two rules, each as wide as the widest within 10%, with no text line
    between them sticking out of their span and no caption ("Table 3") between them; a
    narrower rule (a cmidrule, a footnote's rule) neither starts nor ends one. Text lines
    of prose between them (PROSE_WORDS words a line or more on average: a page of one or
    two columns between a running header's and a footer's rules) are no table."""
    out: list[Rect] = []
    run: list[Rule] = []

    def close() -> None:
        if len(run) < 2:
            return
        box = (min(r[0] for r in run), run[0][1], max(r[2] for r in run), run[-1][1])
        words = [len(t.split()) for t, b in lines if box[1] < (b[1] + b[3]) / 2 < box[3]]
        if words and sum(words) / len(words) < PROSE_WORDS:
            out.append(box)

    for rule in rules:
        if run:
            x0, x1 = min(run[0][0], rule[0]), max(run[0][2], rule[2])
            width = max(r[2] - r[0] for r in run)
            if rule[2] - rule[0] < 0.9 * width:
                continue  # a cmidrule or a footnote's rule
            between = [
                (t, b) for t, b in lines if run[-1][1] < (b[1] + b[3]) / 2 < rule[1] and t.strip()
            ]
            if (rule[2] - rule[0]) * 0.9 > width or any(
                b[0] < x0 - 5 or b[2] > x1 + 5 or t.lstrip().lower().startswith("table")
                for t, b in between
            ):
                close()
                run = []
        run.append(rule)
    close()
    return out


def _text(cell: str | None) -> str:
    return " ".join((cell or "").split())


def _rows(raw: list[list[str | None]]) -> list[list[str]]:
    """Rows of cell texts; a row whose filled cells all hold the same number (> 1) of lines
    is that many rows (a booktabs block without rules between its rows)."""
    out: list[list[str]] = []
    for row in raw:
        parts = [(c or "").split("\n") for c in row]
        counts = {len(p) for p, c in zip(parts, row) if c}
        if len(counts) == 1 and (k := counts.pop()) > 1:
            out.extend([_text(p[i]) if len(p) == k else "" for p in parts] for i in range(k))
        else:
            out.append([_text(c) for c in row])
    return [r for r in out if any(r)]


def _two_level(cells: list[str | None], first: list[str], body: list[list[str]]):
    """A header of two rows, groups over their columns ("April" spanning "Active" and
    "All"; a spanned cell is None), read as one: "April Active", "April All". Applies when
    the first row spans columns and the next row names every column with text only."""
    if not body or None not in cells[1:] or not _is_header(body[0]):
        return first, body
    sub = body[0]
    if sum(bool(c) for c in sub) < len(sub) - 1:
        return first, body
    group, merged = "", []
    for own, name, below in zip(cells, first, sub):
        group = name if own is not None else group
        merged.append(" ".join(x for x in (group, below) if x))
    return merged, body[1:]


def _caption(lines: list[tuple[str, Rect]], box: Rect) -> str:
    """The nearest line starting "Table" within 40 pt above (or below) the table."""
    near = [
        (min(abs(box[1] - r[3]), abs(r[1] - box[3])), text)
        for text, r in lines
        if text.lower().startswith("table")
        and (box[1] - 40 <= r[3] <= box[1] + 2 or box[3] - 2 <= r[1] <= box[3] + 40)
    ]
    return " ".join(min(near)[1].split())[:120].rstrip(" .:") if near else ""


def _lines(page: Any) -> list[tuple[str, Rect]]:
    return [
        ("".join(s["text"] for s in line["spans"]), tuple(line["bbox"]))
        for block in page.get_text("dict")["blocks"]
        for line in block.get("lines", ())
    ]


def _inside(rule: Rule, box: Rect) -> bool:
    return (
        box[0] - 3 <= (rule[0] + rule[2]) / 2 <= box[2] + 3 and box[1] - 3 <= rule[1] <= box[3] + 3
    )


def _find(page: Any, rules: list[Rule], lines: list[tuple[str, Rect]]) -> list[Any]:
    """The page's tables: the line finder's (a grid: ruled rows and columns), then a
    booktabs table (horizontal rules only, which the line finder cannot read) in the box
    its rules span, its columns found by MuPDF from the text's alignment
    (``fz_find_table_within_bounds``, what PyMuPDF's layout model uses for the table
    boxes it finds). The layout model (``use_layout``, pymupdf-layout) is not run: it
    costs several times as much a page and found no more tables (module docstring).
    ``lines``: the page's text lines, filled here when the booktabs pass reads them."""
    pymupdf = load_pymupdf()
    from pymupdf import table as ft

    found: list[Any] = []
    chars: list[dict] = []  # the page's characters, as the line finder read them
    textpage = None
    if _upright(page):  # else the line finder, which needs vertical edges, finds nothing
        try:
            finder = page.find_tables(use_layout=False)
        except TypeError:  # a PyMuPDF older than its layout model has no use_layout
            finder = page.find_tables()
        found, chars, textpage = list(finder.tables), list(ft.CHARS), finder.textpage
    left = [r for r in rules if not any(_inside(r, t.bbox) for t in found)]
    if len(left) < 2 or not hasattr(ft, "make_table_from_bbox"):
        return found
    lines += _lines(page)
    boxes = _booktabs(left, lines)
    if not boxes:
        return found
    grid = page.get_textpage(flags=ft.TABLE_DETECTOR_FLAGS)
    textpage = textpage or page.get_textpage(flags=ft.FLAGS)
    words = [pymupdf.Rect(w[:4]) for w in textpage.extractWORDS()]
    for box in boxes:
        cells = ft.make_table_from_bbox(grid, words, pymupdf.Rect(box))
        if cells:
            tab = ft.Table(page, cells)
            tab.textpage, tab._chars = textpage, chars
            found.append(tab)
    return found


def page_tables(
    page: Any, name: str, limits: Limits | None = None, read: dict | None = None
) -> list[tuple[Rect, Paragraphs]]:
    """The tables of a PDF page, (its box, its lines as paragraphs), top to bottom: the
    ruled ones (``ruled_tables``) and those laid out by alignment alone (``ingest/aligned``).
    Where both read the same place, the ruled reading is kept unless the aligned one names
    its columns and fills more cells (a ruled grid's rules can box a few header cells of a
    table set by alignment). ``read``: the page's ``get_text("dict")`` when already read."""
    ruled = ruled_tables(page, name, limits)
    found = aligned.find(aligned.page_lines(page, read))
    if not found:
        return ruled
    where = f"{name}, p. {page.number + 1}"
    out = list(ruled)
    for tab in found:
        over = [r for r in ruled if _overlap(r[0], tab.box)]
        filled = sum(1 for row in tab.rows for c in row[1:] if c)
        named = any(tab.header[1:])  # its columns have names: a reading to trust
        if over and (not named or sum(_cells(paras) for _, paras in over) >= filled):
            continue
        out = [r for r in out if not any(r is o for o in over)]
        table = Table(tab.caption, tab.header, list(enumerate(tab.rows, start=1)), 0, (0, 0))
        at = ", ".join(p for p in (where, tab.caption) if p)
        paras: Paragraphs = [(header_line(table, at), None)] if any(tab.header) else []
        paras += [(row_line(table, n, cells, at), None) for n, cells in table.rows]
        out.append((tab.box, paras))
    return sorted(out, key=lambda t: (t[0][1], t[0][0]))


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _cells(paras: Paragraphs) -> int:
    """The cells a table's row sentences fill ("row 3: A: 1; B: 2." holds two)."""
    return sum(t.count("; ") + 1 for t, _ in paras if ", row " in t)


def ruled_tables(
    page: Any, name: str, limits: Limits | None = None
) -> list[tuple[Rect, Paragraphs]]:
    """The ruled tables of a PDF page: (its box, its lines as paragraphs), top to bottom.
    ``name``: the file's name, which starts each row's sentence. Raises TableTooLarge
    before the finder runs on a grid of more than ``limits.max_table_cells`` cells, and
    once reading the tables has taken ``limits.max_table_seconds`` (checked after the
    finder and at each row: the finder is one call that cannot be cut short, which is
    why the cells are capped before it)."""
    limits = limits or Limits()
    rules = _rules(page)
    if len(rules) < MIN_RULES:
        return []
    cells = _grid_cells(page)
    if cells > limits.max_table_cells:
        raise TableTooLarge(
            f"its ruled grid of ~{cells:,} cells is over the limit of "
            f"{limits.max_table_cells:,} (limits.max_table_cells)"
        )
    seconds = limits.max_table_seconds
    deadline = time.monotonic() + seconds
    lines: list[tuple[str, Rect]] = []
    try:
        found = _find(page, rules, lines)
    except Exception:  # noqa: BLE001 - a table the finder cannot read stays running text
        return []
    if not found:
        return []
    lines = lines or _lines(page)
    out: list[tuple[Rect, Paragraphs]] = []
    for tab in sorted(found, key=lambda t: (t.bbox[1], t.bbox[0])):
        # each cell's own text (the finder's extract() can move a full stop out of a
        # number: "64281.3" read as "642813 .")
        raw: list[list[str | None]] = []
        for row in tab.rows:
            if time.monotonic() > deadline:
                raise TableTooLarge(
                    f"reading its tables took over {seconds:g} s (limits.max_table_seconds)"
                )
            raw.append([page.get_text("text", clip=c).strip() if c else None for c in row.cells])
        if tab.header.external:  # the finder found the header above the ruled part
            first, body = [_text(n) for n in tab.header.names], _rows(raw)
        else:
            first, body = [_text(c) for c in raw[0]] if raw else [], _rows(raw[1:])
        if not tab.header.external and raw:
            first, body = _two_level(raw[0], first, body)
        header: list[str] | None = first if _is_header(first) else None
        if header is None and any(first):
            body.insert(0, first)
        if not body or len(first) < 2:
            continue  # a ruled box around text is no table
        box: Rect = tuple(tab.bbox)
        title = _caption(lines, box)
        table = Table(title, header, [(i, r) for i, r in enumerate(body, start=1)], 0, (0, 0))
        where = ", ".join(p for p in (name, f"p. {page.number + 1}", title) if p)
        paras: Paragraphs = []
        if header is not None and any(header):
            paras.append((header_line(table, where), None))
        paras += [(row_line(table, n, cells, where), None) for n, cells in table.rows]
        out.append((box, paras))
    return out
