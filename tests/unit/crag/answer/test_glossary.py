"""A column's meaning is answered from the line that defines it, not from the rows that hold it
("What does TOTEMP stand for?" quoted rows of longley.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.crag.answer.binding import raise_bound
from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.answer.glossary import asked_term, definition_answer, definition_lines
from localcrag.crag.pipeline import Pipeline
from localcrag.crag.retrieve import Retriever
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from localcrag.types import Chunk, Evidence, Grade
from tests.support.fakes import FakeEmbedder, FakeGrader, asked, quoting_pipeline

ROWS = (
    "longley.csv, row 2: Obs: 1; TOTEMP: 60323; GNPDEFL: 83; YEAR: 1947.\n\n"
    "longley.csv, row 3: Obs: 2; TOTEMP: 61122; GNPDEFL: 88.5; YEAR: 1948."
)
NOTES = (
    "Variable name definitions\n\nTOTEMP - Total Employment\n\nGNPDEFL - GNP deflator\n\n"
    "murder: Rate of murders / 100,000 population."
)


@pytest.mark.parametrize(
    "question, term",
    [
        ("What does TOTEMP stand for in the Longley dataset?", "TOTEMP"),
        ("What does the murder variable mean in the crime data?", "murder"),
        ("What is the ARMED variable in the Longley data?", "ARMED"),
        ("What is the definition of hs_grad?", "hs_grad"),
        ("Define GNP.", "GNP"),
        ("What does the restOfWorld column hold in the profits data?", "restOfWorld"),
        ("In the Nightingale dataset, what does the Disease variable count?", "Disease"),
        # what follows the kind says where the term is, not what it is
        ("What does the drat variable in mtcars stand for?", "drat"),
        ("What does the column of ages in the table mean?", None),  # no term before it
        ("What does the table hold?", None),  # no column named
        ("What was TOTEMP in 1950?", None),  # a value, not a meaning
        ("What is the term for a problem that a computer can solve?", None),
        ("Who provided a definition of linear bounded automata in 1960?", None),  # a who
        ("What are two fields of theoretical computer science?", None),
    ],
)
def test_the_term_a_question_asks_the_meaning_of(question: str, term: str | None) -> None:
    assert asked_term(question) == term


def test_a_definition_line_starts_with_the_term_and_a_mark_then_words() -> None:
    assert definition_lines("GNPDEFL", NOTES) == ["GNPDEFL - GNP deflator"]
    assert definition_lines("murder", NOTES) == ["murder: Rate of murders / 100,000 population."]
    assert definition_lines("TOTEMP", ROWS) == []  # "TOTEMP: 60323" is a value
    assert definition_lines("murder", "murder-suicide rates rose in 2009.") == []
    assert definition_lines("urban", "urban: % of population in Urbanized Areas") != []
    listed = "Attributes:\n        - CRIM     per capita crime rate by town\n        - ZN       proportion"
    assert definition_lines("CRIM", listed) == ["CRIM per capita crime rate by town"]
    assert definition_lines("CRIM", "CRIM  12.5  3.1") == []  # a fixed-width row of values


def _chunk(cid: str, source: str, text: str) -> Chunk:
    return Chunk(cid, source, text, 1, 1, 0, len(text), None, 30)


def test_the_defining_passage_is_relevant_whatever_its_grade_and_the_rows_are_not_promoted() -> (
    None
):
    rows, notes = _chunk("r", "/d/longley.csv", ROWS), _chunk("n", "/d/longley.txt", NOTES)
    grades = [Grade(rows, 0.73, "g"), Grade(notes, 0.41, "g")]
    raised = raise_bound("What does GNPDEFL mean?", grades, 0.76)
    assert [g.score for g in raised] == [0.73, 0.76]


def test_the_quote_is_the_definition_not_a_row() -> None:
    evidence = [
        Evidence(1, ROWS, "/d/longley.csv", score=0.73),
        Evidence(2, NOTES, "/d/longley.txt", score=0.76),
    ]
    got = extractive_answer("What does TOTEMP stand for in the Longley dataset?", evidence)
    assert got.text == "TOTEMP - Total Employment [2]."
    assert got.cited == (2,)


def test_a_column_meaning_is_answered_end_to_end_from_the_notes(tmp_path: Path) -> None:
    """The rows score higher with the grader than the notes; the answer is still the notes'."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "longley.csv").write_text(
        "Obs,TOTEMP,GNPDEFL,YEAR\n"
        + "".join(f"{i},{60000 + 97 * i},{83 + i / 2},{1946 + i}\n" for i in range(1, 17)),
        encoding="utf-8",
    )
    (docs / "longley.txt").write_text(
        "Longley dataset\n\nNotes\n\nVariable name definitions\n\n"
        "        TOTEMP - Total Employment\n        GNPDEFL - GNP deflator\n",
        encoding="utf-8",
    )
    pipe = quoting_pipeline(docs, upper_threshold=0.9, lower_threshold=0.5, strip_threshold=0.1)
    record = asked(pipe, "What does GNPDEFL mean in the Longley data?", k=20)
    assert record.answer is not None and not record.answer.refused, record.answer
    assert record.answer.text.startswith("GNPDEFL - GNP deflator ["), record.answer.text
    cited = {Path(c.source).name for c in record.answer.citations}
    assert cited == {"longley.txt"}


