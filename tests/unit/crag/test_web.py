"""Web fallback and query rewriting. No network here, so offline behaviour is tested for real."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from localcrag.crag import web
from localcrag.crag.rewrite import (
    keyword_query,
    needs_context,
    rewrite_for_web,
    standalone_question,
)
from localcrag.crag.web import DDGSearch, WebSearchError, is_online, outcome_events, search_web
from localcrag.events import WebError, WebQuery, WebResults, WebSkipped
from localcrag.llm.chat import GREEDY, Sampling
from localcrag.types import WebResult


class FakeSearch:
    """Deterministic WebSearch; no host, so search_web does not probe DNS."""

    host: str | None = None

    def __init__(
        self,
        results: list[WebResult] | None = None,
        error: Exception | None = None,
        delay: float = 0.0,
    ) -> None:
        self.results, self.error, self.delay, self.calls = results or [], error, delay, []
        self.release = threading.Event()
        self.returned = threading.Event()  # set when a search call has come back

    def search(self, query: str, max_results: int) -> list[WebResult]:
        self.calls.append((query, max_results))
        if self.delay:
            self.release.wait(self.delay)
            self.returned.set()
        if self.error:
            raise self.error
        return self.results[:max_results]


class FakeLLM:
    """Duck-typed llm: returns a canned reply and records prompts and sampling arguments."""

    def __init__(self, reply: str = "", fail: bool = False) -> None:
        self.reply, self.fail, self.prompts, self.kwargs = reply, fail, [], []

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        return "\n".join(f"<{m['role']}>{m['content']}" for m in messages)

    def stream(self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY) -> Iterator[str]:
        if self.fail:
            raise RuntimeError("model crashed")
        self.prompts.append(prompt)
        self.kwargs.append({"max_tokens": max_tokens, "sampling": sampling})
        yield from (self.reply[i : i + 3] for i in range(0, len(self.reply), 3))


RESULT = WebResult("CRAG paper", "https://arxiv.org/abs/2401.15884", "Corrective RAG")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    web.clear_online_cache()
    yield
    web.clear_online_cache()


@pytest.fixture
def fake_ddgs(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """Replace ddgs.DDGS; ``state['text']`` decides what .text() does."""
    import ddgs

    state: dict = {"init": [], "calls": [], "release": threading.Event()}

    class FakeDDGS:
        def __init__(self, *args: object, **kwargs: object) -> None:
            state["init"].append(kwargs)

        def text(self, query: str, **kwargs: object) -> list[dict]:
            state["calls"].append((query, kwargs))
            return state["text"]()

    monkeypatch.setattr(ddgs, "DDGS", FakeDDGS)
    yield state
    state["release"].set()  # let an abandoned "slow" thread finish


# --- offline guarantees --------------------------------------------------------------------


def test_offline_and_never_touch_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    touched: list[str] = []

    def trap(name: str):
        def f(*a: object, **k: object) -> None:
            touched.append(name)
            raise AssertionError(f"network used: {name}")

        return f

    for name in ("socket", "getaddrinfo", "create_connection"):
        monkeypatch.setattr(socket, name, trap(name))
    monkeypatch.setattr(web, "DDGSearch", trap("DDGSearch"))
    asked: list[str] = []
    for offline, policy, reason in [
        (True, "always", web.SKIP_OFFLINE),
        (True, "ask", web.SKIP_OFFLINE),
        (True, "never", web.SKIP_OFFLINE),
        (False, "never", web.SKIP_DISABLED),
    ]:
        out = search_web(
            lambda: asked.append("rewrite") or "crag paper",
            searcher=None,
            offline=offline,
            policy=policy,
            confirm=lambda q: asked.append(q) or True,
            timeout=5.0,
            max_results=4,
        )
        assert out == web.WebOutcome(False, None, skipped=reason)
    assert touched == [] and asked == []  # not even the model's query rewrite ran


def _no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without network, simulated: tests never probe the real resolver."""

    def gaierror(host: str, *a: object, **k: object) -> list:
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", gaierror)
    web.clear_online_cache()


