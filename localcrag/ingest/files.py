"""Names and errors shared by every parser (apart from parse.py so format modules never import it)."""

from __future__ import annotations

from pathlib import Path

from localcrag.errors import BadDocument

Paragraphs = list[tuple[str, int | None]]  # (text, heading level or None)


def label(path: Path) -> str:
    """How a file is named in messages: relative to the cwd when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


def bad(path: Path, reason: str, hint: str | None = None) -> BadDocument:
    return BadDocument(f"{label(path)}: {reason}", hint)
