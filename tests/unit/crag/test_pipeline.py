"""The CRAG pipeline with deterministic fakes: events, decisions, refusal, web, cancel."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from threading import Event

import pytest

from localcrag import events as ev
from localcrag.crag.answer.generate import REFUSAL
from localcrag.crag.pipeline import Pipeline
from localcrag.errors import BadQuestion, EmptyIndex
from localcrag.ingest.library import Library
from localcrag.llm.chat import GREEDY, ModelFacts, Sampling
from localcrag.settings import Settings
from localcrag.types import Action
from tests.support.fakes import KIWI, FakeEmbedder, FakeGenerator, FakeGrader, FakeWeb


def _run(pipe: Pipeline, q: str, **kw) -> list:
    return list(pipe.run(q, **kw))


def _pipe(library: Library, grader=None, gen=None, web=None, **settings) -> Pipeline:
    fixed = {
        "upper_threshold": 0.6,
        "lower_threshold": 0.35,
        "strip_threshold": 0.35,
    }  # fake-grader scale
    s = Settings(**{"offline": True, **fixed, **settings})
    return Pipeline(
        s, library=library, grader=grader or FakeGrader(), generator=gen or FakeGenerator(), web=web
    )


def test_correct_answer_refines_streams_and_cites(library: Library) -> None:
    gen = FakeGenerator("Cobots work next to people [1]. Also [7].")
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.5), "What are cobots and where do cobots work?"
    )
    kinds = [type(e).__name__ for e in evs]
    assert kinds[0] == "StageStarted" and "Retrieved" in kinds and kinds[-1] == "AnswerDone"
    decision = next(e for e in evs if isinstance(e, ev.DecisionMade)).decision
    assert decision.action is Action.CORRECT
    refined = next(e for e in evs if isinstance(e, ev.Refined))
    assert refined.strips and any("cobots" in s.text.lower() for s in refined.strips)
    assert not any("Rain falls" in s.text or "satellites" in s.text for s in refined.strips)
    assert sum(isinstance(e, ev.ChunkGraded) for e in evs) >= 1
    done = evs[-1]
    assert "[7]" not in done.answer.text and "[1]" in done.answer.text  # invented number removed
    assert done.answer.citations[0].source.endswith("doc.md") and done.answer.citations[0].page == 1
    streamed = "".join(e.text for e in evs if isinstance(e, ev.Token))
    assert "[7]" not in streamed
    assert {"retrieve", "grade", "refine", "generate", "first_token"} <= set(done.timings_ms)
    assert "Collaborative robots" in gen.prompts[0]  # the passage, not only the question
    assert "Rain falls" not in gen.prompts[0] and "satellites" not in gen.prompts[0]


def test_incorrect_offline_refuses_without_generating(library: Library) -> None:
    gen = FakeGenerator()
    evs = _run(_pipe(library, grader=FakeGrader(fixed={}), gen=gen), "Who painted the Mona Lisa?")
    done = evs[-1]
    assert done.answer.action is Action.INCORRECT and done.answer.refused
    assert done.answer.text.startswith(REFUSAL) and "offline" in done.answer.text
    assert gen.prompts == [] and done.answer.citations == ()
    assert any(isinstance(e, ev.WebSkipped) for e in evs)


def test_offline_never_touches_the_network(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*a, **k):
        raise AssertionError("network used while offline")

    for name in ("socket", "create_connection", "getaddrinfo"):
        monkeypatch.setattr(socket, name, boom)
    web = FakeWeb(KIWI)
    evs = _run(_pipe(library, web=web, web_search="always"), "Who painted the Mona Lisa?")
    assert web.queries == [] and evs[-1].answer.refused


def test_incorrect_online_uses_web_results(library: Library) -> None:
    web = FakeWeb(KIWI)
    gen = FakeGenerator("Kiwis cannot fly [1].")
    evs = _run(
        _pipe(library, gen=gen, web=web, offline=False, web_search="always"), "Can kiwi birds fly?"
    )
    assert web.queries and "kiwi" in web.queries[0].lower()
    assert any(isinstance(e, ev.WebResults) for e in evs)
    done = evs[-1]
    assert done.answer.action is Action.INCORRECT and not done.answer.refused
    assert done.answer.citations[0].url == "https://example.org/kiwi"
    assert "Robots" not in web.queries[0]  # only the question-derived query leaves


def test_ask_policy_declined_means_no_search(library: Library) -> None:
    web = FakeWeb(KIWI)
    asked: list[str] = []
    evs = _run(
        _pipe(library, web=web, offline=False, web_search="ask"),
        "Can kiwi birds fly?",
        confirm_web=lambda q: asked.append(q) or False,
    )
    assert asked and web.queries == []
    assert evs[-1].answer.refused and "declined" in evs[-1].answer.text


def test_rag_mode_skips_grading(library: Library) -> None:
    evs = _run(_pipe(library), "What are cobots?", mode="rag")
    assert not any(isinstance(e, (ev.ChunkGraded, ev.DecisionMade)) for e in evs)
    assert evs[-1].answer.action is None and evs[-1].evidence


def test_bad_questions_and_empty_index(library: Library, tmp_path: Path) -> None:
    pipe = _pipe(library)
    with pytest.raises(BadQuestion):
        _run(pipe, "   ")
    with pytest.raises(BadQuestion, match="10,000 characters"):
        _run(pipe, "x" * 10_000)
    empty = Pipeline(
        Settings(offline=True),
        library=Library(Settings(chunk_tokens=40), embedder=FakeEmbedder()),
        grader=FakeGrader(),
        generator=FakeGenerator(),
    )
    with pytest.raises(EmptyIndex, match="reindex"):  # another table exists: say how to re-embed
        _run(empty, "What are cobots?")


def test_cancel_ends_with_partial_answer(library: Library) -> None:
    cancel = threading.Event()
    gen = FakeGenerator(
        "Cobots work safely next to people in factories [1]. They are light and "
        "have force sensors [1]. Cobots are light robots."
    )
    out = []
    for e in _pipe(library, gen=gen, answer_style="generative").run(
        "What are cobots?", cancel=cancel
    ):
        out.append(e)
        if isinstance(e, ev.Token):
            cancel.set()  # after the first checked sentence: the rest is never shown
    done = out[-1]
    assert isinstance(done, ev.AnswerDone)
    assert done.answer.text == "Cobots work safely next to people in factories [1]."


def test_small_context_trims_evidence_and_says_so(library: Library) -> None:
    from localcrag.crag.answer.generate import build_messages

    q = "What are cobots and weather forecasts and rain?"
    gen = FakeGenerator()
    base = gen.count_tokens(gen.chat_prompt(build_messages(q, []))) + 1
    gen.n_ctx = base + 40 + 12  # room for the answer and about one small evidence item
    evs = _run(
        _pipe(
            library,
            gen=gen,
            max_answer_tokens=40,
            lower_threshold=0.0,
            upper_threshold=0.0,
            strip_threshold=0.0,
        ),
        "What are cobots and weather forecasts and rain?",
    )
    assert any(isinstance(e, ev.EvidenceTrimmed) for e in evs)
    assert isinstance(evs[-1], ev.AnswerDone)


def test_a_looping_model_is_stopped(library: Library) -> None:
    loop = (
        "Cobots work next to people [1]. They work in factories. " + "They work in factories. " * 20
    )
    gen = FakeGenerator(loop.strip())
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1),
        "What are cobots?",
        style="generative",
    )
    text = evs[-1].answer.text
    assert text.count("They work in factories") == 1 and text.startswith(
        "Cobots work next to people [1]."
    )


def test_an_echoed_source_label_is_cut_from_the_answer(library: Library) -> None:
    gen = FakeGenerator("(doc.md, p. 1) Cobots work safely next to people in factories [1].")
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1), "What are cobots?"
    )
    assert evs[-1].answer.text.startswith("Cobots work safely")
    assert "".join(e.text for e in evs if isinstance(e, ev.Token)).startswith("Cobots")


def test_an_echoed_label_is_cut_before_citations_are_added(library: Library) -> None:
    # A long label and no citation of its own: the attributor cites the sentence, and the
    # label (cut first) must not come out as "(doc.md, p [1]. 1)".
    gen = FakeGenerator(
        "(some-rather-long-file-name-about-robots.md, p. 1) Cobots work safely next to "
        "people in factories."
    )
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1), "What are cobots?"
    )
    text = evs[-1].answer.text
    assert text.startswith("Cobots work safely") and ".md" not in text


@pytest.mark.parametrize("reply", [".", "The answer is.", "(doc.md, p. 1) The answer is [1].", ""])
def test_an_empty_answer_is_replaced_by_the_quote(library: Library, reply: str) -> None:
    evs = _run(
        _pipe(library, gen=FakeGenerator(reply), upper_threshold=0.3, lower_threshold=0.1),
        "What are cobots?",
        style="generative",
    )
    done = evs[-1]
    assert isinstance(done, ev.AnswerDone) and done.answer.style == "extractive"
    assert done.answer.text.startswith("Collaborative robots, called cobots, work safely next to")
    assert [c.n for c in done.answer.citations] == [1]
    styles = [e for e in evs if isinstance(e, ev.StyleChosen)]
    assert [s.style for s in styles] == ["generative", "extractive"] and "passed" in styles[
        1
    ].reason
    streamed = "".join(e.text for e in evs if isinstance(e, ev.Token))
    assert streamed == done.answer.text  # nothing of the empty reply was shown first


def test_a_label_longer_than_the_hold_back_is_still_cut(library: Library) -> None:
    name = "build-with-claude-embeddings-how-to-get-embeddings-for-your-documents.md"
    gen = FakeGenerator(
        f"({name}, p. 2) Cobots work safely next to people in factories. The answer is."
    )
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1), "What are cobots?"
    )
    text = evs[-1].answer.text
    assert text.startswith("Cobots work safely") and name not in text
    assert not text.endswith("The answer is.")
    assert "".join(e.text for e in evs if isinstance(e, ev.Token)).startswith("Cobots")


def test_restated_instructions_and_invented_labels_are_dropped(library: Library) -> None:
    gen = FakeGenerator(
        "Cobots work next to people in factories [1]. Write the source number in square "
        "brackets after each fact, like this, using only the sources. They are collaborative "
        "robots (made-up-file.pdf, p. 30) that work safely.\nQuestion: What are cobots?"
    )
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1),
        "What are cobots?",
        style="generative",
    )
    text = evs[-1].answer.text
    assert text.startswith("Cobots work next to people in factories")
    assert "square brackets" not in text and "made-up-file" not in text and "Question:" not in text
    assert "They are collaborative robots that work safely [1]." in text
    assert evs[-1].answer.dropped_sentences == 2


def test_a_copy_of_a_document_does_not_duplicate_the_evidence(
    library: Library, tmp_path: Path
) -> None:
    from localcrag.crag.retrieve import Retriever

    copy = tmp_path / "copy-of-doc.md"
    copy.write_text((tmp_path / "doc.md").read_text(encoding="utf-8"), encoding="utf-8")
    library.ingest([copy])
    assert library.count() == 4  # two chunks, twice
    hits = Retriever(Settings(), library).search("What are cobots?", k=4)
    texts = [" ".join(h.chunk.text.split()) for h in hits]
    assert len(hits) == 2 and len(set(texts)) == 2  # each passage once
    assert [h.rank for h in hits] == [0, 1]


def test_a_sentence_cut_at_max_tokens_is_not_shown(library: Library) -> None:
    class Long(FakeGenerator):
        def stream(self, *a, **kw):  # noqa: ANN002, ANN003
            self.finish_reason = None
            yield from super().stream(*a, **kw)
            self.finish_reason = "length"

    gen = Long("Cobots work safely next to people in factories. They are light and have force")
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1),
        "What are cobots?",
        style="generative",
    )
    assert evs[-1].answer.text == "Cobots work safely next to people in factories [1]."
    cut = [e for e in evs if isinstance(e, ev.SentenceDropped)]
    assert [e.reason for e in cut] == ["cut off at max_answer_tokens"]


@pytest.mark.parametrize(
    "mode,upper,action",
    [("crag", 0.99, Action.AMBIGUOUS), ("crag", 0.3, Action.CORRECT), ("rag", 0.3, None)],
)
def test_a_made_up_answer_is_never_shown_on_any_action(
    library: Library, mode: str, upper: float, action: Action | None
) -> None:
    gen = FakeGenerator(
        "The quibble is a type of tropical fruit labelled the finest in the world [1]."
    )
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=upper, lower_threshold=0.1),
        "What are cobots?",
        mode=mode,
        style="generative",
    )
    done = evs[-1]
    assert done.answer.action is action
    assert "quibble" not in "".join(e.text for e in evs if isinstance(e, ev.Token))
    assert "cobots" in done.answer.text and done.answer.citations
    assert done.answer.style == "extractive" and done.answer.dropped_sentences == 1
    dropped = [e for e in evs if isinstance(e, ev.SentenceDropped)]
    assert len(dropped) == 1 and "quibble" in dropped[0].sentence


def test_a_small_generator_quotes_the_evidence_without_generating(library: Library) -> None:
    gen = FakeGenerator("The quibble is a fruit [1].")
    gen.facts = ModelFacts(n_params=134_515_008)  # the bundled SmolLM2's count: auto quotes
    evs = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1), "What are cobots?"
    )
    kinds = [type(e).__name__ for e in evs]
    assert kinds.index("StyleChosen") < kinds.index("Token") and gen.prompts == []
    done = evs[-1]
    assert done.answer.style == "extractive" and done.answer.text.startswith("Collaborative robots")
    assert done.answer.citations[0].source.endswith("doc.md") and done.answer.citations[0].page == 1
    tokens = [e.text for e in evs if isinstance(e, ev.Token)]
    assert tokens == [done.answer.text]  # streamed at once, in one piece
    forced = _run(
        _pipe(library, gen=gen, upper_threshold=0.3, lower_threshold=0.1),
        "What are cobots?",
        style="generative",
    )
    assert gen.prompts and forced[-1].answer.dropped_sentences == 1  # the run's style wins


def test_every_timing_is_defined_once_and_ordered(library: Library) -> None:
    """first token <= answer written <= total, all from the question received; the stage
    durations add up to no more than the total (a "first token" after the whole generation
    was the bug: durations and elapsed times were mixed)."""
    runs = [
        _run(_pipe(library, upper_threshold=0.5), "What are cobots and where do cobots work?"),
        _run(_pipe(library, grader=FakeGrader(fixed={})), "Who painted the Mona Lisa?"),  # refusal
        _run(_pipe(library), "Where do cobots work?", mode="rag"),
        _run(_pipe(library), "Where do they work?", history=[("What are cobots?", "robots")]),
    ]
    for evs in runs:
        t = evs[-1].timings_ms
        assert set(t) <= set(ev.STAGE_TIMINGS) | set(ev.ELAPSED_TIMINGS)
        assert t["first_token"] <= t.get("generate_end", t["first_token"]) <= t["total"]
        assert sum(t.get(s, 0.0) for s in ev.STAGE_TIMINGS) <= t["total"] + 0.5
    assert "generate_end" not in runs[1][-1].timings_ms and evs[-1].answer.text


def test_rewrite_false_asks_the_question_as_typed(library: Library) -> None:
    history = [("What are cobots?", "robots")]
    rewritten = _run(_pipe(library), "Where do they work?", history=history)
    assert any(isinstance(e, ev.QuestionRewritten) for e in rewritten)
    as_typed = _run(_pipe(library), "Where do they work?", history=history, rewrite=False)
    assert not any(isinstance(e, ev.QuestionRewritten) for e in as_typed)


def test_an_extractive_answer_quotes_from_the_whole_kept_chunks_not_the_strips(
    library: Library,
) -> None:
    # Refinement cuts chunks to strips that fit a prompt; a quote needs no budget and picks
    # its own sentences, so it sees every kept chunk whole (standard RAG's evidence, graded).
    kw = dict(upper_threshold=0.3, lower_threshold=0.1, strip_threshold=0.9, strip_sentences=1)
    quoted = _run(_pipe(library, **kw), "What are cobots?", style="extractive")
    written = _run(
        _pipe(library, gen=FakeGenerator("Cobots work safely next to people [1]."), **kw),
        "What are cobots?",
        style="generative",
    )
    kept = next(e for e in quoted if isinstance(e, ev.Refined)).strips
    evidence = quoted[-1].evidence
    assert any("force sensors" in e.text for e in evidence)  # the whole chunk
    assert not any("force sensors" in s.text for s in kept)  # ... that refinement cut
    assert not any(
        "force sensors" in e.text for e in written[-1].evidence
    )  # the prompt gets the strips
    assert quoted[-1].answer.text.startswith("Collaborative robots") and quoted[-1].answer.citations


class _SlowGenerator(FakeGenerator):
    """A generator whose every completion takes a while (the rewrite asks it once)."""

    def stream(
        self, prompt: str, max_tokens: int, sampling: Sampling = GREEDY, cancel: Event | None = None
    ) -> Iterator[str]:
        time.sleep(0.3)
        yield from super().stream(prompt, max_tokens, sampling, cancel)


def test_the_follow_up_rewrite_and_the_first_model_load_are_timed_stages(
    library: Library, monkeypatch
) -> None:
    """`ask --after` showed first token 7.6 s and retrieve 1.7 s, the rest nowhere: the model
    load and the rewrite ran outside every stage. Both are stages now, and on a slow rewrite
    the stages account for the wait before the first token."""
    import localcrag.llm.gguf as gguf

    def slow_load(*args: object, **kw: object) -> FakeGenerator:
        time.sleep(0.2)
        return _SlowGenerator("Where do cobots work?")

    monkeypatch.setattr(gguf, "load_llm", slow_load)
    pipe = Pipeline(
        Settings(
            offline=True,
            upper_threshold=0.6,
            lower_threshold=0.35,
            strip_threshold=0.35,
            answer_style="extractive",
        ),
        library=library,
        grader=FakeGrader(),
    )
    history = [("What are cobots?", "robots")]
    for run in (1, 2):
        evs = _run(pipe, "Where do they work?", history=history)
        t = evs[-1].timings_ms
        started = [e.stage for e in evs if isinstance(e, ev.StageStarted)]
        assert started[:2] == (["load", "rewrite"] if run == 1 else ["rewrite", "retrieve"])
        assert ("load" in t) == (run == 1) and t["rewrite"] >= 300
        assert run == 2 or t["load"] >= 200
        assert sum(t.get(s, 0.0) for s in ev.STAGE_TIMINGS) >= 0.9 * t["first_token"], t


def test_a_quoting_run_resolves_a_lone_it_by_grammar_without_asking_the_model(
    library: Library,
) -> None:
    """The bundled 135M model took 9-13 s to rewrite "How much did it cost?" and its output
    was rejected; with quoted answers (a small model) grammar resolves a lone "it" first."""
    history = [("What are the cobots?", "robots")]
    for style, asked in (("extractive", False), ("generative", True)):
        gen = FakeGenerator("Where do cobots work?")
        evs = _run(_pipe(library, gen=gen), "Where does it work?", history=history, style=style)
        rewritten = next(e for e in evs if isinstance(e, ev.QuestionRewritten)).rewritten
        assert rewritten == (
            "Where does the cobots work?" if not asked else "Where do cobots work?"
        )
        assert bool(gen.prompts) is asked


def test_a_question_that_stands_alone_after_earlier_turns_has_no_rewrite_stage(
    library: Library,
) -> None:
    """The trace showed "rewrite 0ms" for every question asked after earlier turns."""
    evs = _run(_pipe(library), "Where do cobots work?", history=[("What are cobots?", "robots")])
    assert "rewrite" not in [e.stage for e in evs if isinstance(e, ev.StageStarted)]
    assert "rewrite" not in evs[-1].timings_ms or evs[-1].timings_ms["rewrite"] is None
    evs = _run(_pipe(library), "Where do they work?", history=[("What are cobots?", "robots")])
    assert "rewrite" in [e.stage for e in evs if isinstance(e, ev.StageStarted)]


@pytest.mark.parametrize(
    "question", ["What are cobots and where do cobots work?", "What is the capital of Peru?"]
)
def test_judge_is_the_decision_run_makes(library: Library, question: str) -> None:
    """`localcrag eval --only decisions` measures Pipeline.judge: the same graded pool, the
    same kept grades and the same decision as a run."""
    pipe = _pipe(library, upper_threshold=0.5, top_k=1, graded_pool=3)
    evs = _run(pipe, question, k=1)
    decision = next(e for e in evs if isinstance(e, ev.DecisionMade)).decision
    graded = [e.grade for e in evs if isinstance(e, ev.ChunkGraded)]
    judged = pipe.judge(question, 1)
    assert judged.decision == decision
    assert [g.chunk.chunk_id for g in judged.graded] == [g.chunk.chunk_id for g in graded]
    assert len(judged.graded) > 1 and len(judged.kept) == 1  # pool graded, the best kept


def test_judge_takes_the_grader_failure_path(library: Library) -> None:
    judged = _pipe(library, grader=FakeGrader(fail=True)).judge("Where do cobots work?")
    assert judged.ungraded and judged.decision.action is Action.AMBIGUOUS
