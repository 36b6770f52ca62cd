"""The generation stage of CRAG: a grounded, cited answer from numbered evidence.

The prompt is tuned for a 135M chat model (SmolLM2): evidence first, question last, short
instructions, and one worked example, because measured on real questions that is what
made it cite [n] instead of ignoring the markers. Citations the model invents (numbers
outside 1..n) are removed, also while streaming (``CitationFilter``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from localcrag.errors import LocalcragError
from localcrag.types import Citation, Evidence

REFUSAL = "I don't have enough information to answer that."

SYSTEM = (
    "You answer questions using only the numbered sources. After each fact, write the "
    "number of its source in square brackets, like [1]. If the sources do not contain "
    f'the answer, reply exactly: "{REFUSAL}"'
)
_EXAMPLE_USER = (
    "Sources:\n[1] (notes.txt) The Eiffel Tower is in Paris. It was finished in 1889.\n"
    "[2] (notes.txt) The Colosseum is in Rome.\n\nQuestion: When was the Eiffel Tower finished?"
)
_EXAMPLE_ANSWER = "The Eiffel Tower was finished in 1889 [1]."


def source_label(ev: Evidence) -> str:
    """Short label shown next to the evidence: file name and page, or the URL."""
    if ev.url:
        return ev.url
    name = Path(ev.source).name if ev.source else "unknown"
    return f"{name}, p. {ev.page}" if ev.page is not None else name


def _user_message(question: str, evidence: Sequence[Evidence]) -> str:
    if evidence:
        blocks = "\n".join(f"[{ev.n}] ({source_label(ev)}) {ev.text.strip()}" for ev in evidence)
    else:
        blocks = "(none)"
    return f"Sources:\n{blocks}\n\nQuestion: {question.strip()}"


def build_messages(question: str, evidence: Sequence[Evidence]) -> list[dict[str, str]]:
    """System rules, one worked example, then sources followed by the question."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": _EXAMPLE_USER},
        {"role": "assistant", "content": _EXAMPLE_ANSWER},
        {"role": "user", "content": _user_message(question, evidence)},
    ]


# --- fitting the context window ------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _prompt_tokens(llm: Any, question: str, evidence: Sequence[Evidence]) -> int:
    # +1: the model may add a BOS token that count_tokens does not see
    return llm.count_tokens(llm.chat_prompt(build_messages(question, evidence))) + 1


def _renumber(evidence: Sequence[Evidence]) -> list[Evidence]:
    return [replace(ev, n=i) for i, ev in enumerate(sorted(evidence, key=lambda e: e.n), 1)]


def _trim_to_fit(
    llm: Any, question: str, item: Evidence, max_answer_tokens: int
) -> tuple[Evidence | None, str]:
    """Longest sentence-boundary prefix of ``item`` that fits (words if no sentence does)."""
    for splitter in (_SENTENCE_END, re.compile(r"\s+")):
        parts = splitter.split(item.text.strip())
        lo, hi = 0, len(parts) - 1  # binary search over the number of parts kept
        while lo < hi:
            mid = (lo + hi + 1) // 2
            cand = replace(item, n=1, text=" ".join(parts[:mid]))
            if llm.fits(_prompt_tokens(llm, question, [cand]), max_answer_tokens):
                lo = mid
            else:
                hi = mid - 1
        if lo > 0:
            return replace(item, n=1, text=" ".join(parts[:lo])), " ".join(parts[lo:])
    return None, item.text


def fit_evidence(
    llm: Any, question: str, evidence: Sequence[Evidence], max_answer_tokens: int
) -> tuple[list[Evidence], list[Evidence]]:
    """(kept, dropped) so that prompt + answer fit n_ctx.

    Drops the lowest-scoring items first; survivors keep their order and are renumbered
    1..n. When a single item is still too big its text is cut at a sentence boundary and
    the cut-off tail is reported in ``dropped`` (same n/source, text = the removed part),
    so the caller can emit EvidenceTrimmed and nothing is lost silently.
    """
    need = _prompt_tokens(llm, question, [])
    if not llm.fits(need, max_answer_tokens):
        raise LocalcragError(
            f"the question is too long for the context window: it needs {need} tokens plus "
            f"{max_answer_tokens} for the answer, but n_ctx is {llm.n_ctx}",
            "shorten the question, or raise the n_ctx setting",
        )
    kept = list(evidence)
    dropped: list[Evidence] = []
    while kept:
        if llm.fits(_prompt_tokens(llm, question, _renumber(kept)), max_answer_tokens):
            return _renumber(kept), dropped
        if len(kept) == 1:
            break
        worst = min(kept, key=lambda e: (e.score, -e.n))
        kept.remove(worst)
        dropped.append(worst)
    if kept:
        item = kept[0]
        trimmed, tail = _trim_to_fit(llm, question, item, max_answer_tokens)
        dropped.append(replace(item, text=tail))
        if trimmed is not None:
            return [trimmed], dropped
    return [], dropped


