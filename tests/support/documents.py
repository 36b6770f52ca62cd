"""Spreadsheet and CSV files built in code for the table tests (no file from the internet).

``make_regression_xlsx``: a sheet "Sales" with a data table (Salesman, Number of Customers,
Net Sales) in A:C and, beside it from column E, the block Excel's Analysis ToolPak writes
for a regression: "SUMMARY OUTPUT", "Regression Statistics", "ANOVA" (a merged title cell)
and the coefficients table, whose header's first cell is blank (row labels).
``make_stock_csv``: daily prices of a ticker, one row per date.
``make_docx``: a Word file with a heading, a table and a subheading.
``single_line``: one endless line of words; ``ruled_grid_pdf``: a page of ruled grid.
``epub``: a minimal EPUB 3, one XHTML file per chapter.
``lined_page``: a picture of numbered text lines at given heights, for the OCR tests.
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

REGRESSION = {
    "Multiple R": 0.9559807268041355,
    "R Square": 0.9139,
    "Adjusted R Square": 0.9091,
    "Standard Error": 18.4,
    "Observations": 20,
}
ANOVA = [
    ["", "df", "SS", "MS", "F", "Significance F"],
    ["Regression", 1, 64281.3, 64281.3, 191.22, 4.8e-11],
    ["Residual", 18, 6051.2, 336.2],
    ["Total", 19, 70332.5],
]
COEFFICIENTS = [
    ["", "Coefficients", "Standard Error", "t Stat", "P-value"],
    ["Intercept", 12.5, 8.1, 1.54, 0.1403],
    ["Number of Customers", 0.41284633383982516, 0.0298, 13.83, 4.8e-11],
]


def make_regression_xlsx(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(["Salesman", "Number of Customers", "Net Sales"])
    for i in range(20):
        sheet.append([f"Salesman {i + 1}", 100 + 7 * i, 50 + 3 * i])
    at = 1
    sheet.cell(at, 5, "SUMMARY OUTPUT")
    at += 2
    sheet.cell(at, 5, "Regression Statistics")
    for name, value in REGRESSION.items():
        at += 1
        sheet.cell(at, 5, name)
        sheet.cell(at, 6, value)
    at += 2
    sheet.cell(at, 5, "ANOVA")
    sheet.merge_cells(start_row=at, start_column=5, end_row=at, end_column=10)
    for row in ANOVA:
        at += 1
        for j, v in enumerate(row):
            sheet.cell(at, 5 + j, v if v != "" else None)
    at += 1
    for row in COEFFICIENTS:
        at += 1
        for j, v in enumerate(row):
            sheet.cell(at, 5 + j, v if v != "" else None)
    book.save(path)
    return path


def make_stock_csv(path: Path, days: int = 60) -> Path:
    import datetime as dt

    lines = ["Date,Open,High,Low,Close,Volume"]
    day = dt.date(2010, 6, 28)
    for i in range(days):
        o = 19 + i * 0.25
        lines.append(
            f"{day.isoformat()},{o:.2f},{o + 1.5:.2f},{o - 1:.2f},{o + 0.5:.2f},{1000 + 37 * i}"
        )
        day += dt.timedelta(days=1)
    lines[2] = "2010-06-29,19.00,25.00,17.54,23.83,18766300"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make_table_pdf(path: Path) -> Path:
    """A PDF page with prose, a caption "Table 2: ANOVA of net sales" and the ANOVA table
    above drawn as a ruled grid (lines, then each cell's text), and prose after it."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Quarterly report", fontsize=16)
    page.insert_text(
        (72, 100), "Sales rose in every region. The table gives the regression output."
    )
    page.insert_text((72, 130), "Table 2: ANOVA of net sales")
    rows = [[str(v) if v != "" else "" for v in r] for r in ANOVA]
    x0, y0, w, h = 72, 140, 80, 20
    for i in range(len(rows) + 1):
        page.draw_line((x0, y0 + i * h), (x0 + w * len(rows[0]), y0 + i * h))
    for j in range(len(rows[0]) + 1):
        page.draw_line((x0 + j * w, y0), (x0 + j * w, y0 + h * len(rows)))
    for i, r in enumerate(rows):
        for j, c in enumerate(r):
            page.insert_text((x0 + j * w + 4, y0 + i * h + 14), c, fontsize=9)
    page.insert_text((72, 260), "The model explains most of the variance in net sales.")
    doc.save(path)
    return path


def make_booktabs_pdf(path: Path) -> Path:
    """A PDF page with a booktabs table: a caption "Table 3: Scores of the three models",
    three horizontal rules (top, under the header, bottom) and no vertical ones, its columns
    set by the text's alignment alone; prose before and after it."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Results", fontsize=16)
    page.insert_text((72, 100), "The models were trained on the same data; the table scores them.")
    page.insert_text((150, 130), "Table 3: Scores of the three models", fontsize=10)
    rows = [["Model", "BLEU", "Params"], ["Baseline", "25.8", "65M"], ["Wide", "26.4", "213M"]]
    rows.append(["Deep", "26.0", "168M"])
    xs, y = (120, 300, 420), 145
    page.draw_line((110, y), (500, y), width=0.8)
    for i, row in enumerate(rows):
        y += 14
        for x, cell in zip(xs, row):
            page.insert_text((x, y), cell, fontsize=10)
        if i == 0:
            y += 5
            page.draw_line((110, y), (500, y), width=0.5)
    page.draw_line((110, y + 6), (500, y + 6), width=0.8)
    page.insert_text((72, y + 36), "The wide model scores best but has three times the parameters.")
    doc.save(path)
    return path


def make_ruled_prose_pdf(path: Path) -> Path:
    """A PDF page of three paragraphs of prose, each between two full-width horizontal rules
    (four rules in all): no table."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    y = 100
    for k in range(3):
        page.draw_line((72, y), (520, y))
        for i in range(4):
            y += 14
            page.insert_text(
                (72, y),
                f"Paragraph {k}, line {i}: plain prose that runs across the page.",
                fontsize=10,
            )
        y += 10
    page.draw_line((72, y), (520, y))
    doc.save(path)
    return path


def make_two_column_pdf(path: Path) -> Path:
    """A journal page: a running header over a full-width rule, two columns of prose, a
    footnote under a short rule and a full-width rule over the page number (three rules,
    the header's and the footer's as wide as each other: no table)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 55), "Journal of Examples, vol. 3", fontsize=8)
    page.draw_line((50, 60), (562, 60))
    words = "the quick brown fox jumps over the lazy dog while the model reads every line".split()
    for col, x in enumerate((50, 316)):
        for i in range(40):
            line = " ".join(words[(i + col) % 5 :][:8])
            page.insert_text((x, 94 + 14 * i), f"{line} {col}-{i}.", fontsize=9)
    page.draw_line((50, 680), (150, 680))
    page.insert_text((50, 692), "1 A footnote.", fontsize=8)
    page.draw_line((50, 740), (562, 740))
    page.insert_text((300, 752), "3", fontsize=8)
    doc.save(path)
    return path


def make_grouped_registration_pdf(path: Path) -> Path:
    """A PDF page with a registration table set by alignment alone (no rules): a header
    (County, Precincts, Date/Period, Democratic, Green, Total), then six counties, each
    labelled once beside the first of its three rows (JUL 2023, OCT 2023, JAN 2024), one
    name wrapped onto two lines ("Santa" / "Cruz"), the totals and the parties' percentages
    (no precincts) in groups of the same three rows, a "*" where a party had no figure,
    figures set flush right; below, a second block of the same
    columns under its own label ("Congressional District 2") and no header of its own."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font("helv")

    def right(x: float, y: float, text: str) -> None:  # flush right at x
        page.insert_text((x - font.text_length(text, fontsize=9), y), text, fontsize=9)

    header, y = ["County", "Precincts", "Date/Period", "Democratic", "Green", "Total"], 80
    for x, name in zip((40, 100, 160, 250, 320, 400), header):
        page.insert_text((x, y), name, fontsize=9)
    counties = ["Apache", "Cochise", "Gila", "Pima", "Santa Cruz", "Yuma", "Totals:"]
    for c, county in enumerate([*counties, "Percentages:"]):
        for k, period in enumerate(["JUL 2023", "OCT 2023", "JAN 2024"]):
            y += 14
            words = county.split()  # a county's name wrapped onto its second line
            if k < len(words):
                page.insert_text((40, y), words[k] if len(words) == 2 else county, fontsize=9)
            if county == "Percentages:":  # shares of the total, no precincts
                page.insert_text((160, y), period, fontsize=9)
                right(290, y, f"{30.02 - k:.2f}")
                right(350, y, "*" if k < 2 else "0.06")
                continue
            right(140, y, str(40 + c))
            page.insert_text((160, y), period, fontsize=9)
            right(290, y, f"{(c + 1) * 10_000 + k * 111:,}")
            right(350, y, "*" if k < 2 else str(5 + c))
            right(440, y, f"{(c + 1) * 30_000 + k * 7:,}")
    y += 40
    page.insert_text((40, y), "Congressional District 2", fontsize=9)
    for c, county in enumerate(["Apache", "Cochise", "Gila"]):
        y += 14
        page.insert_text((40, y), county, fontsize=9)
        right(140, y, str(7 + c))
        page.insert_text((160, y), "JAN 2024", fontsize=9)
        right(290, y, f"{(c + 1) * 1_000:,}")
        right(350, y, str(c))
        right(440, y, f"{(c + 1) * 3_000:,}")
    doc.save(path)
    return path


def epub(path: Path, chapters: dict[str, str]) -> Path:
    """A minimal EPUB 3 holding one XHTML file per chapter (deflated)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", zipfile.ZIP_STORED)
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
            'full-path="c.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        items = "".join(
            f'<item id="{k}" href="{k}.xhtml" media-type="application/xhtml+xml"/>'
            for k in chapters
        )
        refs = "".join(f'<itemref idref="{k}"/>' for k in chapters)
        z.writestr(
            "c.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
            'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier '
            'id="id">x</dc:identifier><dc:title>T</dc:title><dc:language>en</dc:language></metadata>'
            f"<manifest>{items}</manifest><spine>{refs}</spine></package>",
        )
        for k, body in chapters.items():
            z.writestr(
                f"{k}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/'
                f'xhtml"><head><title>{k}</title></head><body><p>{body}</p></body></html>',
            )
    return path


NAMES = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris"]


def canvas(width: int, height: int, size: int) -> tuple[Any, Any, Any]:
    """A white picture, its drawing context and a font of ``size`` px."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (width, height), "white")
    try:
        font: Any = ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        font = ImageFont.load_default(size=size)
    return img, ImageDraw.Draw(img), font


def lined_page(
    centres: list[int], width: int = 800, height: int = 3200
) -> tuple[np.ndarray, list[str]]:
    """Black lines of text centred at ``centres`` (pixel rows), as BGR, and the lines drawn."""
    img, draw, font = canvas(width, height, 30)
    lines = []
    for n, y in enumerate(centres):
        text = f"Line {n + 1} names the {NAMES[n % len(NAMES)]} at row {y}."
        draw.text((40, y), text, fill="black", font=font, anchor="lm")
        lines.append(text)
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1]), lines


