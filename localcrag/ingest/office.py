"""Word (.docx) and PowerPoint (.pptx) through python-docx and python-pptx.

Both are zip archives: their uncompressed size is checked (``limits.check_zip``) before
either library opens them. A .docx keeps its order of headings (Heading N / Title styles),
paragraphs and tables; each table is a page of unit "table" (locator "table 2") whose
rows read "Header: value; Header: value" when it has a header row; the text between
tables is a page of unit "section" (locator 'section "Heading"': the heading in force; without
one, "after table 2", its number being the count of tables before it). A .pptx slide is a
page of unit "slide": its title is a heading, then the text of its shapes (groups, tables
and charts' data included) in reading order, then its speaker notes ("Notes: ...").
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from localcrag.ingest import about
from localcrag.ingest.files import Paragraphs, RawPage, Read, bad
from localcrag.ingest.limits import check_zip
from localcrag.textutil.labels import SECTION


def table_rows(rows: list[list[str]]) -> Paragraphs:
    """Rows as readable lines: "Header: value; ..." under a header row, else "a | b"."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    header = rows[0]
    if len(rows) < 2 or not all(h.strip() for h in header):
        return [(" | ".join(c for c in r if c.strip()), None) for r in rows]
    out: Paragraphs = [(" | ".join(header), None)]
    for r in rows[1:]:
        pairs = [f"{h}: {c}" for h, c in zip(header, r) if c.strip()]
        out.append(("; ".join(pairs) + ".", None))
    return out


def _cells(row: Any) -> list[str]:
    """A docx row's cell texts, a merged cell once (python-docx repeats it per grid column)."""
    seen, out = set(), []
    for cell in row.cells:
        if id(cell._tc) not in seen:
            seen.add(id(cell._tc))
            out.append(" ".join(cell.text.split()))
    return out


def _level(style_name: str) -> int | None:
    name = style_name.lower()
    if name == "title":
        return 1
    if name.startswith("heading ") and name[8:].strip().isdigit():
        return min(int(name[8:]), 6)
    return None


def _blocks(blocks: Iterable[Any]) -> Iterator[Any]:
    """Paragraphs and tables in reading order, a table whose cells hold tables of their own
    (a form laid out by nested tables, whose outer cells read as empty) read as its cells'
    paragraphs and tables, in order, each cell once."""
    from docx.table import Table, _Cell

    for block in blocks:
        if not isinstance(block, Table) or not block._tbl.xpath("./w:tr/w:tc/w:tbl"):
            yield block
            continue
        for tc in block._tbl.xpath("./w:tr/w:tc"):
            yield from _blocks(_Cell(tc, block).iter_inner_content())


def read_docx(path: Path, data: bytes, ctx: Any) -> Read:
    import docx
    from docx.table import Table

    check_zip(path, data, ctx.limits)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception:  # PackageNotFoundError, BadZipFile, KeyError, XML errors: all one line
        raise bad(path, "corrupt or unreadable Word file (.docx)", "re-save it from Word") from None
    pages: list[RawPage] = []
    paras: Paragraphs = []
    tables = 0
    for block in _blocks(document.iter_inner_content()):
        if isinstance(block, Table):
            tables += 1
            if paras:
                pages.append(RawPage(tables - 1, paras, SECTION))
                paras = []
            pages.append(RawPage(tables, table_rows([_cells(r) for r in block.rows]), "table"))
            continue
        text = block.text.strip()
        if text:
            style = block.style.name if block.style is not None else ""
            paras.append((text, _level(style)))
    if paras:
        pages.append(RawPage(tables, paras, SECTION))
    props = document.core_properties
    first = [t for page in pages[:2] for t, level in page.paras if level == 1][:1]
    return Read(pages, [], about.make(path, props.title, props.author, first))


