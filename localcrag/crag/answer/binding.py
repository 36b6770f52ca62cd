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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import PurePath
from typing import Protocol

from localcrag.crag.answer.cells import dates, flag
from localcrag.crag.answer.codebook import Passage as BookPassage
from localcrag.crag.answer.codebook import codebooks, row_definitions
from localcrag.crag.answer.constraints import (
    FRAMING,
    MONTH_YEAR,
    Constraints,
    Period,
    number_value,
    ordinal_names,
    read,
    setting_end,
    unexplained,
)
from localcrag.crag.answer.glossary import asked_term, definition_lines
from localcrag.crag.answer.grounding import evidence_sentences
from localcrag.crag.answer.shapes import answer_spans
from localcrag.ingest.formats import called
from localcrag.textutil import (
    ORDINAL_WORDS,
    PRONOUNS,
    STOPWORDS,
    base_form,
    content_words,
    dehyphenate,
    folded,
    source_label,
    stem,
)
from localcrag.textutil.labels import ABOUT, split_heading
from localcrag.textutil.places import code_as_cell, region_codes
from localcrag.textutil.pos import is_noun, readings, superlative
from localcrag.textutil.quantities import (
    Kind,
    asked_kind,
    figure_kind,
    named_unit,
    ratio_after,
    ratio_measures,
    writes_unit,
)
from localcrag.types import Decision, Grade

Idf = Callable[[str], "tuple[int, int]"]  # base form -> (document frequency, documents)
COMMON = 0.25  # a noun in at least this share of passages is not required
# a one-word name in at least this share of passages is what the library is about ("Anthropic"
# in its own docs, which mostly say "our"): no passage need repeat it. One in fewer passages
# is a topic of some of them ("Dyrrachium" in 5 of 99 SQuAD paragraphs): required
LIBRARY_NAME = 0.15
NOUN_SHARE = 0.5  # ... but the nouns a unit holds must still weigh more than this
FILLED = ("number", "date", "name", "which", "choice")  # slots a unit must hold a filler of
ABOUT_SLOTS = ("date", "name", None)  # what a document's own line may answer (ingest/about)
# a thing named in a text: a token with a digit, an all-capitals code, a snake_case or
# dotted identifier, or a capitalised word that does not start the text
_THING = re.compile(
    r"(?<![\w.-])(?:[\w.-]*\d[\w.:-]*|[A-Z]{2,}\w*|\w+_\w+)(?![\w-])|(?<=[a-z0-9,;:] )[A-Z][a-z]\w+"
)
_NUM = re.compile(r"(?<![\w.])[-+(]?[$€£]?\d[\d,]*(?:\.\d+)?%?\)?(?![\w])")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
QUOTE_CHARS = 200  # a closest line longer than this is cut at a word, marked "…"
_ITEM = re.compile(r"^(?:[-*\u2022]|\d{1,3}[.)])\s")  # a list item's marker
_YEARISH = re.compile(r"^(?:19|20)\d\d$")


@dataclass(frozen=True)
class Unit:
    """A line or sentence of one evidence item, with the context it is read in."""

    n: int  # the evidence item's number
    text: str
    context: str
    position: int  # its order in the evidence item
    header: str | None = None  # the header of years above a row of numbers
    label: str = ""  # the passage's heading and title line (its context without the file)
    # what its document is (title, authors, running header: ingest/about): the report,
    # place and period every passage of it belongs to
    document: str = ""
    # what the line itself is about: its section (the last heading of its path), the
    # passage's title line, the list caption above it and the header of its column(s), as
    # against the file's name and its document's title, which every line of it shares
    near: str = ""
    # its columns' definitions in its table's codebook ((column, "Army: Estimated ..."));
    # they are in its context and near too (crag/answer/codebook)
    defined: tuple[tuple[str, str], ...] = ()
    books: tuple[int, ...] = ()  # the evidence items (``n``) that give those definitions
    # the sentence before it in its paragraph: what it goes on about ("As amended, section
    # 108 permits up to three copies" after the sentence on preservation copies)
    before: str = ""
    ext: str = ""  # its file's extension (".png"): what kind of file it is

    @property
    def key(self) -> tuple[int, int]:
        """Its place: the evidence item, then its order in it."""
        return self.n, self.position


@dataclass(frozen=True)
class Bound:
    """How one unit binds a question: what it holds, what it lacks, what fills the slot."""

    unit: Unit
    missing: tuple[str, ...]  # the constraints not found, as the question wrote them
    filler: str | None  # the answer span of the asked slot, when the question asks one
    held: int  # constraints held (to rank partial bindings)
    by_passage: bool = False  # entities or nouns held by the unit's passage, not the unit
    # how its filler shows the asked kind: 2 written with its noun ("CVE-2021-27836" for
    # "which CVE"), 1 right after it ("range = A5:F15"), 0 not at all
    marked: int = 0

    @property
    def complete(self) -> bool:
        return not self.missing


@dataclass(frozen=True)
class KeyTerms:
    """The question's nouns (stems) a unit must hold, and all of them with their weights."""

    required: tuple[tuple[str, str], ...]  # (stem, the word as written)
    weights: dict[str, float]  # every noun's IDF weight, by stem
    words: dict[str, str]  # every noun as written, by stem
    rare: dict[str, str] = field(default_factory=dict)  # a name of 3+ words -> its rarest word
    names: tuple[str, ...] = ()  # the names a unit must hold (not those the library is about)
    # the nouns a format's files are called by ("screenshot", "workbook"), by stem -> the
    # extensions of those files: a line of such a file holds them (ingest/formats)
    kinds: dict[str, frozenset[str]] = field(default_factory=dict)
    # the things the question numbers, as written -> (the noun's stem, its number):
    # "second item" -> ("item", 2), "4th district" -> ("district", 4)
    ordinals: dict[str, tuple[str, int]] = field(default_factory=dict)


# a quantity's bound is part of the quantity asked: "minimum output power" is not the
# output power of another test; tables write the bounds short ("Min", "Max")
_BOUNDS = {"minimum": "min", "maximum": "max"}


# English for a bound: "up to 20 images" is a maximum, "at least 8 GB" a minimum
_BOUND_SAID = {
    "maximum": re.compile(r"\b(?:up to|at most|no more than|not (?:to )?exceed)\b", re.I),
    "minimum": re.compile(r"\b(?:at least|no less than|no fewer than)\b", re.I),
}
# a range of figures ("2 Msps to 20 Msps", "1.8–3.6 V"): its ends are its minimum and maximum
_SPAN_OF = re.compile(r"\d[\d,.]*\s*[A-Za-zµ/%]*\s*(?:to|\u2013|\u2014|-)\s*[-+]?\d")


def _modifies(words: Sequence[str], i: int) -> bool:
    return (
        i + 1 < len(words)
        and "ADJ" in readings(words[i])
        and is_noun(words, i + 1)
        and words[i + 1].lower() not in STOPWORDS
    )


