"""Badges and source labels shared by the answer and trace widgets."""

from __future__ import annotations

from pathlib import Path

from localcrag.types import Action

BADGE = {Action.CORRECT: ("CORRECT", "bold #ffffff on #2e7d32"),
         Action.AMBIGUOUS: ("AMBIGUOUS", "bold #000000 on #f9a825"),
         Action.INCORRECT: ("INCORRECT", "bold #ffffff on #c62828")}


def source_label(source: str, page: int | None, page_first: bool = False) -> str:
    """File name and page; page first where the name may be cut (a narrow column)."""
    if source.startswith(("http://", "https://")):
        return source
    name = Path(source).name or source
    if not page:
        return name
    return f"p.{page} {name}" if page_first else f"{name} p.{page}"
