"""OCR's l-or-I words: an acronym's l's are I's; a word or a name is left alone without the
document's own evidence."""

from __future__ import annotations

from localcrag.ingest.glyphs import settler
from localcrag.ingest.ocr import settled_pages


def test_two_capitals_besides_make_an_acronym_at_once() -> None:
    settle = settler([])
    assert settle("The APl and the XAl-powered GUl, by lBM.") == (
        "The API and the XAI-powered GUI, by IBM."
    )


def test_one_capital_needs_the_document_to_show_the_capitals_reading() -> None:
    body = "Transportation Al is revolutionizing transportation. Al-powered systems."
    assert settler([body])(body) == body  # a name ("Al Gore") reads the same
    settled = settler([body, "Chapter 15: The Future of AI Research"])(body)
    assert settled == "Transportation AI is revolutionizing transportation. AI-powered systems."


def test_words_names_and_formulas_stay() -> None:
    settle = settler(["AI", "III", "II"])
    text = "All of it. Ill health. Al2O3 and alumina, a small lake; Il Duomo"
    assert settle(text) == text


def test_a_documents_pages_are_settled_with_its_headings() -> None:
    pages = [
        [("Chapter 1: Al in Retail", 1), ("Retail uses Al for recommendations.", None)],
        [("The Future of AI", 2)],
    ]
    assert settled_pages(pages) == [
        [("Chapter 1: AI in Retail", 1), ("Retail uses AI for recommendations.", None)],
        [("The Future of AI", 2)],
    ]
    assert settled_pages([[("Al Gore spoke.", None)]]) == [[("Al Gore spoke.", None)]]