def key_terms(cons: Constraints, idf: Idf | None = None) -> KeyTerms:
    """The question's nouns. Rare ones (in under ``COMMON`` of the passages) and codes no
    dictionary has (a column's name repeats in every row of its table: never common) are required;
    all weigh in by IDF. A noun no passage of the library holds is unknowable: a paraphrase
    ("deficit") or a thing the library lacks ("rent"); it weighs nothing, unless every noun
    of the question is such a noun (then nothing in the library is about it), or it narrows
    a noun the library holds, before it or as a compound ("identity theft", "cybercrime": the
    library knows theft and crime, never that kind of them; quoting "larceny-theft" would
    answer another question). Without corpus statistics no noun is required."""
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", cons.question)
    at: dict[str, int] = {}
    for i, w in enumerate(words):
        at.setdefault(stem(base_form(w)), i)
    nouns: list[tuple[str, str, int, int, bool]] = []  # (stem, word, df, n, modifier)
    bounds = []
    for t in cons.terms:
        where = at.get(t)
        if where is not None and words[where].lower() in _BOUNDS:
            word = words[where]
            df, n = idf(word.lower()) if idf else (0, 0)
            if df or not n:  # a bound the library writes somewhere
                bounds.append((t, word))
            continue
        if where is not None and _modifies(words, where):
            continue  # "key advantages", "main steps": an adjective before its noun
        if where is not None and is_noun(words, where):
            word = words[where]
            df, n = idf(base_form(word)) if idf else (0, 0)
            # "key benefit", "status code": a noun before its head noun modifies it
            head = (
                where + 1 < len(words)
                and not re.search(r"['\u2019]s$", word)  # "the diarist's division": its owner
                and words[where + 1].lower() not in STOPWORDS
                and is_noun(words, where + 1)
            )
            nouns.append((t, word, df, n, head))
    unknown_only = bool(nouns) and all(n > 0 and df == 0 for _, _, df, n, _ in nouns)
    # the modifiers whose head noun the library holds; a modifier it knows before a head it
    # never writes ("running mate") is a paraphrase with it
    known_heads = {
        t
        for t, _, _, _, modifier in nouns
        if modifier
        and idf is not None
        and (pos := at.get(t)) is not None
        and idf(base_form(words[pos + 1]))[0] > 0
    }
    kinds_of = _kind_nouns_of_names(cons.question)
    required, weights, written = [], {}, {}
    for t, word, df, n, modifier in nouns:
        known = "NOUN" in readings(word)  # ("to guage complexity": no noun the lexicon knows)
        # a modifier the library lacks narrows its noun ("identity theft", "atmosphere
        # measurements"): required
        if n > 0 and df == 0 and not ((modifier and known) or unknown_only or _narrows(word, idf)):
            continue  # a paraphrase ("deficit") or a thing the library lacks: unknowable
        if n > 0 and df > 0 and modifier and t not in known_heads and not unknown_only:
            continue  # "running mate": a word it knows before one it never writes, put otherwise
        if t in kinds_of:
            continue  # "the Page.find_table method": what the named thing is; the name binds
        weights[t] = 1.0 if n <= 0 else max(0.1, math.log((n + 1) / (df + 0.5)))
        written[t] = word
        if n <= 0 or (modifier and df > 0):
            continue  # "key benefit", "status code": it weighs in, but only its head is required
        if not readings(word) and len(word) >= 4:
            required.append((t, word))  # a code or name no dictionary has ("expnstu")
        elif df / n < COMMON and "ADJ" not in readings(word):  # "maximum": modifies
            required.append((t, word))
    rare, names = {}, []
    for e in cons.entities:
        parts = _entity_words(e)
        if idf and len(parts) >= 3:
            rare[e] = min(parts, key=lambda w: idf(base_form(w.lower()))[0])
        # ("Claude API" in Claude's docs: every word of it is theirs); a numbered name
        # ("Band I", "Power Class 1") tells its rows apart by its number, however common
        # its noun
        if not idf or numbered_names(e) or not all(_library_word(w, idf) for w in parts):
            names.append(e)
    if not lines_asked(cons):  # a description: most of its nouns, no word in particular
        required = [(t, w) for t, w in required if not readings(w)]
    else:
        required += bounds
        for t, word in bounds:
            weights[t], written[t] = 1.0, word
    kinds = {t: exts for t in weights if (exts := called(t))}
    ordinals = {m.group(0): (t, n) for m, t, n in _ordinal_nouns(cons.question)}
    return KeyTerms(tuple(required), weights, written, rare, tuple(names), kinds, ordinals)


# a name written as code: a dot, underscore or call inside it ("Page.find_table", "Solar.R",
# "open()"), letters with digits ("1040NR", "0.11.0"), or a capital inside lower case
_CODE_NAME = re.compile(
    r"^(?:\w+[._]\w[\w._]*|\w+\(\)|(?=.*\d)(?=.*[A-Za-z.])[\w.]+|[a-z]+[A-Z]\w*)$"
)
_QUOTED_NAME = re.compile(
    r"(?<!\w)'(?:[^']|'(?=\w)){3,80}?'(?!\w)|\"[^\"]{3,80}\"|\u2018[^\u2019]{3,80}\u2019(?!\w)|\u201c[^\u201d]{3,80}\u201d"
)


def _kind_nouns_of_names(question: str) -> set[str]:
    """The stems of the words set right beside a name written as code or a quoted title
    ("the Page.find_table method", "version 0.11.0", "the 1961 publication 'The World's
    Telephones'"): they say what kind of thing the name is. The name itself is the
    constraint; a passage that lists it seldom repeats its kind ("Add Page.find_table(...)")."""
    text = _QUOTED_NAME.sub(" QUOTEDNAME ", question)
    tokens = [t.strip('?,;:!"\u201c\u201d') for t in text.split()]
    out: set[str] = set()
    for i, token in enumerate(tokens):
        plain = re.sub(r"['\u2019]s$", "", token).rstrip(".")
        if token != "QUOTEDNAME" and not (_CODE_NAME.match(plain) and not _YEARISH.match(plain)):
            continue
        for j in (i - 1, i + 1):  # a noun of the lexicon: a kind ("pdfplumber 0.4.0" names)
            if 0 <= j < len(tokens) and re.fullmatch(r"[a-z]+", tokens[j]):
                if "NOUN" in readings(tokens[j]):
                    out.add(stem(base_form(tokens[j])))
    return out


def _narrows(word: str, idf: Idf | None) -> bool:
    """Is ``word`` a compound ending in a noun the library holds ("cybercrime": a kind of
    crime), so a kind of a known thing rather than a paraphrase of one?"""
    low = word.lower()
    return idf is not None and any(
        "NOUN" in readings(low[i:]) and idf(base_form(low[i:]))[0] > 0
        for i in range(3, len(low) - 3)
    )


def _library_word(word: str, idf: Idf) -> bool:
    """Is ``word`` in at least ``LIBRARY_NAME`` of the passages: what the library is about?"""
    df, n = idf(base_form(word.lower()))
    return n > 0 and df / n >= LIBRARY_NAME


def _address(token: str) -> bool:
    """A web or e-mail address: its letters spell a name, not words of the text."""
    return "@" in token or token.lower().startswith(("http://", "https://", "www."))


def _said(text: str) -> set[str]:
    """Stems a text holds, file-name words split at "_", "-" and camel case; addresses
    left out ("www.votestickit.com" holds no "vote")."""
    if "@" in text or "http" in text or "www." in text:
        text = " ".join(t for t in text.split() if not _address(t))
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", re.sub(r"[_\-./]+", " ", text))
    return content_words(spaced) | content_words(text)


def _points_back(text: str) -> bool:
    """Does ``text`` hold a pronoun that names something said before it ("it", "they")?
    "that" does not: it relates within its own sentence ("a map that Mike received")."""
    return any(w in PRONOUNS and w != "that" for w in re.findall(r"[a-z]+", text.lower()))


def _names(text: str) -> bool:
    """Does ``text`` name someone or something of its own: a word in capitals that does not
    start it or a sentence of it ("Earlier Viking settlers ...") and is no unit after a
    figure ("3.3 V", "1 MHz")?"""
    words = text.split()
    return any(
        w[:1].isupper()
        and not words[i - 1].endswith((".", ":", "!", "?"))
        and not any(c.isdigit() for c in words[i - 1])
        for i, w in enumerate(words)
        if i
    )


def _holds(said: set[str], term: str) -> bool:
    """Is ``term`` (a stem) among ``said``, whole or as an abbreviation of four letters or
    more ("temp" for "temperature", "precip" for "precipitation")?"""
    if term in said or (term in _BOUNDS and _BOUNDS[term] in said):
        return True
    return len(term) >= 4 and any(
        len(w) >= 4
        and (term.startswith(w) or w.startswith(term))
        or (len(term) >= 5 and term in w)  # "crime" in a file named "statecrime"
        for w in said
    )


def _entity_words(entity: str) -> list[str]:
    """The words of a name that name ("HackRF One's" -> HackRF, One; not "of")."""
    out = []
    for w in entity.split():
        w = re.sub(r"['’]s$", "", w)
        if w.lower() not in STOPWORDS:
            out.append(w)
    return out


def numbered_names(text: str) -> list[tuple[str, str]]:
    """The numbered names ``text`` writes, as (noun, number): "Power Class 1" -> (Class, 1),
    "Band I" -> (Band, I), a Roman numeral in capitals counting as a number."""
    written = re.findall(r"([A-Za-z]+)\s+(\d[\w.]*|(?-i:[IVX]+)\b)", text)
    return written + [(noun, number) for noun, number, _ in ordinal_names(text)]


def another_number(name: str, asked: Sequence[tuple[str, str]]) -> bool:
    """Does ``name`` (a column's) write a numbered name the question writes (``asked``, its
    ``numbered_names``) with another number ("Power Class 4" for "Power Class 1")?"""
    for noun, number in numbered_names(name):
        same = [n for w, n in asked if w.lower() == noun.lower()]
        if same and number.lower() not in (n.lower() for n in same):
            return True
    return False