def test_real_ddgsearch_fails_fast_without_network() -> None:
    # the real ddgs client, sent by conftest to a closed loopback proxy: no request leaves
    with pytest.raises(WebSearchError) as info:
        DDGSearch(timeout=5.0).search("corrective retrieval augmented generation", 3)
    message = str(info.value)
    assert message.startswith("web search failed: ConnectError") and "\n" not in message


def test_search_web_offline_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_dns(monkeypatch)
    rewrites: list[str] = []
    out = search_web(
        lambda: rewrites.append("ran") or "crag",
        searcher=None,
        offline=False,
        policy="always",
        confirm=None,
        timeout=5.0,
        max_results=4,
    )
    assert out.skipped == web.SKIP_DNS and not out.attempted and out.results == ()
    assert rewrites == []  # no model time spent on a query that cannot be sent
    # Past the DNS gate, the real ddgs call (to the closed proxy) still ends in a one-line error.
    monkeypatch.setattr(web, "is_online", lambda host, timeout: True)
    out = search_web(
        "crag",
        searcher=None,
        offline=False,
        policy="always",
        confirm=None,
        timeout=5.0,
        max_results=4,
    )
    assert out.attempted and out.error.startswith("web search failed") and "\n" not in out.error


def test_is_online_caches_and_bounds_a_hanging_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    release, returned = threading.Event(), threading.Event()

    def hanging(host: str, *a: object, **k: object) -> list:
        calls.append(host)
        release.wait(10)
        returned.set()
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    assert is_online("example.invalid", timeout=0.3) is False
    assert is_online("example.invalid", timeout=0.3) is False  # cached: no second probe
    # answered while the resolver still hangs: the deadline ended the wait, not the resolver
    assert not returned.is_set() and calls == ["example.invalid"]
    release.set()


# --- DDGSearch with a fake ddgs ----------------------------------------------------------


def test_ddgsearch_maps_results_and_arguments(fake_ddgs: dict) -> None:
    fake_ddgs["text"] = lambda: [
        {"title": "A", "href": "https://a.example/", "body": "alpha"},
        {"title": "A again", "href": "https://a.example", "body": "dup"},
        {"title": "", "href": "https://empty.example", "body": ""},
        {"title": "No url", "href": "", "body": "x"},
        {"title": "B", "href": "https://b.example", "body": " beta  text "},
    ]
    got = DDGSearch(timeout=3, region="de-de").search("q", 4)
    assert got == [
        WebResult("A", "https://a.example/", "alpha"),
        WebResult("B", "https://b.example", "beta text"),
    ]
    assert fake_ddgs["init"] == [{"timeout": 3.0}]
    assert fake_ddgs["calls"] == [
        ("q", {"region": "de-de", "max_results": 4, "backend": "duckduckgo"})
    ]


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("ratelimit", "rate limited"),
        ("timeout", "timed out after 5 s"),
        ("dns", "offline: cannot resolve duckduckgo.com"),
        ("none", "returned no results"),
        ("other", "web search failed: ConnectError"),
    ],
)
def test_ddgsearch_error_messages(fake_ddgs: dict, kind: str, expected: str) -> None:
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    exc = {
        "ratelimit": RatelimitException("202 Ratelimit"),
        "timeout": TimeoutException("timed out"),
        "dns": DDGSException("DNSError: error resolving DNS"),
        "none": DDGSException("No results found."),
        "other": DDGSException("ConnectError: connection refused\nmore lines"),
    }[kind]

    def boom() -> list:
        raise exc

    fake_ddgs["text"] = boom
    with pytest.raises(WebSearchError) as info:
        DDGSearch().search("q", 3)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_ddgsearch_enforces_deadline(fake_ddgs: dict) -> None:
    returned = threading.Event()

    def hang() -> list:
        fake_ddgs["release"].wait(10)
        returned.set()
        return []

    fake_ddgs["text"] = hang
    with pytest.raises(WebSearchError, match=r"timed out after 0.5 s"):
        DDGSearch(timeout=0.5).search("q", 3)
    assert not returned.is_set()  # the call still hangs: the deadline answered


