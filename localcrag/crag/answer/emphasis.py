"""Which answer-shaped span of a quoted sentence is emphasised first.

``extract.answer_spans`` finds every span of the shape a question asks for; this module
orders them, nearest to the question's words first, with general-English preferences
before distance (none taken from any data set):

* a question about a duration ("how long", "how much time") wants a number with a unit of
  time ("**3.5 days**", not "300,000 steps"); "how long" can ask a length too, so without
  a time unit any number still qualifies;
* a how-much / how-many question wants a quantity, not a calendar year: a bare year
  ("the budget for 2026 is **48,000 euros**") comes after every other number;
* a how-often question wants a frequency ("every second day", "twice a week"), which has
  no digit of its own, before any number ("once they reach 40 cm"); a when-question takes
  one too ("**every evening**"), after any date or time of day;
* a who-question wants a person: a weekday or month name ("every second Friday by
  **Priya**") comes after every other capitalised name, and so does a label before a colon
  (a table row's column header: "Date: February 2026; Owner: **Maria Okafor**").

Only the bold markers depend on this order, never which sentences are quoted.

A how-many question names what it counts ("How many observations per group"): a number is
emphasised only when that noun stands beside it ("20 observations", "Observations 21",
"h = 8 parallel attention layers"), an exact match of the type asked; "Diet A 20 529 26.45"
has no bold, where the nearest number (529, a sum) would have been invented (``counts``).

Some spans are never emphasised (``plausible``): a column header (a label before its colon,
"Date:") and a word of an evidence file's name ("**Budget**" from budget.md), which look
like answers but only say where the text is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePath

from localcrag.textutil import MONTH_NAMES, stem

MONTH = "(?:" + "|".join(m.capitalize() for m in MONTH_NAMES) + ")"  # "(?:January|...)"
DURATION = re.compile(
    r"\bhow long\b|\bhow much time\b|\b(?:what|which) (?:\w+ )?(?:duration|period)\b", re.I
)
TIME_UNIT = re.compile(
    r"(?:\d|\s)(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|"
    r"days?|weeks?|months?|years?|decades?|centur(?:y|ies))$",
    re.I,
)
OFTEN = re.compile(r"\bhow (?:often|frequently)\b", re.I)
# a frequency has no digit to find as a number: "every second day", "twice a week", "daily"
FREQUENCY = re.compile(
    r"\b(?:every|each)\s+(?:other\s+|second\s+|third\s+|few\s+|\d+\s+)?(?:day|week|"
    r"fortnight|month|year|hour|minute|morning|evening|night|weekend|time)s?\b"
    r"|\b(?:once|twice|(?:three|four|five|\d+) times)\s+(?:a|an|per|each)\s+\w+"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually)\b",
    re.I,
)
_YEAR = re.compile(r"(?:1[0-9]|20)\d\d")
_CALENDAR = re.compile(
    r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|" + MONTH[3:-1] + r")s?"
)


# "... by [Martin Thoma]", "written by Jane Doe": the agent of a passive, who did it
_AGENT = re.compile(r"\bby\s+[\[(]?$")


# "which company / manufacturer / publisher ...": the name asked is an organisation's
_ORG_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:compan(?:y|ies)|firms?|manufacturers?|makers?|"
    r"vendors?|brands?|publishers?|organi[sz]ations?|corporations?)\b",
    re.I,
)
# the legal form an organisation's name is written with: "Linn Electronics, Inc."
_LEGAL = re.compile(
    r"(?:,?\s+|\s)(?:Inc|Incorporated|Ltd|Limited|LLC|Corp|Corporation|Co|Company|GmbH|AG|"
    r"plc|PLC|LLP|S\.A)\b\.?$|^,?\s*(?:Inc|Incorporated|Ltd|Limited|LLC|Corp|Corporation|"
    r"GmbH|AG|plc|PLC|LLP)\b"
)


def by_agent(sentence: str, span: tuple[int, int]) -> bool:
    """Is the name at ``span`` the agent of a passive ("written by Jane Doe", "by [Ada]")?"""
    return bool(_AGENT.search(sentence[: span[0]]))


def sure_name(sentence: str, span: tuple[int, int], question: str) -> bool:
    """Is the name at ``span`` surely the one asked: an organisation's, written with its
    legal form, for "which company ..."; else the agent of a passive (:func:`by_agent`)?"""
    if _ORG_ASKED.search(question):
        name, after = sentence[span[0] : span[1]], sentence[span[1] : span[1] + 14]
        return bool(_LEGAL.search(name) or _LEGAL.match(after))
    return by_agent(sentence, span)


def _unlikely(sentence: str, span: tuple[int, int], shape: str | None) -> bool:
    """A span of the right shape that is probably not what the question asks for."""
    text = sentence[span[0] : span[1]]
    if shape == "number":
        return bool(_YEAR.fullmatch(text))
    if shape == "date":
        return bool(FREQUENCY.fullmatch(text))
    if shape == "name":
        return bool(_CALENDAR.fullmatch(text)) or sentence[span[1] : span[1] + 1] == ":"
    return False


def with_frequencies(
    spans: list[tuple[int, int]], sentence: str, question: str, shape: str | None
) -> list[tuple[int, int]]:
    """``spans`` plus the sentence's frequencies for "how often" (a number inside one is
    dropped) and for "when" ("every evening" answers it when no date does)."""
    if not (shape == "date" or (shape == "number" and OFTEN.search(question))):
        return spans
    often = [m.span() for m in FREQUENCY.finditer(sentence)]

    def outside(span: tuple[int, int], others: list[tuple[int, int]]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in others)

    if shape == "date":
        return spans + [f for f in often if outside(f, spans)]
    return often + [s for s in spans if outside(s, often)]


def order_spans(
    spans: Sequence[tuple[int, int]],
    sentence: str,
    question: str,
    shape: str | None,
    anchors: Sequence[int],
) -> list[tuple[int, int]]:
    """``spans`` best first: the preferences above, then nearest to a question word (``anchors``)."""
    timed = bool(DURATION.search(question))
    often = bool(OFTEN.search(question))
    return sorted(
        spans,
        key=lambda s: (
            not (shape == "name" and sure_name(sentence, s, question)),
            not (often and FREQUENCY.fullmatch(sentence[s[0] : s[1]])),
            not (timed and TIME_UNIT.search(sentence[s[0] : s[1]])),
            _unlikely(sentence, s, shape),
            min((abs(s[0] - a) for a in anchors), default=s[0]),
        ),
    )


_COUNTED = re.compile(r"\bhow many\s+((?:[A-Za-z][\w'-]*\s*){1,3})", re.I)
_NOT_NOUN = frozenset(
    "is are was were be been do does did have has had can could will would should may might "
    "in on of per for at by with from to into over under during between among about there the "
    "a an each every".split()
)


def counted(question: str) -> frozenset[str]:
    """Stems of what a how-many question counts: the words after "how many" up to a verb or
    preposition ("How many attention heads does ..." -> attention, head); none for "How many
    were sold?"."""
    m = _COUNTED.search(question)
    if m is None:
        return frozenset()
    words = []
    for w in m.group(1).lower().split():
        if w in _NOT_NOUN:
            break
        words.append(stem(w))
    return frozenset(words)