def _has_entity(entity: str, text: str, rare: str | None = None) -> bool:
    """The name in the text, whole words, any case: every word of it; or, with ``rare``
    (its rarest word in the library), that word and at least half of the others ("the
    Anthropic Developer Console" named "the Developer Console"); a region's name also as its
    code in a cell ("Texas" as "STATE: TX;")."""
    if any(code_as_cell(code, text) for code in region_codes(entity)):
        return True
    if _by_surname(entity, text):
        return True
    # "Germán" in "CORVINO GERMAN HORACIO"
    entity, text, rare = folded(entity), folded(text), rare and folded(rare)
    low = text.lower()
    said: set[str] | None = None  # the text's stems, read once and only when a word needs them

    def has(w: str) -> bool:
        nonlocal said
        if re.search(r"(?<![\w])" + re.escape(w.lower()) + r"(?![\w])", low):
            return True
        parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", w)
        if len(parts) > 1 and "".join(parts) == re.sub(r"[-_.]", "", w):
            # "WorldPhones" as "World Phones", "DOP-1013A" as a file name's "DOP 1013A"
            joined = r"[\s_.-]?".join(re.escape(p.lower()) for p in parts)
            if re.search(r"(?<![\w])" + joined + r"(?![\w])", low):
                return True
        if len(w) < 4:
            return False
        said = _said(text) if said is None else said
        return stem(base_form(w)) in said

    # a numbered name holds its number beside its noun ("District 10", "Power Class 4"):
    # "Legislative District 7 ... Precincts: 10" is another district
    for noun, number in numbered_names(entity):
        if not re.search(
            rf"\b{re.escape(noun)}\W{{1,3}}{re.escape(number)}(?!\w|\.\w)"
            rf"|\b{re.escape(number)}(?:st|nd|rd|th)\s+(?:[\w-]+\s+){{0,2}}{re.escape(noun)}\b",
            text,
            re.I,
        ):
            return False
        if re.fullmatch(rf"{re.escape(noun)}\s+{re.escape(number)}", entity, re.I):
            return True  # "District 4" (asked as "the 4th district"): its number is all of it
    words = _entity_words(entity)
    if rare is None:
        return all(has(w) for w in words)
    return has(rare) and 2 * sum(has(w) for w in words) >= len(words)


# a person's name as a question writes it: two or three capitalised words, a middle
# initial allowed ("Kamala Harris", "Donald J. Trump")
_PERSON = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z]+){1,2}")


def _by_surname(entity: str, text: str) -> bool:
    """Does a table row name the person ``entity`` by surname alone, as the name of one of
    its columns, in capitals ("HARRIS: 707,278" for "Kamala Harris")? A results table heads
    each candidate's column so; prose that says "Harris" alone may mean anyone, and
    "County: Iowa" names no "Story County"."""
    if not _PERSON.fullmatch(entity) or region_codes(entity):
        return False
    surname = entity.split()[-1].upper()
    return any(
        name.strip() == surname
        for line in text.splitlines()
        if surname in line
        for name, _ in _row_pairs(line)
    )


def figures(text: str) -> set[float]:
    """The values of the figures ``text`` writes ("12,345", "$1.2", "(40)")."""
    out = set()
    for m in _NUM.finditer(text):
        value = number_value(m.group(0).strip("()$€£%+"))
        if value is not None:
            out.add(value)
    return out


def _has_number(number: str, text: str) -> bool:
    """Is ``number`` a figure of ``text``, its sign set apart or not ("- 10 MHz" for -10)?"""
    value = number_value(number)
    if value is None:
        return False
    # a sign set apart, not a range's dash ("5 - 10 MHz")
    signed = re.sub(r"(?<![\w.])(?<!\d\s)([-+\u2212])\s+(?=\d)", r"\1", text)
    return value in figures(text) or value in figures(signed)


def table_header(lines: Sequence[str], i: int) -> str | None:
    """The first line of the run of " | " lines that line ``i`` belongs to (a table read
    from HTML, Markdown or a slide): its column headers, when line ``i`` is a later row."""
    if " | " not in lines[i]:
        return None
    j = i
    while j > 0 and " | " in lines[j - 1]:
        j -= 1
    return lines[j] if j < i else None


def header_years(lines: Sequence[str], i: int) -> str | None:
    """The nearest line above line ``i`` that is a header of two or more years ("2019
    2018", "FY2020 FY2019"), when line ``i`` is a row of numbers: its column headers."""
    if len(_NUM.findall(lines[i])) < 2:
        return None
    for j in range(i - 1, max(-1, i - 40), -1):
        years = _YEAR.findall(lines[j])
        if len(years) >= 2 and len(lines[j].split()) <= 3 * len(years) + 4:
            return lines[j]
    return None


def units(n: int, text: str, source: str, heading: str | None, locator: str | None) -> list[Unit]:
    """The lines and sentences of one evidence text, each with its context: the file, the
    heading, the passage's title line, the line that introduces it (a short line ending in a
    colon: a list's caption) and the headers of its table."""
    document, heading = split_heading(heading)
    lines = [ln.strip() for ln in dehyphenate(text).split("\n")]
    first = next((ln for ln in lines if ln), "")
    title = first if len(first.split()) <= 14 and first[-1:] not in ".!?" else ""
    base = _context(source, heading, locator, title)
    ext = _ext(source)
    label = " ".join(x for x in (heading or "", title) if x)
    # the section a line is in: the last of its heading's path ("Profits > Source": Source)
    section = " ".join(x for x in ((heading or "").rsplit(" > ", 1)[-1], title) if x)
    out: list[Unit] = []
    seen: set[str] = set()
    pos = 0
    lead = ""  # the line that introduces those after it ("Major parts used in HackRF One:")
    for i, line in enumerate(lines):
        if not line:
            continue
        head = header_years(lines, i)
        columns = table_header(lines, i)
        context = " ".join(x for x in (base, lead, head, columns) if x)
        near = " ".join(x for x in (section, lead, head, columns) if x)
        following = next((ln for ln in lines[i + 1 :] if ln), "")
        if line.endswith(":") and (len(line.split()) <= 14 or _ITEM.match(following)):
            lead = line  # a caption of the list or lines below it (any length before items)
        long = len(line.split()) > 12 and not line.startswith(ABOUT)  # one unit, read whole
        pieces = evidence_sentences(line) if long else [line]
        if long and len(pieces) > 1 and _ITEM.match(line):
            pieces.append(line)  # a list item is one entry too: its change and who made it
        before = ""
        for piece in pieces:
            if piece in seen:
                continue
            seen.add(piece)
            out.append(
                Unit(n, piece, context, pos, head, label, document, near, before=before, ext=ext)
            )
            before = piece if piece != line else ""
            pos += 1
    return out


def _years(text: str) -> set[str]:
    return set(_YEAR.findall(text))


def _thing(text: str, cons: Constraints, names: bool = True) -> str | None:
    """The first thing ``text`` names that the question does not (a "which" question's
    filler: "MAX5864", "0.11.0", "hackrf_clock"); ``names=False``: codes and numbers only
    (a heading capitalises every word)."""
    asked = cons.question.lower()
    if row := _ROW.search(text):
        text = row.group(1)  # a row's place ("f1040nr_2007.pdf, p. 3, row 74:") names no thing
    for m in _THING.finditer(text):
        found = m.group(0).strip(".-")
        if not names and not re.search(r"\d|_", found):
            continue  # a heading's capitals ("FAQ") name its section, not a thing
        if found.isdigit() and len(found) <= 3 and not _kind_before(text, m.start(), cons):
            # a short bare number is a thing of the asked kind only after its kind's noun
            # ("channel 11"); else it numbers something else: a heading's section or page
            # ("26"), another kind's ("box 3" for "which filing status")
            continue
        if dates(found):
            continue  # "2024-09-15" is when, never which (a date is asked as a date slot)
        if found and found.lower() not in asked:
            return found
    return None


def _kind_before(text: str, at: int, cons: Constraints) -> bool:
    """Is the word right before ``at`` the noun of the kind the question asks ("which
    channel": "channel 11")?"""
    before = re.findall(r"[A-Za-z]+", text[max(0, at - 40) : at])
    if not (cons.kind and before):
        return False
    return stem(base_form(before[-1].lower())) == stem(base_form(cons.kind.lower()))