# --- search_web policy ---------------------------------------------------------------------


def test_search_web_policies() -> None:
    fake = FakeSearch([RESULT, RESULT])
    kw = dict(searcher=fake, offline=False, timeout=2.0, max_results=1)
    assert search_web("q", policy="ask", confirm=None, **kw).skipped == web.SKIP_NO_CONSENT
    asked: list[str] = []
    out = search_web(
        " crag  paper ", policy="ask", confirm=lambda q: asked.append(q) or False, **kw
    )
    assert out.skipped == web.SKIP_DECLINED and asked == ["crag paper"] and fake.calls == []
    out = search_web("crag paper", policy="ask", confirm=lambda q: True, **kw)
    assert out == web.WebOutcome(True, "crag paper", results=(RESULT,))
    assert search_web("   ", policy="always", confirm=None, **kw).skipped == web.SKIP_EMPTY
    out = search_web(
        lambda: " crag  paper ", policy="ask", confirm=lambda q: asked.append(q) or False, **kw
    )
    assert asked[-1] == "crag paper"  # online: the rewritten query is what the user is shown
    with pytest.raises(ValueError):
        search_web("q", policy="sometimes", confirm=None, **kw)


def test_search_web_errors_and_timeout() -> None:
    kw = dict(offline=False, policy="always", confirm=None, max_results=3)
    out = search_web(
        "q", searcher=FakeSearch(error=WebSearchError(web.MSG_RATELIMIT)), timeout=2.0, **kw
    )
    assert out.attempted and out.error == web.MSG_RATELIMIT
    out = search_web("q", searcher=FakeSearch(error=KeyError("href")), timeout=2.0, **kw)
    assert out.error == "web search failed: KeyError: 'href'"
    slow = FakeSearch([RESULT], delay=10)
    out = search_web("q", searcher=slow, timeout=0.5, **kw)
    assert out.error == "web search timed out after 0.5 s" and not slow.returned.is_set()
    slow.release.set()


def test_outcome_events() -> None:
    assert outcome_events(web.WebOutcome(False, "q", skipped="offline setting")) == [
        WebSkipped("offline setting")
    ]
    assert outcome_events(web.WebOutcome(True, "q", error="boom")) == [
        WebQuery("q"),
        WebError("q", "boom"),
    ]
    assert outcome_events(web.WebOutcome(True, "q", results=(RESULT,))) == [
        WebQuery("q"),
        WebResults("q", (RESULT,)),
    ]


# --- rewriting -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What is the capital of France?", "capital France"),
        ("How does LanceDB store vectors on disk?", "LanceDB store vectors disk"),
        (
            'Who wrote "Corrective Retrieval Augmented Generation" in 2024?',
            'wrote "Corrective Retrieval Augmented Generation" 2024',
        ),
        (
            "Tell me about the GPU needs of llama.cpp and CUDA 12 on Windows with WSL2, Docker and many other tools",
            "GPU needs llama.cpp CUDA 12 Windows WSL2 Docker",
        ),
        ("What's Yan et al.'s CRAG evaluator?", "Yan et al CRAG evaluator"),
        ("What is it?", "What is it"),
        ("", ""),
    ],
)
def test_keyword_query(question: str, expected: str) -> None:
    assert keyword_query(question) == expected


def test_rewrite_for_web_uses_valid_llm_output() -> None:
    llm = FakeLLM("  CRAG retrieval evaluator thresholds\n")
    question = "What thresholds does the CRAG retrieval evaluator use?"
    assert rewrite_for_web(question, llm) == "CRAG retrieval evaluator thresholds"
    assert (
        llm.kwargs[0]["sampling"] == Sampling(stop=("\n\n",)) and llm.kwargs[0]["max_tokens"] <= 24
    )
    assert (
        rewrite_for_web(question, FakeLLM('"CRAG evaluator thresholds".'))
        == "CRAG evaluator thresholds"
    )


