"""Decision badges shared by the answer and trace widgets (labels: localcrag.textutil)."""

from __future__ import annotations

from localcrag.types import Action

BADGE = {
    Action.CORRECT: ("CORRECT", "bold #ffffff on #2e7d32"),
    Action.AMBIGUOUS: ("AMBIGUOUS", "bold #000000 on #f9a825"),
    Action.INCORRECT: ("INCORRECT", "bold #ffffff on #c62828"),
}
