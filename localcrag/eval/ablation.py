"""Answer ablation: a passage with the sentences that hold a known answer span removed.

This is the negative that tests *containment* rather than topic: same document, same
words, same subject, only the answer is gone. The evaluation's ``ablated`` pairs and
scripts/fit_withheld.py's ``abl`` negatives are both built here, so the two can never
drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from localcrag.ingest.chunking import split_sentences


def answer_sentence_ids(spans: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """Indices of the sentence spans that overlap the character span [start, end)."""
    return [i for i, (a, b) in enumerate(spans) if a < end and start < b]


def ablate(text: str, answers: Sequence[tuple[int, int]]) -> str | None:
    """``text`` without every sentence that overlaps any (start, end) answer span.

    None when nothing would be left, or when no sentence holds an answer (the spans do
    not point into ``text``): an ablated passage must really have lost something.
    """
    spans = split_sentences(text)
    drop: set[int] = set()
    for start, end in answers:
        if 0 <= start < end <= len(text):
            drop.update(answer_sentence_ids(spans, start, end))
    if not drop:
        return None
    kept = [text[a:b] for i, (a, b) in enumerate(spans) if i not in drop]
    out = " ".join(s.strip() for s in kept if s.strip())
    return out or None
