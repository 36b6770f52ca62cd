"""What a document is (ingest/about): title, authors and date from the file's properties and
its first page, written as the document's first line and given to every chunk as context;
and a two-row table header read as one. Every document here is built by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.crag.answer.binding import bindings, key_terms
from localcrag.crag.answer.constraints import read
from localcrag.ingest.parse import parse_document
from localcrag.textutil.labels import ABOUT
from localcrag.types import Action

COUNTIES = [("Adair", 5434, 761), ("Johnson", 101234, 9876), ("Polk", 334455, 22113)]


def _grid(page, x0: float, y0: float, rows: list[list[str]], widths: list[float]) -> None:
    """A ruled grid table: every row and column line drawn, then each cell's text."""
    h = 18
    right = x0 + sum(widths)
    for i in range(len(rows) + 1):
        page.draw_line((x0, y0 + i * h), (right, y0 + i * h))
    x = x0
    for w in [0.0, *widths]:
        x += w
        page.draw_line((x, y0), (x, y0 + h * len(rows)))
    for i, row in enumerate(rows):
        x = x0
        for w, cell in zip(widths, row):
            page.insert_text((x + 3, y0 + i * h + 13), cell, fontsize=8)
            x += w


def make_running_header_pdf(path: Path) -> Path:
    """Three pages of a county table, each under the same running header (the report's
    title and its date, printed in the top margin of every page), no title in the file's
    properties: the report's name is said only in that header."""
    import pymupdf

    doc = pymupdf.open()
    for n, (county, total, inactive) in enumerate(COUNTIES, start=1):
        page = doc.new_page()
        page.insert_text((200, 30), "State of Iowa Voter Registration Totals", fontsize=9)
        page.insert_text((480, 30), "7/5/2022", fontsize=9)
        page.insert_text((280, 820), f"Page {n}", fontsize=8)
        rows = [
            ["County", "Democratic Inactive", "Grand Total"],
            [county, f"{inactive}", f"{total}"],
            [f"{county} East", "12", "340"],
        ]
        _grid(page, 72, 100, rows, [120, 120, 120])
    doc.save(path)
    return path


def test_a_running_header_names_the_document_and_every_chunk(tmp_path) -> None:
    """The header the PDF reader drops from each page's margin is the document's title and
    date: its first line says so once, and every chunk carries it before its heading."""
    from localcrag.ingest.chunking import chunk_pages

    doc = parse_document(make_running_header_pdf(tmp_path / "CoJul22.pdf"))
    assert doc.about.title == "State of Iowa Voter Registration Totals"
    assert doc.about.date == "7/5/2022"
    assert doc.pages[0].text.startswith(
        f"{ABOUT} State of Iowa Voter Registration Totals. Date: 7/5/2022."
    )
    assert doc.text.count("State of Iowa Voter Registration Totals") == 1  # not on each page
    chunks = chunk_pages(doc, lambda ts: [len(t.split()) for t in ts], 40, 0, "d", "s")
    assert len(chunks) >= 3
    assert all(
        (c.heading or "").startswith("State of Iowa Voter Registration Totals; 7/5/2022")
        for c in chunks
    )


def test_the_file_s_properties_name_title_and_author(tmp_path) -> None:
    """A PDF's, a Word file's and an HTML page's own title (and author), not a placeholder
    ("Microsoft Word - x.docx") or the file's name."""
    import docx
    import pymupdf

    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Arrests fell in every region in 2009.")
    pdf.set_metadata({"title": "Arrests by Sex and Age", "author": "U.S. Census Bureau"})
    pdf.save(tmp_path / "12s0324.pdf")
    about = parse_document(tmp_path / "12s0324.pdf").about
    assert (about.title, about.authors) == ("Arrests by Sex and Age", "U.S. Census Bureau")

    word = docx.Document()
    word.add_paragraph("The grant pays for two years of field work.")
    word.core_properties.title = "Microsoft Word - grant.docx"
    word.core_properties.author = "Jane Roe"
    word.add_heading("Field work grant", level=1)
    word.save(tmp_path / "grant.docx")
    parsed = parse_document(tmp_path / "grant.docx")
    assert (parsed.about.title, parsed.about.authors) == ("Field work grant", "Jane Roe")
    assert parsed.pages[0].text.startswith(f"{ABOUT} Field work grant. Author: Jane Roe.")

    (tmp_path / "faq.html").write_text(
        "<html><head><title>FAQ: HackRF documentation</title></head><body><h1>FAQ</h1>"
        "<p>The transmit power depends on the frequency.</p></body></html>",
        encoding="utf-8",
    )
    assert parse_document(tmp_path / "faq.html").about.title == "FAQ: HackRF documentation"


