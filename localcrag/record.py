"""One record of a run: the pipeline's events folded into plain facts.

The CLI (``ask`` and its ``--json``), the TUI's trace panel and the evaluator all read a
run through this one fold instead of each keeping its own bookkeeping, so they cannot
disagree about what happened. The final ``Answer`` is kept whole: fields added to it
later reach every front end without an edit here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from localcrag import events as ev
from localcrag.textutil import content_words, document_named, source_label, states_nothing
from localcrag.textutil.labels import style_label
from localcrag.types import (
    Action,
    Answer,
    Citation,
    Decision,
    Evidence,
    Grade,
    Hit,
    Scope,
    Strip,
    WebResult,
)


@dataclass
class RunRecord:
    """Feed every event to :meth:`add`; read the facts from the fields."""

    question: str = ""
    mode: str = "crag"
    rewritten: str | None = None  # the standalone question, when a follow-up was rewritten
    hits: tuple[Hit, ...] = ()
    retrieval_fallback: str | None = None  # e.g. "vector only: full-text search failed (...)"
    scope: Scope | None = None  # the documents the question was asked within (None: all)
    retrieved: bool = False  # retrieval ran (a question about which document ran none)
    grades: dict[int, Grade] = field(default_factory=dict)  # hit index -> grade
    decision: Decision | None = None
    strips: tuple[Strip, ...] = ()  # kept by refinement
    considered: int | None = None  # strips scored by refinement (None: it did not run)
    web_query: str | None = None
    web_results: tuple[WebResult, ...] | None = None  # None: no search was made
    web_error: str | None = None
    web_skipped: str | None = None
    trimmed: tuple[Evidence, ...] = ()  # dropped to fit the context window
    style: ev.StyleChosen | None = None  # how the answer is written, and why (the last word)
    dropped: list[tuple[str, str]] = field(default_factory=list)  # generated sentences not shown
    generator_fallback: str | None = None  # why the model server was left for the local model
    tokens: list[str] = field(default_factory=list)  # the streamed answer, piece by piece
    restarted: str | None = None  # why the answer was started over (a server died mid-answer)
    evidence: tuple[Evidence, ...] = ()  # what the generator saw, numbered as cited
    timings: dict[str, float] = field(default_factory=dict)
    answer: Answer | None = None
    stage: str | None = None  # the stage running now
    started: float = field(default_factory=time.perf_counter)
    total_ms: float | None = None  # question received to AnswerDone (timings["total"])

    def add(self, event: object) -> bool:
        """Fold one event in; False when it does not change the record."""
        match event:
            case ev.StageStarted(stage=stage):
                self.stage = stage
            case ev.StageFinished(stage=stage, ms=ms):
                self.timings[stage] = ms
                self.stage = None
            case ev.QuestionRewritten(rewritten=rewritten):
                self.rewritten = rewritten
            case ev.Retrieved(hits=hits, fallback=fallback, scope=scope):
                self.hits, self.retrieval_fallback, self.scope = hits, fallback, scope
                self.retrieved = True
            case ev.ChunkGraded(grade=grade, index=index):
                self.grades[index] = grade
            case ev.DecisionMade(decision=decision):
                self.decision = decision
            case ev.Refined(strips=strips, considered=considered):
                self.strips, self.considered = strips, considered
            case ev.WebQuery(query=query):
                self.web_query = query
            case ev.WebResults(query=query, results=results):
                self.web_query, self.web_results = query, results
            case ev.WebError(query=query, error=error):
                self.web_query, self.web_error = query or self.web_query, error
            case ev.WebSkipped(reason=reason):
                self.web_skipped = reason
            case ev.EvidenceTrimmed(dropped=dropped):
                self.trimmed = dropped
            case ev.StyleChosen():
                self.style = event
            case ev.SentenceDropped(sentence=sentence, reason=reason):
                self.dropped.append((sentence, reason))
            case ev.GeneratorFellBack(message=message):
                self.generator_fallback = message
            case ev.Token(text=text):
                self.tokens.append(text)
            case ev.AnswerRestarted(reason=reason, server_failed=failed):
                self.tokens = []  # the withdrawn fragment is no part of it
                self.restarted = reason if failed else self.restarted
            case ev.AnswerDone(answer=answer, evidence=evidence, timings_ms=timings):
                self.answer, self.evidence = answer, evidence
                self.timings.update(timings)
                self.stage = None
                # the pipeline's "total" counts from the question received (events.py); a
                # front end's own clock only when the run did not say
                self.total_ms = timings.get("total") or round(
                    (time.perf_counter() - self.started) * 1000, 1
                )
            case _:
                return False
        return True

    @property
    def done(self) -> bool:
        return self.answer is not None

    @property
    def action(self) -> Action | None:
        return self.decision.action if self.decision else None

    @property
    def streamed(self) -> str:
        return "".join(self.tokens)

    @property
    def text(self) -> str:
        """The final answer; what was streamed while the run has not finished."""
        return self.answer.text if self.answer else self.streamed

    @property
    def style_label(self) -> str:
        """ "Quoted from your documents" / "Written by <model>, checked against ..." ("" for
        a refusal or before the style is known)."""
        style = self.answer.style if self.answer else (self.style.style if self.style else "")
        if not style or (self.answer is not None and self.answer.refused):
            return ""
        cited = {c.n for c in self.answer.citations} if self.answer else set()
        web = any(e.kind == "web" for e in self.evidence if e.n in cited) or (
            self.answer is None and bool(self.web_results)
        )
        return style_label(style, self.style.model if self.style else "", web=web)

    @property
    def graded(self) -> list[Grade]:
        """The grades in retrieval order."""
        return [self.grades[i] for i in sorted(self.grades)]

    @property
    def grade_errors(self) -> list[Grade]:
        """Grades that are fallbacks because grading that chunk failed (``Grade.error``)."""
        return [g for g in self.graded if g.error]

    @property
    def refined(self) -> tuple[int, int] | None:
        """(strips kept, strips considered), when refinement ran."""
        return None if self.considered is None else (len(self.strips), self.considered)

    def hit_numbers(self) -> dict[int, tuple[int, ...]]:
        """Which [n] the answer cites each retrieved chunk as (hit index -> numbers), by
        chunk id: the answer numbers its evidence, retrieval ranks chunks."""
        index = {h.chunk.chunk_id: i for i, h in enumerate(self.hits)}
        cited = {c.n for c in self.answer.citations} if self.answer else set()
        out: dict[int, list[int]] = {}
        for e in sorted(self.evidence, key=lambda e: e.n):
            if e.chunk_id in index and e.n in cited:  # uncited evidence has no number in the answer
                out.setdefault(index[e.chunk_id], []).append(e.n)
        return {i: tuple(ns) for i, ns in out.items()}

    # --- what the answer rests on: sources when it answers, what was searched when not ---

    @property
    def claims_nothing(self) -> bool:
        """The answer is a refusal: the pipeline refused, the generator said it has not
        enough information, or a quote found nothing ("The documents do not state it.")."""
        return self.answer is not None and (self.answer.refused or states_nothing(self.answer.text))

    @property
    def sources(self) -> tuple[Citation, ...]:
        """What an answer cites; never empty for an answer that claims something and had
        evidence. The answer's own [n] citations; when it has none (a written answer whose
        sentences the model left uncited and the attribution could not place), the evidence
        item it shares the most content words with (:attr:`sources_inferred` says so)."""
        if self.answer is None or self.claims_nothing:
            return ()
        if self.answer.citations:
            return self.answer.citations
        best = _closest_evidence(self.answer.text, self.evidence)
        return (best,) if best else ()

    @property
    def sources_inferred(self) -> bool:
        """True when :attr:`sources` is the closest evidence item, not a citation in the text."""
        return bool(self.sources) and not (self.answer and self.answer.citations)

    @property
    def searched(self) -> dict[str, Any] | None:
        """What the run searched, for a refusal to say: passages retrieved, the files they
        came from, and the closest one (the best grade in CRAG, the top hit otherwise). None
        before retrieval finished."""
        if not self.retrieved:  # nothing searched yet, or nothing to search (which document?)
            return None
        files = list(dict.fromkeys(h.chunk.source for h in self.hits))
        closest: dict[str, Any] | None = None
        if self.hits:
            graded = self.graded
            best = max(graded, key=lambda g: g.score).chunk if graded else self.hits[0].chunk
            score = max(g.score for g in graded) if graded else None
            closest = {
                "source": best.source,
                "page": best.page,
                "locator": best.locator,
                "label": source_label(best.source, best.page, locator=best.locator),
                "score": None if score is None else round(score, 4),
                "chunk_id": best.chunk_id,
            }
        return {
            "passages": len(self.hits),
            "files": len(files),
            "closest": closest,
            "web_query": self.web_query,
            "web_results": None if self.web_results is None else len(self.web_results),
            "scope": scope_json(self.scope),
            "text": searched_line(
                len(self.hits),
                len(files),
                closest["label"] if closest else None,
                closest["score"] if closest else None,
                self.scope,
            ),
        }


def scope_json(scope: Scope | None) -> dict[str, Any] | None:
    """A scope as ``--json`` and history give it (docs/cli-json.md)."""
    if scope is None:
        return None
    return {
        "patterns": list(scope.patterns),
        "files": list(scope.sources),
        "passages": scope.passages,
        "named_in_question": scope.named_in_question or None,
    }


def searched_line(
    passages: int,
    files: int,
    closest: str | None,
    score: float | None = None,
    scope: Scope | None = None,
) -> str:
    """ "Searched 5 passages from 3 files; closest: report.pdf, p. 5 (relevance 0.42)": the
    line every front end shows under a refusal; a scoped run says within what ("Searched 5
    of the 212 passages in 2019 report.pdf; ...")."""
    if scope is not None:
        inside = (
            f"the {scope.passages} passage{'s' if scope.passages != 1 else ''} in {scope.label}"
        )
        if not passages:
            return f"Searched {inside}: none matched the question."
        where = f"Searched {passages} of {inside}"
    elif not passages:
        return "Searched your documents: no passage matched the question."
    else:
        where = (
            f"Searched {passages} passage{'s' if passages != 1 else ''} from {files} "
            f"file{'s' if files != 1 else ''}"
        )
    if closest is None:
        return where + "."
    return f"{where}; closest: {closest}" + (
        f" (relevance {score:.2f})." if score is not None else "."
    )


def _closest_evidence(text: str, evidence: tuple[Evidence, ...]) -> Citation | None:
    """The evidence item sharing the most content words with ``text`` (the first on a tie;
    the first item when none shares any)."""
    if not evidence:
        return None
    words = content_words(text)
    best = max(evidence, key=lambda e: (len(words & content_words(e.text)), -e.n))
    return Citation(
        best.n,
        best.source,
        best.page,
        best.url,
        best.locator,
        document_named(best.source, best.heading),
    )
