"""The one text toolkit: each helper on hand-checked inputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from localcrag.crag.answer.generate import REFUSAL
from localcrag.textutil import (
    BE_FORMS,
    NUMBER_WORDS,
    STOPWORDS,
    base_form,
    content_words,
    ends_sentence,
    is_refusal,
    label_pattern,
    lexicon,
    locator,
    number_words,
    page_label,
    sentence_pieces,
    sentences,
    source_label,
    split_sentences,
    stem,
    stems,
    terms,
    words,
)


def test_words_are_lower_case_tokens_with_apostrophes_kept() -> None:
    assert words("Norman’s AI, don't stop 3.14!") == ["norman's", "ai", "don't", "stop", "3", "14"]


def test_base_form_drops_plurals_and_possessives_conservatively() -> None:
    assert [
        base_form(w) for w in ["grids", "companies", "Norman's", "classes", "status", "bus"]
    ] == ["grid", "company", "norman", "class", "status", "bus"]


def test_terms_skip_stop_words_and_contractions_of_them() -> None:
    assert terms("What is it's role in the smart grids?") == ["role", "smart", "grid"]
    assert {"the", "which", "would", "whether"} <= STOPWORDS and "grid" not in STOPWORDS


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("agreed", "agre"),
        ("hopping", "hop"),
        ("filing", "file"),
        ("happy", "happi"),
        ("relational", "relat"),
        ("digitizer", "digit"),
        ("hopefulness", "hope"),
        ("electrical", "electr"),
        ("adjustment", "adjust"),
        ("adoption", "adopt"),
        ("controll", "control"),
        ("roll", "roll"),
        ("sky", "sky"),
    ],
)
def test_porter_stemmer_matches_the_paper(word: str, expected: str) -> None:
    assert stem(word) == expected  # examples from Porter (1980)


def test_short_words_keep_their_letters() -> None:
    # Porter's reference implementation leaves words of one or two letters alone; the
    # Snowball algorithm alone would make "is", "as", "us" into "i", "a", "u"
    assert [stem(w) for w in ("is", "as", "us", "s", "vs")] == ["is", "as", "us", "s", "vs"]
    assert stem("was") == "wa" and stem("this") == "thi"  # Porter, not Porter2


def test_stems_join_word_families_a_prefix_cut_confused() -> None:
    assert stem("retrieve") == stem("retrieval") and stem("evaluator") == stem("evaluation")
    assert stem("robots") == stem("robotic")
    assert stem("interest") != stem("international")  # both "inter" as five-letter prefixes
    assert stems("The robots' 2 arms, a b c") == ["robot", "2", "arm"]  # single letters dropped
    assert content_words("Robotic arms retrieve parts") & content_words("robots retrieval") == {
        "robot",
        "retriev",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith paid $3.50 for it. He left.", ["Dr. Smith paid $3.50 for it.", "He left."]),
        (
            "A line that ends in a com-\nPound word. Next.",
            ["A line that ends in a com-\nPound word.", "Next."],
        ),
        ("Short line,\nNot a title. Yes.", ["Short line,\nNot a title.", "Yes."]),
        ("Title Line\nBody text starts here.", ["Title Line", "Body text starts here."]),
    ],
)
def test_sentences_keep_pdf_line_breaks_and_hyphens_together(
    text: str, expected: list[str]
) -> None:
    assert sentences(text) == expected
    assert [text[a:b] for a, b in split_sentences(text)] == expected


def test_sentence_pieces_give_the_text_back_with_markers_on_their_sentence() -> None:
    text = "AI began in 1956. [1] Robots weld [2]! Dr. Who\nis here.\n\nLast one"
    pieces = sentence_pieces(text)
    assert "".join(pieces) == text
    assert pieces == [
        "AI began in 1956. [1]",
        " Robots weld [2]!",
        " Dr. Who\nis here.",
        "\n\nLast one",
    ]
    assert sentence_pieces("") == [] and sentence_pieces("  ") == ["  "]


def test_ends_sentence_for_streamed_text() -> None:
    assert (
        ends_sentence("It works.") and ends_sentence("It works [1].") and ends_sentence("Done! [2]")
    )
    assert (
        ends_sentence("a line\n") and not ends_sentence("It works") and not ends_sentence("It [1")
    )


def test_source_label_one_page_format_everywhere() -> None:
    assert page_label(5) == "p. 5"
    assert source_label("/docs/report.pdf", 5) == "report.pdf, p. 5"
    assert source_label("/docs/report.pdf", 5, page_first=True) == "p. 5 report.pdf"
    assert source_label("/docs/report.pdf", 5, last_page=6) == "report.pdf, pp. 5\u20136"
    assert page_label(5, 5) == "p. 5"
    assert source_label("/docs/notes.md", None) == "notes.md"
    assert source_label("/docs/a.pdf", 2, url="https://example.org/a") == "https://example.org/a"
    assert source_label("https://example.org/b", None) == "https://example.org/b"


def test_label_pattern_is_derived_from_source_label() -> None:
    pattern = re.compile(label_pattern())
    assert pattern.fullmatch(source_label("/x/long report (v2).pdf", 30)) is None  # no brackets
    assert pattern.fullmatch(source_label("/x/report.pdf", 30))
    assert not pattern.fullmatch("report.pdf p.30")  # the old TUI format is not a label
    assert pattern.fullmatch(
        source_label("/x/a.docx", 1, locator=locator([("section", 1, "Travel budget")]))
    )
    assert locator([("section", 1, "Travel budget")]) == 'section "Travel budget"'
    assert (
        locator([("section", 0, "")]) is None
    )  # no heading, no table before it: the file name alone
    assert (
        locator([("section", 2, "")]) == "after table 2"
    )  # no heading: placed by the table before it
    assert pattern.fullmatch(source_label("/x/a.docx", 2, locator="after table 2"))
    assert locator([("section", 1, "Costs"), ("table", 2, "")]) == "table 2"


def test_is_refusal_any_case_quotes_and_contractions() -> None:
    assert is_refusal(REFUSAL) and is_refusal(f'"{REFUSAL.upper()}"')
    assert is_refusal("Sorry, I do not have enough information.") and is_refusal(
        "I don’t have enough information"
    )
    assert not is_refusal("Cobots work next to people [1].")


def test_number_words_have_their_values_and_a_range_is_a_slice() -> None:
    assert NUMBER_WORDS["twelve"] == 12 and NUMBER_WORDS["ninety"] == 90
    assert NUMBER_WORDS["million"] == 10**6
    assert list(number_words(2, 5)) == ["two", "three", "four", "five"]
    assert {"am", "is", "are", "was", "were", "be", "been", "being"} == BE_FORMS


def test_each_word_list_is_declared_once() -> None:
    # a module needing a narrower set builds it from textutil's list, never restates one
    root = Path(lexicon.__file__).parents[1]
    names = ("ARTICLES", "BE_FORMS", "DO_FORMS", "WH_WORDS", "PRONOUNS", "NUMBER_WORDS")
    declared = re.compile(r"^(?:" + "|".join(names) + r")\s*[:=]", re.M)
    again = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "lexicon.py"
        and (declared.search(p.read_text()) or "seventeen" in p.read_text())
    ]
    assert again == []


@pytest.mark.parametrize(
    ("question", "word", "noun"),
    [
        ("What is the maximum power HackRF One can safely handle?", "handle", False),
        ("Which reader does not support the format?", "support", False),
        ("What kind of support does the vendor offer?", "support", True),
        ("What is the handle of the account?", "handle", True),
    ],
)
def test_a_verb_after_an_adverb_after_a_modal_is_no_noun(
    question: str, word: str, noun: bool
) -> None:
    """ "can safely handle": the modal's verb comes after its adverb, and a question's verb
    is how it is put, not a noun an answer must hold."""
    from localcrag.textutil.pos import is_noun

    words = question.rstrip("?").split()
    assert is_noun(words, words.index(word)) is noun


def test_a_region_code_binds_as_a_cell_or_as_a_label_of_a_list_of_codes() -> None:
    """A results table writes "LA: Ajamu Baraka" among other states' labels; "AND, OR:" in
    prose is no list of regions, nor is "IN:" alone."""
    from localcrag.textutil.places import code_as_cell

    listed = "Jill Stein (Rudolph Ware; AL, ID, KY, TN: Samson Kpadenou; LA: Ajamu Baraka; MA: X)"
    assert code_as_cell("LA", listed) and code_as_cell("ID", listed)
    assert code_as_cell("TX", "STATE: TX; VOTES: 12")
    assert not code_as_cell("OR", "combine them with AND, OR: logic operators")
    assert not code_as_cell("IN", "IN: the input file")


def test_a_verb_that_closes_an_inverted_modals_clause_is_no_noun() -> None:
    """ "How much current can the antenna port supply at most": "supply" is the verb; "What
    can the rate limit be raised to" keeps its noun "limit", "bake the lemon cake" its "cake"."""
    from localcrag.textutil.pos import is_noun

    words = "How much current can the antenna port supply at most".split()
    assert not is_noun(words, words.index("supply"))
    words = "What can the rate limit be raised to".split()
    assert is_noun(words, words.index("limit"))


def test_a_name_ending_in_ones_is_no_pronoun() -> None:
    """ "HackRF One's antenna port" names the HackRF One: no follow-up to resolve."""
    from localcrag.crag.rewrite import needs_context

    assert not needs_context("How much current can HackRF One's antenna port supply at most?")
    assert needs_context("How much current can it supply?")