def test_a_deck_without_a_title_property_is_named_by_its_title_slide(tmp_path) -> None:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text = "Designing typefaces"
    slide.placeholders[1].text = "A talk by Ann Lee"
    deck.core_properties.title = ""
    deck.save(tmp_path / "talk.pptx")
    assert parse_document(tmp_path / "talk.pptx").about.title == "Designing typefaces"


def test_a_page_s_largest_line_is_its_title_when_the_file_says_none(tmp_path) -> None:
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 80), "Understanding Soil Moisture", fontsize=22)
    for i in range(12):
        page.insert_text((72, 130 + 14 * i), f"Line {i} of the body text says little.")
    pdf.save(tmp_path / "x.pdf")
    assert parse_document(tmp_path / "x.pdf").about.title == "Understanding Soil Moisture"


def make_two_level_header_pdf(path: Path) -> Path:
    """A ruled table whose header has two rows: months spanning two columns each (no rule
    between the spanned columns), then the columns' own names."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "2023 Voter Registration Totals", fontsize=16)
    x0, y0, h, w = 72, 100, 18, 90
    rows = [
        ["County", "Active", "All", "Active", "All"],
        ["KENT", "444,841", "503,891", "445,001", "504,220"],
        ["ALGER", "6,319", "7,552", "6,320", "7,560"],
    ]
    for i in range(len(rows) + 2):  # the group row's top, then each row's
        page.draw_line((x0, y0 + i * h), (x0 + 5 * w, y0 + i * h))
    for j in range(6):  # the group row spans columns 1-2 and 3-4: no rule at 2 and 4
        top = y0 + h if j in (2, 4) else y0
        page.draw_line((x0 + j * w, top), (x0 + j * w, y0 + h * (len(rows) + 1)))
    page.insert_text((x0 + w + 3, y0 + 13), "April", fontsize=8)
    page.insert_text((x0 + 3 * w + 3, y0 + 13), "July", fontsize=8)
    for i, row in enumerate(rows, start=1):
        for j, cell in enumerate(row):
            page.insert_text((x0 + j * w + 3, y0 + i * h + 13), cell, fontsize=8)
    doc.save(path)
    return path


def test_a_two_row_header_names_each_column_by_its_group(tmp_path) -> None:
    text = parse_document(make_two_level_header_pdf(tmp_path / "counts.pdf")).text
    assert "columns: County | April Active | April All | July Active | July All" in text
    assert "County: KENT; April Active: 444,841; April All: 503,891; July Active: 445,001" in text


ROW = "CoJul22.pdf, p. 2, row 3: County: Polk; Democratic Inactive: 22113; Grand Total: 334455."


class _Passage:
    def __init__(self, text: str, heading: str | None, source: str = "/d/CoJul22.pdf") -> None:
        self.text, self.heading, self.source, self.locator = text, heading, source, None


@pytest.mark.parametrize(
    ("heading", "complete"),
    [
        ("State of Iowa Voter Registration Totals; 7/5/2022", True),
        ("State of Iowa Voter Registration Totals; 7/5/2021", False),  # another year
        (None, False),  # a row that says neither the state nor the month
    ],
)
def test_a_row_binds_place_and_month_through_its_document_s_context(heading, complete) -> None:
    cons = read("What is the grand total of registered voters in Polk County, Iowa, in July 2022?")
    found = bindings(cons, [_Passage(ROW, heading)], None)
    assert any(b.complete for b in found) is complete


def test_a_figure_in_a_row_is_no_date_and_the_document_s_line_answers_only_of_itself() -> None:
    """ "As of which date" is not filled by a cell's 867; the document's own line fills a
    date, never a "which" or a number (its file name and title are no such thing)."""
    heading = "State of Iowa Voter Registration Totals; 7/5/2022"
    row = "CoJul22.pdf, p. 1, row 1: County: Adair; Democratic Active: 867; Total: 5434."
    line = f"{ABOUT} State of Iowa Voter Registration Totals. 7/5/2022 9:20 AM."
    cons = read("As of which date are the Iowa county voter registration totals?")
    found = {b.unit.text: b for b in bindings(cons, [_Passage(row, heading)], None)}
    assert found[row].filler is None
    found = {b.unit.text: b for b in bindings(cons, [_Passage(line, heading)], None)}
    assert found[line].complete and found[line].filler == "7/5/2022"
    which = read("Which flash memory part is listed among HackRF One's components?")
    comp = f"{ABOUT} Hardware Components of HackRF One."
    found = {b.unit.text: b for b in bindings(which, [_Passage(comp, None, "/d/hw.html")], None)}
    assert found[comp].filler is None and not found[comp].complete


def test_an_address_spells_no_word_of_the_text() -> None:
    cons = read("How many electoral votes were needed to win the 2024 presidential election?")
    unit = "Bowman & Bowman 2024 (C00883157) 250 Aristocrat Drive www.votestickit.com"
    keys = key_terms(cons)
    found = bindings(cons, [_Passage(unit, "Election results", "/d/r.pdf")], None)
    assert "vote" in keys.weights and not any(b.complete for b in found)


def test_the_pipeline_answers_a_row_by_its_report_s_running_header(tmp_path) -> None:
    """The real index and pipeline over the built report (fake embedder, grader, model):
    a county's figure for the state and month only its running header names is answered;
    the same question for another month is refused, naming the month."""
    from tests.support.fakes import FakeGenerator, asked, quoting_pipeline

    docs = tmp_path / "docs"
    docs.mkdir()
    make_running_header_pdf(docs / "CoJul22.pdf")
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    q = "What is the grand total in Polk County, Iowa, in {}?"
    answered = asked(pipe, q.format("July 2022"))
    assert not answered.claims_nothing and "**334455**" in answered.answer.text
    from localcrag.cli.ask import to_json

    cited = to_json(answered)["citations"]
    assert cited and cited[0]["document"] == "State of Iowa Voter Registration Totals"
    inactive = asked(
        pipe, "How many inactive Democrats were there in Polk County, Iowa, in July 2022?"
    )
    assert "**22113**" in inactive.answer.text, inactive.answer.text
    refused = asked(pipe, q.format("March 2021"))
    assert refused.action is Action.INCORRECT and refused.claims_nothing
    assert "March 2021" in refused.answer.text


def test_the_index_says_what_each_document_is(tmp_path) -> None:
    """What ``sources --json`` lists as ``document``: the built report's title and date,
    nothing for a file that says neither."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.support.fakes import FakeEmbedder

    docs = tmp_path / "docs"
    docs.mkdir()
    make_running_header_pdf(docs / "CoJul22.pdf")
    (docs / "notes.txt").write_text("Polk County grew.\n", encoding="utf-8")
    library = Library(Settings(), embedder=FakeEmbedder())
    assert not library.ingest([docs]).failed
    about = library.documents([s.source for s in library.sources()])
    assert sorted(about.values()) == ["", "State of Iowa Voter Registration Totals; 7/5/2022"]


