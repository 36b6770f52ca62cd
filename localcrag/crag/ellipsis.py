"""Elliptical follow-ups ("And the decoder?", "What about of France?") completed by grammar.

A follow-up that is only a phrase after "and" / "what about" borrows the whole frame of the
question before it. English grammar says which part it replaces, so no model is needed (the
bundled 135M model mostly repeats the earlier question, and loading it costs seconds):

* a prepositional phrase replaces the earlier question's last phrase with the same
  preposition ("... the capital of Australia?" + "And of France?" -> "... the capital of
  France?"), or is added at the end when there is none ("How does photosynthesis work?" +
  "And in cacti?" -> "How does photosynthesis work in cacti?");
* a noun phrase replaces the earlier noun phrase with the same head noun ("... for the
  base model?" + "What about the big model?" -> "... for the big model?"), else the last
  one of its kind, a name for a name ("How does LanceDB store vectors?" + "And Chroma?"),
  a described thing for one (end focus: the earlier question's topic comes last, "How many
  layers does the encoder have?" + "And the decoder?" -> "... does the decoder have?").

Anything else (a clause with its own verb or question word, a pronoun, more than a few
words) is not an ellipsis, and ``complete`` returns None. So is a phrase that could replace
either of two earlier ones of its kind when neither shares its head noun: "What is the t Stat
of the t-test?" + "What about the two-tail p-value?" may mean the p-value of the t-test or
(less likely, but grammar cannot tell) the t Stat of a p-value; end focus would choose the
latter ("What is the t Stat of the two-tail p-value?"), so the choice is left to the model
or the keyword fallback rather than guessed.

``resolve_it`` puts the earlier question's last noun phrase in place of a lone "it" ("Who
approved the travel budget?" + "How much did it cost?" -> "How much did the travel budget
cost?"): end focus again (the last phrase not inside a longer one; after do-support the
subject's last word is the verb, after "is/was" a regular participle: "How much did the travel
budget cost?" and "When is the compost bin emptied?" name "the travel budget", "the compost bin"). Only "it": "they" would need number agreement ("Where do a cobot
work?"), "its" a possessive; those are left to the model or the keyword fallback.
"""

from __future__ import annotations

import re

from localcrag.textutil import (
    ARTICLES,
    BE_FORMS,
    DO_FORMS,
    PRONOUNS,
    STOPWORDS,
    WH_WORDS,
    stem,
)

OPENER = re.compile(r"^(?:and|but|also|then|what about|how about)\b[\s,]*(?:also\b\s*)?", re.I)
PREPOSITIONS = frozenset(
    "about after at before by during for from in into of on over to under with without".split()
)
DETERMINERS = ARTICLES
# a verb that ends a subject's run of words itself ("does the encoder have")
VERBS = BE_FORMS | DO_FORMS | frozenset("has have had will would can could should".split())
# the question words after which "is/was" introduces the topic ("what is label smoothing")
WH = WH_WORDS & frozenset("what who which".split())
# pronouns beside which a lone "it" is not resolved: "they" would need number agreement, "its" a possessive
OTHER_PRONOUNS = frozenset("its they them their this that these those".split())
# a phrase holding one of these is a clause or points elsewhere: not an ellipsis
CLAUSE_WORDS = VERBS | WH_WORDS | PRONOUNS
MAX_WORDS = 6
# A word never starts right after "'", "’", "." or "-": findall reached such a point only
# when no word character followed in that run (it took one mark alone), so none follows
# here either; trying again from each mark took time n^2 on a run of dots.
_TOKEN = re.compile(r"(?<!['’.-])[\w'’.-]*\w|[^\w\s]")


def _is_content(word: str) -> bool:
    """A word that can be part of a noun phrase; a lone letter is a symbol ("the t Stat",
    "the F statistic"), except the article "a" and "I"."""
    low = word.lower()
    if len(word) == 1 and word.isalpha():
        return low not in ("a", "i")
    return word[0].isalnum() and low not in STOPWORDS and low not in CLAUSE_WORDS


def _participle(word: str) -> bool:
    """A regular past participle ("emptied", "approved"); short "-ed" nouns ("bed", "seed") are not."""
    w = word.lower()
    return len(w) >= 5 and w.endswith("ed") and not w.endswith("eed")


