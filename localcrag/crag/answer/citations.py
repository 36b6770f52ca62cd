"""Citations in generated answers: cleaning invented markers and grounding the rest.

Both work on streamed text: ``CitationFilter`` and ``Attributor`` hold back only what
they cannot decide yet (a partial "[.." marker, a sentence-final punctuation mark).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from localcrag.textutil import STOP_RUN, content_words, is_refusal
from localcrag.types import Evidence

_NUMS = r"\d+(?:\s*(?:[,;]|-|–)\s*\d+)*"
_MARKER = re.compile(r"( ?)\[(?:(?:sources?|refs?)\s*:?\s*)?(" + _NUMS + r")\]", re.IGNORECASE)
# An unfinished marker at the end of streamed text: hold it back until it closes.
_PARTIAL = re.compile(r" ?\[(?:[a-z]{0,7}\s*:?\s*)?(?:\d+(?:\s*(?:[,;]|-|–)\s*\d*)*)?\s*$", re.I)
_MAX_HELD = 40


def _numbers(group: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2 and int(bounds[1]) - int(bounds[0]) in range(0, 20):
            out.extend(range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            out.extend(int(b) for b in bounds)
    return out


def clean_citations(text: str, n_evidence: int) -> tuple[str, list[int]]:
    """Drop invented citations, write "[1, 2]" as "[1][2]"; return text and cited numbers.

    A marker that starts a line ("[2] Robots are...") labels a restated source, not a
    claim, so it is dropped too (and not counted); attribution may re-cite the sentence.
    """
    filt = CitationFilter(n_evidence)
    return filt.feed(text) + filt.flush(), filt.cited


def renumber(
    text: str, cited: Sequence[int], evidence: Sequence[Evidence]
) -> tuple[str, list[Evidence]]:
    """Number the evidence in order of first use in ``text`` (``cited``, as ``clean_citations``
    returns it): the answer cites [1], [2], ... without gaps, and the evidence it did not
    cite follows, numbered after them. Returns the text and the renumbered evidence, in order."""
    known = {e.n for e in evidence}
    order = [n for n in cited if n in known]
    new = {old: i + 1 for i, old in enumerate(order + sorted(known - set(order)))}
    text = _CITED.sub(lambda m: f"[{new[int(m.group(1))]}]" if int(m.group(1)) in new else "", text)
    return text, sorted((replace(e, n=new[e.n]) for e in evidence), key=lambda e: e.n)


_CITED = re.compile(r"\[(\d+)\]")


class CitationFilter:
    """Streaming ``clean_citations``: holds back a partial "[.." until it can decide,
    so invented citations never reach the screen. Output joined == clean_citations'."""

    def __init__(self, n_evidence: int) -> None:
        self.n_evidence = n_evidence
        self.cited: list[int] = []
        self._buf = ""
        self._line_blank = True  # nothing but whitespace since the last newline
        self._eat_space = False  # a dropped line-initial marker: drop the space after it

    def feed(self, piece: str) -> str:
        self._buf += piece
        cut = len(self._buf)
        m = _PARTIAL.search(self._buf)
        if m and len(self._buf) - m.start() <= _MAX_HELD:
            cut = m.start()
        elif self._buf.endswith(" "):
            cut -= 1  # the space may belong to a marker that has not started yet
        out, self._buf = self._buf[:cut], self._buf[cut:]
        return self._release(out)

    def flush(self) -> str:
        out, self._buf = self._buf, ""
        return self._release(out)

    def _emit(self, raw: str, out: list[str]) -> None:
        if not raw:
            return
        if self._eat_space and raw.startswith(" "):
            raw = raw[1:]
        self._eat_space = False
        if "\n" in raw:
            self._line_blank = not raw.rsplit("\n", 1)[1].strip()
        else:
            self._line_blank = self._line_blank and not raw.strip()
        out.append(raw)

    def _release(self, raw: str) -> str:
        out: list[str] = []
        pos = 0
        for m in _MARKER.finditer(raw):
            self._emit(raw[pos : m.start()] + m.group(1), out)
            pos = m.end()
            if self._line_blank:
                self._eat_space = True
                continue
            valid = [k for k in dict.fromkeys(_numbers(m.group(2))) if 1 <= k <= self.n_evidence]
            if not valid and m.group(1) and out:  # remove the space before a dropped marker
                out[-1] = out[-1][:-1]
            self.cited.extend(k for k in valid if k not in self.cited)
            self._emit("".join(f"[{k}]" for k in valid), out)
        self._emit(raw[pos:], out)
        return "".join(out)


