"""A term's definition as the answer: codebooks, data dictionaries and glossaries.

"What does GNPDEFL mean?" is answered by the line that defines the term ("GNPDEFL - GNP
deflator", "murder: Rate of murders / 100,000 population."), not by the table rows that
hold GNPDEFL as a column name: a row says what a value is, never what its column means.
The grader cannot tell the two apart (both hold the rare term; the rows hold the file's
name too), so the definition line is read structurally, as ``crag/cells`` reads a cell:

* the question asks what a term means (``asked_term``: "what does X mean / stand for /
  measure / represent / refer to / denote", "the meaning / definition of X", "what is the X
  variable / column / field / abbreviation / acronym", "what does the X column hold /
  contain / record / give / count / measure / track / store / show");
* a line of a retrieved chunk (or a list item: "- CRIM     per capita crime rate by town")
  starts with that term and a definition mark (":", " - ", "–", "=", "means", "stands for",
  "refers to", "denotes", "is defined as", or two spaces or more: a fixed-width column)
  followed by words.

Such a line binds the question (``crag/binding``: a passage holding it is relevant whatever
its grade), and the quote is that line (``definition_answer``). The patterns are English
grammar for asking and for writing a definition, written before any question of the sheets
set was run through them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from localcrag.textutil import STOPWORDS

_VERBS = r"mean|stand for|measure|represent|refer to|denote|indicate|signify"
_KINDS = r"variable|column|field|abbreviation|acronym"
_ASKS = (
    re.compile(rf"\bwhat (?:does|do|did) (?P<t>.+?) (?:{_VERBS})\b", re.I),
    re.compile(
        r"\bwhat (?:is|are|was) (?:the |an? )?(?:\w+ )?(?:meaning|definition) of (?P<t>.+?)"
        r"(?:\s+(?:in|for|from) .*)?[?.!]?$",
        re.I,
    ),
    re.compile(
        rf"\bwhat (?:is|are) (?:the )?(?P<t>\S+) (?:{_KINDS})(?:\s+(?:in|of|for|from)\b.*)?\?*$",
        re.I,
    ),
    # what a column holds is what it means: "what does the restOfWorld column hold/contain"
    re.compile(
        rf"\bwhat (?:does|do) (?:the )?(?P<t>\S+) (?:{_KINDS})s? (?:hold|contain|record|give|count|measure|track|store|show)\b",
        re.I,
    ),
    re.compile(r"^\s*define (?P<t>.+?)[?.!]?$", re.I),
    re.compile(
        r"\bhow (?:is|are|was|were) (?:the )?(?P<t>.+?) (?:defined|computed|calculated|"
        r"measured|derived)\b",
        re.I,
    ),
)
_WORD = re.compile(r"[^\W\d_]{2}")  # a word of two letters or more
# words around a term that are not the term: "the word X", "the X variable(s)"
_LEAD = frozenset("the a an word term".split())
_KIND = frozenset(k + s for k in _KINDS.split("|") for s in ("", "s"))
# ":" or "=" after the term; a dash with a space after it ("GNPDEFL - GNP deflator", never
# "murder-suicide"); or a defining verb
_MARK = (
    r"(?:\s*[:=]|\s*[\u2013\u2014]|\s+-\s|\s+(?:means|stands for|refers to|denotes|"
    r"is defined as)\b)\s*"
)


def asked_term(question: str) -> str | None:
    """The term whose meaning ``question`` asks for, or None: "What does the murder variable
    mean in the crime data?" -> "murder"."""
    for pattern in _ASKS:
        if m := pattern.search(question.strip()):
            words = m.group("t").strip(" \"'`\u201c\u201d\u2018\u2019").split()
            i, j = 0, len(words)  # noise words cut by index: one pass, whatever the length
            # "the drat variable in mtcars": what follows the kind names where it is
            kind = next(
                (
                    k
                    for k in range(1, j - 1)
                    if words[k].lower() in _KIND and words[k - 1].lower() not in _LEAD
                ),
                None,
            )
            if kind is not None and words[kind + 1].lower() in ("in", "of", "from", "for"):
                j = kind + 1
            while j - i > 1 and (
                words[i].lower() in _LEAD | _KIND or words[j - 1].lower() in _KIND
            ):  # "the column mealpct", "the str variable"
                i, j = (i + 1, j) if words[i].lower() in _LEAD | _KIND else (i, j - 1)
            term = " ".join(words[i:j])
            if term and len(term.split()) <= 4 and term.lower() not in STOPWORDS:
                return term
    return None


# a variable list's index before the term, as R's documentation writes it ("[, 4] | hp |
# Gross horsepower", "[,10]  gear  Number of forward gears")
_INDEX = r"\[\s*,\s*\d+\s*\][ \t]*\|?[ \t]*"


def definition_lines(term: str, text: str) -> list[str]:
    """The lines of ``text`` that define ``term`` (it starts them, then a definition mark,
    then a word of two letters or more: "GNPDEFL: 116.9" is a value, not a definition).
    Linear in the text: the start of each line is matched (the term and its mark), then
    the word is looked for once after it; a lookahead for the word after the mark's
    optional spaces ran once per space (a 60,000-space line took 77 s)."""
    head = re.compile(
        rf"[ \t]*(?:[-*\u2022][ \t]+|{_INDEX})?(?P<line>(?:the[ \t]+)?{re.escape(term)})"
        rf"(?:{_MARK}|[ \t]*\|[ \t]*|[ \t]{{2,}})",
        re.I,
    )
    acronym = re.compile(
        rf"[ \t]*(?:[-*\u2022][ \t]+)?(?P<line>{re.escape(term)})[ \t]+(?P<long>.+)"
    )
    out = []
    for line in text.split("\n"):
        if (
            (m := head.match(line))
            and _WORD.search(line, m.end())
            and not _CODE.search(line, m.end())
        ):
            out.append(" ".join(line[m.start("line") :].split()))
        elif (m := acronym.match(line)) and _expands(term, m.group("long").strip()):
            out.append(" ".join(line[m.start("line") :].split()))  # "NID National Identifier"
    return out


# a type or code after the mark, not words: a schema's attributes ("NID: DT_UUID -
# Feature_ID: DT_UUID", "NID: UUID - geometry: GB_CompositeCurve")
_CODE = re.compile(r"\b[A-Za-z]+_[A-Za-z_]+\b")


def _expands(term: str, long: str) -> bool:
    """Is ``long`` the words an acronym ``term`` abbreviates ("NID", "National Identifier")?
    Schwartz and Hearst's test (2003): each letter of the term, last first, found in the
    words in order, the first at the start of the first word; at most two words more than
    the term has letters, and none of them a sentence's."""
    letters = [c.lower() for c in term if c.isalnum()]
    words = long.split()
    if (
        len(letters) < 2
        or sum(c.isupper() for c in term) < 2
        or not words
        or len(words) > len(letters) + 2
        or words[0][:1].lower() != letters[0]
        or long.rstrip().endswith(".")
    ):
        return False
    text, i = long.lower(), len(long) - 1
    for k in range(len(letters) - 1, -1, -1):
        while i >= 0 and (text[i] != letters[k] or (k == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return False
        i -= 1
    return True


def definition_answer(question: str, texts: Sequence[str]) -> list[tuple[int, str]]:
    """(index of the text, line) of each distinct definition of the asked term, in order."""
    term = asked_term(question)
    if term is None:
        return []
    seen: set[str] = set()
    out = []
    for i, text in enumerate(texts):
        for line in definition_lines(term, text):
            if line.lower() not in seen:
                seen.add(line.lower())
                out.append((i, line))
    return out