def test_a_rewrite_keeps_none_of_a_fragment_the_dying_server_sent() -> None:
    """FailoverLLM yields RESTART when the server dies mid-reply and the local model starts
    over: the rewrite is the local model's reply alone, as an answer's is."""
    from localcrag.llm.failover import RESTART

    class Dying:
        def chat_prompt(self, messages: list[dict[str, str]]) -> str:
            return "prompt"

        def stream(self, prompt: str, max_tokens: int, sampling: Sampling) -> Iterator[str]:
            yield from ["Eiffel Tower ", RESTART, "Eiffel Tower ", "tall metres"]

    question = "How tall is the Eiffel Tower in metres?"
    assert rewrite_for_web(question, Dying()) == "Eiffel Tower tall metres"


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "Sure! Here is a query: CRAG thresholds",
        "Here is the query: CRAG evaluator",
        "CRAG evaluator\nthresholds",
        'CRAG "evaluator" thresholds',
        "CRAG evaluator thresholds explained in great detail for every possible reader today okay",
        "best pizza in Naples",
        "<|im_end|>",
    ],
)
def test_rewrite_for_web_junk_falls_back(reply: str) -> None:
    question = "What thresholds does the CRAG retrieval evaluator use?"
    assert rewrite_for_web(question, FakeLLM(reply)) == keyword_query(question)
    assert rewrite_for_web(question, FakeLLM(fail=True)) == keyword_query(question)
    assert rewrite_for_web(question) == "thresholds CRAG retrieval evaluator use"


def test_rewrite_for_web_rejects_answers_in_disguise() -> None:
    q = "Who won the 2022 FIFA World Cup?"
    assert rewrite_for_web(q, FakeLLM("FIFA World Cup winner 2022")) == "FIFA World Cup winner 2022"
    assert rewrite_for_web(
        q, FakeLLM("The 2022 FIFA World Cup was won by Germany")
    ) == keyword_query(q)
    q = "When was the Treaty of Westphalia signed?"  # new numbers are hallucinated facts
    assert (
        rewrite_for_web(q, FakeLLM("Treaty of Westphalia signed 1713"))
        == "Treaty Westphalia signed"
    )


def test_standalone_question() -> None:
    history = [("How does LanceDB store vectors?", "SECRET document text about Lance files.")]
    llm = FakeLLM("never used")
    assert standalone_question("What is CRAG?", [], llm) == "What is CRAG?"
    assert (
        standalone_question("How big is the index on disk?", history, llm)
        == "How big is the index on disk?"
    )
    assert llm.prompts == []
    assert needs_context("And Chroma?") and needs_context("Why?") and needs_context("Is it fast?")
    good = FakeLLM("How much memory does LanceDB use when storing vectors?")
    assert standalone_question("What about its memory use?", history, good) == good.reply
    assert "SECRET" not in good.prompts[0] and "How does LanceDB store vectors?" in good.prompts[0]
    fallback = "What about its memory use (LanceDB store vectors)?"
    assert (
        standalone_question("What about its memory use?", history, FakeLLM("Sure, here you go"))
        == fallback
    )
    assert standalone_question("What about its memory use?", history) == fallback
    for parrot in ("How does LanceDB store vectors?", "What about its memory use?"):
        assert (
            standalone_question("What about its memory use?", history, FakeLLM(parrot)) == fallback
        )
    assert standalone_question("Why?", [("Is it fast?", "")]) == "Why (fast)?"
    assert standalone_question("Why?", [("What is it?", "x"), ("", "")]) == "Why?"