# --- citations -----------------------------------------------------------------------

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


def _clean(text: str, n_evidence: int, cited: list[int]) -> str:
    def repl(m: re.Match[str]) -> str:
        valid = [k for k in dict.fromkeys(_numbers(m.group(2))) if 1 <= k <= n_evidence]
        for k in valid:
            if k not in cited:
                cited.append(k)
        return m.group(1) + "".join(f"[{k}]" for k in valid) if valid else ""

    return _MARKER.sub(repl, text)


def clean_citations(text: str, n_evidence: int) -> tuple[str, list[int]]:
    """Drop invented citations, write "[1, 2]" as "[1][2]"; return text and cited numbers."""
    cited: list[int] = []
    return _clean(text, n_evidence, cited), cited


class CitationFilter:
    """Streaming ``clean_citations``: holds back a partial "[.." until it can decide.

    The concatenated output equals ``clean_citations(whole_text)[0]``.
    """

    def __init__(self, n_evidence: int) -> None:
        self.n_evidence = n_evidence
        self.cited: list[int] = []
        self._buf = ""

    def feed(self, piece: str) -> str:
        self._buf += piece
        cut = len(self._buf)
        m = _PARTIAL.search(self._buf)
        if m and len(self._buf) - m.start() <= _MAX_HELD:
            cut = m.start()
        elif self._buf.endswith(" "):
            cut -= 1  # the space may belong to a marker that has not started yet
        out, self._buf = self._buf[:cut], self._buf[cut:]
        return _clean(out, self.n_evidence, self.cited)

    def flush(self) -> str:
        out, self._buf = self._buf, ""
        return _clean(out, self.n_evidence, self.cited)


def make_citations(cited: Sequence[int], evidence: Sequence[Evidence]) -> tuple[Citation, ...]:
    """Citation values for the cited numbers, in citation order (unknown numbers skipped)."""
    by_n = {ev.n: ev for ev in evidence}
    return tuple(
        Citation(n=k, source=by_n[k].source, page=by_n[k].page, url=by_n[k].url)
        for k in cited
        if k in by_n
    )


def is_refusal(text: str) -> bool:
    """Did the model decline (the REFUSAL sentence, give or take quotes and case)?"""
    norm = " ".join(text.lower().replace("’", "'").split())
    return "don't have enough information" in norm or "do not have enough information" in norm


# --- generation ----------------------------------------------------------------------


def generate(
    llm: Any,
    question: str,
    evidence: Sequence[Evidence],
    *,
    max_answer_tokens: int = 256,
    temperature: float = 0.0,
    cancel: threading.Event | None = None,
) -> Iterator[str]:
    """Stream the cited answer. No evidence: the refusal, without calling the model.

    ``evidence`` should come from ``fit_evidence``; the prompt is checked eagerly, so a
    prompt that does not fit raises LocalcragError before the first piece.
    """
    if not evidence:
        return iter([REFUSAL])
    prompt = llm.chat_prompt(build_messages(question, evidence))
    pieces = llm.stream(prompt, max_answer_tokens, temperature=temperature, cancel=cancel)
    return _filtered(pieces, len(evidence))


def _filtered(pieces: Iterator[str], n_evidence: int) -> Iterator[str]:
    filt = CitationFilter(n_evidence)
    started = False
    for piece in pieces:
        out = filt.feed(piece)
        if not started:
            out = out.lstrip()
            started = bool(out)
        if out:
            yield out
    tail = filt.flush()
    if not started:
        tail = tail.lstrip()
    if tail.rstrip():
        yield tail.rstrip()
