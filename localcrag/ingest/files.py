"""Names and errors shared by every parser (apart from parse.py so format modules never import it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from localcrag.errors import BadDocument

Paragraphs = list[tuple[str, int | None]]  # (text, heading level or None)


class RawPage(NamedTuple):
    """One page as a reader returns it; ``unit``/``scope`` as in ``types.Page`` (a reader
    of printed pages may return plain (number, paragraphs) pairs)."""

    number: int
    paras: Paragraphs
    unit: str = ""
    scope: str = ""


def label(path: Path) -> str:
    """How a file is named in messages: relative to the cwd when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


def bad(path: Path, reason: str, hint: str | None = None) -> BadDocument:
    return BadDocument(f"{label(path)}: {reason}", hint)


# --- text helpers shared by the PDF and OCR readers ---------------------------------------

_BULLET = re.compile(r"(?:[-*\u2022\u25aa\u25e6\u2023\u2013\u00b7]|\d{1,3}[.)])\s")
_KEEP_HYPHEN = {"to", "and", "or", "based", "like", "wise", "level", "scale", "term", "time",
                "free", "specific", "aware", "driven", "wide", "art", "end", "the", "of"}


def join_lines(lines: list[str]) -> str:
    """Wrapped lines to one paragraph; "transduc- tion" joins, "English- to-German" keeps."""
    out = lines[0]
    for nxt in lines[1:]:
        head = nxt.split(" ", 1)[0]
        if out.endswith("-") and out[-2:-1].isalpha() and nxt[:1].islower() and not (
            "-" in head or head.rstrip(".,;:") in _KEEP_HYPHEN
        ):
            out = out[:-1] + nxt
        else:
            out += ("\n" if _BULLET.match(nxt) else " ") + nxt
    return out


def page_ranges(numbers: list[int]) -> str:
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(n) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(parts)
