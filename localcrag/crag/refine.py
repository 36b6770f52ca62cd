"""Knowledge refinement: decompose kept chunks into strips, filter, recompose.

As in the CRAG paper, a retrieved chunk holds a few useful sentences among noise. We split
each kept chunk into strips of a sentence or two, score every strip against the question
with the same evaluator, keep the strips that pass the filter threshold within a token
budget, and give them back in their original document order, one evidence item per chunk
so each citation still names a file and page.

The strips are cut to fit a *generator's* prompt. An extractive answer writes nothing, so
it needs no budget and picks its own sentences: it quotes from ``graded_evidence``, every
chunk the grader kept, whole. On the 35 questions CRAG answers of anthropic-docs'
seed-0 40, the best single sentence of the strips has a token F1 of 0.41 against the
reference, of the kept chunks 0.43 (an oracle: ``scripts/extract_pool.py``): the cut
drops answer sentences a quote could have used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from localcrag.textutil import TERMINAL, sentences
from localcrag.types import Chunk, Evidence, Grade, Strip

MIN_STRIPS = 2  # never refine a Correct action down to nothing


def decompose(chunk: Chunk, sentences_per_strip: int) -> list[str]:
    sents = sentences(chunk.text)
    if not sents:
        return [chunk.text.strip()] if chunk.text.strip() else []
    step = max(1, sentences_per_strip)
    return [join_sentences(sents[i : i + step]) for i in range(0, len(sents), step)]


def join_sentences(parts: Sequence[str]) -> str:
    """Join with a space, but keep a heading or list line (no closing punctuation) on a
    paragraph of its own, so a quote never reads "Robots Collaborative robots ...". What
    counts as closing punctuation is textutil's one ``TERMINAL`` set."""
    out = ""
    for p in parts:
        sep = " " if not out or out.rstrip()[-1:] in TERMINAL else "\n\n"
        out = f"{out}{sep}{p}" if out else p
    return out


def kept_grades(grades: Sequence[Grade], lower: float) -> list[Grade]:
    """The grades at or above ``lower``, best first; the best one alone when none is."""
    ranked = sorted(grades, key=lambda g: -g.score)
    return [g for g in ranked if g.score >= lower] or ranked[:1]


def refine(
    question: str,
    grades: Sequence[Grade],
    *,
    lower: float,
    threshold: float,
    sentences_per_strip: int,
    budget_tokens: int,
    score_texts: Callable[[str, Sequence[str]], list[float]],
    count_tokens: Callable[[str], int],
) -> tuple[list[Strip], int]:
    """Return the kept strips (document order) and how many strips were scored."""
    kept = kept_grades(grades, lower)
    candidates: list[Strip] = []
    texts: list[str] = []
    for g in kept:
        for i, text in enumerate(decompose(g.chunk, sentences_per_strip)):
            candidates.append(Strip(text, g.chunk, 0.0, i))
            texts.append(text)
    if not candidates:
        return [], 0
    scores = score_texts(question, texts)
    scored = [Strip(s.text, s.chunk, float(sc), s.order) for s, sc in zip(candidates, scores)]
    by_score = sorted(scored, key=lambda s: -s.score)
    passing = [s for s in by_score if s.score >= threshold] or by_score[:MIN_STRIPS]
    chosen: list[Strip] = []
    used = 0
    for s in passing:
        cost = count_tokens(s.text)
        if used + cost > budget_tokens and chosen:
            continue
        chosen.append(s)
        used += cost
    chosen.sort(key=lambda s: (s.chunk.source, s.chunk.char_start, s.order))
    return chosen, len(scored)


def recompose(strips: Sequence[Strip], start: int = 1) -> list[Evidence]:
    """One evidence item per chunk, its strips joined in order (gaps marked with an ellipsis)."""
    out: list[Evidence] = []
    groups: dict[str, list[Strip]] = {}
    for s in strips:
        groups.setdefault(s.chunk.chunk_id, []).append(s)
    for group in groups.values():
        parts, prev = [], None
        for s in group:
            if prev is not None and s.order != prev + 1:
                parts.append("…")
            parts.append(s.text)
            prev = s.order
        c = group[0].chunk
        out.append(
            Evidence(
                n=start + len(out),
                text=join_sentences(parts),
                source=c.source,
                page=c.page_start,
                score=max(s.score for s in group),
                chunk_id=c.chunk_id,
                locator=c.locator,
                heading=c.heading,
            )
        )
    return out


def graded_evidence(grades: Sequence[Grade], lower: float, start: int = 1) -> list[Evidence]:
    """The chunks the grader kept, whole and best first, each scored by its grade: what an
    extractive answer quotes from (a quote is not bound by the prompt budget the strips are)."""
    kept = kept_grades(grades, lower)
    return chunks_as_evidence([g.chunk for g in kept], [g.score for g in kept], start)


def chunks_as_evidence(
    chunks: Sequence[Chunk], scores: Sequence[float] | None = None, start: int = 1
) -> list[Evidence]:
    """Standard RAG: whole chunks, in retrieval order."""
    scores = scores or [1.0 / (i + 1) for i in range(len(chunks))]
    return [
        Evidence(
            n=start + i,
            text=c.text,
            source=c.source,
            page=c.page_start,
            score=sc,
            chunk_id=c.chunk_id,
            locator=c.locator,
            heading=c.heading,
        )
        for i, (c, sc) in enumerate(zip(chunks, scores))
    ]