def test_a_code_in_every_row_of_a_big_table_still_finds_the_passage_that_defines_it(
    tmp_path: Path,
) -> None:
    """'What does CRIM mean?' over a 506-row CSV and its description: the rows hold CRIM as a
    column name and, being short, filled the identifier search's pool of 400 before the long
    description; that search now also runs among passages that are not table rows."""
    docs = tmp_path / "docs"
    docs.mkdir()
    head = "CRIM,ZN,INDUS,CHAS,NOX,RM,AGE,DIS,RAD,TAX,PTRATIO,B,LSTAT,MEDV\n"
    (docs / "boston.csv").write_text(
        head
        + "".join(
            ",".join(f"{(i * 7 + j) % 97 / 9:.3f}" for j in range(14)) + "\n" for i in range(506)
        ),
        encoding="utf-8",
    )
    attrs = [
        ("CRIM", "per capita crime rate by town"),
        ("ZN", "proportion of residential land zoned for lots over 25,000 sq.ft."),
        ("INDUS", "proportion of non-retail business acres per town"),
        ("PTRATIO", "pupil-teacher ratio by town"),
        ("LSTAT", "% lower status of the population"),
    ]
    (docs / "boston_description.txt").write_text(
        "Boston house prices dataset\n\n**Data Set Characteristics:**\n\n"
        "    :Number of Instances: 506\n\n    :Attribute Information (in order):\n"
        + "".join(f"        - {name:<8} {meaning}\n" for name, meaning in attrs)
        + "\n    :Missing Attribute Values: None\n\nThis is a copy of UCI ML housing dataset.\n",
        encoding="utf-8",
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert not lib.ingest([docs]).failed
    hits = Retriever(Settings(), lib).search("What does CRIM mean?", k=3)
    assert Path(hits[0].chunk.source).name == "boston_description.txt", [
        h.chunk.locator for h in hits
    ]
    settings = Settings(
        offline=True, upper_threshold=0.9, lower_threshold=0.5, answer_style="extractive"
    )
    pipe = Pipeline(settings, library=lib, grader=FakeGrader(), generator=None)
    record = asked(pipe, "What does CRIM mean?")
    assert record.answer is not None
    assert record.answer.text == "CRIM per capita crime rate by town [1].", record.answer.text


def test_a_lower_case_column_name_is_searched_as_a_code_when_its_meaning_is_asked(
    tmp_path: Path,
) -> None:
    """'mealpct' has neither capitals nor digits, so it was no identifier: the data's rows
    (long ones, cut between passages) outranked the codebook that defines it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    names = ["distcod", "county", "district", "enrltot", "teachers", "calwpct", "mealpct"]
    names += ["computer", "testscr", "compstu", "expnstu", "avginc", "elpct", "readscr"]
    (docs / "schools.csv").write_text(
        ",".join(names)
        + "\n"
        + "".join(
            f"{70000 + i},Alameda,District {i}"
            + "".join(f",{(i * 7 + j) % 97 / 9:.10f}" for j in range(len(names) - 3))
            + "\n"
            for i in range(420)
        ),
        encoding="utf-8",
    )
    book = "".join(f"<dt>{n}</dt><dd><p>{n} of the district</p></dd>\n" for n in names)
    book = book.replace("mealpct of the district", "percent qualifying for reduced-price lunch")
    (docs / "schools.html").write_text(
        "<html><head><title>R: The California Test Score Data Set</title></head><body>"
        "<h1>The California Test Score Data Set</h1><h2>Description</h2><p>a cross-section "
        "from 1998-1999</p><h2>Usage</h2><p>data(Caschool)</p><h2>Format</h2><p>A dataframe "
        f"containing:</p><dl>{book}</dl><h2>Source</h2><p>California Department of "
        "Education.</p></body></html>",
        encoding="utf-8",
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert not lib.ingest([docs]).failed
    question = "In the California schools data, what does the column mealpct mean?"
    hits = Retriever(Settings(), lib).search(question, k=3)
    assert "mealpct: percent qualifying" in hits[0].chunk.text, [h.chunk.text[:60] for h in hits]
    settings = Settings(
        offline=True, upper_threshold=0.9, lower_threshold=0.5, answer_style="extractive"
    )
    pipe = Pipeline(settings, library=lib, grader=FakeGrader(), generator=None)
    record = asked(pipe, question)
    assert record.answer is not None
    assert "percent qualifying for reduced-price lunch" in record.answer.text, record.answer.text


def test_an_acronym_list_defines_by_initials_and_a_schema_line_defines_nothing() -> None:
    """An abbreviations list writes "NID National Identifier" (no mark: the initials say it
    is the expansion, Schwartz and Hearst's test); "NID: DT_UUID - Feature_ID: DT_UUID" is a
    class's attributes and their types, not what NID stands for."""
    text = (
        "ABBREVIATIONS\nLRM Linear Reference Method\nNID National Identifier\n"
        "NID: DT_UUID - Feature_ID: DT_UUID\nNID is not used in the 2004 model."
    )
    assert definition_lines("NID", text) == ["NID National Identifier"]
    assert definition_lines("LRM", text) == ["LRM Linear Reference Method"]
    assert definition_answer("What does the abbreviation NID stand for?", [text]) == [
        (0, "NID National Identifier")
    ]
