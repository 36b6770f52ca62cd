"""Decision badges shared by the answer and trace widgets (labels: localcrag.textutil),
``safe_fields``, the typed form of ``terminal_safe_fields`` that the widgets and modals use,
and ``plural``, the one way the TUI writes a count and its noun."""

from __future__ import annotations

from typing import TypeVar, cast

from localcrag.textutil import terminal_safe_fields
from localcrag.types import Action

T = TypeVar("T")

BADGE = {
    Action.CORRECT: ("CORRECT", "bold #ffffff on #2e7d32"),
    Action.AMBIGUOUS: ("AMBIGUOUS", "bold #000000 on #f9a825"),
    Action.INCORRECT: ("INCORRECT", "bold #ffffff on #c62828"),
}


def plural(n: int, word: str) -> str:
    """``1 document``, ``2 documents``: a count and its noun, as every TUI line writes it."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def safe_fields(value: T) -> T:
    """``value`` with every string in it made terminal-safe, as the same type:
    ``terminal_safe_fields`` is typed ``object -> object`` but rebuilds a string, tuple, list,
    dict or dataclass as its own type (``dataclasses.replace``, ``type(value)(...)``) and
    returns anything else as it is (only a dict subclass would come back a plain dict; the
    TUI passes events, evidence, chunks and tuples of them)."""
    return cast("T", terminal_safe_fields(value))
