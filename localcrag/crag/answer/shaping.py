"""From raw model pieces to the answer the user sees: one checked sentence at a time.

The generator's text is never shown as it comes. ``SentenceGate`` collects it, and each
sentence, once the next one has begun (or the stream ended), is

0. cleaned of escape sequences and control characters (``textutil.terminal_safe_prefix``);
1. cleaned of invented citations (``CitationFilter``), echoed source labels, file names
   and bracket debris (``grounding.clean_prose``), *before* citations are added, so a
   label "(report.pdf, p. 5)" never becomes "p [1]. 5";
2. cited by its overlap with the evidence when the model left it uncited (``Attributor``);
3. checked (``grounding.check_sentence``): numbers, names, quoted terms and most content
   words must be in the evidence it cites; artefacts ("The answer is.", restated
   instructions, run-on lists) fail too;
4. checked against the question's binding (``binding.bound_figures``): for a question that
   asks for a number, a sentence stating figures states one that fills a unit binding every
   part of the question (the asked year's column, the asked row), never only a neighbour's
   figure that the evidence also holds (FY 2018's for FY 2019).

A sentence that passes is released; one that fails is recorded with its reason and never
shown. A sentence written a second time means the model loops: generation stops there.
So nothing on screen is ever retracted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from localcrag.crag.answer.binding import Idf, bound_figures, figures
from localcrag.crag.answer.citations import Attributor, CitationFilter
from localcrag.crag.answer.constraints import read
from localcrag.crag.answer.grounding import check_sentence, clean_prose, sentence_key, split_answer
from localcrag.textutil import is_refusal, terminal_safe, terminal_safe_prefix
from localcrag.types import Evidence


class SentenceGate:
    """Feed model pieces; stream what ``feed``/``finish`` return; ``kept``/``dropped`` after."""

    def __init__(
        self, evidence: Sequence[Evidence], question: str = "", idf: Idf | None = None
    ) -> None:
        self.evidence = list(evidence)
        self.question = question
        self.idf = idf
        self._bound: set[float] | None = None  # the figures that answer (bound_figures)
        self._asked: set[float] = set()  # the figures the question writes: constraints
        self.filt = CitationFilter(len(self.evidence))
        self.raw = ""
        self.done = 0  # sentences of the raw text already decided
        self.kept: list[str] = []
        self.dropped: list[tuple[str, str]] = []
        self.looping = False
        self._seen: set[str] = set()
        self._held = ""  # an escape sequence the model has begun and not finished

    def _clean(self, piece: str) -> str:
        """The model's text without escape sequences or control characters (a sequence
        streamed over several pieces is held until it ends, then removed whole)."""
        text, self._held = terminal_safe_prefix(self._held + piece)
        return text

    def feed(self, piece: str) -> tuple[str, bool]:
        """(text to show now, stop generating?): complete sentences that passed the check."""
        self.raw += self.filt.feed(self._clean(piece))
        sentences = split_answer(clean_prose(self.raw))
        return self._decide(sentences[self.done : -1]), self.looping

    def finish(self, cancelled: bool = False, truncated: bool = False) -> str:
        """The last sentence, checked. A cancelled run shows no unfinished sentence, and one
        cut off at max_answer_tokens is dropped (it would end mid-claim)."""
        self.raw += self.filt.feed(terminal_safe(self._held)) + self.filt.flush()
        self._held = ""
        sentences = split_answer(clean_prose(self.raw))[self.done :]
        if cancelled:
            return ""
        if (
            truncated
            and sentences
            and not re.search(r"[.!?][\"'”’)]*(?:\s*\[\d+\])*$", sentences[-1])
        ):
            self.dropped.append((sentences[-1], "cut off at max_answer_tokens"))
            sentences = sentences[:-1]
        return self._decide(sentences)

    def _cite(self, sentence: str) -> str:
        attr = Attributor(self.evidence)
        return (attr.feed(sentence) + attr.flush()).strip()

    def _decide(self, sentences: Sequence[str]) -> str:
        out = []
        for sentence in sentences:
            self.done += 1
            if self.looping:
                continue
            sentence = self._cite(sentence)
            key = sentence_key(sentence)
            if key in self._seen:
                self.looping = True
                self.dropped.append((sentence, "repeats an earlier sentence"))
                continue
            self._seen.add(key)
            reason = (
                None
                if is_refusal(sentence)
                else check_sentence(sentence, self.evidence, self.question)
                or self._unbound_figure(sentence)
            )
            if reason is None:
                out.append(sentence)
                self.kept.append(sentence)
            else:
                self.dropped.append((sentence, reason))
        if not out:
            return ""
        lead = " " if len(self.kept) > len(out) else ""
        return lead + " ".join(out)

    def _unbound_figure(self, sentence: str) -> str | None:
        """Why ``sentence`` states a figure that answers another question, or None."""
        if not self.question:
            return None
        if self._bound is None:  # once a run: the question and the evidence do not change
            cons = read(self.question)
            docs = [e for e in self.evidence if e.kind == "document"]
            self._bound = bound_figures(cons, docs, self.idf)
            self._asked = figures(" ".join([*(p.text for p in cons.periods), *cons.numbers]))
        if not self._bound:
            return None  # nothing binds it all: the decision said so, not this check
        stated = figures(re.sub(r"\[\d+\]", "", sentence)) - self._asked
        if stated and not stated & self._bound:
            return "its figure is not the one that binds every part of the question"
        return None

    @property
    def text(self) -> str:
        """The answer to store: the sentences that passed, in order."""
        return " ".join(self.kept)
