"""The answer shape a question asks for, and the spans of that shape in a sentence.

The **answer shape** comes from the question word, by general English grammar, not from
any data set: how many / how much / how long / what percentage ... -> a number with its
unit; when / what year -> a date or year; who / whose -> a capitalised name; where / what
city ... -> a capitalised phrase after a place preposition (in, at, near, from ...). Both
the quote (``crag/extract``: the span in bold) and the binding of a question to a unit
(``crag/binding``: the slot's filler) read it here.
"""

from __future__ import annotations

import re

from localcrag.crag.answer.emphasis import MONTH as _MONTH
from localcrag.crag.answer.emphasis import counted, counts, with_frequencies
from localcrag.textutil import NUMBER_WORDS, STOPWORDS, content_words
from localcrag.textutil.pos import readings
from localcrag.textutil.quantities import QUANTITY_NOUNS, figure_kind, ratio_after

# nouns that name a quantity: "what rate", "what is the maximum sample rate ..." ("value"
# only right after the question word: "what is the F value" names a table's column)
_MEASURE = (
    r"percentage|percent|number|amount|size|age|rate|proportion|"
    r"fraction|share|score|cost|price|duration|population|total|count|"
    + "|".join(QUANTITY_NOUNS)  # a physical quantity by its name: "what voltage"
)
_QUANTITY = r"(?:" + _MEASURE + r"|value)s?"
_HEAD_QUANTITY = r"(?:" + _MEASURE + r")s?"
_SHAPES = [
    (
        "number",
        re.compile(
            r"\bhow (?:many|much|long|old|far|big|large|tall|fast|often|high|deep)\b"
            # "up to what length", "at what speed": a figure, whatever follows the noun
            r"|\b(?:up to|to|at|by|from|within|over|under|below|above) (?:what|which) "
            r"(?:\w+ )?" + _QUANTITY + r"\b"
            r"|\b(?:what|which) (?:\w+ )?" + _QUANTITY + r"\b"
            # the head of its noun phrase ("what power supply" asks for a supply)
            r"(?=\s*(?:[?,.]|$)|\s+(?:of|for|in|on|at|to|from|by|does|do|did|is|are|was|were|"
            r"can|could|will|would|should|must|may|might|has|have|had|the|a|an|its|their)\b)"
            # "what is the maximum sample rate HackRF supports": the subject's head noun,
            # where the noun phrase ends (not "the rate limiting strategy")
            r"|\b(?:what|which) (?:is|are|was|were) (?:the |an? )?(?:[\w-]+ ){0,3}?"
            + _HEAD_QUANTITY
            + r"(?=\s*(?:[?,.]|$)|\s+(?:of|for|in|on|at|that|which|does|do|did|is|are|was|"
            r"were|can|will|when|during|per|the|a|an|its|their|this|these)\b|(?-i:\s+[A-Z]))",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"\bwhen\b|\b(?:what|which) (?:year|date|decade|day|month)s?\b|\b(?:what|which) century\b",
            re.I,
        ),
    ),
    ("name", re.compile(r"\bwho(?:m|se)?\b|\b(?:what|which) (?:person|people)\b", re.I)),
    (
        "place",
        re.compile(
            r"\bwhere\b|\b(?:what|which) (?:city|country|place|region|location|"
            r"state|continent|town|area)\b",
            re.I,
        ),
    ),
]
# number words that count ("one" aside: mostly a pronoun, "the best one")
_COUNT_WORDS = [w for w in NUMBER_WORDS if w not in ("zero", "one")]
# a month as a heading or a diary writes it too: "June", "JUNE"; its day "17th" or "17TH"
_MONTHS = "(?:" + _MONTH[3:-1] + "|" + _MONTH[3:-1].upper() + ")"
_TH = r"(?:st|nd|rd|th|ST|ND|RD|TH)"
_NUM = r"(?:[$€£]\s?)?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|percent\b|°\s?[CF]?))?"
_SPANS = {
    "number": re.compile(
        r"(?:\b[A-Za-z]\w{0,3}\s*=\s*)"
        + _NUM
        + r"|(?<![\w.])[-+\u2212]?"
        + _NUM
        + r"(?:\s+(?!(?:"
        + "|".join(sorted(STOPWORDS))
        + r")\b)[a-zµμ°Ω][A-Za-z]*"
        r"(?:\s+[A-Z][a-z]+(?=[\s.,;]|$))?)?"
        # a count written in words, with its unit: "ten years", "thirteen dollars"
        + r"|\b(?:"
        + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
        + r")"
        + r"(?:[\s-]+(?:"
        + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
        + r"))*"
        + r"\s+(?!(?:"
        + "|".join(sorted(STOPWORDS))
        + r")\b)[a-z]+"
    ),
    # "September 11, 2021", "12 March 2025", "October 2025", "1998", "the 1990s", "June 3", "11:30", "6 pm"
    "date": re.compile(
        r"\b\d{1,2}/\d{1,2}/(?:\d{4}|\d\d)\b|\b\d{4}-\d\d-\d\d\b"
        r"|\b(?:(?:\d{1,2}" + _TH + r"?\s+)?" + _MONTHS + r"\s+(?:\d{1,2}" + _TH + r"?,?\s+)?)?"
        r"\d{3,4}s?\b(?!\.\d)|\b\d{1,2}(?:st|nd|rd|th)? century\b"
        r"|\b(?:\d{1,2}" + _TH + r"?\s+" + _MONTHS + r"|" + _MONTHS + r"\s+\d{1,2}" + _TH + r"?)\b"
        r"|\b\d{1,2}:\d\d(?!\d)(?:\s?[ap]\.?m\b\.?)?|\b\d{1,2}\s?[ap]\.?m\b\.?"
    ),
    # possessive: a run of spaces is split one way only (``\s+`` then ``\s*`` took n^2 tries)
    "name": re.compile(r"\b[A-Z][\w'’&-]++(?:\s++(?:(?:of|de|von|van)\s*+)?[A-Z][\w'’&-]++)*"),
    "place": re.compile(
        r"\b(?:in|at|near|from|to|across|within|throughout) (?:the )?"
        r"([A-Z][\w'’-]+(?:\s+(?:of\s+)?[A-Z][\w'’-]+)*)"
    ),
}


