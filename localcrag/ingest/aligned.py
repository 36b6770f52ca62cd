"""Tables a PDF lays out by alignment alone, without ruling lines: statistical abstracts,
annual reports' expense tables, dot-leader tables ("Burglary . . . . 240.9  60.3").

The ruled readers (``ingest/pdftables``) need drawn lines; these tables have none, and
PyMuPDF's text strategy splits their figures at the thin spaces they are set with
("11,062. 6" read as "11 ,0" and "62.6 154"). What marks them is simpler: each figure is a
text line of its own, and the figures of a column end at the same x (they are set flush
right). So a table here is a run of at least ``MIN_ROWS`` rows (text lines on one baseline)
each holding at least two figures that end on shared right edges, with a label on the left;
a label alone on the line above a row continues that row's label ("Murder and
nonnegligent" / "manslaughter . . ."). Its header is the text above its first row, each
line given to the column it sits over (a line over fewer than half of the columns, above
the others, is a group: "Male" over "Total", "Under 18 years", "18 years and over", each
column named by both). Prose never qualifies: its figures sit inside its lines, and two
columns of text have no figure lines at all. Each table is indexed as a sheet's is, one
sentence a row naming file, page, caption and columns (``ingest/tables``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Rect = tuple[float, float, float, float]
Line = tuple[str, Rect]

MIN_ROWS = 3  # rows of figures on shared columns before a run of them is a table
EDGE = 3.0  # points within which figures end on the same column edge
# a figure as a table cell holds it: 11,062.6, (1,234), 12%, $5, a dash or "(X)" for none
_FIGURE = re.compile(r"[-+(]?[$€£]?\d[\d,]*(?:\.\d+)?%?\)?|[-–—*]|\(X\)|X|NA|n/a", re.I)
_LEADER = re.compile(r"(?:\s*\.){2,}\s*$")  # a dot leader after a row's label


def figure(text: str) -> str | None:
    """The figure a line holds alone ("11,062. 6" -> "11,062.6"), or None."""
    t = re.sub(r"(?<=[\d.,])\s+(?=\d)", "", text.strip())
    return t if t and _FIGURE.fullmatch(t) else None


def _cell_text(text: str) -> bool:
    """Is ``text`` a short value a table sets among its figures (a period "JUL 2023", a code
    "N/A"), not words running on: at most two words, one of them with a digit or capitals?"""
    words = text.split()
    return 0 < len(words) <= 2 and any(re.search(r"\d|^[A-Z]{2,}$", w) for w in words)


@dataclass
class _Row:
    y0: float
    y1: float
    label: list[Line]
    figures: list[tuple[str, Rect]]


def _rows(lines: list[Line]) -> list[_Row]:
    """Lines on one baseline as rows, top to bottom: figures apart from the other text."""
    rows: list[_Row] = []
    for text, box in sorted(lines, key=lambda ln: ((ln[1][1] + ln[1][3]) / 2, ln[1][0])):
        if not text.strip():
            continue
        mid, height = (box[1] + box[3]) / 2, box[3] - box[1]
        row = rows[-1] if rows else None
        if row is None or abs(mid - (row.y0 + row.y1) / 2) > 0.5 * max(height, 1.0):
            row = _Row(box[1], box[3], [], [])
            rows.append(row)
        row.y0, row.y1 = min(row.y0, box[1]), max(row.y1, box[3])
        value = figure(text)
        if value is None and row.figures and _cell_text(text):
            value = " ".join(text.split())  # a short text cell among figures ("JUL 2023")
        if value is not None and box[0] > min((b[0] for _, b in row.label), default=box[0] - 1):
            row.figures.append((value, box))
        else:
            row.label.append((text, box))
    return rows


def _edges(rows: list[_Row]) -> list[float]:
    """The right edges shared by figures of at least two rows, left to right."""
    ends = sorted(b[2] for r in rows for _, b in r.figures)
    groups: list[list[float]] = []
    for x in ends:
        if groups and x - groups[-1][-1] <= EDGE:
            groups[-1].append(x)
        else:
            groups.append([x])
    return [max(g) for g in groups if len(g) >= 2]


def _column(box: Rect, edges: list[float]) -> int | None:
    near = [(abs(box[2] - e), i) for i, e in enumerate(edges) if abs(box[2] - e) <= EDGE]
    return min(near)[1] if near else None


def _is_table_row(row: _Row, edges: list[float]) -> bool:
    cols = {_column(b, edges) for _, b in row.figures} - {None}
    first = min((b[0] for _, b in row.figures), default=0.0)
    return len(cols) >= 2 and all(b[2] <= first + 1 for _, b in row.label)


@dataclass
class AlignedTable:
    """A table found by alignment: its box, caption, column names and rows of cells."""

    box: Rect
    caption: str
    header: list[str]
    rows: list[list[str]]


def _runs(rows: list[_Row], least: int = MIN_ROWS) -> list[tuple[int, int]]:
    """(first, last) row indices of each run of at least ``least`` table rows (label-only
    rows between two of its rows belong to it: a label continued on the next line)."""
    edges = _edges([r for r in rows if len(r.figures) >= 2])
    runs: list[tuple[int, int]] = []
    start: int | None = None
    last = -1
    for i, row in enumerate(rows):
        if row.figures and _is_table_row(row, edges):
            if start is not None and row.y0 - rows[last].y1 > 2.5 * (row.y1 - row.y0):
                runs.append((start, last))  # a gap: the next table
                start = None
            start = i if start is None else start
            last = i
        elif start is not None and (row.figures or i - last > 2):
            runs.append((start, last))
            start = None
    if start is not None:
        runs.append((start, last))
    return [(a, b) for a, b in runs if sum(1 for r in rows[a : b + 1] if r.figures) >= least]


def _grouped(overs: list[Rect], spans: list[tuple[float, float]]) -> list[int] | None:
    """For a header tier's lines (``overs``), the line each column falls under when they
    are groups over several columns each (two lines or more, each centred over the columns
    nearest it: "Male" over its three); else None."""
    if not 2 <= len(overs) < len(spans) / 2 + 0.5:
        return None
    centres = [(b[0] + b[2]) / 2 for b in overs]
    mids = [(a + e) / 2 for a, e in spans]
    owner = [min(range(len(centres)), key=lambda k: abs(centres[k] - m)) for m in mids]
    for k, c in enumerate(centres):
        mine = [spans[i] for i, o in enumerate(owner) if o == k]
        if len(mine) < 2:
            return None
        lo, hi = mine[0][0], mine[-1][1]
        if abs(c - (lo + hi) / 2) > 0.15 * (hi - lo):
            return None
    return owner


def _header(
    rows: list[_Row], first: int, edges: list[float], start: float, left: float
) -> list[str]:
    """Column names from the rows above row ``first``: the label column's, then each
    figure column's, its group's name first (``start``: where the first figure column
    begins; ``left``: where the labels do)."""
    spans = [(edges[i - 1] if i else start, e) for i, e in enumerate(edges)]
    width = edges[-1] - left
    names: list[list[str]] = [[] for _ in range(len(edges) + 1)]
    tiers: list[list[Line]] = []
    for row in reversed(rows[max(0, first - 6) : first]):
        lines = row.label + [(t, b) for t, b in row.figures]
        if len(row.figures) >= 2:
            break  # a row of figures above: the table's own, cut off by a gap, or another
        if any(t.strip().lower().startswith("table") for t, _ in lines):
            break  # the caption
        if any(b[2] - b[0] > 0.6 * width for _, b in lines) or any(
            b[2] < left - 1 or b[0] > edges[-1] + EDGE for _, b in lines
        ):
            break  # a line of prose across the table (its headnote), or text beside it
        tiers.insert(0, lines)
    for tier in tiers:
        placed = [(t.strip(), b) for t, b in tier if t.strip()]
        overs = [b for _, b in placed if b[2] > spans[0][0]]
        owner = _grouped(overs, spans)
        if owner is not None:  # groups over several columns each
            groups = [t for t, b in placed if b[2] > spans[0][0]]
            for i, k in enumerate(owner):
                names[i + 1].append(groups[k])
            names[0] += [t for t, b in placed if b[2] <= spans[0][0]]
            continue
        for t, b in placed:
            if b[2] <= spans[0][0] + 1:
                names[0].append(t)
                continue
            overlap = [min(b[2], e) - max(b[0], a) for a, e in spans]
            best = max(range(len(spans)), key=lambda i: overlap[i])
            if overlap[best] > 0.5 * (b[2] - b[0]):
                names[best + 1].append(t)
                continue
            # a name set wider than its column's figures, ending over them ("Precincts"
            # over two-digit counts): the column its right end falls in
            ends = [i for i, (a, e) in enumerate(spans) if a < b[2] <= e + EDGE]
            short = len(t.split()) <= 2 and not t.endswith(".")  # a name, not running text
            if short and len(ends) == 1 and not names[ends[0] + 1]:
                names[ends[0] + 1].append(t)
    return [" ".join(n) for n in names]


def _caption(lines: list[Line], top: float) -> str:
    """The nearest line starting "Table" within 80 pt above the table."""
    near = [
        (top - b[3], t)
        for t, b in lines
        if t.strip().lower().startswith("table") and 0 <= top - b[3] <= 80
    ]
    return " ".join(min(near)[1].split()).rstrip(" .:") if near else ""


def _label(parts: list[Line]) -> str:
    text = " ".join(t.strip() for t, _ in sorted(parts, key=lambda p: p[1][0]))
    return " ".join(_LEADER.sub("", text).split()).rstrip(" .")


def find(lines: list[Line]) -> list[AlignedTable]:
    """The tables laid out by alignment among a page's text lines (text, box)."""
    if sum(1 for t, _ in lines if figure(t) is not None) < 2 * MIN_ROWS:
        return []  # cheap: most pages have too few figure lines to hold one
    rows = _rows(lines)
    out: list[AlignedTable] = []
    above: tuple[list[float], list[str]] | None = None  # the last named columns on the page
    tables = set(_runs(rows))
    for a, b in _runs(rows, 2):
        run = rows[a : b + 1]
        edges = _edges([r for r in run if r.figures])
        if len(edges) < 2:
            continue
        left = min((bx[0] for r in run for _, bx in r.label), default=edges[0] - 40)
        firsts = [bx[0] for r in run for _, bx in r.figures if _column(bx, edges) == 0]
        start = min(firsts) - 2 * EDGE if firsts else left + 1
        header = _header(rows, a, edges, start, left)
        if (a, b) not in tables:
            # too short to be a table, yet its header names the columns of the groups set
            # below it ("Congressional District 1": one county and its total, under the
            # page's header; the districts after it have none of their own)
            if any(header[1:]):
                above = (edges, header)
            continue
        if not any(header[1:]) and above and _same_columns(above[0], edges):
            header = header[:1] + above[1][1:]  # the page's table goes on under a new label
        if any(header[1:]):
            above = (edges, header)
        body: list[list[str]] = []
        pending: list[Line] = []
        for row in run:
            if not row.figures:
                pending += row.label  # a label continued on the row below
                continue
            cells = [""] * (len(edges) + 1)
            label: list[Line] = []
            for text, bx in pending + row.label:
                col = _column(bx, edges)
                if col is not None and bx[0] > start and _cell_text(text):
                    cells[col + 1] = " ".join(text.split())  # a text cell ahead of figures
                else:
                    label.append((text, bx))
            cells[0] = _label(label)
            pending = []
            for value, bx in row.figures:
                col = _column(bx, edges)
                if col is not None:
                    cells[col + 1] = value
            body.append(cells)
        _fill_groups(body)
        top = min([rows[a].y0] + [bx[1] for _, bx in lines if _in_header(bx, rows, a, header)])
        box = (left, top, edges[-1] + 1, run[-1].y1)
        out.append(AlignedTable(box, _caption(lines, top), header, body))
    return out