def make_docx(path: Path) -> Path:
    """A Word file: a heading, a paragraph, a 3x3 table of offices and mascots, a subheading."""
    import docx

    d = docx.Document()
    d.add_heading("Regional offices", 1)
    d.add_paragraph("Each regional office keeps an animal mascot, listed below.")
    t = d.add_table(rows=3, cols=3)
    rows = [
        ["Office", "Mascot", "Staff"],
        ["Lisbon", "a grey heron called Tomasz", "42"],
        ["Oslo", "a lynx called Frida", "17"],
    ]
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            t.cell(r, c).text = value
    d.add_heading("Outlook", 2)
    d.add_paragraph("Growth is expected in every office next year.")
    d.save(path)
    return path


WORDS = "alpha beta gamma delta market system data river stone light".split()


def single_line(path: Path, n_chars: int, periods: bool = False, seed: int = 1) -> Path:
    """One line of words, no newline (with ``periods``: a sentence end every ~15 words)."""
    rng = random.Random(seed)
    words = [
        rng.choice(WORDS) + ("." if periods and rng.random() < 0.07 else "")
        for _ in range(n_chars // 6 + 1)
    ]
    text = " ".join(words)
    path.write_text((text * (n_chars // len(text) + 1))[:n_chars], encoding="utf-8")
    return path


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


def make_results_csv(path: Path, states: list[str]) -> Path:
    """A results table that heads each candidate's column by surname in capitals and writes
    states as codes ("STATE,HARRIS,TRUMP" / "IA,104444,208888"), as the FEC's does."""
    path.write_text(
        "STATE,HARRIS,TRUMP\n"
        + "".join(
            f"{st},{100_000 + i * 1_111},{200_000 + i * 2_222}\n" for i, st in enumerate(states)
        ),
        encoding="utf-8",
    )
    return path
