"""The Corrective RAG pipeline: a generator of typed events, nothing printed.

retrieve -> grade every chunk -> decide -> (refine | web | both) -> generate with citations.
``mode="rag"`` skips grading, refinement and the web: the top-k chunks go straight to the
same generator with the same prompt, for comparison.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Generator as Yields
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from localcrag import events as ev
from localcrag.crag.answer.binding import Idf, corpus_idf, unbound_note
from localcrag.crag.decide import decide, ungraded_decision
from localcrag.crag.documents import about_question
from localcrag.crag.documents import named_scope as scope_named
from localcrag.crag.graders.base import Grader, ReadSpans, grade_or_rank
from localcrag.crag.refine import chunks_as_evidence, graded_evidence, recompose, refine
from localcrag.crag.timing import Stage, ms_since, timed
from localcrag.errors import BadQuestion
from localcrag.llm.chat import ChatModel
from localcrag.models.cpu import CpuMeter
from localcrag.registry import ANSWER_STYLES
from localcrag.settings import Settings
from localcrag.textutil import states_nothing
from localcrag.types import Action, Answer, Decision, Evidence, Grade, Hit, Scope

if TYPE_CHECKING:
    from localcrag.crag.calibrate import Thresholds
    from localcrag.crag.web import WebSearch
    from localcrag.ingest.library import Searchable

STATS_TEXTS = 20_000  # chunk texts the grader's IDF is taken from (a sample above this)

MAX_QUESTION_CHARS = 2000
FOLLOW_UP_ALONE = (
    "This reads as a follow-up to an earlier question (it refers to something not named "
    'in it). Continue your last conversation with `localcrag ask -c "..."`, or name what '
    "it refers to."
)
UNGRADED_NOTE = (
    "Note: the retrieved passages could not be graded ({error}), so this answer "
    "uses them in retrieval order, unchecked for relevance."
)


def best_graded(grades: list[Grade], k: int) -> list[Grade]:
    """The ``k`` best graded of a graded pool, in the search's order: the evidence the
    decision and the answer read. A chunk that binds the whole question goes before one
    that only scores higher (the grader scores topic: "UE output power" rows outscore the
    line that gives the *minimum* output power); ties go to the better search rank."""
    keep = sorted(range(len(grades)), key=lambda i: (not grades[i].binds, -grades[i].score, i))[:k]
    return [grades[i] for i in sorted(keep)]


@dataclass(frozen=True)
class Judged:
    """One question's retrieve -> grade -> decide (``Pipeline.judge``)."""

    hits: tuple[Hit, ...]  # the graded pool, in the search's order
    graded: tuple[Grade, ...]  # the pool's grades
    kept: tuple[Grade, ...]  # the ``k`` best (every one when the grader failed)
    ungraded: str | None  # why the grader failed as a whole, if it did
    decision: Decision


def nothing_stated_under_correct(answer: Answer) -> bool:
    """The passages were graded relevant (Correct) but the answer states nothing from them
    ("The documents do not state it. No passage gives ...")."""
    return answer.action is Action.CORRECT and (answer.refused or states_nothing(answer.text))


def not_stated(decision: Decision) -> Decision:
    """The decision once the answer found nothing: the badge says what was checked, so a
    relevant retrieval whose passages do not state the answer is not Correct."""
    return replace(
        decision,
        action=Action.INCORRECT,
        reason=f"{decision.reason}; but no passage states the answer",
    )


NOT_STATED_WEB = "no passage in your documents states the answer; the web results answer"


@dataclass(frozen=True)
class _AnswerArgs:
    """What the answer stage needs besides its evidence and badge: the same for the
    documents' answer and, when none of their passages states it, the web's."""

    question: str
    q: str
    style: str
    reason: str
    cancel: threading.Event
    timings: dict[str, float]
    t0: float
    meter: CpuMeter | None
    scorer: Callable[[str, Sequence[str]], list[float]] | None
    spans: ReadSpans | None
    idf: Idf | None
    note: str


