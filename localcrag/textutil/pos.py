"""Parts of speech of a question's words: which are nouns, which verbs.

From LemmInflect's English lexicon (every reading a word can have) and the word before it
(a determiner or a preposition makes a noun, a subject pronoun or an auxiliary a verb),
plus two facts of question grammar: a question word that is the subject is followed by its
verb ("who holds"), and after do-support the verb follows the subject ("what does the
column hold"), as after an inverted modal, where the verb is the word that takes the object
("can a taxpayer claim the deduction"). No tagger model: a closed-class reading of short
questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from localcrag.textutil.lexicon import (
    ARTICLES,
    BE_FORMS,
    DO_FORMS,
    MODALS,
    POSSESSIVES,
    WH_WORDS,
)
from localcrag.textutil.words import STOPWORDS, base_form


@lru_cache(maxsize=4096)
def readings(word: str) -> frozenset[str]:
    """The parts of speech LemmInflect's lexicon gives ``word`` or its singular (empty: a word
    it lacks); "bars" alone reads as a verb only."""
    from lemminflect import getAllLemmas

    low = word.lower()
    return frozenset(getAllLemmas(low)) | frozenset(getAllLemmas(base_form(low)))


# Before a word that is both a noun and a verb ("rent", "set", "take"): a determiner or a
# preposition makes it a noun ("on rent"); a subject pronoun, an auxiliary, a modal or
# "to" makes it a verb ("did it take", "to rent"). English grammar, a closed class.
_DEMONSTRATIVES = frozenset("this these those".split())
_NOUN_BEFORE = (
    ARTICLES
    | _DEMONSTRATIVES
    | POSSESSIVES
    | frozenset(
        "of on for in at by with about per from into over under between among each every".split()
    )
)
# words that open an object's noun phrase: a bare verb-or-noun right before one takes it
_OBJECT_OPENERS = ARTICLES | _DEMONSTRATIVES | POSSESSIVES
_QUANTIFIERS = frozenset("many few several more most much some any no all both".split())
# prepositions that follow an inverted modal's verb at its clause's end ("supply at most")
_CLAUSE_END = frozenset("at in on for per to from with by up".split())
_VERB_BEFORE = (
    BE_FORMS | DO_FORMS | MODALS | frozenset("it they we you i he she to has have had".split())
)


def is_noun(words: Sequence[str], i: int) -> bool:
    """Is ``words[i]`` used as a noun? A word only a noun (or one the lexicon lacks: names,
    codes, jargon) is; one only a verb, adjective or adverb is not; one that can be both is
    read from the word before it, and the last word after a noun is a participle ("when
    was the budget set")."""
    found = readings(words[i])
    if not found or found <= {"NOUN", "PROPN"}:
        return True
    before = words[i - 1].lower() if i else ""
    plural = words[i].lower().endswith("s") and base_form(words[i]) != words[i].lower()
    if before in _QUANTIFIERS and "VERB" in found and plural:
        return True  # "how many bars": the lexicon knows "bar" only as a verb
    if before in _NOUN_BEFORE and "VERB" in found and words[i][:1].islower():
        return True  # "on rent", "the set"
    if "NOUN" not in found:
        return False
    if before in _NOUN_BEFORE:
        return True
    if "VERB" in found and i > 1 and words[i - 2].lower() in _VERB_BEFORE:
        if before == "not" or readings(before) == {"ADV"}:
            return False  # "can safely handle", "does not support": an adverb, then the verb
    if before in ("that", "which", "who") and "VERB" in found:
        return False  # "a problem that rests within": a relative clause's verb
    if "VERB" in found and i and words[i - 1][:1].isupper() and not readings(words[i - 1]):
        if words[i][:1].islower():
            return False  # "did Anthropic launch", "Voyage AI returns": a name, then its verb
    if "VERB" in found and i > 1 and i == len(words) - 1 and words[i][:1].islower():
        name = words[i - 1]  # "the rate the Radio One supports": the clause's verb ends it
        if name[:1].isupper() and not name.endswith(("'s", "\u2019s")) and verb_form(words[i]):
            return False  # (not "the Radio One's samples": a possessive's noun)
    if before in _VERB_BEFORE or "VERB" not in found:
        return before not in _VERB_BEFORE
    last = i == len(words) - 1
    if "VERB" in found and i == 1 and words[0].lower() in WH_WORDS:
        return False  # "who holds ...": the question word is the subject
    do = next((k for k, w in enumerate(words[:5]) if w.lower() in DO_FORMS), None)
    if "VERB" in found and do is not None and i > do + 1:
        then = words[i + 1].lower() if not last else ""
        prior = readings(words[i - 1])
        if last or then in STOPWORDS or "NOUN" in prior or not prior:
            # "what does the column hold ...", "how much did Acme pay for", "did pypdf stop"
            return False
    modal = next((k for k, w in enumerate(words[:5]) if w.lower() in MODALS), None)
    if "VERB" in found and modal is not None and i > modal + 1 and not last:
        if words[i + 1].lower() in _CLAUSE_END:
            # "how much current can the antenna port supply at most": the verb, then a
            # preposition that closes the clause
            return False
    if "VERB" in found and modal is not None and i > modal + 1 and not last:
        if words[i + 1].lower() in _OBJECT_OPENERS and "NOUN" in readings(words[i - 1]):
            return False  # "can a taxpayer claim the deduction": the verb takes its object
    after = words[i + 1].lower() if not last else ""
    if (
        "VERB" in found
        and after in STOPWORDS
        and "NOUN" in readings(before)
        and verb_form(words[i])
    ):
        if before not in STOPWORDS and "ADJ" not in readings(before):
            return False  # "which text goes with the row": a verb after its subject
    prior = readings(before)
    return not (last and "NOUN" in prior and "ADJ" not in prior and _participle(words[i]))


@lru_cache(maxsize=4096)
def verb_form(word: str) -> bool:
    """Is ``word`` an inflected verb ("made", "goes", "upgraded", "verifies"): a past tense,
    past participle or third-person form of one of its verbs, or a word only a verb?"""
    from lemminflect import getAllLemmas, getInflection

    low = word.lower()
    found = getAllLemmas(low)
    if set(found) == {"VERB"}:
        return True
    return any(
        low in getInflection(lemma, tag=tag) and low != lemma
        for lemma in found.get("VERB", ())
        for tag in ("VBD", "VBN", "VBZ")
    )


@lru_cache(maxsize=4096)
def superlative(word: str) -> str | None:
    """The adjective ``word`` is the superlative of ("oldest" -> "old", "least" -> "less",
    "best" -> "good"), or None: LemmInflect's lexicon reads it as an adjective whose lemma
    is another word, and it ends as superlatives do ("-st"; "older" is a comparative)."""
    from lemminflect import getAllLemmas

    low = word.lower()
    lemmas = getAllLemmas(low).get("ADJ", ())
    if not lemmas or low in lemmas or not low.endswith("st"):
        return None
    return str(lemmas[0])


@lru_cache(maxsize=4096)
def _participle(word: str) -> bool:
    """Is ``word`` a past participle of one of its verbs ("set", "written"; not "cake")?"""
    from lemminflect import getAllLemmas, getInflection

    return any(
        word.lower() in getInflection(lemma, tag="VBN")
        for lemma in getAllLemmas(word.lower()).get("VERB", ())
    )