# --- attribution ---------------------------------------------------------------------

# a citation marker, or a sentence end followed by the next visible character
_EVENT = re.compile(r"\[(\d+)\]|(?:" + STOP_RUN + r")[\"')]*\s+(?=\S)")
# what to hold at the end of a piece: a possible sentence end, or a marker still open
_HOLD = re.compile(r"(?:(?:" + STOP_RUN + r")[\"')]*\s*|\[\d*)$")
_CITE = re.compile(r"\[\d+\]")
_ONLY_MARKS = re.compile(r"[\s\[\]\d]*")


class Attributor:
    """Grounds the citations of a streamed answer in the evidence by word overlap.

    Measured: no prompt wording made SmolLM2-135M cite reliably; it leaves most sentences
    uncited and, when it cites, often picks the wrong number ([2] for a fact from [1],
    [1] for one from [2]). So:
    * an uncited sentence gets [n] when >= ``min_share`` of its content words (at least
      3) occur in item n (the best such item);
    * a model citation [k] whose item shares under ``keep_share`` of the sentence's words
      is moved to the item that clearly supports the sentence, if one does.
    The refusal is left alone. While streaming only a sentence-final mark, or an open
    "[", is held back.
    """

    def __init__(
        self, evidence: Sequence[Evidence], min_share: float = 0.35, keep_share: float = 0.2
    ) -> None:
        self._words = [(ev.n, content_words(ev.text)) for ev in evidence]
        self._min_share = min_share
        self._keep_share = keep_share
        self._sentence = ""  # text of the current sentence so far
        self._previous = ""  # the sentence before (a "[k]" right after ". " belongs to it)
        self._held = ""

    def _shares(self, sentence: str) -> tuple[set[str], dict[int, float]]:
        words = content_words(sentence)
        shares = {n: len(words & ev) / len(words) if words else 0.0 for n, ev in self._words}
        return words, shares

    def _best(self, sentence: str) -> int:
        words, shares = self._shares(sentence)
        best = max(shares, key=lambda n: (shares[n], -n), default=0)
        ok = best and shares[best] >= self._min_share and shares[best] * len(words) >= 3
        return best if ok and not is_refusal(sentence) else 0

    def _tag(self, sentence: str, following: str) -> str:
        if following == "[" or _CITE.search(sentence):
            return ""
        best = self._best(sentence)
        return f" [{best}]" if best else ""

    def _check(self, k: int) -> str:
        """The marker to show for a model citation [k] at this point of the answer."""
        context = self._sentence if len(content_words(self._sentence)) >= 3 else self._previous
        words, shares = self._shares(context)
        if len(words) >= 3 and shares.get(k, 0.0) < self._keep_share:
            k = self._best(context) or k
        return "" if self._sentence.endswith(f"[{k}]") else f"[{k}]"

    def feed(self, text: str) -> str:
        buf, self._held = self._held + text, ""
        out, pos = [], 0
        for m in _EVENT.finditer(buf):
            body = buf[pos : m.start()]
            self._sentence += body
            if m.group(1):
                marker = self._check(int(m.group(1)))
                out.append(body + marker)
                if not _ONLY_MARKS.fullmatch(self._sentence):  # else it cites the previous one
                    self._sentence += marker
            else:
                out.append(body + self._tag(self._sentence, buf[m.end()]) + m.group(0))
                self._previous, self._sentence = self._sentence, ""
            pos = m.end()
        rest = buf[pos:]
        tail = _HOLD.search(rest)
        cut = tail.start() if tail else len(rest)
        out.append(rest[:cut])
        self._sentence += rest[:cut]
        self._held = rest[cut:]
        return "".join(out)

    def flush(self) -> str:
        tag = self._tag(self._sentence, "") if self._sentence.strip() else ""
        out, self._sentence, self._held = tag + self._held, "", ""
        return out
