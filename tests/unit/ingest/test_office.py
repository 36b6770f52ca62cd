"""Office files and CSV: built at test time with python-docx/python-pptx/openpyxl (no binaries
in the repo), parsed with their locators, and cited by locator through the pipeline."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from localcrag.cli.ask import summary, to_json
from localcrag.crag.pipeline import Pipeline
from localcrag.errors import BadDocument
from localcrag.ingest.chunking import chunk_pages
from localcrag.ingest.context import ReadContext
from localcrag.ingest.library import Library
from localcrag.ingest.limits import Limits
from localcrag.ingest.parse import parse_document
from localcrag.record import RunRecord
from localcrag.settings import Settings
from tests.support.documents import make_docx
from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader


def make_pptx(path: Path) -> Path:
    import pptx

    deck = pptx.Presentation()
    for title, body, notes in [
        ("Launch plan", "Three phases over two quarters.", "Keep it short."),
        (
            "Budget",
            "Marketing gets the largest share.",
            "The contingency reserve for the budget is eight percent.",
        ),
    ]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = notes
    deck.save(path)
    return path


def make_xlsx(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sales = book.active
    sales.title = "Sales"
    sales.append(["Region", "Product", "Units"])
    for i in range(40):
        sales.append([f"Region {i % 5}", f"Widget {i}", i * 10])
    sales.append(["Northfield", "Quokka lamp", 777])
    staff = book.create_sheet("Staff")
    staff.append(["Name", "Role"])
    staff.append(["Ana", "Keeper of the vault"])
    book.save(path)
    return path


def test_docx_keeps_headings_paragraphs_and_table_rows(tmp_path: Path) -> None:
    doc = parse_document(make_docx(tmp_path / "report.docx"))
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Regional offices"), (2, "Outlook")]
    assert "Office: Lisbon; Mascot: a grey heron called Tomasz; Staff: 42." in doc.text
    # a section's number counts the tables before it (cited by it only without a heading)
    assert [(p.unit, p.number) for p in doc.pages] == [("section", 0), ("table", 1), ("section", 1)]
    chunks = chunk_pages(doc, FakeEmbedder().count_tokens_batch, 64, 0, "d", "report.docx")
    table = next(c for c in chunks if "Tomasz" in c.text)
    assert table.locator == "table 1"


def test_docx_form_laid_out_in_nested_tables_is_read(tmp_path: Path) -> None:
    """A form whose outer table's cells hold tables of their own (a procedure template):
    python-docx reads the outer cells as empty, so nothing but the file's properties was
    indexed. Each inner table is read as a table, the cells' own text as paragraphs."""
    import docx

    d = docx.Document()
    outer = d.add_table(rows=2, cols=1)
    inner = outer.cell(0, 0).add_table(rows=2, cols=2)
    for (r, c), value in zip(
        [(0, 0), (0, 1), (1, 0), (1, 1)], ["Last Issue Date", "Revision", "11 December 2017", "1"]
    ):
        inner.cell(r, c).text = value
    outer.cell(1, 0).paragraphs[0].text = "Specific PPE: a safety harness for the crane crew."
    d.save(tmp_path / "procedure.docx")
    doc = parse_document(tmp_path / "procedure.docx")
    assert "Last Issue Date: 11 December 2017; Revision: 1." in doc.text
    assert "Specific PPE: a safety harness for the crane crew." in doc.text


@pytest.mark.parametrize("budget", [64, 512])
def test_docx_body_text_is_cited_by_its_section_never_by_a_table_beside_it(
    tmp_path: Path, budget: int
) -> None:
    """Body text and a table fit in one chunk at 512 tokens: packed together, the body sentence
    was cited "table 1". A table is its own chunk; body text is named by its heading."""
    doc = parse_document(make_docx(tmp_path / "report.docx"))
    chunks = chunk_pages(doc, FakeEmbedder().count_tokens_batch, budget, 0, "d", "report.docx")
    body = next(c for c in chunks if "animal mascot" in c.text)
    assert "Tomasz" not in body.text and body.locator == 'section "Regional offices"'
    assert next(c for c in chunks if "Tomasz" in c.text).locator == "table 1"
    assert next(c for c in chunks if "Growth" in c.text).locator == 'section "Outlook"'


def test_docx_text_without_headings_is_never_cited_by_a_page_it_does_not_have(
    tmp_path: Path,
) -> None:
    """A .docx has no pages: text without a heading was cited "p. 1" wherever it was."""
    import docx

    from localcrag.textutil.labels import label_pattern, source_label

    d = docx.Document()
    d.add_paragraph("The gym opens at six on weekdays.")
    t = d.add_table(rows=2, cols=2)
    for (r, c), value in zip([(0, 0), (0, 1), (1, 0), (1, 1)], ["Class", "Day", "Yoga", "Tuesday"]):
        t.cell(r, c).text = value
    d.add_paragraph("Lockers must be emptied every evening before closing time.")
    d.save(tmp_path / "gym.docx")
    doc = parse_document(tmp_path / "gym.docx")
    chunks = chunk_pages(doc, FakeEmbedder().count_tokens_batch, 512, 0, "d", "gym.docx")
    labels = {
        c.text.split()[0]: source_label(str(tmp_path / "gym.docx"), c.page_start, locator=c.locator)
        for c in chunks
    }
    assert labels == {
        "The": "gym.docx",
        "Class": "gym.docx, table 1",
        "Lockers": "gym.docx, after table 1",
    }
    assert all(re.fullmatch(label_pattern(), label) for label in labels.values() if "," in label)


