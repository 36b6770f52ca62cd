"""Ask as the pipeline does, without an index: grades raised by binding, the decision made
with the question, the answer quoted from the kept passages (the binding tests' probe)."""

from __future__ import annotations

from localcrag.crag.answer.binding import raise_bound
from localcrag.crag.answer.extract import extractive_answer
from localcrag.crag.decide import decide
from localcrag.types import Action, Chunk, Evidence, Grade

UPPER, LOWER = 0.76, 0.51  # the shipped fusion thresholds


def ask(question: str, *chunks: Chunk, score: float = 0.8) -> tuple[Action, str]:
    """The decision and the quoted answer, as the pipeline makes them (grades raised by
    binding, decided with the question, quoted from the kept passages)."""
    grades = raise_bound(question, [Grade(c, score, "g") for c in chunks], UPPER)
    d = decide(grades, UPPER, LOWER, question=question)
    if d.action is Action.INCORRECT:
        return d.action, " ".join(d.missing)
    evidence = [
        Evidence(i, g.chunk.text, g.chunk.source, 11, score=g.score, heading=g.chunk.heading)
        for i, g in enumerate(grades, 1)
        if g.score >= LOWER
    ]
    return d.action, extractive_answer(question, evidence).text
