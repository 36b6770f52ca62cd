"""The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980).

Word families meet on one stem ("retrieve"/"retrieval" -> "retriev", "evaluator"/
"evaluation" -> "evalu", "robots"/"robotic" -> "robot") where a five-letter prefix also
joined unrelated words ("inter-est"/"inter-national"). Written from the paper's five
steps, without the later "Porter2" changes; input is one lower-case word.
"""

from __future__ import annotations

from functools import lru_cache

_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("abli", "able"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _cons(w: str, i: int) -> bool:
    if w[i] in "aeiou":
        return False
    if w[i] == "y":
        return i == 0 or not _cons(w, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: the number of vowel-consonant sequences."""
    m, vowel = 0, False
    for i in range(len(stem)):
        cons = _cons(stem, i)
        if vowel and cons:
            m += 1
        vowel = not cons
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _cons(stem, i) for i in range(len(stem)))


def _double(w: str) -> bool:
    return len(w) >= 2 and w[-1] == w[-2] and _cons(w, len(w) - 1)


def _cvc(w: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "snow")."""
    return (
        len(w) >= 3
        and _cons(w, len(w) - 3)
        and not _cons(w, len(w) - 2)
        and _cons(w, len(w) - 1)
        and w[-1] not in "wxy"
    )


def _replace(w: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    """The longest matching suffix is replaced when its stem's measure exceeds ``min_m``."""
    for suffix, repl in rules:
        if w.endswith(suffix):
            stem = w[: len(w) - len(suffix)]
            return stem + repl if _measure(stem) > min_m else w
    return w


def _step1(w: str) -> str:
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        return w[:-1] if _measure(w[:-3]) > 0 else w
    for suffix in ("ed", "ing"):
        if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
            w = w[: -len(suffix)]
            if w.endswith(("at", "bl", "iz")):
                w += "e"
            elif _double(w) and w[-1] not in "lsz":
                w = w[:-1]
            elif _measure(w) == 1 and _cvc(w):
                w += "e"
            break
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    return w


def _step4(w: str) -> str:
    for suffix in sorted(_STEP4, key=len, reverse=True):
        if w.endswith(suffix):
            stem = w[: len(w) - len(suffix)]
            if suffix == "ion" and not stem.endswith(("s", "t")):
                return w
            return stem if _measure(stem) > 1 else w
    return w


@lru_cache(maxsize=65536)  # pure; the grounding check stems the same evidence words per sentence
def stem(word: str) -> str:
    """The Porter stem of a lower-case word (words of one or two letters are kept)."""
    w = word
    if len(w) <= 2:
        return w
    w = _step1(w)
    w = _replace(w, tuple(sorted(_STEP2, key=lambda r: -len(r[0]))), 0)
    w = _replace(w, tuple(sorted(_STEP3, key=lambda r: -len(r[0]))), 0)
    w = _step4(w)
    if w.endswith("e"):
        m = _measure(w[:-1])
        if m > 1 or (m == 1 and not _cvc(w[:-1])):
            w = w[:-1]
    if _measure(w) > 1 and _double(w) and w.endswith("l"):
        w = w[:-1]
    return w
