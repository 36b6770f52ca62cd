"""Binding a question's constraints to one evidence unit: the check behind every answer.

A unit is one line or sentence of a passage, read with its context: the file's name, the
passage's heading and title line, where it is (slide, sheet, page) and, for a row of numbers
laid out under a header of years, that header. The unit **binds** the question when it,
with that context, holds every period, number and entity the question names (in the forms
``crag/constraints`` reads) and its key nouns, and, for a question that asks for a number,
date, name or place, a filler of that slot that the question does not already write. A
question that asks what a term means is bound by a line that defines the term, never by
rows that hold it as a column's name.

Key nouns are the question's content words that can be read as nouns (LemmInflect's
lexicon; a word it does not know counts as a noun). Verbs and adjectives ("spent",
"presented", "operating") are how the question is put, not what the answer must be about.
A noun that most passages of the library hold ("organization" in one organisation's
reports) tells no passage apart and is not required; a rare one ("insurance") and one no
passage holds at all ("rent") are. So "insurance in FY 2016" is not answered by the total
for FY 2019, and the answer says what it did not find and what it found instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePath
from typing import Protocol

from localcrag.crag.constraints import Constraints, number_value, read
from localcrag.textutil import (
    ARTICLES,
    BE_FORMS,
    DO_FORMS,
    STOPWORDS,
    base_form,
    content_words,
    dehyphenate,
    source_label,
    stem,
)
from localcrag.types import Decision, Grade

Idf = Callable[[str], "tuple[int, int]"]  # base form -> (document frequency, documents)
COMMON = 0.25  # a noun in at least this share of passages is not required
NOUN_SHARE = 0.5  # ... but the nouns a unit holds must still weigh more than this
FILLED = ("number", "date", "name")  # slots a unit must hold a filler of ("where" need not)
_NUM = re.compile(r"(?<![\w.])[-+(]?[$€£]?\d[\d,]*(?:\.\d+)?%?\)?(?![\w])")
_YEARISH = re.compile(r"^(?:19|20)\d\d$")


@lru_cache(maxsize=4096)
def _readings(word: str) -> frozenset[str]:
    """The parts of speech LemmInflect's lexicon gives ``word`` (empty: a word it lacks)."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word.lower()))


# Before a word that is both a noun and a verb ("rent", "set", "take"): a determiner or a
# preposition makes it a noun ("on rent"); a subject pronoun, an auxiliary, a modal or
# "to" makes it a verb ("did it take", "to rent"). English grammar, a closed class.
_NOUN_BEFORE = ARTICLES | frozenset(
    "of on for in at by with about per from into over under between among this that these "
    "those each every its their our your my his her".split()
)
_VERB_BEFORE = (
    BE_FORMS
    | DO_FORMS
    | frozenset(
        "it they we you i he she to can could will would shall should may might must has have "
        "had".split()
    )
)


def is_noun(words: Sequence[str], i: int) -> bool:
    """Is ``words[i]`` used as a noun? A word only a noun (or one the lexicon lacks: names,
    codes, jargon) is; one only a verb, adjective or adverb is not; one that can be both is
    read from the word before it, and the last word after a noun is a participle ("when
    was the budget set")."""
    readings = _readings(words[i])
    if not readings or readings <= {"NOUN", "PROPN"}:
        return True
    if "NOUN" not in readings:
        return False
    before = words[i - 1].lower() if i else ""
    if before in _NOUN_BEFORE:
        return True
    if before in _VERB_BEFORE or "VERB" not in readings:
        return before not in _VERB_BEFORE
    last = i == len(words) - 1
    if last and "VERB" in readings and any(w.lower() in DO_FORMS for w in words[:3]):
        return False  # "how long did the firing take": do-support, the verb comes last
    prior = _readings(before)
    return not (last and "NOUN" in prior and "ADJ" not in prior and _participle(words[i]))


@lru_cache(maxsize=4096)
def _participle(word: str) -> bool:
    """Is ``word`` a past participle of one of its verbs ("set", "written"; not "cake")?"""
    from lemminflect import getAllLemmas, getInflection

    return any(
        word.lower() in getInflection(lemma, tag="VBN")
        for lemma in getAllLemmas(word.lower()).get("VERB", ())
    )


