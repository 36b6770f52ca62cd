"""The CRAG decision (Yan et al. 2024, section 4.3), on calibrated chunk scores.

Correct when any chunk reaches the upper threshold; Incorrect when every chunk is
below the lower one; Ambiguous otherwise. With no chunks at all the action is Incorrect.
A chunk whose grading failed (``Grade.error``: a fallback score) is no verdict:
it can make the decision neither Correct nor Incorrect, so a run where grading failed is
Correct only on a chunk that was graded, and otherwise Ambiguous, saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath

from localcrag.crag.answer.binding import Bound, Idf, bindings, described
from localcrag.textutil import unspaced
from localcrag.types import Action, Chunk, Decision, Grade


def decide(
    grades: Sequence[Grade],
    upper: float,
    lower: float,
    basis: str = "settings",
    question: str | None = None,
    idf: Idf | None = None,
) -> Decision:
    """``basis`` says where the thresholds came from (kept on the decision for the trace).
    With ``question``, Correct and Ambiguous also need a passage kept (at or above
    ``lower``) with a unit that binds every constraint of the question
    (``crag/binding``); without one the documents do not answer it: Incorrect, saying what
    no passage holds and which passage came closest. A question in a script written without
    spaces (Chinese, Japanese, Thai) cannot be checked so: Correct becomes Ambiguous."""
    d = replace(_decide(grades, upper, lower), basis=basis)
    if question is None or any(g.error for g in grades):
        return d
    if d.action is Action.INCORRECT:
        # every passage under the lower threshold: the refusal still says what the one
        # holding most of the question lacks (the asked county's row, not its column)
        chunks = [g.chunk for g in grades]
        closest = _closest(question, chunks, idf)
        return d if closest is None or not closest.held else _lacking(d, closest, chunks)
    if unspaced(question) and d.action is Action.CORRECT:
        # "歌山镇农贸市场的总建筑面积是多少平方？": no word of it can be told apart, so no
        # passage can be checked to hold them; the badge says only what was checked
        return replace(
            d,
            action=Action.AMBIGUOUS,
            reason=f"{d.reason}, but the question is written in a script without spaces "
            "between words, which the check of its parts cannot read",
        )
    kept = [g.chunk for g in grades if g.score >= lower]
    closest = _closest(question, kept, idf)
    if closest is None:
        return d
    where = PurePath(kept[closest.unit.n - 1].source).name
    return replace(
        _lacking(d, closest, kept),
        action=Action.INCORRECT,
        reason=f"{d.reason}, but no passage holds {described(closest.missing)} (closest: {where})",
    )


def _closest(question: str, chunks: Sequence[Chunk], idf: Idf | None) -> Bound | None:
    """The unit of ``chunks`` that came nearest to binding ``question``; None when one binds
    all of it, or ``chunks`` has no unit."""
    found = bindings(question, chunks, idf)
    return None if not found or found[0].complete else found[0]


def _lacking(d: Decision, closest: Bound, chunks: Sequence[Chunk]) -> Decision:
    """``d`` saying what no passage holds and which unit, of which chunk, came closest."""
    return replace(
        d,
        missing=closest.missing,
        closest=closest.unit.text,
        closest_chunk=chunks[closest.unit.n - 1],
    )


def _decide(grades: Sequence[Grade], upper: float, lower: float) -> Decision:
    if lower > upper:
        raise ValueError(f"lower_threshold ({lower}) must not exceed upper_threshold ({upper})")
    if not grades:
        return Decision(Action.INCORRECT, 0.0, upper, lower, "nothing was retrieved")
    failed = [g for g in grades if g.error]
    if failed:
        return _partly_graded(grades, failed, upper, lower)
    best = max(g.score for g in grades)
    n_up = sum(g.score >= upper for g in grades)
    if n_up:
        return Decision(
            Action.CORRECT,
            best,
            upper,
            lower,
            f"{n_up} of {len(grades)} chunks scored at or above {upper:.2f}",
        )
    if best < lower:
        b, lo = apart(best, lower)
        return Decision(
            Action.INCORRECT,
            best,
            upper,
            lower,
            f"all {len(grades)} chunks scored below {lo} (best {b})",
        )
    b, up = apart(best, upper)
    return Decision(
        Action.AMBIGUOUS,
        best,
        upper,
        lower,
        f"best chunk scored {b}, between {apart(best, lower)[1]} and {up}",
    )


def apart(score: float, bound: float) -> tuple[str, str]:
    """Both numbers with as many decimals (2 to 4) as it takes for the printed comparison to
    be true: 0.759 below 0.760, never "0.76, between 0.51 and 0.76"."""
    for digits in (2, 3, 4):
        a, b = f"{score:.{digits}f}", f"{bound:.{digits}f}"
        if (a == b) == (score == bound):
            return a, b
    return f"{score:.4f}", f"{bound:.4f}"


def _partly_graded(
    grades: Sequence[Grade], failed: Sequence[Grade], upper: float, lower: float
) -> Decision:
    sound = [g for g in grades if not g.error]
    best = max(g.score for g in grades)
    why = f"grading failed for {len(failed)} of {len(grades)} chunks ({failed[0].error})"
    top = max((g.score for g in sound), default=0.0)
    if sound and top >= upper:
        return Decision(
            Action.CORRECT,
            top,
            upper,
            lower,
            f"{sum(g.score >= upper for g in sound)} graded chunk(s) scored at or above {upper:.2f}; {why}",
        )
    return Decision(
        Action.AMBIGUOUS,
        best,
        upper,
        lower,
        f"{why}: their fallback scores decide nothing, so the passages are used unchecked",
    )


def ungraded_decision(grades: Sequence[Grade], error: str, upper: float, lower: float) -> Decision:
    """Ambiguous, never Incorrect, when the grader failed as a whole: ungraded passages are
    no evidence that the documents lack the answer (the web is still consulted on Ambiguous,
    under the usual policy)."""
    best = max((g.score for g in grades), default=0.0)
    return Decision(
        Action.AMBIGUOUS,
        best,
        upper,
        lower,
        f"the passages could not be graded ({error}); all {len(grades)} are used "
        "in retrieval order, unchecked",
    )
