"""Every read bounded: a PDF page's table finder under a cell
and a time limit, and the text patterns run on document lines in time linear in them.

The pattern tests bound work, not time: each function runs on 100,000- and
200,000-character hostile lines under a deadline (``deadline``, a SIGALRM the test sets)
that the quadratic patterns exceeded many times over (a 60,000-space line took 77 s)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from localcrag.ingest.limits import Limits
from localcrag.ingest.parse import parse_document
from tests.support.documents import GRID_TEXT, ruled_grid_pdf


def _count_finder(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count calls of PyMuPDF's table finder; each finds nothing, at once (the real one ran
    over 300 s on the 100x100 grid)."""
    import pymupdf

    calls: list[int] = []

    def find_tables(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return SimpleNamespace(tables=[], textpage=None)

    monkeypatch.setattr(pymupdf.Page, "find_tables", find_tables)
    return calls


def test_a_100x100_ruled_grid_is_indexed_as_text_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_finder(monkeypatch)
    doc = parse_document(ruled_grid_pdf(tmp_path / "grid.pdf"))
    assert calls == []  # the finder never ran on 10,000 cells
    text = " ".join(doc.text.split())
    assert GRID_TEXT in text and "r0" in text and "r99" in text  # the page is not lost
    lines = [w for w in doc.warnings if "max_table_cells" in w]
    assert len(lines) == 1, doc.warnings
    assert "grid.pdf: page(s) 1 indexed as plain text, not as a table" in lines[0]
    assert "~10,000 cells" in lines[0] and "\n" not in lines[0]


def test_a_grid_within_the_cell_limit_is_still_read_as_a_table(tmp_path: Path) -> None:
    doc = parse_document(ruled_grid_pdf(tmp_path / "small.pdf", n=8))
    assert "small.pdf, p. 1, row 2: r1" in doc.text
    assert not [w for w in doc.warnings if "max_table" in w]


def test_a_page_over_the_table_time_budget_is_read_as_text(tmp_path: Path) -> None:
    """The budget is checked at each row the reader reads: a budget spent before the first
    row (1 ns) reads the page's tables as text, with the setting named."""
    from localcrag.ingest.pdftables import TableTooLarge, load_pymupdf, page_tables

    pymupdf = load_pymupdf()
    with pymupdf.open(ruled_grid_pdf(tmp_path / "small.pdf", n=8)) as pdf:
        assert page_tables(pdf[0], "small.pdf", Limits())  # read as a table within it
        with pytest.raises(TableTooLarge, match="max_table_seconds"):
            page_tables(pdf[0], "small.pdf", Limits(max_table_seconds=1e-9))


class Deadline(Exception):
    pass


@contextmanager
def deadline(seconds: int = 20) -> Iterator[None]:
    """Fail the block past ``seconds`` (SIGALRM): generous for linear work on 200,000
    characters, far short of the quadratic patterns' minutes."""

    def stop(signum: int, frame: Any) -> None:
        raise Deadline(f"over {seconds} s: quadratic in the line's length?")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def hostile_lines(n: int) -> list[str]:
    """Lines of ``n`` characters a document or a question can hold: spaces, tabs, spaces
    between words, repeated punctuation."""
    return [
        " " * n,
        "\t" * n,
        " \t" * (n // 2),
        "a " * (n // 2),
        "Ab " * (n // 3),
        "." * n,
        "-:" * (n // 2),
        "1." * (n // 2),
    ]


@pytest.mark.parametrize("n", [100_000, 200_000])
def test_definition_lines_are_found_in_time_linear_in_the_line(n: int) -> None:
    """A 60,000-space line after the term took 77 s (the word lookahead ran at each space)."""
    from localcrag.crag.answer.glossary import asked_term, definition_lines

    with deadline():
        for body in hostile_lines(n):
            for lead in ("CRIM", "- CRIM:", "CRIM -", "the CRIM means", ""):
                text = f"{lead}{body}1\n- CRIM     per capita crime rate by town\n{body}"
                assert definition_lines("CRIM", text)[-1] == ("CRIM per capita crime rate by town")
            for question in (f"What does {body} CRIM{body} mean?", f"What is CRIM{body} variable?"):
                term = asked_term(question)
                assert term is None or len(term.split()) <= 4
    assert definition_lines("CRIM", "CRIM" + " " * n + "crime rate") == ["CRIM crime rate"]
    assert definition_lines("CRIM", "CRIM:" + " " * n + "42") == []  # a value, no definition


def _ev(text: str) -> Any:
    from localcrag.types import Evidence

    return Evidence(n=1, text=text, source="/docs/notes.txt")


def _attribute(text: str) -> str:
    from localcrag.crag.answer.citations import Attributor

    attr = Attributor([_ev("Ada Lovelace wrote the first program.")])
    return attr.feed(text) + attr.flush()


def _entry_points() -> dict[str, Any]:
    """Each public function that runs a pattern on text of any length, with a line its old
    pattern took minutes on (quadratic, or worse): a run of spaces, dots, dotted or joined
    words that the pattern tried again from each of its characters, or split n^2 ways."""
    from localcrag.crag import ellipsis
    from localcrag.crag.answer import extract, grounding
    from localcrag.textutil import ends_sentence, identifiers, split_sentences

    ada = [_ev("Ada Lovelace wrote the first program.")]
    return {
        # model output: source labels cut (_LABEL), spaces before punctuation
        "clean_prose-spaces": lambda n: grounding.clean_prose(" " * n + "x"),
        "clean_prose-dotted": lambda n: grounding.clean_prose("1." * (n // 2)),
        "sentence_key-spaces": lambda n: grounding.sentence_key(" " * n + "x"),  # _CITE
        # links, addresses, secrets (_SENSITIVE): an address part, dotted and joined words
        "sensitive_strings-word": lambda n: grounding.sensitive_strings("a" * n + "@"),
        "sensitive_strings-dotted": lambda n: grounding.sensitive_strings("a." * (n // 2)),
        "sensitive_strings-joined": lambda n: grounding.sensitive_strings("a-" * (n // 2)),
        # names in a sentence (_CAP, _SPANS["name"]): a capitalised word before spaces
        "check_sentence-name": lambda n: grounding.check_sentence("A" + " " * n + "x", ada),
        "answer_spans-name": lambda n: extract.answer_spans("Ab" + " " * n + "x", "Who?", "name"),
        # document sentences (split_sentences) and the marker before the final stop
        "split_sentences-dots": lambda n: split_sentences("." * n + "x"),
        "ends_sentence-dots": lambda n: ends_sentence("." * n + "x"),
        "extractive_answer-dots": lambda n: extract.extractive_answer(
            "What does the note say?", [_ev("The note says" + "." * n + "x")]
        ),
        # the streamed answer's citations (_EVENT, _HOLD)
        "Attributor-dots": lambda n: _attribute("." * n + "x"),
        # a follow-up question and the one before it (_TOKEN)
        "ellipsis-dots": lambda n: ellipsis.complete("and the rest?", "." * n + " x"),
        # a question's or a query's codes and IDs (textutil.words._IDENT; twice the length:
        # the old pattern took ~13 s on 100,000 dots, ~55 s on 200,000)
        "identifiers-dots": lambda n: identifiers("." * (2 * n) + "1"),
        "identifiers-slashes": lambda n: identifiers("/" * (2 * n) + "A1"),
    }


@pytest.mark.parametrize("entry", sorted(_entry_points()))
def test_text_patterns_run_in_time_linear_in_the_line(entry: str) -> None:
    """100,000 characters: linear work takes well under a second, the old patterns minutes
    (a name's ``\\s+ ... \\s*`` split a run of spaces n^2 ways; the others scanned a run
    again from each of its characters)."""
    run = _entry_points()[entry]
    with deadline():
        run(100_000)
