"""Turn documents into page texts with heading positions, or one clear error per file.

Every format ends up as paragraphs per page. Joined-text convention (what chunk offsets
index): paragraphs within a page are joined with ``"\\n\\n"``, headings are paragraphs of
their own, pages without text are dropped, and page texts are joined with ``PAGE_SEP``
(also ``"\\n\\n"``). ``ParsedDoc.text[h.offset:h.offset + len(h.title)] == h.title``.

Encoding policy for text formats (why: silent mojibake poisons retrieval): a BOM wins
(UTF-8/16/32); else strict UTF-8; HTML may declare its charset. A file that is not valid
UTF-8 is rejected ("not UTF-8 text") unless the invalid bytes are at most 0.1% of it,
in which case they become U+FFFD and a warning is recorded. No guessing of cp1252.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from localcrag.ingest.about import About, from_opening
from localcrag.ingest.context import ReadContext
from localcrag.ingest.files import RawPage, Read, bad, broken_link
from localcrag.ingest.formats import (
    FORMATS,
    SUPPORTED,
    check_old_binary,
    reader,
    supported_text,
)
from localcrag.ingest.limits import Limits, check_text_size
from localcrag.textutil import locator
from localcrag.textutil.labels import DOCUMENT, SECTION
from localcrag.types import Page

PAGE_SEP = "\n\n"


@dataclass(frozen=True)
class Heading:
    offset: int  # into ParsedDoc.text, at the start of the heading's own paragraph
    level: int  # 1 = outermost
    title: str


@dataclass(frozen=True)
class ParsedDoc:
    """Pages plus heading positions, so chunks can name the section they come from."""

    path: Path | None
    pages: tuple[Page, ...]
    headings: tuple[Heading, ...] = ()
    warnings: tuple[str, ...] = ()
    about: About = About()  # what the document is (title, authors, running header)

    def context_at(self, offset: int) -> str | None:
        """The context a passage at ``offset`` is read in: the document's title and running
        header, then the section heading in force ("Annual report 2019 › Expenses")."""
        document, section = self.about.context(), self.heading_at(offset) or ""
        if not document:
            return section or None
        if section.lower() in document.lower():
            section = ""  # the title is the heading in force
        return f"{document}{DOCUMENT}{section}".rstrip()

    @cached_property
    def text(self) -> str:
        return PAGE_SEP.join(p.text for p in self.pages)

    @cached_property
    def page_starts(self) -> list[int]:
        starts, pos = [], 0
        for p in self.pages:
            starts.append(pos)
            pos += len(p.text) + len(PAGE_SEP)
        return starts

    @cached_property
    def _heading_offsets(self) -> list[int]:
        return [h.offset for h in self.headings]

    @cached_property
    def _trails(self) -> tuple[str, ...]:
        return _trails(self.headings)

    def page_at(self, offset: int) -> int:
        """Page number holding the character at ``offset`` of the joined text."""
        return self.pages[max(0, bisect_right(self.page_starts, offset) - 1)].number

    def unit_at(self, offset: int) -> str:
        """Unit of the page holding ``offset`` ("" for a printed page, "table", "slide", ...)."""
        return self.pages[max(0, bisect_right(self.page_starts, offset) - 1)].unit

    def locator(self, start: int, end: int, at: int | None = None) -> str | None:
        """Where the text ``[start:end)`` is when pages are not plain printed pages
        ("slides 3–4", "p. 5 (OCR)", 'section "Budget"': the heading in force at ``at``,
        default ``start``); None for plain pages (``page_at`` says it)."""
        i = max(0, bisect_right(self.page_starts, start) - 1)
        j = max(i, bisect_right(self.page_starts, max(start, end - 1)) - 1)
        h = bisect_right(self._heading_offsets, start if at is None else at) - 1
        title = self.headings[h].title if h >= 0 else ""
        return locator(
            [
                (p.unit, p.number, title if p.unit == SECTION else p.scope)
                for p in self.pages[i : j + 1]
            ]
        )

    def heading_at(self, offset: int) -> str | None:
        """Heading in force at ``offset``: the innermost one, prefixed by its parent
        ("Chapter 2 > Machine Learning"); without headings, the page's own heading."""
        i = bisect_right(self._heading_offsets, offset) - 1
        if i >= 0:
            return self._trails[i]
        if not self.headings and self.pages:
            return self.pages[max(0, bisect_right(self.page_starts, offset) - 1)].heading
        return None

    @classmethod
    def from_pages(cls, pages: Sequence[Page], path: Path | None = None) -> ParsedDoc:
        return cls(path, tuple(p for p in pages if p.text))