class Pipeline:
    """Owns the backends (real ones by default, loaded lazily) and runs questions."""

    def __init__(
        self,
        settings: Settings,
        *,
        library: Searchable | None = None,
        grader: Grader | None = None,
        generator: ChatModel | None = None,
        web: WebSearch | None = None,
        spans: ReadSpans | Literal[False] | None = None,
    ) -> None:
        """``spans``: the reader's answer spans for quoted answers (``question, texts ->
        [Span | None]``); by default the shipped reader's, unless a grader is given (a
        test's fake grader then quotes without them)."""
        self.settings = settings
        self._library = library
        self._grader = grader
        self._spans: ReadSpans | Literal[False] | None = spans
        if spans is None and grader is not None:
            self._spans = False
        self._generator = generator
        self.web = web  # a web.WebSearch; None means DuckDuckGo
        self._stats_key: tuple[Any, ...] | None = None
        self._corpus: Any = None  # the grader's CorpusStats: document frequencies for binding
        # (grader key, Thresholds)
        self._thresholds: tuple[tuple[Any, ...] | None, Thresholds | None] = (None, None)
        self._lock = threading.Lock()
        # (index key, [(source, what it says it is)]): documents a question may name
        self._docs: tuple[tuple[Any, ...], list[tuple[str, str]]] | None = None

    # --- lazily built backends -----------------------------------------------------------

    @property
    def library(self) -> Searchable:  # a Library, or the one a caller passed in
        if self._library is None:
            from localcrag.ingest.library import Library

            self._library = Library(self.settings)
        return self._library

    @property
    def generator(self) -> ChatModel:
        """The local GGUF, or with ``llm_endpoint`` the model server with it behind
        (``llm.failover``; refused offline when the server is not this machine)."""
        if self._generator is None:
            from localcrag.llm.gguf import load_llm

            s = self.settings

            def local() -> Any:
                return load_llm(
                    s.model_path(s.models.generator),
                    n_ctx=s.generation.n_ctx,
                    threads=s.generation.threads,
                )

            if s.endpoint.llm_endpoint:
                from localcrag.llm.failover import endpoint_generator

                self._generator = endpoint_generator(s, local)
            else:
                self._generator = local()
        return self._generator

    def generator_info(self) -> dict[str, Any]:
        """{"kind": "local" | "endpoint", "url", "model"}: where the evidence goes to be
        written up (``ask --json``), without loading anything."""
        s = self.settings
        facts = self._generator.facts if self._generator is not None else None
        if url := facts.url if facts is not None else s.endpoint.llm_endpoint:
            name = (facts.served_model if facts else None) or s.endpoint.llm_endpoint_model
            return {"kind": "endpoint", "url": url, "model": name}
        return {"kind": "local", "url": None, "model": (facts and facts.name) or s.models.generator}

    def _fallbacks(self) -> Iterator[ev.Event]:
        """A GeneratorFellBack for each line the model server's failover has not reported."""
        if self._generator is None:
            return
        for message in self._generator.take_notices():
            yield ev.GeneratorFellBack(self._generator.facts.url or "", message)

    def _index_key(self) -> tuple[Any, ...]:
        """The grader's corpus statistics follow the index: its size and change stamp (an
        ingest from another process, seen after Library.refresh)."""
        return self.library.count(), self.library.change_stamp()

    def _grader_stale(self) -> bool:  # (re)built on next use: first use, or the index changed
        return self._grader is None or self._stats_key not in (None, self._index_key())

    def answer_spans(self) -> ReadSpans | None:
        """The reader's answer spans when the reader grades (``grader = "reader"``), else
        None: measured with the default fusion, the reader's spans beat the answer-shape
        spans on SQuAD but lost on descriptive answers (docs/evaluator.md), so only the
        reader's own runs use them."""
        if self._spans is None:
            return self.grader.reader_spans()
        return self._spans or None

    @property
    def grader(self) -> Grader:  # the settings' grader, or the one a caller passed in
        if self._grader_stale():
            key = self._index_key()
            count = key[0]
            from localcrag.crag.grade import CorpusStats, make_grader
            from localcrag.llm.gguf import load_llm

            s = self.settings
            store = self.library.store
            stats = CorpusStats.from_texts(store.all_texts(STATS_TEXTS)) if count else None
            if stats is not None:  # the centroid from the search's int8 codes
                stats = replace(stats, centroid=store.centroid())
            generator_path = s.model_path(s.models.generator)

            def llm_loader(p: Path) -> Any:  # the `llm` grader asks the generator: maybe the server
                if s.endpoint.llm_endpoint and Path(p) == generator_path:
                    return self.generator
                return load_llm(Path(p), n_ctx=s.generation.n_ctx, threads=s.generation.threads)

            self._grader = make_grader(s, self.library.embedder, stats, llm_loader=llm_loader)
            self._corpus = stats
            self._stats_key = key
        if self._grader is None:  # built above whenever missing
            raise RuntimeError("no grader was built")
        return self._grader

    @property
    def idf(self) -> Idf | None:
        """Document frequencies of the indexed corpus (``binding.Idf``), for binding a
        question's key nouns; None before the grader is built or for an empty index."""
        _ = self.grader
        return corpus_idf(self._corpus)

    @property
    def thresholds(self) -> Thresholds:
        """The decision thresholds for the current index: the settings' own, or with
        ``calibrate`` on, calibrated on the indexed chunks (localcrag.crag.calibrate;
        measured once per index version, cached in the index folder)."""
        from localcrag.crag.calibrate import corpus_thresholds

        grader = self.grader
        key, thresholds = self._thresholds
        if key != self._stats_key or thresholds is None:
            thresholds = corpus_thresholds(self.settings, self.library, grader)
            self._thresholds = (self._stats_key, thresholds)
        return thresholds

    def warm_up(self) -> None:
        """Load every model now (slow: call it off the UI thread)."""
        self.library.embedder.embed(["warm up"])
        _ = self.generator
        if self.library.count():
            _ = self.thresholds  # builds the grader too

    # --- running ------------------------------------------------------------------------

    def _check_question(self, question: str) -> str:
        q = " ".join(question.split())
        if not q:
            raise BadQuestion("the question is empty", "type a question")
        if len(q) > MAX_QUESTION_CHARS:
            raise BadQuestion(
                f"the question is {len(q):,} characters; the limit is {MAX_QUESTION_CHARS:,}",
                "ask a shorter question; put long text in a document and ingest it",
            )
        return q

    def run(
        self,
        question: str,
        *,
        mode: Literal["crag", "rag"] = "crag",
        history: Sequence[tuple[str, str]] | None = None,
        confirm_web: Callable[[str], bool] | None = None,
        cancel: threading.Event | None = None,
        k: int | None = None,
        rewrite: bool = True,
        style: str | None = None,
        scope: Scope | None = None,
        named_scope: bool = True,
        alone: bool = False,
    ) -> Iterator[ev.Event]:
        """Events of one question; ``style`` overrides the answer_style setting for this run;
        ``rewrite=False`` asks the question as typed even after earlier turns (the undo of a
        follow-up rewrite); ``scope``: only its documents are searched, and never the web
        (``Library.scope``); without one, a question that names a document ("In the 2019
        report, ...") is asked within it unless ``named_scope`` is False (crag/documents).
        "What is X about?" is answered from X's overview. ``alone``: the question has no
        conversation (a command line without ``-c``); one that cannot stand alone ("and in
        2019?") is answered with a note saying so, not searched. Timings: see STAGE_TIMINGS and ELAPSED_TIMINGS in events.py."""
        t0 = time.perf_counter()  # question received: every "from question" timing counts from here
        if style is not None and style not in ANSWER_STYLES:
            raise ValueError(f"unknown answer style {style!r}")
        with self._lock:  # one question at a time per pipeline: llama contexts are not re-entrant
            yield from self._run(
                question,
                mode,
                list(history or []) if rewrite else [],
                confirm_web,
                cancel or threading.Event(),
                k or self.settings.retrieval.top_k,
                style or self.settings.generation.answer_style,
                t0,
                scope,
                named_scope,
                alone,
            )

    def _run(
        self,
        question: str,
        mode: str,
        history: list[tuple[str, str]],
        confirm_web: Callable[[str], bool] | None,
        cancel: threading.Event,
        k: int,
        style: str,
        t0: float,
        scope: Scope | None = None,
        named_scope: bool = True,
        alone: bool = False,
    ) -> Iterator[ev.Event]:
        s = self.settings
        meter = CpuMeter()  # what other processes do with our cores while we work
        timings: dict[str, float] = {}
        q = self._check_question(question)
        if self._generator is None or (mode != "rag" and self._grader_stale()):  # first question
            yield from timed(
                "load", timings, lambda: (self.generator, mode == "rag" or self.thresholds)
            )
        gen = self.generator  # a missing or corrupt model fails here, before any work
        gen.begin_question()  # a model server is checked again
        yield from self._fallbacks()
        from localcrag.crag.answer.style import resolve_style

        style, why = resolve_style(style, gen.facts)
        from localcrag.crag.rewrite import needs_context, standalone_question

        if history and needs_context(q):  # a question that stands alone is no rewrite stage
            standalone = yield from timed(
                "rewrite",
                timings,
                lambda: standalone_question(q, history, llm=gen, rules_first=style == "extractive"),
            )
            yield from self._fallbacks()
            if standalone != q:
                yield ev.QuestionRewritten(q, standalone)
                q = standalone

        if mode != "rag" and (phrase := about_question(q)) is not None:
            answered = yield from self._about(question, phrase, scope, gen, timings, t0)
            if answered:
                return
        if alone and scope is None and not history and needs_context(q):
            yield from _note(question, FOLLOW_UP_ALONE, timings, t0)
            return
        if scope is None and named_scope and (found := scope_named(q, self._documents)):
            q, named = found
            scope = self.library.scope_of(named.sources, named.phrase)

        action: Action | None = None
        decision: Decision | None = None
        evidence: list[Evidence] = []
        web_evidence: list[Evidence] = []
        web_note = ""
        ungraded: str | None = None  # why the grader failed as a whole, if it did
        if mode == "rag":
            hits = yield from self._retrieve(q, k, scope, timings)
            evidence = chunks_as_evidence([h.chunk for h in hits])
            idf = corpus_idf(self._corpus)  # how rare each noun is: binding's key nouns
        else:
            judged = yield from self._judge(q, k, scope, timings)
            grader, th = self.grader, self.thresholds
            grades, ungraded, decision = list(judged.kept), judged.ungraded, judged.decision
            idf = corpus_idf(self._corpus)  # (the grader built: its corpus read)
            action = decision.action
            yield ev.DecisionMade(decision)
            if ungraded:  # nothing to refine with: the chunks as retrieved, best first
                evidence = chunks_as_evidence([g.chunk for g in grades], [g.score for g in grades])
            elif action in (Action.CORRECT, Action.AMBIGUOUS) and not cancel.is_set():
                with Stage("refine", timings) as st:
                    yield st.started
                    strips, considered = refine(
                        q,
                        grades,
                        lower=th.lower,
                        threshold=th.strip,
                        sentences_per_strip=s.evaluator.strip_sentences,
                        budget_tokens=s.generation.evidence_tokens,
                        score_texts=grader.score_texts,
                        count_tokens=self.generator.count_tokens,
                    )
                yield ev.Refined(tuple(strips), considered)
                yield st.finished  # strips fit a prompt; a quote picks from every kept chunk
                evidence = (
                    graded_evidence(grades, th.lower)
                    if style == "extractive"
                    else recompose(strips)
                )
            if action in (Action.INCORRECT, Action.AMBIGUOUS) and not cancel.is_set():
                with Stage("web", timings) as st:
                    yield st.started
                    web_evidence, web_note, web_events = self._web(
                        q, confirm_web, len(evidence), scope is not None
                    )
                yield from self._fallbacks()
                yield from web_events
                yield st.finished

        evidence = evidence + web_evidence
        if action is Action.INCORRECT and not web_evidence:
            from localcrag.crag.answer.generate import REFUSAL

            where = f"documents in scope, {scope.label}," if scope else "indexed documents"
            text = f"{REFUSAL} The {where} do not answer it, and {web_note}."
            if decision is not None and decision.missing:
                text = f"{REFUSAL} {unbound_note(decision)} {web_note[:1].upper()}{web_note[1:]}."
            timings.setdefault("first_token", ms_since(t0))
            yield ev.Token(text)
            timings["total"] = max(ms_since(t0), timings["first_token"])
            yield ev.AnswerDone(Answer(question, text, (), action, refused=True), (), timings)
            return
        scorer = self.grader.score_texts if mode != "rag" and not ungraded else None
        answer = _AnswerArgs(
            question,
            q,
            style=style,
            reason=why,
            cancel=cancel,
            timings=timings,
            t0=t0,
            meter=meter,
            scorer=scorer,
            spans=self.answer_spans() if scorer is not None else None,
            idf=idf,
            note=UNGRADED_NOTE.format(error=ungraded) if ungraded else "",
        )
        done = yield from self._answer(answer, evidence, action)
        if decision is None or not nothing_stated_under_correct(done.answer):
            yield done
            return
        # Correct, yet no passage states the answer: CRAG's Incorrect, so the web (when
        # online and allowed) before the refusal stands
        decision = not_stated(decision)
        yield ev.DecisionMade(decision)
        web: list[Evidence] = []
        if not cancel.is_set():
            with Stage("web", timings) as st:
                yield st.started
                web, web_note, web_events = self._web(q, confirm_web, 0, scope is not None)
            yield from self._fallbacks()
            yield from web_events
            yield st.finished
        if web:
            yield ev.AnswerRestarted(NOT_STATED_WEB, server_failed=False)
            yield (yield from self._answer(answer, web, decision.action))
            return
        refused = replace(done.answer, action=decision.action, refused=True)
        if not cancel.is_set():  # says why the web did not answer either, as Incorrect does
            tail = f" {web_note[:1].upper()}{web_note[1:]}."
            yield ev.Token(tail)
            refused = replace(refused, text=refused.text + tail)
        yield replace(done, answer=refused)

    def _retrieve(
        self,
        q: str,
        n: int,
        scope: Scope | None,
        timings: dict[str, float],
        withhold: frozenset[str] = frozenset(),
    ) -> Yields[ev.Event, None, list[Hit]]:
        """The retrieve stage: the ``n`` best chunks (in ``scope``; ``withhold``: chunk ids
        searched as if not indexed, for eval)."""
        from localcrag.crag.retrieve import Retriever

        with Stage("retrieve", timings) as st:
            yield st.started
            retriever = Retriever(self.settings, self.library)
            hits = retriever.search(q, k=n, scope=scope, withhold=withhold)
            hits += retriever.codebooks(hits, withhold, scope)  # what the rows' columns mean
        yield ev.Retrieved(tuple(hits), retriever.fallback, scope)
        yield st.finished
        return hits

    def _judge(
        self,
        q: str,
        k: int,
        scope: Scope | None,
        timings: dict[str, float],
        withhold: frozenset[str] = frozenset(),
    ) -> Yields[ev.Event, None, Judged]:
        """Retrieve the graded pool, grade it, keep the ``k`` best, decide: the one decision
        path (``run`` and ``judge``)."""
        s = self.settings
        hits = yield from self._retrieve(
            q, max(k, s.retrieval.graded_pool), scope, timings, withhold
        )
        grader, th = self.grader, self.thresholds  # (re)built with the library's stats
        idf = corpus_idf(self._corpus)
        with Stage("grade", timings) as st:
            yield st.started
            grades, ungraded = grade_or_rank(
                grader, q, [h.chunk for h in hits], th.upper, th.lower, idf
            )
        yield from self._fallbacks()
        for i, g in enumerate(grades):
            yield ev.ChunkGraded(g, i, len(grades))
        yield st.finished
        pool = tuple(grades)
        grades = grades if ungraded else best_graded(grades, k)
        decision = (
            ungraded_decision(grades, ungraded, th.upper, th.lower)
            if ungraded
            else decide(grades, th.upper, th.lower, th.basis, q, idf)
        )
        return Judged(tuple(hits), pool, tuple(grades), ungraded, decision)

    def judge(
        self,
        question: str,
        k: int | None = None,
        withhold: frozenset[str] = frozenset(),
        timings: dict[str, float] | None = None,
    ) -> Judged:
        """One question's retrieve -> grade -> decide, as ``run`` does it (the graded pool,
        the grader's failure path), without an answer: what ``localcrag eval --only
        decisions`` measures. ``timings`` gets each stage's milliseconds."""
        gen = self._judge(
            question,
            k or self.settings.retrieval.top_k,
            None,
            {} if timings is None else timings,
            frozenset(withhold),
        )
        while True:
            try:
                next(gen)
            except StopIteration as done:
                judged: Judged = done.value
                return judged

    def _answer(
        self, a: _AnswerArgs, evidence: list[Evidence], action: Action | None
    ) -> Yields[ev.Event, None, ev.AnswerDone]:
        """The answer stage's events up to, not including, its ``AnswerDone`` (returned)."""
        from localcrag.crag.answer.stage import answer_events

        done: ev.AnswerDone | None = None
        for e in answer_events(
            a.question,
            a.q,
            evidence,
            action,
            style=a.style,
            reason=a.reason,
            llm=self.generator,
            settings=self.settings,
            cancel=a.cancel,
            timings=a.timings,
            t0=a.t0,
            meter=a.meter,
            score_texts=a.scorer,
            read_spans=a.spans,
            idf=a.idf,
            note=a.note,
        ):
            yield from self._fallbacks()  # before the first token that the local model wrote
            # elapsed since the question (events.py): the AnswerDone carries this dict
            if isinstance(e, ev.StageFinished) and e.stage == "generate":
                a.timings["generate_end"] = ms_since(a.t0)
            elif isinstance(e, ev.AnswerDone):
                a.timings["total"] = ms_since(a.t0)
                done = e
                continue
            yield e
        assert done is not None, "answer_events ends with its AnswerDone"
        return done

    def _documents(self) -> list[tuple[str, str]]:
        """(source, what the document says it is) of every indexed document, per index
        version (only read for a question that names a document)."""
        key = self._index_key()
        if self._docs is None or self._docs[0] != key:
            sources = [d.source for d in self.library.sources()]
            titles = self.library.documents(sources)
            self._docs = (key, [(src, titles.get(src, "")) for src in sources])
        return self._docs[1]

    def _about(
        self,
        question: str,
        phrase: str,
        scope: Scope | None,
        gen: ChatModel,
        timings: dict[str, float],
        t0: float,
    ) -> Yields[ev.Event, None, bool]:
        """ "What is X about?": X's overview, quoted (crag/documents). Returns False (nothing
        yielded) when X names no document: then it is a question about a topic."""
        from localcrag.crag.answer.style import model_name
        from localcrag.crag.documents import (
            Named,
            citations_of,
            documents_named,
            matched_line,
            overview_answer,
            unnamed_line,
        )

        inside = set(scope.sources) if scope else None
        docs = [d for d in self._documents() if inside is None or d[0] in inside]
        only = [d[0] for d in docs] if len(docs) == 1 else []  # the scope's, or the library's
        named = documents_named(phrase, docs) if phrase else Named("this document", tuple(only))
        if phrase and not named.sources:
            return False
        overview = self.library.overview(named.sources[0]) if len(named.sources) == 1 else None
        if overview is None:  # several documents, or none meant: say which, answer nothing
            text = matched_line(named) if named.sources else unnamed_line(len(inside or ()))
            yield from _note(question, text, timings, t0)
            return True
        text, evidence, reason = overview_answer(overview, named.phrase)
        chunks = [self.library.get_chunk(e.chunk_id) for e in evidence if e.chunk_id]
        yield ev.Retrieved(
            tuple(Hit(c, 1.0, i) for i, c in enumerate(x for x in chunks if x)), None, scope
        )
        th = self.thresholds
        yield ev.DecisionMade(Decision(Action.CORRECT, 1.0, th.upper, th.lower, reason, th.basis))
        yield ev.StyleChosen(
            "extractive", "a document's overview is quoted from it", model_name(gen.facts)
        )
        timings["first_token"] = ms_since(t0)
        yield ev.Token(text)
        timings["total"] = ms_since(t0)
        answer = Answer(
            question,
            text,
            citations_of(evidence, overview.about),
            Action.CORRECT,
            style="extractive",
        )
        yield ev.AnswerDone(answer, tuple(evidence), timings)
        return True

    def _web(
        self, q: str, confirm: Callable[[str], bool] | None, first_n: int, scoped: bool = False
    ) -> tuple[list[Evidence], str, list[ev.Event]]:
        from localcrag.crag.rewrite import rewrite_for_web
        from localcrag.crag.web import outcome_events, search_web

        s = self.settings
        outcome = search_web(
            lambda: rewrite_for_web(q, llm=self.generator) or q,
            searcher=self.web,
            offline=s.web.offline,
            policy=s.web.web_search,
            confirm=confirm,
            timeout=s.web.web_timeout,
            max_results=s.web.web_results,
            region=s.web.web_region,
            scoped=scoped,
        )
        found = [
            Evidence(
                n=first_n + i + 1,
                text=f"{r.title}. {r.snippet}".strip(),
                source=r.url,
                url=r.url,
                kind="web",
                score=0.5,
            )
            for i, r in enumerate(outcome.results)
        ]
        note = (
            f"web search was skipped ({outcome.skipped})"
            if outcome.skipped
            else f"web search failed ({outcome.error})"
            if outcome.error
            else "the web search found nothing"
        )
        return found, note, outcome_events(outcome)


def _note(question: str, text: str, timings: dict[str, float], t0: float) -> Iterator[ev.Event]:
    """A run that searched nothing and answers with a note (which document? a follow-up
    without its conversation): no decision, nothing cited."""
    timings["first_token"] = ms_since(t0)
    yield ev.Token(text)
    timings["total"] = ms_since(t0)
    yield ev.AnswerDone(Answer(question, text, (), None, refused=True), (), timings)
