"""Generation stage: citation cleaning (whole and streamed), attribution, fitting, answers."""

from __future__ import annotations

import pytest

from localcrag.crag.answer.citations import Attributor, CitationFilter, clean_citations
from localcrag.crag.answer.generate import REFUSAL, build_messages, fit_evidence
from localcrag.crag.answer.shaping import SentenceGate
from localcrag.errors import LocalcragError
from localcrag.llm.chat import GREEDY, ChatModel
from localcrag.types import Evidence

HISTORY = (
    "The idea of artificial intelligence has existed for centuries, often depicted in myths "
    "and fiction. However, the formal field of AI research began in the mid-20th century. "
    "The Dartmouth Workshop in 1956 is widely considered the birthplace of AI. Early AI "
    "research focused on problem-solving and symbolic methods."
)
FINANCE = (
    "In finance, AI is used for fraud detection, algorithmic trading, risk management, and "
    "customer service."
)


def ev(n: int, text: str = "Some text.", score: float = 0.5, **kw) -> Evidence:
    return Evidence(n=n, text=text, source=f"/docs/file{n}.pdf", page=n, score=score, **kw)


# --- clean_citations / CitationFilter -----------------------------------------------


@pytest.mark.parametrize(
    "text, n, cleaned, cited",
    [
        ("AI began in 1956 [1].", 2, "AI began in 1956 [1].", [1]),
        ("Facts [3] here [2].", 2, "Facts here [2].", [2]),
        ("Both [1, 2] and [2][1].", 2, "Both [1][2] and [2][1].", [1, 2]),
        ("Mixed [2, 7; 1].", 2, "Mixed [2][1].", [2, 1]),
        ("Range [1-3].", 3, "Range [1][2][3].", [1, 2, 3]),
        ("See [Source 2] and [source: 1].", 2, "See [2] and [1].", [2, 1]),
        ("Parens (1) and [sic] stay.", 1, "Parens (1) and [sic] stay.", []),
        ("Only invented [0] [4].", 3, "Only invented.", []),
        ("[1] Restated source.\n[2] Another.", 2, "Restated source.\nAnother.", []),
        ("Answer [2].\n[1] Label.", 2, "Answer [2].\nLabel.", [2]),
    ],
)
def test_clean_citations(text, n, cleaned, cited):
    assert clean_citations(text, n) == (cleaned, cited)


STREAMED = [
    "AI began in 1956 [1]. Robots [9] weld [2, 12]. Also [Source 2][3]!",
    "[2] Listed.\nThen a claim [1]. A year [2023] and [sic] and [1-2].",
    "No markers at all, just text. ",
]


@pytest.mark.parametrize("text", STREAMED)
def test_citation_filter_matches_whole_text_for_any_split(text):
    whole, cited = clean_citations(text, 2)
    for size in (1, 2, 3, 5):
        filt = CitationFilter(2)
        out = [filt.feed(text[i : i + size]) for i in range(0, len(text), size)]
        out.append(filt.flush())
        assert "".join(out) == whole and filt.cited == cited
        assert not any("[9" in piece or "[12" in piece or "[3" in piece for piece in out)


def test_citation_filter_holds_partial_marker():
    filt = CitationFilter(1)
    assert filt.feed("It is") == "It is"
    assert filt.feed(" [") == ""
    assert filt.feed("1") == ""
    assert filt.feed("]") == " [1]"  # the space before it waited with it
    assert filt.feed(" true [") == " true"
    assert filt.feed("5].") == "."  # invented: removed with its space
    assert filt.flush() == ""


# --- attribution ---------------------------------------------------------------------

ATTR_TEXT = (
    "The Dartmouth Workshop in 1956 was the birthplace of AI research. "
    "Banks use AI for fraud detection and algorithmic trading! "
    "It was cited already [2]. Pi is 3.14 and unrelated stuff"
)


def test_attributor_tags_uncited_sentences_by_overlap():
    attr = Attributor([ev(1, HISTORY), ev(2, FINANCE)])
    out = attr.feed(ATTR_TEXT) + attr.flush()
    assert out == (
        "The Dartmouth Workshop in 1956 was the birthplace of AI research [1]. "
        "Banks use AI for fraud detection and algorithmic trading [2]! "
        "It was cited already [2]. Pi is 3.14 and unrelated stuff"
    )
    for size in (1, 4):
        attr = Attributor([ev(1, HISTORY), ev(2, FINANCE)])
        pieces = [attr.feed(ATTR_TEXT[i : i + size]) for i in range(0, len(ATTR_TEXT), size)]
        assert "".join(pieces) + attr.flush() == out
    attr = Attributor([ev(1, HISTORY)])
    assert attr.feed(REFUSAL) + attr.flush() == REFUSAL


def test_attributor_tags_last_sentence_and_respects_following_citation():
    attr = Attributor([ev(1, HISTORY)])
    text = "The Dartmouth Workshop in 1956 began AI research"
    assert attr.feed(text) + attr.flush() == text + " [1]"
    attr = Attributor([ev(1, HISTORY)])
    text = "The Dartmouth Workshop in 1956 began AI research. [1] Next."
    assert attr.feed(text) + attr.flush() == text


