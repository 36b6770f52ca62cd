"""A table read with its codebook: a question asked in the codebook's words ("the estimated
average monthly strength of the army") is answered by the row's cell in the column the
codebook defines so ("Army"), and the codebook itself joins the retrieved passages."""

from __future__ import annotations

from pathlib import Path

from localcrag.crag.answer.codebook import codebooks, columns, is_codebook
from localcrag.crag.answer.constraints import read
from localcrag.crag.retrieve import Retriever
from localcrag.ingest.library import Library
from localcrag.settings import Settings
from localcrag.types import Action, Chunk
from tests.support.answers import ask
from tests.support.fakes import FakeEmbedder

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


def retriever_over(folder: Path, files: dict[str, str]) -> Retriever:
    """A retriever over ``files`` (name -> text) written into ``folder`` and ingested."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    lib = Library(Settings(), embedder=FakeEmbedder())
    lib.ingest([folder])
    return Retriever(Settings(), lib)


def test_a_month_dates_a_year_of_any_century() -> None:
    assert [p.text for p in read(QUESTION).periods] == ["October 1854"]
    assert read("How many were sold for 1500 dollars?").periods == ()  # no year


def test_a_codebook_is_another_file_that_defines_the_columns() -> None:
    assert columns(ROWS) == ["Date", "Month", "Year", "Army", "Disease"]
    assert is_codebook(CODEBOOK, columns(ROWS)) and not is_codebook(ROWS, columns(ROWS))
    rows, book = chunk(ROWS, "/d/data.csv", "r"), chunk(CODEBOOK, "/d/data.html", "b")
    assert codebooks([rows, book])["/d/data.csv"].defs["Army"].startswith("Army: Estimated")
    assert codebooks([rows, chunk(CODEBOOK, "/d/data.csv", "b")]) == {}  # its own file


def test_a_row_is_read_with_its_codebook() -> None:
    rows, book = chunk(ROWS, "/d/data.csv", "r"), chunk(CODEBOOK, "/d/data.html", "b")
    action, said = ask(QUESTION, rows, book)
    assert action is Action.CORRECT and "**30643**" in said and "30290" not in said
    action, _ = ask(QUESTION, rows)  # the header alone never says "strength"
    assert action is Action.INCORRECT


def test_retrieval_adds_the_codebook_of_the_rows_it_found(tmp_path: Path) -> None:
    html = "".join(f"<p>{line}</p>" for line in CODEBOOK.split("\n")[2:])
    retriever = retriever_over(
        tmp_path / "docs",
        {
            "data.csv": "Date,Month,Year,Army,Disease\n"
            + "".join(f"1854-{m:02d}-01,M{m},1854,{30000 + m},{m * 7}\n" for m in range(1, 13)),
            "data.html": f"<html><body><h1>Mortality data</h1><h2>Format</h2>{html}</body></html>",
            "other.md": "# Notes\n\nThe army marched in 1854.\n",
        },
    )
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


def test_a_row_keeps_its_codebook_beside_it() -> None:
    """The grader scores topic, and a codebook page reads little like a row: graded under
    the lower threshold it would leave the row unread ("gross horsepower" is not in
    "hp: 335"). A row that binds with its codebook raises the codebook too, and the answer
    quotes the line that says what the column means, cited to the codebook."""
    from localcrag.crag.answer.binding import raise_bound
    from localcrag.crag.answer.extract import extractive_answer
    from localcrag.crag.decide import decide
    from localcrag.types import Evidence, Grade
    from tests.support.answers import LOWER, UPPER

    book = "Format\n[, 1] | mpg | Miles/(US) gallon\n[, 4] | hp | Gross horsepower"
    rows = "cars.csv, row 32 (Maserati Bora): mpg: 15; cyl: 8; hp: 335; wt: 3.57."
    question = "What is the gross horsepower of the Maserati Bora?"
    graded = [
        Grade(chunk(rows, "/d/cars.csv", "r"), 0.6, "g"),
        Grade(chunk(book, "/d/cars.html", "b"), 0.1, "g"),  # under LOWER
    ]
    grades = raise_bound(question, graded, UPPER)
    assert [g.binds for g in grades] == [True, True] and grades[1].score == UPPER
    assert decide(grades, UPPER, LOWER, question=question).action is Action.CORRECT
    evidence = [
        Evidence(i, g.chunk.text, g.chunk.source, 1, score=g.score) for i, g in enumerate(grades, 1)
    ]
    said = extractive_answer(question, evidence)
    assert "hp: **335**" in said.text and "hp | Gross horsepower [2]" in said.text
    assert said.cited == (1, 2)
    # without the codebook the row binds nothing ("gross horsepower" unsaid): nothing raised
    alone = raise_bound(question, graded[:1], UPPER)
    assert (
        not alone[0].binds
        and decide(alone, UPPER, LOWER, question=question).action is Action.INCORRECT
    )


WORLD_ROWS = """WorldPhones.csv, row 6 (1959): N.Amer: 71799; Europe: 37598; Oceania: 2868.
WorldPhones.csv, row 7 (1960): N.Amer: 76036; Europe: 40341; Oceania: 3054."""
WORLD_DOC = """R: The World's Telephones
WorldPhones | R Documentation
The World's Telephones
Description
The number of telephones in various regions of the world (in thousands)."""


def test_a_data_files_documentation_says_what_every_row_counts() -> None:
    """A table whose columns are regions says nowhere that it counts telephones; the data
    file's documentation (a short passage of another file that names the file and describes
    it in a sentence) does, and every row is read with it."""
    from localcrag.crag.answer.codebook import documents

    question = "How many telephones did Oceania have in 1960 according to the WorldPhones data?"
    rows = chunk(WORLD_ROWS, "/d/WorldPhones.csv", "r")
    doc = chunk(WORLD_DOC, "/d/WorldPhones.html", "b")
    assert documents(WORLD_DOC, "/d/WorldPhones.csv")
    assert not documents("Usage\nWorldPhones", "/d/WorldPhones.csv")  # describes nothing
    assert not documents(WORLD_DOC, "/d/data.csv")  # names another file
    assert codebooks([rows, doc])["/d/WorldPhones.csv"].about.startswith("R: The World")
    action, said = ask(question, rows, doc)
    assert action is Action.CORRECT and "**3054**" in said and "2868" not in said
    assert ask(question, rows)[0] is Action.INCORRECT  # "telephones" is said nowhere else
    action, _ = ask(question.replace("1960", "1970"), rows, doc)
    assert action is Action.INCORRECT  # the documentation names no year: the period is missing


def test_retrieval_adds_the_documentation_of_a_data_file_it_found(tmp_path: Path) -> None:
    retriever = retriever_over(
        tmp_path / "docs",
        {
            "WorldPhones.csv": ",N.Amer,Europe,Oceania\n1959,71799,37598,2868\n1960,76036,40341,3054\n",
            "WorldPhones.md": "# The World's Telephones\n\nWorldPhones\n\nThe number of telephones in "
            "various regions of the world (in thousands).\n",
            "other.md": "# Notes\n\nEurope grew in 1960.\n",
        },
    )
    hits = [h for h in retriever.search("Oceania", k=2, mode="text")]
    assert hits and all(h.chunk.source.endswith(".csv") for h in hits)
    added = retriever.codebooks(hits)
    assert [Path(h.chunk.source).name for h in added] == ["WorldPhones.md"]
    assert retriever.codebooks(hits + added) == []  # already among them


def test_the_title_of_a_tables_codebook_says_what_the_table_is() -> None:
    """A row of Caschool.csv says nowhere that its districts are Californian; the document
    that defines its columns is titled "The California Test Score Data Set", and the row is
    read with that title as its own document's would be."""
    rows = chunk(
        "Caschool.csv, row 400 (399): distcod: 69419; county: Santa Clara; "
        "district: Cupertino Union Elementary; enrltot: 15228; compstu: 0.1.",
        "/d/Caschool.csv",
        "r",
    )
    book = Chunk(
        "b",
        "/d/Caschool.html",
        "Format\nA dataframe containing :\ndistcod: disctric code\ncounty: county\n"
        "district: district\nenrltot: total enrollment\ncompstu: computer per student",
        1,
        1,
        0,
        60,
        "R: The California Test Score Data Set \u203a Format",
        40,
    )
    assert "California" in codebooks([rows, book])["/d/Caschool.csv"].about
    question = "Which California school district has 15228 students enrolled?"
    action, said = ask(question, rows, book)
    assert action is Action.CORRECT and "**Cupertino Union Elementary**" in said, said
    action, said = ask(question.replace("California", "Oregon"), rows, book)
    assert action is Action.INCORRECT and "Oregon" in said, said