def _kind_thing(text: str, cons: Constraints) -> tuple[str, int] | None:
    """The thing ``text`` names as of the asked kind, which the question does not name, and
    how: 2 written with the kind's noun ("CVE-2021-27836" for "which CVE"), 1 naming the
    noun from right before it ("the Iris dataset"; a bare number there counts, "1 President")
    or right after it with no word between ("range = "arts!A5:F15"" for "which cell range";
    "the dataset in Julia" names a language, not a dataset); None when none is."""
    word = _kind_head(cons)
    if word is None or len(word) < 2:
        return None
    word, asked = word.lower(), cons.question.lower()
    nouns = _kind_nouns(word, text)
    best: tuple[str, int] | None = None
    for m in _THING.finditer(text):
        found = m.group(0).strip(".-:")
        if not found or found.lower() in asked or dates(found):
            continue  # (a date is when, never which)
        if found.lower().startswith(word):
            return found, 2
        if best is None and any(_beside(text, n, m) for n in nouns):
            best = found, 1
    return best


def _kind_head(cons: Constraints) -> str | None:
    """The noun of the asked kind ("range" of "cell range"), as the question writes it."""
    head = (cons.kind or "").split()[-1:]
    return head[0] if head else None


def _kind_nouns(word: str, text: str) -> list[re.Match[str]]:
    """Where ``text`` writes the kind's noun ``word``, singular or plural."""
    return list(re.finditer(rf"\b{re.escape(word)}s?\b", text, re.I))


def _beside(text: str, noun: re.Match[str], thing: re.Match[str]) -> bool:
    """Does ``thing`` name the kind's ``noun``: right before it with only space between,
    and a word, not a bare count ("the Iris dataset", never "1 President"); or right after
    it with no word of its own between (:func:`_apposed`)?"""
    if noun.end() <= thing.start():
        return _apposed(text[noun.end() : thing.start()])
    return (
        thing.end() <= noun.start()
        and not text[thing.end() : noun.start()].strip()
        and re.search(r"[^\W\d_]", thing.group(0)) is not None
    )


def _apposed(gap: str) -> bool:
    """Does ``gap``, between a kind's noun and a thing after it, set the thing beside the
    noun (a space, "=", ":", a quote, the sheet its reference is on: ' = "arts!'), no
    word of its own between them ("in", "by")?"""
    return len(gap) <= 12 and not re.search(r"[^\W\d_]+\s", gap)


# a table row as its sentence writes it: "<where>, row 4 (Polk): County: Polk; Total: 9."
_ROW = re.compile(r"\brows? \d+(?:\s*\([^)]*\))?: (.+)$")
# a question about a table's columns themselves ("which columns does it have?")
_COLUMNS_ASKED = re.compile(
    r"\b(?:which|what|list)\s+(?:the\s+)?(?:columns|fields|variables|headers)\b"
    r"|\b(?:columns|fields|variables|headers)\s+(?:does|do|are|did)\b",
    re.I,
)
# a table's header as its line writes it (ingest/tables.header_line): names, never values
_COLUMNS = re.compile(r"^[^\n]*?, columns: ")


# words before a noun that sum rather than narrow it ("TOTAL VOTES" counts every vote)
_SUMMING = frozenset("total subtotal grand overall all net sum".split())


def _cells(text: str) -> tuple[str | None, list[tuple[str, str]], int]:
    """A table row's sentence read once: its label ("row 4 (Polk)": Polk; None without one),
    its cells as (column name, value) and how many pieces it has ("; " apart); no cells
    for a text that is no row."""
    m = _ROW.search(text)
    if not m:
        return None, [], 0
    lab = re.search(r"\brows? \d+\s*\(([^)]*)\):", text)
    out, pieces = _pairs(m.group(1))
    return (lab.group(1).strip() if lab else None), out, pieces


def _pairs(body: str) -> tuple[list[tuple[str, str]], int]:
    """A row's body ("County: Polk; Total: 9.") as (column name, value) for its pieces that
    name their column, and how many pieces ("; " apart) it has."""
    pieces = body.rstrip(".").split("; ")
    named = (piece.rpartition(": ") for piece in pieces)
    return [(name, value.strip()) for name, colon, value in named if colon], len(pieces)


def _row_cells(text: str) -> list[tuple[str, str]]:
    """A table row's sentence as (column name, figure) for its cells that hold a figure."""
    return [(name, value) for name, value in _cells(text)[1] if _NUM.fullmatch(value)]


def _row_values(text: str) -> list[str]:
    """What a table row holds: its label ("row 4 (Polk)") and every cell's value; a row of
    one cell, its name too (a table of labels and values: "Observations: 21")."""
    label, cells, pieces = _cells(text)
    out = [label] if label is not None else []
    for name, value in cells:
        if value:
            out.append(value)
        if pieces == 1:  # a label and its value ("Observations: 21")
            out.append(name.strip())
    return out


def _another_month(period: Period, text: str) -> bool:
    """Does ``text`` itself date what it says by a month of a year other than ``period``
    ("OCT 2023" in a row, for "January 2023", which the file's name "jan2024" and the row's
    year would otherwise make up between them)?"""
    dated = [m.group(0) for m in MONTH_YEAR.finditer(text)]
    return bool(dated) and not any(period.found_in(d) for d in dated)


_TIME_COLUMN = re.compile(r"\b(?:years?|yr|dates?|period|time|month|quarter)\b", re.I)
_OWNER_OF_NAME = re.compile(r"\b[A-Z][\w-]*['\u2019]s\s+(?=[A-Z])")


def _names_row(cons: Constraints, text: str) -> bool:
    """Does the question name the table row ``text`` is, by one of its values ("burglary"
    for "Offense charged: Burglary", "2013/07/15" for its date, "Alabama" for "STATE: AL")?
    A row the question names by nothing ("Fraud" for "arrests for cybercrime") is another
    row, however well its columns and its table's title bind the question."""
    values = [v for v in _row_values(text) if not MONTH_YEAR.fullmatch(v.strip())]
    if not values:  # a period ("OCT 2023") is checked as a period, never names the row
        return True
    # an owner of another name ("Iowa's US Representative District 1") places the name it
    # owns; it names no row of its own ("County: Iowa" is a county of the district)
    naming = _OWNER_OF_NAME.sub(" ", cons.question)
    asked = _said(naming)
    low = naming.lower()
    codes = {c for e in cons.entities for c in region_codes(e)}
    # the question's years name a row as its label or in a column of years or dates
    # ("year: 2008", "YEAR: 1950"); a count that happens to equal one ("No Party Active:
    # 2020") is no name of "July 2020"'s row
    years = {y for p in cons.periods for y in _years(p.text)}
    dated = {v for name, v in _row_pairs(text) if _TIME_COLUMN.search(name)} | {values[0]}
    return any(
        v in codes
        # a value as a whole token: "7" is not named by the date "7/5/2022"
        or (
            (v in dated or v.strip() not in years)
            and re.search(r"(?<![\w./-])" + re.escape(v.lower()) + r"(?![\w/-]|[.,:]\d)", low)
        )
        or (re.search(r"[A-Za-z]", v) and any(_holds(asked, w) for w in _said(v)))
        for v in values
    )


def narrower(name: str, asked: set[str]) -> bool:
    """Does a column's name count a narrower kind of a thing the question asks for: one of
    the question's words after an adjective the question does not hold ("ELECTORAL VOTES"
    for "how many votes", "Active Registered Voters" for "registered voters")? Participles
    ("Registered") and summing words ("Total") are read past, not counted. A group's
    numbered label before the quantity ("US Representative District 3 Grand Total") names
    the group, not a kind of the quantity: only the words after its number are read."""
    name = re.sub(r"^.*\b[A-Za-z]+\s+\d+\s+(?=[A-Za-z])", "", name)
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", re.sub(r"([a-z])([A-Z])", r"\1 \2", name))
    for i in range(1, len(words)):
        if not _holds(asked, stem(base_form(words[i].lower()))):
            continue
        for w in reversed(words[:i]):
            kinds = readings(w)
            if "ADJ" not in kinds:
                break
            low = w.lower()
            if "VERB" in kinds or low in _SUMMING or stem(base_form(low)) in asked:
                continue
            return True
    return False


