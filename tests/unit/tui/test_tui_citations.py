"""A cited passage opens by its chunk id: never by guessing from the evidence text."""

from __future__ import annotations

from pathlib import Path

import pytest

from localcrag import events as ev
from localcrag.tui.modals import PassageModal
from localcrag.tui.widgets.trace import TracePanel
from localcrag.types import Action, Answer, Chunk, Citation, Decision, Evidence, Grade, Hit
from tests.support.tui_fakes import PDF, FakeLibrary, FakePipeline, ask, make_app, settle

pytestmark = pytest.mark.anyio

# Two chunks of one page whose first 80+ characters are the same (a repeated boilerplate
# opening): the old text-prefix guess took the first one for either citation.
SAME = (
    "Safety notice for every robot cell in this plant, applicable to all shifts and all operators: "
)
FIRST = Chunk("cA", PDF, SAME + "wear gloves near the welding arm.", 4, 4, 0, 130)
SECOND = Chunk("cB", PDF, SAME + "stop the conveyor before clearing a jam.", 4, 4, 130, 267)


def _script(question: str) -> list[ev.Event]:
    hits = (Hit(FIRST, 0.03, 0), Hit(SECOND, 0.02, 1))
    evidence = (Evidence(1, SECOND.text, PDF, 4, score=0.9, chunk_id="cB"),)
    answer = Answer(
        question, "Stop the conveyor first [1].", (Citation(1, PDF, 4, None),), Action.CORRECT
    )
    return [
        ev.Retrieved(hits),
        ev.ChunkGraded(Grade(FIRST, 0.2, "fake"), 0, 2),
        ev.ChunkGraded(Grade(SECOND, 0.9, "fake"), 1, 2),
        ev.DecisionMade(Decision(Action.CORRECT, 0.9, 0.76, 0.51, "best 0.9")),
        ev.Token(answer.text),
        ev.AnswerDone(answer, evidence, {}),
    ]


async def test_citation_opens_the_chunk_it_came_from_when_prefixes_match(tmp_path: Path) -> None:
    assert FIRST.text[:90] == SECOND.text[:90]
    library = FakeLibrary(chunks=[FIRST, SECOND])
    app, _, _ = make_app(tmp_path, pipeline=FakePipeline(_script), library=library)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "How do I clear a jam?")
        await settle(pilot)
        assert app.screen.query_one(TracePanel).state.evidence_n == {1: (1,)}  # hit 2 became [1]
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PassageModal)
        assert app.screen.chunk is not None and app.screen.chunk.chunk_id == "cB"
        await pilot.press("escape")
        await settle(pilot)
    # the conversation on disk holds the real id, and a new app opens the same passage
    assert app.backend.history.last().turns[0].chunk_id(1) == "cB"
    app2, _, _ = make_app(tmp_path, library=FakeLibrary(chunks=[FIRST, SECOND]))
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert isinstance(app2.screen, PassageModal) and app2.screen.chunk.chunk_id == "cB"


async def _ask_and_open_the_first_source(pilot, question: str) -> None:
    await settle(pilot)
    await ask(pilot, question)
    await settle(pilot)
    await pilot.press("ctrl+r", "enter")
    await settle(pilot)


