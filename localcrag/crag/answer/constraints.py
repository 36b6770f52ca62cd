"""What a question constrains: the slot it asks to fill and everything an answer must match.

An answer binds every constraint of its question to one evidence unit (``crag/binding``),
so the question is read once into:

* the **slot**: what kind of filler answers it (a number, a date, a name, a place, the
  meaning of a term, or a passage when the question asks for a description);
* **periods**: years, fiscal years, year ranges, quarters, months and dates, each with the
  forms a document may write it in (FY 2019, fiscal 2019, 2018-19, 2018–2019, Q2 2020,
  second quarter of 2020, June 2020, 2020-06-30);
* **numbers**: any other number the question writes ("the 3.3 V rail", "row 12"): a
  constraint, never an answer;
* **entities**: names and codes the question writes with capitals or digits ("Jane Doe",
  "BME280", "TOTEMP");
* **terms**: the remaining content words ("insurance", "supply current"), as stems.

General English grammar and number formats, not words read from any evaluation set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from localcrag.crag.answer.glossary import asked_term
from localcrag.crag.answer.shapes import answer_shape
from localcrag.textutil import (
    MONTHS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    STOPWORDS,
    WH_WORDS,
    base_form,
    identifiers,
    number_words,
    stem,
)
from localcrag.textutil.pos import readings, superlative, verb_form
from localcrag.textutil.quantities import asked_kind, named_unit

# Words that frame a question rather than constrain its answer: verbs that ask ("what does
# X mean", "what is listed", "according to"), and the nouns a user names the source or the
# answer's kind with ("the report", "the value", "the figure"). A closed class of English
# question phrasing.
FRAMING = frozenset(
    """mean means meaning meant stand stands represent represents refer refers define defined
    definition describe described say says said state states stated tell list listed give
    given show shown find found name named call called according mention mentioned note noted
    document documents documentation docs report reports file files paper article datasheet
    manual guide
    presentation deck slide slides spreadsheet dataset page value values figure figures amount
    number kind kinds type types sort sorts way ways thing things example examples reason
    reasons data role purpose importance significance impact function goal aim idea concept
    table tables row rows column columns cell cells section sections chapter chapters
    dollar dollars euro euros cent cents usd
    behind beside besides beyond near within without across along around against toward
    towards throughout inside outside despite except like unlike
    another other others else such same
    exactly approximately roughly
    once""".split()
)
# The question's own words for the answer it wants (answer_shape's cues): not constraints.
_SLOT_WORDS = frozenset(
    """many much long old far big large tall fast often high deep percentage percent year
    date century decade day month person people city country place region location size
    age speed rate proportion fraction share score cost price length height width weight
    distance duration population count level""".split()
)
# a quarter's number, in words or figures ("second", "2nd")
_ORDINALS = {w: n for w, n in ORDINAL_WORDS.items() if n <= 4}
_ORDINALS |= {f"{n}{suffix}": n for n, suffix in enumerate(("st", "nd", "rd", "th"), 1)}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_YEAR = r"(?:19|20)\d\d"
# a year a month or day dates: any from 1000 on ("October 1854" in a historical table); a
# bare number is read as a year only in 1900-2099 ("1500 mAh" is no year)
_DATED_YEAR = r"(?:1\d|20)\d\d"
# "2018-19", "2018–2019", "2018/19", "FY2018-19"
_RANGE = re.compile(
    r"(?<![\d.,])(" + _YEAR + r")\s*[-\u2013\u2014/]\s*(\d{2}|" + _YEAR + r")(?![\d.,])"
)
_FY = re.compile(r"\b(?:FY|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})(?!\d)", re.I)
_QUARTER = re.compile(
    r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth|[1-4](?:st|nd|rd|th))\s+quarter)"
    r"(?:\s+(?:of\s+)?(?:FY\s*|fiscal\s+(?:year\s+)?)?('?\d{2}|" + _YEAR + r"))?\b",
    re.I,
)
MONTH_YEAR = re.compile(r"\b(" + _MONTH + r")\.?,?\s+(" + _DATED_YEAR + r")\b", re.I)
_ISO_DATE = re.compile(r"\b(" + _DATED_YEAR + r")[-/.](\d{1,2})[-/.](\d{1,2})\b")
_LONG_DATE = re.compile(
    r"\b(?:(" + _MONTH + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(" + _DATED_YEAR + r")"
    r"|(\d{1,2})(?:st|nd|rd|th)?\s+(" + _MONTH + r")\.?,?\s+(" + _DATED_YEAR + r"))\b",
    re.I,
)
# a day of a month with no year ("June 20th", "20 June", "the 4th of July"): a diary's entry
_DAY_MONTH = re.compile(
    r"\b(?:(" + _MONTH + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?![\d,.:]\d)"
    r"|(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH + r"))\b",
    re.I,
)
_BARE_YEAR = re.compile(r"(?<![\w.,/-])(" + _YEAR + r")(?![\w.,/%-]|\.\d)")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?![\w])")
_ASKED_KIND = re.compile(
    r"\b(?:what|which)\s+([A-Za-z]+)(?=\s+(?:is|are|was|were|do|does|did|should|can|will|would|of|for|in|at|on)\b|\s*\?)",
    re.I,
)
# up to three words right before a parenthesis that held an entity (blanked by then)
_ALIASED = re.compile(r"(?:[A-Za-z'’-]+\s+){0,2}[A-Za-z'’-]+\s*\(\s*\)")
_NAME = re.compile(
    r"\b[A-Z][\w'’&.-]*(?:\s+(?:(?:of|de|von|van|the)\s+)?(?:[A-Z][\w'’&.-]*|\d[\d.]*\b))*"
)


def _year(text: str, century_of: int = 2000) -> int:
    """A 4-digit year, or a 2-digit one read in the century of ``century_of``."""
    value = int(text.lstrip("'"))
    return value if value >= 100 else (century_of // 100) * 100 + value


@dataclass(frozen=True)
class Period:
    """A time the answer must belong to; ``patterns`` are the ways a document may write it."""

    text: str  # as the question wrote it
    patterns: tuple[re.Pattern[str], ...]
    # or all of these, anywhere in the unit and its context: a month in a column's name
    # ("April: 22,764") with the year in the file's or table's title
    parts: tuple[re.Pattern[str], ...] = ()

    def found_in(self, text: str) -> bool:
        if any(p.search(text) for p in self.patterns):
            return True
        return bool(self.parts) and all(p.search(text) for p in self.parts)


def _year_alone(year: int | str) -> re.Pattern[str]:
    """A year written on its own: not part of a number, a code or a range."""
    return re.compile(r"(?<![\w.,/-])" + str(year) + r"(?![\w%]|[.,]\d)")


def _month_names(month: int) -> str:
    """The names of a month as a pattern's alternation ("jan|january")."""
    return "|".join(k for k, v in MONTHS.items() if v == month)


