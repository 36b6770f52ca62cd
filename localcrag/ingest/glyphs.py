"""Capital I and lower-case l are one glyph in sans-serif type, so OCR reads "AI" as "Al",
"API" as "APl", "XAI" as "XAl". A word whose other letters are all capitals is an
acronym, so its l's are I's: at once when it has two capitals besides (no English word is
spelled "APl"), and, for a word with one ("Al"), when the same document shows the capitals'
reading somewhere (a heading in another font, read "AI"): "Al" alone is also a name ("Al
Gore"), "All" a word, and neither is changed without that evidence; a word whose only
capital is an I ("Ill", "Il") is left alone. A word run together with figures ("Al2O3",
aluminium) is not a word here. Only OCR'd text is read this way: a text layer says which
letter it is.

Left unsettled, a scanned report about AI answered nothing about AI: the question's "AI"
matched only the four places OCR read it so, and every one of those outranked the page
that answered (bench section 12's scan: 253 "Al" and 4 "AI").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_WORD = re.compile(r"\b[A-Za-z]+\b")


def _capitals_reading(word: str) -> str | None:
    """``word`` with its l's as I's when every other letter is a capital; else None."""
    if "l" not in word:
        return None
    rest = word.replace("l", "")
    return word.replace("l", "I") if rest and rest.isupper() else None


def settler(texts: Iterable[str]) -> Callable[[str], str]:
    """A function that settles the l-or-I words of text from the document whose OCR'd
    ``texts`` are given (they are the evidence for a one-capital word)."""
    seen = {w for t in texts for w in _WORD.findall(t)}

    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        capitals = _capitals_reading(word)
        if capitals is None:
            return word
        others = sum(c.isupper() and c != "I" for c in word)  # "Ill" has none: a word
        return capitals if others >= 2 or (others and capitals in seen) else word

    def settle(text: str) -> str:
        return _WORD.sub(one, text) if "l" in text else text

    return settle
