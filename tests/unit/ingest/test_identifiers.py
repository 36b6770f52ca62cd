"""Exact identifiers win and file names are searched. The 401-note
library of bench/identifiers.py, with the test embedder; the real-embedder figure is that
bench section's (before: 37 of 200 first; after: 200 of 200)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.identifiers import notes, questions
from localcrag.crag.retrieve import Retriever
from localcrag.ingest.library import Library
from localcrag.ingest.names import FileNames, held_counts
from localcrag.settings import Settings
from tests.support.documents import make_results_csv, make_stock_csv
from tests.support.fakes import FakeEmbedder


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """One index for the module, in a home of its own (the per-test isolated home does not
    exist yet at module scope: without this the index went to the user's data folder and
    grew with every run)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LOCALCRAG_HOME", str(tmp_path_factory.mktemp("ids-home")))
        yield _library(tmp_path_factory)


def _library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    folder = tmp_path_factory.mktemp("ids")
    notes(folder / "notes")
    (folder / "prices").mkdir()
    make_stock_csv(folder / "prices" / "NSE-TATAGLOBAL11.csv", days=300)
    (folder / "prices" / "closing.txt").write_text(
        "The closing price is the last price at which a share traded on a given day.\n",
        encoding="utf-8",
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert not lib.ingest([folder]).failed
    return lib


def test_a_question_naming_a_code_date_or_id_gets_the_passage_that_holds_it_first(
    library: Library,
) -> None:
    retriever = Retriever(Settings(), library)
    asked = questions(40)  # 200 in the bench section; a 40-question sample keeps the suite quick
    missed = [q for q, name in asked if Path(retriever.search(q)[0].chunk.source).name != name]
    assert not missed, missed


def test_a_code_that_is_a_prefix_of_another_is_not_held_by_it(library: Library) -> None:
    hits = Retriever(Settings(), library).search("Where is item code DOC0040 kept?")
    assert Path(hits[0].chunk.source).name == "note0040.txt"


def test_a_word_of_a_file_name_reaches_that_file(library: Library) -> None:
    """ "TATAGLOBAL" is in no passage's words (the rows say "NSE-TATAGLOBAL11.csv"); the
    file's name brings its passages over the one that explains closing prices."""
    hits = Retriever(Settings(), library).search("What was the TATAGLOBAL closing price?")
    assert Path(hits[0].chunk.source).name == "NSE-TATAGLOBAL11.csv"


def test_an_identifier_many_documents_hold_identifies_nothing() -> None:
    """ "API" across a library of API docs is held by every document: it must not put the
    passages that merely say it first; a code held by one document still wins."""
    rows = [
        {"_rowid": i, "text": f"The API call {i}.", "source": f"/docs/d{i}.md"} for i in range(8)
    ]
    rows.append({"_rowid": 99, "text": "Item DOC0042 uses the API.", "source": "/docs/x.md"})
    held = held_counts(rows, ["API", "DOC0042"], gone=set())
    assert held == {99: 1}
    assert held_counts(rows[:3], ["API"], gone=set()) == {0: 1, 1: 1, 2: 1}


def test_a_name_word_the_texts_use_throughout_names_no_file() -> None:
    """A word of a file's name that the texts of many documents hold is already searched by the
    text half ("prompt" in prompt-engineering.md); a word only the name holds names the file."""
    names = FileNames()
    sources = ["/d/prompt-engineering.md", "/d/NSE-TATAGLOBAL11.csv", "/d/other.md"]
    in_text = {"prompt": [f"/d/{i}.md" for i in range(9)], "tataglobal": []}
    named = names.named(
        "prompt tips for the TATAGLOBAL close", 1, lambda: sources, lambda w: in_text.get(w, [])
    )
    assert named == ["/d/NSE-TATAGLOBAL11.csv"]
    assert names.named("prompt tips", 1, lambda: sources) == ["/d/prompt-engineering.md"]


def test_a_row_holds_the_identifiers_of_its_document_s_title_besides_its_own(tmp_path) -> None:
    """ "What TX-RX separation does 3GPP TS 25.101 give for band VII?": the table row holds
    "VII" in its text and "3GPP", "25.101" in its document's title; prose that cites
    "3GPP TS 25.101" holds two. Counting the row's text alone (1) had put every such
    paragraph first and the row out of the evidence."""
    import docx

    word = docx.Document()
    word.core_properties.title = "3GPP TS 25.101 User Equipment radio transmission"
    word.add_heading("Frequency bands", level=1)
    for i in range(30):
        word.add_paragraph(
            f"Clause {i}: the requirement {i} of 3GPP TS 25.101 applies to every UE in "
            f"power class {i % 4 + 1} when the serving cell changes its carrier."
        )
    word.add_heading("TX-RX frequency separation", level=1)
    table = word.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = (
        "Operating Band",
        "TX-RX frequency separation",
    )
    for band, mhz in [("I", "190"), ("II", "80"), ("VII", "120"), ("VIII", "45")]:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = band, f"{mhz} MHz"
    word.save(tmp_path / "spec.docx")
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert not lib.ingest([tmp_path]).failed
    hits = Retriever(Settings(), lib).search(
        "What TX-RX frequency separation does 3GPP TS 25.101 give for operating band VII?"
    )
    assert "VII: 120 MHz" in hits[0].chunk.text or "VII; TX-RX" in hits[0].chunk.text


def test_a_region_named_in_words_is_searched_as_the_code_a_table_writes(
    tmp_path, monkeypatch
) -> None:
    """A library that says "California" in prose, and a results table that writes it "CA":
    the full-text half searches the code too (crag/retrieve), so the table's row of
    California can rank beside the prose that repeats the question's words; a code no
    table writes as a cell is not searched ("OR" of "or" would match every passage)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    states = ["AL", "AK", "AZ", "CA", "GA", "ID", "IN", "KS", "ME", "MT", "NV", "OH"]
    make_results_csv(docs / "popular-votes.csv", states)
    (docs / "schools.txt").write_text(
        "California schools report test scores. Oregon schools do too.", encoding="utf-8"
    )
    lib = Library(Settings(), embedder=FakeEmbedder())
    assert not lib.ingest([docs]).failed
    searched: list[str] = []
    search = lib.store.search

    def recorded(query, *args, **kwargs):  # type: ignore[no-untyped-def]
        searched.append(query)
        return search(query, *args, **kwargs)

    monkeypatch.setattr(lib.store, "search", recorded)
    retriever = Retriever(Settings(), lib)
    hits = retriever.search("How many votes did Kamala Harris receive in California?")
    assert searched[-1].split()[-1] == "CA"
    assert any("STATE: CA; HARRIS:" in h.chunk.text for h in hits)
    retriever.search("How many votes did Kamala Harris receive in Oregon?")
    assert "OR" not in searched[-1].split()
