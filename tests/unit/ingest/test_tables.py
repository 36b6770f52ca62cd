"""Tables as tables: the separate tables of a sheet, each row indexed as a
sentence naming its file, sheet, table, row and columns, and a question naming a row and a
column answered by that cell, cited. Files are built in code (tests/tablefiles.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.cli.ask import summary
from localcrag.crag.answer.cells import cell_answer
from localcrag.ingest.parse import parse_document
from localcrag.ingest.tables import blocks, find_tables
from localcrag.textutil import identifiers
from tests.support.documents import make_regression_xlsx, make_stock_csv
from tests.support.fakes import asked, quoting_pipeline


def test_a_sheet_with_data_and_regression_output_is_read_as_separate_tables(tmp_path: Path) -> None:
    doc = parse_document(make_regression_xlsx(tmp_path / "sales.xlsx"))
    rows = {p.number: p.text.split("\n\n")[-1] for p in doc.pages if p.scope.endswith("ANOVA")}
    # the ANOVA block is labelled by its own header and title, never by the data table's columns
    assert rows[12] == (
        "sales.xlsx, sheet Sales, SUMMARY OUTPUT, ANOVA, row 12 (Regression): df: 1; "
        "SS: 64281.3; MS: 64281.3; F: 191.22; Significance F: 4.8e-11."
    )
    text = doc.text
    assert "column " not in text and "Net Sales: 0.9" not in text
    assert (
        "sales.xlsx, sheet Sales, SUMMARY OUTPUT, Regression Statistics, row 4: "
        "Multiple R: 0.9559807268041355."
    ) in text
    assert (
        "row 17 (Intercept): Coefficients: 12.5; Standard Error: 8.1; t Stat: 1.54; P-value: 0.1403."
        in text
    )
    assert (
        "sales.xlsx, sheet Sales, row 3: Salesman: Salesman 2; Number of Customers: 107; Net Sales: 53."
        in text
    )
    scopes = list(dict.fromkeys(p.scope for p in doc.pages))
    assert scopes == [
        "sheet Sales",
        "sheet Sales, SUMMARY OUTPUT, Regression Statistics",
        "sheet Sales, SUMMARY OUTPUT, ANOVA",
        "sheet Sales, SUMMARY OUTPUT",
    ]
    assert [h.title for h in doc.headings] == [
        "Sheet Sales",
        "SUMMARY OUTPUT, Regression Statistics",
        "SUMMARY OUTPUT, ANOVA",
        "SUMMARY OUTPUT",
    ]


def test_blank_rows_and_columns_cut_blocks_and_a_gap_in_data_continues_its_table() -> None:
    grid = [["a", "b", "", "T"], ["1", "2", "", ""], ["", "", "", "x"], ["3", "4", "", "y"]]
    assert blocks(grid) == [(0, 2, 0, 2), (3, 4, 0, 2), (0, 1, 3, 4), (2, 4, 3, 4)]
    tables = find_tables(
        [["Date", "Close"], ["2020-01-01", "5"], ["", ""], ["2020-01-03", "6"]], [1, 2, 3, 4]
    )
    assert len(tables) == 1 and tables[0].header == ["Date", "Close"]
    assert [n for n, _ in tables[0].rows] == [2, 4]


def test_csv_rows_name_the_file_and_columns(tmp_path: Path) -> None:
    doc = parse_document(make_stock_csv(tmp_path / "TSLA.csv"))
    assert (
        "TSLA.csv, row 3: Date: 2010-06-29; Open: 19.00; High: 25.00; Low: 17.54; Close: 23.83; "
        "Volume: 18766300." in doc.text
    )


@pytest.mark.parametrize(
    ("question", "cell"),
    [
        (
            "What was Tesla's closing price on 2010-06-29?",
            "Close on 2010-06-29: **23.83** (TSLA.csv, row 3)",
        ),
        (
            "What is the R Square?",
            "R Square: **0.9139** (sales.xlsx, sheet Sales, SUMMARY OUTPUT, "
            "Regression Statistics, row 5)",
        ),
        (
            "What is the P-value of Number of Customers?",
            "P-value of Number of Customers: **4.8e-11**",
        ),
        ("What is the Significance F in the ANOVA?", "Significance F of Regression: **4.8e-11**"),
        ("What is the F in the ANOVA?", "F of Regression: **191.22**"),
    ],
)
def test_a_question_naming_a_row_and_a_column_gets_that_cell(
    tmp_path: Path, question: str, cell: str
) -> None:
    texts = [
        p.text.split("\n\n")[-1]
        for f in (
            make_stock_csv(tmp_path / "TSLA.csv"),
            make_regression_xlsx(tmp_path / "sales.xlsx"),
        )
        for p in parse_document(f).pages
    ]
    found = cell_answer(question, texts)
    assert found is not None and found.text.startswith(cell)


@pytest.mark.parametrize(
    "question",
    [
        "What was the volume on 2011-01-01?",  # no such row: never a neighbour's value
        "What is the closing price?",  # no row named
        "Who is Salesman 2's manager?",  # no such column
    ],
)
def test_no_cell_is_answered_for_a_row_or_column_the_question_does_not_name(
    tmp_path: Path, question: str
) -> None:
    texts = [
        p.text.split("\n\n")[-1]
        for f in (
            make_stock_csv(tmp_path / "TSLA.csv"),
            make_regression_xlsx(tmp_path / "sales.xlsx"),
        )
        for p in parse_document(f).pages
    ]
    assert cell_answer(question, texts) is None


def test_identifiers_are_codes_dates_and_ids() -> None:
    assert identifiers("item code DOC0123, TSLA on 2010-06-29, part A-113? and the F") == [
        "DOC0123",
        "TSLA",
        "2010-06-29",
        "A-113",
    ]


def test_a_lookup_by_date_is_answered_with_the_cell_cited(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_stock_csv(docs / "TSLA.csv", days=400)
    make_regression_xlsx(docs / "sales.xlsx")
    pipe = quoting_pipeline(docs, upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1)
    record = asked(pipe, "What was the closing price of TSLA on 2010-06-29?")
    assert record.answer is not None and not record.answer.refused, record.answer
    head = "Close on 2010-06-29: **23.83** (TSLA.csv, row 3) "
    assert record.answer.text.startswith(head), record.answer.text
    n = record.answer.text[len(head) :].split("]")[0] + "]"
    assert f"{n} TSLA.csv, rows " in summary(record)  # the cited chunk's rows hold row 3
    assert [c.n for c in record.answer.citations] == [int(n[1:-1])]


def test_a_passage_holding_the_named_cell_reaches_the_upper_threshold_whatever_its_grade() -> None:
    """A row of numbers scored 0.09 by the evaluator although it holds the close on the date
    asked; a name the question gives that no passage holds ("Tesla") is not bound."""
    from localcrag.crag.answer.binding import raise_bound
    from localcrag.types import Chunk, Grade

    rows = (
        "TSLA.csv, row 2: Date: 2010-06-28; Close: 19.50.\n\n"
        "TSLA.csv, row 3: Date: 2010-06-29; Close: 23.83."
    )
    chunk = Chunk("c1", "/d/TSLA.csv", rows, 2, 3, 0, len(rows), None, 30, "rows 2–3")

    def graded(question: str) -> float:
        return raise_bound(question, [Grade(chunk, 0.09, "g")], 0.76)[0].score

    assert graded("What was the TSLA close on 2010-06-29?") == 0.76
    assert graded("What was the TSLA close on 2011-06-29?") == 0.09  # no such row
    assert graded("What was Tesla's closing price on 2010-06-29?") == 0.09  # no "Tesla"


MONTHLY = [
    "stocks.csv, row 2: symbol: GOOG; date: Dec 1 2007; price: 691.48.",
    "stocks.csv, row 3: symbol: GOOG; date: Jan 1 2008; price: 564.3.",
    "stocks.csv, row 4: symbol: AAPL; date: Jan 1 2008; price: 135.36.",
    "longley.csv, row 5: Obs: 4; TOTEMP: 61187; GNPDEFL: 89.5; YEAR: 1950.",
    "ttest.xlsx, sheet t-Test, row 9 (t Stat): setosa: 9.45.",
    "ttest.xlsx, sheet t-Test, row 12 (t Critical two-tail): setosa: 1.98.",
    "ttest.xlsx, sheet t-Test, row 13 (P(T<=t) two-tail): setosa: 1.8e-15.",
    "ttest.xlsx, sheet t-Test, row 5 (Variance): setosa: 0.14; versicolor: 0.098.",
    "ttest.xlsx, sheet t-Test, row 7 (Pooled Variance): setosa: 0.12.",
]


@pytest.mark.parametrize(
    "question, cell",
    [
        # a date is one key however it is written, and the whole date names the row
        ("What was GOOG's price on Jan 1 2008?", "price on GOOG, Jan 1 2008: **564.3**"),
        ("What was the GOOG price on 2008-01-01?", "price on GOOG, Jan 1 2008: **564.3**"),
        ("What was AAPL's price on 1 January 2008?", "price on AAPL, Jan 1 2008: **135.36**"),
        # the row named by the key it holds, not by the row's first value
        ("What was TOTEMP in 1950?", "TOTEMP of 1950: **61187**"),
        # a label with parentheses of its own; the label naming more of the question
        (
            "What is the two-tail p-value P(T<=t) for setosa?",
            "P(T<=t) two-tail (setosa): **1.8e-15**",
        ),
        ("What is the pooled variance of setosa?", "Pooled Variance (setosa): **0.12**"),
    ],
)
def test_a_cell_is_named_by_its_whole_key(question: str, cell: str) -> None:
    found = cell_answer(question, MONTHLY)
    assert found is not None and found.text.startswith(cell), found


@pytest.mark.parametrize(
    "question",
    [
        "What does GNPDEFL mean?",  # a column's name is no row's key: the meaning is elsewhere
        "What was GOOG's price on Feb 1 2008?",  # the year alone does not name a row
    ],
)
def test_a_column_name_or_part_of_a_date_names_no_row(question: str) -> None:
    assert cell_answer(question, MONTHLY) is None


def test_a_pdf_table_is_indexed_like_a_sheet_and_its_cell_answered(tmp_path: Path) -> None:
    from tests.support.documents import make_table_pdf

    doc = parse_document(make_table_pdf(tmp_path / "report.pdf"))
    text = doc.text
    where = "report.pdf, p. 1, Table 2: ANOVA of net sales"
    assert f"{where}, columns: df | SS | MS | F | Significance F" in text
    assert f"{where}, row 1 (Regression): df: 1; SS: 64281.3; MS: 64281.3; F: 191.22;" in text
    assert f"{where}, row 2 (Residual): df: 18; SS: 6051.2; MS: 336.2." in text
    # the cells are read once, as the table: not also as a run of unlabelled words
    assert "Regression 1 64281.3" not in " ".join(text.split())
    assert "The model explains most of the variance in net sales." in text
    found = cell_answer("What is the Significance F in the ANOVA of net sales?", text.split("\n\n"))
    assert found is not None and found.text.startswith(
        f"Significance F of Regression: **4.8e-11** ({where}, row 1)"
    ), found


def test_a_booktabs_pdf_table_is_read_from_its_rules_and_the_text_alignment(
    tmp_path: Path,
) -> None:
    """A booktabs table has horizontal rules only: the line finder (PyMuPDF's find_tables
    without its layout model) finds no table there; it is read in the box its rules span."""
    from tests.support.documents import make_booktabs_pdf

    text = parse_document(make_booktabs_pdf(tmp_path / "scores.pdf")).text
    where = "scores.pdf, p. 1, Table 3: Scores of the three models"
    assert f"{where}, columns: Model | BLEU | Params" in text
    assert f"{where}, row 2: Model: Wide; BLEU: 26.4; Params: 213M." in text
    assert f"{where}, row 3: Model: Deep; BLEU: 26.0; Params: 168M." in text
    assert "Wide 26.4 213M" not in " ".join(text.split())  # read once, as the table
    assert "The wide model scores best but has three times the parameters." in text


def test_prose_between_horizontal_rules_is_no_table(tmp_path: Path) -> None:
    from tests.support.documents import make_ruled_prose_pdf, make_two_column_pdf

    text = parse_document(make_ruled_prose_pdf(tmp_path / "note.pdf")).text
    assert "note.pdf, p. 1" not in text
    for k in range(3):
        assert f"Paragraph {k}, line 3: plain prose that runs across the page." in text
    text = parse_document(make_two_column_pdf(tmp_path / "journal.pdf")).text
    assert "journal.pdf, p. 1" not in text  # two columns between two rules: no 2-column table
    assert all(f" {col}-{i}." in text for col in (0, 1) for i in range(40))


def test_the_attention_papers_four_booktabs_and_grid_tables_are_read(shared_data: Path) -> None:
    """Tables 1 and 2 of the paper are booktabs (horizontal rules only), 3 and 4 ruled grids."""
    doc = parse_document(shared_data / "ai-information" / "attention_is_all_you_need.pdf")
    text = doc.text
    assert (
        "Table 1: Maximum path lengths, per-layer complexity and minimum number of sequential "
        "operations, row 2: Layer Type: Recurrent; Complexity per Layer: O(n · d2); "
        "Sequential Operations: O(n); Maximum Path Length: O(n)."
    ) in text
    assert "row 5: Model: Transformer (big); BLEU EN-DE EN-FR: 28.4;" in text  # Table 2
    # Table 3's columns, read by alignment: each value under its own header
    assert "row 20 (big): N: 6; dmodel: 1024; dff: 4096; h: 16; Pdrop: 0.3;" in text
    assert (
        "row 10: Parser: Transformer (4 layers); Training: semi-supervised; WSJ 23 F1: 92.7."
        in text
    )
    tables = {p.number for p in doc.pages for line in p.text.split("\n\n") if ", columns: " in line}
    assert tables == {6, 8, 9, 10}


def test_a_code_that_names_a_column_is_held_by_no_row() -> None:
    """'What does TOTEMP mean?': every row of longley.csv holds TOTEMP as a column name; the
    passage that defines it must be able to come first (ingest/names.held_counts)."""
    from localcrag.ingest.names import held_counts

    rows = [
        {"_rowid": 1, "text": "longley.csv, columns: Obs | TOTEMP | GNP"},
        {"_rowid": 2, "text": "longley.csv, row 2: Obs: 1; TOTEMP: 60323; GNP: 234289."},
        {"_rowid": 3, "text": "Variable name definitions\nTOTEMP - Total Employment"},
        {"_rowid": 4, "text": "stocks.csv, row 5: symbol: GOOG; date: Jan 1 2008; price: 564.3."},
    ]
    assert held_counts(rows, ["TOTEMP"], ()) == {3: 1}
    assert held_counts(rows, ["GOOG"], ()) == {4: 1}  # a value is held


def test_a_plain_text_definition_list_is_a_paragraph_per_term() -> None:
    from localcrag.ingest.markup import text_pages

    text = (
        "Variable name definitions:\n\n"
        "state\n    All 50 states plus DC.\nmurder\n    Rate of murders / 100,000\n"
        "    population.\nhs_grad\n    Percent of population having graduated.\n\n"
        "Variables\n\n    TOTEMP - Total Employment\n    GNPDEFL - GNP deflator\n"
        "    GNP - GNP\n\nPlain prose wrapped\nover two lines stays one paragraph.\n"
    )
    paras = [p.strip() for _, page in text_pages(text) for p, _ in page]
    assert "murder: Rate of murders / 100,000 population." in paras
    assert "hs_grad: Percent of population having graduated." in paras
    assert "TOTEMP - Total Employment" in paras and "GNP - GNP" in paras
    assert "Plain prose wrapped\nover two lines stays one paragraph." in paras


def test_a_key_that_names_several_rows_answers_no_cell() -> None:
    """'Tesla' is no ticker of stocks.csv; the date alone names a row of each ticker."""
    rows = [
        "stocks.csv, row 2: symbol: GOOG; date: Jan 1 2008; price: 564.3.",
        "stocks.csv, row 3: symbol: AAPL; date: Jan 1 2008; price: 135.36.",
    ]
    assert cell_answer("What was Tesla's price on Jan 1 2008?", rows) is None
    assert cell_answer("What was AAPL's price on Jan 1 2008?", rows) is not None


def test_a_borderless_table_in_groups_of_rows_reads_each_value_under_its_column(
    tmp_path: Path,
) -> None:
    """A registration report sets each county's label once, beside the first of its three
    period rows, a period ("JUL 2023") as a text cell among the figures and "*" for none,
    with no rules: every row names its county, period and party (a county's name wrapped
    onto two lines, the totals' and the percentages' rows too), and the block below it,
    set without a header of its own, takes the column names of the table above on the page."""
    from tests.support.documents import make_grouped_registration_pdf

    text = parse_document(make_grouped_registration_pdf(tmp_path / "registration.pdf")).text
    assert (
        "row 6: County: Cochise; Precincts: 41; Date/Period: JAN 2024; Democratic: 20,222; "
        "Green: 6; Total: 60,014." in text
    ), text
    assert (
        "row 2: County: Apache; Precincts: 40; Date/Period: OCT 2023; Democratic: 10,111; " in text
    )
    assert "row 3 (Gila): Precincts: 9; Date/Period: JAN 2024; Democratic: 3,000; Green: 2;" in text
    # a name wrapped onto the group's second line is one label, on each of its rows
    assert "row 15: County: Santa Cruz; Precincts: 44; Date/Period: JAN 2024;" in text
    assert "County: Cruz" not in text and "County: Santa;" not in text
    # the groups after it keep their labels: the totals, and the shares with no precincts
    assert "row 20: County: Totals:; Precincts: 46; Date/Period: OCT 2023;" in text
    assert (
        "row 23: County: Percentages:; Date/Period: OCT 2023; Democratic: 29.02; Green: *." in text
    )


def test_a_group_too_short_to_be_a_table_hands_its_header_to_the_groups_below(
    tmp_path: Path,
) -> None:
    """A report's page of districts: the header, then "District 1" with one county and its
    total (two rows: too few to be a table by themselves), then "District 2" with three
    counties and no header of its own. District 2's rows are read under the page's column
    names, not as "column B", "column C" (the Arizona report's Pinal row of District 2 had
    been "column G: 37,401")."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    font = pymupdf.Font("helv")

    def right(x: float, y: float, text: str) -> None:  # flush right at x
        page.insert_text((x - font.text_length(text, fontsize=9), y), text, fontsize=9)

    y = 80
    for x, name in zip(
        (40, 110, 180, 260, 340), ("District", "Precincts", "Democratic", "Green", "Total")
    ):
        page.insert_text((x, y), name, fontsize=9)
    groups = {"District 1": ["Maricopa", "Total:"], "District 2": ["Apache", "Gila", "Pinal"]}
    for g, (label, counties) in enumerate(groups.items()):
        y += 40  # a gap: each district is a block of its own
        page.insert_text((36, y), label, fontsize=9)
        for c, county in enumerate(counties):
            y += 13
            page.insert_text((50, y), county, fontsize=9)
            right(150, y, str(20 + c))
            right(230, y, f"{(g + 1) * 10_000 + c * 111:,}")
            right(300, y, str(c + 1))
            right(380, y, f"{(g + 1) * 30_000 + c * 7:,}")
    doc.save(tmp_path / "districts.pdf")
    text = parse_document(tmp_path / "districts.pdf").text
    assert "District 2: Pinal; Precincts: 22; Democratic: 20,222; Green: 3; Total: 60,014." in text
    assert "column B" not in text, text


