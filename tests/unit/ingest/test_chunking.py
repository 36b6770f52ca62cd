"""Sentence splitting and chunking: a fake word counter for exact checks, then the real
MiniLM tokenizer on the shared documents."""

from __future__ import annotations

import pymupdf
import pytest

from localcrag.ingest.chunking import chunk_pages
from localcrag.ingest.parse import ParsedDoc, assemble, parse_document
from localcrag.textutil import split_sentences
from localcrag.types import Page
from tests.support import MODELS, SHARED

DATA = SHARED
AI_PDF = DATA / "ai-information" / "AI_Information.pdf"
ARTICLES = DATA / "squad2-dev-subset" / "articles"
MODEL = MODELS / "all-MiniLM-L6-v2"


def words(texts: list[str]) -> list[int]:
    """Fake batch counter: one token per word plus [CLS] and [SEP]."""
    return [len(t.split()) + 2 for t in texts]


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def covered(doc: ParsedDoc, chunks) -> bool:
    """Every non-space character of the document is in some chunk: nothing dropped."""
    mask = [False] * len(doc.text)
    for c in chunks:
        mask[c.char_start : c.char_end] = [True] * (c.char_end - c.char_start)
    return all(m or ch.isspace() for m, ch in zip(mask, doc.text))


# --- split_sentences -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith paid $3.50 for it. He left.", ["Dr. Smith paid $3.50 for it.", "He left."]),
        (
            "Tools, e.g. Siri and Alexa, help. See Fig. 3 now.",
            ["Tools, e.g. Siri and Alexa, help.", "See Fig. 3 now."],
        ),
        ("J. R. R. Tolkien wrote it. Then what?", ["J. R. R. Tolkien wrote it.", "Then what?"]),
        (
            'He said "Stop." Then he ran! Why? Done',
            ['He said "Stop."', "Then he ran!", "Why?", "Done"],
        ),
        (
            "Version 2.0 of the U.S. plan is ok. next word lower",
            ["Version 2.0 of the U.S. plan is ok. next word lower"],
        ),
        (
            "Intro:\n- first item\n- second item\n1. numbered one",
            ["Intro:", "- first item", "- second item", "1. numbered one"],
        ),
        ("Para one ends\n\nPara two.", ["Para one ends", "Para two."]),
        (
            "A line that wraps\nonto the next line. Next.",
            ["A line that wraps\nonto the next line.", "Next."],
        ),
        ("Title Line\nBody text starts here.", ["Title Line", "Body text starts here."]),
        ("Wait... What now", ["Wait...", "What now"]),
        ("  \n ", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_split_sentences_spans_are_trimmed_and_ordered() -> None:
    text = " One. Two (see [3]). Three!\n\n Four "
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == ["One.", "Two (see [3]).", "Three!", "Four"]
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))


# --- chunking with the fake counter --------------------------------------------------------


def para(n: int, tag: str, words_per: int = 5) -> str:
    """n sentences of ``words_per`` words each, labelled for tracing."""
    return " ".join(
        f"{tag.upper()}{i} " + " ".join(["word"] * (words_per - 2)) + " end." for i in range(n)
    )


def make_doc(pages: list[list[tuple[str, int | None]]]) -> ParsedDoc:
    return assemble(None, [(i + 1, p) for i, p in enumerate(pages)], [])


def test_offsets_limits_and_coverage() -> None:
    doc = make_doc(
        [[("Intro", 1), (para(12, "a"), None), (para(3, "b"), None)], [(para(9, "c"), None)]]
    )
    chunks = chunk_pages(doc, words, 24, 1, "d", "src")
    assert [c.chunk_id for c in chunks[:2]] == ["d-00000", "d-00001"]
    for c in chunks:
        assert doc.text[c.char_start : c.char_end] == c.text
        assert c.n_tokens == words([c.text])[0] <= 24 and c.source == "src"
    assert covered(doc, chunks)