def cell_value(text: str, question: str, defined: Sequence[tuple[str, str]] = ()) -> str | None:
    """In a table row's sentence, the figure of the one cell whose column's name shares
    the most words with the question ("Republican Active: 15281" for "registered
    Republicans active"), of those the one whose name says least else ("Male Total" over
    "Male Under 18 years" for "males"); a column of a narrower kind (:func:`narrower`), or
    whose cell is the number of a numbered name the question writes ("District: 4" for "the
    4th district": the row's key), is never it. None when no column, or more than one,
    does best. A leading phrase that says where to look ("In the California test score
    data, how many computers ...") names the source, not a column, and a parenthesis of
    plain words ("(active plus inactive)") explains, naming none."""
    asked = _said(unexplained(question[setting_end(question) :]))
    meaning = dict(defined)  # a column's name read with its codebook's definition
    numbered = numbered_names(question)  # read once, not once a cell
    keys = {number for _, number in numbered}  # "the 4th district": a key
    scored: list[tuple[int, int, str]] = []
    cells = _row_cells(text)
    # the words every column's name shares ("US Representative District 3 ...") tell none apart
    names = [_said(name) for name, _ in cells]
    shared = set.intersection(*names) if len(names) > 1 else set()
    for name, value in cells:
        if narrower(name, asked) or another_number(name, numbered) or value.strip() in keys:
            continue
        words = _said(meaning.get(name.strip(), name))
        held = sum(_holds(asked, w) for w in words - shared)
        scored.append((held, held - len(words), value))  # then: says least else
    best = max((n, extra) for n, extra, _ in scored) if scored else (0, 0)
    top = [v for n, extra, v in scored if (n, extra) == best]
    return top[0] if best[0] and len(top) == 1 else None


# a word that denies what follows it within a few words ("does not require full-duplex",
# "Why isn't HackRF One full-duplex?")
_DENIAL = re.compile(
    r"\b(?:not|no|never|without|isn't|aren't|wasn't|doesn't|don't|cannot|can't)\b"
    r"|n['\u2019]t\b",
    re.I,
)


def chosen(unit: Unit, options: Sequence[str]) -> str | None:
    """Which of a choice question's ``options`` the unit states: the one it names, and names
    nowhere denied ("not", "isn't" up to four words before it); None when it names neither,
    both, or denies the one it names."""
    if re.search(r"\?[^\w]*$", unit.text):
        return None  # a question ("Is HackRF full-duplex?", a FAQ's heading) states nothing
    text = unit.text
    said = [
        (option, bool(_DENIAL.search(" ".join(text[: m.start()].split()[-4:]))))
        for option in options
        for m in re.finditer(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text, re.I)
    ]
    named = {option for option, _ in said}
    if len(named) != 1 or any(denied for _, denied in said):
        return None
    return named.pop()


def choice_made(complete: Sequence[Bound]) -> str | None:
    """The option a choice question's binding units state, where they disagree: the one a
    line predicates ("HackRF One is a half-duplex transceiver"), else the one most lines
    name; None when no line predicates one and as many name each."""
    named = [b.filler for b in complete if b.filler]
    said = [
        b.filler
        for b in complete
        if b.filler
        and re.search(
            r"\b(?:is|are|was|were)\s+(?:an?\s+|the\s+)?" + re.escape(b.filler) + r"(?![\w-])",
            b.unit.text,
            re.I,
        )
    ]
    for pool in (said, named):
        counts = {o: pool.count(o) for o in set(pool)}
        top = sorted(counts.values(), reverse=True)
        if top and (len(top) == 1 or top[0] > top[1]):
            return max(counts, key=counts.__getitem__)
    return None


def _row_pairs(text: str) -> list[tuple[str, str]]:
    """A row's cells as (column name, value): a located row's ("row 4: A: 1; B: 2"), or a
    line of named pieces only ("Header 1: B; Header 2: 9.0")."""
    cells = _cells(text)[1]
    if not cells:
        pairs, pieces = _pairs(text.strip())
        cells = pairs if pieces > 1 and len(pairs) == pieces and all(n for n, _ in pairs) else []
    return cells


def _denied_words(question: str) -> set[str]:
    """The stems a question denies: those up to three words after "no", "not", "without",
    "never" or an "n't" ("had no kids", "did not vote")."""
    out: set[str] = set()
    tokens = re.findall(r"[A-Za-z'’]+", question)
    for i, tok in enumerate(tokens):
        if _DENIAL.fullmatch(tok) or tok.lower().endswith(("n't", "n’t")):
            out.update(stem(base_form(w.lower())) for w in tokens[i + 1 : i + 4])
    return out


def flag_clash(cons: Constraints, text: str) -> list[str]:
    """The yes/no cells of a row that say the opposite of the question ("Has kids: yes" for
    "which musician had no kids?", "Has kids: no" for "who had kids?"), as the question's
    words; none for a question that asks yes or no itself (its cell is the answer)."""
    if cons.slot in (None, "choice", "meaning"):
        return []
    asked, denied = _said(cons.question), _denied_words(cons.question)
    out = []
    for name, value in _row_pairs(text):
        says = flag(value)
        words = [w for w in _said(name) if _holds(asked, w)]
        if says is None or not words:
            continue
        negative = any(w in denied for w in words)
        if says == negative:
            out.append(("no " if negative else "") + name.strip())
    return out


_ORDINAL_WORD = "|".join(ORDINAL_WORDS)
# a thing numbered by an ordinal before it ("second item", "4th district") or a number
# after it ("slide 2", "item 3")
_ORDINAL_NOUN = re.compile(
    rf"\b(?:({_ORDINAL_WORD})|(\d{{1,3}})(?:st|nd|rd|th))\s+([A-Za-z][\w-]*)", re.I
)
_NOUN_NUMBER = re.compile(r"\b([A-Za-z][\w-]*)\s+(\d{1,3})\b(?![.,:/]\d)")


def _ordinal_nouns(text: str) -> list[tuple[re.Match[str], str, int]]:
    """Each thing ``text`` numbers by an ordinal before it, with its noun's stem and number:
    "second item" -> ("item", 2)."""
    out = []
    for m in _ORDINAL_NOUN.finditer(text):
        n = ORDINAL_WORDS[m.group(1).lower()] if m.group(1) else int(m.group(2))
        out.append((m, stem(base_form(m.group(3).lower())), n))
    return out


def _numbered(text: str) -> dict[str, set[int]]:
    """The numbers ``text`` gives things: "first item" and "item 1" -> {"item": {1}}."""
    out: dict[str, set[int]] = {}
    for _, t, n in _ordinal_nouns(text):
        out.setdefault(t, set()).add(n)
    for m in _NOUN_NUMBER.finditer(text):
        out.setdefault(stem(base_form(m.group(1).lower())), set()).add(int(m.group(2)))
    return out


def other_ordinal(keys: KeyTerms, text: str) -> list[str]:
    """The things the question numbers ("the second item", "the 4th district") that
    ``text`` numbers otherwise only ("first item in unordered list", "slide 1"): it speaks
    of another one. A text that numbers none of them says nothing against them."""
    if not keys.ordinals:
        return []
    given = _numbered(text)
    return [
        written
        for written, (t, n) in keys.ordinals.items()
        if (numbers := given.get(t)) and n not in numbers
    ]


def row_thing(text: str, cons: Constraints) -> str | None:
    """A which or who question's filler in a table row: its label ("row 4 (Polk)"), else the
    first cell of words the question does not give (the row's name: "Name: George Michael"),
    never a yes/no cell or a column's name; None for a text that is no row."""
    label, _, _ = _cells(text)
    asked = cons.question.lower()
    if label and label.lower() not in asked:
        return label
    for _name, value in _row_pairs(text):
        if (
            re.search(r"[A-Za-z]{2,}", value)
            and flag(value) is None
            and value.lower() not in asked
            and not MONTH_YEAR.fullmatch(value)
        ):
            return value
    return None


def named_cell(text: str, cons: Constraints) -> str | None:
    """In a table row's sentence, the value of the one column the question names whose value
    it does not already give ("which Header 3 text goes with the row whose Header 2 value is
    9.0": Header 3's); None when no column, or more than one, is so named."""
    asked = _said(cons.question)
    entities = {e.lower() for e in cons.entities}
    given = [*cons.numbers, *(p.text for p in cons.periods)]
    found = []
    for name, value in _row_pairs(text):
        if flag(value) is not None:
            continue  # a yes/no cell is a constraint the question puts (flag_clash)
        words = _said(name)
        named = name.strip().lower() in entities or (words and all(_holds(asked, w) for w in words))
        if named and value and not any(_has_number(g, value) for g in given):
            if not (_said(value) and _said(value) <= asked):
                found.append(value)
    return found[0] if len(found) == 1 else None