@pytest.mark.parametrize(
    "style, says", [("extractive", "quotes from"), ("generative", "given to the model")]
)
async def test_passage_footer_says_what_the_highlight_is_for_the_answer_style(
    tmp_path: Path, style: str, says: str
) -> None:
    """A quoted answer gave nothing to a model: the passage view must not say it did."""

    def script(question: str) -> list[ev.Event]:
        events = _script(question)
        done = events[-1]
        answer = Answer(
            question, done.answer.text, done.answer.citations, Action.CORRECT, style=style
        )
        return [
            *events[:-2],
            ev.StyleChosen(style, f"answer_style = {style}", "SmolLM2"),
            ev.Token(answer.text),
            ev.AnswerDone(answer, done.evidence, {}),
        ]

    app, _, _ = make_app(
        tmp_path, pipeline=FakePipeline(script), library=FakeLibrary(chunks=[FIRST, SECOND])
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await _ask_and_open_the_first_source(pilot, "How do I clear a jam?")
        assert isinstance(app.screen, PassageModal)
        assert says in app.screen.used


def test_a_docx_passage_shows_its_heading_once(tmp_path: Path) -> None:
    """A .docx chunk opens with its heading paragraph: the source view showed the heading as
    its heading line and again as the body's first line."""
    from localcrag.ingest.chunking import chunk_pages
    from localcrag.ingest.parse import parse_document
    from localcrag.textutil import source_label
    from localcrag.tui.modals import passage_view
    from tests.support.documents import make_docx
    from tests.support.fakes import FakeEmbedder

    doc = parse_document(make_docx(tmp_path / "report.docx"))
    chunks = chunk_pages(
        doc, FakeEmbedder().count_tokens_batch, 256, 0, "d", str(tmp_path / "report.docx")
    )
    body = next(c for c in chunks if "animal mascot" in c.text)
    assert body.text.startswith("Regional offices\n\n")
    assert (body.heading or "").removesuffix(" ›") == "Regional offices"  # the document's title
    for label in (source_label(body.source, locator=body.locator), "report.docx, p. 1"):
        heading, text, found = passage_view(
            body, "Each regional office keeps an animal mascot, listed below.", label
        )
        shown = [
            line
            for part in (heading, text.plain)
            if part
            for line in part.splitlines()
            if line.strip()
        ]
        shown.append(label)
        assert sum(line.count("Regional offices") for line in shown) == 1, shown
        assert found and text.plain.startswith("Each regional office") and text.spans


async def test_a_quoted_answers_source_line_shows_the_quoted_sentence(tmp_path: Path) -> None:
    """The sources list under an answer showed the evidence's first words ("Travel budget The
    travel budget was approved ..."), not the sentence quoted from it about the cost."""
    from textual.widgets import OptionList

    evidence = (
        Evidence(
            1,
            "Travel budget The travel budget was approved by Maria Okafor on 12 March 2025. "
            "It covers site visits to all partner hospitals. The travel budget cost "
            "48,000 euros in total.",
            PDF,
            1,
            score=0.9,
            chunk_id="cB",
        ),
    )

    def script(question: str) -> list[ev.Event]:
        answer = Answer(
            question,
            "The travel budget cost **48,000 euros** in total [1].",
            (Citation(1, PDF, 1, None),),
            Action.CORRECT,
            style="extractive",
        )
        return [
            ev.Retrieved((Hit(SECOND, 0.02, 0),)),
            ev.Token(answer.text),
            ev.AnswerDone(answer, evidence, {}),
        ]

    app, _, _ = make_app(
        tmp_path, pipeline=FakePipeline(script), library=FakeLibrary(chunks=[FIRST, SECOND])
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "How much did the travel budget cost?")
        await settle(pilot)
        line = app.screen.query_one(".sources", OptionList).get_option_at_index(0).prompt.plain
        assert "The travel budget cost 48,000 euros in total." in line and "approved" not in line


async def test_a_quoted_answer_highlights_only_the_sentences_it_quotes(tmp_path: Path) -> None:
    """The source view highlighted the whole kept chunk as "the text the answer quotes from",
    even when the answer quoted one sentence of it."""
    from localcrag.tui.modals import HIGHLIGHT, QUOTED

    chunk = Chunk(
        "cQ",
        PDF,
        "Ferns like shade. Water a fern from below by standing its pot in rain water. "
        "Repot in spring.",
        2,
        2,
        0,
        110,
    )

    def script(question: str) -> list[ev.Event]:
        evidence = (Evidence(1, chunk.text, PDF, 2, score=0.9, chunk_id="cQ"),)
        text = "Water a fern from below by standing its pot in **rain water** [1]."
        answer = Answer(
            question, text, (Citation(1, PDF, 2, None),), Action.CORRECT, style="extractive"
        )
        return [
            ev.Retrieved((Hit(chunk, 0.03, 0),)),
            ev.ChunkGraded(Grade(chunk, 0.9, "fake"), 0, 1),
            ev.DecisionMade(Decision(Action.CORRECT, 0.9, 0.76, 0.51, "best 0.9")),
            ev.StyleChosen("extractive", "answer_style = extractive", "SmolLM2"),
            ev.Token(text),
            ev.AnswerDone(answer, evidence, {}),
        ]

    app, _, _ = make_app(
        tmp_path, pipeline=FakePipeline(script), library=FakeLibrary(chunks=[chunk])
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await _ask_and_open_the_first_source(pilot, "How do I water a fern?")
        assert isinstance(app.screen, PassageModal) and app.screen.used == QUOTED
        body = app.screen.query_one("#passage-body").children[0].content
        lit = [body.plain[s.start : s.end] for s in body.spans if s.style == HIGHLIGHT]
        assert lit == ["Water a fern from below by standing its pot in rain water"]


async def test_a_refusal_lists_what_was_searched_under_it(tmp_path: Path) -> None:
    """A refusal cites nothing, so it says what was searched ("2 passages from 1
    file; closest: FILE, p. N"), the same line `ask` prints (RunRecord.searched), and a
    reopened conversation shows it again."""
    from textual.widgets import OptionList, Static

    def script(question: str) -> list[ev.Event]:
        refusal = Answer(
            question,
            "I don't have enough information to answer that.",
            (),
            Action.INCORRECT,
            refused=True,
        )
        return [
            ev.Retrieved((Hit(FIRST, 0.03, 0), Hit(SECOND, 0.02, 1))),
            ev.ChunkGraded(Grade(FIRST, 0.2, "fake"), 0, 2),
            ev.ChunkGraded(Grade(SECOND, 0.3, "fake"), 1, 2),
            ev.DecisionMade(Decision(Action.INCORRECT, 0.3, 0.76, 0.51, "best 0.3")),
            ev.Token(refusal.text),
            ev.AnswerDone(refusal, (), {}),
        ]

    want = f"Searched 2 passages from 1 file; closest: {PDF.rsplit('/', 1)[-1]}, p. 4 (relevance 0.30)."
    app, _, _ = make_app(
        tmp_path, pipeline=FakePipeline(script), library=FakeLibrary(chunks=[FIRST, SECOND])
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "Which gloves does the night shift wear?")
        await settle(pilot)
        line = app.screen.query_one(".searched", Static)
        assert line.display and str(line.render()) == want
        assert not app.screen.query_one(".sources", OptionList).display  # no sources for a refusal
    assert app.backend.history.last().turns[0].searched == want
    app2, _, _ = make_app(tmp_path, library=FakeLibrary(chunks=[FIRST, SECOND]))
    async with app2.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert str(app2.screen.query_one(".searched", Static).render()) == want


async def test_a_table_answer_shows_its_cell_and_cites_the_row(tmp_path: Path) -> None:
    """A lookup by date is answered with the cell, its column, row and file, and the
    citation opens the chunk holding that row (the real pipeline and index; fake embedder and
    grader)."""
    from localcrag.crag.pipeline import Pipeline
    from localcrag.ingest.library import Library
    from localcrag.settings import Settings
    from localcrag.tui.widgets.answer import TurnView
    from tests.support.documents import make_stock_csv
    from tests.support.fakes import FakeEmbedder, FakeGenerator, FakeGrader

    docs = tmp_path / "docs"
    docs.mkdir()
    make_stock_csv(docs / "TSLA.csv", days=400)
    settings = Settings(
        models_dir=tmp_path / "models",
        offline=True,
        upper_threshold=0.3,
        lower_threshold=0.1,
        strip_threshold=0.1,
        answer_style="extractive",
    )
    library = Library(settings, embedder=FakeEmbedder())
    assert not library.ingest([docs]).failed
    # the quote is written without the model: a fake stands for the GGUF the app warms up
    pipeline = Pipeline(settings, library=library, grader=FakeGrader(), generator=FakeGenerator())
    app, _, _ = make_app(tmp_path, pipeline=pipeline, library=library, settings=settings)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await ask(pilot, "What was the closing price of TSLA on 2010-06-29?")
        await settle(pilot)
        view = app.screen.query_one(TurnView)
        assert view.done
        assert view.text.startswith("Close on 2010-06-29: **23.83** (TSLA.csv, row 3) [1]."), (
            view.text
        )
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PassageModal)
        chunk = app.screen.chunk
        assert chunk is not None and Path(chunk.source).name == "TSLA.csv"
        assert "TSLA.csv, row 3: Date: 2010-06-29;" in chunk.text