def test_overlap_repeats_trailing_sentences_within_a_section() -> None:
    doc = make_doc([[(para(10, "s"), None)]])
    for overlap in (1, 2):
        chunks = chunk_pages(doc, words, 20, overlap, "d", "s")
        assert len(chunks) > 2
        for prev, nxt in zip(chunks, chunks[1:]):
            assert sentences(prev.text)[-overlap:] == sentences(nxt.text)[:overlap]
    no_overlap = chunk_pages(doc, words, 20, 0, "d", "s")
    assert all(a.char_end < b.char_start for a, b in zip(no_overlap, no_overlap[1:]))


def test_headings_start_chunks_and_label_them() -> None:
    doc = make_doc(
        [
            [
                ("Chapter 1", 1),
                ("Part A", 2),
                (para(2, "a"), None),
                ("Part B", 2),
                (para(2, "b"), None),
            ]
        ]
    )
    chunks = chunk_pages(doc, words, 100, 1, "d", "s")
    # the lone "Chapter 1" line is merged into the next chunk, not a 3-token chunk of its own
    assert [c.text.split("\n\n")[0] for c in chunks] == ["Chapter 1", "Part B"]
    assert [c.heading for c in chunks] == ["Chapter 1 > Part A", "Chapter 1 > Part B"]
    assert "B0" not in chunks[0].text and "A1" not in chunks[1].text


def test_tiny_intro_joins_its_first_subsection_not_a_sibling() -> None:
    doc = make_doc(
        [
            [
                ("Top", 1),
                ("Short intro.", None),
                ("Sub", 2),
                (para(4, "a"), None),
                ("Next", 2),
                ("Tiny.", None),
                ("Last", 2),
                (para(4, "b"), None),
            ]
        ]
    )
    chunks = chunk_pages(doc, words, 100, 0, "d", "s")
    assert [c.text.split("\n\n")[0] for c in chunks] == ["Top", "Next", "Last"]
    assert [c.heading for c in chunks] == ["Top > Sub", "Top > Next", "Top > Last"]


def test_long_sentence_split_on_word_boundaries() -> None:
    long = " ".join(f"w{i}" for i in range(50)) + "."
    doc = make_doc([[(f"Short one. {long} Tail.", None)]])
    chunks = chunk_pages(doc, words, 12, 0, "d", "s")
    assert all(c.n_tokens <= 12 for c in chunks)
    joined = " ".join(c.text for c in chunks).split()
    assert joined == f"Short one. {long} Tail.".split()  # every word kept, none cut in half


def test_giant_word_is_cut_on_characters() -> None:
    doc = make_doc([[("x" * 400, None)]])
    per_char = lambda ts: [len(t) + 2 for t in ts]  # noqa: E731
    chunks = chunk_pages(doc, per_char, 50, 0, "d", "s")
    assert "".join(c.text for c in chunks) == "x" * 400 and all(c.n_tokens <= 50 for c in chunks)


def test_estimate_too_low_is_caught_by_the_real_count() -> None:
    """Joining costs tokens here (each newline is one), as with some BPE tokenizers."""
    doc = make_doc([[(para(3, f"p{i}"), None) for i in range(8)]])
    costly = lambda ts: [len(t.split()) + 2 + t.count("\n") for t in ts]  # noqa: E731
    chunks = chunk_pages(doc, costly, 40, 1, "d", "s")
    assert all(c.n_tokens == costly([c.text])[0] <= 40 for c in chunks)
    assert covered(doc, chunks)


def test_page_spans_and_sentence_across_page_break() -> None:
    doc = make_doc(
        [
            [("The first page ends in the middle of a", None)],
            [("sentence that goes on. New one.", None)],
        ]
    )
    chunks = chunk_pages(doc, words, 100, 0, "d", "s")
    assert len(chunks) == 1 and (chunks[0].page_start, chunks[0].page_end) == (1, 2)
    small = chunk_pages(doc, words, 16, 0, "d", "s")
    assert small[0].text.endswith("goes on.") and small[0].page_end == 2


