"""From raw model pieces to the answer the user sees, while it streams.

A 135M-parameter model needs guard rails that a big one would not:
* it invents citation numbers (``CitationFilter`` drops them) and rarely cites by itself
  (``Attributor`` grounds each sentence in the evidence by word overlap);
* it sometimes opens by echoing an evidence label, "(report.pdf, p. 5)": the first
  ``HOLD`` characters are held back so the label can be cut *before* citations are added
  (afterwards "p. 5" would read "p [1]. 5" and no longer match);
* it loops: a sentence written a second time ends the answer (``RepetitionGuard``);
* now and then it says nothing useful ("." or "The answer is."): then the most relevant
  evidence passage is quoted instead, with its citation, and marked as a quote, so the
  user still gets the documents' words rather than an empty bubble.
"""

from __future__ import annotations

import re
from typing import Sequence

from localcrag.crag.citations import Attributor, CitationFilter
from localcrag.crag.generate import _ASK, SYSTEM
from localcrag.textutil import (STOPWORDS, ends_sentence, label_pattern, sentence_pieces, sentences,
                                stems, words)
from localcrag.types import Evidence

HOLD = 48  # characters held back at the start
LABEL_MAX = 160  # ... or longer while an opened "(" could still be an echoed label
MIN_START = 24  # after a cut label, hold on until this much text (or the end) has come
_CITE = re.compile(r"\[\d+\]")
_LABEL = re.compile(r"^(?:\[\d+\]\s*)?\((?:" + label_pattern() + r"|https?://[^()\s]+)\)\s*")
_LABEL_OPEN = re.compile(r"^(?:\[\d+\]\s*)?\([^()\n]*$")  # "(long-file-name.md, p" so far
_EMPTY_END = re.compile(r"(?<=[.!?\]])\s*(?:The answer is|The answer)[.:]?\s*$", re.IGNORECASE)
# Words that say nothing in an answer: stop words, and talk about the question and sources.
_FILLER = STOPWORDS | frozenset("answer answers question questions source sources document "
                                "documents based according".split())
QUOTE_CHARS = 320
# "(x.pdf, p. 30)" invented mid-answer: a file name with an extension, as the prompt labels it
_ANY_LABEL = re.compile(r"\s*\((?:" + label_pattern(r"[^()\n]{1,140}\.[A-Za-z0-9]{1,5}") + r")\)")
_ECHO_START = re.compile(r"^\s*(?:Question|Sources?|Answer the question)\s*:", re.IGNORECASE)
_RULE_WORDS = frozenset(w for w in words(SYSTEM + " " + _ASK) if w not in _FILLER)


class RepetitionGuard:
    """Stops a small model that loops: a sentence written a second time ends the answer.

    ``cut`` is the offset (in the raw generated text) where the repeat began, so the final
    answer can drop it.
    """

    def __init__(self) -> None:
        self.text = ""
        self.seen: set[str] = set()
        self.checked = 0  # offset up to which finished sentences were compared
        self.cut: int | None = None

    def feed(self, piece: str) -> bool:
        self.text += piece
        pieces = sentence_pieces(self.text)
        start = 0
        for i, part in enumerate(pieces):
            end = start + len(part)
            finished = i < len(pieces) - 1 or ends_sentence(part)
            if start >= self.checked and finished:
                self.checked = end
                sentence = " ".join(_CITE.sub("", part).lower().split())
                if len(sentence) > 15 and sentence in self.seen:
                    self.cut = start + len(part) - len(part.lstrip())
                    return True
                self.seen.add(sentence)
            elif finished:
                self.checked = max(self.checked, end)  # grew past a sentence checked earlier
            start = end
        return False


def _said_words(text: str) -> list[str]:
    """Lowercase words of ``text`` without citations and filler ("the", "answer", ...)."""
    return [w for w in words(_CITE.sub(" ", text)) if w not in _FILLER]


def _echoes_the_rules(sentence: str) -> bool:
    """A sentence that restates the prompt ("Write the source number in square brackets
    after each fact ...") or re-opens it ("Question: ...") rather than answering."""
    if _ECHO_START.match(sentence):
        return True
    words = _said_words(sentence)
    hits = sum(w in _RULE_WORDS for w in words)
    return hits >= 4 and hits >= 0.6 * len(words)


def clean_final(text: str) -> str:
    """The stored answer: no source labels invented mid-text, no restated instructions."""
    text = _ANY_LABEL.sub("", text)
    kept = [part for part in sentence_pieces(text) if not _echoes_the_rules(part)]
    return re.sub(r"[ \t]+\n", "\n", "".join(kept)).strip()


