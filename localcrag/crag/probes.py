"""Template probe questions over any text: the raw material of per-corpus calibration.

A prose sentence with a year, a number, a name or a defined subject becomes a question by
putting a wh-phrase where that span was ("The API allows 50 requests per minute." ->
"The API allows how many requests per minute?"); the span is the probe's *answer*. The
method is general (no word lists beyond the wh-phrases); it was first written for the
training pairs of an evaluator since removed (docs/evaluator.md).

:func:`make_probes` draws probes from a corpus's own chunks, seeded, so that the
calibration (:mod:`localcrag.crag.calibrate`) can measure how the grader scores questions
this corpus answers, and the same chunk with the answer sentence cut out. Questions the
corpus does *not* answer come from a different text: :func:`foreign_texts`, the Python
language reference that ships with the standard library (``pydoc_data``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from localcrag.textutil import split_sentences, terms

YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
NAME = re.compile(r"(?<=[a-z,;] )((?:[A-Z][a-zA-Z\-]+)(?: (?:of |de |the )?[A-Z][a-zA-Z\-]+)*)")
DEFINITION = re.compile(r"^(?:The |An |A )?([A-Za-z][\w\- ]{2,40}?) (is|are) (?:a|an|the) ")


@dataclass(frozen=True)
class Probe:
    """A template question, the span it asks for, and where it came from."""

    question: str
    answer: str
    kind: str  # definition | year | number | name
    source: int  # index of the chunk (in the list given to make_probes)
    sentence: str


def sentences(text: str) -> list[str]:
    """Sentences with whitespace runs (PDF and reference line breaks) made single spaces."""
    return [" ".join(text[a:b].split()) for a, b in split_sentences(text) if text[a:b].strip()]


def usable(sentence: str) -> bool:
    """A prose sentence: 6-40 words, mostly letters (drops tables, code, references)."""
    words = sentence.split()
    letters = sum(ch.isalpha() or ch == " " for ch in sentence)
    return (
        6 <= len(words) <= 40
        and letters >= 0.9 * len(sentence)
        and sentence[0].isupper()
        and sentence.endswith(".")
        and not any(c in sentence for c in '|*[]{}=_`"\u201c')
    )


def template_probes(sentence: str) -> list[tuple[str, str, str]]:
    """(question, kind, answer) made from one sentence by replacing a year, number, name or
    defined subject with a wh-phrase; questions under 5 words are dropped."""
    body = sentence.rstrip(" .;:!")
    out = []
    if m := DEFINITION.match(body):
        out.append((f"What {m.group(2)} {m.group(1).strip()}?", "definition", body[m.end() :]))
    if m := YEAR.search(body):
        out.append((body[: m.start()] + "what year" + body[m.end() :] + "?", "year", m.group()))
    elif m := NUMBER.search(body):
        nxt = body[m.end() :].split()
        phrase = "how many" if nxt and nxt[0].isalpha() and nxt[0].endswith("s") else "what number"
        out.append((body[: m.start()] + phrase + body[m.end() :] + "?", "number", m.group()))
    names = list(NAME.finditer(body))
    if names:
        m = names[0]
        out.append((body[: m.start()] + "what" + body[m.end() :] + "?", "name", m.group()))
    return [(q[0].upper() + q[1:], k, a) for q, k, a in out if len(q.split()) >= 5]


def template_questions(sentence: str) -> list[tuple[str, str]]:
    """(question, kind) pairs of :func:`template_probes` (the training scripts' form)."""
    return [(q, k) for q, k, _ in template_probes(sentence)]


def make_probes(texts: Sequence[str], n: int, seed: int = 0) -> list[Probe]:
    """Up to ``n`` probes from ``texts``, at most one per chunk, chunks drawn in a seeded
    order that does not depend on how the index stores them (sorted by text first)."""
    order = sorted(range(len(texts)), key=lambda i: texts[i])
    random.Random(seed).shuffle(order)
    rng = random.Random(seed + 1)
    out: list[Probe] = []
    for i in order:
        cands = [(s, p) for s in sentences(texts[i]) if usable(s) for p in template_probes(s)]
        if not cands:
            continue
        sent, (q, kind, answer) = rng.choice(cands)
        out.append(Probe(q, answer, kind, i, sent))
        if len(out) >= n:
            break
    return out


def ablate(text: str, sentence: str) -> str | None:
    """``text`` with the probe's source sentence cut out, or None when the answer-bearing
    words survive elsewhere (then the cut chunk is no safe negative) or nothing is left."""
    kept = [s for s in sentences(text) if s != sentence]
    if not kept or len(kept) == len(sentences(text)):
        return None
    cut = " ".join(kept)
    return None if leaks(sentence, cut) else cut


def leaks(source: str, passage: str, question: str = "") -> bool:
    """True when ``passage`` repeats nearly all (>= 80%) of the source sentence's content
    terms that the question does not already hold: it likely answers it again."""
    src = set(terms(source)) - set(terms(question))
    return bool(src) and len(src & set(terms(passage))) >= 0.8 * len(src)


def foreign_texts(limit: int = 400) -> list[str]:
    """Paragraphs of a text no user corpus is expected to be (the Python reference in the
    standard library's ``pydoc_data``), for questions the corpus does not answer."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # a stripped Python: no foreign probes, the calibration says so
        return []
    paras = [" ".join(p.split()) for key in sorted(topics) for p in topics[key].split("\n\n")]
    return [p for p in paras if len(p.split()) >= 12][:limit]
