"""PDF and EPUB through PyMuPDF: paragraphs per page, headings from font size/weight.

Cheap heuristics, one ``get_text("dict")`` per page: the body size is the most common
span size; a short line run that is bold or >= 1.15x body size is a heading (with a
PDF outline, bold body-size runs must match an outline entry, which drops bold author
names and table labels). Heading sizes each within 15% of the next share a level ("Chapter 17" set a
point larger than "Chapter 16" stays a sibling); "3.2.1"-style numbering nests deeper.
Lines of a block are joined with spaces (de-hyphenated); bullets keep their newline.
Page numbers and running headers in the top/bottom 8% margins, and rotated text
(arXiv stamps), are dropped. EPUBs are laid out on A5 pages at 11 pt, so their page
numbers are stable for a given file but are not a printed book's.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from localcrag.ingest import about
from localcrag.ingest.files import NOT_READ, Paragraphs, RawPage, Read, bad, label
from localcrag.ingest.files import join_lines as _join
from localcrag.ingest.files import page_ranges as _ranges
from localcrag.ingest.limits import Limits, check_chars, check_pages, check_zip
from localcrag.ingest.pdftables import TableTooLarge, load_pymupdf, page_tables
from localcrag.ingest.textlayer import garbage

_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?\s")
_PAGE_NO = re.compile(r"(?:page\s*)?[\divxlc]{1,6}(?:\s*(?:of|/)\s*\d+)?", re.I)

Line = tuple[str, float, bool, float, float]  # text, size, bold, y0, y1
Run = tuple[str, float, bool, float, float, int]  # text, size, bold, y0, y1, n_lines
Pages = list[tuple[int, list[list[Line]], float, bool]]  # number, blocks, height, has images


def _plain(page: Any, flags: int) -> str:
    """The page's text as ``textlayer.garbage`` judges it: a glyph without a Unicode
    mapping is U+FFFD here (``_blocks`` reads its glyph number instead, as MuPDF's
    TEXT_CID_FOR_UNKNOWN_UNICODE does: a font without a ToUnicode map reads as letters,
    "8PNCBUT" for "Wombats"). 1.5-5 ms a page (measured on the PDFs in the test data)."""
    try:
        return str(page.get_text("text", flags=flags))
    except Exception:  # noqa: BLE001 - MuPDF's error: no verdict, the page's text is kept
        return ""


def _inside(box: tuple, rects: list) -> bool:
    """Is the centre of ``box`` inside one of ``rects`` (a table's cells)?"""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(r[0] <= x <= r[2] and r[1] <= y <= r[3] for r in rects)


COLUMN_SHARE = 0.2  # of the page's width: the narrowest column of prose
COLUMN_LINES = 3  # lines each column of a block holds at least
COLUMN_CHARS = 20  # characters a column's lines hold on average: prose, not labels


def _spans(lines: list[dict]) -> list[list]:
    """``lines`` grouped by horizontal extent: [x0, x1, lines] for each run of lines whose
    extents overlap, left to right."""
    spans: list[list] = []
    for line in sorted(lines, key=lambda ln: ln["bbox"][0]):
        x0, _, x1, _ = line["bbox"]
        if spans and x0 < spans[-1][1] - 1:
            spans[-1][1] = max(spans[-1][1], x1)
            spans[-1][2].append(line)
        else:
            spans.append([x0, x1, [line]])
    return spans


def _chars(lines: list[dict]) -> float:
    """The characters ``lines`` hold on average."""
    return sum(len("".join(s["text"] for s in ln["spans"]).strip()) for ln in lines) / len(lines)


def _prose(col: list, width: float) -> bool:
    """Is the span ``col`` a column of prose (see ``_reading_order``)?"""
    wide = col[1] - col[0] >= COLUMN_SHARE * width
    return wide and len(col[2]) >= COLUMN_LINES and _chars(col[2]) >= COLUMN_CHARS


def _reading_order(blocks: list[dict], width: float) -> list[list[dict]]:
    """The page's blocks' lines in reading order, as groups of lines. MuPDF groups lines
    into blocks by position; on some multi-column pages it makes bands across the columns,
    their lines in the order they are drawn (line by line across the columns: "No
    deductions Enter 'Dual-Status Return' across the resident alien"). A block whose lines
    fall into separate columns of prose (horizontal extents that never overlap, each at
    least ``COLUMN_SHARE`` of the page wide, ``COLUMN_LINES`` lines of ``COLUMN_CHARS``
    characters on average) shows the page's columns; each run of bands whose lines all sit
    in those columns, prose too, is then read column by column, top to bottom. A label beside its value
    (a datasheet's "Supply voltage   3.3 V") is no column: such a page reads as drawn."""
    lined = [list(b.get("lines", ())) for b in blocks]
    split = [sp for lines in lined if len(sp := _spans(lines)) > 1]
    split = [sp for sp in split if all(_prose(col, width) for col in sp)]
    if not split:
        return lined
    cols = [(c[0], c[1]) for c in max(split, key=lambda sp: sum(len(c[2]) for c in sp))]

    def column(line: dict) -> int | None:
        x0, _, x1, _ = line["bbox"]
        return next((i for i, (a, b) in enumerate(cols) if x0 >= a - 2 and x1 <= b + 2), None)

    out: list[list[dict]] = []
    run: list[list[dict]] = [[] for _ in cols]  # the current run of bands, per column
    for lines in lined:
        where = [column(ln) for ln in lines]
        if lines and None not in where and len(set(where)) > 1 and _chars(lines) >= COLUMN_CHARS:
            for ln, i in zip(lines, where):
                run[i].append(ln)  # type: ignore[index]
            continue
        out += [sorted(c, key=lambda ln: ln["bbox"][1]) for c in run if c]
        run = [[] for _ in cols]
        out.append(lines)
    out += [sorted(c, key=lambda ln: ln["bbox"][1]) for c in run if c]
    return out


def _blocks(read: dict, skip: list | None = None) -> list[list[Line]]:
    """A page's text blocks (its ``get_text("dict")``) as styled lines, in reading order
    (``_reading_order``: bands across columns read column by column); rotated lines (margin stamps) and
    the lines inside ``skip`` (the tables read as tables) are dropped."""
    blocks: list[list[Line]] = []
    width = float(read.get("width") or 0.0)
    for column in _reading_order(read["blocks"], width):
        lines: list[Line] = []
        for line in column:
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans or abs(line["dir"][1]) > 0.5 or (skip and _inside(line["bbox"], skip)):
                continue
            n = sum(len(s["text"]) for s in spans)
            size = round(sum(s["size"] * len(s["text"]) for s in spans) / n * 2) / 2
            bold = all(s["flags"] & 16 or "bold" in s["font"].lower() for s in spans)
            text = "".join(s["text"] for s in line["spans"]).strip()
            lines.append((text, size, bold, line["bbox"][1], line["bbox"][3]))
        if lines:
            blocks.append(lines)
    return blocks


def _runs(blocks: list[list[Line]], body: float, bold_ok: bool) -> list[Run]:
    """Split blocks where lines switch between body style and heading style."""

    def style(line: Line) -> tuple[float, bool]:
        return (line[1] if line[1] >= body * 1.15 else 0.0, line[2] and bold_ok)

    runs: list[Run] = []
    for lines in blocks:
        group: list[Line] = []
        for line in lines:
            if group and style(line) != style(group[-1]):
                runs.append(_run(group))
                group = []
            group.append(line)
        runs.append(_run(group))
    return runs


def _run(group: list[Line]) -> Run:
    return (
        _join([g[0] for g in group]),
        group[0][1],
        group[0][2],
        group[0][3],
        group[-1][4],
        len(group),
    )


def _norm(title: str) -> str:
    return re.sub(r"\W+", "", re.sub(r"^[\d.]+\s+", "", title.strip())).lower()


def _is_heading(run: Run, body: float, bold_ok: bool, toc: set[str] | None) -> bool:
    text, size, bold, _, _, n_lines = run
    if not (2 <= len(text) <= 150 and n_lines <= 3 and len(text.split()) <= 18):
        return False
    if text[-1] in ".,;:" or not re.search(r"[^\W\d_]", text):
        return False
    if size >= body * 1.15:
        return True
    return bold_ok and bold and size >= body - 0.5 and (toc is None or _norm(text) in toc)


def _levels(sizes: set[float]) -> dict[float, int]:
    level, out, prev = 0, {}, None
    for s in sorted(sizes, reverse=True):
        if prev is None or prev / s >= 1.15:
            level += 1
        out[s] = level
        prev = s
    return out


def read_pdf(path: Path, data: bytes, ctx: Any) -> Read:
    return fitz_pages(path, data, "pdf", ctx=ctx)


def read_epub(path: Path, data: bytes, ctx: Any) -> Read:
    check_zip(path, data, ctx.limits)
    return fitz_pages(path, data, "epub", ctx=ctx)


def fitz_pages(
    path: Path, data: bytes, kind: str, limits: Limits | None = None, ctx: Any = None
) -> Read:
    """Parse PDF/EPUB bytes; raises BadDocument for corrupt, locked, text-less or
    over-limit files (pages before the text is read, characters as it is read). PDF pages
    without a text layer (every page with ``ocr = "always"``) are read by OCR
    (``ctx``: a ``context.ReadContext``), unless ``ocr = "never"``."""
    from localcrag.ingest.context import ReadContext

    pymupdf = load_pymupdf()

    ctx = ctx or ReadContext(limits or Limits())
    limits = ctx.limits

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        doc = pymupdf.open(stream=data, filetype=kind)
    except Exception:  # FileDataError, RuntimeError...: MuPDF's reasons are not actionable
        raise bad(
            path, f"corrupt or unreadable {kind.upper()} file", "re-download or re-export it"
        ) from None
    with doc:
        if doc.needs_pass:
            raise bad(
                path,
                "password-protected (encrypted) PDF",
                "remove the password first, e.g. qpdf --decrypt",
            )
        try:  # an EPUB is laid out (its members inflated) here, not at open
            if doc.is_reflowable:
                doc.layout(rect=pymupdf.paper_rect("a5"), fontsize=11)
            n_pages = doc.page_count
        except Exception as exc:  # noqa: BLE001 - MuPDF's RuntimeError
            why = (
                "a member of the archive does not inflate to the size its directory records "
                "(damaged or forged zip; zlib inflate error)"
                if "inflate" in str(exc)
                else f"corrupt or unreadable {kind.upper()} file"
            )
            raise bad(path, why, "re-download or re-export it") from None
        if n_pages == 0:
            raise bad(path, "document has no pages", "re-export it")
        check_pages(path, doc.page_count, limits)
        repaired = kind == "pdf" and doc.is_repaired  # MuPDF rebuilt a damaged/truncated file
        n_chars = 0
        flags = (
            pymupdf.TEXTFLAGS_DICT
            & ~pymupdf.TEXT_PRESERVE_IMAGES
            & ~pymupdf.TEXT_PRESERVE_LIGATURES
        )
        plain = pymupdf.TEXT_MEDIABOX_CLIP  # for the verdict: unmapped glyphs as U+FFFD
        pages: Pages = []
        unreadable: list[int] = []
        tables: dict[int, Paragraphs] = {}  # page number -> its tables' lines
        too_large: dict[int, str] = {}  # page number -> why its tables were read as text
        junk: dict[int, str] = {}  # page number -> why its text layer is not text
        for page in doc.pages():
            try:
                raw = page.get_text("dict", flags=flags)  # once: tables, then the rest
                try:
                    found = page_tables(page, path.name, limits, raw) if kind == "pdf" else []
                except TableTooLarge as exc:  # its text is read below, as running text
                    found, too_large[page.number + 1] = [], str(exc)
                tables[page.number + 1] = [p for _, paras in found for p in paras]
                blocks = _blocks(raw, [box for box, _ in found])
                images = not blocks and bool(page.get_images())
                if (
                    kind == "pdf"
                    and (blocks or found)
                    and (not_text := garbage([_plain(page, plain)]))
                ):
                    junk[page.number + 1] = not_text
            except Exception:  # one broken page should not lose the whole document
                blocks, images = [], False
                unreadable.append(page.number + 1)
            pages.append((page.number + 1, blocks, page.rect.height, images))
            n_chars += sum(len(line[0]) for b in blocks for line in b)
            check_chars(path, n_chars, limits, at_least=page.number + 1 < doc.page_count)
        toc = doc.get_toc(simple=True) if kind == "pdf" else []
        metadata = doc.metadata
        todo = [
            n
            for n, blocks, _, img in pages
            if ctx.ocr == "always" or (not blocks and img) or n in junk
        ]
        ocr: dict[int, Paragraphs] = {}
        ocr_warnings: list[str] = []
        if kind == "pdf" and ctx.ocr != "never" and todo:
            from localcrag.ingest.ocr import ocr_pdf_pages

            ocr, ocr_warnings = ocr_pdf_pages(path, doc, todo, ctx)
            has_text = {n for n, blocks, _, _ in pages if blocks or tables.get(n)}
            # OCR found nothing: a text layer is kept ("always"; a page judged not text too)
            ocr = {n: paras for n, paras in ocr.items() if paras or n not in has_text}
    text_pages = [p for p in pages if p[0] not in ocr]
    if (
        not any(blocks for _, blocks, _, _ in text_pages)
        and not any(ocr.values())
        and not any(tables.values())
    ):
        if any(img for *_, img in pages) and ctx.ocr == "never":
            raise bad(
                path,
                "no extractable text (image-only/scanned PDF)",
                'set ocr = "auto" (config.toml or LOCALCRAG_OCR=auto) to read it with OCR',
            )
        if any(img for *_, img in pages) and kind == "pdf":
            raise bad(
                path,
                "no text found by OCR on its image-only pages",
                "; ".join(w.split(": ", 1)[-1] for w in ocr_warnings) or "check the scan's quality",
            )
        raise bad(path, "no extractable text", "the document has no text layer")
    toc_titles = {_norm(t) for _, t, _ in toc} or None
    tried = set(todo) if kind == "pdf" and ctx.ocr != "never" else set()
    warnings = _warnings(path, pages, unreadable, tried) + _junk_warnings(path, junk, ocr, ctx.ocr)
    warnings += ocr_warnings
    if too_large:
        first = next(iter(too_large.values()))
        warnings.append(
            f"{label(path)}: page(s) {_ranges(sorted(too_large))} indexed as plain text, not "
            f"as a table: {first}; raise the setting to read it as a table"
        )
    if repaired:
        n_text = sum(1 for _, blocks, _, _ in pages if blocks)
        warnings.insert(
            0,
            f"{label(path)}: damaged or truncated PDF, repaired by MuPDF: text recovered "
            f"from {n_text} of {len(pages)} page(s) (re-download or re-export it for the rest)",
        )
    read: dict[int, Paragraphs] = {}
    running: list[str] = []
    titles: list[str] = []
    if any(blocks for _, blocks, _, _ in text_pages):
        paras, running, titles = _paragraphs(text_pages, toc_titles, margins=kind == "pdf")
        read = dict(paras)
    meta = metadata or {}
    return Read(
        [
            RawPage(n, ocr[n], "ocr")
            if n in ocr
            else RawPage(n, read.get(n, []) + tables.get(n, []))
            for n, *_ in pages
        ],
        warnings,
        about.make(path, meta.get("title"), meta.get("author"), titles, running),
    )


def _paragraphs(
    pages: Pages, toc: set[str] | None, margins: bool
) -> tuple[list[tuple[int, Paragraphs]], list[str], list[str]]:
    """Paragraphs per page (headings with their level), the running header dropped from
    every page's top margin (its first page's lines, page numbers left out) and the first
    page's title lines (its largest text, when larger than the body's, in its top half)."""
    sizes: Counter[float] = Counter()
    bold_chars: Counter[float] = Counter()
    for _, blocks, _, _ in pages:
        for line in (ln for b in blocks for ln in b):
            sizes[line[1]] += len(line[0])
            bold_chars[line[1]] += len(line[0]) if line[2] else 0
    body = sizes.most_common(1)[0][0]
    bold_ok = bold_chars[body] < 0.5 * sizes[body]  # bold marks headings unless body is bold
    page_runs = [(n, _runs(blocks, body, bold_ok), h) for n, blocks, h, _ in pages]
    margin: Counter[str] = Counter()
    for _, runs, h in page_runs:
        for r in runs:
            if r[4] < 0.08 * h or r[3] > 0.92 * h:
                margin[re.sub(r"\d+", "#", r[0])] += 1
    repeated = {t for t, n in margin.items() if n >= max(3, len(pages) // 2)}
    heads = [[_is_heading(r, body, bold_ok, toc) for r in runs] for _, runs, _ in page_runs]
    levels = _levels(
        {r[1] for (_, runs, _), hs in zip(page_runs, heads) for r, h in zip(runs, hs) if h}
    )
    out = []
    running: list[str] = []
    for (number, runs, h), hs in zip(page_runs, heads):
        paras: Paragraphs = []
        header: list[str] = []
        for r, is_head in zip(runs, hs):
            in_margin = margins and (r[4] < 0.08 * h or r[3] > 0.92 * h)
            if in_margin and (_PAGE_NO.fullmatch(r[0]) or re.sub(r"\d+", "#", r[0]) in repeated):
                if r[4] < 0.08 * h and not _PAGE_NO.fullmatch(r[0].strip(" -–—")):
                    header.append(r[0])
                continue
            level = None
            if is_head:
                m = _NUMBERED.match(r[0])
                level = levels[r[1]] + (m.group(1).count(".") if m else 0)
            paras.append((r[0], level))
        out.append((number, paras))
        running = running or header
    first = page_runs[0]
    big = [r for r in first[1] if r[1] >= body * 1.15 and r[4] < 0.5 * first[2]]
    top = max((r[1] for r in big), default=0.0)
    return out, running, [r[0] for r in big if r[1] == top]


def _junk_warnings(
    path: Path, junk: dict[int, str], ocr: dict[int, Paragraphs], mode: str
) -> list[str]:
    """What became of the pages whose text layer is not text (``textlayer.garbage``): read
    by OCR, or not read (OCR off or it found nothing): their text layer is indexed as it is,
    and the line says NOT_READ (``localcrag doctor`` names the document)."""
    if not junk:
        return []
    read = sorted(n for n in junk if ocr.get(n))
    left = sorted(n for n in junk if not ocr.get(n))
    out = []
    if read:
        out.append(
            f"{label(path)}: page(s) {_ranges(read)} read by OCR: their text layer is not "
            f"text (p. {read[0]}: {junk[read[0]]})"
        )
    if left:
        fix = (
            'set ocr = "auto" to read them with OCR'
            if mode == "never"
            else "OCR read no text from them; re-export the PDF from its source, or raise ocr_dpi"
        )
        out.append(
            f"{label(path)}: page(s) {_ranges(left)} {NOT_READ}: their text layer is not text "
            f"(p. {left[0]}: {junk[left[0]]}); {fix}"
        )
    return out


def _warnings(path: Path, pages: Pages, unreadable: list[int], ocr_tried: set[int]) -> list[str]:
    empty = [n for n, blocks, _, img in pages if not blocks and img and n not in ocr_tried]
    out = []
    if empty:
        out.append(
            f"{label(path)}: page(s) {_ranges(empty)} have only images "
            '(set ocr = "auto" to read them with OCR)'
        )
    if unreadable:
        out.append(f"{label(path)}: page(s) {_ranges(unreadable)} could not be read")
    return out