@pytest.mark.parametrize(
    "question, follow_up",
    [
        ("What is a cobot?", False),
        ("Define transformers", False),
        ("Why?", True),
        ("More details", True),
        ("Examples?", True),
        ("Any limitations?", True),
        ("Is it fast?", True),
        ("Pros and cons?", True),
        # a pronoun whose referent is an earlier clause of the same question is no follow-up
        ("What is label smoothing and why is it used?", False),
        ("Explain how scaled dot-product attention works and why it is scaled.", False),
        ("When BERT was released, what did it change?", False),
        ("Is there a size limit for the context window?", False),  # existential "there"
        ("What is a model that learns from data?", False),  # relative "that"
        # ... and so is one that opens a clause or owns a noun after a noun of its clause
        (
            "Can a dual-status taxpayer claim the standard deduction for the part of 2007 "
            "they were a resident alien?",
            False,
        ),
        ("What year did the company release its first product?", False),
        ("Tell me more about its architecture", True),
        ("Does the model support it?", True),
        ("Why is it used?", True),
        ("How does it compare to RNNs?", True),
        ("How big is it?", True),
        # "One" in a product's name is no pronoun
        ("What is HackRF One?", False),
        ("Is HackRF One a full-duplex or a half-duplex device?", False),
        ("Which one is faster?", True),
        # words written without spaces cannot be read: never called a fragment
        ("歌山镇农贸市场的总建筑面积是多少平方？", False),
    ],
)
def test_a_question_with_its_own_subject_is_not_a_follow_up(question: str, follow_up: bool) -> None:
    assert needs_context(question) is follow_up
    if not follow_up:  # asked after an unrelated question, it is left as it is
        assert standalone_question(question, [("What color is the quibble?", "")]) == question


