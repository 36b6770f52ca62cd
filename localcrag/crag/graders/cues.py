"""Contradiction cues: does the best strip contradict a specific element of the question?

SQuAD 2.0's unanswerable questions are written from their own paragraph, so they match it
in topic and wording; what gives many of them away is one edited detail (Rajpurkar et al.
2018 list negation, antonym, entity swap, mutual exclusion). Embeddings and word overlap
cannot see that edit (the edited question copies *more* of the passage than a real one),
but three cheap text checks can, and each is oriented "1 = no contradiction found":

* ``negation_ok``  the question negates a word ("What does *not* form the basis ...") but
  no sentence of the strip containing that word carries a negation. The idioms "whether or
  not" / "may or may not" are not negations;
* ``numbers_ok``   share of the question's digit groups (years, counts) found in the strip;
* ``antonyms_ok``  the question uses a word whose antonym (small hand list) is in the strip
  while the word itself is not ("What came *after* ..." vs "... *precedes* ...").

``cue_ok`` is their product, one signal, so that a weight fitted where one cue is common
(numbers in a history article) carries over to text where another is (negations in a
technical one). Measured held-out by article in docs/evaluator.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from localcrag.crag.graders.text import NEGATIONS
from localcrag.textutil import STOPWORDS
from localcrag.textutil import base_form as stem

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_DIGITS = re.compile(r"\d+")
_PREFIX = 5  # fuzzy word match: same first 5 letters ("form" != "formal", "solved" ~ "solvable")

# General English opposites of a closed class: comparison, order in time, direction and
# quantity words, the kind every antonym dictionary lists (written by hand from that class,
# not from any data set): pairs taken from the SQuAD articles (tractable, decidable,
# deterministic, solvable, efficient, finite, ally, friend/enemy, defeat/victory ...) are
# not in it, so its figures on SQuAD stay held out.
_ANTONYM_PAIRS = (
    "first last, before after, early late, earliest latest, largest smallest, large small, most least, "
    "more less, increase decrease, high low, higher lower, highest lowest, begin end, start end, "
    "north south, east west, northern southern, eastern western, upper lower, old new, older newer, "
    "oldest newest, inside outside, always never, all none, maximum minimum, best worst, better worse"
)
ANTONYMS: dict[str, frozenset[str]] = {}
for _pair in _ANTONYM_PAIRS.split(","):
    _a, _b = _pair.split()
    ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
    ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}


def words(text: str) -> list[str]:
    """Lowercase word tokens, contractions kept whole ("isn't")."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def _is_negation(word: str) -> bool:
    return word in NEGATIONS or word.endswith("n't")


def negation_positions(ws: Sequence[str]) -> list[int]:
    """Indices of negations."""
    return [i for i, w in enumerate(ws) if _is_negation(w)]


def _same_word(a: str, b: str) -> bool:
    return a == b or (len(a) >= _PREFIX and a[:_PREFIX] == b[:_PREFIX])


def negation_ok(question: str, sentences: Sequence[str]) -> float:
    """0 when a negated question word appears in the strip only in sentences without a
    negation (or, if the word is absent, when the strip has no negation at all)."""
    qw = words(question)
    negs = negation_positions(qw)
    if not negs:
        return 1.0
    sents = [words(s) for s in sentences] or [[]]
    any_neg = any(negation_positions(s) for s in sents)
    for i in negs:
        nxt = [stem(w) for w in qw[i + 1 : i + 4] if w not in STOPWORDS][:1]
        holding = [s for s in sents if nxt and any(_same_word(stem(w), nxt[0]) for w in s)]
        if not holding:
            if not any_neg:
                return 0.0
        elif not any(negation_positions(s) for s in holding):
            return 0.0
    return 1.0


def numbers_ok(question: str, strip: str) -> float:
    """Share of the question's digit groups found in the strip; 1 when it has none."""
    nums = _DIGITS.findall(question)
    if not nums:
        return 1.0
    have = set(_DIGITS.findall(strip))
    return sum(n in have for n in nums) / len(nums)


def antonyms_ok(question: str, strip: str) -> float:
    """0 when a question word is absent from the strip but one of its antonyms is there
    (and the question does not name that antonym itself: "simple or complex?")."""
    qw, sw = set(words(question)), set(words(strip))
    for w in qw:
        if w in ANTONYMS and w not in sw and (ANTONYMS[w] & sw) - qw:
            return 0.0
    return 1.0


def cue_signals(question: str, strip: str, sentences: Sequence[str]) -> dict[str, float]:
    """The three cues and their product ``cue_ok`` for the best strip (split into sentences)."""
    neg = negation_ok(question, sentences)
    num = numbers_ok(question, strip)
    ant = antonyms_ok(question, strip)
    return {"negation_ok": neg, "numbers_ok": num, "antonyms_ok": ant, "cue_ok": neg * num * ant}