def _year_patterns(year: int, fiscal: bool) -> tuple[re.Pattern[str], ...]:
    """A year stands alone, or ends a range ("2018-19", "2018–2019"); a fiscal year also as
    "FY19", "FY 2019", "fiscal 2019" (a bare "2019" column header is the same year)."""
    y, yy, prev = str(year), f"{year % 100:02d}", year - 1
    out = [
        _year_alone(y),
        re.compile(str(prev) + r"\s*[-\u2013\u2014/]\s*(?:" + y + "|" + yy + r")(?!\d)"),
    ]
    if fiscal:
        out.append(re.compile(r"\bFY\s*'?" + yy + r"(?!\d)", re.I))
    return tuple(out)


def _periods(question: str) -> tuple[list[Period], list[tuple[int, int]]]:
    """The question's periods and the character spans they take (so no number or entity is
    read twice)."""
    found: list[Period] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return not any(a < m.end() and m.start() < b for a, b in taken)

    for m in _ISO_DATE.finditer(question):
        year, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if 1 <= mo <= 12 and 1 <= d <= 31:
            found.append(Period(m.group(0), (_date_pattern(year, mo, d),)))
            taken.append(m.span())
    for m in _LONG_DATE.finditer(question):
        if not free(m):
            continue
        name, day, yr = (m.group(1), m.group(2), m.group(3)) if m.group(1) else m.group(5, 4, 6)
        found.append(Period(m.group(0), (_date_pattern(int(yr), MONTHS[name.lower()], int(day)),)))
        taken.append(m.span())
    for m in _DAY_MONTH.finditer(question):
        name, day = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if free(m) and 1 <= int(day) <= 31:
            found.append(Period(m.group(0), (_day_pattern(MONTHS[name.lower()], int(day)),)))
            taken.append(m.span())
    for m in _QUARTER.finditer(question):
        if not free(m):
            continue
        q = int(m.group(1) or m.group(2) or _ORDINALS[m.group(3).lower()])
        word = [k for k, v in _ORDINALS.items() if v == q]
        quarter = re.compile(
            r"\b(?:Q" + str(q) + r"|" + str(q) + r"Q|(?:" + "|".join(word) + r")\s+quarter)",
            re.I,
        )
        pats: tuple[re.Pattern[str], ...] = (quarter,)
        if m.group(4):
            year = _year(m.group(4))
            pats = (
                re.compile(
                    quarter.pattern
                    + r"[\s,]*(?:of\s+)?(?:FY\s*|fiscal\s+(?:year\s+)?)?'?(?:"
                    + str(year)
                    + "|"
                    + f"{year % 100:02d}"
                    + r")(?!\d)",
                    re.I,
                ),
            )
        found.append(Period(m.group(0), pats))
        taken.append(m.span())
    for m in MONTH_YEAR.finditer(question):
        if not free(m):
            continue
        mon, y = MONTHS[m.group(1).lower()], m.group(2)
        names = _month_names(mon)
        found.append(
            Period(
                m.group(0),
                (
                    re.compile(
                        r"\b(?:"
                        + names
                        + r")\.?,?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?"
                        + y
                        + r"\b",
                        re.I,
                    ),
                    re.compile(r"\b" + y + r"[-/.]0?" + str(mon) + r"\b"),
                    # a day of the month as figures, month first or day first (7/5/2022)
                    re.compile(r"\b0?" + str(mon) + r"/\d{1,2}/" + y + r"\b"),
                    re.compile(r"\b\d{1,2}[/.]0?" + str(mon) + r"[/.]" + y + r"\b"),
                ),
                (
                    re.compile(r"\b(?:" + names + r")\b", re.I),
                    _year_alone(y),
                ),
            )
        )
        taken.append(m.span())
    for m in _FY.finditer(question):
        if not free(m):
            continue
        found.append(Period(m.group(0), _year_patterns(_year(m.group(1)), fiscal=True)))
        taken.append(m.span())
    for m in _RANGE.finditer(question):
        if not free(m):
            continue
        first, last = int(m.group(1)), m.group(2)
        end = _year(last, first) if len(last) == 2 else int(last)
        if not 0 < end - first <= 1:  # "2010-2015": two years an answer may cite apart
            continue
        found.append(Period(m.group(0), _year_patterns(end, fiscal=True)))
        taken.append(m.span())
    for m in _BARE_YEAR.finditer(question):
        if not free(m):
            continue
        found.append(Period(m.group(0), _year_patterns(int(m.group(1)), fiscal=False)))
        taken.append(m.span())
    return found, taken