def _noun_phrases(words: list[str]) -> list[tuple[int, int, bool | None]]:
    """[start, end) of the earlier question's noun phrases, and whether each is a name: the
    content words after a determiner ("the base model") or after "what/who is" ("What is
    label smoothing"), or a run of capitalised words after the first word ("LanceDB", "New
    Zealand"). A run of content words without either may hold a verb ("store vectors"), so
    it is never replaced."""
    spans = []
    for i, w in enumerate(words):
        lead = w.lower() in DETERMINERS or (
            w.lower() in BE_FORMS and i and words[i - 1].lower() in WH
        )
        if lead or (i and w[0].isupper() and (i == 1 or not words[i - 1][0].isupper())):
            a = i + 1 if lead else i
            b = a
            while (
                b < len(words) and _is_content(words[b]) and (a == i + 1 or words[b][0].isupper())
            ):
                b += 1
            if (
                w.lower() in DETERMINERS
                and i
                and b - a >= 2
                and (b == len(words) or words[b].lower() not in VERBS)
                and (
                    words[i - 1].lower() in DO_FORMS
                    or (words[i - 1].lower() in BE_FORMS and _participle(words[b - 1]))
                )
            ):
                b -= 1  # "does the base model get", "is the compost bin emptied": the verb follows the subject
            if b > a:  # kind: a name, a described thing, or (after "what is") the topic: either
                spans.append((a, b, None if w.lower() in BE_FORMS else a == i))
    return spans


def _outer(
    spans: list[tuple[int, int, bool | None]],
) -> list[tuple[int, int, bool | None]]:
    """The phrases not inside a longer one ("explainable AI", not its "AI")."""
    return [
        s for s in spans if not any(t[:2] != s[:2] and t[0] <= s[0] and s[1] <= t[1] for t in spans)
    ]


def elliptical(follow_up: str) -> list[str] | None:
    """The phrase of an elliptical follow-up ("And the decoder?" -> ["the", "decoder"]), or
    None: no "and / what about" opener, or a clause, a pronoun or more than a few words."""
    m = OPENER.match(follow_up.strip())
    if m is None:
        return None
    phrase = _TOKEN.findall(follow_up.strip()[m.end() :].rstrip("?!. "))
    low = [w.lower() for w in phrase]
    if (
        not phrase
        or len(phrase) > MAX_WORDS
        or set(low) & CLAUSE_WORDS
        or not all(w[0].isalnum() for w in phrase)
    ):
        return None
    return phrase


def complete(follow_up: str, previous: str) -> str | None:
    """The standalone question an elliptical ``follow_up`` of ``previous`` stands for."""
    phrase = elliptical(follow_up)
    if phrase is None:
        return None
    low = [w.lower() for w in phrase]
    base = _TOKEN.findall(previous.strip().rstrip("?!. "))
    if len(base) < 2:
        return None
    if low[0] in PREPOSITIONS:
        at = max((i for i, w in enumerate(base) if w.lower() == low[0]), default=None)
        words = base[:at] + phrase if at is not None else base + phrase
    else:
        noun = phrase[1:] if low[0] in DETERMINERS else phrase
        if not noun:
            return None
        name = noun[0][0].isupper()
        head = stem(noun[-1].lower())
        spans = _noun_phrases(base)
        # a capitalised head of a longer phrase is not a name of its own ("the t Stat")
        spans = [s for s in spans if not any(t[0] < s[0] and t[1] == s[1] for t in spans)]
        same = [s for s in spans if stem(base[s[1] - 1].lower()) == head]
        kind = [s for s in spans if s[2] in (name, None)]
        if not (same or kind):
            return None
        if not same and len(_outer(kind)) > 1:
            return None  # "the t Stat of the t-test" + "the p-value": either could be meant
        a, b, _ = (same or kind)[-1]
        if low[0] in DETERMINERS:  # its own determiner replaces the earlier one ("an exoskeleton")
            a -= bool(a and base[a - 1].lower() in DETERMINERS)
            noun = phrase
        words = base[:a] + noun + base[b:]
    text = " ".join(words)
    return re.sub(r"\s+([,;:)])", r"\1", text) + "?"


_IT = re.compile(r"\bit\b(?!['’])", re.I)
_OTHER = re.compile(r"\b(?:" + "|".join(sorted(OTHER_PRONOUNS)) + r")\b", re.I)


def resolve_it(follow_up: str, previous: str) -> str | None:
    """``follow_up`` with its one "it" replaced by ``previous``'s last noun phrase (with its
    determiner), or None when there is not exactly one "it" or no noun phrase to use."""
    text = follow_up.strip()
    if len(_IT.findall(text)) != 1 or _OTHER.search(text):
        return None
    base = _TOKEN.findall(previous.strip().rstrip("?!. "))
    outer = _outer(_noun_phrases(base))  # the last one: "explainable AI", not its "AI"
    if not outer:
        return None
    a, b, _ = outer[-1]
    if a and base[a - 1].lower() in DETERMINERS:
        a -= 1
    phrase = " ".join(base[a:b])
    m = _IT.search(text)
    if m is None:  # counted once above
        return None
    if m.start() == 0:
        phrase = phrase[0].upper() + phrase[1:]
    return text[: m.start()] + phrase + text[m.end() :]