def test_attributor_moves_unsupported_model_citations():
    evidence = [ev(1, HISTORY), ev(2, FINANCE)]
    cases = {
        "AI is used for fraud detection in finance and algorithmic trading. [1]": "AI is used for fraud detection in finance and algorithmic trading. [2]",
        "AI is used for fraud detection and algorithmic trading [1][2].": "AI is used for fraud detection and algorithmic trading [2].",
        "The Dartmouth Workshop in 1956 started AI research [1].": "The Dartmouth Workshop in 1956 started AI research [1].",
        "Penguins live in Antarctica [2].": "Penguins live in Antarctica [2].",
        "Banks use AI for trading. [2] The Dartmouth Workshop in 1956 began AI research.": "Banks use AI for trading. [2] The Dartmouth Workshop in 1956 began AI research [1].",
    }
    for text, expected in cases.items():
        attr = Attributor(evidence)
        out = "".join(attr.feed(c) for c in text) + attr.flush()
        assert out == expected


# --- fit_evidence with a fake word tokenizer ----------------------------------------


class FakeLLM(ChatModel):
    """One token per word; the chat template just joins the message contents."""

    def __init__(self, n_ctx: int) -> None:
        self.n_ctx = n_ctx

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat_prompt(self, messages: list[dict]) -> str:
        return "\n".join(m["content"] for m in messages)

    def fits(self, prompt_tokens: int, max_tokens: int) -> bool:
        return prompt_tokens + max_tokens <= self.n_ctx

    def stream(self, prompt, max_tokens, sampling=GREEDY, cancel=None):
        self.prompt = prompt
        return iter(["Workshop", " in", " 1956", " [", "7", "]", " began", " AI", " [1", "]."])


def _base(question: str) -> int:
    return FakeLLM(0).count_tokens(FakeLLM(0).chat_prompt(build_messages(question, []))) + 1


def _words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}." for i in range(n))


def test_fit_evidence_keeps_everything_that_fits():
    items = [ev(1, _words(5, "a")), ev(2, _words(5, "b"))]
    llm = FakeLLM(_base("Q?") + 10 + 40)
    kept, dropped = fit_evidence(llm, "Q?", items, max_answer_tokens=10)
    assert kept == items and dropped == []


def test_fit_evidence_drops_lowest_score_and_renumbers():
    items = [ev(1, _words(10, "a"), 0.9), ev(2, _words(10, "b"), 0.2), ev(3, _words(10, "c"), 0.5)]
    per_item = 10 + 4  # words + "[n] (fileN.pdf, p. N)"
    llm = FakeLLM(_base("Q?") + 20 + 2 * per_item)
    kept, dropped = fit_evidence(llm, "Q?", items, max_answer_tokens=20)
    assert [e.n for e in dropped] == [2]
    assert [(e.n, e.text) for e in kept] == [(1, items[0].text), (2, items[2].text)]
    assert kept[1].source == items[2].source and kept[1].score == 0.5


def test_fit_evidence_trims_single_item_at_sentence_boundary():
    big = ev(4, " ".join(f"Sentence number {i} is here." for i in range(40)), 0.7)
    llm = FakeLLM(_base("Q?") + 20 + 3 + 25)
    kept, dropped = fit_evidence(llm, "Q?", [big], max_answer_tokens=20)
    assert len(kept) == 1 and kept[0].n == 1 and kept[0].text.endswith("here.")
    assert big.text.startswith(kept[0].text)
    assert len(dropped) == 1 and dropped[0].n == 4
    assert kept[0].text + " " + dropped[0].text == big.text
    prompt = llm.chat_prompt(build_messages("Q?", kept))
    assert llm.fits(llm.count_tokens(prompt) + 1, 20)


def test_fit_evidence_question_too_long_names_n_ctx():
    llm = FakeLLM(_base("Q?") + 5)
    with pytest.raises(LocalcragError, match="n_ctx"):
        fit_evidence(llm, "word " * 50, [ev(1)], max_answer_tokens=20)


def _answer(llm, question: str, evidence: list[Evidence], max_tokens: int = 48) -> str:
    """What the pipeline does with the model's pieces: prompt, stream, check each sentence."""
    shaper = SentenceGate(evidence, question)
    for piece in llm.stream(llm.chat_prompt(build_messages(question, evidence)), max_tokens):
        shaper.feed(piece)
    shaper.finish()
    if not shaper.kept:  # nothing the model wrote is supported: the pipeline quotes instead
        from localcrag.crag.answer.extract import extractive_answer

        return extractive_answer(question, evidence).text
    return shaper.text


def test_prompt_labels_and_shaped_answer_with_fake_model():
    llm = FakeLLM(4096)
    assert (
        _answer(llm, "When?", [ev(1, HISTORY)]) == "Workshop in 1956 began AI [1]."
    )  # [7] invented
    assert "[1] (file1.pdf, p. 1) The idea" in llm.prompt
    web = Evidence(2, "A page.", "https://example.org/a", url="https://example.org/a", kind="web")
    assert "[2] (https://example.org/a) A page." in build_messages("Q?", [web])[1]["content"]


# --- the real chat model -------------------------------------------------------------


@pytest.mark.slow
def test_real_answer_cites_the_evidence():
    from localcrag.llm.gguf import load_llm
    from localcrag.settings import REPO_MODELS

    path = REPO_MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        pytest.skip("SmolLM2 not provisioned")
    llm = load_llm(path, n_ctx=2048)
    question = "When was the Dartmouth Workshop held?"
    kept, dropped = fit_evidence(llm, question, [ev(1, HISTORY)], max_answer_tokens=48)
    assert dropped == []
    text = _answer(llm, question, kept)
    cleaned, cited = clean_citations(text, 1)
    assert "1956" in text and cited == [1] and cleaned == text