GROUPS = 4  # groups of equal size, each labelled on its first row, before rows are filled


def _fill_groups(body: list[list[str]]) -> None:
    """Label the rows of a table set in groups of equal size, its label on each group's first
    row only ("Apache" beside its JUL 2023 row, then the OCT and JAN rows unlabelled), with
    their group's label. The size is read off the first labels (at least ``GROUPS`` groups of
    two rows or more, labelled every ``size`` rows); the groups are then filled as long as
    each opens with a label, a label wrapped onto the group's next lines ("Santa" / "Cruz")
    joined into one (only where the next group opens with a label: else the lines are two
    groups of another size), so the rows under a total ("Totals:") are the total's. Filling
    ends at the first group that does not open with its label. A label set
    elsewhere in its group (centred on the rows it spans, as a paper's "(A)") makes no run,
    and its rows stay unlabelled."""
    at = [i for i, row in enumerate(body) if row[0]]
    if len(at) < GROUPS or at[0] != 0 or (size := at[1] - at[0]) < 2:
        return
    run = 1
    while run < len(at) and at[run] - at[run - 1] == size:
        run += 1
    if run < GROUPS:
        return
    for first in range(0, len(body), size):
        group = body[first : first + size]
        lead = next((k for k, row in enumerate(group) if not row[0]), len(group))
        if lead == 0 or lead == size or any(row[0] for row in group[lead:]):
            return  # no label, a label on every row, or one apart from the opening lines
        if lead > 1 and first + size < len(body) and not body[first + size][0]:
            return  # two labels and the next group opens unlabelled: another size
        name = " ".join(row[0] for row in group[:lead])
        for row in group:
            row[0] = name


def _same_columns(edges: list[float], other: list[float]) -> bool:
    """Do two runs of rows end their figures on the same column edges?"""
    return len(edges) == len(other) and all(abs(a - b) <= EDGE for a, b in zip(edges, other))


def _in_header(box: Rect, rows: list[_Row], first: int, header: list[str]) -> bool:
    """Is ``box`` a line of the header above row ``first`` (within six rows above it)?"""
    if not any(header):
        return False
    above = rows[max(0, first - 6) : first]
    words = {w for h in header for w in h.split()}
    return any(
        bx == box and set(t.split()) <= words for r in above for t, bx in r.label + r.figures
    )


def page_lines(page: Any, read: dict | None = None) -> list[Line]:
    """A PDF page's text lines with their boxes (horizontal text only); ``read``: its
    ``get_text("dict")`` when already read."""
    out: list[Line] = []
    for block in (read or page.get_text("dict"))["blocks"]:
        for line in block.get("lines", ()):
            if abs(line["dir"][1]) > 0.5:
                continue
            text = "".join(s["text"] for s in line["spans"])
            if text.strip():
                out.append((text, tuple(line["bbox"])))
    return out
