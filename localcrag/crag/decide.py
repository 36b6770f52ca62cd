"""The CRAG decision (Yan et al. 2024, section 4.3), on calibrated chunk scores.

Correct when any chunk reaches the upper threshold; Incorrect when every chunk is
below the lower one; Ambiguous otherwise. With no chunks at all the action is Incorrect.
A chunk whose grading failed (``Grade.error``: a fallback score, issue 27) is no verdict:
it can make the decision neither Correct nor Incorrect, so a run where grading failed is
Correct only on a chunk that was graded, and otherwise Ambiguous, saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from localcrag.types import Action, Decision, Grade


def decide(
    grades: Sequence[Grade], upper: float, lower: float, basis: str = "settings"
) -> Decision:
    """``basis`` says where the thresholds came from (kept on the decision for the trace)."""
    return replace(_decide(grades, upper, lower), basis=basis)


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