@dataclass(frozen=True)
class Unit:
    """A line or sentence of one evidence item, with the context it is read in."""

    n: int  # the evidence item's number
    text: str
    context: str
    position: int  # its order in the evidence item
    header: str | None = None  # the header of years above a row of numbers


@dataclass(frozen=True)
class Bound:
    """How one unit binds a question: what it holds, what it lacks, what fills the slot."""

    unit: Unit
    missing: tuple[str, ...]  # the constraints not found, as the question wrote them
    filler: str | None  # the answer span of the asked slot, when the question asks one
    held: int  # constraints held (to rank partial bindings)
    by_passage: bool = False  # entities or nouns held by the unit's passage, not the unit

    @property
    def complete(self) -> bool:
        return not self.missing


@dataclass(frozen=True)
class KeyTerms:
    """The question's nouns (stems) a unit must hold, and all of them with their weights."""

    required: tuple[tuple[str, str], ...]  # (stem, the word as written)
    weights: dict[str, float]  # every noun's IDF weight, by stem
    words: dict[str, str]  # every noun as written, by stem


def key_terms(cons: Constraints, idf: Idf | None = None) -> KeyTerms:
    """The question's nouns: rare ones (or, without corpus statistics, none) are required,
    all of them weigh in by IDF."""
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", cons.question)
    at: dict[str, int] = {}
    for i, w in enumerate(words):
        at.setdefault(stem(base_form(w)), i)
    required, weights, written = [], {}, {}
    for t in cons.terms:
        where = at.get(t)
        if where is None or not is_noun(words, where):
            continue
        word = words[where]
        df, n = idf(base_form(word)) if idf else (0, 0)
        weights[t] = 1.0 if n <= 0 else max(0.1, math.log((n + 1) / (df + 0.5)))
        written[t] = word
        if n > 0 and df / n < COMMON:
            required.append((t, word))
    return KeyTerms(tuple(required), weights, written)