def _only_narrower(text: str, question: str) -> bool:
    """Do the columns of a row that name what the question asks all count a narrower kind of
    it (:func:`narrower`)? Then no figure of the row fills the question's slot."""
    asked = _said(question)
    naming = [name for name, _ in _row_cells(text) if _said(name) & asked]
    return bool(naming) and all(narrower(name, asked) for name in naming)


def _column_value(unit: Unit, cons: Constraints) -> str | None:
    """The number under the header year the question asks for, in a row of numbers."""
    years = _YEAR.findall(unit.header or "")
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


def _kind_stem(cons: Constraints) -> str | None:
    """The stem of a which or who question's asked kind ("which musician": musician)."""
    if cons.slot not in ("which", "name") or not cons.kind:
        return None
    return stem(base_form(cons.kind.lower()))


def kind_columns(cons: Constraints, found: Sequence[Unit]) -> frozenset[str]:
    """The columns whose cells write the asked kind in some row of the evidence ("Profession:
    musician" for "which musician ..."): a table that sorts its rows by kind, where a row of
    another kind ("Profession: actor") is no answer."""
    kind = _kind_stem(cons)
    if kind is None:
        return frozenset()
    return frozenset(
        name
        for u in found
        for name, value in _row_pairs(u.text)
        if stem(base_form(value.strip().lower())) == kind
    )


def _other_kind(cons: Constraints, text: str, columns: frozenset[str]) -> list[str]:
    """The asked kind, as missing, when the row ``text`` writes another in a kind column."""
    kind = _kind_stem(cons)
    cells = [(n, v) for n, v in _row_pairs(text) if n in columns]
    if kind is None or not cells:
        return []
    return (
        []
        if any(stem(base_form(v.strip().lower())) == kind for _, v in cells)
        else [cons.kind or ""]
    )


def bind(
    cons: Constraints,
    unit: Unit,
    keys: KeyTerms,
    passage: str | None = None,
    kinds: frozenset[str] = frozenset(),
) -> Bound:
    """How ``unit`` binds ``cons`` (see the module docstring). With ``passage`` (the text
    of the unit's passage), a unit that points back with a pronoun holds the names and
    nouns its passage holds ("it has 8 heads" after the paragraph names the Transformer;
    "they run at 4 litres"), and one that names nobody the names ("The minimum output
    power shall be less than -50 dBm" under a paragraph on the UE); one that names others
    speaks of them ("Earlier Viking settlers had begun arriving in the 880s" is not about
    the Rollo its paragraph names). Periods and numbers only in the unit or its context."""

    # the unit with its context: its heading, title line, file name and its document's
    # title, authors and running header (a row of a county is the report's state's)
    whole = f"{unit.text}\n{unit.context}\n{unit.document}"
    # a document's own line holds only what it says (its passage's rows are not its)
    about = unit.text.startswith(ABOUT)
    # a table's row holds only its own cells: another row's "Power Class 1" or "Band I"
    # is not this row's
    row = bool(_row_pairs(unit.text))
    back = bool(passage) and _points_back(unit.text)  # "it", "they": the passage's names
    wide = (
        f"{whole}\n{passage}"
        if passage and not about and not row and (back or not _names(unit.text))
        else whole
    )
    missing: list[str] = []
    held = 0
    for p in cons.periods:
        if p.found_in(whole) and not _another_month(p, unit.text):
            held += 1
        else:
            missing.append(p.text)
    for num in cons.numbers:
        if _has_number(num, whole):
            held += 1
        else:
            missing.append(num)
    term = asked_term(cons.question) if cons.slot == "meaning" else None
    for e in keys.names:
        if _has_entity(e, wide, keys.rare.get(e)):
            held += 1
        else:
            missing.append(e)
    filler: str | None = None
    marked = 0
    if term is not None:
        lines = definition_lines(term, unit.text)
        filler = lines[0] if lines else None
        if filler is None:
            missing.append(f"a definition of {term}")
        return Bound(unit, tuple(missing), filler, held + bool(filler))
    # nouns from the passage only for a unit that points back to them ("they run at ..."),
    # and from the sentence before it in its paragraph, which it goes on from
    said = _said(f"{whole}\n{passage}" if back else f"{whole}\n{unit.before}")
    have = {t for t in keys.weights if _holds(said, t)}  # the required ones are among them
    # "the screenshot", "the workbook": its file is one
    have |= {t for t, exts in keys.kinds.items() if unit.ext in exts}
    stated = _stated_bounds(unit.text)
    have |= {t for t in keys.weights if t in stated}
    lacking = [word for t, word in keys.required if t not in have]
    lacking += [w for w in cons.extremes if not _says_extreme(w, said, stated)]
    total = sum(keys.weights.values())
    share = sum(keys.weights[t] for t in have) / total if total else 1.0
    missing.extend(lacking)
    missing.extend(_negated(cons, unit.text))  # its own words, whatever its heading says
    missing.extend(flag_clash(cons, unit.text))  # "Has kids: yes" for "had no kids"
    # "first item in unordered list" for "the second item"; a passage of slide 1 for "the
    # second slide"
    missing.extend(other_ordinal(keys, f"{unit.text}\n{unit.context}"))
    missing.extend(_other_kind(cons, unit.text, kinds))  # "Profession: actor", for a musician
    if keys.weights and not about and not lacking and lines_asked(cons):
        # a line answers only about the asked thing: one that holds none of the question's
        # nouns, names or numbers itself (in its text, heading or column), only its period,
        # speaks of something else in that period ("As of February 2013, there were 4 such
        # tables" in a file on profits, for "profits in 2013")
        own = f"{unit.text}\n{unit.near}"
        if back:  # "due to its speed": the passage's model
            own += f"\n{passage}"
        said_own = _said(own)
        if not (
            any(_holds(said_own, t) for t in keys.weights)
            or any(_has_entity(e, own, keys.rare.get(e)) for e in keys.names)
            or any(_has_number(num, own) for num in cons.numbers)
        ):
            missing.append(keys.words[max(keys.weights, key=keys.weights.__getitem__)])
    if share <= NOUN_SHARE and not lacking:  # the rare nouns held, too few of the rest
        missing.extend(keys.words[t] for t in keys.weights if t not in have)
    held += len(have)
    if (
        cons.slot in ("number", "date", None)
        and lines_asked(cons)
        and not _names_row(cons, unit.text)
    ):
        missing.append("the row asked for")
    if unit.header and cons.slot in ("number", None):
        filler = _column_value(unit, cons)  # the value in the column of the asked year
    if filler is None and cons.slot in ("number", None):
        filler = cell_value(unit.text, cons.question, unit.defined)  # the asked column's cell
    # no figure of a header's line fills a slot ("Under 18 years" is no count); nor one of a
    # row whose columns that name the asked thing count only a narrower kind of it
    narrow = filler is None and (
        bool(_COLUMNS.match(unit.text)) or _only_narrower(unit.text, cons.question)
    )
    if _COLUMNS.match(unit.text) and not _COLUMNS_ASKED.search(cons.question):
        missing.append("a value")  # a header names columns: it answers only "which columns"
    if about and cons.slot not in ABOUT_SLOTS:
        filler = None  # a document's own line says what it is, by whom and when: no more
        missing.append(f"which {cons.kind}" if cons.slot == "which" else f"a {cons.slot}")
    elif cons.slot == "choice":
        filler = chosen(unit, cons.alternatives)
        if filler is None:
            missing.append(" or ".join(cons.alternatives))
    elif cons.slot in FILLED:
        if filler is None and cons.slot in ("which", "name"):
            filler = named_cell(unit.text, cons)  # the cell of the column the question names
        if _COLUMNS.match(unit.text):
            filler = None  # a table's header names its columns, never a value
        elif filler is None and cons.slot in ("which", "name") and _row_pairs(unit.text):
            filler = row_thing(unit.text, cons)  # the row's name, never a column's
        elif filler is None and cons.slot == "which":
            # a heading's code is the kind of thing a section is ("0.11.0"); else the line's
            if kinded := _kind_thing(unit.text, cons):
                filler, marked = kinded
            else:
                filler = _thing(unit.label, cons, names=False) or _thing(unit.text, cons)
        elif filler is None and _figures_only(unit.text):
            missing.append("the column asked for")  # "37 49,415 79 722": whose is each?
        elif filler is None and not narrow:  # ("ELECTORAL VOTES: 9" fills no "how many votes")
            spans = answer_spans(unit.text, cons.question, cons.slot)
            asked = {p.text for p in cons.periods} | set(cons.numbers)
            spans = [s for s in spans if unit.text[s[0] : s[1]] not in asked]
            if cons.slot == "date" and (years := _years(cons.question)):
                # "the date of the 2024 election": a date of another year does not fill it
                spans = [s for s in spans if _years(unit.text[s[0] : s[1]]) <= years]
            filler = unit.text[spans[0][0] : spans[0][1]] if spans else None
        if filler is not None and cons.slot == "number" and not _of_asked_kind(filler, unit, cons):
            filler = None  # "-5 dBm" is a power: it fills no "how much does it weigh"
        if filler is not None and not row and not _near_asked(unit.text, filler, cons):
            filler = None  # a run-on line's far clause speaks of something else
        if filler is None:
            missing.append(f"which {cons.kind}" if cons.slot == "which" else f"a {cons.slot}")
    elif (
        cons.slot is None
        and (head := _kind_head(cons)) is not None
        and base_form(head.lower()) not in FRAMING
    ):
        # "What calibre were the guns?": a line that says the kind's noun itself ("These guns
        # are nine-inch calibre") says which, before lines that only name the guns; a noun that
        # frames ("what architecture type") names no kind a line would write
        marked = int(bool(_kind_nouns(head, unit.text)))
    return Bound(unit, tuple(missing), filler, held, marked=marked)