def counts(sentence: str, span: tuple[int, int], nouns: frozenset[str]) -> bool:
    """Does one of ``nouns`` stand in the span, within five words after it or two before it, with no
    other number between ("529 and each group had 20 observations": the 20 counts them)?"""
    words = r"[A-Za-z][\w'-]*|\d"
    after = re.findall(words, sentence[span[1] :])[:5]
    before = re.findall(words, sentence[: span[0]])[-2:]
    after = after[: next((i for i, w in enumerate(after) if w.isdigit()), len(after))]
    before = before[next((i + 1 for i, w in reversed(list(enumerate(before))) if w.isdigit()), 0) :]
    inside = re.findall(words, sentence[span[0] : span[1]])  # "20 observations" is one span
    return any(stem(w.lower()) in nouns for w in inside + after + before)


def file_words(sources: Iterable[str]) -> frozenset[str]:
    """The words (3+ letters, lower case) of the evidence files' names."""
    return frozenset(
        w.lower() for s in sources for w in re.findall(r"[A-Za-z]{3,}", PurePath(s).stem)
    )


def plausible(sentence: str, span: tuple[int, int], avoid: frozenset[str]) -> bool:
    """Not a column header (the label before a colon) nor only words of a file's name (``avoid``)."""
    if sentence[span[1] : span[1] + 1] == ":":
        return False
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", sentence[span[0] : span[1]])}
    return not (words and words <= avoid)