# A count's own noun: "32-track", "999 bars", "110,000 notes" (the word the number counts).
_UNIT_AFTER = re.compile(r"(?:-|\s+)([a-z]{3,})\b")
# Words that scale or measure a number rather than name what it counts (general English).
_SCALE = frozenset(
    "hundred hundreds thousand thousands million millions billion billions trillion "
    "percent per cent dollars dollar euros euro pounds pound cents yen usd eur gbp "
    "times fold".split()
)
_MONEY = re.compile(
    r"\bhow much\b.*\b(?:cost|costs|price|priced|spent|spend|spends|pay|paid|pays|worth|"
    r"charge|charged|charges|sell|sold|sells|earn|earned|earns|raise|raised|budget|revenue|"
    r"income|expenses?|fees?|salary|wage)\b",
    re.I,
)


def _asked_units(question: str) -> set[str] | None:
    """The stems a count in the answer may count, when the question says: "how many active
    voters" -> {active, voter} (``emphasis.counted``); a money question ("how much did it
    cost") -> empty (a count of any thing is no amount of money); else None (any number)."""
    if nouns := counted(question):
        return set(nouns)
    return set() if _MONEY.search(question) else None


def _counts_other(sentence: str, span: tuple[int, int], units: set[str] | None) -> bool:
    """Does the number of ``span`` count a thing the question does not ask about ("a
    **32**-track sequencer" for "how much did it cost?"): a word of its own follows it, and
    no asked noun stands near it ("h = 8 parallel attention layers" counts attention heads)?"""
    if units is None:
        return False
    m = _UNIT_AFTER.match(sentence, _number_end(sentence, span[0]))
    if not m or m.group(1) in STOPWORDS or m.group(1) in _SCALE:
        return False
    return not counts(sentence, span, frozenset(units))


_ERA = re.compile(r"\s*(?:AD|BC|BCE|CE|A\.D\.|B\.C\.)\b")


def _counts_a_thing(sentence: str, end: int, digits: str) -> bool:
    """Does the bare number ending at ``end`` count something rather than name a year: a
    noun of its own follows ("999 bars", "2000 samples"), or it has three digits and no era
    ("up to 999")?"""
    if _ERA.match(sentence, end):
        return False
    m = _UNIT_AFTER.match(sentence, end)
    if (
        m
        and m.group(0)[:1] != "-"
        and m.group(1) not in STOPWORDS
        and "NOUN" in readings(m.group(1))
    ):
        return True
    return len(digits) < 4


def _shouted(text: str) -> bool:
    """Is ``text`` ordinary English words set in capitals ("CREATE SONG", "PLAY")? An
    acronym or a name in capitals ("MIDI", "NASA") is no English word."""
    words = text.split()
    return text.isupper() and all(w.isalpha() and readings(w.lower()) for w in words)


def answer_shape(question: str) -> str | None:
    """What an answer to ``question`` looks like: number, date, name, place, or None."""
    for shape, pattern in _SHAPES:
        if pattern.search(question):
            return shape
    return None


# A number right after one of these names a part of a document, in any case ("see
# section 5.4", "in table 3"): the closed class of cross-reference nouns of English
# technical writing (general vocabulary, not taken from any data set).
_XREF = re.compile(
    r"\b(?:sections?|(?:sub)?clauses?|annex(?:es)?|paragraphs?|tables?|fig(?:ure)?s?|chapters?|pages?|pp?|equations?|eqs?|"
    r"appendi(?:x|ces)|footnotes?|lines?|rows?|columns?|items?|steps?)\.? $",
    re.I,
)


# A bibliographic reference marker of technical writing: "[20]", "[3, 18]", "[7-9]". Its
# numbers name entries of the reference list, not quantities (typography, not data).
_REFMARK = re.compile(r"\[\d+(?:\s*[,;\u2013-]\s*\d+)*\]")