def make_unruled_table_pdf(path: Path) -> Path:
    """A statistical table set by alignment alone (no rule drawn): a caption, a header of
    groups ("Male", "Female") over their columns, dot-leader row labels, one of them on
    two lines, figures flush right with a thin space inside ("1,061. 3")."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((36, 40), "Table 324. Arrests by Sex: 2009", fontsize=9)
    right = [200, 250, 320, 370]  # each column's right edge

    def put(text: str, x_right: float, y: float) -> None:
        width = pymupdf.get_text_length(text, fontsize=7)
        page.insert_text((x_right - width, y), text, fontsize=7)

    page.insert_text((196, 60), "Male", fontsize=7)  # each centred over its two columns
    page.insert_text((299, 60), "Female", fontsize=7)
    page.insert_text((40, 70), "Offense charged", fontsize=7)
    for x, name in zip(right, ["Total", "Under 18", "Total", "Under 18"]):
        put(name, x, 70)
    rows = [
        (["Total . . . . . . . . ."], ["8,263. 3", "1,071. 6", "2,799. 2", "468. 3"]),
        (["Burglary . . . . . . ."], ["205.0", "53.4", "35.9", "6.9"]),
        (["Motor vehicle", "   theft . . . . . . ."], ["53.9", "13.3", "11.7", "2.7"]),
        (["Arson . . . . . . . . ."], ["8.1", "3.7", "1.7", "0.6"]),
    ]
    y = 82
    for label, figures in rows:
        for part in label[:-1]:
            page.insert_text((36, y), part, fontsize=7)
            y += 8
        page.insert_text((36, y), label[-1], fontsize=7)
        for x, value in zip(right, figures):
            put(value, x, y)
        y += 8
    page.insert_text((36, y + 20), "Source: a made-up bureau, 2010.", fontsize=7)
    doc.save(path)
    return path


def test_a_table_set_by_alignment_alone_is_read_as_rows_under_its_columns(tmp_path) -> None:
    text = parse_document(make_unruled_table_pdf(tmp_path / "12s0324.pdf")).text
    assert (
        "columns: Offense charged | Male Total | Male Under 18 | Female Total | Female Under 18"
        in text
    )
    assert (
        "Table 324. Arrests by Sex: 2009, row 3: Offense charged: Motor vehicle theft; "
        "Male Total: 53.9; "
        "Male Under 18: 13.3; Female Total: 11.7; Female Under 18: 2.7." in text
    )
    assert "Male Total: 8,263.3;" in text  # the thin space inside a figure closed


def test_prose_in_two_columns_with_figures_is_no_table(tmp_path) -> None:
    """Figures inside lines of text (two columns of prose, a list of years) make no table."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    for i in range(30):
        y = 60 + 12 * i
        page.insert_text((36, y), f"In {1990 + i} the group spent {100 + i} dollars.", fontsize=8)
        page.insert_text((300, y), f"Row {i}: {3 * i} items, {i}.5 kg.", fontsize=8)
    doc.save(tmp_path / "prose.pdf")
    text = parse_document(tmp_path / "prose.pdf").text
    assert ", row " not in text and "columns:" not in text