def _trails(headings: Sequence[Heading]) -> tuple[str, ...]:
    stack: list[Heading] = []
    out = []
    for h in headings:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        out.append(" > ".join(s.title for s in stack[-2:]))
    return tuple(out)


def assemble(path: Path | None, pages: Sequence[tuple], warnings: list[str]) -> ParsedDoc:
    """Build a ParsedDoc from (page number, paragraphs[, unit, scope]) (``RawPage``);
    records heading offsets."""
    headings: list[Heading] = []
    texts: list[tuple[RawPage, str]] = []
    offset = 0
    for raw_page in pages:
        raw_page = RawPage(*raw_page)
        paras = raw_page.paras
        parts: list[str] = []
        pos = offset + (len(PAGE_SEP) if texts else 0)
        for raw, level in paras:
            t = " ".join(raw.split()) if level else re.sub(r"[ \t]+\n", "\n", raw).strip()
            t = re.sub(r"\n\s*\n", "\n\n", t)
            if not t:
                continue
            pos += 2 if parts else 0
            if level:
                headings.append(Heading(pos, level, t))
            parts.append(t)
            pos += len(t)
        if parts:
            texts.append((raw_page, "\n\n".join(parts)))
            offset = pos
    bare = ParsedDoc(
        path,
        tuple(Page(r.number, t, None, r.unit, r.scope) for r, t in texts),
        tuple(headings),
        tuple(warnings),
    )
    starts = bare.page_starts
    headed = tuple(replace(p, heading=bare.heading_at(s)) for p, s in zip(bare.pages, starts))
    return ParsedDoc(path, headed, bare.headings, bare.warnings)


# --- errors and reading -----------------------------------------------------------------


def _check_path(path: Path) -> None:
    if link := broken_link(path):
        raise link
    if not path.exists():
        raise bad(path, "file not found", "check the path")
    if path.is_dir():
        raise bad(path, "is a folder, not a file", "pass folders to ingest, which expands them")
    if not path.is_file():
        raise bad(path, "not a regular file (device, pipe or socket)", "pass a document file")
    check_old_binary(path)
    if path.suffix.lower() not in SUPPORTED:
        kind = path.suffix or "no extension"
        raise bad(path, f"unsupported file type ({kind})", "supported: " + supported_text())


def read_bytes(path: Path) -> bytes:
    """Read a file, mapping OS errors to one-line messages; empty files are errors."""
    try:
        data = Path(path).read_bytes()
    except PermissionError:
        raise bad(path, "permission denied", "check the file's permissions") from None
    except IsADirectoryError:
        raise bad(path, "is a folder, not a file", "pass folders to ingest") from None
    except OSError as exc:
        raise bad(path, f"cannot read file ({exc.strerror or exc})") from None
    if not data:
        raise bad(path, "empty file (0 bytes)", "nothing to index")
    return data


# --- public API ----------------------------------------------------------------------------


def parse_document(
    path: Path, limits: Limits | None = None, ctx: ReadContext | None = None
) -> ParsedDoc:
    """Parse one file into pages and headings with the reader its type is registered with
    (``formats.FORMATS``); raises BadDocument (one line) if unusable or over a limit."""
    path = Path(path)
    ctx = ctx or ReadContext(limits or Limits())
    _check_path(path)
    ext = path.suffix.lower()
    fmt = FORMATS[ext]
    if not fmt.binary:
        check_text_size(path, path.stat().st_size, ctx.limits)
    read = Read(*reader(ext)(path, read_bytes(path), ctx))
    pages = list(read.pages)
    about = read.about
    if about and pages:  # what the document is: its first line, a unit of its own
        first = RawPage(*pages[0])
        pages[0] = first._replace(paras=[(about.line(), None), *first.paras])
    elif pages and fmt.titled_by_opening:
        # a format with no title of its own (text, a scan): the title it opens with, which
        # is its first line already
        about = from_opening(list(RawPage(*pages[0]).paras), path)
    doc = assemble(path.resolve(), pages, read.warnings)
    if not doc.pages:
        raise bad(path, fmt.empty, "nothing to index")
    return replace(doc, about=about)