def test_single_text_counter_and_plain_pages() -> None:
    pages = [Page(1, para(6, "a"), "Intro"), Page(3, para(6, "b"), "Later")]
    single = lambda t: len(t.split()) + 2  # noqa: E731
    a = chunk_pages(pages, single, 20, 1, "d", "s")
    b = chunk_pages(pages, words, 20, 1, "d", "s")
    assert a == b
    assert {c.heading for c in a if c.page_start == 3} == {"Later"} and a[0].heading == "Intro"


def test_budget_too_small() -> None:
    with pytest.raises(ValueError):
        chunk_pages(make_doc([[("Hi.", None)]]), words, 2, 0, "d", "s")


# --- the real tokenizer ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder():
    if not MODEL.is_dir():
        pytest.skip(f"embedder not provisioned at {MODEL} (run make models)")
    from localcrag.models.embed import load_embedder

    e = load_embedder(MODEL)
    assert e.max_tokens == 256
    e.count_tokens_batch(["warm up"])  # the first tokenizer call pays the model load
    return e


needs_data = pytest.mark.skipif(not AI_PDF.exists(), reason=f"shared eval data not found at {DATA}")


@pytest.mark.slow
@needs_data
def test_ai_information_real_tokenizer(embedder) -> None:
    doc = parse_document(AI_PDF)  # (its speed is bench section 1's, not a unit test's)
    chunks = chunk_pages(
        doc, embedder.count_tokens_batch, embedder.max_tokens, 1, "ai", str(AI_PDF)
    )
    real = embedder.count_tokens_batch([c.text for c in chunks])
    assert real == [c.n_tokens for c in chunks] and max(real) <= 256
    assert covered(doc, chunks)
    with pymupdf.open(AI_PDF) as ref:
        page_of = {p.number + 1: " ".join(p.get_text().split()) for p in ref}
    for phrase in [
        "The Dartmouth Workshop in 1956",
        "Chapter 14: AI and Smart Cities",
        "A human-centered approach",
    ]:
        expected = [n for n, t in page_of.items() if phrase in t]
        hits = [c for c in chunks if phrase in " ".join(c.text.split())]
        assert hits and all(c.page_start <= expected[0] <= c.page_end for c in hits)
        assert hits[0].page_start == expected[0]
    assert sum(c.heading is not None for c in chunks) == len(chunks)
    assert any(c.heading.endswith("Historical Context") and "Dartmouth" in c.text for c in chunks)


@pytest.mark.slow
@pytest.mark.skipif(not ARTICLES.exists(), reason=f"shared eval data not found at {DATA}")
@pytest.mark.parametrize("name", ["Normans.txt", "Computational_complexity_theory.txt"])
def test_squad_articles_small_budget(embedder, name: str) -> None:
    doc = parse_document(ARTICLES / name)
    chunks = chunk_pages(doc, embedder.count_tokens, 64, 2, "sq", name)
    assert max(embedder.count_tokens_batch([c.text for c in chunks])) <= 64
    assert covered(doc, chunks)


def test_a_sentence_cut_for_size_overlaps_so_a_short_fact_is_whole_in_some_chunk() -> None:
    """A one-line file has no sentence ends: it is cut on words, and each piece starts with
    the last eighth of the one before (a fact straddling two chunks was refused)."""
    from localcrag.types import Page
    from tests.support.fakes import FakeEmbedder

    words = [f"w{i}" for i in range(2000)]
    chunks = chunk_pages(
        [Page(1, " ".join(words))], FakeEmbedder().count_tokens_batch, 200, 1, "d", "s"
    )
    assert len(chunks) > 10 and all(c.n_tokens <= 200 for c in chunks)
    held = [set(c.text.split()) for c in chunks]
    for i in range(0, len(words) - 20):
        assert any(set(words[i : i + 20]) <= h for h in held), words[i]
