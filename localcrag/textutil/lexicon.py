"""Closed classes of English words, each declared once: the forms of "be" and "do",
question words, articles, third-person and demonstrative pronouns, number words, months.

General English grammar, not words read from any data set. A module that needs a narrower
set for its own purpose builds it from these (and says why) instead of restating one.
"""

from __future__ import annotations

ARTICLES = frozenset("a an the".split())
BE_FORMS = frozenset("am is are was were be been being".split())
DO_FORMS = frozenset("do does did".split())
WH_WORDS = frozenset("what which who whom whose when where why how".split())
# the modal auxiliaries ("can a taxpayer claim ...": put before the subject, they ask)
MODALS = frozenset("can could will would shall should may might must".split())
# the possessive determiners: they open a noun phrase ("its first product")
POSSESSIVES = frozenset("its their our your my his her".split())
# third person and demonstratives: what can point back to something said earlier
PRONOUNS = frozenset(
    "it its they them their theirs he him his she her hers this that these those".split()
)
# English number words and their values. "one" is in it; a check that takes number words as
# claims leaves it out where it is mostly a pronoun ("one of the", "the best one").
NUMBER_WORDS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
# English ordinal words and their values ("first": 1 .. "twentieth": 20)
ORDINAL_WORDS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split(),
        1,
    )
}
NUMBER_WORDS.update(
    thirty=30,
    forty=40,
    fifty=50,
    sixty=60,
    seventy=70,
    eighty=80,
    ninety=90,
    hundred=100,
    thousand=1000,
    million=10**6,
    billion=10**9,
)


def number_words(low: int, high: int) -> dict[str, int]:
    """The number words whose values lie in [low, high] ("two".."twenty": 2, 20)."""
    return {w: n for w, n in NUMBER_WORDS.items() if low <= n <= high}


MONTH_NAMES = (
    "january february march april may june july august september october november december"
).split()
# month names and their abbreviations ("jan", "sept") -> the month's number
MONTHS: dict[str, int] = {
    name: i for i, full in enumerate(MONTH_NAMES, 1) for name in (full[:3], full)
}
MONTHS["sept"] = 9