def supported_share(answer: str, evidence: Sequence[Evidence], question: str = "") -> float:
    """Share of the answer's own content words (not the question's) found in the evidence,
    matched on their stems ("robots" ~ "robotic"); 1.0 for answers too short to tell."""
    asked = set(stems(question))
    said = [t for t in stems(_CITE.sub(" ", answer)) if t not in asked]
    if len(said) < 4:
        return 1.0
    known = {t for e in evidence for t in stems(e.text)}
    return sum(w in known for w in said) / len(said)


def is_empty_answer(text: str) -> bool:
    """Fewer than two words that say something ("." / "The answer is." / "[1]")."""
    return len(_said_words(text)) < 2


def quote_best(evidence: Sequence[Evidence],
               lead: str = "The model gave no usable answer; the most relevant passage says:") -> str:
    """The highest-scoring passage's first sentences, quoted and cited."""
    best = max(evidence, key=lambda e: e.score)
    text = " ".join(best.text.split())
    if len(text) > QUOTE_CHARS:
        kept = ""
        for sentence in sentences(text):
            if kept and len(kept) + len(sentence) > QUOTE_CHARS:
                break
            kept = f"{kept} {sentence}".strip()
        text = kept if len(kept) <= QUOTE_CHARS else text[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
    return f"{lead} “{text}” [{best.n}]"


class AnswerShaper:
    """Feed model pieces, stream what ``feed`` returns, then ``finish``; ``text`` is the answer."""

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = list(evidence)
        self.filt = CitationFilter(len(self.evidence))
        self.attr = Attributor(self.evidence)
        self.guard = RepetitionGuard()
        self.head: str | None = ""  # None once the start has been released
        self.label_checked = False

    def feed(self, piece: str, force: bool = False) -> tuple[str, bool]:
        """(text to show now, stop generating?)."""
        raw = self.filt.feed(piece)
        if self.head is not None:
            self.head += raw
            if not self.label_checked:
                opened = _LABEL_OPEN.match(self.head.lstrip()) and len(self.head) < LABEL_MAX
                if (len(self.head) < HOLD or opened) and not force:
                    return "", False
                self.head, self.label_checked = _LABEL.sub("", self.head.lstrip(), count=1), True
            if len(self.head.strip()) < MIN_START and not force:
                return "", False  # "(a.pdf, p. 2) The answer is." must not be shown as an answer
            raw, self.head = self.head.lstrip(), None
        out = self.attr.feed(raw)
        return out, bool(out) and self.guard.feed(out)

    def finish(self, cancelled: bool = False) -> str:
        """The rest of the answer (or the quote that replaces an empty one)."""
        if self.guard.cut is not None:
            return ""
        rest = self.filt.flush()
        if self.head is not None:  # the whole answer ended while held back
            rest = (self.head + rest).lstrip()
            if not self.label_checked:
                rest = _LABEL.sub("", rest, count=1)
            self.head = None
            if is_empty_answer(rest) and self.evidence and not cancelled:
                tail = quote_best(self.evidence)
                self.guard.feed(tail)
                return tail
        tail = self.attr.feed(rest) + self.attr.flush()
        if tail:
            self.guard.feed(tail)
        return tail

    def unsupported(self, question: str, min_share: float = 0.5) -> bool:
        """True when most of what the model wrote is not in the evidence (it made it up)."""
        return bool(self.evidence) and supported_share(self.text, self.evidence, question) < min_share

    def replace_with_quote(self) -> str:
        """An answer the evidence does not support gives way to the closest passage, quoted."""
        self.guard.text = quote_best(self.evidence, "The documents do not support the answer the "
                                                    "model drafted; the closest passage says:")
        self.guard.cut = None
        return self.text

    def mark_truncated(self) -> str:
        """The answer hit max_answer_tokens: say so instead of ending mid-sentence."""
        if self.guard.cut is not None or is_empty_answer(self.guard.text):
            return ""
        mark = " … (cut at max_answer_tokens)"
        self.guard.text += mark
        return mark

    @property
    def text(self) -> str:
        """The answer to store and show when done: without a repeat, a trailing "The
        answer is." stub, invented labels or restated instructions; if nothing is left of
        a non-empty reply, the best passage quoted."""
        g = self.guard
        raw = _EMPTY_END.sub("", g.text if g.cut is None else g.text[:g.cut])
        text = clean_final(raw)
        if raw.strip() and is_empty_answer(text) and self.evidence:
            return quote_best(self.evidence)
        return text