def test_ask_with_nobody_to_ask_touches_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ask` without a terminal can never get consent: no DNS lookup, no query rewrite."""
    looked_up: list[str] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or [])
    web.clear_online_cache()
    rewrites: list[str] = []
    out = search_web(
        lambda: rewrites.append("ran") or "q",
        searcher=None,
        offline=False,
        policy="ask",
        confirm=None,
        timeout=2.0,
        max_results=1,
    )
    assert out == web.WebOutcome(False, None, skipped=web.SKIP_NO_CONSENT)
    assert looked_up == [] and rewrites == []


@pytest.mark.parametrize(
    "previous, follow_up, whole",
    [
        (
            "How many layers does the encoder have?",
            "And the decoder?",
            "How many layers does the decoder have?",
        ),
        (
            "What dropout rate was used for the base model?",
            "What about the big model?",
            "What dropout rate was used for the big model?",
        ),
        ("What is the capital of Australia?", "And of France?", "What is the capital of France?"),
        (
            "How does photosynthesis work?",
            "And in cacti?",
            "How does photosynthesis work in cacti?",
        ),
        ("How does LanceDB store vectors?", "And Chroma?", "How does Chroma store vectors?"),
        ("Who approved the travel budget?", "And the hotel?", "Who approved the hotel?"),
        ("What is a cobot?", "And an exoskeleton?", "What is an exoskeleton?"),
        ("What are transformers?", "And RNNs?", "What are RNNs?"),
        ("How does the LanceDB index work?", "And Chroma?", "How does the Chroma index work?"),
        (
            "What is the F statistic of the regression?",
            "What about the ANOVA regression?",
            "What is the F statistic of the ANOVA regression?",
        ),
    ],
)
def test_an_elliptical_follow_up_is_completed_by_grammar_without_the_model(
    previous: str, follow_up: str, whole: str
) -> None:
    llm = FakeLLM("never used")
    assert standalone_question(follow_up, [(previous, "")], llm) == whole
    assert llm.prompts == []


@pytest.mark.parametrize(
    "previous, follow_up",
    [
        ("Who approved the travel budget?", "How much did it cost?"),  # a clause of its own
        ("What is the capital of Australia?", "And why is it there?"),
        (
            "How does LanceDB store vectors?",
            "And the index?",
        ),  # no noun phrase of its kind to replace
        ("Who was the king of the Normans?", "And him?"),  # a pronoun points elsewhere
        ("Who was the king of the Normans?", "And being?"),  # a verb: a clause
        # two phrases it could replace ("What is the t Stat of the two-tail p-value?" was
        # the guess): grammar cannot tell which, so it does not guess
        ("What is the t Stat of the sepalWidth t-test?", "What about the two-tail p-value?"),
        ("What is the t Stat of the t-test?", "And the P-value?"),
    ],
)
def test_a_follow_up_that_is_not_an_ellipsis_still_goes_to_the_model(
    previous: str, follow_up: str
) -> None:
    from localcrag.crag.ellipsis import complete

    assert complete(follow_up, previous) is None
    good = FakeLLM(f"{follow_up.rstrip('?')} regarding {previous.rstrip('?').split()[-1]}?")
    standalone_question(follow_up, [(previous, "")], good)
    assert good.prompts


def test_an_ellipsis_grammar_cannot_place_gets_keywords_from_a_small_model_not_a_guess() -> None:
    """'What about the two-tail p-value?' after a t Stat question was rewritten 'What is the t
    Stat of the two-tail p-value?'; the 135M model wrote 'What is the t-stat test?
    And what about the two-tailed p-value?'. Neither is asked: the follow-up's phrase and the
    earlier topic's keywords are searched."""
    previous = "What is the t Stat of the sepalWidth t-test?"
    small = FakeLLM("What is the t Stat of the two-tail p-value?")
    out = standalone_question(
        "What about the two-tail p-value?", [(previous, "")], small, rules_first=True
    )
    assert out == "What about the two-tail p-value (Stat sepalWidth t-test)?"
    assert small.prompts == []


def test_a_lone_it_is_resolved_by_grammar_for_a_small_model_and_asked_of_a_capable_one() -> None:
    history = [("Who approved the travel budget?", "")]
    small = FakeLLM("never used")
    assert (
        standalone_question("How much did it cost?", history, small, rules_first=True)
        == "How much did the travel budget cost?"
    )
    assert small.prompts == []
    capable = FakeLLM("How much did the travel budget cost in total?")
    assert standalone_question("How much did it cost?", history, capable) == capable.reply
    assert capable.prompts
    # no noun phrase to put in its place, or a pronoun other than "it": the model is asked
    assert (
        standalone_question(
            "Why is it used?", [("What is label smoothing?", "")], small, rules_first=True
        )
        == "Why is label smoothing used?"
    )
    for question, earlier in (
        ("Why is it used?", "Tell me about smoothing."),
        ("Where do they work?", "What is a cobot?"),
    ):
        asked = FakeLLM(f"{question.rstrip('?')} in {earlier.rstrip('?').split()[-1]}?")
        standalone_question(question, [(earlier, "")], asked, rules_first=True)
        assert asked.prompts


@pytest.mark.parametrize(
    "previous, follow_up, whole",
    [
        # do-support: the word after the subject is the bare main verb, not part of the noun phrase
        (
            "What BLEU score does the base model get on English-to-German?",
            "And the big model?",
            "What BLEU score does the big model get on English-to-German?",
        ),
        (
            "How much did the travel budget cost?",
            "When was it approved?",
            "When was the travel budget approved?",
        ),
        (
            "When was the cup final played?",
            "How many people watched it?",
            "How many people watched the cup final?",
        ),
        (
            "Where is the new bed?",
            "How much did it cost?",
            "How much did the new bed cost?",
        ),  # a noun in -ed stays
        # a phrase inside a longer one ("AI" in "explainable AI") is not the earlier question's topic
        ("What is explainable AI?", "Why is it important?", "Why is explainable AI important?"),
    ],
)
def test_grammar_keeps_the_verb_and_the_whole_noun_phrase(
    previous: str, follow_up: str, whole: str
) -> None:
    small = FakeLLM("never used")
    assert standalone_question(follow_up, [(previous, "")], small, rules_first=True) == whole
    assert small.prompts == []