LONG_UNIT = 30  # words: a line this long is read clause by clause around its filler
NEAR_WORDS = 12  # ... and a filler binds with the question's nouns this close to it


def _near_asked(text: str, filler: str, cons: Constraints) -> bool:
    """Does ``filler`` stand within NEAR_WORDS words of one of the question's words or names
    in ``text``, when ``text`` is a run-on line (a table cell of notes with no full stop:
    "NOTE 2 For Power class 4 this shall be at the maximum output power NOTE 3 ... the
    reference sensitivity level of -110.5 dBm")? Any short line is one clause: it does."""
    tokens = re.findall(r"\S+", text)
    at = text.find(filler)
    if len(tokens) <= LONG_UNIT or at < 0:
        return True
    where = len(re.findall(r"\S+", text[:at]))
    window = tokens[max(0, where - NEAR_WORDS) : where + NEAR_WORDS + 1]
    said = _said(" ".join(window))
    names = _said(" ".join(w for e in cons.entities for w in _entity_words(e)))
    return any(_holds(said, t) for t in cons.terms) or bool(names & said)


# a question that asks for a share: its figure is a percentage
def anchored_span(text: str, cons: Constraints, shape: str | None) -> str | None:
    """In a run-on line of entries (over ``LONG_UNIT`` words: "Rudolph Ware for Vice
    President; AL, ID, KY: Samson Kpadenou for ...; LA: Ajamu Baraka for ..."), the answer
    span of the entry the question names: the first span of the asked shape right after the
    one spot past the line's opening where a place or name of the question is written (as
    its code, "LA:", for "Louisiana"). None for a short line or without one such spot."""
    if shape is None or len(text.split()) <= LONG_UNIT:
        return None
    spots: list[int] = []
    for entity in cons.entities:
        found = [
            m.end()
            for code in region_codes(entity)
            for m in re.finditer(rf"(?<![\w]){re.escape(code)}(?=\s*:)", text)
        ] + [m.end() for m in re.finditer(rf"(?<![\w]){re.escape(entity)}(?![\w])", text)]
        if len(found) == 1 and len(text[: found[0]].split()) > NEAR_WORDS:
            spots.append(found[0])  # written once, well into the line: an entry's key
    if len(spots) != 1:
        return None
    after = [(a, b) for a, b in answer_spans(text, cons.question, shape) if a >= spots[0]]
    if not after or len(text[spots[0] : after[0][0]].split()) > NEAR_WORDS:
        return None
    return text[after[0][0] : after[0][1]]


_PERCENT_ASKED = re.compile(r"\b(?:percentage|percent|per cent)\b|%", re.I)
_PERCENT_SAID = re.compile(r"%|\bper ?cent(?:age)?s?\b", re.I)


def _of_asked_kind(filler: str, unit: Unit, cons: Constraints) -> bool:
    """Is ``filler`` the kind of quantity the question asks for, if it asks for one ("how
    much does it weigh", "what wind speed", "in mAh", "what percentage")? Written with a
    unit, that unit's kind (a power in dBm weighs nothing; a ratio, "0 to 47 dB", is no
    length, though decibels may give a power); bare, on a line or under a header that writes
    such a unit ("Unit: mAh; Level: 1500"); a percentage written as one, under a header
    that says so or in a row labelled so ("Percentages:"). A bare figure elsewhere ("New version: 8.1.0", "RMS-DOP-909" for a wind
    speed, a count of voters for "what percentage") is not."""
    at = unit.text.find(filler)
    figs = list(_NUM.finditer(filler))
    end = at + figs[-1].end() if at >= 0 and figs else -1
    if _PERCENT_ASKED.search(cons.question):
        after = unit.text[at + len(filler) : at + len(filler) + 9] if at >= 0 else ""
        if not (_PERCENT_SAID.search(filler) or _PERCENT_SAID.match(after.strip())):
            # under a header that says so, or in a row whose label does ("Percentages:")
            labels = " ".join(v for _, v in _row_pairs(unit.text) if not _NUM.search(v))
            return bool(_PERCENT_SAID.search(unit.near) or _PERCENT_SAID.search(labels))
    asked = _asked_kind(cons.question)
    if asked is None:
        return True
    if end >= 0 and (kind := figure_kind(unit.text, end)) is not None:
        return kind == asked[1]
    if end >= 0 and ratio_after(unit.text, end):
        return ratio_measures(asked[1])
    # a bare figure: its column, or the header or section it sits under, names the kind
    # ("Wind speed: 20"); the kind's word elsewhere on its line ("the maximum output power
    # NOTE 2 For Power class 4") says nothing of this figure
    column = next((name for name, value in _row_pairs(unit.text) if filler in value), "")
    named = f"{column}\n{unit.near}"
    around = f"{unit.text}\n{unit.near}"
    return bool(re.search(rf"(?<![\w]){re.escape(asked[0])}(?![\w])", named, re.I)) or writes_unit(
        around, asked[1]
    )


# prefixes that make a word its opposite ("inactive", "unpaid", "nonvoting", "disallowed")
_NEGATING = "in|un|non|dis|im|ir|il"


def _negated(cons: Constraints, text: str) -> list[str]:
    """The question's words that ``text`` holds only negated ("active" asked, "Inactive
    County: Maricopa" read): that line is about the opposite, and does not bind them,
    whatever its heading or title says."""
    found = [
        word for word, negated in _negatable(cons.question, cons.terms) if negated.search(text)
    ]
    if not found:
        return []
    said = _said(text)
    return [w for w in found if stem(base_form(w.lower())) not in said]