def test_pptx_slides_and_notes_are_pages_named_slide_n(tmp_path: Path) -> None:
    doc = parse_document(make_pptx(tmp_path / "deck.pptx"))
    assert [(p.unit, p.number) for p in doc.pages] == [("slide", 1), ("slide", 2)]
    assert "Notes: The contingency reserve for the budget is eight percent." in doc.pages[1].text
    assert [h.title for h in doc.headings] == ["Launch plan", "Budget"]
    chunks = chunk_pages(doc, FakeEmbedder().count_tokens_batch, 64, 0, "d", "deck.pptx")
    assert next(c for c in chunks if "contingency" in c.text).locator == "slide 2"


def test_a_slides_chart_is_read_as_a_table_of_its_data(tmp_path: Path) -> None:
    """A chart draws figures no text on its slide writes: its categories and series are
    read as rows, so "the Sales value for the 2nd Qtr" can be found and quoted."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Sales by quarter"
    data = CategoryChartData()
    data.categories = ["1st Qtr", "2nd Qtr", "3rd Qtr"]
    data.add_series("Sales", (8.2, 3.2, 1.4))
    data.add_series("Units", (120, 45, 30))
    frame = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data
    )
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Revenue 2024"
    deck.save(tmp_path / "sales.pptx")
    text = parse_document(tmp_path / "sales.pptx").pages[0].text
    assert "Column chart \u201cRevenue 2024\u201d, Category | Sales | Units" in text
    assert (
        "Column chart \u201cRevenue 2024\u201d, Category: 2nd Qtr; Sales: 3.2; Units: 45." in text
    ), text


def test_xlsx_rows_read_as_header_value_pairs_with_sheet_and_row_locators(tmp_path: Path) -> None:
    doc = parse_document(make_xlsx(tmp_path / "book.xlsx"))
    assert "Region: Northfield; Product: Quokka lamp; Units: 777." in doc.text
    last = next(p for p in doc.pages if "Quokka" in p.text)
    assert (last.unit, last.scope, last.number) == ("row", "sheet Sales", 42)
    chunks = chunk_pages(doc, FakeEmbedder().count_tokens_batch, 64, 0, "d", "book.xlsx")
    quokka = next(c for c in chunks if "Quokka" in c.text)
    assert quokka.locator.startswith("sheet Sales, rows ") and quokka.locator.endswith("\u201342")
    assert next(c for c in chunks if "vault" in c.text).locator == "sheet Staff, rows 1\u20132"


def test_csv_rows_and_row_ranges(tmp_path: Path) -> None:
    f = tmp_path / "cities.csv"
    f.write_text("city;population\nPorto;231800\nBraga;193300\n", encoding="utf-8")
    doc = parse_document(f)
    assert "city: Braga; population: 193300." in doc.text
    assert [(p.unit, p.number) for p in doc.pages] == [("row", 1), ("row", 2), ("row", 3)]


def test_office_zip_over_the_archive_limit_is_one_line(tmp_path: Path) -> None:
    f = make_docx(tmp_path / "bomb.docx")
    with zipfile.ZipFile(f, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/media/padding.bin", b"\0" * 3_000_000)
    with pytest.raises(BadDocument) as exc:
        parse_document(f, ctx=ReadContext(Limits(max_archive_bytes=2_000_000)))
    assert "bomb.docx" in str(exc.value) and "max_archive_bytes" in str(exc.value)


@pytest.fixture()
def office_library(tmp_path: Path) -> Library:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_docx(docs / "report.docx")
    make_pptx(docs / "deck.pptx")
    make_xlsx(docs / "book.xlsx")
    lib = Library(Settings(), embedder=FakeEmbedder())
    report = lib.ingest([docs])
    assert len(report.indexed) == 3 and not report.failed
    return lib


@pytest.mark.parametrize(
    ("question", "answer", "label"),
    [
        (
            "What mascot does the Lisbon office keep?",
            "The Lisbon office keeps a grey heron called Tomasz [1].",
            "report.docx, table 1",
        ),
        (
            "What does each regional office keep?",
            "Each regional office keeps an animal mascot [1].",
            'report.docx, section "Regional offices"',
        ),
        (
            "What is the contingency reserve for the budget?",
            "The contingency reserve for the budget is eight percent [1].",
            "deck.pptx, slide 2",
        ),
        (
            "How many units of the Quokka lamp did Northfield sell?",
            "Northfield sold 777 units of the Quokka lamp [1].",
            "book.xlsx, sheet Sales, rows",
        ),
    ],
)
def test_cited_answer_names_the_locator(
    office_library: Library, question: str, answer: str, label: str
) -> None:
    settings = Settings(
        offline=True,
        upper_threshold=0.6,
        lower_threshold=0.35,
        strip_threshold=0.35,
        answer_style="generative",
    )
    pipe = Pipeline(
        settings, library=office_library, grader=FakeGrader(), generator=FakeGenerator(answer)
    )
    record = RunRecord(question, "crag")
    for event in pipe.run(question):
        record.add(event)
    assert record.answer is not None and not record.answer.refused
    assert record.answer.citations, record.answer.text
    assert f"[1] {label}" in summary(record)  # what `localcrag ask` prints under "Sources:"
    cited = to_json(record)["citations"][0]  # what `localcrag ask --json` prints
    assert cited["locator"] and label.split(", ", 1)[1] in cited["locator"]
    assert any(e["locator"] == cited["locator"] for e in to_json(record)["evidence"])
