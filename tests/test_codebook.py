"""A table read with its codebook: a question asked in the codebook's words ("the estimated
average monthly strength of the army") is answered by the row's cell in the column the
codebook defines so ("Army"), and the codebook itself joins the retrieved passages."""

from __future__ import annotations

from pathlib import Path

from localcrag.crag.answer.codebook import columns, definitions, is_codebook
from localcrag.crag.answer.constraints import read
from localcrag.types import Action, Chunk
from tests.test_binding import ask

ROWS = """data.csv, row 7 (6): Date: 1854-09-01; Month: Sep; Year: 1854; Army: 30290; Disease: 788.
data.csv, row 8 (7): Date: 1854-10-01; Month: Oct; Year: 1854; Army: 30643; Disease: 503."""

CODEBOOK = """Format
A data frame with 24 observations on the following variables.
Date: a Date
Army: Estimated average monthly strength of the British army
Disease: Number of deaths from preventable or mitigable zymotic diseases"""

QUESTION = "What was the estimated average monthly strength of the British army in October 1854?"


def chunk(text: str, source: str, cid: str) -> Chunk:
    return Chunk(cid, source, text, 1, 1, 0, len(text), None, 60)


def test_a_month_dates_a_year_of_any_century() -> None:
    assert [p.text for p in read(QUESTION).periods] == ["October 1854"]
    assert read("How many were sold for 1500 dollars?").periods == ()  # no year


def test_a_codebook_is_another_file_that_defines_the_columns() -> None:
    assert columns(ROWS) == ["Date", "Month", "Year", "Army", "Disease"]
    assert is_codebook(CODEBOOK, columns(ROWS)) and not is_codebook(ROWS, columns(ROWS))
    rows, book = chunk(ROWS, "/d/data.csv", "r"), chunk(CODEBOOK, "/d/data.html", "b")
    assert definitions([rows, book])["/d/data.csv"]["Army"].startswith("Army: Estimated")
    assert definitions([rows, chunk(CODEBOOK, "/d/data.csv", "b")]) == {}  # its own file


def test_a_row_is_read_with_its_codebook() -> None:
    rows, book = chunk(ROWS, "/d/data.csv", "r"), chunk(CODEBOOK, "/d/data.html", "b")
    action, said = ask(QUESTION, rows, book)
    assert action is Action.CORRECT and "**30643**" in said and "30290" not in said
    action, _ = ask(QUESTION, rows)  # the header alone never says "strength"
    assert action is Action.INCORRECT


def test_retrieval_adds_the_codebook_of_the_rows_it_found(tmp_path: Path) -> None:
    from localcrag.crag.retrieve import Retriever
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from tests.fakes import FakeEmbedder

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "data.csv").write_text(
        "Date,Month,Year,Army,Disease\n"
        + "".join(f"1854-{m:02d}-01,M{m},1854,{30000 + m},{m * 7}\n" for m in range(1, 13)),
        encoding="utf-8",
    )
    (docs / "data.html").write_text(
        "<html><body><h1>Mortality data</h1><h2>Format</h2>"
        + "".join(f"<p>{line}</p>" for line in CODEBOOK.split("\n")[2:])
        + "</body></html>",
        encoding="utf-8",
    )
    (docs / "other.md").write_text("# Notes\n\nThe army marched in 1854.\n", encoding="utf-8")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([docs])
    retriever = Retriever(Settings(), lib)
    hits = [h for h in retriever.search("Army Disease 1854-10-01", k=3, mode="text")]
    assert hits and all(h.chunk.source.endswith("data.csv") for h in hits)
    added = retriever.codebooks(hits)
    assert [Path(h.chunk.source).name for h in added] == ["data.html"]
    assert added[0].rank == len(hits) and "Estimated average" in added[0].chunk.text
    assert retriever.codebooks(hits + added) == []  # already among them


def test_an_r_documentation_variable_list_is_a_codebook() -> None:
    """R's help pages list variables as "[, 4] | hp | Gross horsepower"."""
    from localcrag.crag.answer.glossary import definition_lines

    book = "Format\n[, 1] | mpg | Miles/(US) gallon\n[, 4] | hp | Gross horsepower"
    assert definition_lines("hp", book) == ["hp | Gross horsepower"]
    rows = chunk(
        "cars.csv, row 32 (Maserati Bora): mpg: 15; cyl: 8; hp: 335; wt: 3.57.", "/d/cars.csv", "r"
    )
    action, said = ask(
        "What is the gross horsepower of the Maserati Bora?", rows, chunk(book, "/d/cars.html", "b")
    )
    assert action is Action.CORRECT and "335" in said