def test_a_row_s_figure_is_the_cell_of_the_column_the_question_names() -> None:
    from localcrag.crag.answer.binding import cell_value

    row = (
        "x.pdf, p. 1, Table 324, row 3: Offense charged: Motor vehicle theft; Total Total: "
        "65.6; Male Total: 53.9; Male Under 18 years: 13.3; Female Total: 11.7."
    )
    assert cell_value(row, "How many males were arrested for motor vehicle theft?") == "53.9"
    assert cell_value(row, "How many arrests in total for motor vehicle theft?") == "65.6"
    assert cell_value(row, "How many were arrested?") is None  # no column named
    story = "CoJul22.pdf, p. 2, row 40: County: Story; Democratic Active: 19944; Republican Active: 15281."
    assert (
        cell_value(story, "How many registered Republicans were active in Story County?") == "15281"
    )


def test_a_slide_s_title_is_the_heading_of_its_text_and_notes(tmp_path) -> None:
    from pptx import Presentation

    from localcrag.ingest.chunking import chunk_pages
    from tests.support.fakes import FakeEmbedder

    deck = Presentation()
    for title, note in [("Budget 2020", "Rent rose by a tenth."), ("Staff", "Two hires.")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = "See the notes."
        slide.notes_slide.notes_text_frame.text = note
    deck.save(tmp_path / "deck.pptx")
    count = FakeEmbedder().count_tokens_batch
    chunks = chunk_pages(parse_document(tmp_path / "deck.pptx"), count, 20, 0, "d", "s")
    notes = {c.text.split("Notes: ")[-1]: c.heading for c in chunks if "Notes: " in c.text}
    assert notes == {"Rent rose by a tenth.": "Budget 2020", "Two hires.": "Staff"}


def test_a_row_holds_the_year_its_table_s_caption_names() -> None:
    """The identifier search counts what a row holds as values and where it is, not its
    column names: a caption with a colon ("Arrests by Sex: 2009") is the row's place."""
    from localcrag.ingest.names import held_counts

    row = (
        "x.pdf, p. 1, Table 324. Arrests by Sex: 2009, row 8: Offense charged: Burglary; "
        "Male Total: 205.0."
    )
    named = "x.csv, row 2: 2009: 5; Total: 7."  # 2009 only as a column's name
    held = held_counts(
        [
            {"_rowid": 1, "text": row, "source": "x.pdf"},
            {"_rowid": 2, "text": named, "source": "x.csv"},
        ],
        ["2009"],
        set(),
    )
    assert held == {1: 1}


def test_a_row_under_its_report_s_date_is_found_before_pages_that_print_the_year(
    tmp_path,
) -> None:
    """The identifier search puts passages holding the question's "2022" first; a row holds
    it in its context (the report's running header), so it is not pushed out by pages that
    print the year in a copyright line."""
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.support.fakes import FakeEmbedder

    docs = tmp_path / "docs"
    docs.mkdir()
    make_running_header_pdf(docs / "CoJul22.pdf")
    for i in range(4):  # four files: a year few enough documents print identifies them
        (docs / f"page{i}.html").write_text(
            f"<html><body><p>Section {i} of the manual. Copyright 2022, a maker.</p></body></html>",
            encoding="utf-8",
        )
    embedder = FakeEmbedder()
    library = Library(Settings(), embedder=embedder)
    assert not library.ingest([docs]).failed
    q = "What is the grand total in Polk County, Iowa, in July 2022?"
    hits = library.store.search(q, embedder.embed([q])[0], 3)
    assert any("County: Polk;" in h.chunk.text for h in hits), [h.chunk.text[:60] for h in hits]


def test_a_cryptic_file_name_is_cited_with_what_the_document_is() -> None:
    from localcrag.textutil import document_named

    heading = "Arrests by Sex and Age; U.S. Census Bureau ›"
    assert document_named("/d/12s0324.pdf", heading) == "Arrests by Sex and Age"
    assert document_named("/d/CoJul22.pdf", "State of Iowa Voter Registration Totals ›")
    said = "2023 Voter Registration Totals ›"  # the name says it already
    assert document_named("/d/2023-Registered-Voter-Count.pdf", said) is None
    assert document_named("/d/notes.md", "Budget") is None  # a section heading alone


def test_sources_after_a_chunking_change_says_to_reindex_not_that_nothing_is_indexed(
    isolated_home, tmp_path, monkeypatch, capsys
) -> None:
    """The first line of every document changes the chunker's version: an index built
    before is not lost, and `sources` says how to bring it over (as `ask` does)."""
    import localcrag.ingest.library as library
    from localcrag.cli.main import main

    (tmp_path / "a.md").write_text("# Notes\n\nCobots work next to people.\n", encoding="utf-8")
    monkeypatch.setattr(library, "CHUNKER_VERSION", "c-older")
    assert main(["ingest", str(tmp_path / "a.md")]) == 0
    monkeypatch.undo()
    monkeypatch.setenv("LOCALCRAG_HOME", str(isolated_home))
    capsys.readouterr()
    assert main(["sources"]) == 0
    out = capsys.readouterr().out
    assert "1 were indexed with a different embedder or chunking" in out
    assert "localcrag reindex" in out and "No documents indexed yet" not in out


@pytest.mark.parametrize(
    ("name", "text", "title"),
    [
        ("sheet.txt", "The LinnSequencer\n\nA 32-track MIDI sequencer.\n", "The LinnSequencer"),
        ("notes.txt", "Release notes\n\n0.11.0\n\n- Fix a crash.\n", "Release notes"),
        ("history.md", "# Release History\n\n## 0.11.0\n\n- Fix a crash.\n", ""),
        ("prose.txt", "The sequencer records 32 tracks. It was sold in 1985.\n", ""),
        ("install.md", "Install\n\nRun the installer.\n", ""),
        ("list.md", "- one item\n- another item\n", ""),
    ],
)
def test_a_document_without_a_title_of_its_own_is_named_by_its_opening_title_line(
    tmp_path, name: str, text: str, title: str
) -> None:
    """Plain text and scans carry no title property: one short line without closing
    punctuation that opens the document names it, and every chunk is read under that name
    (a line deep in the sheet binds "the LinnSequencer"); a document that opens with prose
    or a list has no title to read. Markdown is named by its headings (the heading path
    over its passages), never by an opening line."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = parse_document(path)
    assert doc.about.title == title
    assert (doc.context_at(len(doc.text) - 2) or "").startswith(title)
    assert not doc.text.startswith(ABOUT)  # its opening line says it already
