"""The one sentence splitter: character spans, rule-based (no nltk), for chunks, strips,
evidence trimming, quoting and the answer's own sentences.

Kept from the chunker's splitter, the best of the five the project had: it knows
abbreviations, initials, decimals, list enumerators, bullets and title lines, and a
line that ends in a hyphen (a PDF line break inside a word or a compound) never ends a
sentence there.
"""

from __future__ import annotations

import re

# Abbreviations that (almost) never end a sentence, even before a capitalised word.
_NO_BREAK = frozenset(
    "mr mrs ms dr prof sr st rev hon gen col lt sgt capt gov sen rep mt ft "
    "e.g i.e cf vs viz fig figs eq eqs sec ch no nos vol vols pp al approx ca resp "
    "dept est ed eds jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
TERMINATORS = r"[.!?\u2026]+|[\u3002\uff01\uff1f]"  # what can end a sentence
# TERMINATORS tried from the first stop of a run only (the look-behind binds to the first
# alternative): a pattern that tried a run of dots from each of them took time n^2
STOP_RUN = r"(?<![.!?\u2026])" + TERMINATORS
_END = re.compile(  # terminator(s), closing quotes/brackets, then whitespace (CJK: none needed)
    r"(" + STOP_RUN + r")([\"'\u201d\u2019)\]\u00bb]*)(\s+|(?<=[\u3002\uff01\uff1f])(?=\S))"
)
_BULLET = re.compile(
    r"[ \t]*(?:[-*\u2022\u25aa\u25e6\u2023\u2013\u00b7]|\d{1,3}[.)]|[A-Za-z][.)])[ \t]+\S"
)
_ENUM = re.compile(r"\d{1,3}|[A-Za-z]|[ivxIVX]{1,5}")
TERMINAL = ".!?:;\u2026\u3002\uff01\uff1f\"'\u201d\u2019)"  # a line ending in one of these is done
_MARKERS = re.compile(r"(?:[ \t]*\[\d+\])+")  # citation markers that follow a sentence end
_BROKEN = re.compile(r"([a-z])-[ \t]*\n\s*([a-z])")
MAX_SENTENCE_CHARS = 2000  # a longer run without a sentence end is cut at a blank
_LOOK_BACK = 64  # characters looked back for the word before a period
_ENDED = re.compile(r"(?:" + STOP_RUN + r")[\"')\]]*(?:[ \t]*\[\d+\])*\s*$")


def _segments(text: str) -> list[tuple[int, int]]:
    """Hard boundaries: blank lines, bullet/numbered lines, and short title-like lines
    (not after a line that ends in "," "-" or "(": a wrapped line, or a PDF hyphen)."""
    segs: list[tuple[int, int]] = []
    start = pos = 0
    prev_line = ""
    for line in text.split("\n"):
        end = pos + len(line)
        stripped = line.strip()
        if not stripped:
            if pos > start:
                segs.append((start, pos))
            start = end + 1
        elif pos > start and (
            _BULLET.match(line)
            or (len(prev_line) < 40 and not stripped[0].islower() and prev_line[-1] not in ",-(")
        ):
            segs.append((start, pos))
            start = pos
        if stripped:
            prev_line = stripped
        pos = end + 1
    if start < len(text):
        segs.append((start, len(text)))
    return segs


def _is_break(text: str, seg_start: int, m: re.Match) -> bool:
    """Decide whether the punctuation matched by ``_END`` ends a sentence."""
    if m.group(3) and m.end() < len(text) and text[m.end()].islower():
        return False
    if m.group(1) != ".":
        return True
    # every look-back is bounded (_LOOK_BACK): unbounded ones made a long line quadratic
    near = max(seg_start, m.start() - _LOOK_BACK)
    ws = max(text.rfind(" ", near, m.start()), text.rfind("\n", near, m.start()))
    if ws < 0 and near > seg_start:
        return True  # a "word" longer than _LOOK_BACK is no abbreviation
    token = text[max(ws + 1, seg_start) : m.start()].lstrip("([{\"'\u201c\u2018")
    if len(token) == 1 and token.isalpha():
        return False  # initials ("J. Smith"), "p. 12"
    if token.lower() in _NO_BREAK:
        return False
    return not (_ENUM.fullmatch(token) and _line_starts_at(text, seg_start, m.start() - len(token)))


def _line_starts_at(text: str, seg_start: int, at: int) -> bool:
    """Only blanks between the start of the line (or segment) and ``at``: a list enumerator."""
    i = at - 1
    while i >= seg_start and text[i] != "\n" and text[i].isspace():
        i -= 1
    return i < seg_start or text[i] == "\n"


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences in ``text``, whitespace trimmed, in order.

    Blank lines and bullet lines always break; ``.``, ``!``, ``?`` break before a
    non-lowercase word unless the word before is an abbreviation (e.g., Dr., Fig.), an
    initial, or a list enumerator; decimals never break.
    """
    spans: list[tuple[int, int]] = []
    for seg_start, seg_end in _segments(text):
        cur = seg_start
        for m in _END.finditer(text, seg_start, seg_end):
            if _is_break(text, seg_start, m):
                _add_span(text, cur, m.end(2), spans)
                cur = m.end()
        _add_span(text, cur, seg_end, spans)
    return spans


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`split_sentences`)."""
    return [text[a:b] for a, b in split_sentences(text)]


def sentence_pieces(text: str) -> list[str]:
    """``text`` cut after each sentence and the citation markers right after it ("... end.
    [2]"); the pieces joined give ``text`` back, whitespace included."""
    cuts: list[int] = []
    for _, b in split_sentences(text):
        m = _MARKERS.match(text, b)
        b = m.end() if m else b
        if not cuts or b > cuts[-1]:
            cuts.append(b)
    pieces, prev = [], 0
    for cut in cuts:
        if cut > prev:
            pieces.append(text[prev:cut])
            prev = cut
    if prev < len(text):
        if pieces and not text[prev:].strip():
            pieces[-1] += text[prev:]
        else:
            pieces.append(text[prev:])
    return pieces


def ends_sentence(piece: str) -> bool:
    """Does this (streamed) text end with a finished sentence: a terminator, maybe closing
    quotes and citation markers, or a newline?"""
    return "\n" in piece[len(piece.rstrip()) :] or bool(_ENDED.search(piece))


def _add_span(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Trim, and cut a run-on "sentence" (no terminator: a log line, a single-line dump) into
    pieces of at most MAX_SENTENCE_CHARS at a blank, so no later step sees a giant sentence."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    while end - start > MAX_SENTENCE_CHARS:
        lo, hi = start + MAX_SENTENCE_CHARS // 2, start + MAX_SENTENCE_CHARS
        cut = max(text.rfind(" ", lo, hi), text.rfind("\n", lo, hi))
        cut = cut if cut > start else hi
        _add_span(text, start, cut, out)
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))


def dehyphenate(text: str) -> str:
    """Join words a PDF broke over lines ("Trans-\\nformer" -> "Transformer"), drop soft hyphens."""
    return _BROKEN.sub(r"\1\2", text.replace("\u00ad", ""))
