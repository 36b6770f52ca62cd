"""Source labels: the one way a file and page are written (prompt, citations, CLI, TUI).

The answer shaper recognises labels the model echoes with :func:`label_pattern`, which is
derived from :func:`source_label`, so a change of format here cannot silently break it.
"""

from __future__ import annotations

import re
from pathlib import PurePath


def page_label(page: int, last: int | None = None) -> str:
    """"p. 5"; "pp. 5–6" for a passage that runs over a page break."""
    return f"pp. {page}\u2013{last}" if last and last != page else f"p. {page}"


def source_label(source: str, page: int | None = None, *, url: str | None = None,
                 last_page: int | None = None, page_first: bool = False) -> str:
    """"report.pdf, p. 5"; the URL for web sources; ``page_first`` ("p. 5 report.pdf") where a
    narrow column may cut the name."""
    if url:
        return url
    if source.startswith(("http://", "https://")):
        return source
    name = PurePath(source).name or source or "unknown"
    if not page:
        return name
    pages = page_label(page, last_page)
    return f"{pages} {name}" if page_first else f"{name}, {pages}"


def label_pattern(name: str = r"[^()\n]{1,140}") -> str:
    """A regex (no groups) for a file label as :func:`source_label` writes it, with ``name``
    as the pattern for the file name and any page number."""
    sample = source_label("/NAMEX", 12345)
    return re.escape(sample).replace("NAMEX", name).replace("12345", r"\d+")


def style_label(style: str, model: str, web: bool = False) -> str:
    """What the answer is, in the user's words (shown above it in the app and by `ask`)."""
    if style == "extractive":
        return "Quoted from your documents" if not web else "Quoted from the sources"
    where = "the sources" if web else "your documents"
    return f"Written by {model or 'the model'}, checked against {where}"
