"""What a document is: its title, authors and date, from the file's own properties and its
first page's layout.

A passage cut from a table or a report rarely says which report it is from: a row of
"Polk: 287,351" does not say "Iowa" or "July 2022"; the page said it once, in its title or
in the running header printed on every page (which the PDF reader drops from each page as
a margin). So each reader that can tell fills an ``About``: the title (the file's
properties when they hold a real one, else the first page's largest line, else the first
line of its running header), the authors its properties name, a date printed in the title
block or running header, and the running header's other lines ("General Election Date:
11/05/2024"). The parser writes it as the document's first line, a unit of its own that
retrieval and quotes can find ("Who wrote ...?", "As of which date ...?"), and every chunk
carries its ``context`` (title and running header) before its section heading, where the
answer's binding check reads a passage's context (crag/binding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from localcrag.textutil.labels import ABOUT

# a title the authoring tool wrote, not the author: "Microsoft Word - report.docx",
# "untitled", a file name
_TOOL_TITLE = re.compile(
    r"^(?:microsoft (?:word|powerpoint|excel)\b|untitled\b|document\d*$|presentation\d*$"
    r"|slide \d+$|\S+\.(?:docx?|pptx?|xlsx?|pdf|indd|qxd|tex|dvi)$)",
    re.I,
)
_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
# a date as title blocks and running headers print it: 7/5/2022, 2022-07-05, 5 July 2022,
# July 5, 2022, July 2022
DATE = re.compile(
    rf"\b(?:\d{{1,2}}/\d{{1,2}}/(?:19|20)\d\d|(?:19|20)\d\d-\d\d-\d\d"
    rf"|\d{{1,2}} {_MONTHS}\.? (?:19|20)\d\d|{_MONTHS}\.? (?:\d{{1,2}}, )?(?:19|20)\d\d)\b"
)
# an author the authoring tool wrote, not a person: its default user or its own name
_PLACEHOLDER = re.compile(
    r"^(?:|unknown|administrator|admin|user|owner|author|microsoft office user"
    r"|python-(?:docx|pptx)|openpyxl|libreoffice|writer)$",
    re.I,
)
MAX_WORDS = 24  # a longer "title" is a sentence of the text, not the document's name


@dataclass(frozen=True)
class About:
    """A document's own description: empty strings where the file does not say."""

    title: str = ""
    authors: str = ""
    date: str = ""
    running: tuple[str, ...] = ()  # the running header's lines besides the title

    def __bool__(self) -> bool:
        return bool(self.title or self.authors or self.running)

    def context(self) -> str:
        """Title, authors and running header: the context every passage of the document is
        read in (a row of a county's figures is Michigan's because the report is)."""
        said = " ".join((self.title, *self.running))
        date = self.date if self.date not in said else ""
        return "; ".join(x for x in (self.title, self.authors, date, *self.running) if x)

    def line(self) -> str:
        """The document's first line: what it is, by whom, when ("About this document:
        Annual report 2019. Author: Jane Roe. Date: 7/5/2022.")."""
        parts = [ABOUT] + ([f"{self.title}."] if self.title else [])
        if self.authors:  # said again here: a unit of its own answers "who wrote it?"
            parts.append(f"Author: {self.authors}.")
        if self.date and self.date not in " ".join((self.title, *self.running)):
            parts.append(f"Date: {self.date}.")
        parts += [r if r[-1:] in ".!?" else r + "." for r in self.running]
        return " ".join(parts)


def clean(text: str | None) -> str:
    return " ".join((text or "").split())


def real_title(text: str | None, path: Path | None = None) -> str:
    """``text`` when it names the document, "" when it is empty, a tool's placeholder, the
    file's own name or a whole sentence."""
    title = clean(text).strip(" .:;-")
    if not title or _TOOL_TITLE.match(title) or len(title.split()) > MAX_WORDS:
        return ""
    if path is not None and title.lower() in (path.name.lower(), path.stem.lower()):
        return ""
    return title


def first_date(lines: list[str]) -> str:
    for line in lines:
        if m := DATE.search(line):
            return m.group(0)
    return ""


def make(
    path: Path | None,
    title: str | None = "",
    authors: str | None = "",
    lines: list[str] | None = None,
    running: list[str] | None = None,
) -> About:
    """An About from a file's properties (``title``, ``authors``), its first page's title
    lines (``lines``: the largest text, first) and its running header (``running``): the
    title is the properties' when real, else the first of ``lines``, else the running
    header's first line; the date the first one printed in those lines."""
    running = [r for r in (clean(x) for x in running or ()) if r]
    lines = [ln for ln in (clean(x) for x in lines or ()) if ln]
    name = real_title(title, path) or next(
        (t for t in (real_title(x, path) for x in lines) if t), ""
    )
    if not name and running:
        name = real_title(running[0], path)
        running = running[1:]
    date = first_date([name, *running, *lines])
    if (m := DATE.search(name)) and m.end() == len(name) and m.start() > 0:
        name = name[: m.start()].rstrip(" ,;:-\u2013")  # "Totals 7/5/2022": a title, a date
    rest = tuple(r for r in running if r.strip(" .:;-").lower() != name.lower())
    by = clean(authors)
    if _PLACEHOLDER.match(by):
        by = ""
    return About(name, by, date, rest)


_CLOSING = ".!?:;,"
OPENING_WORDS = 12  # an opening line longer than this is a sentence, not the document's name
OPENING_CHARS = 200  # ... and one of more characters, whatever its spaces


def from_opening(paras: list[tuple[str, int | None]], path: Path | None = None) -> About:
    """What a document of a format with no title of its own (plain text, a scan) says it is:
    its first paragraph, when that is one short line without closing punctuation, as a
    scan's or a note's title is printed ("The LinnSequencer"). Empty otherwise: a document
    that opens with prose or a list has no title to read. (Markdown is named by its
    headings already, the heading path over its passages: as titles they also fed the
    search's identifier boost, which reads titles, and cost anthropic-docs' hybrid recall@3
    0.767 -> 0.625.)"""
    if not paras or len(paras[0][0]) > OPENING_CHARS:  # a paragraph of prose: read no further
        return About()
    text, level = paras[0]
    line = clean(text)
    if level not in (None, 1) or "\n" in text.strip() or not line or line[-1] in _CLOSING:
        return About()
    if len(line.split()) > OPENING_WORDS or not re.search(r"[A-Za-z]", line):
        return About()
    if line[:1] in "-*\u2022>|#" or re.match(r"\d+[.)]\s", line):
        return About()  # a list item or a table's first row opens the text: no title
    return About(real_title(line, path))
