"""Extractive answers: the evidence sentences that answer the question, quoted verbatim.

A 135M model cannot be trusted to paraphrase, but CRAG's refinement has already found the
strips that carry the answer. So the answer is one to three whole evidence sentences
(PDF line-break hyphens joined), each cited [n], at most about ``MAX_WORDS`` words, chosen
by a question-sentence score:

    score = 0.45 * relevance + 0.35 * question-term overlap + 0.20 * answer shape

``relevance`` is, with graded evidence (CRAG), the mean of three views of a sentence: the
retrieval evaluator's ``score_texts`` on it (the same one refinement uses), the share of the
question's terms it contains (IDF-weighted, docs/eval.md), and its chunk's grade (``Evidence.score``). The evaluator was
fitted on passages: alone on one sentence it rates a glued menu or a heading like the text
under it, and a sentence loses the context its chunk gives. Without grades (standard RAG,
ungraded evidence) the share of question terms alone is the relevance. The three-way mean
was chosen among six mixes on the seed-0 40 anthropic-docs questions (docs/eval.md). A
sentence that only restates the question (fewer than two content words of its own and no
answer-shaped span) counts half.

A sentence is scored on its own words: reading it with its predecessor's question terms
was measured, lowered held-out F1 and was removed (docs/eval.md).

The **answer shape** comes from the question word, by general English grammar, not from
any data set: how many / how much / how long / what percentage ... -> a number with its
unit; when / what year -> a date or year; who / whose -> a capitalised name; where / what
city ... -> a capitalised phrase after a place preposition (in, at, near, from ...). The
span of that shape in the chosen sentence (not one the question already contains) is
emphasised in **bold**, so the user sees what answers the question at a glance. A question
about a duration (how long, how much time, what duration) prefers a number with a unit of
time ("3.5 days") to another number in the sentence ("300,000 steps").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from localcrag.crag.answer.binding import (
    FILLED,
    Bound,
    Idf,
    Unit,
    anchored_span,
    bindings,
    cell_value,
    choice_made,
    closest_quote,
    described,
    key_terms,
)
from localcrag.crag.answer.cells import cell_answer, parse_row
from localcrag.crag.answer.constraints import Constraints, read
from localcrag.crag.answer.emphasis import (
    counted,
    counts,
    file_words,
    order_spans,
    plausible,
    sure_name,
)
from localcrag.crag.answer.glossary import definition_answer
from localcrag.crag.answer.grounding import lead_lines
from localcrag.crag.answer.shapes import answer_shape, answer_spans
from localcrag.crag.graders.base import ReadSpans
from localcrag.textutil import (
    NOT_STATED,
    STOPWORDS,
    TERMINAL,
    WH_WORDS,
    base_form,
    content_words,
    number_words,
    stem,
)
from localcrag.types import Evidence

_SHAPED = ("number", "date", "name", "place")  # slots with an answer shape (crag/shapes)
MAX_WORDS = 60  # a quote longer than this is no longer an answer at a glance
MAX_SENTENCES = 3
# how a table writes "no value": R's and pandas' NA / NaN, n/a, a dash, "null", "none"
_UNKNOWN = re.compile(r"(?i)|na|n/a|nan|null|none|-+|\u2013|\u2014|\.{1,3}|\?")
BORROWED = 0.9  # the score of a unit whose passage, not itself, holds a name it needs
BY_HEADING = 0.6  # ... of one that holds fewer of the required nouns itself than another
CANDIDATES = 40  # sentences scored by the evaluator (the rest by overlap only): latency
NEAR_BEST = 0.85  # a second or third sentence is added only if it scores this close to the best
LIST_NEAR = 0.70  # ... or this close when the question asks for several things
# A question that asks for several things, by English grammar: a count before a plural
# noun ("two ways", "three key metrics"), or a quantifier that asks for a list ("what are
# some", "several", "a few"), or "list"/"name" as the verb. Not from any data set.
_COUNTS = number_words(2, 5)
_WH = "|".join(sorted(WH_WORDS))
_LIST = re.compile(
    r"\b(?:(?P<n>" + "|".join(_COUNTS) + r"|[2-5])\s+(?:\w+\s+){0,2}?\w+s\b"
    r"|(?:some|several|a few|various|multiple)\s+(?:\w+\s+){0,2}?\w+s\b"
    r"|^(?:list|name|enumerate)\b"
    r"|\b(?:" + _WH + r")\b.+\band (?P<two>" + _WH + r")\b)",
    re.I,
)  # two questions in one: "what is X and why ..."


@dataclass(frozen=True)
class Extract:
    """An extractive answer: the quoted text (with [n] and **bold**) and what it cites."""

    text: str
    cited: tuple[int, ...]
    sentences: tuple[str, ...]
    span: str | None = None  # the emphasised answer span, when one was found
    found: bool = True  # False: no evidence sentence addresses the question


def asked_items(question: str) -> int:
    """How many sentences the question asks for: 2-3 for a list question, else 1."""
    m = _LIST.search(question.strip())
    if m is None:
        return 1
    if m.group("two"):
        return 2
    n = (m.group("n") or "").lower()
    return min(int(n) if n.isdigit() else _COUNTS.get(n, MAX_SENTENCES), MAX_SENTENCES)


def _key(sentence: str) -> str:
    """A sentence's identity: case, spacing and spaces around punctuation ("tool_use ,",
    "tip : ( <examples> )") do not make a second sentence."""
    return re.sub(r"\s*([^\w\s])\s*", r"\1", " ".join(sentence.lower().split()))


def _stems(text: str) -> set[str]:
    return content_words(text)


def is_heading(sentence: str) -> bool:
    """A title or a menu, not a statement: no closing punctuation, and mostly capitalised
    words ("Chapter 18: The Role of Government", "Creating Test Cases Tips ..."), or a long
    run of mostly capitalised terms (a menu of titles, "... Defining the Task Defining intent
    categories Example Data ..."). A list item ("b. Potentially multiple delta events") is kept."""
    if sentence.rstrip()[-1:] in TERMINAL + "]":
        return False
    words = sentence.split()
    if sum(w[:1].isupper() for w in words) >= 0.5 * len(words):
        return True
    terms = [w for w in words if w.lower() not in STOPWORDS]  # a menu of titles spares "of", "the"
    return len(terms) >= 8 and sum(w[:1].isupper() for w in terms) >= 0.6 * len(terms)


def _covered(
    asked: set[str], said: set[str], weight: Callable[[str], float] = lambda t: 1.0
) -> float:
    """The (weighted) share of the question's terms the sentence says."""
    total = sum(weight(t) for t in asked)
    return sum(weight(t) for t in asked & said) / total if total else 0.0


def _weights(question: str, sentences: Sequence[str]) -> dict[str, float]:
    """IDF of each question term over the candidate sentences: the term that tells them
    apart ("French" among sentences that all say "Transformer") counts most."""
    said = [_stems(s) for s in sentences]
    return {t: math.log(1 + len(said) / (1 + sum(t in s for s in said))) for t in _stems(question)}


def _score(
    question: str,
    sentence: str,
    relevance: float,
    shape: str | None,
    weights: dict[str, float] | None = None,
) -> float:
    asked, said = _stems(question), _stems(sentence)
    w = weights or {}
    overlap = _covered(asked, said, lambda t: w.get(t, 1.0))
    spans = answer_spans(sentence, question, shape)
    # a name the question asks for: the agent ("... by Ada Quist") or a company's name with
    # its legal form fills it surely, another name may
    has_span = (
        1.0
        if spans and (shape != "name" or any(sure_name(sentence, s, question) for s in spans))
        else (0.75 if spans else 0.0)
    )
    score = (
        0.45 * relevance + 0.35 * overlap + 0.20 * has_span
        if shape
        else 0.55 * relevance + 0.45 * overlap
    )
    restates = len(said - asked) < 2 and not has_span
    return score * 0.5 if restates else score


def _emphasise(
    sentence: str, question: str, shape: str | None, avoid: frozenset[str] = frozenset()
) -> tuple[str, str | None]:
    """Bold the answer-shaped span nearest to the question's terms (two when the question
    asks for two things: "How long and at what temperature ..."); never a header or file name."""
    spans = [s for s in answer_spans(sentence, question, shape) if plausible(sentence, s, avoid)]
    if shape == "number" and (nouns := counted(question)):
        spans = [s for s in spans if counts(sentence, s, nouns)]  # an exact type match only
    if not spans:
        return sentence, None
    asked = _stems(question)
    anchors = [
        m.start() for m in re.finditer(r"\w+", sentence) if stem(base_form(m.group(0))) in asked
    ]
    spans = order_spans(
        spans, sentence, question, shape, anchors
    )  # "3.5 days" before "300,000 steps"
    chosen = sorted(spans[: 2 if re.search(r"\band\b", question) else 1])
    out, pos = [], 0
    for a, b in chosen:
        out.append(sentence[pos:a] + "**" + sentence[a:b] + "**")
        pos = b
    out.append(sentence[pos:])
    return "".join(out), sentence[chosen[0][0] : chosen[0][1]]


def _window(sentence: str, limit: int) -> str:
    """A sentence far over the limit is cut to its first ``limit`` words, marked with "…"."""
    words = sentence.split()
    return sentence if len(words) <= limit * 3 // 2 else " ".join(words[:limit]) + " …"


def _bold(sentence: str, span: str) -> str | None:
    """``sentence`` with ``span`` (whitespace-insensitive) in bold, or None if it is not there."""
    m = re.search(r"\s+".join(map(re.escape, span.split())), sentence)
    if m is None:
        return None
    return sentence[: m.start()] + "**" + m.group(0) + "**" + sentence[m.end() :]


def reader_span(question: str, sentence: str, read_spans: ReadSpans) -> str | None:
    """The reader's answer span in the quoted sentence, or None: it found none above its
    fitted margin, or the span is only words of the question (never emphasise what was asked)."""
    sp = read_spans(question, [sentence])[0]
    if sp is None:
        return None
    text = " ".join(sentence[sp.start : sp.end].split()).strip(" ,;:")
    said = _stems(text)
    return text if text and said and not said <= _stems(question) else None


def _lead_in(line: str) -> bool:
    """A line that ends by opening a list (": ") and labels no value of its own (a table
    row cut short at its chunk's end, "...; elpct:", is no lead-in)."""
    text = line.rstrip()
    return text.endswith(":") and ": " not in text


# a question of manner or reason, which a list's lead-in line may answer in part
_MANNER = re.compile(r"\W*(?:how\s+(?!many|much|long|old|far|often|big|large)\w+|why)\b", re.I)
_LABELLED = re.compile(r"^(?:[-*\u2022]\s+)?(?P<label>[^:\n]{2,60}?):\s+(?P<value>\S.*)$")


def _labelled(cons: Constraints, lines: Sequence[str], idf: Idf | None) -> int | None:
    """The first of ``lines`` written "label: value" whose label holds every noun of the
    question ("supported sample rates: 2 Msps to 20 Msps"), with a value that is no "-"."""
    nouns = set(key_terms(cons, idf).weights)
    if not nouns:
        return None
    for i, line in enumerate(lines):
        m = _LABELLED.match(line.strip())
        if not m or _UNKNOWN.fullmatch(m.group("value").strip()) or " row " in line:
            continue
        label = content_words(m.group("label"))
        if all(any(t == w or (len(t) >= 4 and w.startswith(t)) for w in label) for t in nouns):
            return i
    return None


def _not_found(bound: Sequence[Bound], evidence: Sequence[Evidence]) -> Extract:
    """ "The documents do not state it. No passage gives X; closest: "..." [n]."."""
    # the closest unit that lacks something says what: one that lacks nothing got here only
    # as a lone word ("4"), no line that states an answer
    closest = next((b for b in bound if b.missing), None)
    if closest is None:
        return Extract(NOT_STATED, (), (), found=False)
    n = evidence[closest.unit.n - 1].n
    quote = closest_quote(closest.unit.text)
    text = f"{NOT_STATED} No passage gives {described(closest.missing)}; closest: \u201c{quote}\u201d [{n}]."
    return Extract(text, (n,), (), found=False)


def extractive_answer(
    question: str,
    evidence: Sequence[Evidence],
    score_texts: Callable[[str, Sequence[str]], list[float]] | None = None,
    read_spans: ReadSpans | None = None,
    idf: Idf | None = None,
) -> Extract:
    """The one to three evidence sentences that best answer ``question``, quoted and cited.

    With ``read_spans`` (the reader's answer spans) and a question that asks for a short
    answer (it has an answer shape), the span in bold is the one the reader finds in the
    lead sentence; without one (none above its margin) it comes from the answer shape. The sentences are chosen the same way either way."""
    cons = read(question)
    # the question word's shape, else the slot its kind names ("which company": a name)
    shape = answer_shape(question) or (cons.slot if cons.slot in _SHAPED else None)
    asked = _stems(question)
    bound = bindings(cons, evidence, idf)
    complete = [b for b in bound if b.complete]
    if cons.slot == "choice":  # the lines that state the option the evidence makes
        made = choice_made(complete)
        complete = [b for b in complete if made is not None and b.filler == made]
    if complete and (marked := max(b.marked for b in complete)):
        # "which CVE": the lines whose thing shows the kind ("CVE-2021-27836") answer
        complete = [b for b in complete if b.marked == marked]
    if not complete:  # no unit holds every part of the question: say what is missing
        return _not_found(bound, evidence)
    if defined := definition_answer(question, [e.text for e in evidence]):
        # "What does GNPDEFL mean?": the line that defines it ("GNPDEFL - GNP deflator"),
        # which is short and capitalised like a heading, is the answer (crag/glossary)
        lines = defined[:2]  # two sources may define it differently: both are shown
        return Extract(
            " ".join(f"{line.rstrip('.')} [{evidence[i].n}]." for i, line in lines),
            tuple(dict.fromkeys(evidence[i].n for i, _ in lines)),
            tuple(line for _, line in lines),
        )

    # the candidates: the units that bind the question, each once; every unit of a passage
    # that binds a question asking for a description
    def place(b: Bound) -> tuple[int, str]:  # (evidence n, sentence key)
        return evidence[b.unit.n - 1].n, _key(b.unit.text)

    whole = {b.unit.n for b in complete if b.unit.position < 0}
    # the value under the header of years the question names; a "which" question's thing
    fillers = {
        place(b): b.filler
        for b in complete
        if b.filler and (b.unit.header or cons.slot in ("which", "choice"))
    }
    # a table row's figure in the column the question names ("Republican Active: 15281"):
    # what binding chose, before any guess of the reader's
    cells = {
        place(b): b.filler
        for b in complete
        if b.filler and b.filler == cell_value(b.unit.text, cons.question, b.unit.defined)
    }
    keys = {place(b) for b in complete if b.unit.position >= 0}
    # a unit holding every part itself beats one that borrows a name from its passage
    borrowed = {place(b) for b in complete if b.by_passage} - {
        place(b) for b in complete if not b.by_passage
    }
    # ... and one whose own words hold the question's required nouns beats one that holds
    # some only by its heading ("Minimum requirement" above an output-power table)
    keys_asked = key_terms(cons, idf)
    required = [t for t, _ in keys_asked.required]
    own = {place(b): sum(t in _stems(b.unit.text) for t in required) for b in complete}
    most = max(own.values(), default=0)
    by_heading = {p for p, n in own.items() if n < most}
    seen: set[str] = set()
    cands: list[tuple[int, int, str]] = []  # (evidence n, position, sentence)
    # every line and sentence was read into ``bound`` once (a binding each), in order
    in_order = sorted((b for b in bound if b.unit.position >= 0), key=lambda b: b.unit.key)
    # a passage bound as a whole: not its lines that speak of another period, number or
    # numbered thing than the question's ("1st Qtr" beside the "2nd Qtr" asked)
    exact = {p.text for p in cons.periods} | set(cons.numbers) | set(keys_asked.ordinals)
    other = {place(b) for b in bound if b.unit.position >= 0 and exact & set(b.missing)}
    for b in in_order:
        u, (n, key) = b.unit, place(b)
        in_whole = u.n in whole and (n, key) not in other
        if (in_whole or (n, key) in keys) and key not in seen and len(u.text.split()) >= 2:
            seen.add(key)
            cands.append((n, u.position, u.text))
    # a passage answers: its title lines are not the answer (but a "which" question's thing
    # may be named by a line alone: "MAX5864 ADC/DAC" in a list of parts)
    if whole or (shape is None and cons.slot not in FILLED):
        cands = [
            c for c in cands if not (is_heading(c[2]) or c[2] in lead_lines(evidence))
        ] or cands
    # a line that leads into a list ("The three RX gain controls are at these stages:")
    # states no value, name or date: its items do. It may answer how something is done
    # ("The kiln can be used in two modes:"), never what, which, who or how much
    if not _MANNER.match(question):
        cands = [c for c in cands if not _lead_in(c[2])]
    if not cands:
        return _not_found(bound, evidence)
    if (
        cell := cell_answer(
            question,
            [s for _, _, s in cands],
            [cells.get((n, _key(s))) for n, _, s in cands],
        )
    ) is not None:  # a row and column named
        if _UNKNOWN.fullmatch(cell.value.strip()):  # "NA": the table has no value there
            n = cands[cell.index][0]
            text = cell.text.replace("**", "")
            return Extract(
                f"{NOT_STATED} The table has no value there: {text} [{n}].", (n,), (), found=False
            )
        return Extract(
            f"{cell.text} [{cands[cell.index][0]}].",
            (cands[cell.index][0],),
            (cands[cell.index][2],),
            cell.value,
        )
    if (
        cons.slot in ("number", None)
        and (i := _labelled(cons, [c[2] for c in cands], idf)) is not None
    ):
        # "supported sample rates: 2 Msps to 20 Msps" for "the maximum sample rate": the line
        # that labels its value with what the question asks, before lines that only name it
        n, _, line = cands[i]
        return Extract(f"{line.rstrip('.')} [{n}].", (n,), (line,))
    weights = _weights(question, [s for _, _, s in cands])
    lexical = [_score(question, s, 0.0, shape, weights) for _, _, s in cands]
    top = sorted(range(len(cands)), key=lambda i: -lexical[i])[:CANDIDATES]
    graded = (
        dict(zip(top, score_texts(question, [cands[i][2] for i in top]))) if score_texts else {}
    )
    grade = {e.n: e.score for e in evidence}

    def relevance(i: int) -> float:
        """Graded evidence: the mean of the grader on the sentence, its words (IDF-weighted,
        as in the overlap) and its chunk; ungraded: the plain share of the question's words."""
        said = _stems(cands[i][2])
        if not graded:
            return _covered(asked, said)
        share = _covered(asked, said, lambda t: weights.get(t, 1.0))
        return (float(graded[i]) + share + grade.get(cands[i][0], 0.0)) / 3

    scores = {
        i: _score(question, cands[i][2], relevance(i), shape, weights)
        * (BORROWED if (cands[i][0], _key(cands[i][2])) in borrowed else 1.0)
        * (BY_HEADING if (cands[i][0], _key(cands[i][2])) in by_heading else 1.0)
        for i in top
    }
    ranked = sorted(top, key=lambda i: (-scores[i], cands[i][0], cands[i][1]))
    best, lead = ranked[0], scores[ranked[0]]
    # a line that binds by its context ("Linn Electronics, Inc." in the LinnSequencer's
    # sheet) holds the question's words there
    context = {place(b): f"{b.unit.near}\n{b.unit.document}" for b in complete}
    said_best = _stems(
        f"{cands[best][2]}\n{context.get((cands[best][0], _key(cands[best][2])), '')}"
    )
    if not asked & said_best and relevance(best) < 0.5:
        return Extract(NOT_STATED, (), (), found=False)
    chosen = [best]
    chosen_keys = [_key(cands[best][2])]
    answered = bool(answer_spans(cands[best][2], question, shape))
    words = len(cands[best][2].split())
    wanted = asked_items(question)
    near = LIST_NEAR if wanted > 1 else NEAR_BEST
    for i in ranked[1:]:
        if len(chosen) == MAX_SENTENCES or scores[i] < near * lead:
            break
        n_words = len(cands[i][2].split())
        if answered and not answer_spans(cands[i][2], question, shape):
            continue  # the best sentence holds the answer: add only others that hold one too
        key = _key(cands[i][2])
        if any(key in k or k in key for k in chosen_keys):
            continue  # the same sentence again, glued to a heading in another chunk
        if words + n_words <= MAX_WORDS and asked & _stems(cands[i][2]):
            chosen_keys.append(key)
            chosen.append(i)
            words += n_words
    if len(chosen) < wanted:  # a list goes on in the sentence after its lead
        src, pos = cands[best][:2]
        after = next((i for i, c in enumerate(cands) if c[:2] == (src, pos + 1)), None)
        if (
            after is not None
            and after not in chosen
            and words + len(cands[after][2].split()) <= MAX_WORDS
        ):
            chosen.append(after)
    parts, span = [], None
    for j, i in enumerate(chosen):
        n, _, sentence = cands[i]
        sentence = _window(
            sentence.replace("**", ""), MAX_WORDS
        )  # its own bold: never nested in ours
        # a short answer only for a question that asks for one (a number, date, name or
        # place: the answer shape); a descriptive answer is the quote itself
        found = (
            reader_span(question, sentence, read_spans) if j == 0 and read_spans and shape else None
        )
        if (
            j == 0
            and (filler := cells.get((n, _key(sentence))))
            and (bolded := _bold(sentence, filler))
        ):
            sentence, span = bolded, filler
        elif (
            j == 0
            and (entry := anchored_span(sentence, cons, shape))
            and (bolded := _bold(sentence, entry))
        ):
            sentence, span = bolded, entry  # the entry of a run-on line the question names
        elif found is not None and (bolded := _bold(sentence, found)) is not None:
            sentence, span = bolded, found
        elif (
            j == 0
            and (filler := fillers.get((n, _key(sentence))))
            and (bolded := _bold(sentence, filler))
        ):
            sentence, span = bolded, filler  # the value under the header the question names
        elif j == 0 and cons.slot == "which" and (filler := fillers.get((n, _key(sentence)))):
            # the thing is named by the passage's heading ("0.11.0"), not the line: say it
            span = filler
            sentence = f"Under \u201c{_bold(filler, filler)}\u201d: {sentence}"
        elif j == 0:
            sentence, span = _emphasise(
                sentence, question, shape, file_words(e.source for e in evidence)
            )
        # the marker goes before the full stop (or colon), and a final line break
        end = len(sentence.removesuffix("\n").rstrip(".!?:"))
        parts.append(f"{sentence[:end]} [{n}]{sentence[end:]}")
    cited = tuple(dict.fromkeys(cands[i][0] for i in chosen))
    first = next((b for b in complete if place(b) == (cands[best][0], _key(cands[best][2]))), None)
    if (
        span is not None
        and first is not None
        and (said := _column_meaning(first.unit, span, evidence))
    ):
        # a cell under a terse column ("hp: 335") is quoted with the codebook line that says
        # what the column means ("hp | Gross horsepower"), cited to the codebook
        line, k = said
        parts.append(f"{line.rstrip('.')} [{evidence[k - 1].n}].")
        cited = (*cited, evidence[k - 1].n)
    return Extract(" ".join(parts), cited, tuple(cands[i][2] for i in chosen), span)


def _column_meaning(unit: Unit, value: str, evidence: Sequence[Evidence]) -> tuple[str, int] | None:
    """The codebook's definition of the column of ``unit``'s row whose cell is ``value``,
    and the evidence item (1-based, as ``Unit.books``) that gives it; None for a row read
    without a codebook."""
    row = parse_row(unit.text) if unit.defined and unit.books else None
    if row is None:
        return None
    meaning = dict(unit.defined)
    names = [name.strip() for name, cell in row.cells if cell.strip().rstrip(".") == value.strip()]
    line = next((meaning[n] for n in names if n in meaning), None)
    k = next((k for k in unit.books if line and line in evidence[k - 1].text), None)
    return None if line is None or k is None else (line, k)
