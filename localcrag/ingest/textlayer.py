"""Is a PDF page's text layer text? A verdict from the page's own characters.

A text layer can be present and still not be text: glyphs without a Unicode mapping come out
as U+FFFD or control characters (a filed tax form whose every glyph maps to U+0001), a font
with a broken ToUnicode map gives private-use characters, glyph numbers read as code points
give runs of Latin Extended letters ("ĂŶŶƵĂů"), and a map written with its bytes swapped
gives CJK-looking characters whose low byte is 0 ("䴀甀氀琀" for "Mult"). Such a page is
"indexed" and can never be found, so ``pdf.fitz_pages`` reads it by OCR like a page
without a text layer.

The verdict looks at characters only, never at words: a page of another language, of
figures and codes, or of mathematics has none of these characters in any number, so it stays
usable whatever its words. Whitespace and format characters (soft hyphens, joiners) are not
counted. One pass over the characters: well under a millisecond for a page of text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

BAD_SHARE = 0.3  # of a page's characters: unmapped (U+FFFD), control, private-use, unassigned
GLYPH_ID_SHARE = 0.5  # of its letters: Latin Extended-A/B (U+0100-U+024F)
MIN_LETTERS = 20  # fewer letters say nothing about their script
_UNMAPPED = {"Cc", "Cn", "Co", "Cs"}  # control, unassigned, private use, surrogate


def garbage(texts: Iterable[str]) -> str | None:
    """Why the text layer made of ``texts`` (a page's lines) is not text, or None when it
    reads as text (or is too short to judge; an empty page is None)."""
    chars = bad = letters = glyph_ids = swapped = 0
    for text in texts:
        for ch in text:
            if ch.isspace():
                continue
            cat = unicodedata.category(ch)
            if cat == "Cf":
                continue
            chars += 1
            code = ord(ch)
            if cat in _UNMAPPED or code == 0xFFFD:
                bad += 1
            elif cat[0] == "L":
                letters += 1
                if 0x100 <= code <= 0x24F:
                    glyph_ids += 1
                elif code > 0xFF and not code & 0xFF and 0x20 < code >> 8 < 0x7F:
                    swapped += 1
    if not chars:
        return None
    if bad >= BAD_SHARE * chars:
        return f"{bad} of its {chars} characters have no Unicode mapping"
    if swapped >= BAD_SHARE * chars:
        return f"{swapped} of its {chars} characters are byte-swapped"
    if letters >= MIN_LETTERS and glyph_ids >= GLYPH_ID_SHARE * letters:
        return f"{glyph_ids} of its {letters} letters are glyph numbers, not letters"
    return None