def _day_pattern(mo: int, d: int) -> re.Pattern[str]:
    """A day of a month as documents write it without its year ("June 20th", "20 June")."""
    names = _month_names(mo)
    return re.compile(
        rf"\b(?:{names})\.?\s+0?{d}(?:st|nd|rd|th)?(?![\d,.:]?\d)"
        rf"|\b0?{d}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{names})\b",
        re.I,
    )


def _date_pattern(y: int, mo: int, d: int) -> re.Pattern[str]:
    names = _month_names(mo)
    return re.compile(
        rf"\b{y}[-/.]0?{mo}[-/.]0?{d}\b"
        rf"|\b(?:{names})\.?\s+0?{d}(?:st|nd|rd|th)?,?\s+{y}\b"
        rf"|\b0?{d}(?:st|nd|rd|th)?\s+(?:{names})\.?,?\s+{y}\b"
        rf"|\b0?{mo}/0?{d}/{y}\b",
        re.I,
    )


def number_value(text: str) -> float | None:
    """The value a written number stands for ("1,234.50" -> 1234.5), or None."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@dataclass(frozen=True)
class Constraints:
    """Everything ``question`` asks an answer to match (see the module docstring)."""

    question: str
    # "number", "date", "name", "place", "meaning", "which" (a thing of the kind the question
    # names: "which release", "which chip"), or None (a passage)
    slot: str | None
    periods: tuple[Period, ...] = ()
    kind: str | None = None  # "release" in "which release ...": what the answer is
    numbers: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # stems
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    # "Is it a full-duplex or a half-duplex device?": the answer is one of these (slot "choice")
    alternatives: tuple[str, ...] = ()
    # "the oldest work", "the least used type": an extreme picks one of many things of a
    # kind, so an answer must be of that extreme, not only of the kind (as written, lower case)
    extremes: tuple[str, ...] = ()

    @property
    def hard(self) -> int:
        """How many constraints must match exactly (periods, numbers, entities)."""
        return len(self.periods) + len(self.numbers) + len(self.entities)

    def described(self) -> list[str]:
        """Each constraint as the question wrote it, for "no passage gives ...": entities,
        periods and numbers first, then the content words."""
        return [
            *self.entities,
            *(p.text for p in self.periods),
            *self.numbers,
        ]


# kinds whose filler is a name: "which company made ...", "what agency granted ..."
_NAMED_KINDS = frozenset(
    """person people company companies organization organisation organizations firm
    manufacturer maker vendor agency university author authors team brand publisher
    institution department""".split()
)


# "What was the name of the diarist's sister?": the question asks for a name
_NAME_OF = re.compile(
    r"\W*what (?:is|was|are|were) (?:the |his |her |its |their )?(?:full |first |last )?"
    r"names? of\b",
    re.I,
)
_LEADING_CLAUSE = re.compile(
    r"^\s*(?:when|while|if|before|after|once|as of)\s+[^,?]*,\s*"
    r"(?=(?:is|are|was|were|does|do|did|can|should|list|name|give)\b"
    r"|[^?]*\b(?:what|which|who|whom|whose|when|where|how|why)\b)",
    re.I,
)
# "In the example deck's table, which ...", "According to the manual, what ...": a leading
# phrase that says where to look; the question proper starts after its comma
_SETTING = re.compile(
    r"^\s*(?:in|on|within|for|from|according to|per|among|across)\s+"
    r"(?:(?!\b(?:what|which|who|whom|whose|when|where|how|why)\b)[^,?])+,\s*"
    r"(?=(?:what|which|who|whom|whose|when|where|how|why|is|are|was|were|does|do|did|can)\b)",
    re.I,
)


def unexplained(text: str) -> str:
    """``text`` with each parenthesis of plain words ("(active plus inactive)") blanked, same
    length: it explains what stands before it; no code, no name, no column to choose."""
    return re.sub(
        r"\(([a-z]+(?:\s+[a-z]+)+)\)",
        lambda m: " " * len(m.group(0)) if _plain_words(m.group(1)) else m.group(0),
        text,
    )


def _plain_words(text: str) -> bool:
    """Is ``text`` only lower-case English words (no code, no name)?"""
    return all(w.islower() and w.isalpha() and _known(w) for w in text.split())


def setting_end(question: str) -> int:
    """Where the question proper starts, past a leading phrase saying where to look (0
    without one)."""
    m = _SETTING.match(question)
    return m.end() if m else 0


# a question word right after a noun opens a relative clause ("the row whose value is"),
# it does not ask
_RELATIVE = re.compile(r"\b(\w+)(\s+)(whose|which|who|whom|where|when)\b", re.I)


def _unless_noun_before(m: re.Match[str]) -> str:
    before = m.group(1).lower()
    if before in STOPWORDS or before in WH_WORDS or "NOUN" not in readings(before):
        return m.group(0)
    return m.group(1) + m.group(2) + "_" * len(m.group(3))


# "when" inside a clause ("... one key advantage when adapting ..."): a condition; a date is
# asked by a "when" that starts the question or a coordinated clause ("..., and when ...")
_WHEN_CLAUSE = re.compile(r"(?<!\band)(?<!\bor)(?<=[\w)'’])\s+when\b", re.I)
# function phrases whose nouns constrain nothing ("in order to", "in terms of")
_PHRASES = re.compile(
    r"\b(?:in order to|in terms of|compared (?:to|with)|as well as|such as|according to|"
    r"in addition to|instead of|rather than|with respect to|in relation to|in contrast to|"
    r"as opposed to|on the other hand|as part of|part of|a lot of|kind of|sort of)\b",
    re.I,
)


# "Is HackRF One a full-duplex or a half-duplex device?", "Does it run on AC or DC?": a
# question that asks which of two things holds
_CHOICE = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had)\b.*?"
    r"(?<![\w-])(?:an?\s+|the\s+)?([\w][\w-]*)\s+or\s+(?:an?\s+|the\s+)?([\w][\w-]*)\b"
    r"(?:\s+([A-Za-z]+))?",
    re.I,
)


def _choice(question: str) -> tuple[tuple[str, ...], str | None]:
    """The two things a yes/no-shaped question asks to choose between ("full-duplex",
    "half-duplex"), () for any other question; and the noun both modify ("a full-duplex or
    a half-duplex *device*"): the kind of the answer, which the evidence need not write."""
    m = _CHOICE.match(question)
    if m is None or m.group(1).lower() in STOPWORDS or m.group(2).lower() in STOPWORDS:
        return (), None
    noun = m.group(3)
    return (m.group(1), m.group(2)), noun if noun and "NOUN" in readings(noun.lower()) else None


def _slot(question: str, kind: str | None, choice: bool) -> str | None:
    if choice:
        return "choice"
    if asked_term(question):
        return "meaning"
    # "When deciding whether ..., what are ...": a leading clause sets the scene; the main
    # clause asks
    main = _LEADING_CLAUSE.sub("", question[setting_end(question) :], count=1)
    main = _WHEN_CLAUSE.sub(" ", main)  # "... latency when evaluating": a condition, no date
    if kind == "name" and _NAME_OF.match(question, setting_end(question)):
        return "which"  # "what was the name of the count of Apulia": a name, whatever it names
    shape = answer_shape(_RELATIVE.sub(_unless_noun_before, main))
    if shape is None and named_unit(question):  # "what battery capacity, in mAh, ...": a figure
        return "number"
    if shape is None and kind is not None and kind.lower() in _SLOT_WORDS and asked_kind(question):
        return "number"  # "below what level must the output power be": a power's figure
    if shape is None and kind is not None:
        if kind.lower() in _NAMED_KINDS:
            return "name"
        # "which chip is listed", "at which frame rates": one of several things, named;
        # "what role does X play" asks for a description
        return "which" if re.match(r"\W*(?:\w+\s+)?which\b", main, re.I) else None
    return shape


def _known(word: str) -> bool:
    """Is ``word`` an English word (in LemmInflect's lexicon)? A capital that starts the
    question is then grammar ("Up to how many ..."), not a name."""
    return bool(readings(word))


_ORDINAL = re.compile(r"\b(\d{1,3})(?:st|nd|rd|th)\b((?:\s+[A-Za-z][\w-]*){1,3})")


def ordinal_names(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """The things ``text`` numbers by an ordinal, as (noun, number, span): "Iowa's 4th
    congressional district" -> ("district", "4", ...), the district numbered 4; the noun is
    the first of the next three words that can be a noun and is no adjective only."""
    out = []
    for m in _ORDINAL.finditer(text):
        for w in re.finditer(r"[A-Za-z][\w-]*", text[m.end(1) : m.end()]):
            word = w.group(0)
            if word.lower() in STOPWORDS:
                break
            if "NOUN" in readings(word.lower()):
                end = m.end(1) + w.end()
                out.append((word.lower(), m.group(1), (m.start(), end)))
                break
    return out


def _entities(question: str, taken: list[tuple[int, int]]) -> list[tuple[str, tuple[int, int]]]:
    """Names (capitalised words past the first word, or a first word that is no question or
    function word) and codes ("BME280", "TOTEMP")."""
    out: list[tuple[str, tuple[int, int]]] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in taken + [s for _, s in out])

    for noun, number, (a, b) in ordinal_names(question):  # "4th district": "District 4"
        if free(a, b):
            out.append((f"{noun.capitalize()} {number}", (a, b)))
    first = re.match(r"\s*\W*(\w+)", question)
    for m in _NAME.finditer(question):
        text = m.group(0).rstrip(".,;:'’&-")
        words = text.split()
        if m.start() == (first.start(1) if first else 0):
            head = words[0].lower()
            if head in STOPWORDS or head in WH_WORDS or _known(head) or base_form(head) in FRAMING:
                words = words[1:]  # "What ...", "Who ...", "List ...": grammar, not a name
                if not words or not words[0][:1].isupper():
                    continue
                text = " ".join(words)
        words = [w for w in text.split() if w.lower() not in MONTHS]
        # "the Claude Documentation": the source's kind is no part of the name
        words = [w for w in words if base_form(w) not in FRAMING] or words
        if not words or all(w.lower() in STOPWORDS or base_form(w) in FRAMING for w in words):
            continue
        text = " ".join(words)
        start = question.find(text, m.start())
        if start >= 0 and free(start, start + len(text)):
            out.append((text, (start, start + len(text))))
    for m in re.finditer(r"\(([^()]{1,40})\)", question):  # "(temp_min)", "(ARMED)": a code
        a, b = m.span(1)
        if _plain_words(m.group(1)):
            continue  # "(active plus inactive)": words that explain, no code
        if len(m.group(1).split()) <= 3 and free(a, b):
            out.append((m.group(1).strip(), (a, b)))
    for ident in identifiers(question):
        start = question.find(ident)
        if start >= 0 and free(start, start + len(ident)) and not ident.isdigit():
            out.append((ident, (start, start + len(ident))))
    return [(t, span) for t, span in out if len(t) > 1]


_VERBISH = frozenset(
    "is are was were be been do does did can could will would shall should may might must has "
    "have had of for in at on to from with by".split()
)
_TOKEN = re.compile(r"[\w'’-]+")


def _asked_kind(text: str, start: int = 0) -> tuple[str, str | None]:
    """``text`` with the noun that names the answer's kind blanked: the word before the first
    verb or preposition within four words of "what" or "which" ("which pdfplumber release
    upgraded ..." -> "which pdfplumber         upgraded ..."); the question proper starts
    at ``start`` (:func:`setting_end`)."""
    tokens = list(_TOKEN.finditer(text, start))
    for i, m in enumerate(tokens[:3]):  # the question's own word, not "on which" later
        if m.group(0).lower() not in ("what", "which") or i + 1 >= len(tokens):
            continue
        if tokens[i + 1].group(0).lower() in _VERBISH:
            continue  # "what is the supply current": the noun asked about, not a kind
        for k in range(i + 1, min(i + 5, len(tokens) - 1)):
            nxt = tokens[k + 1].group(0).lower()
            word = tokens[k].group(0)
            if (nxt in _VERBISH or verb_form(nxt)) and (
                not readings(word) or "NOUN" in readings(word)
            ):  # "what else are ...": no noun, no kind
                a, b = tokens[k].span()
                return text[:a] + " " * (b - a) + text[b:], tokens[k].group(0)
    return text, None


# a noun that a relative clause defines: "the change that replaced X with Y"
_CLAUSE_HEAD = re.compile(r"\b([A-Za-z]+)\s+(?:that|which|who)\s+(?=[a-z])", re.I)


def _clause_heads(rest: str, exact: list[tuple[int, int]]) -> str:
    """``rest`` with the nouns blanked that a relative clause defines by a name, code or
    number ("the change that replaced PdfFileReader with PdfReader"): the clause says which
    thing, and the noun its category, which the evidence need not write ("- Replace
    PdfFileReader with PdfReader" in a changelog is that change)."""
    for m in _CLAUSE_HEAD.finditer(rest):
        word = m.group(1)
        if "NOUN" in readings(word.lower()) and any(a >= m.end() for a, _ in exact):
            a, b = m.span(1)
            rest = rest[:a] + " " * (b - a) + rest[b:]
    return rest


def _kind_code(q: str, span: tuple[int, int]) -> bool:
    """Is the capitals at ``span`` the asked kind, not a name ("Which CVE does ... fix?":
    a CVE, whichever; "Which API..."): the word right after the question's own "which" or
    "what", before its verb?"""
    if not re.match(r"\s*(?:which|what)\s+$", q[setting_end(q) : span[0]], re.I):
        return False
    after = _TOKEN.search(q, span[1])
    word = after.group(0).lower() if after else ""
    return word in _VERBISH or bool(word and verb_form(word))


def read(question: str) -> Constraints:
    """The constraints of ``question`` (see the module docstring)."""
    q = " ".join(question.split())
    periods, taken = _periods(q)
    ents = _entities(q, taken)  # before numbers: "Claude 3 Haiku" is a name
    ents = [e for e in ents if not _kind_code(q, e[1])]
    taken += [span for _, span in ents]
    numbers = []
    for m in _NUMBER.finditer(q):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        numbers.append(m.group(0))
        taken.append(m.span())
    spans = taken + [s for _, s in ents]
    rest = "".join(
        " " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(q)
    )  # what no other constraint took
    rest = _PHRASES.sub(lambda m: " " * len(m.group(0)), rest)
    # a parenthesis of four words or more explains; it does not constrain
    rest = re.sub(r"\((?:[^()\s]+\s+){3,}[^()]*\)", lambda m: " " * len(m.group(0)), rest)
    rest = unexplained(rest)  # ... and so does one of plain words
    # "the armed forces (ARMED)": a code in parentheses names the words before it
    rest = _ALIASED.sub(" ", rest) if any(q[a - 1 : a] == "(" for _, (a, _b) in ents) else rest
    # "at what temperature", "which company made": the last noun before the verb after the
    # question word names the answer's kind, not something the answer must mention
    rest, kind = _asked_kind(rest, setting_end(q))
    if kind is None and _NAME_OF.match(q, setting_end(q)):
        kind = "name"  # "what was the name of the diarist's sister": a thing named
    rest = _clause_heads(rest, spans)
    counted = set(number_words(1, 20))
    terms = []
    rest = re.sub(r"\b[A-Za-z]{1,5}-(?=[A-Za-z])", lambda m: " " * len(m.group(0)), rest)  # "pre-"
    for w in re.findall(r"(?<![\d])[A-Za-z][A-Za-z'’]*", rest):  # not "nd" of "2nd"
        low = w.lower().replace("’", "'")
        base = base_form(low)
        if low in STOPWORDS or low in FRAMING or base in FRAMING or base in _SLOT_WORDS:
            continue
        if low in counted or base in NUMBER_WORDS or low in MONTHS or len(base) < 2:
            continue
        terms.append(stem(base))
    # the alternatives are the answer, one of them: no unit need hold both
    choice, noun = _choice(q)
    words = [w for a in choice for w in re.findall(r"[A-Za-z]+", a)] + ([noun] if noun else [])
    chosen = {stem(base_form(w.lower())) for w in words}
    return Constraints(
        q,
        _slot(q, kind, bool(choice)),
        periods=tuple(periods),
        kind=kind,
        numbers=tuple(numbers),
        entities=tuple(t for t, _ in ents if t not in choice),
        terms=tuple(dict.fromkeys(t for t in terms if t not in chosen)),
        spans=tuple(spans),
        alternatives=choice,
        extremes=_extremes(rest),
    )


def _extremes(rest: str) -> tuple[str, ...]:
    """The superlatives of what no other constraint took ("oldest", "least"); "most" only
    grades the adjective after it, and "at least" bounds a number."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", rest)]
    return tuple(
        dict.fromkeys(
            w
            for i, w in enumerate(words)
            if w != "most" and not (w == "least" and i and words[i - 1] == "at") and superlative(w)
        )
    )