def _shape_texts(shapes: Iterable[Any], skip: Any = None) -> list[str]:
    """Text of shapes in reading order (top, then left); groups and tables included."""
    out: list[str] = []
    ordered = sorted(shapes, key=lambda s: ((s.top or 0) // 100000, s.left or 0))
    for shape in ordered:
        if shape is skip or (skip is not None and shape.shape_id == skip.shape_id):
            continue
        if shape.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
            out.extend(_shape_texts(shape.shapes))
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = [[" ".join(c.text.split()) for c in r.cells] for r in shape.table.rows]
            out.extend(t for t, _ in table_rows(rows))
        elif getattr(shape, "has_chart", False) and shape.has_chart:
            out.extend(_chart_lines(shape.chart))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            out.extend(
                p for p in (" ".join(par.text.split()) for par in shape.text_frame.paragraphs) if p
            )
    return out


def _figure(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _chart_lines(chart: Any) -> list[str]:
    """A chart's data as a table, a line per category naming the chart and each series'
    value ("Pie chart, Category: 2nd Qtr; Sales: 3.2."). A chart draws figures the slide's
    text never writes; without this its values could not be found or quoted."""
    title = chart.chart_title.text_frame.text.strip() if chart.has_title else ""
    try:  # "PIE", "COLUMN_CLUSTERED": what kind of chart the slide shows ("the pie chart")
        kind = f"{chart.chart_type.name.split('_')[0].lower()} chart"
    except (AttributeError, KeyError, ValueError):  # a chart type python-pptx cannot name
        kind = "chart"
    head = (
        f"{kind.capitalize()} \u201c{' '.join(title.split())}\u201d" if title else kind.capitalize()
    )
    lines: list[str] = []
    for plot in chart.plots:
        series = list(plot.series)
        if not series:
            continue
        rows = [["Category", *(" ".join(str(s.name or "").split()) or "Value" for s in series)]]
        values = [list(s.values) for s in series]
        for i, category in enumerate(plot.categories):
            rows.append([str(category), *(_figure(v[i]) if i < len(v) else "" for v in values)])
        # each row names its chart: a line is quoted alone ("Pie chart, Category: 2nd Qtr")
        lines.extend(f"{head}, {t}" for t, _ in table_rows(rows))
    return lines


def _cover(deck: Any) -> bool:
    """Does the deck open on a title slide (its title a centred title placeholder)?"""
    from pptx.enum.shapes import PP_PLACEHOLDER

    if not len(deck.slides):
        return False
    title = deck.slides[0].shapes.title
    return title is not None and title.placeholder_format.type == PP_PLACEHOLDER.CENTER_TITLE


def read_pptx(path: Path, data: bytes, ctx: Any) -> Read:
    from pptx import Presentation

    check_zip(path, data, ctx.limits)
    try:
        deck = Presentation(io.BytesIO(data))
    except Exception:  # PackageNotFoundError, BadZipFile, KeyError, XML errors: all one line
        raise bad(
            path, "corrupt or unreadable PowerPoint file (.pptx)", "re-save it from PowerPoint"
        ) from None
    pages: list[RawPage] = []
    for number, slide in enumerate(deck.slides, start=1):
        title = slide.shapes.title
        paras: Paragraphs = []
        if title is not None and title.has_text_frame and title.text_frame.text.strip():
            paras.append((" ".join(title.text_frame.text.split()), 1))
        paras.extend((t, None) for t in _shape_texts(slide.shapes, skip=title))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            text = " ".join(notes.text.split()) if notes is not None else ""
            if text:
                paras.append((f"Notes: {text}", None))
        pages.append(RawPage(number, paras, "slide"))
    props = deck.core_properties
    # the title slide's title (a centred title: the layout of a cover) when the file's
    # properties hold none; a deck that opens on a content slide has no cover to read
    cover = [t for t, level in pages[0].paras if level == 1][:1] if _cover(deck) else []
    return Read(pages, [], about.make(path, props.title, props.author, cover))