def _said(text: str) -> set[str]:
    """Stems a text holds, file-name words split at "_", "-" and camel case."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", re.sub(r"[_\-./]+", " ", text))
    return content_words(spaced) | content_words(text)


def _holds(said: set[str], term: str) -> bool:
    """Is ``term`` (a stem) among ``said``, whole or as an abbreviation of four letters or
    more ("temp" for "temperature", "precip" for "precipitation")?"""
    if term in said:
        return True
    return len(term) >= 4 and any(
        len(w) >= 4 and (term.startswith(w) or w.startswith(term)) for w in said
    )


def _has_entity(entity: str, text: str) -> bool:
    """Every word of the entity in the text, whole, any case; a code verbatim."""
    low = text.lower()
    for w in entity.split():
        if w.lower() in STOPWORDS:
            continue  # "t Stat of WATERTEMP": the names, not the "of"
        if re.search(r"(?<![\w])" + re.escape(w.lower()) + r"(?![\w])", low) is None and (
            len(w) < 4 or stem(base_form(w)) not in _said(text)
        ):
            return False
    return True


def _has_number(number: str, text: str) -> bool:
    value = number_value(number)
    return value is not None and any(
        number_value(m.group(0).strip("()$€£%+")) == value for m in _NUM.finditer(text)
    )


def header_years(lines: Sequence[str], i: int) -> str | None:
    """The nearest line above line ``i`` that is a header of two or more years ("2019
    2018", "FY2020 FY2019"), when line ``i`` is a row of numbers: its column headers."""
    if len(_NUM.findall(lines[i])) < 2:
        return None
    for j in range(i - 1, max(-1, i - 40), -1):
        years = re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", lines[j])
        if len(years) >= 2 and len(lines[j].split()) <= 3 * len(years) + 4:
            return lines[j]
    return None


def units(n: int, text: str, source: str, heading: str | None, locator: str | None) -> list[Unit]:
    """The lines and sentences of one evidence text, each with its context."""
    from localcrag.crag.grounding import evidence_sentences

    lines = [ln.strip() for ln in dehyphenate(text).split("\n")]
    first = next((ln for ln in lines if ln), "")
    title = first if len(first.split()) <= 14 and first[-1:] not in ".!?" else ""
    base = " ".join(x for x in (PurePath(source).stem, heading or "", title, locator or "") if x)
    out: list[Unit] = []
    seen: set[str] = set()
    pos = 0
    for i, line in enumerate(lines):
        if not line:
            continue
        head = header_years(lines, i)
        pieces = evidence_sentences(line) if len(line.split()) > 12 else [line]
        for piece in pieces:
            if piece in seen:
                continue
            seen.add(piece)
            out.append(Unit(n, piece, f"{base} {head}" if head else base, pos, head))
            pos += 1
    return out


def _column_value(unit: Unit, cons: Constraints) -> str | None:
    """The number under the header year the question asks for, in a row of numbers."""
    years = re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", unit.header or "")
    values = [m.group(0) for m in _NUM.finditer(unit.text) if not _YEARISH.match(m.group(0))]
    if len(years) < 2 or not values or not cons.periods:
        return None
    cols = years[-len(values) :] if len(values) <= len(years) else None
    if cols is None:
        return None
    for period in cons.periods:
        for k, y in enumerate(cols):
            if period.found_in(y):
                return values[len(values) - len(cols) + k]
    return None


def bind(cons: Constraints, unit: Unit, keys: KeyTerms, passage: str | None = None) -> Bound:
    """How ``unit`` binds ``cons`` (see the module docstring). With ``passage`` (the text
    of the unit's passage), entities and nouns may be held anywhere in it ("the Transformer"
    named in the paragraph, not in the sentence with the number); periods and numbers
    still in the unit or its context."""
    from localcrag.crag.extract import answer_spans
    from localcrag.crag.glossary import asked_term, definition_lines

    whole = f"{unit.text}\n{unit.context}"
    wide = f"{whole}\n{passage}" if passage else whole
    missing: list[str] = []
    held = 0
    for p in cons.periods:
        if p.found_in(whole):
            held += 1
        else:
            missing.append(p.text)
    for num in cons.numbers:
        if _has_number(num, whole):
            held += 1
        else:
            missing.append(num)
    term = asked_term(cons.question) if cons.slot == "meaning" else None
    for e in cons.entities:
        if _has_entity(e, wide):
            held += 1
        else:
            missing.append(e)
    filler: str | None = None
    if term is not None:
        lines = definition_lines(term, unit.text)
        filler = lines[0] if lines else None
        if filler is None:
            missing.append(f"a definition of {term}")
        return Bound(unit, tuple(missing), filler, held + bool(filler))
    said = _said(wide)
    lacking = [word for t, word in keys.required if not _holds(said, t)]
    total = sum(keys.weights.values())
    share = sum(w for t, w in keys.weights.items() if _holds(said, t)) / total if total else 1.0
    missing.extend(lacking)
    if share <= NOUN_SHARE and not lacking:  # the rare nouns held, too few of the rest
        missing.extend(keys.words[t] for t in keys.weights if not _holds(said, t))
    held += sum(_holds(said, t) for t in keys.weights)
    if unit.header and cons.slot in ("number", None):
        filler = _column_value(unit, cons)  # the value in the column of the asked year
    if cons.slot in FILLED:
        if filler is None:
            spans = answer_spans(unit.text, cons.question, cons.slot)
            own = {p.text for p in cons.periods} | set(cons.numbers)
            spans = [s for s in spans if unit.text[s[0] : s[1]] not in own]
            filler = unit.text[spans[0][0] : spans[0][1]] if spans else None
        if filler is None:
            missing.append(f"a {cons.slot}")
    return Bound(unit, tuple(missing), filler, held)


class Passage(Protocol):
    """What binding reads of an evidence item or a chunk."""

    @property
    def text(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def heading(self) -> str | None: ...
    @property
    def locator(self) -> str | None: ...


def _context(p: Passage) -> str:
    return " ".join(x for x in (PurePath(p.source).stem, p.heading or "", p.locator or "") if x)


def lines_asked(cons: Constraints) -> bool:
    """Is the question answered by one line or sentence (a short slot, a period or a number
    to match), rather than by a passage (a description)?"""
    return cons.slot is not None or bool(cons.periods or cons.numbers)


def _summary(text: str, cons: Constraints) -> bool:
    """A total or summary line ("Total expenses ...") that the question does not ask for: it
    never answers for one item by borrowing the item's name from its passage."""
    return bool(re.search(r"\b(?:total|subtotal|sum|overall)\b", text, re.I)) and not re.search(
        r"\b(?:total|subtotal|sum|overall|all)\b", cons.question, re.I
    )


def evidence_units(passages: Sequence[Passage]) -> list[Unit]:
    """The units of ``passages``, ``n`` = 1 + the passage's index (as ``bindings`` numbers them)."""
    return [
        u
        for i, p in enumerate(passages, 1)
        for u in units(i, p.text, p.source, p.heading, p.locator)
    ]


def bindings(
    question: str | Constraints, passages: Sequence[Passage], idf: Idf | None = None
) -> list[Bound]:
    """Every unit's binding, complete ones first, then by constraints held, then in order.
    Units are the passages' lines and sentences (``n`` = 1 + the passage's index) and, for a
    question that asks for a description, each whole passage too."""
    cons = read(question) if isinstance(question, str) else question
    keys = key_terms(cons, idf)
    found = evidence_units(passages)
    if not lines_asked(cons):
        found += [Unit(i, p.text, _context(p), -1) for i, p in enumerate(passages, 1)]
    out = []
    for u in found:
        b = bind(cons, u, keys)
        if not b.complete and u.position >= 0 and not _summary(u.text, cons):
            wide = bind(cons, u, keys, passages[u.n - 1].text)
            b = replace(wide, by_passage=True) if wide.complete else b
        out.append(b)
    return sorted(out, key=lambda b: (not b.complete, b.by_passage, -b.held))


def described(missing: Sequence[str]) -> str:
    """ "insurance, FY 2016" for the refusal's "no passage gives ..."."""
    return ", ".join(dict.fromkeys(missing))


def corpus_idf(stats: object | None) -> Idf | None:
    """``Idf`` from the grader's ``CorpusStats`` (its ``df`` and ``n_docs``), or None."""
    if stats is None:
        return None
    df, n = stats.df, stats.n_docs  # type: ignore[attr-defined]
    return lambda term: (df.get(term, 0), n)


def raise_bound(
    question: str, grades: list[Grade], upper: float, idf: Idf | None = None
) -> list[Grade]:
    """``grades`` with each passage that binds the whole question raised to ``upper``: one of
    its units holds every period, number and entity the question names, its key nouns and a
    filler of the asked slot. The grader scores topic; a row of numbers or a definition line
    holding all of that is relevant whatever it made of it. Only a question with something
    exact to match (a period, a number, an entity, a term whose meaning is asked) is raised:
    without one, "complete" would say little."""
    cons = read(question)
    if cons.hard == 0 or not lines_asked(cons):
        return grades
    out = []
    for g in grades:
        if g.score < upper:
            found = bindings(cons, [g.chunk], idf)
            if found and found[0].complete and (found[0].filler or cons.slot not in FILLED):
                g = replace(g, score=upper)
        out.append(g)
    return out


def unbound_note(decision: Decision) -> str:
    """What no passage holds and what came closest, for a refusal: "No passage gives
    insurance, FY 2016; closest: “Insurance 12,345 11,200” (2019 report.pdf, p. 11)."."""
    text = f"No passage gives {described(decision.missing)}"
    chunk = decision.closest_chunk
    if decision.closest and chunk is not None:
        quote = " ".join(decision.closest.split())
        quote = quote if len(quote) <= 200 else quote[:200].rsplit(" ", 1)[0] + " …"
        where = source_label(chunk.source, chunk.page_start, locator=chunk.locator)
        text += f"; closest: \u201c{quote}\u201d ({where})"
    return text + "."
