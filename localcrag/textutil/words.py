"""Words, the one stop-word list, base forms, stems, and the refusal test."""

from __future__ import annotations

import re
import unicodedata

from localcrag.textutil.stemmer import stem

# English function words: articles, pronouns, prepositions, conjunctions, auxiliaries and
# modals, question words, quantifiers, and (the last line) the reflexive pronouns,
# particles and adverbs of NLTK's English list this one lacked ("kicked Ethelred out",
# "unify themselves": no noun an answer must hold). The fusion weights in
# localcrag/data/grader_fusion.json were fitted with the list less its last line; the
# grader's figures (make readme) are measured with the whole list. Changing it changes
# grader features: re-run tests/unit/crag/test_grade.py and make readme, and refit
# (scripts/fit_grader.py) if the grader's figures move.
STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto upon about
    above below over under between among through during before after since until while as than
    so such is are was were be been being am do does did doing done have has had having can
    could may might must shall should will would i me my we our us you your he him his she her
    it its they them their this that these those there here what which who whom whose when
    where why how not no nor only own same too very s t just also any all both each few more
    most other some many much one ones whether either neither yet via per etc
    myself ours ourselves yours yourself yourselves himself hers herself itself theirs
    themselves because against up down out off again further once now""".split()
)
WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")  # "Norman's", "don't" are one word
_REFUSAL = re.compile(r"\b(?:do not|don'?t|don t) have enough information\b")
NOT_STATED = "The documents do not state it."  # a quote that found nothing that answers


# scripts written without spaces between words (Han, kana, Hangul, Thai, Lao, Khmer,
# Myanmar): ``words`` finds no word in them, so nothing written so can be matched word by word
_UNSPACED = re.compile(
    r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    r"\uac00-\ud7af\uf900-\ufaff]"
)


def unspaced(text: str, least: int = 2) -> bool:
    """Does ``text`` hold ``least`` or more characters of a script written without spaces
    between words ("歌山镇农贸市场"), whose words this toolkit cannot tell apart?"""
    return len(_UNSPACED.findall(text)) >= least


def words(text: str) -> list[str]:
    """Lower-case word tokens of ``text`` (curly apostrophes made straight)."""
    return [m.group().lower().replace("\u2019", "'") for m in WORD.finditer(text)]


def base_form(word: str) -> str:
    """Lower case without possessive or plural ending ("grids" -> "grid", "companies" ->
    "company", "Norman's" -> "norman"): deliberately conservative, for the grader's terms."""
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith("sses"):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def term_spans(text: str, stop: frozenset[str] = STOPWORDS) -> list[tuple[str, int, int]]:
    """(base form, start, end) for every content word of ``text``, in order."""
    out = []
    for m in WORD.finditer(text):
        raw = m.group().lower().replace("\u2019", "'")
        if raw in stop or raw.split("'")[0] in stop:
            continue
        out.append((base_form(raw), m.start(), m.end()))
    return out


def terms(text: str, stop: frozenset[str] = STOPWORDS) -> list[str]:
    """Base forms of the content words of ``text``, in order (repeats kept)."""
    return [t for t, _, _ in term_spans(text, stop)]


def stems(text: str, stop: frozenset[str] = STOPWORDS) -> list[str]:
    """Porter stems of the content words, in order; single letters are dropped (digits kept)."""
    return [stem(t) for t in terms(text, stop) if len(t) > 1 or t.isdigit()]


def content_words(text: str, stop: frozenset[str] = STOPWORDS) -> set[str]:
    """The set of :func:`stems`: what two texts share when they talk about the same things."""
    return set(stems(text, stop))


def states_nothing(text: str) -> bool:
    """Does the answer claim nothing: a refusal (:func:`is_refusal`), or a quote that found
    nothing and says :data:`NOT_STATED`?"""
    return is_refusal(text) or text.strip().startswith(NOT_STATED)


def is_refusal(text: str) -> bool:
    """Did the answer decline ("I don't have enough information ...", any case, quotes)?"""
    norm = " ".join(text.lower().replace("\u2019", "'").split())
    return bool(_REFUSAL.search(norm))


# A code, part number, date or ID: a token with a digit and 4+ characters ("DOC0123",
# "2010-06-29", "A-113"), or an all-capitals word of 3+ letters ("TSLA", "ANOVA").
# (The first character is checked before the digit lookahead, which is bounded: a run of
# dots or slashes is otherwise scanned again from each of its characters, n^2.)
_IDENT = re.compile(
    r"(?<![\w-])(?=[A-Za-z0-9])(?=[\w./:-]{0,80}\d)[A-Za-z0-9][\w./:-]{2,}[A-Za-z0-9](?![\w-])"
    r"|(?<![\w-])[A-Z]{3,}(?:-[A-Z0-9]+)*(?![\w-])"
)


def identifiers(text: str) -> list[str]:
    """The exact identifiers of a text (codes, part numbers, dates, IDs), in order, once each."""
    return list(dict.fromkeys(m.group(0).rstrip(".:") for m in _IDENT.finditer(text)))


def holds(text: str, ident: str) -> bool:
    """Does ``text`` hold ``ident`` verbatim (any case), as a whole token ("DOC0012" is not in "DOC00123")?"""
    return re.search(r"(?<![\w-])" + re.escape(ident) + r"(?![\w-])", text, re.I) is not None


def folded(text: str) -> str:
    """``text`` without accents ("Germán" -> "German"), as a full-text index folds it: a
    name written in capitals without its accent ("CORVINO GERMAN") is the same name. Letters
    with no plain form (ß, ø) stay as they are."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