def _cell(sentence: str, at: int) -> bool:
    """Is ``at`` a value right after its column's name in a table row sentence ("Total
    Active: 867"), a name that is not a time ("Year: 1998")? Constant time a match."""
    if sentence[max(0, at - 2) : at] != ": ":
        return False
    return not sentence[max(0, at - 8) : at - 2].lower().endswith(("year", "date", "period"))


_NUMBER = re.compile(_NUM)


def _number_end(sentence: str, at: int) -> int:
    """Where the number of a number span starting at ``at`` ends (before its unit word)."""
    m = _NUMBER.search(sentence, at)
    return m.end() if m else at


_LEAD = " \t-*\u2022>#0123456789.)"  # what may come before a sentence's first word: a list marker


_ISO_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")


def _in_date(sentence: str, at: int) -> bool:
    """Is the figure at ``at`` a part of a date ("1926-10-18", "09/10/2013"): no quantity."""
    return any(m.start() <= at < m.end() for m in _ISO_DATE.finditer(sentence))


# a section's outline number opening its heading ("6.2.1D UE maximum output power")
_OUTLINE = re.compile(
    r"\d+(?:\.\d+){2,}[A-Za-z]?\s|\d+\.\d+[A-Za-z]?\s+[A-Z][a-z]{2,}(?![^.]*\.\s*$)"
)


def _numbered_name(before: str, question: str) -> bool:
    """Is a figure right after ``before`` the number of a numbered name the question writes
    with another number ("Power class 4" where the question asks about "Power Class 1",
    "Band 3" beside "Band 1"): the word before it precedes a number in the question too."""
    m = re.search(r"\b([A-Za-z]{2,})\s+$", before)
    if m is None or m.group(1).lower() in STOPWORDS:
        return False
    return bool(re.search(rf"\b{re.escape(m.group(1))}\s+(?:\d|[IVX]+\b)", question, re.I))


def _glued_code(sentence: str, end: int) -> bool:
    """Do letters follow the figure ending at ``end`` with no space, and pint reads them as
    no unit ("16QAM", "5G" are codes; "3.3V", "10mA" are figures)?"""
    m = re.match(r"[A-Za-zµμΩ]+", sentence[end:])
    return bool(m) and figure_kind(sentence, end) is None and not ratio_after(sentence, end)


def answer_spans(sentence: str, question: str, shape: str | None) -> list[tuple[int, int]]:
    """(start, end) of the spans of ``shape`` in ``sentence`` the question does not contain."""
    if shape is None:
        return []
    asked = content_words(question)
    units = _asked_units(question) if shape == "number" else None
    refs = [r.span() for r in _REFMARK.finditer(sentence)]
    out = []
    for m in _SPANS[shape].finditer(sentence):
        group = 1 if m.re.groups else 0  # place: the phrase after its preposition
        text = m.group(group).strip()
        if any(a <= m.start(group) < b for a, b in refs):
            continue  # "the Adam optimizer [20]": a reference, not the answer
        if shape == "date" and text.isdigit() and not 1000 <= int(text) <= 2100 and len(text) == 4:
            continue
        if shape == "date" and text.isdigit() and _counts_a_thing(sentence, m.end(), text):
            continue  # "up to 999 bars": a count of something, no year
        if shape == "date" and text.isdigit() and _cell(sentence, m.start()):
            continue  # a table cell's figure ("Active: 867") is its column's quantity
        if (
            shape == "name"
            and " " not in text
            and not sentence[: m.start()].strip(_LEAD)
            and "&" not in text
        ):
            continue  # a capitalised first word is grammar, not a name ("* Replace all ...";
            # "AT&T" is one)
        if shape == "name" and _shouted(text):
            continue  # "PLAY, STOP, RECORD": words in capitals for emphasis, not a name
        if shape == "number" and (
            re.search(r"\b[A-Z][a-z]*\.? $", sentence[: m.start(group)])
            or _XREF.search(sentence[: m.start(group)])
            or re.search(r"[A-Za-z]-$", sentence[: m.start(group)])
            or _in_date(sentence, m.start(group))
            or _numbered_name(sentence[: m.start(group)], question)
            or (text[:1].isdigit() and _glued_code(sentence, _number_end(sentence, m.start(group))))
            or _OUTLINE.match(sentence, m.start(group))
            and not sentence[: m.start(group)].strip()
        ):
            continue  # "Table 2", "Section 3", "(section 5.4)", "RMS-DOP-909", "Power
            # class 4" beside the question's "Power Class 1", "16QAM": a label or a code's
            # part, not a quantity
        at = (m.start(group), m.end(group))
        if shape == "number" and _counts_other(sentence, at, units):
            continue  # the number counts something else than the question asks for
        words = content_words(text)
        if text and not (words and words <= asked) and text.lower() not in question.lower():
            out.append((m.start(group), m.start(group) + len(m.group(group).rstrip())))
    return with_frequencies(out, sentence, question, shape)