def test_notes_written_above_a_sheets_table_are_not_its_column_names(tmp_path: Path) -> None:
    """People write notes above a table ("some notes", "at the top of their spreadsheets"):
    the column names are the row of text right above the first row of figures or dates,
    which fills more cells than the notes; the notes are kept as rows of their own."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "arts"
    sheet.append(["Lots of people"])
    sheet.append(["simply cannot resist writing", None, None, None, "some notes"])
    sheet.append(["at", "the", "top", None, "of their spreadsheets"])
    sheet.append(["Name", "Profession", "Age", "Has kids", "Date of death"])
    sheet.append(["David Bowie", "musician", 69, "yes", "2016-01-10"])
    sheet.append(["George Michael", "musician", 53, "no", "2016-12-25"])
    sheet.append(["Alan Rickman", "actor", 69, "no", "2016-01-14"])
    book.save(tmp_path / "deaths.xlsx")
    text = parse_document(tmp_path / "deaths.xlsx").text
    assert "columns: Name | Profession | Age | Has kids | Date of death" in text, text
    assert "Name: George Michael; Profession: musician; Age: 53; Has kids: no;" in text, text
    assert "simply cannot resist writing" in text and "of their spreadsheets" in text


def test_the_words_that_name_the_file_name_no_column_in_part() -> None:
    """ "How old was he, according to the deaths spreadsheet?": "deaths" names the file, not
    the "Date of death" column, whose date is no age; a column the question names in full
    ("weather" in seattle-weather.csv) is still that column."""
    rows = [
        "deaths.xlsx, sheet arts, row 8: Name: Chuck Berry; Profession: musician; Age: 90; "
        "Date of birth: 1926-10-18; Date of death: 2017-03-18.",
    ]
    cell = cell_answer("How old was Chuck Berry when he died, in the deaths spreadsheet?", rows)
    assert cell is None or cell.value != "2017-03-18"
    weather = ["seattle-weather.csv, row 5: date: 2012/01/04; wind: 4.7; weather: rain."]
    found = cell_answer("What was the weather on 2012/01/04?", weather)
    assert found is not None and found.value == "rain"
