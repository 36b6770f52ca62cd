"""The answer stage: a quote of the evidence, or generated text checked sentence by sentence.

*extractive*: the evidence sentences that answer (``extract.extractive_answer``), streamed
at once: no model call, so the first token follows grading and refinement directly.
*generative*: the generator writes from numbered evidence; ``shaping.SentenceGate`` shows a
sentence only once it passes the grounding check. If none passes, the extractive answer
replaces the draft, and a second ``StyleChosen`` says why.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from localcrag import events as ev
from localcrag.crag.answer.binding import Idf
from localcrag.crag.answer.citations import clean_citations, renumber
from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.answer.style import model_name
from localcrag.crag.graders.base import ReadSpans
from localcrag.crag.timing import Stage, ms_since
from localcrag.llm.chat import ChatModel, Sampling
from localcrag.llm.failover import Restart
from localcrag.models.cpu import CpuMeter, threads_for, usable_cores
from localcrag.settings import Settings
from localcrag.textutil import document_named
from localcrag.types import Action, Answer, Citation, Evidence

ScoreTexts = Callable[[str, Sequence[str]], list[float]]
FELL_BACK = "nothing the model wrote passed the check against the sources; the answer quotes them"


def answer_events(
    question: str,
    q: str,
    evidence: list[Evidence],
    action: Action | None,
    *,
    style: str,
    reason: str,
    llm: ChatModel,
    settings: Settings,
    score_texts: ScoreTexts | None,
    cancel: threading.Event,
    timings: dict[str, float],
    t0: float,
    meter: CpuMeter | None = None,
    note: str = "",
    read_spans: ReadSpans | None = None,
    idf: Idf | None = None,
) -> Iterator[ev.Event]:
    """Events of the answer stage, ending with the run's one ``AnswerDone``. ``note`` is
    said at the end of the answer itself (ungraded evidence), so no reader misses it."""
    yield ev.StyleChosen(style, reason, model_name(llm.facts))
    if style == "extractive":
        detail, inner = (
            "quoting the evidence",
            _quote(question, q, evidence, action, score_texts, timings, t0, 0, read_spans, idf),
        )
    else:
        detail = "checking each sentence against the sources"
        inner = _write(
            question,
            q,
            evidence,
            action,
            llm,
            settings,
            score_texts,
            cancel,
            timings,
            t0,
            meter,
            read_spans,
            idf,
        )
    done = None
    with Stage("generate", timings, detail) as st:
        yield st.started
        for e in inner:
            if isinstance(e, ev.AnswerDone):
                done = e  # the run's last event, after the stage's timing
            else:
                yield e
    yield st.finished
    if done is not None and note:
        yield ev.Token(f"\n\n{note}")
        done = replace(done, answer=replace(done.answer, text=f"{done.answer.text}\n\n{note}"))
    if done is not None:
        yield done


def _done(
    question: str,
    text: str,
    evidence: Sequence[Evidence],
    action: Action | None,
    style: str,
    dropped: int,
    timings: dict[str, float],
    short: str | None = None,
    refused: bool = False,
) -> ev.AnswerDone:
    text, cited = clean_citations(text, max((e.n for e in evidence), default=0))
    used = len({e.n for e in evidence} & set(cited))
    text, evidence = renumber(text, cited, evidence)  # [1], [2], ... in order of first use
    citations = tuple(
        Citation(e.n, e.source, e.page, e.url, e.locator, document_named(e.source, e.heading))
        for e in evidence[:used]
    )
    answer = Answer(
        question,
        text,
        citations,
        action,
        style=style,
        dropped_sentences=dropped,
        short=short,
        refused=refused,
    )
    return ev.AnswerDone(answer, tuple(evidence), timings)


def _quote(
    question: str,
    q: str,
    evidence: Sequence[Evidence],
    action: Action | None,
    score_texts: ScoreTexts | None,
    timings: dict[str, float],
    t0: float,
    dropped: int,
    read_spans: ReadSpans | None = None,
    idf: Idf | None = None,
) -> Iterator[ev.Event]:
    found = extractive_answer(q, evidence, score_texts, read_spans, idf)
    text, used = clean_citations(found.text, max((e.n for e in evidence), default=0))
    text, evidence = renumber(text, used, evidence)  # the quote shows the numbers the sources get
    timings.setdefault("first_token", ms_since(t0))
    yield ev.Token(text)
    yield _done(
        question,
        text,
        evidence,
        action,
        "extractive",
        dropped,
        timings,
        found.span if found.found else None,
        refused=not found.found,
    )


def _write(
    question: str,
    q: str,
    evidence: list[Evidence],
    action: Action | None,
    llm: ChatModel,
    s: Settings,
    score_texts: ScoreTexts | None,
    cancel: threading.Event,
    timings: dict[str, float],
    t0: float,
    meter: CpuMeter | None,
    read_spans: ReadSpans | None = None,
    idf: Idf | None = None,
) -> Iterator[ev.Event]:
    from localcrag.crag.answer.generate import build_messages, fit_evidence
    from localcrag.crag.answer.shaping import SentenceGate

    kept, dropped = fit_evidence(llm, q, evidence, s.generation.max_answer_tokens)
    if dropped:
        yield ev.EvidenceTrimmed(tuple(dropped), llm.n_ctx)
    spans = read_spans(q, [e.text for e in kept]) if read_spans else None
    prompt = llm.chat_prompt(build_messages(q, kept, spans))
    if s.generation.threads == 0 and meter is not None:
        llm.set_threads(threads_for(usable_cores(), meter.others_busy()))  # cores left free
    gate = SentenceGate(kept, q, idf)
    reported = 0
    writer = model_name(llm.facts)  # as StyleChosen named it; a failover changes who writes

    def rewritten_by() -> Iterator[ev.Event]:
        """A new StyleChosen when the model server failed and the local model writes, so
        the answer line names the model that wrote the answer."""
        nonlocal writer
        if (now := model_name(llm.facts)) != writer:
            writer = now
            yield ev.StyleChosen("generative", f"the model server failed; {now} writes", now)

    def news() -> Iterator[ev.Event]:
        nonlocal reported
        for sentence, why in gate.dropped[reported:]:
            yield ev.SentenceDropped(sentence, why)
        reported = len(gate.dropped)

    sampling = Sampling(s.generation.temperature, repeat_penalty=s.generation.repeat_penalty)
    for piece in llm.stream(prompt, s.generation.max_answer_tokens, sampling, cancel):
        if isinstance(piece, Restart):  # the server died mid-answer: the local model starts over
            gate, reported = SentenceGate(kept, q, idf), 0
            yield ev.AnswerRestarted("the model server stopped mid-answer")
            continue
        yield from rewritten_by()
        out, stop = gate.feed(piece)
        yield from news()
        if out:
            timings.setdefault("first_token", ms_since(t0))
            yield ev.Token(out)
        if stop or cancel.is_set():
            break  # the model loops, or the user cancelled
    yield from rewritten_by()
    truncated = llm.finish_reason == "length"
    if tail := gate.finish(cancelled=cancel.is_set(), truncated=truncated):
        timings.setdefault("first_token", ms_since(t0))
        yield ev.Token(tail)
    yield from news()
    if not gate.kept and kept and not cancel.is_set():
        yield ev.StyleChosen("extractive", FELL_BACK, model_name(llm.facts))
        yield from _quote(
            question, q, kept, action, score_texts, timings, t0, len(gate.dropped), read_spans, idf
        )
        return
    text = gate.text
    if not kept and not text:  # nothing to answer from, and the model said nothing checkable
        from localcrag.crag.answer.generate import REFUSAL

        text = REFUSAL
        yield ev.Token(text)
    timings.setdefault("first_token", ms_since(t0))
    yield _done(question, text, kept, action, "generative", len(gate.dropped), timings)