@lru_cache(maxsize=64)
def _negatable(question: str, terms: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The question's words (its terms, stems of four letters or more) with the pattern of
    their negated form ("inactive" for "active"): read once a question, not once a unit."""
    out = []
    for word in re.findall(r"[A-Za-z]{4,}", question):
        t = stem(base_form(word.lower()))
        if t in terms and len(t) >= 4:
            out.append((word, re.compile(rf"\b(?:{_NEGATING})-?{re.escape(t)}", re.I)))
    return tuple(out)


def _figures_only(text: str) -> bool:
    """Is ``text`` a table's row read without its header: three figures or more, and little
    else ("37 49,415 79 722 863"), or no word of running text at all ("CORVINO GERMAN
    HORACIO 27.491.524 20-27491524-3 09/10/2013 EFECTIVO $ 20.000,00")? No figure of it is
    known to be the asked column's."""
    if "; " in text and re.search(r"\w: \S", text):
        return False  # a row that names its columns ("Army: 8571; Disease: 1"): cells read
    words = text.split()
    digits = sum(1 for w in words if re.search(r"\d", w))
    figs = sum(1 for w in words if _NUM.fullmatch(w.strip(",;")) or not re.search(r"\w", w))
    prose = any(re.fullmatch(r"[a-z]{2,}[,;:.]?", w) for w in words)
    return digits >= 3 and (figs >= 0.6 * len(words) or not prose)


# the extremes a range or a bound also states: "1 MHz to 6 GHz" gives the lowest frequency
_EXTREME_BOUNDS = {
    **dict.fromkeys(("high", "large", "big", "great", "long"), "maximum"),
    **dict.fromkeys(("low", "small", "few", "little", "less", "short"), "minimum"),
}


def _stated_bounds(text: str) -> set[str]:
    """The bounds ("maximum", "minimum") a line gives in words ("up to 20 images", "at
    least 8 GB") or as the ends of a range ("2 Msps to 20 Msps" gives both)."""
    if _SPAN_OF.search(text):
        return set(_BOUNDS)
    return {t for t, said_as in _BOUND_SAID.items() if said_as.search(text)}


def _says_extreme(word: str, said: set[str], stated: set[str]) -> bool:
    """Does a unit (``said``: the stems of it and its context; ``stated``: the bounds its
    line gives) state the superlative ``word`` the question asks by: the word itself, or for
    a highest or lowest value a maximum or minimum ("Max", "up to", a range of figures)?"""
    if stem(word) in said:
        return True
    bound = _EXTREME_BOUNDS.get(superlative(word) or "")
    return bound is not None and (stem(bound) in said or _BOUNDS[bound] in said or bound in stated)


@lru_cache(maxsize=64)
def _asked_kind(question: str) -> tuple[str, Kind] | None:
    """The unit the question names ("in mAh") or the kind its words ask for (``asked_kind``
    with its nouns: "how much does it weigh"): read once a question, not once a unit."""
    if named := named_unit(question):
        return named
    words = re.findall(r"[A-Za-z]+", question)
    return asked_kind(
        question, frozenset(w.lower() for i, w in enumerate(words) if is_noun(words, i))
    )


class Passage(BookPassage, Protocol):
    """What binding reads of an evidence item or a chunk: what a codebook reads, and
    where in its file it is."""

    @property
    def locator(self) -> str | None: ...


def _spaced(stem: str) -> str:
    """A file name as words: "2024presgeresults" -> "2024 presgeresults", "june-5th" ->
    "june 5th", "CoJul22" -> "Co Jul 22"."""
    text = re.sub(r"[_\-.]+", " ", stem)
    text = re.sub(r"(?<=\d)(?=[A-Za-z]{2})(?!(?:st|nd|rd|th)\b)|(?<=[A-Za-z]{2})(?=\d)", " ", text)
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)


def _ext(source: str) -> str:
    """A source's extension (".png"): the kind of file a question may call it by ("the ...
    screenshot")."""
    return PurePath(source).suffix.lower()


def _context(source: str, heading: str | None, locator: str | None, title: str = "") -> str:
    """What a unit is read with: its file's name as words ("notes-june-5th-2024"), the
    passage's heading and title line, and where it is (slide, sheet, page)."""
    name = _spaced(PurePath(source).stem)
    return " ".join(x for x in (name, heading or "", title, locator or "") if x)


def lines_asked(cons: Constraints) -> bool:
    """Is the question answered by one line or sentence (a short slot, a period or a number
    to match, a thing of a named kind: "what flow do the pumps run at"), rather than by a
    passage (a description)?"""
    return cons.slot is not None or bool(cons.periods or cons.numbers or cons.kind)


def _summary(text: str, cons: Constraints) -> bool:
    """A total or summary line ("Total expenses ...") that the question does not ask for: it
    never answers for one item by borrowing the item's name from its passage."""
    return bool(re.search(r"\b(?:total|subtotal|sum|overall)\b", text, re.I)) and not re.search(
        r"\b(?:total|subtotal|sum|overall|all)\b", cons.question, re.I
    )


def evidence_units(passages: Sequence[Passage]) -> list[Unit]:
    """The units of ``passages``, ``n`` = 1 + the passage's index (as ``bindings`` numbers
    them); a table's row read with its columns' definitions where another passage is the
    table's codebook, and with its documentation's description (crag/answer/codebook)."""
    books = codebooks(passages)
    out = []
    for i, p in enumerate(passages, 1):
        for u in units(i, p.text, p.source, p.heading, p.locator):
            book = books.get(p.source)
            if book is not None and _row_pairs(u.text):
                own = row_definitions(u.text, book.defs)
                said = " ".join(line for _, line in own)
                u = replace(
                    u,
                    context=f"{u.context} {said}",
                    near=f"{u.near} {said}",
                    # what the whole table holds, as its document's title would say
                    document=f"{u.document} {book.about}".strip(),
                    defined=own,
                    books=tuple(k + 1 for k in book.passages) if own or book.about else (),
                )
            out.append(u)
    return out


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
        found += [
            Unit(i, p.text, _context(p.source, p.heading, p.locator), -1, ext=_ext(p.source))
            for i, p in enumerate(passages, 1)
        ]
    kinds = kind_columns(cons, found)
    out = []
    for u in found:
        b = bind(cons, u, keys, kinds=kinds)
        if not b.complete and u.position >= 0 and not _summary(u.text, cons):
            wide = bind(cons, u, keys, passages[u.n - 1].text, kinds)
            b = replace(wide, by_passage=True) if wide.complete else b
        out.append(b)
    return sorted(out, key=lambda b: (not b.complete, b.by_passage, -b.marked, -b.held))


def bound_figures(
    question: str | Constraints, passages: Sequence[Passage], idf: Idf | None = None
) -> set[float]:
    """For a question that asks for a number, the figures that fill it in units binding
    every part of it (the asked row and column, period, names): what a written answer
    may state as the answer. Empty for another slot, or when no unit binds it all."""
    cons = read(question) if isinstance(question, str) else question
    if cons.slot != "number":
        return set()
    out: set[float] = set()
    for b in bindings(cons, passages, idf):
        if b.complete and b.filler:
            out |= figures(b.filler)
    return out


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
    """``grades`` with each passage that binds the whole question marked (``binds``) and
    raised to ``upper`` if under it: one of its units holds every period, number and entity
    the question names, its key nouns and a filler of the asked slot. The grader scores
    topic; a row of numbers or a definition line holding all of that is relevant whatever it made of it. Only a question with something
    exact to match (a period, a number, an entity, a term whose meaning is asked) is raised:
    without one, "complete" would say little, so a passage the grader found relevant (at or
    above ``upper``) that holds it all in one line of its own is only marked, to be kept
    before relevant ones that score higher ("Ozone: Mean ozone ... from 1300 to 1500 hours"
    before the data file's rows, for "over which hours is the mean ozone taken")."""
    cons = read(question)
    exact = cons.hard > 0 or cons.slot == "meaning"
    if not exact and all(g.score < upper for g in grades):
        return grades  # nothing relevant to keep first: no binding to compute
    # a unit that binds is complete only with its slot's filler (FILLED), so any complete
    # unit of a passage raises it; a question that asks for no line ("what is the gross
    # horsepower of the Maserati Bora") only by a row's cell of the asked column, its
    # filler. A row read with its codebook raises the codebook too, which says what the
    # row's cells mean (crag/answer/codebook)
    lines = lines_asked(cons)
    bound: set[int] = set()
    for b in bindings(cons, [g.chunk for g in grades], idf):
        if not b.complete:
            continue
        if exact and (b.filler or (lines and cons.slot not in FILLED)):
            bound |= {b.unit.n - 1, *(k - 1 for k in b.unit.books)}
        elif (
            not exact
            and grades[b.unit.n - 1].score >= upper
            and b.unit.position >= 0
            and not (b.unit.books or b.by_passage)
        ):
            bound.add(b.unit.n - 1)  # among relevant passages, one holding it all in a line
    return [
        replace(g, score=max(g.score, upper) if exact else g.score, binds=True) if i in bound else g
        for i, g in enumerate(grades)
    ]


def closest_quote(text: str) -> str:
    """The closest line as a refusal quotes it: one line, at most ``QUOTE_CHARS``."""
    quote = " ".join(text.split())
    return quote if len(quote) <= QUOTE_CHARS else quote[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"


def unbound_note(decision: Decision) -> str:
    """What no passage holds and what came closest, for a refusal: "No passage gives
    insurance, FY 2016; closest: “Insurance 12,345 11,200” (2019 report.pdf, p. 11)."."""
    text = f"No passage gives {described(decision.missing)}"
    chunk = decision.closest_chunk
    if decision.closest and chunk is not None:
        where = source_label(chunk.source, chunk.page_start, locator=chunk.locator)
        text += f"; closest: \u201c{closest_quote(decision.closest)}\u201d ({where})"
    return text + "."
