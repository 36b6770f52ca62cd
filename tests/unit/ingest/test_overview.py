"""Document overviews: made at ingest from the document's own sentences and vectors, kept
per indexed version, and "what is X about?" answered from them (crag/documents)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from localcrag.crag.documents import about_question, documents_named, named_scope
from localcrag.ingest.overview import Overview, Quoted, make
from localcrag.types import Action, Chunk

PAPER = """Tidal Energy in Small Harbours

Abstract
We measure the tidal energy available in twelve small harbours over one year. Small
turbines at harbour mouths could supply the harbours' own lighting. The yield depends
mostly on the mouth's width and the tidal range.

Introduction
Harbour authorities pay for lighting every night of the year. Tidal currents at harbour
mouths are strong and predictable. Earlier studies looked only at large estuaries.

Method
We placed current meters at the mouths of twelve harbours for a full year.
Each meter recorded the current speed every ten minutes.

Results
The median harbour could produce four times its lighting load from the tide.
"""

NOTES = """# Bee Keeping Notes

## Spring
Bees need water close to the hive in spring. A shallow dish with stones works well.
Queens start laying when the days grow longer.

## Summer
Swarming peaks in early summer when the hive runs out of room. Adding a super gives
the colony space and keeps it from swarming.

## Autumn
Feed the colony sugar syrup after the last honey harvest. Reduce the entrance so
wasps cannot rob the hive.
"""


def _chunk(i: int, text: str, heading: str = "", source: str = "/d/doc.txt") -> Chunk:
    return Chunk(f"doc-{i:05d}", source, text, 1, 1, i * 100, i * 100 + len(text), heading)


def test_an_authors_summary_opens_the_overview() -> None:
    chunks = [
        _chunk(0, "Tidal Energy in Small Harbours", "Tidal Energy ›"),
        _chunk(1, PAPER.split("Abstract\n")[1].split("\n\n")[0], "Tidal Energy › Abstract"),
        _chunk(
            2,
            "Harbour authorities pay for lighting every night of the year.",
            "Tidal Energy › Introduction",
        ),
    ]
    o = make("/d/doc.txt", "h1", chunks, np.eye(3, 8, dtype=np.float32))
    assert o.summary == "Abstract" and o.about == "Tidal Energy"
    assert [q.text for q in o.sentences][0].startswith("We measure the tidal energy")
    assert {q.chunk_id for q in o.sentences} == {"doc-00001"}
    assert o.headings == ("Abstract", "Introduction")


def test_without_a_summary_the_central_sentences_and_never_a_table_row() -> None:
    rows = (
        "notes.pdf, p. 2, row 3: Hive: North; Honey kg: 12.5.\n"
        "notes.pdf, p. 2, row 4: Hive: South; Honey kg: 9.0.\n"
        "Hive: West; Honey kg: 3.1; Queen: new; Mood: calm."
    )
    chunks = [
        _chunk(
            0, "Bees need water close to the hive in spring. Queens start laying early in the year."
        ),
        _chunk(1, "Swarming peaks when the hive runs out of room; a super gives the bees space."),
        _chunk(
            2, "Feed the hive sugar syrup after the last honey harvest, and reduce the entrance."
        ),
        _chunk(3, "notes.pdf, columns: Hive | Honey kg\n" + rows),
        _chunk(4, "Printed on recycled paper by the county beekeepers' club at the spring fair."),
    ]
    v = np.array([[1, 0.2, 0], [1, 0.3, 0], [1, 0.1, 0], [0, 0, 1], [0, 1, 0.2]], np.float32)
    o = make("/d/notes.pdf", "h2", chunks, v)
    said = [q.text for q in o.sentences]
    assert len(said) == 3 and not any("row" in s or "Honey kg" in s for s in said), said
    assert not any("recycled paper" in s for s in said)  # the chunk far from the document's mean
    assert [c.text for c in o.columns] == ["Hive | Honey kg"] and o.columns[
        0
    ].chunk_id == "doc-00003"
    again = Overview.from_json(o.to_json())
    assert again == o and isinstance(again.sentences[0], Quoted)


def test_which_document_a_question_names() -> None:
    docs = [
        ("/d/2023-Registered-Voter-Count.pdf", "2023 Voter Registration Totals; Michigan"),
        ("/d/CoJul22.pdf", "State of Iowa Voter Registration Totals; 7/5/2022"),
        ("/d/USFinanceIndustry.csv", ""),
    ]
    assert about_question("What is the 2023 voter registration count about?") == (
        "the 2023 voter registration count"
    )
    assert about_question("Summarize CoJul22.pdf") == "CoJul22.pdf"
    assert about_question("Give me an overview of the finance industry data.") is not None
    assert about_question("What is this document about?") == ""
    assert about_question("How many voters were registered?") is None
    assert documents_named("the 2023 voter registration count", docs).sources == (docs[0][0],)
    assert documents_named("us finance industry", docs).sources == (docs[2][0],)  # by file name
    assert documents_named("the voter registration totals", docs).sources == (
        docs[0][0],
        docs[1][0],
    )
    assert documents_named("attention", docs).sources == ()  # a topic, not a document
    asked = named_scope(
        "In the Iowa registration report, how many voters are in Polk?", lambda: docs
    )
    assert asked is not None
    assert asked[0] == "How many voters are in Polk?" and asked[1].sources == (docs[1][0],)
    trailing = named_scope("How many voters are in Polk, according to CoJul22.pdf?", lambda: docs)
    assert trailing is not None and trailing[1].sources == (docs[1][0],)

    def never() -> list[tuple[str, str]]:
        raise AssertionError("a place that is no document needs no document list")

    assert named_scope("How many votes were cast in Texas?", never) is None


def _library(tmp_path: Path):
    from tests.support.fakes import FakeGenerator, quoting_pipeline

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tidal-energy.txt").write_text(PAPER, encoding="utf-8")
    (docs / "bee-notes.md").write_text(NOTES, encoding="utf-8")
    pipe = quoting_pipeline(
        docs, FakeGenerator(), upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.1
    )
    return docs, pipe


def test_ingest_keeps_an_overview_per_indexed_version(tmp_path: Path) -> None:
    from localcrag.ingest.overview import Overviews

    docs, pipe = _library(tmp_path)
    lib = pipe.library
    paper = str(docs / "tidal-energy.txt")
    o = lib.overview(paper)
    assert o is not None and o.summary == "Abstract"
    assert o.sentences[0].text.startswith("We measure the tidal energy")
    assert Overviews(lib.store).get(paper, lib.store.doc_hash(paper)) == o  # written by ingest
    (docs / "tidal-energy.txt").write_text(PAPER.replace("twelve", "thirty"), encoding="utf-8")
    assert not lib.ingest([docs]).failed
    assert "thirty" in lib.overview(paper).sentences[0].text  # the new version's
    lib.remove(paper)
    assert lib.overview(paper) is None


def test_what_is_a_document_about_is_answered_from_its_overview(tmp_path: Path) -> None:
    from tests.support.fakes import asked

    docs, pipe = _library(tmp_path)
    run = asked(pipe, "What is the tidal energy paper about?")
    assert run.action is Action.CORRECT and not run.claims_nothing
    assert "**tidal-energy.txt**" in run.answer.text and "From its abstract:" in run.answer.text
    assert "We measure the tidal energy" in run.answer.text
    assert {c.source for c in run.sources} == {str(docs / "tidal-energy.txt")}
    assert run.hits and all(h.chunk.source == str(docs / "tidal-energy.txt") for h in run.hits)
    notes = asked(pipe, "Summarise bee-notes.md")
    assert (
        "Its most central sentences:" in notes.answer.text
        and "Spring; Summer; Autumn" in notes.answer.text
    )
    which = asked(pipe, "What is this document about?")  # two documents: which one?
    assert which.answer.refused and "Which document?" in which.answer.text and not which.searched
    scoped = asked(pipe, "What is it about?", scope=pipe.library.scope(["bee-notes.md"]))
    assert scoped.action is Action.CORRECT and "bee-notes.md" in scoped.answer.text
    topic = asked(pipe, "What is swarming about?")  # no document is called so: the usual path
    assert topic.decision is not None and "overview" not in topic.decision.reason


def test_a_question_that_names_a_document_is_asked_within_it(tmp_path: Path) -> None:
    from tests.support.fakes import asked

    docs, pipe = _library(tmp_path)
    q = "In the bee notes file, when does swarming peak?"
    run = asked(pipe, q)
    assert run.scope is not None and run.scope.sources == (str(docs / "bee-notes.md"),)
    assert run.scope.named_in_question == "the bee notes file"
    assert {h.chunk.source for h in run.hits} == {str(docs / "bee-notes.md")}
    everywhere = asked(pipe, q, named_scope=False)
    assert everywhere.scope is None
